#!/usr/bin/env bash
# The hostile cases of docs/security.md on the H200 test machine (real driver present), one call:
# the planted-folder tests (tests/unit/security_test.cpp), the hardening and fault-injection tests,
# and gpuready probe / doctor / verify --quick / bench run by hand in a folder that plants
# libnvidia-ml.so.1, libcuda.so.1, libcudart, cuDNN, ... and python3 / nvcc / nvidia-smi, with
# LD_LIBRARY_PATH and PATH naming it. Results land in $OUT.
# Expects the test binaries of build/default carried (stripped) in .devrun/ (see the issue note);
# the tests embed absolute paths, so this checkout is made to appear at the path it was built in.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
mkdir -p build/default
cp -a .devrun/. build/default/
B=build/default
exe=$B/src/gpuready
out=${OUT:-/tmp/out}
mkdir -p "$out"
{
  echo "== machine"; uname -a; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== planted-folder tests (real driver)"
  $B/tests/security_test --gtest_brief=0 2>&1 | grep -E "^\[|loaded or ran|Failure" 
  echo "== hardening tests"
  $B/tests/hardening_test --gtest_brief=1 2>&1 | tail -5
  echo "== fault injection (fake libraries, next to the real driver)"
  $B/tests/nvidia_probe_test --gtest_filter='FaultInjection.*:NvidiaProbeChild.*' --gtest_brief=1 2>&1 | tail -5
} > "$out/tests.txt" 2>&1
cat "$out/tests.txt"

# By hand: a folder that plants every vendor library and program name, with the guides' empty entry.
plant=$(mktemp -d)
markers=$(mktemp -d)
mkdir -p "$plant/lib" "$plant/bin"
for n in libnvidia-ml.so.1 libcuda.so.1 libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 \
         libcudnn_graph.so.9 libnccl.so.2 libdnnl.so.2 libgomp.so.1 libz.so.1 libzstd.so.1 liblzma.so.5 libpthread.so.0 libdl.so.2; do
  cp $B/tests/fakes/libplanted.so "$plant/$n"; cp $B/tests/fakes/libplanted.so "$plant/lib/$n"
done
for p in python3 python nvcc nvidia-smi nvidia-ctk ldconfig gcc; do
  printf '#!/bin/sh\n: > "$GPUREADY_PLANT_MARKERS/ran-%s-$$"\n' "$p" > "$plant/$p"; chmod +x "$plant/$p"
  cp "$plant/$p" "$plant/bin/$p"
done
real_exe=$(pwd -P)/$exe
run() {  # run NAME ARGS...: gpuready in the planted folder, hostile search paths
  local name=$1; shift
  ( cd "$plant" && GPUREADY_PLANT_MARKERS=$markers LD_LIBRARY_PATH=/usr/local/cuda/lib64::.:lib \
      PATH=":.:bin:$PATH" PYTHONPATH=":." timeout 600 "$real_exe" "$@" ) > "$out/planted-$name.txt" 2>&1
  echo "exit $?" >> "$out/planted-$name.txt"
  echo "== $name: $(tail -1 "$out/planted-$name.txt"), markers: $(ls "$markers" | tr '\n' ' ')"
}
{
  run probe probe --cuda
  run doctor doctor
  run doctor-deep doctor --deep
  run verify verify --quick
  run bench bench --images 512 --epochs 1
  run explain explain "Could not load dynamic library 'libcudart.so.11.0'"
  echo "== markers left (must be none):"; ls -la "$markers"
  echo "== the doctor's security finding:"; grep -A6 "search-path-cwd\|names the current folder" "$out/planted-doctor.txt" | head -12
} 2>&1 | tee "$out/planted-summary.txt"
rm -rf "$plant" "$markers"
