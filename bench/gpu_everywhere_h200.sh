#!/usr/bin/env bash
# Issue 20 on the GPU test machine, one device call: the CUDA module now talks to the driver API only and
# runs kernels compiled once with CUDA 11.8 (gpu/device/gpuready.fatbin). Carries build/dev: stripped copies of
# gpuready, libgpuready-cuda.so, gpu_module_test and gpu_train_engine_test from a build of this tree, and
# build/dev/old/libgpuready-cuda.so: the module before this change (CUDA runtime 13 linked statically, kernels
# built by nvcc 13 for sm_90), the same-run baseline. Runs
#   1. the engine against the reference CNN (gpu_train_engine_test), verify's checks and their planted
#      corruptions (gpu_module_test);
#   2. `gpuready verify` (GEMM x4, cuDNN x3, memory): the new module with the machine's libraries, with PyTorch's
#      (--libs torch), and the old module (GPUREADY_CUDA_MODULE), ROUNDS rounds, alternated;
#   3. `gpuready bench --device gpu` on the two cases of docs/benchmarks.md, fp32/tf32/bf16, the same three
#      variants, BENCH_ROUNDS (default ROUNDS) rounds, alternated (PRECISIONS: default "fp32 tf32 bf16").
# Results in $OUT: the JSON of every run and a summary on stdout.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
D=$(pwd -P)/build/dev
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
mkdir -p build/default/src build/default/tests build/default/gpu
cp "$D/gpuready" "$D/libgpuready-cuda.so" build/default/src/
cp "$D/gpu_module_test" build/default/tests/
cp "$D/gpu_train_engine_test" build/default/gpu/
exe=build/default/src/gpuready
rounds=${ROUNDS:-3}
bench_rounds=${BENCH_ROUNDS:-$rounds}
{ nvidia-smi; $exe probe; } > "$out/probe.txt" 2>&1
echo "== gpu_train_engine_test"
build/default/gpu/gpu_train_engine_test > "$out/train_engine_test.txt" 2>&1
grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |Failure|normalised" "$out/train_engine_test.txt" | tail -12
echo "== gpu_module_test"
build/default/tests/gpu_module_test > "$out/module_test.txt" 2>&1
grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |Failure" "$out/module_test.txt" | tail -6
checks=(-t gemm.fp32 -t gemm.tf32 -t gemm.fp16 -t gemm.bf16 -t cudnn.conv_fwd -t cudnn.conv_bwd_data -t cudnn.conv_bwd_filter -t memory.pattern)
old=$D/old/libgpuready-cuda.so
for r in $(seq 1 "$rounds"); do
  for v in system torch old; do
    if [[ $v == old ]]; then
      GPUREADY_CUDA_MODULE=$old $exe verify --json "${checks[@]}" > "$out/verify-$v-$r.json" 2> "$out/verify-$v-$r.err"
    else
      $exe verify --json --libs $v "${checks[@]}" > "$out/verify-$v-$r.json" 2> "$out/verify-$v-$r.err"
    fi
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for libs in ("system", "torch", "old"):
    for r in range(1, rounds + 1):
        try:
            j = json.load(open(f"{out}/verify-{libs}-{r}.json"))
        except Exception as e:
            print("verify", libs, r, "no JSON:", e); continue
        for c in j.get("checks", []):
            rows.setdefault((c["key"], libs), []).append(c)
print("== verify (median of rounds)")
for (key, libs), cs in sorted(rows.items()):
    vals = [c.get("value") for c in cs if isinstance(c.get("measured"), (int, float))]
    st = ",".join(sorted(set(c["status"] for c in cs)))
    med = statistics.median(vals) if vals else None
    print(f"{key:<24} {libs:<7} {st:<5} {med if med is None else round(med, 1)} {cs[-1].get('unit', '')}  {cs[-1]['detail'][:150]}")
PY
echo "== bench"
cases=("28|--images 75000 --batch 128 --epochs 3" "128|--images 12500 --size 128x128x3 --batch 64 --epochs 3")
for r in $(seq 1 "$bench_rounds"); do
  for c in "${cases[@]}"; do
    for p in ${PRECISIONS:-fp32 tf32 bf16}; do
      for v in system torch old; do
        name=${c%%|*}; args=${c#*|}
        if [[ $v == old ]]; then
          GPUREADY_CUDA_MODULE=$old $exe bench --device gpu --json --precision $p $args > "$out/bench-$name-$p-$v-$r.json" 2> "$out/bench-$name-$p-$v-$r.err"
        else
          $exe bench --device gpu --json --precision $p --libs $v $args > "$out/bench-$name-$p-$v-$r.json" 2> "$out/bench-$name-$p-$v-$r.err"
        fi
      done
    done
  done
done
python3 - "$out" "$bench_rounds" <<'PY'
import json, statistics, sys, glob
out, rounds = sys.argv[1], int(sys.argv[2])
for name in ("28", "128"):
    for p in ("fp32", "tf32", "bf16"):
        for libs in ("system", "torch", "old"):
            ts, acc, eng = [], None, ""
            for r in range(1, rounds + 1):
                try:
                    j = json.load(open(f"{out}/bench-{name}-{p}-{libs}-{r}.json"))
                    run = j["runs"][0]
                    if run.get("error"):
                        print(name, p, libs, "error:", run["error"][:300]); continue
                    ts.append(run["epoch_seconds"]); acc = run.get("accuracy"); eng = run.get("engine", "")
                except Exception as e:
                    print(name, p, libs, r, "no result:", e, open(f"{out}/bench-{name}-{p}-{libs}-{r}.err").read()[-300:])
            if ts:
                print(f"{name:>4} {p} {libs:<7} epoch {statistics.median(ts):.3f} s ({len(ts)} rounds)  acc {acc}  {eng}")
PY
tar czf "$out/runs.tgz" -C "$out" $(cd "$out" && ls *.json *.err *.txt 2>/dev/null) 2>/dev/null
ls "$out" | wc -l
