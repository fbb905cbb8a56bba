// The in-process NVIDIA driver probe behind collect_nvidia, exposed for `gpuready __probe-driver`:
// it reports each step before taking it, so a parent whose child hangs or crashes in the
// driver can say in which call (the child writes these to stderr).
#pragma once

#include <functional>
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

// The line prefix `__probe-driver` writes to stderr before each step.
inline constexpr const char* kDriverStepPrefix = "gpuready-driver-step: ";

}  // namespace gpuready
