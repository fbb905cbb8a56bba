// The in-process NVIDIA driver probe behind collect_nvidia, exposed for `gpuready __probe-driver`:
// it reports each step before taking it, so a parent whose child hangs or crashes in the
// driver can say in which call (the child writes these to stderr).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/snapshot.h"
#include "platform/os.h"
#include "probe/probe.h"

namespace gpuready {

// Called with a step's name ("nvmlInit_v2", "cuInit") just before the step runs.
using DriverStepHook = std::function<void(const std::string& step)>;

// Talks to NVML and the CUDA driver inside this process (ignores opts.driver_probe_argv).
void collect_nvidia_in_process(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out,
                               const DriverStepHook& before_step = nullptr);

// The last max_bytes of a file (a kernel module's signature trailer) without reading the rest (an
// nvidia.ko is 50-100 MB): Fs::read_file_at, after finding the file's end with one-byte reads.
// The whole file when it is shorter; nullopt with *error when unreadable.
std::optional<std::string> read_file_tail(const Fs& fs, const std::string& path, size_t max_bytes, std::string* error);

// The line prefix `__probe-driver` writes to stderr before each step.
inline constexpr const char* kDriverStepPrefix = "gpuready-driver-step: ";

}  // namespace gpuready
