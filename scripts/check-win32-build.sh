#!/usr/bin/env bash
# Proves the Windows side of gpuready builds, from Linux, with MinGW-w64:
#   1. compiles src/platform/*.cpp and src/platform/win32/*.cpp to objects (-Werror),
#   2. compiles every other src/ file except the CLI (nlohmann + header-only fmt),
#   3. links tests/win32/seams_smoke.cpp against the win32 seams into seams_smoke.exe and,
#      when step 2 passed, tests/win32/probe_smoke.cpp against the whole library,
#   4. runs them under Wine when Wine is installed (seams_smoke's exit code is the number of
#      failed checks; probe_smoke must print a snapshot).
# Usage: scripts/check-win32-build.sh [--quick (skip step 2)] [--no-run (skip step 4)]
# Env: CXX_WIN32 (default x86_64-w64-mingw32-g++-posix), BUILD_DIR (default build/win32).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cxx=${CXX_WIN32:-x86_64-w64-mingw32-g++-posix}
out=${BUILD_DIR:-build/win32}
quick=0
run=1
for arg in "$@"; do
  case $arg in
    --quick) quick=1 ;;
    --no-run) run=0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done

if ! command -v "$cxx" >/dev/null; then
  echo "error: $cxx not found (Debian: apt-get install g++-mingw-w64-x86-64-posix)" >&2
  exit 2
fi
launcher=()
command -v ccache >/dev/null && launcher=(ccache)
mkdir -p "$out/obj" "$out/include"
# nlohmann and fmt are header-only when FMT_HEADER_ONLY is set; point at Debian's copies
# through links in a folder of their own, so no other Linux header can leak into the build.
ln -sfn /usr/include/nlohmann "$out/include/nlohmann"
ln -sfn /usr/include/fmt "$out/include/fmt"
# stb (train/'s image decoding) is header-only too: its folder alone, as CMake gives it (Debian's libstb-dev).
ln -sfn /usr/include/stb "$out/include/stb"
flags=(-std=c++20 -Wall -Wextra -Wpedantic -Wshadow -Isrc -isystem "$out/include" -isystem "$out/include/stb"
       -DFMT_HEADER_ONLY
       -DGPUREADY_VERSION=\"win32-check\")
status=0

echo "== 1. platform seams (objects, -Werror)"
objs=()
for src in src/platform/*.cpp src/platform/win32/*.cpp; do
  obj="$out/obj/$(basename "${src%.cpp}").o"
  if "${launcher[@]}" "$cxx" "${flags[@]}" -Werror -O1 -c "$src" -o "$obj"; then
    echo "ok   $src"
    objs+=("$obj")
  else
    echo "FAIL $src"
    status=1
  fi
done

if [ "$quick" = 0 ]; then
  echo "== 2. the rest of src/ except cli/ and platform/posix/ (objects)"
  mapfile -t others < <(find src -name '*.cpp' -not -path 'src/cli/*' -not -path 'src/platform/*' | sort)
  # What the build generates (src/CMakeLists.txt): the knowledge tables and the framework check script, compiled in.
  mkdir -p "$out/gen"
  cmake -DDATA_DIR="$root/data" -DOUT="$out/gen/knowledge_embedded.cpp" -P cmake/embed_data.cmake &&
    cmake -DIN="$root/src/probe/checks/framework_check.py" -DOUT="$out/gen/framework_check_embedded.cpp" \
      -DFUNCTION=framework_check_script -P cmake/embed_text.cmake || status=1
  others+=("$out/gen/knowledge_embedded.cpp" "$out/gen/framework_check_embedded.cpp")
  lib_objs=()
  lib_ok=1
  for src in "${others[@]}"; do
    obj="$out/obj/lib/${src//\//_}.o"
    mkdir -p "$out/obj/lib"
    if log=$("${launcher[@]}" "$cxx" "${flags[@]}" -O0 -c "$src" -o "$obj" 2>&1); then
      lib_objs+=("$obj")
      warnings=$(grep -c 'warning:' <<<"$log")
      echo "ok   $src${warnings:+$( [ "$warnings" != 0 ] && echo " ($warnings warnings)")}"
    else
      echo "FAIL $src"
      grep -m 5 'error' <<<"$log" | sed 's/^/       /'
      status=1
      lib_ok=0
    fi
  done
fi

echo "== 3. link test programs"
# -static: the .exe then needs no MinGW runtime DLLs next to it (Wine or a bare Windows).
if [ "${#objs[@]}" -gt 0 ] &&
   "${launcher[@]}" "$cxx" "${flags[@]}" -O1 -c tests/win32/seams_smoke.cpp -o "$out/obj/seams_smoke.o" &&
   "$cxx" -static -o "$out/seams_smoke.exe" "$out/obj/seams_smoke.o" "${objs[@]}" -lshell32; then
  echo "ok   $out/seams_smoke.exe"
else
  echo "FAIL seams_smoke.exe"
  exit 1
fi
probe_exe=""
if [ "$quick" = 0 ] && [ "$lib_ok" = 1 ]; then
  if "${launcher[@]}" "$cxx" "${flags[@]}" -O0 -c tests/win32/probe_smoke.cpp -o "$out/obj/probe_smoke.o" &&
     "$cxx" -static -o "$out/probe_smoke.exe" "$out/obj/probe_smoke.o" "${lib_objs[@]}" "${objs[@]}" -lshell32; then
    echo "ok   $out/probe_smoke.exe (the whole library but the CLI)"
    probe_exe="$out/probe_smoke.exe"
  else
    echo "FAIL probe_smoke.exe"
    status=1
  fi
fi

if [ "$run" = 1 ]; then
  wine=""
  for candidate in wine64 wine /usr/lib/wine/wine64; do
    if command -v "$candidate" >/dev/null; then wine=$candidate; break; fi
  done
  if [ -z "$wine" ]; then
    echo "== 4. skipped: Wine is not installed (Debian: apt-get install --no-install-recommends wine64)"
  else
    echo "== 4. run under $wine"
    # A private prefix (created on first use, ~20 s) so that nothing of the user's Wine is touched.
    export WINEPREFIX=${WINEPREFIX:-$root/$out/wineprefix} WINEDEBUG=${WINEDEBUG:--all}
    timeout 300 "$wine" "$out/seams_smoke.exe" 2> "$out/wine-stderr.log"
    rc=$?
    echo "seams_smoke.exe exit code: $rc (Wine's own messages: $out/wine-stderr.log)"
    [ "$rc" = 0 ] || status=1
    if [ -n "$probe_exe" ]; then
      echo "-- probe_smoke.exe (snapshot in $out/probe_snapshot.json)"
      timeout 120 "$wine" "$probe_exe" > "$out/probe_snapshot.json" 2> "$out/probe-stderr.log"
      rc=$?
      grep -v '^wine\|^[0-9a-f]*:fixme' "$out/probe-stderr.log" | tail -5
      echo "probe_smoke.exe exit code: $rc, $(wc -c < "$out/probe_snapshot.json") bytes of JSON"
      [ "$rc" = 0 ] || status=1
    fi
  fi
fi
exit $status
