// Loading NVML at run time: the candidate library names per OS, the typed symbol table
// (every entry of GPUREADY_NVML_SYMBOLS, nullptr when the loaded library lacks it) and the
// names of NVML's return codes. Never linked: a machine without a driver still runs gpuready.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"
#include "vendors/nvml/nvml_api.h"

namespace gpuready::nvml {

// Typed function pointers, decltype'd from nvml_api.h so a signature cannot drift.
struct Api {
#define GPUREADY_NVML_MEMBER(name) decltype(&::name) name = nullptr;
  GPUREADY_NVML_SYMBOLS(GPUREADY_NVML_MEMBER)
#undef GPUREADY_NVML_MEMBER
};

struct Library {
  DynLib::Handle handle;
  std::string candidate;             // the name or path that loaded
  std::optional<std::string> path;   // the file the loader mapped
  Api api;
};

// The OS's standard places to look, in order (see the table in nvml_loader.cpp).
std::vector<std::string> default_candidates(const Env& env);

// Tries each candidate in turn. On failure returns nullopt and sets *error to each
// candidate's loader message ("libnvidia-ml.so.1: cannot open shared object file: ...").
// Each candidate is resolved to an absolute file first (vendors::resolve_library), never handed
// to the loader as a bare name.
std::optional<Library> load(const Os& os, const std::vector<std::string>& candidates, std::string* error);
void unload(const DynLib& dl, Library& lib);

// "NVML_ERROR_LIB_RM_VERSION_MISMATCH" for 18; "NVML_ERROR_<n>" for codes this build does not know.
std::string return_name(int code);

// The device NVML lists at a PCI bus id ("0000:01:00.0" or NVML's "00000000:01:00.0"), after
// nvmlInit_v2; nullptr with *why when the id does not parse or no GPU sits there.
nvmlDevice_t device_at_bus_id(const Api& n, const std::string& bus_id, std::string* why);

// Clocks-event (formerly "throttle") reason bits as names: "gpu_idle", "sw_power_cap",
// "hw_thermal_slowdown", ...; bits newer than this build as "unknown_0x...".
std::vector<std::string> clock_reason_names(unsigned long long mask);

}  // namespace gpuready::nvml
