#!/usr/bin/env bash
# `gpuready bench --device gpu` against the same CNN in PyTorch eager on the GPU (bench/pytorch_cnn.py),
# alternated in one run on the H200 test machine, for each precision. Carries build/benchgpu: the
# gpuready executable and libgpuready-cuda.so (cuBLAS and cuDNN are the machine's). ROUNDS (default 3)
# rounds; PRECISIONS (default "fp32 tf32 bf16"). Results in $OUT (or /tmp/out): bench-gpu-vs-torch.json
# and a summary on stdout.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
exe=${EXE:-build/benchgpu/gpuready}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
python3 - "$exe" "$out" "${ROUNDS:-3}" "${PRECISIONS:-fp32 tf32 bf16}" <<'PY'
import json, subprocess, sys, statistics
exe, out, rounds, precisions = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print("FAILED:", " ".join(argv), r.stdout[-3000:], r.stderr[-3000:], flush=True)
    return r.stdout
cases = [("60,000 x 28x28x1, batch 128", ["--images", "75000", "--batch", "128", "--epochs", "3"]),
         ("10,000 x 128x128x3, batch 64", ["--images", "12500", "--size", "128x128x3", "--batch", "64", "--epochs", "3"])]
results = []
for r in range(rounds):
    for name, args in cases:
        for p in precisions:
            try:
                g = json.loads(run([exe, "bench", "--device", "gpu", "--json", "--precision", p] + args))
                t = json.loads(run(["python3", "bench/pytorch_cnn.py", "--device", "gpu", "--precision", p] + args))
            except Exception as e:
                print("FAILED:", name, p, e, flush=True)
                continue
            results.append({"case": name, "precision": p, "round": r, "gpuready": g["runs"][0], "torch": t.get("gpu"),
                            "dataset": g["dataset"]})
            gr = g["runs"][0]
            print(name, p, "gpuready", gr["epoch_seconds"], "first", gr["first_epoch_seconds"], "torch",
                  t.get("gpu", {}).get("epoch_seconds"), "acc", gr["accuracy"], gr["error"], flush=True)
            json.dump(results, open(out + "/bench-gpu-vs-torch.json", "w"), indent=1)
for name, _ in cases:
    for p in precisions:
        rs = [x for x in results if x["case"] == name and x["precision"] == p and x["gpuready"]["epoch_seconds"]
              and x["torch"]]
        if not rs:
            continue
        g = statistics.median(x["gpuready"]["epoch_seconds"] for x in rs)
        t = statistics.median(x["torch"]["epoch_seconds"] for x in rs)
        print(f"{name:<32} {p}  gpuready {g:7.3f} s  torch {t:7.3f} s  ratio {g / t:.2f}  ({len(rs)} rounds)")
PY
