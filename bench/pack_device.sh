#!/usr/bin/env bash
# Packs what the device calls of bench/*_h200.sh run, from build/default (Release with debug info), into one carried
# file, build/devx/dev.tar.xz (run's carry limit is 64 MiB; bench/unpack_carried.sh unpacks it there):
#   dev/       gpuready, libgpuready-cuda.so, gpu_train_engine_test, gpu_bench_test (stripped of debug info)
#   benchcpu/  gpuready and libgpuready-cpu.so with the oneDNN, OpenCL loader and GNU OpenMP libraries they load (the
#              GPU machine has none of them), for bench/bench_cpu_h200.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
b=build/default
rm -rf build/dev build/benchcpu build/devx
mkdir -p build/dev build/benchcpu build/devx
for f in src/gpuready src/libgpuready-cuda.so tests/gpu_bench_test gpu/gpu_train_engine_test; do
  [[ -f $b/$f ]] && strip --strip-debug -o "build/dev/$(basename "$f")" "$b/$f"
done
strip --strip-debug -o build/benchcpu/gpuready $b/src/gpuready
strip --strip-debug -o build/benchcpu/libgpuready-cpu.so $b/src/libgpuready-cpu.so
for lib in $(ldd $b/src/libgpuready-cpu.so | awk '/libdnnl|libOpenCL|libgomp/ {print $3}'); do
  cp -L "$lib" build/benchcpu/
done
tar cf - -C build dev benchcpu | xz -6 -T2 > build/devx/dev.tar.xz
ls -la build/dev build/benchcpu build/devx
