#!/usr/bin/env bash
# On the GPU test machine, before bench/gpu_everywhere_h200.sh: joins the three parts of the CUDA 11 cuBLAS that
# bench/carry_cublas11.sh made (carried to $C11, default /tmp/c11, by earlier calls; the last part may still be in
# build/c11c) and unpacks build/devx/dev.tar.xz (bench/pack_device.sh: build/dev, build/benchcpu). Uses xz where the machine
# has it, else Python's lzma.
set -uo pipefail
C11=${C11:-/tmp/c11}
unxz_() { if command -v xz > /dev/null; then xz -dc; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer)'; fi; }
mkdir -p "$C11"
[[ -d build/c11c ]] && cp build/c11c/* "$C11"/
if [[ -f $C11/c11.part00 && -f $C11/c11.part01 && -f $C11/c11.part02 ]]; then
  (cd "$C11" && cat c11.part00 c11.part01 c11.part02 | unxz_ | tar x && rm -f c11.part0?) || echo "cuBLAS 11: unpacking failed"
else
  echo "cuBLAS 11: parts missing in $C11: $(ls "$C11" 2>&1 | tr '\n' ' ')"
fi
ls -la "$C11"
[[ -f build/devx/dev.tar.xz ]] && unxz_ < build/devx/dev.tar.xz | tar x -C build
ls -la build/dev
