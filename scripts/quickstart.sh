#!/usr/bin/env bash
# One entry point for the README's Quick start and for CI.
#   scripts/quickstart.sh          install what is missing, build, run `gpuready` on this machine
#   scripts/quickstart.sh test     install what is missing, build, run the whole test suite
#                                  (unit + CI checks under ASan + UBSan, from the clang build that
#                                  also makes the parser fuzzers, each run briefly; then the
#                                  Windows build and its tests under Wine)
# Works on a fresh Debian 12 with nothing but git; re-running it is cheap (apt and ninja skip
# what is already done). Needs root or sudo only when packages are missing.
set -euo pipefail

mode=${1:-run}
shift || true
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

# Debian 12 packages: the compiler and build tools, the libraries gpuready builds on (oneDNN and
# the OpenCL headers its package config asks for: the CPU training engine of `gpuready bench`),
# and clang with its runtimes for the fuzz targets (test mode only).
# GoogleTest is installed in both modes: the default preset configures the tests too.
packages=(g++ cmake ninja-build binutils libcli11-dev nlohmann-json3-dev libfmt-dev libstb-dev libdnnl-dev ocl-icd-opencl-dev libgtest-dev libgmock-dev libzstd-dev liblzma-dev zlib1g-dev libpcre2-dev)
if [[ $mode == test ]]; then
  # The fuzzers (clang), the framework-check tests (python3), the report's browser test, and the Windows build
  # checked from Linux: MinGW-w64 builds gpuready.exe and the tests, Wine runs them (scripts/windows-check.sh).
  # Chromium's headless shell loads `gpuready report`'s pages in the browser test (label browser).
  packages+=(clang libclang-rt-14-dev python3 g++-mingw-w64-x86-64-posix wine64 chromium-headless-shell)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

case $mode in
  run)
    cmake --preset default >/dev/null
    cmake --build --preset default --target gpuready
    exec ./build/default/src/gpuready "$@"
    ;;
  test)
    # One clang build with ASan + UBSan serves the whole suite (unit, CI checks, the CUDA module and
    # its tests on the fake driver, the GPU tests that skip themselves without a GPU) and the
    # fuzzers: one build instead of a release build and a sanitizer build (CI's time). The release
    # build is what `scripts/quickstart.sh` makes.
    cmake --preset debug >/dev/null
    cmake --build --preset debug
    ctest --preset debug "$@"
    scripts/run-fuzzers.sh "${GPUREADY_FUZZ_SECONDS:-5}"
    scripts/windows-check.sh
    ;;
  *)
    echo "usage: scripts/quickstart.sh [run|test] [args...]" >&2
    exit 2
    ;;
esac
