#!/usr/bin/env python3
"""PyTorch's copies, timed the way `gpuready verify` times its own, for same-run ratios.

For each copy: 256 MiB (or --mib), `--copies` copies between two CUDA events per sample,
`--samples` samples after two warm-up copies, the median reported in GB/s (1e9 B/s).
d2d counts read + write (2x the bytes), as PyTorch and nvbandwidth report device copies.
Prints one JSON object: {"h2d_pinned": GB/s, "d2h_pinned": ..., "h2d_pageable": ..., "d2h_pageable": ..., "d2d": ...}.
"""
import argparse
import json
import statistics

import torch


def timed(fn, copies, samples):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(copies):
            fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / 1000.0)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--samples", type=int, default=7)
    a = ap.parse_args()
    n = a.mib << 20
    dev = torch.empty(n, dtype=torch.uint8, device="cuda")
    dev2 = torch.empty(n, dtype=torch.uint8, device="cuda")
    pinned = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    pageable = torch.empty(n, dtype=torch.uint8)
    pinned.fill_(7)
    pageable.fill_(7)
    gb = n * a.copies / 1e9
    r = {
        "h2d_pinned": gb / timed(lambda: dev.copy_(pinned, non_blocking=True), a.copies, a.samples),
        "d2h_pinned": gb / timed(lambda: pinned.copy_(dev, non_blocking=True), a.copies, a.samples),
        "h2d_pageable": gb / timed(lambda: dev.copy_(pageable), a.copies, a.samples),
        "d2h_pageable": gb / timed(lambda: pageable.copy_(dev), a.copies, a.samples),
        "d2d": 2 * gb / timed(lambda: dev2.copy_(dev), a.copies, a.samples),
    }
    print(json.dumps(r))


if __name__ == "__main__":
    main()
