#include "doctor/pasted_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "doctor/doctor.h"
#include "parse/python_metadata.h"
#include "parse/torch_version.h"

namespace gpuready::doctor {
namespace {

constexpr const char* kPastedPython = "python";  // the report's interpreter, as the fixes call it

const char* package_of(const std::string& framework) {
  return framework == "pytorch" ? "torch" : framework == "tensorflow" ? "tensorflow" : "jax";
}

// "cu121" -> "12.1", "cu118" -> "11.8", "cu92" -> "9.2"; "" for any other label.
std::string cuda_of_variant(const std::string& label) {
  if (label.size() < 4 || label.compare(0, 2, "cu") != 0) return "";
  const std::string digits = label.substr(2);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return "";
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// The pasted torch as the probe would have read it: its CUDA ("none": CPU-only), or its HIP build, and the variant.
PythonPackage torch_package(const parse::ReportedFramework& f, const std::string& label) {
  PythonPackage p;
  p.name = "torch";
  p.version = f.version;
  p.location = "(the pasted report)";
  if (!f.built_rocm.empty() || label.rfind("rocm", 0) == 0) {
    p.details["hip"] = f.built_rocm.empty() ? label : f.built_rocm;  // not a CPU-only build: a ROCm one
    p.details["variant"] = parse::torch_variant(f.version, std::nullopt, true, false);
  } else if ((f.built_cuda && *f.built_cuda == "none") || label == "cpu") {
    p.details["cuda"] = "none";
    p.details["variant"] = "cpu";
  } else if (f.built_cuda || !cuda_of_variant(label).empty()) {
    p.details["cuda"] = f.built_cuda ? *f.built_cuda : cuda_of_variant(label);
    p.details["variant"] = parse::torch_variant(f.version, p.details["cuda"], false, true);
  }
  return p;
}

// The CUDA TensorFlow's Linux GPU wheels of this release were built with (tensorflow.csv, by major.minor):
// TensorFlow 2.x's Linux wheel is a GPU build, so a pasted "tensorflow 2.15.0" says CUDA 12.2.
std::optional<std::string> tensorflow_linux_cuda(const knowledge::Compat& k, const std::string& version) {
  const auto v = Version::parse(version);
  if (!v || v->major() < 2) return std::nullopt;
  for (const auto& row : k.tensorflow)
    if (row.os == "linux" && row.device == "gpu" && row.cuda && row.version.major() == v->major() &&
        row.version.minor() == v->minor())
      return row.cuda->major_minor().str();
  return std::nullopt;
}

// What each doctor finding a report can raise stands for, in explain's condition words.
const std::map<std::string, std::vector<std::string>>& judged_codes() {
  static const std::map<std::string, std::vector<std::string>> codes = {
      {"cuda.driver-too-old-for-framework", {"driver-too-old"}},
      {"torch.cpu-only", {"cpu-only-build"}},
      {"tensorflow.windows-no-gpu", {"cpu-only-build"}},
      {"framework.no-kernels", {"arch-unsupported"}},
      {"framework.cudnn-no-kernels", {"arch-unsupported"}},
      {"framework.sees-no-gpu", {"no-gpu-visible"}},
  };
  return codes;
}

const parse::ReportedFramework* reported(const parse::EnvReport& r, const std::vector<std::string>& frameworks) {
  for (const auto& f : r.frameworks)
    if (frameworks.empty() || std::find(frameworks.begin(), frameworks.end(), f.framework) != frameworks.end())
      return &f;
  return nullptr;
}

bool has_root(const ExplainMatch& m, const std::string& condition) {
  return std::find(m.root.begin(), m.root.end(), condition) != m.root.end();
}

// A finding on the pasted report as an explain entry: the report's lines and the rule's evidence, the rule's fix.
ExplainMatch match_of(const Finding& f, const std::vector<std::string>& root, const parse::ReportedFramework& fw,
                      const parse::EnvReport& r, const knowledge::Compat& k) {
  ExplainMatch m;
  m.code = "env." + f.code;
  m.title = f.title;
  m.cause = fmt::format("The versions and devices the paste's environment report lists, judged with gpuready's tables "
                        "(the doctor's rule {}, as for this machine).",
                        f.code);
  for (const auto& line : fw.evidence) m.evidence.push_back("your text: " + line);
  for (const auto& line : r.evidence) m.evidence.push_back("your text: " + line);
  for (const auto& e : f.evidence)  // the paste's machine, not this one
    if (e.rfind("gpuready finds", 0) != 0 && e.rfind("location: ", 0) != 0) m.evidence.push_back(e);
  if (fw.framework == "tensorflow" && !fw.built_cuda && r.os_family != "windows" && r.os_family != "macos")
    if (const auto cuda = tensorflow_linux_cuda(k, fw.version))
      m.evidence.push_back(
          fmt::format("decoded: TensorFlow {}'s Linux GPU wheels are built with CUDA {} (tensorflow.csv)", fw.version, *cuda));
  m.fix = f.fix;
  m.root = root;
  // A framework that sees no GPU and whose build the report does not name may be a CPU-only build.
  const bool build_unknown_or_cpu = !fw.built_cuda || *fw.built_cuda == "none";
  if (f.code == "framework.sees-no-gpu" && build_unknown_or_cpu && fw.built_rocm.empty()) {
    m.root.push_back("cpu-only-build");
    if (fw.framework == "pytorch" && !fw.built_cuda)
      m.fix.insert(m.fix.begin(),
                   "python -c \"import torch; print(torch.__version__, torch.version.cuda)\"   # None / +cpu: a CPU-only build");
  }
  m.tier = 3;
  m.line = fw.line;
  return m;
}

}  // namespace

Snapshot snapshot_of_report(const parse::EnvReport& r, const knowledge::Compat& k) {
  Snapshot s;
  if (!r.os_family.empty()) {
    s.os.family = Fact<std::string>::known(r.os_family);
    s.os.wsl = Fact<std::string>::known(r.wsl ? "wsl2" : "none");
  }
  if (!r.os_name.empty()) s.os.name = Fact<std::string>::known(r.os_name);
  if (!r.driver_version.empty()) s.nvidia.driver_version = Fact<std::string>::known(r.driver_version);
  for (const auto& name : r.gpus) {
    NvidiaGpu g;
    g.index = static_cast<int>(s.nvidia.gpus.size());
    g.name = Fact<std::string>::known(name);
    if (const auto cc = k.gpu_cc(name)) {
      g.compute_capability = Fact<std::string>::known(cc->major_minor().str());
      const std::string arch = k.architecture_of(*cc);
      if (!arch.empty()) g.architecture = Fact<std::string>::known(arch);
    }
    s.nvidia.gpus.push_back(std::move(g));
  }
  PythonEnv env;
  env.interpreter = kPastedPython;
  env.found_by = {"the pasted report"};
  if (!r.python_version.empty()) env.version = Fact<std::string>::known(r.python_version);
  for (const auto& f : r.frameworks) {
    const std::string label = parse::local_version_label(f.version);  // "cu121", "cpu", "rocm6.0"
    if (!f.version.empty()) {
      PythonPackage p = f.framework == "pytorch" ? torch_package(f, label)
                                                 : PythonPackage{package_of(f.framework), f.version, "(the pasted report)", {}};
      if (f.framework == "tensorflow" && f.built_cuda && *f.built_cuda != "none")
        p.details["cuda_version"] = *f.built_cuda;  // its build info said
      else if (f.framework == "tensorflow" && !f.built_cuda && r.os_family != "windows" && r.os_family != "macos")
        if (const auto cuda = tensorflow_linux_cuda(k, f.version)) p.details["cuda_version"] = *cuda;
      env.packages.push_back(std::move(p));
    }
    if (!f.sees_gpu) continue;
    FrameworkCheck c;
    c.framework = f.framework;
    c.package = package_of(f.framework);
    c.python = kPastedPython;
    c.status = *f.sees_gpu ? "ready" : "no-gpu";
    c.stage = "devices";
    if (!f.version.empty()) c.version = Fact<std::string>::known(f.version);
    const bool rocm = !f.built_rocm.empty() || label.rfind("rocm", 0) == 0;
    const bool no_cuda = (f.built_cuda && *f.built_cuda == "none") || label == "cpu";
    if (f.built_cuda && *f.built_cuda != "none")
      c.built_cuda = Fact<std::string>::known(*f.built_cuda);
    else if (rocm)
      c.built_cuda = Fact<std::string>::unknown("a ROCm build (ROCm " + (f.built_rocm.empty() ? std::string("?") : f.built_rocm) + ")");
    else if (no_cuda)
      c.built_cuda = Fact<std::string>::unknown("CPU-only build");
    else
      c.built_cuda = Fact<std::string>::unknown("the framework does not say");
    s.frameworks.push_back(std::move(c));
  }
  if (!env.packages.empty() || !s.frameworks.empty()) s.python.push_back(std::move(env));
  return s;
}

std::vector<ExplainMatch> judge_env_report(const parse::EnvReport& r, const knowledge::Compat& k) {
  if (r.empty()) return {};
  const Snapshot s = snapshot_of_report(r, k);
  const Report rep = diagnose(s, k);
  std::vector<ExplainMatch> out;
  for (const auto& f : rep.findings) {
    const auto it = judged_codes().find(f.code);
    if (it == judged_codes().end()) continue;
    const parse::ReportedFramework* fw = reported(r, f.frameworks);
    if (!fw) continue;
    // A framework that lists the GPU runs on this driver (a forward-compatibility package, say).
    if (f.code == "cuda.driver-too-old-for-framework" && fw->sees_gpu && *fw->sees_gpu) continue;
    // No GPU where the report found no NVIDIA GPU and driver, or on a Mac, is that machine as it is; so is an
    // environment printout (the issue templates ask for one) that shows no NVIDIA GPU or driver.
    if (f.code == "framework.sees-no-gpu" &&
        (r.no_nvidia_said || r.os_family == "macos" || (!fw->asked && r.gpus.empty() && r.driver_version.empty())))
      continue;
    out.push_back(match_of(f, it->second, *fw, r, k));
  }
  // "Sees no GPU" is the consequence where the same framework has a finding that says why.
  auto said_why = [&](const ExplainMatch& x) {
    return x.code == "env.framework.sees-no-gpu" &&
           std::any_of(out.begin(), out.end(), [&](const ExplainMatch& y) { return y.code != x.code && y.line == x.line; });
  };
  out.erase(std::remove_if(out.begin(), out.end(), said_why), out.end());
  return out;
}

std::vector<ExplainMatch> explain_paste(const Explainer& e, const knowledge::Compat& k, std::string_view text,
                                        const Snapshot* machine) {
  std::vector<ExplainMatch> m = e.explain(text, machine);
  std::vector<ExplainMatch> env = judge_env_report(parse::read_env_report(text), k);
  if (env.empty()) return m;
  auto root = std::find_if(m.begin(), m.end(), [](const ExplainMatch& x) { return x.root_cause; });
  // "Sees no GPU" adds nothing where a line of the paste already names a failure.
  if (root != m.end())
    env.erase(std::remove_if(env.begin(), env.end(),
                             [](const ExplainMatch& x) { return x.code == "env.framework.sees-no-gpu"; }),
              env.end());
  if (env.empty()) return m;
  // The report names the cause when no line does, or when the lines say only the symptom.
  const bool report_leads = root == m.end() || root->tier == 0 ||
                            (has_root(*root, "no-gpu-visible") && env.front().code != "env.framework.sees-no-gpu");
  if (report_leads) {
    if (root != m.end()) root->root_cause = false;
    env.front().root_cause = true;
    m.insert(m.begin(), std::make_move_iterator(env.begin()), std::make_move_iterator(env.end()));
    return m;
  }
  auto after = std::find_if(m.begin(), m.end(), [](const ExplainMatch& x) { return x.harmless; });
  m.insert(after, std::make_move_iterator(env.begin()), std::make_move_iterator(env.end()));
  return m;
}

}  // namespace gpuready::doctor
