#!/usr/bin/env bash
# One device call on the H200 test machine for `gpuready verify`: the GPU tests, the verify
# runs (full, JSON, one check, the planted corruption that must fail), and PyTorch's copies in
# the same run, alternated 3 times, for same-run ratios. Results in $OUT (or /tmp/out).
# Expects the Release build carried in build/device (see bench/device_h200.sh).
set -uo pipefail
built_at=${GPUREADY_BUILT_AT:-/work/main}
if [[ $(pwd -P) != "$built_at" ]]; then
  mkdir -p "$(dirname "$built_at")"
  [[ -e $built_at ]] || ln -s "$(pwd -P)" "$built_at"
fi
cd "$built_at"
exe=build/device/src/gpuready
out=${OUT:-/tmp/out}
mkdir -p "$out"
ctest --test-dir build/device -L gpu -V 2>&1 | grep -E "RUN|OK|FAILED|SKIPPED|Passed|Failed|Expected|Which is|Value of" > "$out/ctest-gpu.log"
ctest --test-dir build/device -R "Verify" 2>&1 | tail -5 >> "$out/ctest-gpu.log"
{ $exe verify; echo "exit $?"; } > "$out/verify.txt" 2>&1
{ $exe verify -t copy.h2d_pinned --quick; echo "exit $?"; } > "$out/verify-one.txt" 2>&1
{ $exe verify --plant-corruption -t copy.d2h_pinned --quick; echo "exit $?"; } > "$out/verify-corrupt.txt" 2>&1
python3 - "$exe" "$out" <<'PY'
import json, subprocess, sys, statistics
exe, out = sys.argv[1], sys.argv[2]
runs = []
for i in range(3):
    g = json.loads(subprocess.run([exe, "verify", "--json"], capture_output=True, text=True).stdout)
    t = json.loads(subprocess.run(["python3", "bench/copy_reference.py"], capture_output=True, text=True).stdout)
    runs.append({"gpuready": {c["key"][5:]: c["value"] for c in g["checks"] if c["value"] is not None}, "torch": t})
json.dump(runs, open(out + "/verify-vs-torch.json", "w"), indent=1)
print("key              gpuready GB/s   torch GB/s   ratio (median of 3 alternated runs)")
for k in ["h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d"]:
    g = statistics.median(r["gpuready"].get(k, 0) for r in runs)
    t = statistics.median(r["torch"][k] for r in runs)
    print(f"{k:<16} {g:12.1f} {t:12.1f} {g / t:10.3f}")
PY
