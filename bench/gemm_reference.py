#!/usr/bin/env python3
"""torch.matmul, timed the way `gpuready verify` times cuBLAS, for same-run ratios.

For each precision: square n x n matrices (default 8192) of random values on the GPU, 3 warm-up
products, one product to size the samples, then 10 samples of as many back-to-back products as
fill ~20 ms, each between two CUDA events; the median per product reported in TFLOP/s
(2 n^3 / s / 1e12). fp32 runs with TF32 off (torch.backends.cuda.matmul.allow_tf32 = False),
tf32 with it on; fp16 and bf16 are torch.matmul on half / bfloat16 tensors.
--values gpuready draws the inputs as gpuready does: multiples of 1/128 in [-1, 1) (8 significant
bits); --values uniform (the default) draws full-precision uniform values in [-1, 1). A GEMM's
power draw, and so its clock under the power cap, depends on how many bits toggle, so the two
compare like with like only on the same kind of values.
Prints one JSON object: {"fp32": TFLOP/s, "tf32": ..., "fp16": ..., "bf16": ...}.
"""
import argparse
import json
import statistics

import torch


def timed(fn, warmup=3, samples=10, target_ms=20.0):
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    calls = max(1, min(1000, int(target_ms / max(start.elapsed_time(end), 1e-6))))
    out = []
    for _ in range(samples):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / 1000.0 / calls)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--values", choices=["uniform", "gpuready"], default="uniform")
    a = ap.parse_args()
    n = a.n
    res = {}
    for name, dtype, tf32 in [("fp32", torch.float32, False), ("tf32", torch.float32, True),
                              ("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        if a.values == "gpuready":
            x = ((torch.randint(0, 256, (n, n), device="cuda") - 128) / 128).to(dtype)
            y = ((torch.randint(0, 256, (n, n), device="cuda") - 128) / 128).to(dtype)
        else:
            x = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
            y = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
        out = torch.empty(n, n, device="cuda", dtype=dtype)
        sec = timed(lambda: torch.matmul(x, y, out=out), samples=a.samples)
        res[name] = 2.0 * n ** 3 / sec / 1e12
        del x, y, out
        torch.cuda.empty_cache()
    print(json.dumps(res))


if __name__ == "__main__":
    main()
