// The NVIDIA driver probe's parts (probe/nvidia*.cpp), shared between its files: the kernel
// module and its files (nvidia_kernel_module.cpp), NVML's facts per GPU (nvidia_nvml.cpp), the
// CUDA driver API's (nvidia_cuda.cpp); nvidia.cpp runs them in order, in a child or in process,
// and notes what CUDA_VISIBLE_DEVICES does. Not for use outside probe/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "core/step_log.h"
#include "platform/os.h"
#include "probe/probe.h"

namespace gpuready::nvidia_detail {

using SFact = Fact<std::string>;

// ---- the kernel module (nvidia_kernel_module.cpp)

// The loaded module's version (/proc/driver/nvidia/version; the registry's display driver on Windows).
SFact read_kernel_module_version(const Os& os);
// The module file the running kernel would load, its version and whether it is signed.
void read_kernel_module_files(const Fs& fs, NvidiaDriverFacts& out);
// The user-space library's driver version, from the file the loader mapped
// ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04" behind libnvidia-ml.so.1).
std::optional<std::string> library_file_version(const Fs& fs, const std::optional<std::string>& path);
// The sentence for NVML_ERROR_LIB_RM_VERSION_MISMATCH, naming both versions.
std::string mismatch_message(const SFact& module, const std::optional<std::string>& library_version);

// ---- NVML (nvidia_nvml.cpp)

struct PciLocation {
  bool known = false;
  unsigned domain = 0, bus = 0, device = 0;
};

struct NvmlOutcome {
  bool listed = false;              // NVML answered a device count
  int count = 0;
  std::string why_not;              // why NVML facts are unknown (when !listed)
  std::vector<PciLocation> pci;     // parallel to out.gpus
};

// Loads NVML, lists the GPUs and fills out.driver_version, out.gpus and their facts, each call a step.
NvmlOutcome probe_nvml(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out, StepLog& steps);
// "Hopper" for compute capability 9.0; nullopt when unknown.
std::optional<std::string> architecture_from_cc(int major, int minor);

// ---- the CUDA driver API (nvidia_cuda.cpp)

// cuInit (unless NVML already answered and opts say not to), the device count and per GPU its SMs,
// ordinal and PCI location, matched to NVML's GPUs.
void probe_cuda(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out, const NvmlOutcome& nv, StepLog& steps);

}  // namespace gpuready::nvidia_detail
