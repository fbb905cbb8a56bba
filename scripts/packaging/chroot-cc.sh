#!/usr/bin/env bash
# The compiler of the portable Linux build: the Debian 11 chroot's gcc / g++ (glibc 2.31, libstdc++ 10), run from the
# host's CMake and Ninja (Debian 11's CMake is older than 3.25). The chroot sees the source and build trees at the same
# paths (scripts/package.sh bind-mounts them), so arguments and the current folder mean the same inside.
# Called through the links gcc / g++ that scripts/package.sh makes beside it; $GPUREADY_CHROOT is the chroot.
# CMake takes the chroot's /usr/include (found through CMAKE_FIND_ROOT_PATH) for an ordinary folder and names it with
# -isystem; inside the chroot that is the compiler's own folder again, where a second -isystem breaks #include_next:
# those arguments are dropped.
set -euo pipefail
: "${GPUREADY_CHROOT:?GPUREADY_CHROOT must name the Debian 11 chroot}"
args=()
pending=0  # the argument before was -isystem
for a in "$@"; do
  case $a in
    "-I$GPUREADY_CHROOT/usr/include" | "-isystem$GPUREADY_CHROOT/usr/include") continue ;;
  esac
  if [[ $a == -isystem ]]; then
    pending=1
    args+=("$a")
    continue
  fi
  if [[ $pending == 1 ]]; then
    pending=0
    if [[ $a == "$GPUREADY_CHROOT/usr/include" ]]; then unset 'args[${#args[@]}-1]'; continue; fi
  fi
  args+=("$a")
done
exec chroot "$GPUREADY_CHROOT" /usr/bin/env -C "$PWD" "/usr/bin/$(basename "$0")" "${args[@]}"
