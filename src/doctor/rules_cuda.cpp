// Rules about CUDA versions (driver against toolkits, framework builds and pip CUDA wheels;
// toolkits that disagree) and cuDNN copies.
#include <fmt/format.h>

#include "doctor/rules.h"
#include "platform/os.h"

namespace gpuready::doctor {
namespace {

knowledge::DriverOs driver_os(const Context& c) {
  return c.os == "linux" ? knowledge::DriverOs::linux : knowledge::DriverOs::windows;
}

// "driver 470.82.01 runs CUDA <= 11.4"
std::string reach(const Context& c, const Version& d) {
  const auto n = c.k.newest_cuda(d, driver_os(c));
  return n ? fmt::format("driver {} runs CUDA <= {}", d.str(), n->major_minor().str())
           : fmt::format("driver {} is older than CUDA 8", d.str());
}

// The CUDA a framework package was built for; none for a CPU-only build.
std::optional<Version> framework_cuda(const InstalledFramework& f) {
  const auto b = build_cuda(f);
  if (!b || b->value == "none") return std::nullopt;
  return Version::parse(b->value);
}

// A folder, with /usr/lib and /lib taken as one (merged-/usr distributions: the
// loader cache says /lib/x86_64-linux-gnu where the probe walked /usr/lib/x86_64-linux-gnu).
std::string folder_key(const std::string& dir) {
  if (dir.rfind("/usr/lib", 0) == 0) return dir.substr(4);
  return dir;
}

// The cuDNN folder the loader would use (for libcudnn.so.N / cudnn64_N.dll), if any.
bool loader_uses_dir(const Snapshot& s, const std::string& dir) {
  for (const auto& r : s.libraries.resolutions)
    if ((r.soname.rfind("libcudnn", 0) == 0 || r.soname.rfind("cudnn64", 0) == 0) && r.path.has() &&
        folder_key(path_folder(r.path.value())) == folder_key(dir))
      return true;
  return false;
}

}  // namespace

std::vector<Finding> rule_driver_too_old_for_framework(const Context& c) {
  const auto d = driver_version(c.s);
  if (!d) return {};
  std::vector<Finding> out;
  auto check = [&](const std::string& what, const Version& cuda, const InstalledFramework* f, const PythonEnv& env) {
    const auto need = c.k.required_driver(cuda, driver_os(c));
    if (!need || *d >= *need) return;
    Finding x;
    x.title = fmt::format("{} is built for CUDA {}, which needs driver >= {}; this {}", what, cuda.major_minor().str(),
                          need->str(), reach(c, *d));
    x.evidence = {fmt::format("{} in {} (Python {})", what, env.interpreter, env_version(env)),
                  "driver " + d->str() + (c.s.nvidia.cuda_driver_version.has()
                                               ? " (newest CUDA " + c.s.nvidia.cuda_driver_version.value() + ")"
                                               : std::string())};
    x.fix = {fmt::format("# upgrade the driver to >= {}, or install a build for the CUDA this driver runs:", need->str()),
             fmt::format("gpuready plan --framework {} --driver {}   # the newest build for this driver",
                         f ? f->framework : std::string("pytorch"), d->str())};
    if (f) x.frameworks = {f->framework};
    x.python = env.interpreter;
    out.push_back(std::move(x));
  };
  for (const auto& f : installed_frameworks(c.s))
    if (auto cuda = framework_cuda(f)) check(f.package->name + " " + f.package->version, *cuda, &f, *f.env);
  // pip CUDA runtime wheels (nvidia-cuda-runtime-cu12 12.8.90, nvidia-cuda-runtime 13.0.96).
  for (const auto& env : c.s.python)
    for (const auto& p : env.packages)
      if (p.name.rfind("nvidia-cuda-runtime", 0) == 0)
        if (auto v = Version::parse(p.version)) check(p.name + " " + p.version, *v, nullptr, env);
  return out;
}

std::vector<Finding> rule_driver_too_old_for_toolkit(const Context& c) {
  const auto d = driver_version(c.s);
  if (!d) return {};
  std::vector<Finding> out;
  for (const auto& t : c.s.toolkits) {
    if (!t.version.has()) continue;
    const auto v = Version::parse(t.version.value());
    if (!v) continue;
    const auto need = c.k.required_driver(*v, driver_os(c));
    if (!need || *d >= *need) continue;
    Finding f;
    f.title = fmt::format("CUDA toolkit {} at {} needs driver >= {}; this {}: programs built with it will not run",
                          t.version.value(), t.root, need->str(), reach(c, *d));
    f.evidence = {"toolkit " + t.root + " (version from " + t.version_source + ")", "driver " + d->str()};
    f.fix = {fmt::format("# upgrade the driver to >= {}, or use a toolkit this driver runs", need->str())};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_toolkits_disagree(const Context& c) {
  const Toolkit* path_nvcc = nullptr;
  const Toolkit* named = nullptr;
  std::string variable;
  for (const auto& t : c.s.toolkits) {
    if (t.is_path_nvcc) path_nvcc = &t;
    for (const auto& by : t.found_by)
      if (by == "CUDA_HOME" || by == "CUDA_PATH") {
        named = &t;
        variable = by;
      }
  }
  if (!path_nvcc || !named || path_nvcc->canonical_root == named->canonical_root) return {};
  Finding f;
  f.title = fmt::format("PATH's nvcc is CUDA {} but {} names CUDA {}: builds mix two toolkits",
                        path_nvcc->version.has() ? path_nvcc->version.value() : "?", variable,
                        named->version.has() ? named->version.value() : "?");
  f.evidence = {"nvcc on PATH: " + (path_nvcc->nvcc.has() ? path_nvcc->nvcc.value() : path_nvcc->root),
                variable + ": " + named->root};
  const std::string& root = named->root;
  f.fix = for_os(c, {fmt::format("export PATH={}/bin:$PATH   # or point {} at {}", root, variable, path_nvcc->root)},
                 {fmt::format("set PATH={}\\bin;%PATH%   # or point {} at {}", root, variable, path_nvcc->root)});
  return {f};
}

std::vector<Finding> rule_cudnn_partial(const Context& c) {
  std::vector<Finding> out;
  for (const auto& set : c.s.libraries.cudnn_sets) {
    if (set.missing.empty() || !loader_uses_dir(c.s, set.dir)) continue;
    Finding f;
    std::string missing;
    for (const auto& m : set.missing) missing += (missing.empty() ? "" : ", ") + m;
    f.title = fmt::format("cuDNN {} in {} is incomplete: {} missing", set.version.has() ? set.version.value() : "",
                          set.dir, missing);
    std::string present;
    for (const auto& p : set.present) present += (present.empty() ? "" : ", ") + p;
    f.evidence = {"present: " + (present.empty() ? std::string("only the main library") : present),
                  "missing: " + missing};
    f.fix = for_os(c,
                   {"# copy every library of the cuDNN archive, not only libcudnn.so.*:",
                    fmt::format("sudo cp -P <cuDNN archive>/lib/libcudnn* {}/", set.dir), "sudo ldconfig"},
                   {"# copy every DLL of the cuDNN archive's bin folder, not only cudnn64_*.dll:",
                    fmt::format("copy \"<cuDNN folder>\\bin\\cudnn*.dll\" \"{}\"", set.dir)});
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_cudnn_mixed(const Context& c) {
  std::vector<Finding> out;
  for (const auto& set : c.s.libraries.cudnn_sets) {
    if (set.consistent || !loader_uses_dir(c.s, set.dir)) continue;
    Finding f;
    f.title = "The cuDNN sub-libraries in " + set.dir + " are of different versions";
    for (const auto& [lib, v] : set.versions) f.evidence.push_back(lib + ": " + v);
    f.fix = for_os(c,
                   {"# remove the old copies and copy one cuDNN release's libraries together:",
                    fmt::format("ls -l {}/libcudnn*", set.dir)},
                   {"# remove the old copies and copy one cuDNN release's DLLs together:",
                    fmt::format("dir \"{}\\cudnn*.dll\"", set.dir)});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuready::doctor
