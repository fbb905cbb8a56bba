#!/usr/bin/env bash
# `gpuready bench --device cpu` against the same CNN in PyTorch on the CPU (bench/pytorch_cnn.py) in each of its modes
# (eager, channels_last, torch.compile; the fastest per case is the reference), alternated in one run on the H200 test
# machine (16 cores). Carries build/benchcpu: the gpuready executable, libgpuready-cpu.so and the oneDNN / OpenCL /
# libgomp libraries it needs (the machine has none of them; bench/pack_device.sh makes it). Results in $OUT (or
# /tmp/out). CASES=28,128 (default both), ROUNDS28 (default 2), MODES (default "eager channels_last compile").
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/benchcpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
exe=build/benchcpu/gpuready
nproc > "$out/cpu.txt"; lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200 >> "$out/cpu.txt"
python3 - "$exe" "$out" "${CASES:-28,128}" "${ROUNDS28:-2}" "${MODES:-eager channels_last compile}" <<'PY'
import json, subprocess, sys, statistics
exe, out, which, rounds28, modes = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]), sys.argv[5].split()
def run(argv, limit):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        print("TIMED OUT:", argv, flush=True)
        return None
    if r.returncode != 0:
        print("FAILED:", argv, r.stdout[-2000:], r.stderr[-2000:], flush=True)
    try:
        return json.loads(r.stdout)  # gpuready --json: one pretty-printed object
    except ValueError:  # pytorch_cnn.py: its one JSON line, after whatever PyTorch printed
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        return json.loads(lines[-1]) if lines else None
cases = [("28", "60,000 x 28x28x1, batch 128", ["--images", "75000", "--batch", "128", "--epochs", "2"], rounds28),
         ("128", "10,000 x 128x128x3, batch 64", ["--images", "12500", "--size", "128x128x3", "--batch", "64",
                                                  "--epochs", "1"], 1)]
results = []
for key, name, args, rounds in cases:
    if key not in which: continue
    for r in range(rounds):
        g = run([exe, "bench", "--device", "cpu", "--json"] + args, 300)
        row = {"case": name, "round": r, "gpuready": g["runs"][0] if g else None, "dataset": g and g["dataset"], "torch": {}}
        if g: print(name, "gpuready", round(g["runs"][0]["epoch_seconds"], 3), "first",
                    round(g["runs"][0]["first_epoch_seconds"], 3), g["runs"][0]["engine"], g["runs"][0].get("details"),
                    flush=True)
        for mode in modes:
            t = run(["python3", "bench/pytorch_cnn.py", "--device", "cpu", "--mode", mode] + args, 400)
            row["torch"][mode] = t["cpu"] if t else {"error": "no answer"}
            print(name, "torch", mode, {k: v for k, v in row["torch"][mode].items() if k != "host_peak_bytes"}, flush=True)
        results.append(row)
        json.dump(results, open(out + "/bench-cpu-vs-torch.json", "w"), indent=1)
for _, name, _, _ in cases:
    rs = [x for x in results if x["case"] == name and x["gpuready"]]
    if not rs: continue
    g = statistics.median(x["gpuready"]["epoch_seconds"] for x in rs)
    per_mode = {}
    for m in modes:
        ts = [x["torch"][m]["epoch_seconds"] for x in rs if "epoch_seconds" in x["torch"].get(m, {})]
        if ts: per_mode[m] = statistics.median(ts)
    line = f"{name:<32} gpuready {g:7.2f} s"
    for m, t in per_mode.items(): line += f"  torch {m} {t:7.2f} s"
    if per_mode:
        best = min(per_mode, key=per_mode.get)
        line += f"  ratio to the best ({best}) {g / per_mode[best]:.2f}"
    print(line)
PY
