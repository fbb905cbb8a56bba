// Rules about the frameworks installed in each Python environment: the wrong build (CPU-only
// torch, two TensorFlow packages, TensorFlow >= 2.11 on native Windows), an unsupported
// Python, a build without kernels for this GPU, a CPU without AVX, NumPy 2 under an older
// TensorFlow. The exact reinstall command comes from the plan for this machine.
#include <fmt/format.h>

#include <set>

#include "doctor/rules.h"
#include "plan/plan.h"

namespace gpuready::doctor {
namespace {

// A table row of the installed release: the same major.minor.patch ("2.7.1+cu118" is 2.7.1).
bool same_release(const Version& row, const Version& installed) {
  return row.major() == installed.major() && row.minor() == installed.minor() && row.patch() == installed.patch();
}

std::optional<Version> gpu_cc(const Snapshot& s) {
  for (const auto& g : s.nvidia.gpus)
    if (g.compute_capability.has()) return Version::parse(g.compute_capability.value());
  return std::nullopt;
}

}  // namespace

std::string shell_word(const std::string& os, const std::string& word) {
  const bool plain = !word.empty() && word.find_first_of(" \t\"'$`&|;<>()*?[]{}!#~%^") == std::string::npos;
  if (os == "windows") return plain || word.find('"') != std::string::npos ? word : "\"" + word + "\"";
  if (plain) return word;
  std::string q = "'";
  for (char ch : word) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::vector<std::string> reinstall_lines(const Context& c, const std::string& framework, const PythonEnv& env) {
  plan::PlanInputs in = plan::inputs_from_snapshot(c.k, c.s, "probe", framework, nullptr);
  in.framework = framework;
  if (env.version.has())
    if (auto v = Version::parse(env.version.value())) in.python = v->major_minor();
  const plan::Plan p = plan::make_plan(c.k, in);
  if (!p.recommended) return {fmt::format("gpuready plan --framework {}   # nothing fits as is: what to change", framework)};
  for (const auto& st : p.steps)
    if (st.kind == plan::StepKind::install_framework) {
      std::vector<std::string> out;
      for (const auto& cmd : st.commands)
        out.push_back(cmd.rfind("python ", 0) == 0 ? shell_word(c.os, env.interpreter) + cmd.substr(6) : cmd);
      return out;
    }
  return {};
}

bool torch_cpu_only_wheel(const PythonPackage& torch) {
  const auto& d = torch.details;
  const auto cuda = d.find("cuda");
  const auto variant = d.find("variant");
  return (cuda != d.end() && cuda->second == "none") || (variant != d.end() && variant->second == "cpu");
}

std::vector<Finding> rule_torch_cpu_only(const Context& c) {
  if (!nvidia_on_bus(c.s) && c.s.nvidia.gpus.empty()) return {};
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    if (f.framework != "pytorch") continue;
    if (!torch_cpu_only_wheel(*f.package)) continue;
    Finding x;
    x.title = fmt::format("torch {} is a CPU-only build: torch.cuda.is_available() is False on this GPU machine",
                          f.package->version);
    x.evidence = {fmt::format("{} (Python {}): torch {}, CUDA: none", f.env->interpreter, env_version(*f.env),
                              f.package->version),
                  "location: " + f.package->location};
    x.fix = {shell_word(c.os, f.env->interpreter) + " -m pip uninstall -y torch torchvision torchaudio"};
    for (auto& l : reinstall_lines(c, "pytorch", *f.env)) x.fix.push_back(l);
    x.frameworks = {"pytorch"};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_tf_both_packages(const Context& c) {
  std::vector<Finding> out;
  for (const auto& env : c.s.python) {
    const PythonPackage* tf = find_package(env, "tensorflow");
    const PythonPackage* gpu = find_package(env, "tensorflow-gpu");
    if (!tf || !gpu) continue;
    Finding x;
    x.title = fmt::format("tensorflow {} and tensorflow-gpu {} are both installed: they overwrite each other's files",
                          tf->version, gpu->version);
    x.evidence = {tf->location, gpu->location};
    x.fix = {shell_word(c.os, env.interpreter) + " -m pip uninstall -y tensorflow tensorflow-gpu"};
    for (auto& l : reinstall_lines(c, "tensorflow", env)) x.fix.push_back(l);
    x.frameworks = {"tensorflow"};
    x.python = env.interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_tf_windows_no_gpu(const Context& c) {
  if (c.os != "windows") return {};
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    if (f.framework != "tensorflow") continue;
    const auto v = Version::parse(f.package->version);
    if (!v || *v < Version::of({2, 11})) continue;
    Finding x;
    x.title = fmt::format("TensorFlow {} has no GPU support on native Windows (the last was 2.10)", f.package->version);
    x.evidence = {fmt::format("{} (Python {}): {} {}", f.env->interpreter, env_version(*f.env), f.package->name,
                              f.package->version)};
    x.fix = {"# use WSL2 (TensorFlow's Linux wheels see the GPU there): gpuready plan --os wsl2 --framework tensorflow",
             "# or TensorFlow 2.10 with Python <= 3.10: gpuready plan --framework tensorflow --framework-version 2.10"};
    x.frameworks = {"tensorflow"};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_python_unsupported(const Context& c) {
  std::vector<Finding> out;
  const std::string rows_os = c.os == "wsl2" ? "linux" : c.os;
  for (const auto& f : c.frameworks) {
    const auto fv = Version::parse(f.package->version);
    const auto pv = f.env->version.has() ? Version::parse(f.env->version.value()) : std::nullopt;
    if (!fv || !pv) continue;
    const Version py = pv->major_minor();
    std::optional<Version> lo, hi;
    auto widen = [&](const Version& a, const Version& b) {
      if (!lo || a < *lo) lo = a;
      if (!hi || b > *hi) hi = b;
    };
    if (f.framework == "tensorflow") {
      for (const auto& r : c.k.tensorflow)
        if (r.version.major_minor() == fv->major_minor() && r.os == rows_os) widen(r.python_min, r.python_max);
    } else if (f.framework == "pytorch") {
      for (const auto& r : c.k.pytorch)
        if (same_release(r.version, *fv))
          widen(r.python_min, r.python_max);
    } else {
      for (const auto& r : c.k.jax)
        if (r.version == *fv) widen(r.python_min, r.python_max);
    }
    if (!lo || (py >= lo->major_minor() && py <= hi->major_minor())) continue;
    Finding x;
    x.title = fmt::format("{} {} supports Python {}-{}, but this environment is Python {}", f.package->name,
                          f.package->version, lo->major_minor().str(), hi->major_minor().str(), py.str());
    x.evidence = {fmt::format("{} (Python {})", f.env->interpreter, env_version(*f.env))};
    x.fix = {fmt::format(
        "# a Python {}-{} environment for {} {}, or the release that supports Python {}:", lo->major_minor().str(),
        hi->major_minor().str(), f.package->name, f.package->version, py.str())};
    for (auto& l : reinstall_lines(c, f.framework, *f.env)) x.fix.push_back(l);
    x.frameworks = {f.framework};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

// A framework release line (major.minor) newer than every release in the tables: nothing about it can
// be checked, and the doctor says so rather than judge it by older releases' facts (freshness.csv).
std::vector<Finding> rule_framework_newer_than_tables(const Context& c) {
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    const auto* fresh = c.k.freshness_of(f.framework);
    const auto fv = Version::parse(f.package->version);  // "2.15.0+cu130": the release part
    if (!fresh || !fv) continue;
    // A patch release of a line the tables know (jax 0.11.2 beside 0.11.0) keeps that line's build matrix;
    // only a newer release line is unknown.
    if (fv->major_minor() <= fresh->newest.major_minor()) continue;
    Finding x;
    x.title = fmt::format("{} {} is newer than every {} release in gpuready's tables (newest {}): its Python, CUDA and GPU "
                          "support are not checked",
                          f.package->name, f.package->version, f.framework, fresh->newest.str());
    x.evidence = {fmt::format("{} (Python {})", f.env->interpreter, env_version(*f.env)),
                  fresh->date.empty() ? std::string("the tables' newest release has no dated source")
                                      : fmt::format("the tables' newest {} release: {} ({} {})", f.framework,
                                                    fresh->newest.str(), fresh->date_kind, fresh->date)};
    x.fix = {"# a newer gpuready (or newer tables: gpuready --data <folder>) knows this release",
             fmt::format("# meanwhile: gpuready doctor --deep checks {} by running it", f.framework)};
    x.frameworks = {f.framework};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

namespace {

// What the installed release's wheels ship (the first row of the tables that has their list), as
// evidence words, and the title that says what happens without kernels. nullopt when the tables
// have no list for this build.
struct Shipped {
  const std::set<int>* sm = nullptr;
  bool ptx = false;
  std::string wheels, title;
};

std::optional<Shipped> shipped_kernels(const Context& c, const InstalledFramework& f, int g) {
  const auto fv = Version::parse(f.package->version);
  if (!fv) return std::nullopt;
  if (f.framework == "tensorflow") {
    // The Linux wheels' own list (tensorflow.csv sm_list): TF 2.17 dropped Maxwell, 2.15 Kepler.
    if (c.os == "windows") return std::nullopt;
    for (const auto& r : c.k.tensorflow)
      if (r.os == "linux" && r.device == "gpu" && !r.sm.empty() && r.version.major_minor() == fv->major_minor())
        return Shipped{&r.sm, r.ptx, fmt::format("TensorFlow {}'s Linux wheels", r.version.major_minor().str()),
                       fmt::format("TensorFlow {} has no kernels for this GPU (sm_{}): it ignores the GPU (\"Ignoring "
                                   "visible gpu device\") or fails with \"no kernel image is available\"",
                                   f.package->version, g)};
  } else if (f.framework == "jax") {
    // The CUDA plugin's own list (jax.csv sm_list, from the .bazelrc of the release): XLA compiles
    // the model for the GPU, but jaxlib's precompiled kernels exist only for these.
    const auto cuda = build_cuda(f);
    const auto major = cuda ? Version::parse(cuda->value) : std::nullopt;
    if (!major || c.os == "windows") return std::nullopt;
    for (const auto& r : c.k.jax)
      if (r.version == *fv && !r.sm.empty() && r.cuda_major == major->major())
        return Shipped{&r.sm, r.ptx, fmt::format("jax {}'s CUDA {} wheels", r.version.str(), r.cuda_major),
                       fmt::format("jax {} (CUDA {} build) has no precompiled kernels for this GPU (sm_{}): \"no kernel "
                                   "image is available\" at the first operation that needs one",
                                   f.package->version, r.cuda_major, g)};
  } else if (f.framework == "pytorch") {
    const auto variant = f.package->details.find("variant");
    if (variant == f.package->details.end()) return std::nullopt;
    for (const auto& r : c.k.pytorch)
      if (r.variant == variant->second && !r.sm.empty() && same_release(r.version, *fv))
        return Shipped{&r.sm, r.ptx, fmt::format("the {} wheels of torch {}", r.variant, r.version.str()),
                       fmt::format("torch {} has no kernels for this GPU (sm_{}): \"no kernel image is available for "
                                   "execution on the device\"",
                                   f.package->version, g)};
  }
  return std::nullopt;
}

bool lacks_kernels(const Context& c, const InstalledFramework& f, int g) {
  const auto shipped = shipped_kernels(c, f, g);
  return shipped && knowledge::kernels_for(*shipped->sm, shipped->ptx, g) == knowledge::KernelMatch::none;
}

// The cuDNN a framework runs with, as far as the snapshot says: the environment's pip cuDNN of the
// framework's CUDA major (PyTorch's Linux wheels, the JAX plugins and tensorflow[and-cuda] load
// nvidia-cudnn-cuNN), else the one a PyTorch wheel bundles (Windows wheels, older Linux ones).
struct UsedCudnn {
  Version version;
  long cuda_major = 0;
  const PythonPackage* pip = nullptr;  // the wheel, when it is one
};

std::optional<UsedCudnn> used_cudnn(const Context& c, const InstalledFramework& f) {
  const auto b = build_cuda(f);
  const auto cuda = b && b->value != "none" ? Version::parse(b->value) : std::nullopt;
  if (!cuda) return std::nullopt;
  const long major = cuda->major();
  if (const PythonPackage* p = find_package(*f.env, fmt::format("nvidia-cudnn-cu{}", major)))
    if (auto v = Version::parse(p->version)) return UsedCudnn{*v, major, p};
  if (f.framework != "pytorch") return std::nullopt;  // TensorFlow and local-CUDA JAX load the system's
  const auto variant = f.package->details.find("variant");
  const auto fv = Version::parse(f.package->version);
  if (variant == f.package->details.end() || !fv) return std::nullopt;
  for (const auto& r : c.k.pytorch)
    if (r.variant == variant->second && !r.cudnn.empty() && same_release(r.version, *fv))
      if (auto v = Version::parse(r.cudnn)) return UsedCudnn{*v, major, nullptr};
  return std::nullopt;
}

}  // namespace

std::vector<Finding> rule_no_kernels_for_gpu(const Context& c) {
  const auto cc = gpu_cc(c.s);
  if (!cc) return {};
  const int g = knowledge::sm_of(*cc);
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    const auto shipped = shipped_kernels(c, f, g);
    if (!shipped || knowledge::kernels_for(*shipped->sm, shipped->ptx, g) != knowledge::KernelMatch::none) continue;
    Finding x;
    x.title = shipped->title;
    x.evidence = {fmt::format("{} ship {}{}", shipped->wheels, knowledge::sm_list_words(*shipped->sm),
                              shipped->ptx ? " + PTX" : ""),
                  fmt::format("GPU compute capability {}", cc->major_minor().str())};
    // The plan for this machine's reinstall, made only when the finding stands.
    if (f.framework == "pytorch")
      x.fix = {shell_word(c.os, f.env->interpreter) + " -m pip uninstall -y torch torchvision torchaudio"};
    for (auto& l : reinstall_lines(c, f.framework, *f.env)) x.fix.push_back(l);
    x.frameworks = {f.framework};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

// cuDNN ships kernels for a range of architectures of its own (8.x: cc >= 3.5; 9.x: >= 5.0; 9.11+:
// >= 7.5), whatever the framework's list says: torch 2.7.1+cu118 (cuDNN 9.1) has none for a K80,
// and pip's newest nvidia-cudnn-cu12 none for a GTX 1080. cudnn.csv's row for the release, or the
// nearest older one (cuDNN drops architectures, never adds them back).
std::vector<Finding> rule_cudnn_no_kernels_for_gpu(const Context& c) {
  const auto cc = gpu_cc(c.s);
  if (!cc) return {};
  const int g = knowledge::sm_of(*cc);
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    if (lacks_kernels(c, f, g)) continue;  // framework.no-kernels says it, with the same reinstall
    const auto used = used_cudnn(c, f);
    if (!used) continue;
    const auto* row = c.k.cudnn_row_for(used->version, used->cuda_major);
    if (!row || g >= row->min_sm) continue;
    // The newest release of this cuDNN line that still has kernels for the GPU, for a pin.
    const knowledge::CudnnRow* last_good = nullptr;
    for (const auto& r : c.k.cudnn)  // newest first
      if (!last_good && r.cuda_major == used->cuda_major && r.cudnn.major() == used->version.major() && g >= r.min_sm)
        last_good = &r;
    const auto* first_bad = last_good ? c.k.cudnn_after(last_good->cudnn, used->cuda_major) : nullptr;
    Finding x;
    x.title = fmt::format("{} {} runs with cuDNN {}, which has no kernels for this GPU (compute capability {}): "
                          "convolutions fail (CUDNN_STATUS_ARCH_MISMATCH / \"no kernel image is available\")",
                          f.package->name, f.package->version, used->version.str(), cc->major_minor().str());
    x.evidence = {used->pip ? fmt::format("{} {} in {}", used->pip->name, used->pip->version, f.env->interpreter)
                            : fmt::format("torch {} bundles cuDNN {}", f.package->version, used->version.str()),
                  fmt::format("cuDNN {} for CUDA {} supports compute capability >= {} (gpuready's cudnn table)",
                              row->cudnn.str(), used->cuda_major, knowledge::cc_of_sm(row->min_sm)),
                  fmt::format("GPU compute capability {}", cc->major_minor().str())};
    const std::string py = shell_word(c.os, f.env->interpreter);
    if (used->pip && f.framework != "pytorch" && first_bad) {
      // JAX and TensorFlow take any cuDNN of their major from a floor: an older release of the line fits.
      x.fix = {fmt::format("{} -m pip install \"{}<{}\"   # the last cuDNN {}.x with kernels for this GPU is {}", py,
                           used->pip->name, first_bad->cudnn.major_minor().str(), used->version.major(),
                           last_good->cudnn.major_minor().str())};
    } else {
      // PyTorch pins its cuDNN exactly: an older torch build is the fix.
      if (f.framework == "pytorch") x.fix = {py + " -m pip uninstall -y torch torchvision torchaudio"};
      for (auto& l : reinstall_lines(c, f.framework, *f.env)) x.fix.push_back(l);
      if (x.fix.empty()) x.fix = {fmt::format("gpuready plan --framework {}   # a build whose cuDNN has kernels for this GPU", f.framework)};
    }
    x.frameworks = {f.framework};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_cpu_no_avx(const Context& c) {
  if (!c.s.cpu.isa.has()) return {};
  const auto& isa = c.s.cpu.isa.value();
  const auto avx = isa.find("avx");
  if (avx == isa.end() || avx->second) return {};
  if (c.s.os.arch.has() && c.s.os.arch.value() != "x86_64" && c.s.os.arch.value() != "AMD64") return {};
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    if (f.framework != "tensorflow") continue;
    Finding x;
    x.title = "This CPU has no AVX: TensorFlow's wheels (since 1.6) stop at import with \"Illegal instruction\"";
    x.evidence = {"CPU: " + (c.s.cpu.model.has() ? c.s.cpu.model.value() : std::string("?")) + " (no avx flag)",
                  fmt::format("{} {} in {}", f.package->name, f.package->version, f.env->interpreter)};
    x.fix = {"# use a TensorFlow built without AVX (e.g. conda-forge's, or built from source), or another machine"};
    x.frameworks = {"tensorflow"};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_tf_numpy_too_new(const Context& c) {
  std::vector<Finding> out;
  for (const auto& f : c.frameworks) {
    if (f.framework != "tensorflow") continue;
    const PythonPackage* np = find_package(*f.env, "numpy");
    const auto tv = Version::parse(f.package->version);
    const auto nv = np ? Version::parse(np->version) : std::nullopt;
    if (!tv || !nv || *tv >= Version::of({2, 18}) || nv->major() < 2) continue;
    Finding x;
    x.title = fmt::format("NumPy {} with TensorFlow {}: TensorFlow before 2.18 was built against NumPy 1.x and fails "
                          "to import (\"A module that was compiled using NumPy 1.x cannot be run in NumPy 2\")",
                          np->version, f.package->version);
    x.evidence = {fmt::format("{}: numpy {}, {} {}", f.env->interpreter, np->version, f.package->name, f.package->version)};
    x.fix = {shell_word(c.os, f.env->interpreter) + " -m pip install \"numpy<2\""};
    x.frameworks = {"tensorflow"};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace gpuready::doctor
