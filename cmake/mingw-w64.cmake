# Toolchain file: cross-compile gpuready for 64-bit Windows with MinGW-w64 from Linux.
#   cmake -S . -B build/mingw -G Ninja --toolchain cmake/mingw-w64.cmake
#   (or: cmake --preset mingw; scripts/windows-build.sh builds it and runs its tests under Wine)
# The POSIX threading flavour (…-posix) is chosen because std::thread / std::mutex need it.
# Dependencies: Debian's header-only CLI11, nlohmann_json, fmt and stb (cmake/host_header_deps.cmake)
# and GoogleTest compiled from /usr/src/googletest (tests/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(MINGW_TRIPLE x86_64-w64-mingw32 CACHE STRING "MinGW-w64 target triple")
set(CMAKE_C_COMPILER ${MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${MINGW_TRIPLE}-windres)
# Static C++ runtime and winpthreads: each .exe runs on a bare Windows (and under Wine) without
# MinGW's DLLs beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Look for libraries and headers only in the target's sysroot (and CMAKE_PREFIX_PATH),
# never in the build machine's /usr; programs are the build machine's.
set(CMAKE_FIND_ROOT_PATH /usr/${MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Tests built here run under Wine (a private prefix: see scripts/windows-build.sh).
find_program(MINGW_WINE NAMES wine64 wine PATHS /usr/lib/wine)
if(MINGW_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MINGW_WINE})
endif()
