// The rule functions (one file per family) and the helpers they share. Internal to doctor/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/version.h"
#include "doctor/doctor.h"

namespace gpuready::doctor {

// Helpers over the snapshot.
bool nvidia_on_bus(const Snapshot& s);
std::optional<Version> driver_version(const Snapshot& s);
// The step of the driver probe with this name, or nullptr.
const DriverStep* driver_step(const Snapshot& s, const std::string& name);
// The step that loaded NVML ("load libnvidia-ml.so.1", "load nvml.dll"), or nullptr.
const DriverStep* nvml_load_step(const Snapshot& s);
std::vector<InstalledFramework> installed_frameworks(const Snapshot& s);
const PythonPackage* find_package(const PythonEnv& env, const std::string& name);
// What an installed framework says its build's CUDA is: torch's "cuda" ("none" for a CPU-only
// wheel), TensorFlow's build_info "cuda_version", or the major of JAX's CUDA plugin.
struct BuildCuda {
  std::string value;                      // "13.0", "11.2", "none", "13"
  const PythonPackage* plugin = nullptr;  // JAX: the jax-cudaNN-plugin that says it
};
std::optional<BuildCuda> build_cuda(const InstalledFramework& f);
std::string env_version(const PythonEnv& env);
// A CPU-only PyTorch wheel by its metadata: torch/version.py's cuda is "none" or the local version is "+cpu".
bool torch_cpu_only_wheel(const PythonPackage& torch);  // "3.12.3" or "?"
// A folder, with /usr/lib and /lib taken as one (merged-/usr distributions: the loader cache
// says /lib/x86_64-linux-gnu where the probe walked /usr/lib/x86_64-linux-gnu).
std::string folder_key(const std::string& dir);
// What the loader would map for this soname, or nullptr when the probe did not ask.
const LoaderResolution* resolution_of(const Snapshot& s, const std::string& soname);
// The copy a resolution maps (by its canonical path; older snapshots: same soname in the same
// folder), or nullptr when unknown or not found.
const LibraryCopy* picked_copy(const Snapshot& s, const LoaderResolution& r);
// Copies the loader can reach for every program (not a pip wheel's or conda env's private copy).
bool system_wide(const LibraryCopy& c);
// The copy's version names a release (three parts or more: "12.0.4.66"), not only a major.
bool full_version(const LibraryCopy& c);
// "9.1.0" / "?"
std::string version_or(const LibraryCopy& c, const std::string& fallback = "?");
// The lines that put a folder in front of the loader's search on this OS (Linux: the ld.so.conf.d
// line and LD_LIBRARY_PATH; Windows: PATH and, for Python >= 3.8, os.add_dll_directory).
std::vector<std::string> loader_path_fix(const Context& c, const std::string& dir, const PythonEnv* env = nullptr);
// One word for the shell the fixes are written for: a path with spaces or shell characters quoted
// (POSIX single quotes; Windows double quotes).
std::string shell_word(const std::string& os, const std::string& word);
// The plan's pip command for `framework` in this environment, as fix lines (rules_frameworks.cpp):
// the plan's install-framework step, its "python ..." lines run by this environment's interpreter.
std::vector<std::string> reinstall_lines(const Context& c, const std::string& framework, const PythonEnv& env);
// Lines for one OS: Windows gets `windows`, everything else `posix`.
std::vector<std::string> for_os(const Context& c, std::vector<std::string> posix, std::vector<std::string> windows);

// search paths, writable libraries, the container toolkit, a hung driver (rules_security.cpp)
std::vector<Finding> rule_driver_hung(const Context&);
std::vector<Finding> rule_search_path_cwd(const Context&);
std::vector<Finding> rule_writable_library(const Context&);
std::vector<Finding> rule_container_toolkit_cve(const Context&);
// driver and GPU (rules_driver.cpp)
std::vector<Finding> rule_no_nvidia_gpu(const Context&);
std::vector<Finding> rule_driver_not_installed(const Context&);
std::vector<Finding> rule_nouveau(const Context&);
std::vector<Finding> rule_driver_mismatch(const Context&);
std::vector<Finding> rule_module_not_loaded(const Context&);
std::vector<Finding> rule_wsl1(const Context&);
std::vector<Finding> rule_wsl_linux_driver(const Context&);
std::vector<Finding> rule_wsl_libcuda(const Context&);
std::vector<Finding> rule_visible_devices_hide_all(const Context&);
std::vector<Finding> rule_module_not_built(const Context&);
std::vector<Finding> rule_secure_boot_unsigned(const Context&);
// CUDA versions (rules_cuda.cpp)
std::vector<Finding> rule_driver_too_old_for_toolkit(const Context&);
std::vector<Finding> rule_driver_too_old_for_framework(const Context&);
std::vector<Finding> rule_toolkits_disagree(const Context&);
std::vector<Finding> rule_cuda_newer_than_tables(const Context&);
std::vector<Finding> rule_loader_toolkit_mismatch(const Context&);
std::vector<Finding> rule_cuda_home_missing(const Context&);
// cuDNN copies (rules_cudnn.cpp)
std::vector<Finding> rule_cudnn_partial(const Context&);
std::vector<Finding> rule_cudnn_mixed(const Context&);
std::vector<Finding> rule_cudnn_header_only(const Context&);
std::vector<Finding> rule_cudnn_dll_not_in_bin(const Context&);
std::vector<Finding> rule_cudnn_cuda_major(const Context&);
// libraries a framework loads by name (rules_libraries.cpp)
std::vector<Finding> rule_library_not_found(const Context&);
std::vector<Finding> rule_library_path_only(const Context&);
std::vector<Finding> rule_library_not_installed(const Context&);
std::vector<Finding> rule_cudnn_older_than_built(const Context&);
std::vector<Finding> rule_cudnn_loader_picks_older(const Context&);
std::vector<Finding> rule_dependency_missing(const Context&);
std::vector<Finding> rule_library_shadowed(const Context&);
// frameworks (rules_frameworks.cpp)
std::vector<Finding> rule_torch_cpu_only(const Context&);
std::vector<Finding> rule_tf_both_packages(const Context&);
std::vector<Finding> rule_tf_windows_no_gpu(const Context&);
std::vector<Finding> rule_python_unsupported(const Context&);
std::vector<Finding> rule_framework_newer_than_tables(const Context&);
std::vector<Finding> rule_no_kernels_for_gpu(const Context&);
std::vector<Finding> rule_cudnn_no_kernels_for_gpu(const Context&);
std::vector<Finding> rule_cpu_no_avx(const Context&);
std::vector<Finding> rule_tf_numpy_too_new(const Context&);
// the environment's installed dependencies against what its packages declare (rules_dependencies.cpp)
std::vector<Finding> rule_framework_dependency_broken(const Context&);
std::vector<Finding> rule_python_dependency_broken(const Context&);
std::vector<Finding> rule_framework_binary_break(const Context&);
// GPU health (rules_health.cpp)
std::vector<Finding> rule_pcie_width(const Context&);
std::vector<Finding> rule_throttling(const Context&);
std::vector<Finding> rule_memory_in_use(const Context&);
std::vector<Finding> rule_persistence_off(const Context&);
std::vector<Finding> rule_pcie_gen(const Context&);
std::vector<Finding> rule_ecc_uncorrected(const Context&);
std::vector<Finding> rule_reset_pending(const Context&);
std::vector<Finding> rule_memory_needs_service(const Context&);

// what `gpuready verify` measured (rules_measured.cpp)
std::vector<Finding> rule_measured_data_corrupt(const Context&);
std::vector<Finding> rule_measured_copy_slow(const Context&);
std::vector<Finding> rule_measured_gemm_slow(const Context&);
std::vector<Finding> rule_measured_throttled(const Context&);
std::vector<Finding> rule_measured_power_capped(const Context&);

// what importing each framework showed (rules_deep.cpp; Snapshot::frameworks from --deep / verify)
std::vector<Finding> rule_deep_import_failed(const Context&);
std::vector<Finding> rule_deep_crashed(const Context&);
std::vector<Finding> rule_deep_timeout(const Context&);
std::vector<Finding> rule_deep_no_gpu(const Context&);
std::vector<Finding> rule_deep_op_failed(const Context&);
std::vector<Finding> rule_deep_wrong_result(const Context&);
std::vector<Finding> rule_deep_not_run(const Context&);
std::vector<Finding> rule_deep_library_mix(const Context&);
std::vector<Finding> rule_deep_printed_problem(const Context&);

}  // namespace gpuready::doctor
