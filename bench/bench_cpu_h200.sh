#!/usr/bin/env bash
# `gpuready bench --device cpu` against the same CNN in PyTorch eager on the CPU (bench/pytorch_cnn.py),
# alternated in one run on the H200 test machine (16 cores). Carries build/benchcpu: the gpuready
# executable, libgpuready-cpu.so and the oneDNN / OpenCL / libgomp libraries it needs (the machine
# has none of them). Results in $OUT (or /tmp/out).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/benchcpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
exe=build/benchcpu/gpuready
nproc > "$out/cpu.txt"; lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200 >> "$out/cpu.txt"
python3 - "$exe" "$out" <<'PY'
import json, subprocess, sys, statistics
exe, out = sys.argv[1], sys.argv[2]
def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAILED:", argv, r.stdout[-2000:], r.stderr[-2000:])
    return r.stdout
cases = [("60,000 x 28x28x1, batch 128", ["--images", "75000", "--batch", "128", "--epochs", "2"], 2),
         ("10,000 x 128x128x3, batch 64", ["--images", "12500", "--size", "128x128x3", "--batch", "64", "--epochs", "1"], 1)]
results = []
for name, args, rounds in cases:
    for r in range(rounds):
        g = json.loads(run([exe, "bench", "--device", "cpu", "--json"] + args))
        t = json.loads(run(["python3", "bench/pytorch_cnn.py", "--device", "cpu"] + args))
        results.append({"case": name, "round": r, "gpuready": g["runs"][0], "torch": t["cpu"], "dataset": g["dataset"]})
        print(name, "gpuready", g["runs"][0]["epoch_seconds"], "torch", t["cpu"]["epoch_seconds"],
              "acc", g["runs"][0]["accuracy"], g["runs"][0]["engine"], flush=True)
json.dump(results, open(out + "/bench-cpu-vs-torch.json", "w"), indent=1)
for name, _, _ in cases:
    rs = [x for x in results if x["case"] == name]
    g = statistics.median(x["gpuready"]["epoch_seconds"] for x in rs)
    t = statistics.median(x["torch"]["epoch_seconds"] for x in rs)
    print(f"{name:<32} gpuready {g:7.2f} s  torch {t:7.2f} s  ratio {g / t:.2f}")
PY
