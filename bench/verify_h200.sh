#!/usr/bin/env bash
# One device call on the H200 test machine for `gpuready verify`: the GPU tests (ctest label gpu,
# and the CUDA module's loader test), the verify runs (full, JSON, --quick timed, the planted
# corruption that every kind of check must catch), and the same-run references, alternated 3
# times: NVIDIA's nvbandwidth for pinned host<->device copies (bench/build_nvbandwidth.sh builds
# the binary carried in build/nvbandwidth), PyTorch for device copies (bench/copy_reference.py) and
# for matrix products (bench/gemm_reference.py, on uniform values and on gpuready's own values).
# Results in $OUT (or /tmp/out). Expects the Release build carried in build/device
# (see bench/device_h200.sh).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
exe=build/device/src/gpuready
out=${OUT:-/tmp/out}
mkdir -p "$out"
ctest --test-dir build/device -L gpu -V 2>&1 | grep -E "RUN|OK|FAILED|SKIPPED|Passed|Failed|Expected|Which is|Value of|gemm|cudnn|memory" > "$out/ctest-gpu.log"
build/device/gpu/gpu_loader_test >> "$out/ctest-gpu.log" 2>&1
ctest --test-dir build/device -R "Verify|JudgeGpu|GemmReference|ConvReference" 2>&1 | tail -4 >> "$out/ctest-gpu.log"
{ $exe verify; echo "exit $?"; } > "$out/verify.txt" 2>&1
{ $exe verify --json; echo "exit $?"; } > "$out/verify.json" 2>&1
{ time $exe verify --quick; echo "exit $?"; } > "$out/verify-quick.txt" 2>&1
{ $exe verify -t copy.h2d_pinned --quick; echo "exit $?"; } > "$out/verify-one.txt" 2>&1
{ $exe verify --quick --plant-corruption -t copy.d2h_pinned -t gemm.fp16 -t cudnn.conv_fwd -t memory.pattern; echo "exit $?"; } > "$out/verify-corrupt.txt" 2>&1
python3 - "$exe" "$out" <<'PY'
import json, subprocess, sys, statistics
exe, out = sys.argv[1], sys.argv[2]
def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.stdout
def gpuready(tests, extra=()):
    argv = [exe, "verify", "--json", *extra]
    for t in tests: argv += ["-t", t]
    j = json.loads(run(argv))
    return {c["key"]: c["value"] for c in j["checks"] if c["value"] is not None}
runs = []
for i in range(3):
    r = {}
    r["gpuready_copy"] = gpuready(["copy.h2d_pinned", "copy.d2h_pinned"], ["--size", "512"])
    nvb = json.loads(run(["build/nvbandwidth/nvbandwidth", "-t", "host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "-b", "512", "-i", "5", "-j"]))
    r["nvbandwidth"] = {c["name"]: float(c["bandwidth_matrix"][0][0]) for c in nvb["nvbandwidth"]["testcases"]}
    r["gpuready_d2d"] = gpuready(["copy.d2d"])
    r["torch_copy"] = json.loads(run(["python3", "bench/copy_reference.py"]))
    r["gpuready_gemm"] = gpuready(["gemm.fp32", "gemm.tf32", "gemm.fp16", "gemm.bf16"])
    r["torch_gemm_uniform"] = json.loads(run(["python3", "bench/gemm_reference.py"]))
    r["torch_gemm_same_values"] = json.loads(run(["python3", "bench/gemm_reference.py", "--values", "gpuready"]))
    runs.append(r)
json.dump(runs, open(out + "/verify-vs-references.json", "w"), indent=1)
med = lambda f: statistics.median(f(r) for r in runs)
rows = [("copy.h2d_pinned (512 MiB)", lambda r: r["gpuready_copy"]["copy.h2d_pinned"], lambda r: r["nvbandwidth"]["host_to_device_memcpy_ce"], "nvbandwidth"),
        ("copy.d2h_pinned (512 MiB)", lambda r: r["gpuready_copy"]["copy.d2h_pinned"], lambda r: r["nvbandwidth"]["device_to_host_memcpy_ce"], "nvbandwidth"),
        ("copy.d2d", lambda r: r["gpuready_d2d"]["copy.d2d"], lambda r: r["torch_copy"]["d2d"], "torch copy_")]
for p in ["fp32", "tf32", "fp16", "bf16"]:
    rows.append((f"gemm.{p}", lambda r, p=p: r["gpuready_gemm"]["gemm." + p], lambda r, p=p: r["torch_gemm_same_values"][p], "torch.matmul, same values"))
    rows.append((f"gemm.{p}", lambda r, p=p: r["gpuready_gemm"]["gemm." + p], lambda r, p=p: r["torch_gemm_uniform"][p], "torch.matmul, uniform values"))
print(f"{'check':<28}{'gpuready':>10}{'reference':>11}{'ratio':>8}  reference (median of 3 alternated runs)")
for name, g, t, ref in rows:
    gv, tv = med(g), med(t)
    print(f"{name:<28}{gv:10.1f}{tv:11.1f}{gv / tv:8.3f}  {ref}")
PY
