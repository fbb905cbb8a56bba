#!/usr/bin/env bash
# Issue 21 on the GPU test machine, one device call, with the driver-API module (build/dev, unpacked by
# bench/unpack_carried.sh from build/devx/dev.tar.xz):
#   1. verify's GEMM against torch.matmul, ROUNDS (default 3) alternated rounds: gpuready `verify --json -t gemm.*`
#      (the machine's cuBLAS), bench/gemm_reference.py on torch's usual uniform values and on gpuready's values;
#   2. memory: `bench --device gpu` on 12,500 x 128x128x3 (fp32, bf16; one timed epoch) against
#      bench/pytorch_cnn.py on the same case, peak GPU memory (cuMemGetInfo, both) and peak host memory.
# Prints the tables; every JSON goes to $OUT/gemm_memory.json.
set -uo pipefail
final=${OUT:-/tmp/out}
mkdir -p "$final"
source "$(dirname "${BASH_SOURCE[0]}")/at_built_path.sh"
mkdir -p build/default/src
cp build/dev/gpuready build/dev/libgpuready-cuda.so build/default/src/
python3 - build/default/src/gpuready "$final" "${ROUNDS:-3}" <<'PY'
import json, subprocess, sys, statistics
exe, out, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print("FAILED", " ".join(argv), r.stderr[-800:], flush=True)
    return r.stdout
res = {"gemm": [], "memory": {}}
for i in range(rounds):
    j = json.loads(run([exe, "verify", "--json", "-t", "gemm.fp32", "-t", "gemm.tf32", "-t", "gemm.fp16", "-t", "gemm.bf16"]))
    g = {c["key"][5:]: c["value"] for c in j["checks"]}
    u = json.loads(run(["python3", "bench/gemm_reference.py"]))
    s = json.loads(run(["python3", "bench/gemm_reference.py", "--values", "gpuready"]))
    res["gemm"].append({"gpuready": g, "torch_uniform": u, "torch_same_values": s})
    print("round", i + 1, g, u, s, flush=True)
print(f"{'precision':<10}{'gpuready':>10}{'torch uniform':>15}{'ratio':>7}{'torch same values':>19}{'ratio':>7}   TFLOP/s, medians")
for p in ("fp32", "tf32", "fp16", "bf16"):
    g = statistics.median(r["gpuready"][p] for r in res["gemm"])
    u = statistics.median(r["torch_uniform"][p] for r in res["gemm"])
    s = statistics.median(r["torch_same_values"][p] for r in res["gemm"])
    print(f"{p:<10}{g:10.1f}{u:15.1f}{g / u:7.3f}{s:19.1f}{g / s:7.3f}")
MiB = 1 << 20
case = ["--images", "12500", "--size", "128x128x3", "--batch", "64", "--epochs", "1"]
for p in ("fp32", "bf16"):
    b = json.loads(run([exe, "bench", "--device", "gpu", "--json", "--precision", p] + case))["runs"][0]
    t = json.loads(run(["python3", "bench/pytorch_cnn.py", "--device", "gpu", "--precision", p] + case))["gpu"]
    res["memory"][p] = {"gpuready": {k: b.get(k) for k in ("gpu_peak_bytes", "gpu_context_bytes", "host_peak_bytes", "epoch_seconds", "error")}, "torch": t}
    print(f"memory 128x128x3 {p}: gpuready GPU {b['gpu_peak_bytes'] / MiB:.0f} MiB (context {b['gpu_context_bytes'] / MiB:.0f}), "
          f"host {b['host_peak_bytes'] / MiB:.0f} MiB | torch GPU {t['gpu_peak_bytes'] / MiB:.0f} MiB (context "
          f"{t['gpu_context_bytes'] / MiB:.0f}, reserved {t['max_memory_reserved_bytes'] / MiB:.0f}), host {t['host_peak_bytes'] / MiB:.0f} MiB", flush=True)
json.dump(res, open(out + "/gemm_memory.json", "w"), indent=1)
PY
