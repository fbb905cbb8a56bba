// Plan inputs from a probed machine's Snapshot.
#include <fmt/format.h>

#include "plan/plan.h"

namespace gpuready::plan {
namespace {

// The framework a Python package name belongs to, "" when none.
bool has_framework(const PythonEnv& env, const std::string& fw) {
  for (const auto& p : env.packages)
    if (framework_of_package(p.name) == fw) return true;
  return false;
}

}  // namespace

PlanInputs inputs_from_snapshot(const knowledge::Compat& k, const Snapshot& s, const std::string& label,
                                const std::optional<std::string>& framework, std::vector<std::string>* notes) {
  PlanInputs in;
  auto note = [&](std::string n) {
    if (notes) notes->push_back(std::move(n));
  };
  auto set = [&](const char* field) { in.source[field] = label; };

  if (s.os.family.has()) {
    const std::string& fam = s.os.family.value();
    if (fam == "windows" || fam == "macos") {
      in.os = fam;
    } else if (fam == "linux") {
      const std::string wsl = s.os.wsl.has() ? s.os.wsl.value() : "none";
      in.os = (wsl == "wsl2" || wsl == "wsl1") ? "wsl2" : "linux";
      if (wsl == "wsl1")
        note("this is WSL1, which has no GPU access: convert the distribution with `wsl --set-version <distro> 2` "
             "(planned for WSL2's rules)");
    }
    if (in.os) set("os");
  }

  // The GPU: NVML's first, else the first NVIDIA device on the PCI bus looked up by id.
  if (!s.nvidia.gpus.empty()) {
    const NvidiaGpu& g = s.nvidia.gpus.front();
    if (g.name.has()) {
      in.gpu = g.name.value();
      set("gpu");
    }
    if (g.compute_capability.has())
      if (auto cc = Version::parse(g.compute_capability.value())) {
        in.cc = cc;
        set("cc");
      }
    if (!in.cc && in.gpu)
      if (const auto* row = k.gpu_by_name(*in.gpu)) {
        in.cc = row->cc;
        set("cc");
      }
    if (s.nvidia.gpus.size() > 1) note(fmt::format("{} NVIDIA GPUs: planned for the first", s.nvidia.gpus.size()));
  } else {
    for (const auto& p : s.pci_gpus) {
      if (p.vendor != "nvidia") continue;
      if (const auto* row = k.gpu_by_pci_id(p.device_id)) {
        in.gpu = row->name;
        in.cc = row->cc;
        set("gpu");
        set("cc");
      } else {
        note(fmt::format("NVIDIA GPU {:04x} at {} is not in gpuready's GPU table: give --gpu or --cc", p.device_id,
                         p.address));
      }
      break;
    }
    bool nvidia_on_bus = false;
    for (const auto& p : s.pci_gpus) nvidia_on_bus = nvidia_on_bus || p.vendor == "nvidia";
    in.no_nvidia_gpu = !nvidia_on_bus;
  }

  if (s.nvidia.driver_version.has())
    if (auto d = Version::parse(s.nvidia.driver_version.value())) {
      in.driver = d;
      set("driver");
    }
  for (const auto& t : s.toolkits)
    if (t.version.has())
      if (auto v = Version::parse(t.version.value()); v && (!in.installed_cuda || *v > *in.installed_cuda))
        in.installed_cuda = v;

  // Python: the first environment with the framework asked for, else the first with any
  // framework, else the first with a known version.
  const PythonEnv* env = nullptr;
  for (const auto& e : s.python)
    if (e.version.has() && framework && has_framework(e, *framework)) {
      env = &e;
      break;
    }
  if (!env && !framework)
    for (const auto& e : s.python)
      if (e.version.has() && (has_framework(e, "pytorch") || has_framework(e, "tensorflow") || has_framework(e, "jax"))) {
        env = &e;
        break;
      }
  if (!env)
    for (const auto& e : s.python)
      if (e.version.has()) {
        env = &e;
        break;
      }
  // An installed framework release newer than the tables: what the plan says about it is not checked.
  for (const auto& e : s.python)
    for (const auto& p : e.packages) {
      const std::string fw = framework_of_package(p.name);
      const auto* fresh = fw.empty() ? nullptr : k.freshness_of(fw);
      const auto v = fresh ? Version::parse(p.version) : std::nullopt;
      if (v && v->major_minor() > fresh->newest.major_minor())
        note(fmt::format("{} {} in {} is newer than every {} release in gpuready's tables (newest {}): its builds, "
                         "Python and GPU support are not checked",
                         p.name, p.version, e.interpreter, fw, fresh->newest.str()));
    }
  if (env) {
    if (auto v = Version::parse(env->version.value())) {
      in.python = v->major_minor();
      set("python");
      note(fmt::format("Python from {} ({})", env->interpreter, env->version.value()));
    }
    if (!framework)
      for (const char* fw : kFrameworks)
        if (has_framework(*env, fw)) {
          in.framework = fw;
          set("framework");
          break;
        }
  }
  return in;
}

}  // namespace gpuready::plan
