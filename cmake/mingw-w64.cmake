# Toolchain file: cross-compile gpuready for 64-bit Windows with MinGW-w64 from Linux.
#   cmake -S . -B build/mingw -G Ninja --toolchain cmake/mingw-w64.cmake
# The POSIX threading flavour (…-posix) is chosen because std::thread / std::mutex need it.
# Dependencies (CLI11, nlohmann_json, fmt) must be findable for this target: point
# CMAKE_PREFIX_PATH at Windows builds of them. Without those, scripts/check-win32-build.sh
# checks the sources with MinGW directly (see docs/windows.md).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(MINGW_TRIPLE x86_64-w64-mingw32 CACHE STRING "MinGW-w64 target triple")
set(CMAKE_C_COMPILER ${MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${MINGW_TRIPLE}-windres)

# Look for libraries and headers only in the target's sysroot (and CMAKE_PREFIX_PATH),
# never in the build machine's /usr; programs are the build machine's.
set(CMAKE_FIND_ROOT_PATH /usr/${MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Tests built here run under Wine.
find_program(MINGW_WINE NAMES wine64 wine PATHS /usr/lib/wine)
if(MINGW_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MINGW_WINE})
endif()
