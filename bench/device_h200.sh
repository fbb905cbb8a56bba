#!/usr/bin/env bash
# One call on the H200 test machine (the `device` tool): run the GPU tests and the whole
# unit suite there, save the probe's snapshots as fixtures, and time the probe against
# nvidia-smi and PyTorch's collect_env in the same run. Results land in $OUT.
# Expects a Release build carried in build/device (cmake -B build/device -G Ninja
# -DCMAKE_BUILD_TYPE=Release; the tests embed absolute paths, so this checkout is made to
# appear at the path it was built in).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
B=build/device
exe=$B/src/gpuready
out=${OUT:-/tmp/out}
mkdir -p "$out"
{
  echo "== machine"; uname -a; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv
  echo "== gpuready probe"; $exe probe
} > "$out/h200-probe.txt" 2>&1
$exe probe --json --save "$out/h200-snapshot.json" > /dev/null 2> "$out/h200-probe.err"
$exe probe --json --cuda --save "$out/h200-snapshot-cuda.json" > /dev/null 2>> "$out/h200-probe.err"
echo "== tests"
ctest --test-dir $B --output-on-failure -j 8 2>&1 | tee "$out/ctest.log" | tail -25
echo "== gpu tests, verbose"
ctest --test-dir $B -L gpu -V 2>&1 | grep -E "RUN|OK|FAILED|SKIPPED|Passed|Failed|Expected|Which is|Value of" > "$out/ctest-gpu.log"
tail -15 "$out/ctest-gpu.log"
echo "== speed"
python3 bench/probe_speed.py $exe --json "$out/probe-speed.json" 2>&1 | tee "$out/probe-speed.txt"
echo "== doctor"
{ $exe; echo "exit $?"; } > "$out/h200-doctor.txt" 2>&1
$exe doctor --json > "$out/h200-doctor.json" 2>&1
{ $exe doctor --framework tensorflow; echo "exit $?"; } > "$out/h200-doctor-tf.txt" 2>&1
head -30 "$out/h200-doctor.txt"
# The dependency walk on real files: a lone copy of the 141 MB cuSOLVER on LD_LIBRARY_PATH
# (its RUNPATH $ORIGIN then holds nothing; the loader cache must supply nvJitLink and cuBLAS).
lonely=$(mktemp -d)
cp -L "$(ldconfig -p | awk '/libcusolver\.so\.12 .*x86-64/ {print $NF; exit}')" "$lonely/" 2>/dev/null
LD_LIBRARY_PATH=$lonely $exe probe --json --save "$out/h200-snapshot-lonely-cusolver.json" > /dev/null 2>&1
LD_LIBRARY_PATH=$lonely $exe doctor > "$out/h200-doctor-lonely-cusolver.txt" 2>&1
rm -rf "$lonely"
for i in 1 2 3 4 5; do /usr/bin/time -f %e $exe >/dev/null; done 2> "$out/h200-doctor-times.txt"
cat "$out/h200-doctor-times.txt"
