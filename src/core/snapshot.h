// Snapshot: every fact gpuready collected about one machine, as one versioned,
// JSON-serialisable document ("gpuready.snapshot/1", described in docs/snapshot.md).
// Collectors (src/probe) fill it and never judge; rules and reporters only read it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fact.h"

namespace gpuready {

inline constexpr const char* kSnapshotSchema = "gpuready.snapshot/1";

// 1. Operating system.
struct OsFacts {
  Fact<std::string> family;        // "linux" | "windows" | "macos"
  Fact<std::string> name;          // "Debian GNU/Linux 12 (bookworm)", "Windows 11 Pro"
  Fact<std::string> id;            // os-release ID: "debian", "ubuntu"; "windows"
  Fact<std::string> version;       // "12", "24.04", "10.0.22631"
  Fact<std::string> kernel;        // "6.1.0-18-amd64"
  Fact<std::string> arch;          // "x86_64", "aarch64"
  Fact<std::string> wsl;           // "none" | "wsl1" | "wsl2"
  Fact<std::string> container;     // "none" | "docker" | "podman" | "kubernetes" | "lxc" | ...
  Fact<bool> secure_boot;          // UEFI Secure Boot enforced (Linux: the SecureBoot EFI variable)
};

// 2. CPU and memory.
struct CpuFacts {
  Fact<std::string> vendor;                 // "GenuineIntel", "AuthenticAMD"
  Fact<std::string> model;                  // "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"
  Fact<int> sockets;
  Fact<int> cores;                          // physical cores, all sockets
  Fact<int> threads;                        // logical CPUs
  Fact<std::map<std::string, bool>> isa;    // avx, avx2, fma, avx512f, avx512_bf16, amx_tile, amx_bf16, ...
  Fact<std::uint64_t> ram_bytes;
  Fact<std::uint64_t> ram_available_bytes;
};

// 3. A display/3D controller on the PCI bus, seen without any driver.
struct PciGpu {
  std::string address;              // "0000:01:00.0"
  std::string vendor;               // "nvidia" | "amd" | "intel" | "other"
  std::uint32_t vendor_id = 0;      // 0x10de
  std::uint32_t device_id = 0;      // 0x2335
  std::uint32_t subsystem_vendor_id = 0;
  std::uint32_t subsystem_device_id = 0;
  std::uint32_t class_code = 0;     // 0x030000 VGA, 0x030200 3D, 0x038000 display
  Fact<std::string> kernel_driver;  // "nvidia" | "nouveau" | "amdgpu" | "vfio-pci" | "none"
  Fact<int> numa_node;
  Fact<std::string> link_speed_current, link_speed_max;  // sysfs words: "32.0 GT/s PCIe"
  Fact<int> link_width_current, link_width_max;
};

// One step of talking to the driver: what was tried and how it ended.
struct DriverStep {
  std::string name;      // "load libnvidia-ml.so.1", "nvmlInit_v2", "cuInit"
  bool ok = false;
  std::string code;      // vendor's code name: "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "CUDA_ERROR_NO_DEVICE"
  std::string message;   // in words a user understands (with the loader's / vendor's own text)
  double ms = 0;         // how long it took
};

// 4. Per-GPU facts from NVML and the CUDA driver API.
struct NvidiaGpu {
  int index = 0;                              // NVML index
  Fact<std::string> name;
  Fact<std::string> uuid;
  Fact<std::string> pci_bus_id;               // "00000000:01:00.0"
  Fact<std::uint64_t> memory_total_bytes, memory_used_bytes;
  Fact<std::string> compute_capability;       // "9.0"
  Fact<std::string> architecture;             // "Hopper"
  Fact<int> pcie_gen_current, pcie_gen_max;   // max: what this GPU in this slot can reach
  Fact<int> pcie_gen_gpu_max;                 // what the GPU itself supports (a Gen5 card in a Gen4 slot: 5)
  Fact<int> pcie_width_current, pcie_width_max;
  Fact<bool> persistence_mode;
  Fact<std::string> driver_model;             // Windows (NVML): "WDDM" | "TCC" | "MCDM", "WDDM (TCC after a reboot)"
  Fact<bool> ecc_enabled;                     // current ECC mode
  Fact<std::uint64_t> ecc_uncorrected_volatile;   // uncorrectable ECC errors since the driver loaded
  Fact<std::uint64_t> ecc_uncorrected_aggregate;  // ... over the board's life
  Fact<std::uint64_t> ecc_corrected_volatile;
  Fact<int> retired_pages_sbe, retired_pages_dbe;  // page retirement (before Ampere): pages retired per cause
  Fact<bool> retired_pages_pending;                // a retirement waits for the next driver load / GPU reset
  Fact<int> remapped_rows_correctable, remapped_rows_uncorrectable;  // row remapping (Ampere and newer)
  Fact<bool> row_remap_pending;                                      // a remap waits for a GPU reset
  Fact<bool> row_remap_failed;                                       // a remap failed: the board needs service
  Fact<int> utilization_percent;                        // GPU busy share at probe time (NVML utilization rates)
  Fact<std::vector<std::string>> clocks_event_reasons;  // "gpu_idle", "sw_power_cap", "hw_thermal_slowdown", ...
  Fact<int> temperature_c;
  Fact<double> power_draw_w, power_limit_w;
  Fact<int> sm_clock_mhz, memory_clock_mhz;   // current clocks (NVML)
  Fact<int> sm_clock_max_mhz, memory_clock_max_mhz;
  Fact<int> memory_bus_width_bits;            // NVML, else CUDA attribute
  // From the CUDA driver API (needs cuInit).
  Fact<int> sm_count;
  Fact<int> cuda_ordinal;                     // index as CUDA numbers it (after CUDA_VISIBLE_DEVICES)
};

struct NvidiaDriverFacts {
  std::vector<DriverStep> steps;              // the probe order, each step's result
  Fact<std::string> nvml_library;             // the file the loader mapped
  Fact<std::string> driver_version;           // "580.159.04"
  Fact<std::string> cuda_driver_version;      // newest CUDA the driver supports: "13.0"
  Fact<std::string> kernel_module_version;    // /proc/driver/nvidia/version
  Fact<std::string> kernel_module_file;       // nvidia.ko(.xz/.zst) for the running kernel (modules.dep), or why none
  std::vector<std::string> kernel_module_kernels;  // kernels in /lib/modules that have an nvidia module
  Fact<bool> kernel_module_signed;                 // that file carries a module signature (unknown when compressed)
  Fact<int> nvml_device_count;
  Fact<std::string> cuda_library;             // libcuda file mapped
  Fact<std::string> cuda_init;                // "CUDA_SUCCESS" or the error name
  Fact<int> cuda_device_count;
  Fact<std::string> cuda_visible_devices;     // the variable's value, or unknown "not set"
  std::vector<NvidiaGpu> gpus;
};

// 5. A CUDA toolkit install.
struct Toolkit {
  std::string root;                           // "/usr/local/cuda-12.4", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0"
  std::vector<std::string> found_by;          // "CUDA_HOME", "CUDA_PATH_V11_0", "PATH nvcc", "/usr/local/cuda*", "conda", "pip"
  Fact<std::string> version;                  // "12.4.1"
  std::string version_source;                 // "version.json", "version.txt", "cuda.h", "nvcc --version", "dist-info"
  Fact<std::string> nvcc;                     // path of nvcc in this install
  bool is_path_nvcc = false;                  // PATH's nvcc belongs to this install
  std::string canonical_root;                 // root with links resolved (to merge /usr/local/cuda with cuda-12.4)
};

// A shared library that one file names as NEEDED (ELF) or imports (PE), and which file the
// loader would map for it when that file is loaded (its RUNPATH/RPATH with $ORIGIN, then
// LD_LIBRARY_PATH, the cache and the default folders). The C runtime's own libraries are left out.
struct Dependency {
  std::string name;        // "libnvJitLink.so.12"
  std::string needed_by;   // the file that names it: "libcusolver.so.11.4.1.48"
  Fact<std::string> path;  // unknown: why the loader would not find it
  std::string via;         // "RUNPATH", "RPATH", "LD_LIBRARY_PATH", "ld.so.cache", "default path"
};

// 6. One copy of a GPU library on disk.
struct LibraryCopy {
  std::string library;                        // "cudart" | "cublas" | "cudnn" | "cufft" | "curand" | "cusolver" | "cusparse" | "nccl" | "tensorrt" | ...
  std::string path;                           // the file
  std::string file_name;                      // "libcudnn.so.9.1.0"
  std::string soname;                         // "libcudnn.so.9" (what a framework asks for)
  Fact<std::string> version;                  // "9.1.0"
  std::string version_source;                 // "cudnn_version.h", "file name", "dist-info"
  std::string origin;                         // "toolkit", "ld.so.cache", "LD_LIBRARY_PATH", "wsl", "pip", "conda", "system",
                                              // "installer" (NVIDIA's cuDNN installer folder on Windows),
                                              // "--libs" (a folder named to verify/bench --libs)
  std::string origin_detail;                  // e.g. the toolkit root or the wheel name
  std::string runpath;            // its DT_RUNPATH (or DT_RPATH) as written: "$ORIGIN:$ORIGIN/../../cublas/lib"
  std::vector<Dependency> needs;  // what it names as NEEDED, resolved for it
};

// Which file the dynamic loader would pick for one soname.
struct LoaderResolution {
  std::string soname;                         // "libcudnn.so.9"
  Fact<std::string> path;                     // unknown: "not found by the loader"
  std::string via;                            // "LD_LIBRARY_PATH", "ld.so.cache", "default path", "PATH", "System32"
  std::string canonical;                      // path with every link resolved: the LibraryCopy::path it maps
};

// A cuDNN 8/9 install: the main library and its sub-libraries in one folder.
struct CudnnSet {
  std::string dir;
  Fact<std::string> version;                  // from the header next to it, or the main file name
  std::vector<std::string> present;           // sub-libraries found: "cudnn_ops", "cudnn_cnn", ...
  std::vector<std::string> missing;           // expected for this major, not found
  std::map<std::string, std::string> versions;  // sub-library -> version seen in its file name
  bool consistent = true;                     // all sub-libraries of one version
  Fact<std::string> header;                   // cudnn_version.h that belongs to it, if any
  std::vector<Dependency> needs;              // what the sub-libraries name as NEEDED, resolved (needed_by: which)
};

struct LibraryFacts {
  std::vector<LibraryCopy> copies;
  std::vector<LoaderResolution> resolutions;
  std::vector<CudnnSet> cudnn_sets;
  Fact<std::string> ld_cache;                 // path of the loader cache read, or why not
};

// 7. Python environments and their frameworks.
struct PythonPackage {
  std::string name;                           // normalised: "torch", "tensorflow", "nvidia-cudnn-cu12"
  std::string version;                        // "2.11.0+cu130"
  std::string location;                       // the .dist-info / .egg-info folder
  std::map<std::string, std::string> details; // "cuda": "13.0", "cudnn": "9", "variant": "cu130", ...
};

// The framework a package is ("pytorch", "tensorflow", "jax"), or "" for every other package.
// Only the framework's own package counts: jaxlib without jax, tensorflow-io or
// tensorflow-estimator are not the framework.
std::string framework_of_package(const std::string& name);

// One requirement that a package of an environment declares and that applies there: its
// Requires-Dist line with the environment's markers true (probe/python_requirements.cpp), for
// the packages the frameworks need, transitively. The doctor judges it (as `pip check` does).
struct PythonRequirement {
  std::string by;          // the package that declares it: "tensorflow"
  std::string by_version;  // "2.4.0"
  std::string name;        // the package it needs, normalised: "numpy"
  std::string specifier;   // "~=1.19.2"; "" any version
  std::string extra;       // the extra it belongs to ("cuda12"), "" when it always applies
  std::string installed;   // the version installed in the environment; "" when none is
};

struct PythonEnv {
  std::string interpreter;                    // path
  std::vector<std::string> found_by;          // "PATH", "conda", "--python", "venv"
  Fact<std::string> version;                  // "3.12.3"
  Fact<std::string> prefix;                   // sys.prefix
  std::vector<std::string> site_packages;
  std::vector<PythonPackage> packages;        // only the GPU-relevant ones
  std::vector<PythonRequirement> requirements;  // what the GPU-relevant packages need, transitively
  std::string error;                          // what went wrong asking it (timeout, crash)
};

// 8. A framework imported and exercised in a child process (`doctor --deep`, `probe --deep`, `verify`;
// probe/framework_checks.cpp runs probe/checks/framework_check.py): what it was built with, what it
// loaded, what it sees, and whether one small operation on the GPU gives the CPU's answer.
struct LoadedLibrary {
  std::string path;            // the file mapped into the process (Linux /proc/self/maps, Windows' module list)
  std::string library;         // "cudnn", "cudnn_graph", "cudart", "cuda", ...; "" for a framework's own library
  Fact<std::string> version;   // "9.10.2"
  std::string version_source;  // "cudnnGetVersion", "probe" (a copy the probe read), "file name"
};

struct FrameworkDevice {
  int index = 0;
  std::string name;                      // "NVIDIA H200"
  Fact<std::string> compute_capability;  // "9.0"
  Fact<std::uint64_t> memory_bytes;
};

// One operation run on the CPU and on the GPU by the framework itself. Its operands are exact in
// fp32 and TF32, so a right GPU result differs from the CPU's by rounding at most: it passes when
// max_error <= kFrameworkOpTolerance.
inline constexpr double kFrameworkOpTolerance = 1e-4;
struct FrameworkOp {
  std::string name;        // "matmul" | "conv2d"
  Fact<double> max_error;  // max |gpu - cpu| / max |cpu|
  Fact<double> gpu_ms;     // the GPU's first call (with its kernels' loading)
  std::string error;       // what it raised
};

struct FrameworkCheck {
  std::string framework;               // "pytorch" | "tensorflow" | "jax"
  std::string package;                 // "torch"
  std::string python;                  // the interpreter (PythonEnv::interpreter)
  std::string status;                  // "ready" | "no-gpu" | "import-failed" | "op-failed" | "wrong-result" |
                                       // "crashed" | "timeout" | "error"
  std::string stage;                   // where it ended or stopped: "import", "devices", "gpu-op matmul", "done"
  Fact<std::string> version;           // as the framework says (torch.__version__)
  Fact<std::string> built_cuda;        // "13.0"; unknown "CPU-only build" when it has none
  Fact<std::string> built_cudnn;       // "9.10.2" (TensorFlow: the major it names)
  Fact<std::string> runtime_cudnn;     // the cuDNN it runs with (cudnnGetVersion through the framework)
  Fact<std::string> runtime_cuda;      // JAX: the CUDA runtime it runs with
  std::vector<std::string> arch_list;  // "sm_90", "compute_90" (kernels the build carries)
  std::vector<FrameworkDevice> devices;
  std::vector<FrameworkOp> ops;
  std::vector<LoadedLibrary> libraries;
  std::string error;      // the exception ("ImportError: ...") or how the child ended
  std::string gpu_error;  // why it sees no GPU, in its own words (torch.cuda.init(), jax.devices("gpu"))
  std::string output;     // what it printed (stderr, then stdout), long output cut in the middle
  Fact<double> import_seconds;
  double seconds = 0;  // the whole child, as gpuready timed it
};

// 9. A measurement `gpuready verify` made (verify/verify.h judges it): measurements are facts too,
// so the doctor's rules read them from the snapshot like any other.
struct Measurement {
  std::string key;      // "copy.h2d_pinned"
  std::string status;   // "pass" | "warn" | "fail" | "skip"
  Fact<double> value;   // the median
  std::string unit;     // "GB/s"
  Fact<double> limit;   // what the hardware should reach
  Fact<double> ratio;   // value / limit
  std::string detail;   // why this status
  bool data_ok = true;  // the result was checked and was right (false: corrupted data)
  std::vector<std::string>
      clock_events;  // clocks-event reasons that held the GPU back meanwhile ("hw_thermal_slowdown")
};

// 8. Search paths and files that decide what every program started here loads and runs.
struct UnsafeSearchEntry {
  std::string variable;  // "LD_LIBRARY_PATH" | "PATH" | "PYTHONPATH" | "LD_PRELOAD"
  int index = 0;         // 0-based position in the list
  std::string entry;     // as written: "" for an empty entry, ".", "lib", or a folder
  std::string problem;   // "empty" | "relative" | "world-writable"
};

struct WritableFile {
  std::string path;      // the library (or search-path folder)
  std::string reason;    // "the file is world-writable (mode 0777)" | "its folder /opt/x is world-writable (mode 0777)"
};

struct SecurityFacts {
  std::map<std::string, std::string> search_paths;  // LD_LIBRARY_PATH, PATH, PYTHONPATH, LD_PRELOAD as set (absent: not set)
  std::vector<UnsafeSearchEntry> unsafe_entries;
  std::vector<WritableFile> writable;              // GPU libraries and search-path folders others can write
  Fact<std::string> container_toolkit_version;     // NVIDIA Container Toolkit: "1.17.4"; unknown: not installed / not seen
  std::string container_toolkit_source;            // "dpkg: nvidia-container-toolkit", "rpm database", "nvidia-ctk --version"
};

struct ProbeTiming {
  std::string collector;
  double ms = 0;
};

struct Snapshot {
  std::string schema = kSnapshotSchema;
  std::string gpuready_version;
  std::string created_utc;                    // ISO 8601
  Fact<std::string> hostname;
  OsFacts os;
  CpuFacts cpu;
  std::vector<PciGpu> pci_gpus;
  NvidiaDriverFacts nvidia;
  std::vector<Toolkit> toolkits;
  LibraryFacts libraries;
  std::vector<PythonEnv> python;
  std::vector<FrameworkCheck> frameworks;  // from --deep / verify (absent from a plain probe)
  SecurityFacts security;
  std::vector<ProbeTiming> timings;
  std::vector<std::string> notes;             // collector-level problems worth showing (bad input, skipped paths)
  std::vector<Measurement> measurements;      // from `gpuready verify` (absent from a plain probe)
};

// JSON for every part (field names are the schema; see docs/snapshot.md).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OsFacts, family, name, id, version, kernel, arch, wsl, container,
                                                secure_boot)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CpuFacts, vendor, model, sockets, cores, threads, isa, ram_bytes,
                                                ram_available_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PciGpu, address, vendor, vendor_id, device_id, subsystem_vendor_id,
                                                subsystem_device_id, class_code, kernel_driver, numa_node,
                                                link_speed_current, link_speed_max, link_width_current,
                                                link_width_max)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DriverStep, name, ok, code, message, ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvidiaGpu, index, name, uuid, pci_bus_id, memory_total_bytes,
                                                memory_used_bytes, compute_capability, architecture, pcie_gen_current,
                                                pcie_gen_max, pcie_gen_gpu_max, pcie_width_current, pcie_width_max,
                                                persistence_mode, driver_model, ecc_enabled, ecc_uncorrected_volatile,
                                                ecc_uncorrected_aggregate, ecc_corrected_volatile, retired_pages_sbe,
                                                retired_pages_dbe, retired_pages_pending, remapped_rows_correctable,
                                                remapped_rows_uncorrectable, row_remap_pending, row_remap_failed,
                                                utilization_percent, clocks_event_reasons, temperature_c, power_draw_w,
                                                power_limit_w, sm_clock_mhz, memory_clock_mhz, sm_clock_max_mhz,
                                                memory_clock_max_mhz, memory_bus_width_bits, sm_count, cuda_ordinal)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvidiaDriverFacts, steps, nvml_library, driver_version,
                                                cuda_driver_version, kernel_module_version, kernel_module_file,
                                                kernel_module_kernels, kernel_module_signed, nvml_device_count,
                                                cuda_library, cuda_init, cuda_device_count, cuda_visible_devices, gpus)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Toolkit, root, found_by, version, version_source, nvcc,
                                                is_path_nvcc, canonical_root)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Dependency, name, needed_by, path, via)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LibraryCopy, library, path, file_name, soname, version, version_source,
                                                origin, origin_detail, runpath, needs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LoaderResolution, soname, path, via, canonical)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudnnSet, dir, version, present, missing, versions, consistent, header,
                                                needs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LibraryFacts, copies, resolutions, cudnn_sets, ld_cache)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PythonPackage, name, version, location, details)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PythonRequirement, by, by_version, name, specifier, extra, installed)
// By hand: `requirements` is written only when there are some, so snapshots recorded before it
// existed still read and write back unchanged.
inline void to_json(nlohmann::json& j, const PythonEnv& e) {
  j = nlohmann::json{{"interpreter", e.interpreter}, {"found_by", e.found_by}, {"version", e.version},
                     {"prefix", e.prefix},           {"site_packages", e.site_packages}, {"packages", e.packages},
                     {"error", e.error}};
  if (!e.requirements.empty()) j["requirements"] = e.requirements;
}
inline void from_json(const nlohmann::json& j, PythonEnv& e) {
  const PythonEnv d;
  e.interpreter = j.value("interpreter", d.interpreter);
  e.found_by = j.value("found_by", d.found_by);
  e.version = j.value("version", d.version);
  e.prefix = j.value("prefix", d.prefix);
  e.site_packages = j.value("site_packages", d.site_packages);
  e.packages = j.value("packages", d.packages);
  e.requirements = j.value("requirements", d.requirements);
  e.error = j.value("error", d.error);
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UnsafeSearchEntry, variable, index, entry, problem)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WritableFile, path, reason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SecurityFacts, search_paths, unsafe_entries, writable,
                                                container_toolkit_version, container_toolkit_source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LoadedLibrary, path, library, version, version_source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FrameworkDevice, index, name, compute_capability, memory_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FrameworkOp, name, max_error, gpu_ms, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FrameworkCheck, framework, package, python, status, stage, version,
                                                built_cuda, built_cudnn, runtime_cudnn, runtime_cuda, arch_list,
                                                devices, ops, libraries, error, gpu_error, output, import_seconds,
                                                seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProbeTiming, collector, ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Measurement, key, status, value, unit, limit, ratio, detail, data_ok,
                                                clock_events)

void to_json(nlohmann::json& j, const Snapshot& s);
// Throws std::runtime_error with a readable message on a document that is not a snapshot/1.
void from_json(const nlohmann::json& j, Snapshot& s);

nlohmann::json snapshot_to_json(const Snapshot& s);
Snapshot snapshot_from_json(const nlohmann::json& j);

}  // namespace gpuready
