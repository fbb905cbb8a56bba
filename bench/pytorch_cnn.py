#!/usr/bin/env python3
"""The walkthrough's CNN in PyTorch eager, timed as `gpuready bench` times its engines, for same-run ratios.

Model (as gpuready's, src/train/reference.h): Conv2d(C, 32, 3) + ReLU, MaxPool2d(2), Conv2d(32, 64, 3) + ReLU,
MaxPool2d(2), Flatten, Linear(flat, 128) + ReLU, Linear(128, classes); cross-entropy; Adam(lr 1e-3, eps 1e-7 as
Keras). Data: --images random float32 images of --size HxWxC in [0, 1) with random labels (the time of an epoch
does not depend on what the pixels show), 80% trained on as gpuready's default split does, shuffled each epoch,
batches of --batch with the last partial batch kept. GPU: the data resident on the GPU. An epoch is timed from its
first batch to the last update (torch.cuda.synchronize at both ends); one first epoch, then --epochs timed ones, the
median reported. CPU: torch.set_num_threads(--threads, default every core).
--mode: eager (default); channels_last (the model and each batch in NHWC, oneDNN's preferred layout on the CPU);
compile (torch.compile of the model, default mode: Inductor's generated C++/Triton code; its compile time falls in
the first epoch); compile-max (mode="max-autotune"). A mode that fails reports {"error": ...} for that device.
--precision (GPU, as gpuready's): fp32 = no TF32 anywhere (torch.backends.cudnn.allow_tf32 = False and
torch.backends.cuda.matmul.allow_tf32 = False); tf32 = both allowed; bf16 = autocast to bfloat16 (fp32 weights);
torch = PyTorch's own default (TF32 for convolutions, not for matrix products).
GPU memory, measured as gpuready's GPU engine measures it (the whole GPU's total - free, cuMemGetInfo through
torch.cuda.mem_get_info): gpu_context_bytes once CUDA is initialised, gpu_peak_bytes the most after each epoch;
max_memory_reserved_bytes is PyTorch's caching allocator's own peak. host_peak_bytes: the process's peak resident set.
Prints one JSON object: {"cpu": {"epoch_seconds", "first_epoch_seconds", "images_per_second"}, "gpu": {...}}.
"""
import argparse
import json
import os
import resource
import statistics
import time

import torch
import torch.nn as nn


def model(c, h, w, classes):
    h2, w2 = ((h - 2) // 2 - 2) // 2, ((w - 2) // 2 - 2) // 2
    return nn.Sequential(nn.Conv2d(c, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * h2 * w2, 128), nn.ReLU(),
                         nn.Linear(128, classes))


def gpu_used():
    free, total = torch.cuda.mem_get_info()
    return total - free


def run(device, a, c, h, w):
    context = None
    if device == "cuda":
        torch.cuda.init()
        torch.empty(1, device=device)  # the context exists from here
        context = gpu_used()
    peak = 0
    torch.manual_seed(a.seed)
    n = int(a.images * 0.8)
    x = torch.rand(n, c, h, w, device=device)
    y = torch.randint(0, a.classes, (n,), device=device)
    net = model(c, h, w, a.classes).to(device)
    last = a.mode == "channels_last"
    if last:
        net = net.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)
    fwd = net
    if a.mode == "compile":
        fwd = torch.compile(net)
    elif a.mode == "compile-max":
        fwd = torch.compile(net, mode="max-autotune")
    loss_fn = nn.CrossEntropyLoss()
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    amp = device == "cuda" and a.precision == "bf16"
    if device == "cuda" and a.precision != "torch":
        torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    times = []
    for _ in range(1 + a.epochs):
        sync()
        t0 = time.perf_counter()
        order = torch.randperm(n, device=device)
        for i in range(0, n, a.batch):
            idx = order[i:i + a.batch]
            opt.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=amp):
                xb = x[idx].contiguous(memory_format=torch.channels_last) if last else x[idx]
                loss = loss_fn(fwd(xb), y[idx])
            loss.backward()
            opt.step()
        sync()
        times.append(time.perf_counter() - t0)
        if device == "cuda":
            peak = max(peak, gpu_used())
    med = statistics.median(times[1:]) if len(times) > 1 else times[0]
    out = {"epoch_seconds": med, "first_epoch_seconds": times[0], "images_per_second": n / med,
           "host_peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    if device == "cuda":
        out.update({"gpu_context_bytes": context, "gpu_peak_bytes": peak,
                    "max_memory_reserved_bytes": torch.cuda.max_memory_reserved()})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", choices=["cpu", "gpu", "all"], default="all")
    ap.add_argument("--images", type=int, default=4000)
    ap.add_argument("--size", default="28x28x1")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--precision", choices=["fp32", "tf32", "bf16", "torch"], default="fp32")
    ap.add_argument("--mode", choices=["eager", "channels_last", "compile", "compile-max"], default="eager")
    a = ap.parse_args()
    h, w, c = (int(v) for v in a.size.lower().split("x"))
    torch.set_num_threads(a.threads)
    out = {}
    def attempt(device):
        try:
            return run(device, a, c, h, w)
        except Exception as e:  # a mode this PyTorch cannot run here (no compiler for Inductor, ...)
            return {"error": f"{type(e).__name__}: {e}"[:2000]}
    if a.device in ("cpu", "all"):
        out["cpu"] = attempt("cpu")
    if a.device in ("gpu", "all") and torch.cuda.is_available():
        out["gpu"] = attempt("cuda")
    out["mode"] = a.mode
    print(json.dumps(out))


if __name__ == "__main__":
    main()
