#!/usr/bin/env bash
# Makes the CUDA 11 cuBLAS that bench/gpu_everywhere_h200.sh's cuda11 variant runs on, small enough to travel to
# the GPU test machine (64 MiB a device call, the working tree included): Debian 12's libcublas11 + libcublaslt11
# (11.11.3.6, CUDA 11.8; non-free, `apt-get download libcublas11 libcublaslt11`, unpacked with dpkg -x into $SRC),
# each library's embedded kernel images for GPUs other than sm_90 blanked (bench/blank_fatbin_images.py: layout,
# headers and sm_90's images unchanged; the H200 never selects the others), xz'd and cut into three parts:
# build/c11a, build/c11b, build/c11c (git-ignored). Three device calls carry them, in a row while the machine is
# warm (30 s):
#   carry [build/c11a]: mkdir -p /tmp/c11 && cp build/c11a/* /tmp/c11/
#   carry [build/c11b]: cp build/c11b/* /tmp/c11/
#   carry [build/c11c, build/devx]: bash bench/unpack_carried.sh
# (build/devx/dev.tar.xz: build/dev, the stripped binaries gpu_everywhere_h200.sh names, as
# `tar cf - -C build dev | xz -9`, 4 MB instead of 30)
#                                   && ROUNDS=3 bash bench/gpu_everywhere_h200.sh
set -euo pipefail
SRC=${SRC:-/opt/cublas11/usr/lib/x86_64-linux-gnu}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/bench/blank_fatbin_images.py" "$SRC/libcublasLt.so.11.11.3.6" "$tmp/libcublasLt.so.11"
python3 "$here/bench/blank_fatbin_images.py" "$SRC/libcublas.so.11.11.3.6" "$tmp/libcublas.so.11"
(cd "$tmp" && tar cf - libcublas.so.11 libcublasLt.so.11 | xz -9 -T2 > c11.tar.xz && split -n 3 -d c11.tar.xz c11.part)
for p in a:00 b:01 c:02; do
  mkdir -p "$here/build/c11${p%%:*}"
  mv "$tmp/c11.part${p#*:}" "$here/build/c11${p%%:*}/"
done
ls -la "$here"/build/c11?/
