# Toolchain file of the portable Linux build (scripts/package.sh): the host's CMake and Ninja drive the Debian 11
# chroot's gcc/g++ (scripts/packaging/chroot-cc.sh), so the executable needs no glibc newer than 2.31 (Ubuntu 20.04+,
# Debian 11+) and carries its own libstdc++. Libraries and headers are taken from the chroot only; the chroot holds a
# link from its own path to its root, so the paths found here resolve the same inside it. The header-only
# dependencies come from the host (GPUREADY_HOST_INCLUDE_DIR, copied into the chroot: Debian 11's are too old).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(GPUREADY_CHROOT "$ENV{GPUREADY_CHROOT}" CACHE PATH "The Debian 11 chroot")
set(CMAKE_C_COMPILER ${CMAKE_CURRENT_LIST_DIR}/../build/portable-tools/gcc)
set(CMAKE_CXX_COMPILER ${CMAKE_CURRENT_LIST_DIR}/../build/portable-tools/g++)
set(CMAKE_FIND_ROOT_PATH ${GPUREADY_CHROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# CMake cannot see the compiler's multiarch folder through the chroot: named here for the executable's RPATH
# (src/CMakeLists.txt), and the install's lib folder for GNUInstallDirs.
set(GPUREADY_MULTIARCH x86_64-linux-gnu)
set(CMAKE_INSTALL_LIBDIR lib)
