// Rules about the CUDA libraries a framework loads by name at run time (TensorFlow's
// dso_loader: "Could not load dynamic library 'cudart64_110.dll'"): each name it will ask for,
// whether the loader finds it, and if not whether a copy sits in a folder the loader does not
// search (the walkthrough's missing DLL) or is not installed at all. And cuDNN wheels older
// than the framework was built with ("Loaded runtime CuDNN library: 9.1.0 but source was
// compiled with: 9.3.0").
#include <fmt/format.h>

#include <algorithm>

#include "doctor/rules.h"
#include "platform/os.h"

namespace gpuready::doctor {
namespace {

// The libraries TensorFlow opens by name (tensorflow/tsl/platform/default/dso_loader.cc).
constexpr const char* kTensorflowLibraries[] = {"cudart", "cublas", "cublasLt", "cufft", "curand", "cusolver", "cusparse"};

struct Needed {
  std::string library;  // "cudart"
  std::string name;     // "libcudart.so.11.0" / "cudart64_110.dll"
  std::string why;      // "CUDA 11.2 runtime"
};

// The names a TensorFlow built for `cuda` / `cudnn` asks the loader for, on this OS.
std::vector<Needed> tensorflow_names(const Context& c, const Version& cuda, const std::optional<Version>& cudnn) {
  std::vector<Needed> out;
  const bool win = c.os == "windows";
  const std::string digits = fmt::format("{}{}", cuda.major(), cuda.minor());
  const std::string dotted = fmt::format("{}.{}", cuda.major(), cuda.minor());
  for (const char* lib : kTensorflowLibraries) {
    const auto* row = c.k.library(lib, cuda.major());
    if (!row) continue;
    const auto& names = win ? row->windows_dlls : row->linux_sonames;
    if (names.empty()) continue;
    // CUDA 10.x named the runtime per minor (libcudart.so.10.1, cudart64_101.dll).
    std::string pick = names.front();
    for (const auto& n : names)
      if (n.find(win ? digits : dotted) != std::string::npos) pick = n;
    out.push_back({lib, pick, fmt::format("CUDA {} {}", dotted, lib)});
  }
  if (cudnn)
    out.push_back({"cudnn",
                   win ? fmt::format("cudnn64_{}.dll", cudnn->major()) : fmt::format("libcudnn.so.{}", cudnn->major()),
                   fmt::format("cuDNN {}", cudnn->major())});
  return out;
}

bool has_wheel_for(const PythonEnv& env, const std::string& prefix, long major) {
  for (const auto& p : env.packages)
    if (p.name == fmt::format("{}-cu{}", prefix, major) || (p.name == prefix && major >= 13)) return true;
  return false;
}

// A TensorFlow that loads CUDA from the system, not from tensorflow[and-cuda]'s nvidia-*
// wheels (it finds those in its own environment itself): its build and the names it asks for.
struct SystemTensorflow {
  InstalledFramework f;
  std::string cuda;  // as its build info writes it: "11.2"
  std::optional<Version> cudnn;
  std::vector<Needed> names;
};

std::vector<SystemTensorflow> system_tensorflows(const Context& c) {
  std::vector<SystemTensorflow> out;
  for (const auto& f : installed_frameworks(c.s)) {
    if (f.framework != "tensorflow") continue;
    const auto& d = f.package->details;
    const auto cv = d.find("cuda_version");
    if (cv == d.end()) continue;
    const auto cuda = Version::parse(cv->second);
    if (!cuda || has_wheel_for(*f.env, "nvidia-cuda-runtime", cuda->major())) continue;
    std::optional<Version> cudnn;
    if (auto it = d.find("cudnn_version"); it != d.end()) cudnn = Version::parse(it->second);
    out.push_back({f, cv->second, cudnn, tensorflow_names(c, *cuda, cudnn)});
  }
  return out;
}

}  // namespace

std::vector<Finding> rule_library_not_found(const Context& c) {
  std::vector<Finding> out;
  for (const auto& tf : system_tensorflows(c)) {
    const InstalledFramework& f = tf.f;
    for (const auto& need : tf.names) {
      const LoaderResolution* res = nullptr;
      for (const auto& r : c.s.libraries.resolutions)
        if (r.soname == need.name) res = &r;
      if (res && res->path.has()) continue;
      std::vector<const LibraryCopy*> copies;
      for (const auto& cp : c.s.libraries.copies)
        if (cp.soname == need.name || cp.file_name == need.name) copies.push_back(&cp);
      if (copies.empty()) continue;  // not installed anywhere: rule_library_not_installed
      const std::string dir = path_folder(copies.front()->path);
      Finding x;
      x.title = fmt::format("{} needs {} ({}): it is in {}, a folder the loader does not search", f.package->name,
                            need.name, need.why, dir);
      for (const auto* cp : copies) x.evidence.push_back("found: " + cp->path);
      x.evidence.push_back(need.name + ": " + (res ? res->path.why() : std::string("not resolved")));
      if (c.os == "windows") {
        x.fix = {fmt::format("set PATH={};%PATH%   # for this terminal; System settings > Environment Variables to keep it", dir)};
        const auto py = f.env->version.has() ? Version::parse(f.env->version.value()) : std::nullopt;
        if (py && *py >= Version::of({3, 8}))
          x.fix.push_back(fmt::format("# Python {} does not search PATH for extension modules' DLLs: before `import "
                                      "tensorflow`, add  import os; os.add_dll_directory(r\"{}\")",
                                      f.env->version.value(), dir));
      } else {
        x.fix = {fmt::format("echo {} | sudo tee /etc/ld.so.conf.d/gpuready-cuda.conf && sudo ldconfig   # for every "
                             "program",
                             dir),
                 fmt::format("export LD_LIBRARY_PATH={}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}   # or for this shell "
                             "only (add to ~/.bashrc to keep)",
                             dir)};
      }
      x.frameworks = {"tensorflow"};
      x.python = f.env->interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

std::vector<Finding> rule_library_not_installed(const Context& c) {
  std::vector<Finding> out;
  for (const auto& tf : system_tensorflows(c)) {
    const InstalledFramework& f = tf.f;
    const auto& cudnn = tf.cudnn;
    std::vector<std::string> missing;
    std::vector<std::string> evidence;
    for (const auto& need : tf.names) {
      bool found = false;
      for (const auto& r : c.s.libraries.resolutions)
        if (r.soname == need.name && r.path.has()) found = true;
      for (const auto& cp : c.s.libraries.copies)
        if (cp.soname == need.name || cp.file_name == need.name) found = true;
      if (found) continue;
      missing.push_back(need.name);
      // Another major of the same library is the classic confusion (cuDNN 9 installed, 8 asked for):
      // one line per library, naming the other versions and where the first of them is.
      std::vector<std::string> others;
      std::string where;
      for (const auto& cp : c.s.libraries.copies) {
        if (cp.library != need.library) continue;
        const std::string v = cp.version.has() ? cp.version.value() : cp.soname;
        if (std::find(others.begin(), others.end(), v) == others.end()) others.push_back(v);
        if (where.empty()) where = cp.path;
      }
      if (!others.empty()) {
        std::string list;
        for (const auto& o : others) list += (list.empty() ? "" : ", ") + o;
        evidence.push_back(fmt::format("{}: only {} {} is installed (e.g. {}), another major", need.name, need.library,
                                       list, where));
      }
    }
    if (missing.empty()) continue;
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    Finding x;
    x.title = fmt::format("{} {} (built for CUDA {}{}) cannot load {}: not installed", f.package->name,
                          f.package->version, tf.cuda, cudnn ? ", cuDNN " + cudnn->str() : std::string(), list);
    x.evidence = evidence;
    x.evidence.insert(x.evidence.begin(), "no copy of " + list + " on this machine");
    x.fix = {
        fmt::format("gpuready plan --framework tensorflow --framework-version {}   # the CUDA {} and cuDNN steps, "
                    "with where each file goes",
                    f.package->version, tf.cuda)};
    x.frameworks = {"tensorflow"};
    x.python = f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_cudnn_older_than_built(const Context& c) {
  std::vector<Finding> out;
  for (const auto& f : installed_frameworks(c.s)) {
    std::optional<Version> built;
    if (f.framework == "tensorflow") {
      if (auto it = f.package->details.find("cudnn_version"); it != f.package->details.end())
        built = Version::parse(it->second);
    } else if (f.framework == "jax") {
      if (auto v = Version::parse(f.package->version))
        for (const auto& r : c.k.jax)
          if (r.version == *v && r.cudnn_min) built = r.cudnn_min;
    }
    if (!built || built->parts.size() < 2) continue;  // a major alone says nothing about minors
    for (const auto& p : f.env->packages) {
      if (p.name.rfind("nvidia-cudnn", 0) != 0) continue;
      const auto have = Version::parse(p.version);
      if (!have || have->major() != built->major() || have->major_minor() >= built->major_minor()) continue;
      Finding x;
      x.title = fmt::format("{} {} needs cuDNN >= {}.{}, but {} {} is installed: \"Loaded runtime CuDNN library: {} but "
                            "source was compiled with: {}\"",
                            f.package->name, f.package->version, built->major(), built->minor(), p.name, p.version,
                            p.version, built->str());
      x.evidence = {fmt::format("{}: {} {}, {} {}", f.env->interpreter, f.package->name, f.package->version, p.name, p.version)};
      x.fix = {fmt::format("{} -m pip install \"{}>={}.{}\"   # another package may pin it lower: pip check says which",
                           f.env->interpreter, p.name, built->major(), built->minor())};
      x.frameworks = {f.framework};
      x.python = f.env->interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

}  // namespace gpuready::doctor
