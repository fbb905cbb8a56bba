#!/usr/bin/env bash
# Issue 21's first-epoch goal on the GPU test machine, one device call (build/dev unpacked by bench/unpack_carried.sh):
# the engine's tests (gpu_train_engine_test, gpu_bench_test), then `bench --device gpu` on the two cases of
# docs/benchmarks.md in fp32, tf32 and bf16, ROUNDS (default 1) rounds: first epoch against the steady one, and how
# each batch size got its algorithms (the details' "batch N:" lines). JSON in $OUT/first_epoch.json.
set -uo pipefail
final=${OUT:-/tmp/out}
mkdir -p "$final"
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
mkdir -p build/default/src build/default/tests build/default/gpu
cp build/dev/gpuready build/dev/libgpuready-cuda.so build/default/src/
cp build/dev/gpu_bench_test build/default/tests/
cp build/dev/gpu_train_engine_test build/default/gpu/
build/default/gpu/gpu_train_engine_test 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure" | tail -4
build/default/tests/gpu_bench_test 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure|Expected|reused" | tail -8
python3 - build/default/src/gpuready "$final" "${ROUNDS:-1}" <<'PY'
import json, subprocess, sys
exe, out, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = {"28": ["--images", "75000", "--batch", "128", "--epochs", "3"],
         "128": ["--images", "12500", "--size", "128x128x3", "--batch", "64", "--epochs", "3"]}
res = []
for r in range(rounds):
    for name, args in cases.items():
        for p in ("fp32", "tf32", "bf16"):
            j = json.loads(subprocess.run([exe, "bench", "--device", "gpu", "--json", "--precision", p] + args,
                                          capture_output=True, text=True).stdout)
            run = j["runs"][0]
            res.append({"case": name, "precision": p, "round": r + 1, "run": run})
            if run.get("error"):
                print(name, p, "error:", run["error"][:300]); continue
            print(f"{name:>4} {p}: first {run['first_epoch_seconds']:.3f} s, steady {run['epoch_seconds']:.3f} s, "
                  f"ratio {run['first_epoch_seconds'] / run['epoch_seconds']:.2f}, accuracy {run['accuracy']:.4f}", flush=True)
            for d in run["details"]:
                if d.startswith("batch "): print("      ", d[:60], "...", d[-70:])
json.dump(res, open(out + "/first_epoch.json", "w"), indent=1)
PY
