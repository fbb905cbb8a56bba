// The rule registry, the runner, the per-framework verdicts and the report's JSON.
#include "doctor/doctor.h"

#include <fmt/format.h>

#include <algorithm>

#include "doctor/rules.h"
#include "platform/os.h"

namespace gpuready::doctor {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warn: return "warn";
    case Severity::info: return "info";
  }
  return "error";
}

// ---- helpers shared by the rules -------------------------------------------------------------

bool nvidia_on_bus(const Snapshot& s) {
  for (const auto& p : s.pci_gpus)
    if (p.vendor == "nvidia") return true;
  return false;
}

std::optional<Version> driver_version(const Snapshot& s) {
  if (!s.nvidia.driver_version.has()) return std::nullopt;
  return Version::parse(s.nvidia.driver_version.value());
}

const DriverStep* driver_step(const Snapshot& s, const std::string& name) {
  for (const auto& st : s.nvidia.steps)
    if (st.name == name) return &st;
  return nullptr;
}

const DriverStep* nvml_load_step(const Snapshot& s) {
  for (const auto& st : s.nvidia.steps)  // NVML is loaded before libcuda
    if (st.name.rfind("load ", 0) == 0) return &st;
  return nullptr;
}

std::vector<InstalledFramework> installed_frameworks(const Snapshot& s) {
  std::vector<InstalledFramework> out;
  for (const auto& env : s.python) {
    for (const auto& p : env.packages) {
      const std::string fw = framework_of_package(p.name);
      if (fw.empty()) continue;
      // One TensorFlow per environment (tensorflow and tensorflow-gpu both installed is a finding of its own).
      if (std::any_of(out.begin(), out.end(), [&](const auto& i) { return i.env == &env && i.framework == fw; }))
        continue;
      out.push_back({&env, &p, fw});
    }
  }
  return out;
}

const PythonPackage* find_package(const PythonEnv& env, const std::string& name) {
  for (const auto& p : env.packages)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<BuildCuda> build_cuda(const InstalledFramework& f) {
  const auto& d = f.package->details;
  if (auto it = d.find("cuda"); it != d.end()) return BuildCuda{it->second};
  if (auto it = d.find("cuda_version"); it != d.end()) return BuildCuda{it->second};
  if (f.framework != "jax") return std::nullopt;
  // The CUDA plugin packages (jax-cuda13-pjrt, jax-cuda13-plugin): the last one listed.
  std::optional<BuildCuda> out;
  for (const auto& p : f.env->packages)
    if (auto it = p.details.find("cuda_major"); it != p.details.end() && p.name.rfind("jax-cuda", 0) == 0)
      out = BuildCuda{it->second, &p};
  return out;
}

std::string folder_key(const std::string& dir) {
  if (dir.rfind("/usr/lib", 0) == 0) return dir.substr(4);
  return dir;
}

const LoaderResolution* resolution_of(const Snapshot& s, const std::string& soname) {
  for (const auto& r : s.libraries.resolutions)
    if (r.soname == soname) return &r;
  return nullptr;
}

const LibraryCopy* picked_copy(const Snapshot& s, const LoaderResolution& r) {
  if (!r.path.has()) return nullptr;
  for (const auto& c : s.libraries.copies)
    if (!r.canonical.empty() && c.path == r.canonical) return &c;
  if (!r.canonical.empty()) return nullptr;
  const std::string dir = folder_key(path_folder(r.path.value()));
  for (const auto& c : s.libraries.copies)
    if (c.soname == r.soname && folder_key(path_folder(c.path)) == dir) return &c;
  return nullptr;
}

bool system_wide(const LibraryCopy& c) { return c.origin != "pip" && c.origin != "conda"; }

bool full_version(const LibraryCopy& c) {
  const auto v = c.version.has() ? Version::parse(c.version.value()) : std::nullopt;
  return v && v->parts.size() >= 3;
}

std::string version_or(const LibraryCopy& c, const std::string& fallback) {
  return c.version.has() ? c.version.value() : fallback;
}

std::vector<std::string> loader_path_fix(const Context& c, const std::string& dir, const PythonEnv* env) {
  if (c.os == "windows") {
    std::vector<std::string> out = {fmt::format(
        "set PATH={};%PATH%   # for this terminal; System settings > Environment Variables to keep it", dir)};
    const auto py = env && env->version.has() ? Version::parse(env->version.value()) : std::nullopt;
    if (py && *py >= Version::of({3, 8}))
      out.push_back(
          fmt::format("# Python {} does not search PATH for extension modules' DLLs: before the import, "
                      "add  import os; os.add_dll_directory(r\"{}\")",
                      env->version.value(), dir));
    return out;
  }
  return {
      fmt::format("echo {} | sudo tee /etc/ld.so.conf.d/gpuready-cuda.conf && sudo ldconfig   # for every program",
                  dir),
      fmt::format("export LD_LIBRARY_PATH={}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}   # or for this shell only (add "
                  "to ~/.bashrc to keep)",
                  dir)};
}

std::string env_version(const PythonEnv& env) { return env.version.has() ? env.version.value() : "?"; }

std::vector<std::string> for_os(const Context& c, std::vector<std::string> posix, std::vector<std::string> windows) {
  return c.os == "windows" ? windows : posix;
}

std::string target_os(const Snapshot& s) {
  if (!s.os.family.has()) return "linux";
  const std::string& f = s.os.family.value();
  if (f == "linux" && s.os.wsl.has() && s.os.wsl.value() != "none") return "wsl2";
  return f;
}

// ---- the registry ---------------------------------------------------------------------------

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = {
      {"driver.hung", Severity::error, "the driver did not answer NVML or cuInit in time (a hung driver or GPU)",
       rule_driver_hung},
      {"gpu.none", Severity::error, "no NVIDIA GPU on the PCI bus and none known to the driver", rule_no_nvidia_gpu},
      {"wsl.wsl1", Severity::error, "WSL1, which has no GPU access", rule_wsl1},
      {"driver.nouveau", Severity::error, "the open-source nouveau driver holds the GPU", rule_nouveau},
      {"driver.not-installed", Severity::error, "an NVIDIA GPU on the bus but no NVIDIA driver library",
       rule_driver_not_installed},
      {"driver.mismatch", Severity::error,
       "NVML: driver/library version mismatch (kernel module older than the libraries)", rule_driver_mismatch},
      {"driver.module-not-loaded", Severity::error,
       "the driver's libraries are installed but its kernel module is not loaded", rule_module_not_loaded},
      {"driver.module-not-built", Severity::error,
       "the kernel module exists for other kernels but not the running one (DKMS did not rebuild it)",
       rule_module_not_built},
      {"driver.secure-boot-unsigned", Severity::error, "Secure Boot on and the kernel module unsigned",
       rule_secure_boot_unsigned},
      {"wsl.linux-driver", Severity::error, "a Linux NVIDIA driver installed inside WSL2", rule_wsl_linux_driver},
      {"wsl.libcuda", Severity::error, "WSL2: libcuda.so.1 not resolvable from /usr/lib/wsl/lib", rule_wsl_libcuda},
      {"cuda.visible-devices", Severity::error, "CUDA_VISIBLE_DEVICES hides every GPU", rule_visible_devices_hide_all},
      {"cuda.driver-too-old-for-framework", Severity::error, "an installed framework's CUDA build needs a newer driver",
       rule_driver_too_old_for_framework},
      {"cuda.driver-too-old-for-toolkit", Severity::warn, "an installed CUDA toolkit is newer than the driver runs",
       rule_driver_too_old_for_toolkit},
      {"cuda.newer-than-tables", Severity::info,
       "a CUDA toolkit, CUDA wheel or driver newer than everything in gpuready's tables (not checked)",
       rule_cuda_newer_than_tables},
      {"cuda.toolkits-disagree", Severity::warn, "PATH's nvcc and CUDA_HOME/CUDA_PATH name different toolkits",
       rule_toolkits_disagree},
      {"cuda.loader-toolkit-mismatch", Severity::warn,
       "the loader gives programs CUDA libraries of another toolkit than PATH's nvcc, or none of its own",
       rule_loader_toolkit_mismatch},
      {"cuda.home-missing", Severity::warn, "CUDA_HOME / CUDA_PATH names a folder that does not exist",
       rule_cuda_home_missing},
      {"cudnn.partial", Severity::error, "a cuDNN copy with sub-libraries missing (copied only in part)",
       rule_cudnn_partial},
      {"cudnn.mixed-versions", Severity::error, "a cuDNN folder whose sub-libraries are of different versions",
       rule_cudnn_mixed},
      {"cudnn.header-only", Severity::error, "a cuDNN header in a CUDA toolkit without its libraries (copied in part)",
       rule_cudnn_header_only},
      {"cudnn.dll-not-in-bin", Severity::error, "cuDNN DLLs copied into lib\\x64 instead of bin (Windows)",
       rule_cudnn_dll_not_in_bin},
      {"cudnn.cuda-major", Severity::error, "a cuDNN built for another CUDA major than the framework that loads it",
       rule_cudnn_cuda_major},
      {"cudnn.loader-picks-older", Severity::error,
       "the loader picks a cuDNN older than TensorFlow was built with, though a newer copy may be installed",
       rule_cudnn_loader_picks_older},
      {"library.not-found", Severity::error,
       "a CUDA library TensorFlow loads by name is on disk, in a folder the loader does not search (the missing DLL)",
       rule_library_not_found},
      {"library.path-only", Severity::info,
       "Windows: a DLL TensorFlow loads by name is found only through PATH, which Python >= 3.8's DLL rules ignore",
       rule_library_path_only},
      {"library.not-installed", Severity::error, "a CUDA or cuDNN library TensorFlow loads by name is not installed",
       rule_library_not_installed},
      {"library.dependency-missing", Severity::error,
       "a CUDA library is found but a library it needs is not (e.g. libcusolver -> libnvJitLink)",
       rule_dependency_missing},
      {"library.shadowed", Severity::warn, "the loader picks an older copy of a CUDA library than one installed",
       rule_library_shadowed},
      {"cudnn.older-than-built", Severity::error, "a cuDNN wheel older than the framework was built with",
       rule_cudnn_older_than_built},
      {"torch.cpu-only", Severity::error, "a CPU-only PyTorch wheel on a machine with an NVIDIA GPU",
       rule_torch_cpu_only},
      {"tensorflow.both-packages", Severity::error, "tensorflow and tensorflow-gpu installed in one environment",
       rule_tf_both_packages},
      {"tensorflow.windows-no-gpu", Severity::error, "TensorFlow >= 2.11 on native Windows (no GPU support)",
       rule_tf_windows_no_gpu},
      {"framework.python-unsupported", Severity::error, "a framework release that does not support this Python",
       rule_python_unsupported},
      {"framework.newer-than-tables", Severity::info,
       "an installed framework release is newer than every release in gpuready's tables", rule_framework_newer_than_tables},
      {"framework.no-kernels", Severity::error,
       "the framework build has no kernels for this GPU's compute capability (\"no kernel image is available\")",
       rule_no_kernels_for_gpu},
      {"framework.cudnn-no-kernels", Severity::error,
       "the cuDNN a framework runs with (bundled or its pip wheel) has no kernels for this GPU's compute capability",
       rule_cudnn_no_kernels_for_gpu},
      {"cpu.no-avx", Severity::error, "TensorFlow wheels need AVX and this CPU has none", rule_cpu_no_avx},
      {"tensorflow.numpy-too-new", Severity::error, "NumPy 2 with a TensorFlow built against NumPy 1",
       rule_tf_numpy_too_new},
      {"framework.dependency-broken", Severity::error,
       "a package a framework declares it needs (Requires-Dist) is missing or at a version outside its range, as pip check "
       "would say",
       rule_framework_dependency_broken},
      {"framework.binary-break", Severity::error,
       "a framework with a dependency version it does not declare against but breaks with (torch < 2.3 and NumPy 2, "
       "TensorFlow < 2.6.5 and protobuf 4.21+, ...)",
       rule_framework_binary_break},
      {"python.dependency-broken", Severity::warn,
       "a package the frameworks pull in has a dependency missing or outside its declared range (pip check)",
       rule_python_dependency_broken},
      {"framework.import-failed", Severity::error,
       "--deep: the framework raises an exception on import (what it printed, explained)", rule_deep_import_failed},
      {"framework.crashed", Severity::error, "--deep: Python crashed importing or running the framework",
       rule_deep_crashed},
      {"framework.check-timeout", Severity::error, "--deep: importing or running the framework did not finish in time",
       rule_deep_timeout},
      {"framework.sees-no-gpu", Severity::error,
       "--deep: the framework imports but lists no GPU (CPU-only build, a library it could not load, the driver)",
       rule_deep_no_gpu},
      {"framework.gpu-op-failed", Severity::error,
       "--deep: a matrix product or convolution on the GPU raises (no kernel image, cuBLAS/cuDNN errors)",
       rule_deep_op_failed},
      {"framework.gpu-wrong-result", Severity::error,
       "--deep: the framework's matrix product or convolution on the GPU differs from the CPU's",
       rule_deep_wrong_result},
      {"framework.library-mix", Severity::warn,
       "--deep: the framework loaded one CUDA library from two folders, or runs a cuDNN older than its build",
       rule_deep_library_mix},
      {"framework.printed-problem", Severity::warn,
       "--deep: the framework works on the GPU but printed a known problem", rule_deep_printed_problem},
      {"framework.check-not-run", Severity::warn,
       "--deep: the framework could not be checked (the interpreter did not start, no empty folder)",
       rule_deep_not_run},
      {"health.pcie-width", Severity::warn, "the GPU's PCIe link runs narrower than it can", rule_pcie_width},
      {"health.pcie-gen", Severity::warn,
       "the PCIe link runs below the GPU's generation (capped by the slot, or low while busy)", rule_pcie_gen},
      {"health.throttling", Severity::warn, "the GPU is slowed by heat or power right now", rule_throttling},
      {"health.memory-in-use", Severity::warn, "most GPU memory is taken by other processes", rule_memory_in_use},
      {"health.persistence-off", Severity::info, "persistence mode off on a Linux data-center GPU",
       rule_persistence_off},
      {"health.ecc-uncorrected", Severity::warn, "uncorrectable ECC memory errors since the driver loaded",
       rule_ecc_uncorrected},
      {"health.reset-pending", Severity::warn, "a page retirement or row remap waits for a GPU reset",
       rule_reset_pending},
      {"health.memory-needs-service", Severity::error, "a row remap failed or page retirement reached its limit",
       rule_memory_needs_service},
      {"measured.data-corrupt", Severity::error,
       "gpuready verify: a copy, matrix product, convolution or memory test returned wrong data",
       rule_measured_data_corrupt},
      {"measured.copy-slow", Severity::warn,
       "gpuready verify: host<->device copies far below the PCIe link's rate (with the likely cause)",
       rule_measured_copy_slow},
      {"measured.gemm-slow", Severity::warn,
       "gpuready verify: matrix products far below the GPU's datasheet peak (with what held the clocks back)",
       rule_measured_gemm_slow},
      {"measured.throttled", Severity::warn,
       "gpuready verify: thermal or hardware slowdown held the clocks back while a check ran", rule_measured_throttled},
      {"measured.power-capped", Severity::info,
       "gpuready verify: the GPU ran at its power limit during a check (normal at full load; a lowered limit costs "
       "speed)",
       rule_measured_power_capped},
      {"security.search-path-cwd", Severity::warn,
       "an empty, \".\" or relative entry in LD_LIBRARY_PATH, PATH, PYTHONPATH or LD_PRELOAD (the current folder)",
       rule_search_path_cwd},
      {"security.writable-library", Severity::warn,
       "a GPU library, its folder, or a search-path folder that any user may write", rule_writable_library},
      {"security.container-toolkit", Severity::warn,
       "the NVIDIA Container Toolkit is older than 1.17.8 (CVE-2025-23266: container escape to root)",
       rule_container_toolkit_cve},
  };
  return rules;
}

bool is_deep_rule(const std::string& code) {
  static const std::vector<std::string> codes = {
      "framework.import-failed", "framework.crashed",         "framework.check-timeout",
      "framework.sees-no-gpu",   "framework.gpu-op-failed",   "framework.gpu-wrong-result",
      "framework.library-mix",   "framework.printed-problem", "framework.check-not-run"};
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// ---- the runner -----------------------------------------------------------------------------

std::string check_summary(const FrameworkCheck& k) {
  std::vector<std::string> parts;
  if (k.import_seconds.has()) parts.push_back(fmt::format("imported in {:.1f} s", k.import_seconds.value()));
  if (k.status == "ready" || (!k.devices.empty() && k.status != "no-gpu")) {
    std::string gpus;
    for (const auto& d : k.devices)
      gpus += fmt::format("{}{} (sm {})", gpus.empty() ? "" : ", ", d.name,
                          d.compute_capability.has() ? d.compute_capability.value() : "?");
    parts.push_back(fmt::format("sees {} GPU{}: {}", k.devices.size(), k.devices.size() == 1 ? "" : "s", gpus));
  }
  if (k.status == "ready") {
    std::string ops;
    for (const auto& op : k.ops) ops += (ops.empty() ? "" : " and ") + op.name;
    parts.push_back(ops + " on the GPU give the CPU's results");
    std::string libs;
    for (const auto& l : k.libraries)
      if ((l.library == "cudnn" || l.library == "cublas" || l.library == "cudart") && l.version.has())
        libs += fmt::format("{}{} {}", libs.empty() ? "" : ", ", l.library, l.version.value());
    if (!libs.empty()) parts.push_back("loaded " + libs);
  } else if (k.status == "no-gpu") {
    parts.push_back("sees no GPU");
  } else if (!k.error.empty()) {
    parts.push_back(k.error);
  } else {
    parts.push_back(k.status);
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

namespace {

CudaVersions cuda_versions(const Snapshot& s) {
  CudaVersions v;
  v.driver_newest = s.nvidia.cuda_driver_version.has() ? s.nvidia.cuda_driver_version.value() : "";
  for (const auto& t : s.toolkits) {
    if (!t.version.has() && t.version.why().find("is not a folder") != std::string::npos) {
      std::string by;
      for (const auto& b : t.found_by) by += (by.empty() ? "" : ", ") + b;
      v.toolkits.push_back("none at " + t.root + " (named by " + by + ")");
      continue;
    }
    std::string line = (t.version.has() ? t.version.value() : "?") + " (" + t.root;
    if (t.is_path_nvcc) line += ", PATH nvcc";
    v.toolkits.push_back(line + ")");
  }
  for (const auto& f : installed_frameworks(s)) {
    std::string cuda;
    if (const auto b = build_cuda(f)) {
      cuda = b->value;
      if (b->value == "none") cuda = "none (CPU-only build)";
      if (b->plugin) cuda = b->value + ".x (" + b->plugin->name + ")";
    }
    v.frameworks.push_back(fmt::format("{} {}: CUDA {} [{}]", f.package->name, f.package->version,
                                       cuda.empty() ? std::string("?") : cuda, f.env->interpreter));
  }
  return v;
}

int rank(Severity s) { return s == Severity::error ? 0 : s == Severity::warn ? 1 : 2; }

}  // namespace

Report diagnose(const Snapshot& s, const knowledge::Compat& k, const Options& o) {
  Report r;
  r.os = target_os(s);
  const Context c{s, k, r.os, installed_frameworks(s)};
  for (const auto& rule : all_rules())
    for (auto f : rule.run(c)) {
      f.code = rule.code;
      f.severity = rule.severity;
      r.findings.push_back(std::move(f));
    }
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Finding& a, const Finding& b) { return rank(a.severity) < rank(b.severity); });
  r.cuda = cuda_versions(s);

  // Verdicts: every framework installed, and each one asked for.
  auto blocking = [&](const std::string& fw, const std::string& python) {
    std::vector<std::string> codes;
    for (const auto& f : r.findings) {
      if (f.severity != Severity::error) continue;
      const bool fw_match = f.frameworks.empty() || std::find(f.frameworks.begin(), f.frameworks.end(), fw) != f.frameworks.end();
      const bool py_match = f.python.empty() || f.python == python;
      if (fw_match && py_match && std::find(codes.begin(), codes.end(), f.code) == codes.end()) codes.push_back(f.code);
    }
    return codes;
  };
  for (const auto& f : c.frameworks) {
    FrameworkVerdict v;
    v.name = f.framework;
    v.version = f.package->version;
    v.python = f.env->interpreter;
    v.blocking = blocking(f.framework, f.env->interpreter);
    v.ready = v.blocking.empty();
    for (const auto& check : s.frameworks)
      if (check.framework == f.framework && check.python == f.env->interpreter) {
        v.check_status = check.status;
        v.check_summary = check_summary(check);
      }
    r.frameworks.push_back(std::move(v));
  }
  for (const auto& want : o.frameworks) {
    if (std::any_of(r.frameworks.begin(), r.frameworks.end(), [&](const auto& v) { return v.name == want; })) continue;
    FrameworkVerdict v;
    v.name = want;
    v.blocking = blocking(want, "");
    v.blocking.insert(v.blocking.begin(), "framework.not-installed");
    r.frameworks.push_back(std::move(v));
    // Asked for and absent: the first thing to do is to install it, as the plan says.
    Finding f;
    f.code = "framework.not-installed";
    f.severity = Severity::error;
    f.title = fmt::format("{} was asked for, but no Python environment gpuready found has it installed", want);
    for (const auto& env : s.python)
      f.evidence.push_back(fmt::format("searched {} (Python {})", env.interpreter, env_version(env)));
    if (f.evidence.empty()) f.evidence.push_back("no Python environment found (PATH, conda, virtual environments)");
    f.fix = {
        fmt::format("gpuready plan --framework {}   # the newest {} for this machine, with the exact install steps",
                    want, want),
        fmt::format("gpuready doctor --framework {} --python <path to its python>   # if it lives in an environment "
                    "gpuready did not find",
                    want)};
    f.frameworks = {want};
    const auto at = std::find_if(r.findings.begin(), r.findings.end(),
                                 [](const Finding& x) { return x.severity != Severity::error; });
    r.findings.insert(at, std::move(f));
  }
  const bool machine_ok = std::none_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return f.severity == Severity::error && f.frameworks.empty() && f.python.empty();
  });
  r.ready = machine_ok && std::all_of(r.frameworks.begin(), r.frameworks.end(), [](const auto& v) { return v.ready; });
  return r;
}

nlohmann::json report_to_json(const Report& r) {
  nlohmann::json j;
  j["schema"] = kDoctorSchema;
  j["ready"] = r.ready;
  j["os"] = r.os;
  j["frameworks"] = nlohmann::json::array();
  for (const auto& v : r.frameworks)
    j["frameworks"].push_back(
        {{"name", v.name},
         {"version", v.version},
         {"python", v.python},
         {"ready", v.ready},
         {"blocking", v.blocking},
         {"check", v.check_status.empty() ? nlohmann::json(nullptr)
                                          : nlohmann::json{{"status", v.check_status}, {"summary", v.check_summary}}}});
  j["findings"] = nlohmann::json::array();
  for (const auto& f : r.findings)
    j["findings"].push_back({{"code", f.code},
                             {"severity", severity_name(f.severity)},
                             {"title", f.title},
                             {"evidence", f.evidence},
                             {"fix", f.fix},
                             {"frameworks", f.frameworks},
                             {"python", f.python}});
  j["cuda_versions"] = {{"driver_newest", r.cuda.driver_newest},
                        {"toolkits", r.cuda.toolkits},
                        {"frameworks", r.cuda.frameworks}};
  return j;
}

}  // namespace gpuready::doctor
