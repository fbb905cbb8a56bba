// Rules about CUDA versions: the driver against toolkits, framework builds and pip CUDA wheels;
// toolkits that disagree with each other or with what the loader gives programs.
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

// A GPU of this machine whose last driver branch is older than `need`: no driver upgrade reaches
// that floor for it (Kepler stops at R470; gpu_driver_branches.csv), so the fix is a build for an
// older CUDA. nullptr when every GPU can take such a driver.
struct Ceiling {
  const knowledge::DriverBranchRow* row = nullptr;
  std::string gpu;                    // "Tesla K80"
  std::optional<Version> newest_cuda;  // what the last branch runs: 11.4 for R470
};
std::optional<Ceiling> ceiling_below(const Context& c, const Version& need) {
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.compute_capability.has()) continue;
    const auto cc = Version::parse(g.compute_capability.value());
    const auto* row = cc ? c.k.gpu_driver_ceiling(*cc) : nullptr;
    if (!row || need.major() <= row->last_branch) continue;
    // The branch's newest release runs what its first one does and more: any x.y.z of R470 stands for it.
    return Ceiling{row, g.name.has() ? g.name.value() : "this GPU",
                   c.k.newest_cuda(Version::of({row->last_branch, 9999, 99}), driver_os(c))};
  }
  return std::nullopt;
}

// The first driver that knows this machine's newest GPU, when it is above `need`: a fix never names a
// floor below what the GPU itself needs (an RTX 50 needs R570 whatever the build's CUDA asks).
std::optional<knowledge::GpuDriverFloor> gpu_floor_above(const Context& c, const Version& need) {
  std::optional<knowledge::GpuDriverFloor> out;
  for (const auto& g : c.s.nvidia.gpus) {
    if (!g.compute_capability.has()) continue;
    const auto cc = Version::parse(g.compute_capability.value());
    const auto f = cc ? c.k.gpu_driver_floor(*cc, driver_os(c)) : std::nullopt;
    if (f && f->driver > need && (!out || f->driver > out->driver)) out = f;
  }
  return out;
}

std::string ceiling_words(const Ceiling& t) {
  return fmt::format("the {} ({}) is supported only up to the R{} drivers{}", t.gpu, t.row->architecture,
                     t.row->last_branch,
                     t.newest_cuda ? fmt::format(", which run CUDA <= {}", t.newest_cuda->major_minor().str()) : "");
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
    const auto gpu_floor = gpu_floor_above(c, *need);
    x.fix = {gpu_floor ? fmt::format("# upgrade the driver to >= {} (this GPU's first driver branch, R{}), or install a "
                                     "build for the CUDA this driver runs:",
                                     gpu_floor->driver.str(), gpu_floor->branch())
                       : fmt::format("# upgrade the driver to >= {}, or install a build for the CUDA this driver runs:",
                                     need->str()),
             fmt::format("gpuready plan --framework {} --driver {}   # the newest build for this driver",
                         f ? f->framework : std::string("pytorch"), d->str())};
    if (const auto top = ceiling_below(c, *need)) {
      // Never an upgrade the GPU cannot take: only an older build helps.
      x.title = fmt::format("{} is built for CUDA {}, which needs driver >= {}; {}", what, cuda.major_minor().str(),
                            need->str(), ceiling_words(*top));
      x.fix = {fmt::format("# no driver upgrade helps this GPU: install a build for CUDA <= {}",
                           top->newest_cuda ? top->newest_cuda->major_minor().str() : std::string("its last driver runs")),
               fmt::format("gpuready plan --framework {} --driver {}   # the newest build for this driver and GPU",
                           f ? f->framework : std::string("pytorch"), d->str())};
    }
    if (f) x.frameworks = {f->framework};
    x.python = env.interpreter;
    out.push_back(std::move(x));
  };
  for (const auto& f : c.frameworks)
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
    const auto gpu_floor = gpu_floor_above(c, *need);
    f.fix = {fmt::format("# upgrade the driver to >= {}, or use a toolkit this driver runs",
                         gpu_floor ? gpu_floor->driver.str() : need->str())};
    if (const auto top = ceiling_below(c, *need)) {
      f.title = fmt::format("CUDA toolkit {} at {} needs driver >= {}; {}: programs built with it will not run",
                            t.version.value(), t.root, need->str(), ceiling_words(*top));
      f.fix = {fmt::format("# no driver upgrade helps this GPU: use a CUDA toolkit <= {} for it",
                           top->newest_cuda ? top->newest_cuda->major_minor().str() : std::string("its last driver runs"))};
    }
    out.push_back(std::move(f));
  }
  return out;
}

// A CUDA toolkit, CUDA wheel or driver newer than anything in gpuready's tables: what it needs or
// runs is not known here, and the doctor says so rather than judge it by older releases' facts.
std::vector<Finding> rule_cuda_newer_than_tables(const Context& c) {
  const auto [newest_cuda, newest_driver] = c.k.driver_table_reach();
  if (newest_cuda == Version()) return {};
  const auto* fresh = c.k.freshness_of("cuda");
  const std::string tables =
      fmt::format("gpuready's newest CUDA: {}{}", newest_cuda.major_minor().str(),
                  fresh && !fresh->date.empty() ? fmt::format(" (tables {} {})", fresh->date_kind, fresh->date) : "");
  std::vector<Finding> out;
  auto newer = [&](const std::string& what, const std::string& where) {
    Finding x;
    x.title = fmt::format("{} is newer than every CUDA in gpuready's tables: the driver it needs is not checked", what);
    x.evidence = {where, tables};
    x.fix = {"# NVIDIA's release notes for it give its minimum driver; a newer gpuready (or gpuready --data <folder>) knows it"};
    out.push_back(std::move(x));
  };
  for (const auto& t : c.s.toolkits)
    if (t.version.has())
      if (const auto v = Version::parse(t.version.value()); v && v->major_minor() > newest_cuda)
        newer("CUDA toolkit " + t.version.value(), "toolkit " + t.root + " (version from " + t.version_source + ")");
  for (const auto& env : c.s.python)
    for (const auto& p : env.packages)
      if (p.name.rfind("nvidia-cuda-runtime", 0) == 0)
        if (const auto v = Version::parse(p.version); v && v->major_minor() > newest_cuda)
          newer(p.name + " " + p.version, p.name + " " + p.version + " in " + env.interpreter);
  if (const auto d = driver_version(c.s); d && newest_driver.major() > 0 && d->major() > newest_driver.major()) {
    Finding x;
    x.title = fmt::format("driver {} is newer than every driver in gpuready's tables: the newest CUDA it runs is not known here",
                          d->str());
    x.evidence = {"driver " + d->str() + (c.s.nvidia.cuda_driver_version.has()
                                              ? " (it says it runs CUDA " + c.s.nvidia.cuda_driver_version.value() + ")"
                                              : std::string()),
                  fmt::format("{}; its driver floor {}", tables, newest_driver.str())};
    x.fix = {"# nothing to do for what the tables know (it runs CUDA <= " + newest_cuda.major_minor().str() +
             "); nvidia-smi's \"CUDA Version\" says the newest it runs"};
    out.push_back(std::move(x));
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
  // A variable naming a folder that is not there is cuda.home-missing's finding.
  if (!named->version.has() && named->version.why().find("is not a folder") != std::string::npos) return {};
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

std::vector<Finding> rule_loader_toolkit_mismatch(const Context& c) {
  const Toolkit* t = nullptr;
  for (const auto& x : c.s.toolkits)
    if (x.is_path_nvcc) t = &x;
  if (!t) return {};
  std::vector<std::string> other, missing;
  for (const auto& cp : c.s.libraries.copies) {
    if (cp.origin != "toolkit" || cp.soname.empty() ||
        (cp.origin_detail != t->root && cp.origin_detail != t->canonical_root))
      continue;
    const auto* r = resolution_of(c.s, cp.soname);
    if (!r) continue;
    if (!r->path.has()) {
      missing.push_back(cp.soname);
      continue;
    }
    const LibraryCopy* picked = picked_copy(c.s, *r);
    if (!picked || picked->path == cp.path || !full_version(*picked) || !full_version(cp) ||
        version_or(*picked, "") == version_or(cp, ""))
      continue;  // a copy known only by its soname's major may be the very same release
    other.push_back(fmt::format("{} -> {} {} ({}, via {}); nvcc's toolkit has {}", cp.soname, picked->library,
                                version_or(*picked), r->path.value(), r->via, version_or(cp)));
  }
  if (other.empty() && missing.empty()) return {};
  const std::string v = t->version.has() ? t->version.value() : "?";
  Finding f;
  f.title = other.empty() ? fmt::format(
                                "nvcc is CUDA {}, but the loader does not search its libraries: programs built with it "
                                "fail with \"cannot open shared object file\"",
                                v)
                          : fmt::format("nvcc is CUDA {}, but the loader gives programs libraries of another CUDA", v);
  f.evidence.push_back("nvcc on PATH: " + (t->nvcc.has() ? t->nvcc.value() : t->root));
  for (const auto& o : other) f.evidence.push_back(o);
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    f.evidence.push_back("not found by the loader: " + list);
  }
  std::string lib;
  for (const auto& cp : c.s.libraries.copies)
    if (cp.origin == "toolkit" && (cp.origin_detail == t->root || cp.origin_detail == t->canonical_root) &&
        !cp.soname.empty() && lib.empty())
      lib = path_folder(cp.path);
  f.fix = loader_path_fix(c, lib.empty() ? t->root + (c.os == "windows" ? "\\bin" : "/lib64") : lib);
  return {f};
}

std::vector<Finding> rule_cuda_home_missing(const Context& c) {
  std::vector<Finding> out;
  for (const auto& t : c.s.toolkits) {
    std::string variable;
    for (const auto& by : t.found_by)
      if (by == "CUDA_HOME" || by == "CUDA_PATH" || by.rfind("CUDA_PATH_V", 0) == 0) variable = by;
    // The probe says so when the folder the variable names is not there.
    if (variable.empty() || t.version.has() || t.version.why().find("is not a folder") == std::string::npos) continue;
    Finding f;
    f.title = fmt::format(
        "{} names {}, which does not exist: builds that use it (nvcc, PyTorch C++/CUDA extensions) "
        "fail",
        variable, t.root);
    f.evidence = {variable + "=" + t.root + ": " + t.version.why()};
    std::string other;
    for (const auto& x : c.s.toolkits)
      if (&x != &t && x.version.has() && other.empty()) other = x.root;
    if (c.os == "windows")
      f.fix = {other.empty() ? fmt::format("setx {} \"\"   # remove it (System settings > Environment Variables), or "
                                           "install the toolkit it names",
                                           variable)
                             : fmt::format("setx {} \"{}\"   # the toolkit that is installed", variable, other)};
    else
      f.fix = {other.empty()
                   ? fmt::format("unset {}   # and remove it from ~/.bashrc, or install the toolkit it names", variable)
                   : fmt::format("export {}={}   # the toolkit that is installed (and in ~/.bashrc)", variable, other)};
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpuready::doctor
