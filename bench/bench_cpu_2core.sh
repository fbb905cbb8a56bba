#!/usr/bin/env bash
# `gpuready bench --device cpu` against the same CNN in Debian 12's python3-torch (1.13.1, CPU,
# oneDNN inside) on the development machine's cores, alternated in one run (bench/pytorch_cnn.py in its eager and
# channels_last modes; torch.compile is newer than 1.13; the faster is the reference). Needs
# `apt install python3-torch` and a build in build/default. Prints the medians.
set -uo pipefail
exe=${GPUREADY_EXE:-build/default/src/gpuready}
py=${PYTHON:-/usr/bin/python3}
threads=$(nproc)
"$py" - "$exe" "$py" "$threads" <<'PY'
import json, subprocess, sys, statistics
exe, py, threads = sys.argv[1], sys.argv[2], sys.argv[3]
def run(argv):
    return json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
cases = [("10,000 x 28x28x1, batch 128", ["--images", "12500", "--batch", "128", "--epochs", "2"], 3),
         ("512 x 128x128x3, batch 64", ["--images", "640", "--size", "128x128x3", "--batch", "64", "--epochs", "1"], 1)]
for name, args, rounds in cases:
    g, t = [], {"eager": [], "channels_last": []}
    for _ in range(rounds):
        g.append(run([exe, "bench", "--device", "cpu", "--json", "--threads", threads] + args)["runs"][0]["epoch_seconds"])
        for mode in t:
            t[mode].append(run([py, "bench/pytorch_cnn.py", "--device", "cpu", "--threads", threads, "--mode", mode]
                               + args)["cpu"]["epoch_seconds"])
    gm = statistics.median(g)
    tm = {mode: statistics.median(v) for mode, v in t.items()}
    best = min(tm, key=tm.get)
    print(f"{name:<30} gpuready {gm:7.2f} s  torch eager {tm['eager']:7.2f} s  channels_last {tm['channels_last']:7.2f} s"
          f"  ratio to the best ({best}) {gm / tm[best]:.2f}  (rounds: {rounds}; {g} / {t})", flush=True)
PY
