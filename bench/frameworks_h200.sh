#!/usr/bin/env bash
# `gpuready doctor --deep` against importing the frameworks it checks, alternated in one run on the
# H200 test machine (PyTorch and JAX in the image's python3, /opt/torch/.venv). Each round times, in
# a fresh process each: `python3 -c "import torch"`, `python3 -c "import jax"`, `python3 -c "import
# torch, jax"` (what a user's script pays before its first line), and `gpuready doctor --deep --json`
# (the whole doctor: the probe, both checks in parallel, the rules). One import of each first, so the
# file cache is warm for everyone. ROUNDS (default 5). Results in $OUT (or /tmp/out):
# frameworks-timing.json and a summary on stdout.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
exe=${EXE:-build/benchgpu/gpuready}
py=${PYTHON:-python3}
python3 - "$exe" "$py" "$out" "${ROUNDS:-5}" <<'PY'
import json, statistics, subprocess, sys, time
exe, py, out, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cases = {
    "import torch": [py, "-c", "import torch"],
    "import jax": [py, "-c", "import jax"],
    "import torch, jax": [py, "-c", "import torch, jax"],
    "gpuready doctor --deep": [exe, "doctor", "--deep", "--json"],
}
def timed(argv):
    t = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):
        print("FAILED:", " ".join(argv), r.returncode, r.stdout[-2000:], r.stderr[-2000:], flush=True)
    return dt, r.stdout
for argv in cases.values():  # warm the file cache
    timed(argv)
times = {k: [] for k in cases}
checks = []
for i in range(rounds):
    for name, argv in cases.items():
        dt, stdout = timed(argv)
        times[name].append(dt)
        if name.startswith("gpuready"):
            try:
                d = json.loads(stdout)
                checks.append([(f["name"], f["python"], f["check"]) for f in d["frameworks"]])
            except Exception as e:
                print("no JSON from the doctor:", e, stdout[-500:], flush=True)
summary = {k: {"median_s": statistics.median(v), "runs_s": v} for k, v in times.items()}
json.dump({"rounds": rounds, "times": summary, "doctor_checks": checks}, open(out + "/frameworks-timing.json", "w"),
          indent=1)
for k, v in summary.items():
    print("%-26s median %.2f s  (%s)" % (k, v["median_s"], ", ".join("%.2f" % x for x in v["runs_s"])))
ref = summary["import torch, jax"]["median_s"]
print("doctor --deep / import torch, jax: %.2f" % (summary["gpuready doctor --deep"]["median_s"] / ref))
PY
