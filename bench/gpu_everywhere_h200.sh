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
#   3. `gpuready bench --device gpu` on the two cases of docs/benchmarks.md, fp32/tf32/bf16, the same
#      variants, BENCH_ROUNDS (default ROUNDS) rounds, alternated (PRECISIONS: default "fp32 tf32 bf16").
# A fourth variant, cuda11, runs verify and bench on CUDA 11 cuBLAS (Debian 12's libcublas11 11.11.3.6, from
# CUDA 11.8), `--libs $C11,system`: cuBLAS from that folder, cuDNN the machine's (no cuDNN for CUDA 11 is
# reachable here). The 670 MB of libraries travel in three earlier calls (bench/carry_cublas11.sh): they
# must be in $C11 (default /tmp/c11) when this runs, else the variant is left out and says so.
# STOP_AFTER (seconds, default 540) ends the loops early so that the summary is still written.
# Results: $OUT/runs.tgz (the JSON and messages of every run) and a summary on stdout.
set -uo pipefail
final=${OUT:-/tmp/out}  # what comes back: runs.tgz (every run's JSON and messages); the summary is stdout
mkdir -p "$final"
out=$(mktemp -d)
D=$(pwd -P)/build/dev
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
mkdir -p build/default/src build/default/tests build/default/gpu
cp "$D/gpuready" "$D/libgpuready-cuda.so" build/default/src/
cp "$D/gpu_module_test" build/default/tests/
[[ -f $D/gpu_bench_test ]] && cp "$D/gpu_bench_test" build/default/tests/
cp "$D/gpu_train_engine_test" build/default/gpu/
exe=build/default/src/gpuready
rounds=${ROUNDS:-3}
stop_after=${STOP_AFTER:-540}
C11=${C11:-/tmp/c11}
variants=(system torch old)
if [[ -f $C11/libcublas.so.11 && -f $C11/libcublasLt.so.11 ]]; then
  variants+=(cuda11)
  sha256sum "$C11"/libcublas*.so.11 > "$out/cuda11-libraries.txt"
else
  echo "cuda11: left out, no CUDA 11 cuBLAS in $C11" | tee "$out/cuda11-libraries.txt"
fi
# run_variant V ARGS...: gpuready with the variant's libraries.
run_variant() {
  local v=$1; shift
  local cmd=$1; shift
  case $v in
    old) GPUREADY_CUDA_MODULE=$old $exe "$cmd" "$@" ;;
    cuda11) $exe "$cmd" --libs "$C11,system" "$@" ;;
    *) $exe "$cmd" --libs "$v" "$@" ;;
  esac
}
bench_rounds=${BENCH_ROUNDS:-$rounds}
# PARTS: which parts run (default all: tests verify memory bench); ROUND_FROM numbers the bench rounds of a
# second call so that its files add to the first's.
parts=" ${PARTS:-tests verify memory bench} "
part() { [[ $parts == *" $1 "* ]]; }
round_from=${ROUND_FROM:-1}
old=$D/old/libgpuready-cuda.so
{ nvidia-smi; $exe probe; } > "$out/probe.txt" 2>&1
if part tests; then
echo "== gpu_train_engine_test"
build/default/gpu/gpu_train_engine_test > "$out/train_engine_test.txt" 2>&1
grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |Failure|normalised" "$out/train_engine_test.txt" | tail -12
echo "== gpu_module_test"
build/default/tests/gpu_module_test > "$out/module_test.txt" 2>&1
grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |Failure" "$out/module_test.txt" | tail -6
if [[ -x build/default/tests/gpu_bench_test ]]; then
  echo "== gpu_bench_test"
  build/default/tests/gpu_bench_test > "$out/bench_test.txt" 2>&1
  grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |Failure|peak GPU" "$out/bench_test.txt" | tail -8
fi
fi
if part verify; then
checks=(-t gemm.fp32 -t gemm.tf32 -t gemm.fp16 -t gemm.bf16 -t cudnn.conv_fwd -t cudnn.conv_bwd_data -t cudnn.conv_bwd_filter -t memory.pattern)
for r in $(seq 1 "$rounds"); do
  for v in "${variants[@]}"; do
    run_variant "$v" verify --json "${checks[@]}" > "$out/verify-$v-$r.json" 2> "$out/verify-$v-$r.err"
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for libs in ("system", "torch", "old", "cuda11"):
    for r in range(1, rounds + 1):
        try:
            j = json.load(open(f"{out}/verify-{libs}-{r}.json"))
        except Exception as e:
            print("verify", libs, r, "no JSON:", e); continue
        for c in j.get("checks", []):
            rows.setdefault((c["key"], libs), []).append(c)
print("== verify (median of rounds)")
for (key, libs), cs in sorted(rows.items()):
    vals = [c.get("value") for c in cs if isinstance(c.get("value"), (int, float))]
    st = ",".join(sorted(set(c["status"] for c in cs)))
    med = statistics.median(vals) if vals else None
    print(f"{key:<24} {libs:<7} {st:<5} {med if med is None else round(med, 1)} {cs[-1].get('unit', '')}  {cs[-1]['detail'][:150]}")
PY
fi
part memory && echo "== memory: PyTorch eager's, measured as gpuready measures its own (bench/pytorch_cnn.py)"
cases=("28|--images 75000 --batch 128 --epochs 3" "128|--images 12500 --size 128x128x3 --batch 64 --epochs 3")
part memory && for c in "${cases[@]}"; do
  for p in fp32 bf16; do
    name=${c%%|*}; args=${c#*|}
    # shellcheck disable=SC2086 # args are several words
    python3 bench/pytorch_cnn.py --device gpu --precision "$p" ${args/--epochs 3/--epochs 1} > "$out/torch-mem-$name-$p.json" 2> "$out/torch-mem-$name-$p.err"
  done
done
echo "== bench"
bench_done=$((round_from - 1))
part bench && for r in $(seq "$round_from" $((round_from + bench_rounds - 1))); do
  if (( SECONDS > stop_after )); then echo "bench: stopped before round $r (STOP_AFTER=$stop_after s)"; break; fi
  for c in "${cases[@]}"; do
    for p in ${PRECISIONS:-fp32 tf32 bf16}; do
      for v in "${variants[@]}"; do
        name=${c%%|*}; args=${c#*|}
        # shellcheck disable=SC2086 # args are several words
        run_variant "$v" bench --device gpu --json --precision "$p" $args > "$out/bench-$name-$p-$v-$r.json" 2> "$out/bench-$name-$p-$v-$r.err"
      done
    done
  done
  bench_done=$r
done
python3 - "$out" "$bench_done" <<'PY'
import json, statistics, sys, glob
out, rounds = sys.argv[1], int(sys.argv[2])
for name in ("28", "128"):
    for p in ("fp32", "tf32", "bf16"):
        for libs in ("system", "torch", "old", "cuda11"):
            ts, acc, eng = [], None, ""
            for r in range(1, rounds + 1):
                try:
                    j = json.load(open(f"{out}/bench-{name}-{p}-{libs}-{r}.json"))
                    run = j["runs"][0]
                    if run.get("error"):
                        print(name, p, libs, "error:", run["error"][:300]); continue
                    ts.append(run["epoch_seconds"]); acc = run.get("accuracy"); eng = run.get("engine", "")
                except FileNotFoundError:
                    pass
                except Exception as e:
                    print(name, p, libs, r, "no result:", e, open(f"{out}/bench-{name}-{p}-{libs}-{r}.err").read()[-300:])
            if ts:
                print(f"{name:>4} {p} {libs:<7} epoch {statistics.median(ts):.3f} s ({len(ts)} rounds)  acc {acc}  {eng}")
MiB = 1 << 20
print("== memory (MiB): gpuready system (peak GPU, context, peak host) against PyTorch eager (peak GPU, context, reserved, host)")
for name in ("28", "128"):
    for p in ("fp32", "bf16"):
        g = []
        for r in range(1, rounds + 1):
            try:
                run = json.load(open(f"{out}/bench-{name}-{p}-system-{r}.json"))["runs"][0]
                g.append((run.get("gpu_peak_bytes") or 0, run.get("gpu_context_bytes") or 0, run.get("host_peak_bytes") or 0))
            except Exception:
                pass
        try:
            t = json.load(open(f"{out}/torch-mem-{name}-{p}.json"))["gpu"]
        except Exception as e:
            t = None
        gs = f"{g[0][0]/MiB:.0f} {g[0][1]/MiB:.0f} {g[0][2]/MiB:.0f}" if g else "-"
        ts_ = (f"{t['gpu_peak_bytes']/MiB:.0f} {t['gpu_context_bytes']/MiB:.0f} {t['max_memory_reserved_bytes']/MiB:.0f} "
               f"{t['host_peak_bytes']/MiB:.0f}") if t else "-"
        print(f"{name:>4} {p}  gpuready {gs}  |  torch {ts_}")
PY
tar czf "$final/runs.tgz" -C "$out" .
echo "$(find "$out" -type f | wc -l) files in $final/runs.tgz"
