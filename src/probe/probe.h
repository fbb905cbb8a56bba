// The probe: runs every collector and assembles one Snapshot. Collectors gather facts
// and never judge; each one is a plain function of the OS seams (so tests hand them
// fixture trees and fake libraries) and fills its own part of the Snapshot.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "platform/os.h"

namespace gpuready {

enum class CudaInitPolicy {
  automatic,  // cuInit (~0.2 s) only when NVML could not list GPUs: then its answer is the diagnosis
  always,     // --cuda: always initialise the driver for device count, SMs, bus width
  never,
};

struct ProbeOptions {
  std::vector<std::string> python_paths;            // --python (repeatable)
  CudaInitPolicy cuda_init = CudaInitPolicy::automatic;
  std::chrono::milliseconds child_timeout{10000};   // any child process (driver probe, interpreters)
  // Library names/paths for NVML and libcuda; empty = the OS's standard candidates
  // (vendors/*/ loaders own those lists). Tests point these at the fake libraries.
  std::vector<std::string> nvml_candidates;
  std::vector<std::string> cuda_candidates;
  // How to run the isolated driver probe: argv prefix of a process that prints the
  // NvidiaDriverFacts JSON (normally {self, "__probe-driver"}). Empty = in-process.
  std::vector<std::string> driver_probe_argv;
  // --deep: import every framework found, each in its own child (collect_frameworks).
  bool deep = false;
  std::chrono::milliseconds framework_timeout{60000};
  std::vector<std::string> deep_frameworks;  // only these ("pytorch"); empty = every framework found
  // Absolute folders the user named (verify/bench --libs FOLDER): listed too, origin "--libs".
  std::vector<std::string> library_dirs;
};

// --- collectors (one file each under src/probe) ---
void collect_os(const Os& os, OsFacts& out);                                  // os.cpp
void collect_cpu(const Os& os, CpuFacts& out);                                // cpu.cpp
// notes (optional) receives why the bus could not be listed, so an empty list is never mute.
void collect_pci(const Os& os, std::vector<PciGpu>& out, std::vector<std::string>* notes = nullptr);  // pci.cpp
std::string pci_vendor_name(std::uint32_t vendor_id);  // 0x10de -> "nvidia", "amd", "intel", else "other"
void collect_nvidia(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out);  // nvidia.cpp
void collect_toolkits(const Os& os, std::vector<Toolkit>& out);               // toolkits.cpp
// Toolkits shipped as pip wheels (nvidia/cuda_nvcc, nvidia/cu13) need the Python envs' site-packages:
// run after collect_python, merged into the same list.
void collect_pip_toolkits(const Os& os, const std::vector<PythonEnv>& python, std::vector<Toolkit>& out);  // toolkits.cpp
// notes (optional) receives what discovery had to leave out ("PATH truncated", "too many interpreters").
void collect_python(const Os& os, const ProbeOptions& opts, std::vector<PythonEnv>& out,
                    std::vector<std::string>* notes = nullptr);  // python.cpp
// Libraries need the toolkits (their lib folders) and the Python envs (pip wheels).
// extra_dirs: folders the user named (ProbeOptions::library_dirs), listed after the search path.
void collect_libraries(const Os& os, const std::vector<Toolkit>& toolkits, const std::vector<PythonEnv>& python,
                       LibraryFacts& out, const std::vector<std::string>& extra_dirs = {});  // libraries.cpp
// Search paths, writable GPU libraries, the container toolkit; needs the libraries and the driver
// facts (the files to look at).
void collect_security(const Os& os, const Snapshot& s, SecurityFacts& out);   // security.cpp

// The deep checks (framework_checks.cpp): each framework of each environment imported and exercised
// by the embedded script probe/checks/framework_check.py in its own child, all at once (at most
// max(2, CPUs) at a time), each with the timeout, from an empty folder, with the user's environment.
// `only`: these frameworks ("pytorch", "tensorflow", "jax"); empty = all.
void collect_frameworks(const Os& os, const std::vector<PythonEnv>& python, std::chrono::milliseconds timeout,
                        const std::vector<std::string>& only, std::vector<FrameworkCheck>& out);
// One of them: `framework` ("pytorch") installed as `package` ("torch") in the interpreter `python`.
FrameworkCheck check_framework(const Os& os, const std::string& python, const std::string& framework,
                               const std::string& package, std::chrono::milliseconds timeout);
// Versions of loaded libraries that said none themselves, from the copies the probe read
// (a pip wheel's metadata, a header next to it): matched by the file they really are.
void fill_loaded_versions(const Os& os, const LibraryFacts& libraries, std::vector<FrameworkCheck>& checks);
// The embedded check script's text.
std::string_view framework_check_script();

// Runs all collectors (independent ones concurrently) and stamps version, time, timings.
Snapshot run_probe(const Os& os, const ProbeOptions& opts);
// Now, as a snapshot's created_utc writes it: "2026-12-07T21:30:00Z".
std::string utc_now();

}  // namespace gpuready
