// Rules about the CUDA libraries a framework loads by name at run time (TensorFlow's
// dso_loader: "Could not load dynamic library 'cudart64_110.dll'"): each name it will ask for,
// whether the loader finds it, and if not whether a copy sits in a folder the loader does not
// search (the walkthrough's missing DLL) or is not installed at all. And cuDNN wheels older
// than the framework was built with ("Loaded runtime CuDNN library: 9.1.0 but source was
// compiled with: 9.3.0").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

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
    // CUDA 11.0 still shipped cuSOLVER 10 (cusolver64_10.dll, libcusolver.so.10), the name TensorFlow 2.4
    // asks for; cuSOLVER 11 came with CUDA 11.1 (data/library_names.csv, tensorflow#43947).
    const bool cusolver10 = std::string_view(lib) == "cusolver" && cuda.major() == 11 && cuda.minor() == 0;
    const auto* row = c.k.library(lib, cusolver10 ? 10 : cuda.major());
    if (!row) continue;
    const auto& names = win ? row->windows_dlls : row->linux_sonames;
    if (names.empty()) continue;
    // CUDA 10.x named the runtime per minor (libcudart.so.10.1, cudart64_101.dll), and 10.0 every
    // library so (cublas64_100.dll): the name of this minor where the row has one, else the general
    // name (the row's last: cublas64_10.dll from 10.1 on).
    std::string pick = names.back();
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
  for (const auto& f : c.frameworks) {
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
      x.fix = loader_path_fix(c, dir, f.env);
      x.frameworks = {"tensorflow"};
      x.python = f.env->interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

// Windows: the DLLs a TensorFlow loads by name that only PATH provides, in a Python >= 3.8 environment.
// Python 3.8 stopped searching PATH for the DLLs of extension modules and for ctypes.CDLL(name):
// the application folder, System32 and os.add_dll_directory() folders are searched instead. TensorFlow's
// own loader (LoadLibrary) still follows PATH, so this works until an import or a check that goes
// through Python's rules asks for one: "Could not load dynamic library" with the DLL on PATH.
std::vector<Finding> rule_library_path_only(const Context& c) {
  std::vector<Finding> out;
  if (c.os != "windows") return out;
  for (const auto& tf : system_tensorflows(c)) {
    const auto py = tf.f.env->version.has() ? Version::parse(tf.f.env->version.value()) : std::nullopt;
    if (!py || *py < Version::of({3, 8})) continue;
    std::vector<std::string> names;
    std::vector<std::string> evidence;
    std::vector<std::string> dirs;
    for (const auto& need : tf.names) {
      const auto* r = resolution_of(c.s, need.name);
      if (!r || !r->path.has() || r->via != "PATH") continue;
      names.push_back(need.name);
      evidence.push_back(
          fmt::format("{} -> {} (PATH; not in System32 or the interpreter's folder)", need.name, r->path.value()));
      const std::string dir = path_folder(r->path.value());
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
    if (names.empty()) continue;
    std::string list;
    for (size_t i = 0; i < names.size() && i < 3; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > 3) list += fmt::format(" and {} more", names.size() - 3);
    Finding x;
    x.title = fmt::format(
        "{} {} in Python {} finds {} only through PATH: TensorFlow's own loader searches PATH, Python >= 3.8's DLL "
        "rules do not",
        tf.f.package->name, tf.f.package->version, tf.f.env->version.value(), list);
    x.evidence = evidence;
    x.evidence.push_back(
        "Python >= 3.8 loads extension modules and ctypes.CDLL(name) with the application folder, System32 and "
        "os.add_dll_directory() folders only (PATH is ignored); Python 3.7 and older searched PATH");
    x.fix.push_back(
        "# if importing TensorFlow says \"Could not load dynamic library\" for a DLL that is on PATH, add before  "
        "import tensorflow:");
    for (const auto& d : dirs) x.fix.push_back(fmt::format("import os; os.add_dll_directory(r\"{}\")", d));
    x.frameworks = {"tensorflow"};
    x.python = tf.f.env->interpreter;
    out.push_back(std::move(x));
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
  for (const auto& f : c.frameworks) {
    std::optional<Version> built;
    std::string cuda_major;  // JAX: the CUDA major of its plugin; only that major's cuDNN wheel counts
    if (f.framework == "tensorflow") {
      if (auto it = f.package->details.find("cudnn_version"); it != f.package->details.end())
        built = Version::parse(it->second);
    } else if (f.framework == "jax") {
      for (const auto& p : f.env->packages)
        if (p.name.rfind("jax-cuda", 0) == 0 && p.name.find("plugin") != std::string::npos)
          if (auto it = p.details.find("cuda_major"); it != p.details.end()) cuda_major = it->second;
      if (auto v = Version::parse(f.package->version); v && !cuda_major.empty())
        for (const auto& r : c.k.jax)
          if (r.version == *v && r.cudnn_min && std::to_string(r.cuda_major) == cuda_major) built = r.cudnn_min;
    }
    if (!built || built->parts.size() < 2) continue;  // a major alone says nothing about minors
    for (const auto& p : f.env->packages) {
      if (p.name.rfind("nvidia-cudnn", 0) != 0) continue;
      if (!cuda_major.empty()) {
        const auto it = p.details.find("cuda_major");
        if (it == p.details.end() || it->second != cuda_major) continue;
      }
      const auto have = Version::parse(p.version);
      if (!have || have->major() != built->major() || have->major_minor() >= built->major_minor()) continue;
      Finding x;
      x.title = fmt::format("{} {} needs cuDNN >= {}.{}, but {} {} is installed: \"Loaded runtime CuDNN library: {} but "
                            "source was compiled with: {}\"",
                            f.package->name, f.package->version, built->major(), built->minor(), p.name, p.version,
                            p.version, built->str());
      x.evidence = {fmt::format("{}: {} {}, {} {}", f.env->interpreter, f.package->name, f.package->version, p.name, p.version)};
      x.fix = {fmt::format("{} -m pip install \"{}>={}.{}\"   # another package may pin it lower: pip check says which",
                           shell_word(c.os, f.env->interpreter), p.name, built->major(), built->minor())};
      x.frameworks = {f.framework};
      x.python = f.env->interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

namespace {

// The cuDNN a TensorFlow needs at least: its build info when that names a minor, else the
// tested-build table's row for its release on this OS (build info often says only "8").
std::optional<Version> tensorflow_cudnn_floor(const Context& c, const SystemTensorflow& tf) {
  if (tf.cudnn && tf.cudnn->parts.size() >= 2) return tf.cudnn;
  const auto v = Version::parse(tf.f.package->version);
  if (!v) return std::nullopt;
  const std::string os = c.os == "windows" ? "windows" : "linux";
  for (const auto& r : c.k.tensorflow)
    if (r.os == os && r.device == "gpu" && r.version.major_minor() == v->major_minor() && r.cudnn &&
        (!tf.cudnn || r.cudnn->major() == tf.cudnn->major()))
      return r.cudnn;
  return std::nullopt;
}

// The frameworks a library copy serves, and the environment: a pip/conda copy serves the
// frameworks of the environment whose site-packages (or prefix) hold it; a system-wide copy
// serves TensorFlow, the framework that loads CUDA from the system.
struct Served {
  std::vector<std::string> frameworks;
  const PythonEnv* env = nullptr;
};
Served served_by(const Context& c, const std::string& path, bool system) {
  Served out;
  if (system) {
    out.frameworks = {"tensorflow"};
    return out;
  }
  for (const auto& env : c.s.python) {
    bool inside = false;
    for (const auto& sp : env.site_packages)
      if (!sp.empty() && path.rfind(sp, 0) == 0) inside = true;
    // A conda environment keeps its CUDA libraries in <prefix>/lib; /usr and /usr/local are the
    // system's prefix, not an environment's.
    const std::string prefix = env.prefix.has() ? env.prefix.value() : "";
    if (!inside && !prefix.empty() && prefix != "/usr" && prefix != "/usr/local" && prefix != "/" &&
        path.rfind(prefix + "/", 0) == 0)
      inside = true;
    if (!inside) continue;
    out.env = &env;
    for (const auto& f : c.frameworks)
      if (f.env == &env && std::find(out.frameworks.begin(), out.frameworks.end(), f.framework) == out.frameworks.end())
        out.frameworks.push_back(f.framework);
    break;
  }
  return out;
}

// The copy that a resolved dependency maps: same soname in the same folder, or the very file.
const LibraryCopy* copy_at(const Snapshot& s, const Dependency& d) {
  if (!d.path.has()) return nullptr;
  const std::string& p = d.path.value();
  const std::string dir = folder_key(path_folder(p));
  for (const auto& cp : s.libraries.copies)
    if (cp.path == p || (cp.soname == d.name && folder_key(path_folder(cp.path)) == dir)) return &cp;
  return nullptr;
}

// The first dependency the loader cannot find, following resolved dependencies through the
// copies the probe read (at most a few levels), with the chain of names that leads to it.
struct Broken {
  std::vector<std::string> chain;  // "libcusolver.so.11", "libcublas.so.12"
  const Dependency* dep = nullptr;
};
std::optional<Broken> first_missing(const Snapshot& s, const std::vector<Dependency>& needs,
                                    std::vector<std::string> chain, std::set<std::string>& seen) {
  for (const auto& d : needs)
    if (!d.path.has()) {
      auto ch = chain;
      if (ch.empty() || ch.back() != d.needed_by) ch.push_back(d.needed_by);
      return Broken{ch, &d};
    }
  if (chain.size() >= 4) return std::nullopt;
  for (const auto& d : needs) {
    const LibraryCopy* next = copy_at(s, d);
    if (!next || !seen.insert(next->path).second) continue;
    auto ch = chain;
    ch.push_back(d.needed_by);
    if (auto b = first_missing(s, next->needs, ch, seen)) return b;
  }
  return std::nullopt;
}

// What to install when a dependency is nowhere on disk.
std::vector<std::string> install_dependency_lines(const Context& c, const std::string& name, const Served& who) {
  if (name.rfind("libz.so", 0) == 0)
    return {"sudo apt-get install zlib1g   # Debian/Ubuntu; Fedora/RHEL: sudo dnf install zlib"};
  static const std::pair<const char*, const char*> kWheels[] = {
      {"libnvJitLink", "nvjitlink"}, {"libcublasLt", "cublas"}, {"libcublas", "cublas"}, {"libcudart", "cuda-runtime"},
      {"libcusparse", "cusparse"},   {"libcufft", "cufft"},     {"libcurand", "curand"}, {"libcusolver", "cusolver"},
      {"libnvrtc", "cuda-nvrtc"},    {"libcudnn", "cudnn"},     {"libnccl", "nccl"}};
  std::string wheel;
  for (const auto& [stem, w] : kWheels)
    if (name.rfind(std::string(stem) + ".so", 0) == 0 || name.rfind(std::string(stem) + "_", 0) == 0) {
      wheel = w;
      break;
    }
  if (who.env && !wheel.empty()) {
    // The wheel for the CUDA major of the environment's framework: CUDA 13 wheels dropped the
    // -cuNN suffix (except cuDNN and NCCL, which keep it).
    std::optional<long> major;
    for (const auto& f : c.frameworks)
      if (f.env == who.env)
        if (const auto b = build_cuda(f))
          if (const auto v = Version::parse(b->value)) major = v->major();
    if (major) {
      const bool suffix = *major < 13 || wheel == "cudnn" || wheel == "nccl";
      return {fmt::format("{} -m pip install nvidia-{}{}", shell_word(c.os, who.env->interpreter), wheel,
                          suffix ? fmt::format("-cu{}", *major) : std::string())};
    }
  }
  return {
      fmt::format("# {} belongs to the CUDA toolkit's libraries: install them (gpuready plan lists the steps) or "
                  "find a copy: ldconfig -p | grep {}",
                  name, name.substr(0, name.find(".so")))};
}

}  // namespace

std::vector<Finding> rule_cudnn_loader_picks_older(const Context& c) {
  std::vector<Finding> out;
  for (const auto& tf : system_tensorflows(c)) {
    const auto need = tensorflow_cudnn_floor(c, tf);
    if (!need || need->parts.size() < 2) continue;
    const std::string name =
        c.os == "windows" ? fmt::format("cudnn64_{}.dll", need->major()) : fmt::format("libcudnn.so.{}", need->major());
    const auto* res = resolution_of(c.s, name);
    const LibraryCopy* picked = res ? picked_copy(c.s, *res) : nullptr;
    if (!picked || !picked->version.has()) continue;
    const auto have = Version::parse(picked->version.value());
    if (!have || have->major() != need->major() || have->major_minor() >= need->major_minor()) continue;
    const LibraryCopy* better = nullptr;
    std::optional<Version> better_v;
    for (const auto& cp : c.s.libraries.copies) {
      if (cp.library != "cudnn" || cp.soname != name || !system_wide(cp) || &cp == picked || !cp.version.has())
        continue;
      const auto v = Version::parse(cp.version.value());
      if (v && v->major_minor() >= need->major_minor() && (!better_v || *v > *better_v)) {
        better = &cp;
        better_v = v;
      }
    }
    Finding x;
    x.title = fmt::format(
        "{} {} needs cuDNN >= {}, but the loader picks cuDNN {}: \"Loaded runtime CuDNN library: {} "
        "but source was compiled with: {}\"",
        tf.f.package->name, tf.f.package->version, need->major_minor().str(), have->str(), have->str(), need->str());
    x.evidence = {fmt::format("{} -> {} (via {}): cuDNN {}", name, res->path.value(), res->via, have->str())};
    if (better) x.evidence.push_back(fmt::format("cuDNN {} is also installed: {}", better_v->str(), better->path));
    if (better) {
      x.fix = loader_path_fix(c, path_folder(better->path), tf.f.env);
      if (c.os != "windows")
        x.fix.push_back(fmt::format("dpkg -S {}   # or remove the old copy: this names its package", picked->path));
    } else {
      x.fix = {
          fmt::format("gpuready plan --framework tensorflow --framework-version {}   # the cuDNN it needs, and "
                      "where its files go",
                      tf.f.package->version)};
    }
    x.frameworks = {"tensorflow"};
    x.python = tf.f.env->interpreter;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> rule_dependency_missing(const Context& c) {
  std::vector<Finding> out;
  std::map<std::string, std::pair<size_t, size_t>> reported;  // missing name + consumer -> (index in out, chain length)
  auto judge = [&](const std::string& what, const std::string& path, const std::vector<Dependency>& needs,
                   bool system) {
    std::set<std::string> seen{path};
    const auto b = first_missing(c.s, needs, {}, seen);
    if (!b) return;
    const Served who = served_by(c, path, system);
    if (!system && who.frameworks.empty()) return;  // a private copy no framework uses
    const std::string key = b->dep->name + "|" + (who.env ? who.env->interpreter : std::string("system"));
    const auto it = reported.find(key);
    if (it != reported.end() && it->second.second >= b->chain.size()) return;  // keep the longest chain
    std::string chain;
    for (const auto& n : b->chain) chain += n + " -> ";
    chain += b->dep->name;
    Finding x;
    if (b->dep->name == "zlibwapi.dll")
      x.title = fmt::format(
          "{} is installed, but it needs zlibwapi.dll, which Windows cannot find: the first convolution fails with "
          "\"Could not locate zlibwapi.dll. Please make sure it is in your library path!\"",
          what);
    else if (c.os == "windows")
      x.title = fmt::format(
          "{} is installed, but it needs {}, which Windows cannot find: loading it fails with \"The specified "
          "module could not be found\" (error 126)",
          what, b->dep->name);
    else
      x.title = fmt::format(
          "{} is installed, but it needs {}, which the loader cannot find: loading it fails with "
          "\"{}: cannot open shared object file\"",
          what, b->dep->name, b->dep->name);
    x.evidence = {"needs: " + chain, b->dep->name + ": " + b->dep->path.why(), "file: " + path};
    // A copy in another folder than the one that needs it (in the same folder, RUNPATH $ORIGIN would find it).
    const LibraryCopy* elsewhere = nullptr;
    const std::string here = folder_key(path_folder(path));
    for (const auto& cp : c.s.libraries.copies)
      if (!elsewhere && (cp.soname == b->dep->name || cp.file_name == b->dep->name) &&
          folder_key(path_folder(cp.path)) != here)
        elsewhere = &cp;
    if (elsewhere) {
      x.evidence.push_back("a copy is on disk: " + elsewhere->path);
      x.fix = loader_path_fix(c, path_folder(elsewhere->path), who.env);
    } else if (b->dep->name == "zlibwapi.dll") {
      // NVIDIA's cuDNN 8.x install guide for Windows: zlib's prebuilt DLL, into a folder on PATH.
      x.fix = {
          "# download zlib123dllx64.zip (NVIDIA's cuDNN install guide links it: http://www.winimage.com/zLibDll/"
          "zlib123dllx64.zip) and unzip it",
          fmt::format("copy dll_x64\\zlibwapi.dll \"{}\"   # beside cuDNN, a folder on PATH", path_folder(path))};
    } else {
      x.fix = install_dependency_lines(c, b->dep->name, who);
    }
    x.frameworks = who.frameworks;
    if (who.env) x.python = who.env->interpreter;
    if (it != reported.end()) {
      out[it->second.first] = std::move(x);
      it->second.second = b->chain.size();
    } else {
      reported[key] = {out.size(), b->chain.size()};
      out.push_back(std::move(x));
    }
  };
  // What the loader gives every program, and the copies inside framework environments.
  for (const auto& r : c.s.libraries.resolutions) {
    const LibraryCopy* cp = picked_copy(c.s, r);
    if (cp && system_wide(*cp))
      judge(cp->file_name + " (" + cp->library + " " + version_or(*cp) + ")", cp->path, cp->needs, true);
  }
  for (const auto& cp : c.s.libraries.copies)
    if (!system_wide(cp))
      judge(cp.file_name + " (" + cp.library + " " + version_or(cp) + ")", cp.path, cp.needs, false);
  for (const auto& set : c.s.libraries.cudnn_sets) {
    bool system = false;
    for (const auto& r : c.s.libraries.resolutions)
      if ((r.soname.rfind("libcudnn", 0) == 0 || r.soname.rfind("cudnn64_", 0) == 0) && r.path.has() &&
          folder_key(path_folder(r.path.value())) == folder_key(set.dir))
        system = true;
    bool in_env = served_by(c, set.dir, false).env != nullptr;
    if (system || in_env)
      judge("cuDNN " + (set.version.has() ? set.version.value() : std::string()) + " in " + set.dir, set.dir + "/",
            set.needs, system && !in_env);
  }
  return out;
}

std::vector<Finding> rule_library_shadowed(const Context& c) {
  std::vector<Finding> out;
  for (const auto& r : c.s.libraries.resolutions) {
    const LibraryCopy* picked = picked_copy(c.s, r);
    if (!picked || !system_wide(*picked) || !picked->version.has()) continue;
    const auto have = Version::parse(picked->version.value());
    if (!have || !full_version(*picked)) continue;  // "12" (from the soname alone) may be 12.0.4.66 itself
    const LibraryCopy* newer = nullptr;
    std::optional<Version> newer_v;
    for (const auto& cp : c.s.libraries.copies) {
      if (&cp == picked || cp.soname != r.soname || !system_wide(cp) || !cp.version.has()) continue;
      const auto v = Version::parse(cp.version.value());
      if (v && *v > *have && (!newer_v || *v > *newer_v)) {
        newer = &cp;
        newer_v = v;
      }
    }
    if (!newer) continue;
    Finding x;
    x.title =
        fmt::format("The loader gives programs {} {} from {}, though {} {} is installed in {}", picked->library,
                    have->str(), path_folder(picked->path), picked->library, newer_v->str(), path_folder(newer->path));
    x.evidence = {fmt::format("{} -> {} (via {})", r.soname, r.path.value(), r.via),
                  fmt::format("newer copy: {} ({})", newer->path, newer->origin)};
    x.fix = loader_path_fix(c, path_folder(newer->path));
    if (c.os != "windows")
      x.fix.push_back(fmt::format("dpkg -S {}   # or remove the old copy: this names its package", picked->path));
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace gpuready::doctor
