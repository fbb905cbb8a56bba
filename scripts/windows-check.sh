#!/usr/bin/env bash
# The Windows build, checked from Linux: cross-compiles gpuready.exe and the tests with MinGW-w64
# (cmake --preset mingw) and runs the tests under Wine (ctest --preset mingw), the fixture tests of
# Windows layouts, the live seams and `gpuready.exe probe --json` among them (docs/windows.md).
# Needs g++-mingw-w64-x86-64-posix and wine64 (scripts/quickstart.sh test installs them).
# Extra arguments go to ctest (e.g. -R windows_probe).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for tool in x86_64-w64-mingw32-g++-posix /usr/lib/wine/wine64; do
  if ! command -v "$tool" >/dev/null; then
    echo "windows-check: $tool not found (Debian: apt-get install --no-install-recommends g++-mingw-w64-x86-64-posix wine64)" >&2
    exit 2
  fi
done

cmake --preset mingw >/dev/null
cmake --build --preset mingw
# The test preset names the Wine prefix (build/mingw/wineprefix); the ctest wine_prefix makes it first.
ctest --preset mingw "$@"
