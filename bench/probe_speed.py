#!/usr/bin/env python3
"""Whole-process wall time of `gpuready probe` against the tools people use to answer
"is my GPU visible?", measured in one run on one machine (docs/benchmarks.md).

Each command runs once to warm the page cache, then REPEATS times; the median is reported.
Usage: bench/probe_speed.py GPUREADY [--repeats N] [--json OUT] [--slow-repeats N]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def time_command(argv, repeats):
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    samples = []
    rc = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        samples.append(time.perf_counter() - t0)
        rc = p.returncode
    return {"command": " ".join(argv), "median_s": statistics.median(samples), "min_s": min(samples),
            "max_s": max(samples), "runs": repeats, "exit_code": rc}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpuready")
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--slow-repeats", type=int, default=5, help="runs of the Python-based commands")
    ap.add_argument("--json")
    a = ap.parse_args()

    rows = [time_command([a.gpuready, "probe"], a.repeats),
            time_command([a.gpuready, "probe", "--json"], a.repeats),
            time_command([a.gpuready, "probe", "--cuda"], a.repeats)]
    if shutil.which("nvidia-smi"):
        rows.append(time_command(["nvidia-smi"], a.repeats))
        rows.append(time_command(["nvidia-smi", "-q"], a.repeats))
    py = sys.executable
    probe_torch = subprocess.run([py, "-c", "import torch"], capture_output=True)
    if probe_torch.returncode == 0:
        rows.append(time_command([py, "-m", "torch.utils.collect_env"], a.slow_repeats))
        rows.append(time_command([py, "-c", "import torch; print(torch.cuda.is_available())"], a.slow_repeats))

    base = rows[0]["median_s"]
    width = max(len(r["command"]) for r in rows)
    print(f"{'command':<{width}}  median ms   min ms   max ms  runs  vs gpuready probe")
    for r in rows:
        print(f"{r['command']:<{width}}  {r['median_s']*1e3:9.1f} {r['min_s']*1e3:8.1f} {r['max_s']*1e3:8.1f}"
              f"  {r['runs']:4d}  {r['median_s']/base:6.2f}x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"host": os.uname().nodename, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
