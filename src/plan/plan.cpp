// The plan resolver: candidates from the framework tables, each checked against platform,
// Python, GPU architecture and driver (docs/plan.md "How the plan is chosen"), then the
// newest that passes, the alternatives, merged exclusions and the changes that would help.
#include "plan/plan.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace gpuready::plan {
namespace {

using knowledge::Compat;
using knowledge::DriverOs;

enum class Kind { platform, python, arch, driver };

struct Failure {
  Kind kind;
  std::string why;  // plain words
  std::string fix;  // a change to the machine that removes it ("use WSL2"), "" when none
  std::optional<Version> driver = std::nullopt;  // for a driver upgrade: the driver it names
};

struct Candidate {
  Stack stack;
  Version version;  // framework version
  Version cuda;     // the build's CUDA (for ranking and per-major alternatives)
  std::vector<Failure> failures;
  bool pinned = true;  // matches --framework-version / --cuda
  bool unverified = false;  // a part's support for this GPU lies between two documented releases
  [[nodiscard]] bool viable() const { return failures.empty(); }
  // How exclusions name it: the framework's pip name ("torch", "tensorflow", "jax").
  [[nodiscard]] std::string name() const { return stack.framework == "pytorch" ? "torch" : stack.framework; }
};

// The fields every framework's candidate fills the same way.
Candidate candidate(const std::string& framework, const std::string& package, const Version& version,
                    const std::string& variant, const Version& cuda, const std::string& os) {
  Candidate c;
  c.version = version;
  c.cuda = cuda;
  c.stack.framework = framework;
  c.stack.framework_version = version.str();
  c.stack.package = package;
  c.stack.os = os;
  c.stack.variant = variant;
  c.stack.cuda = cuda.major_minor().str();
  return c;
}

std::string range_text(const Version& lo, const Version& hi) {
  return lo == hi ? lo.major_minor().str() : lo.major_minor().str() + "-" + hi.major_minor().str();
}

DriverOs driver_os(const std::string& os) { return os == "linux" ? DriverOs::linux : DriverOs::windows; }

// Checks every input-dependent constraint but the platform (the caller knows that one).
class Checker {
 public:
  Checker(const Compat& k, const PlanInputs& in, std::string os) : k_(k), in_(in), os_(std::move(os)) {}

  void python(Candidate& c, const Version& lo, const Version& hi) const {
    c.stack.python_range = range_text(lo, hi);
    c.stack.python = in_.python ? in_.python->major_minor().str() : hi.major_minor().str();
    if (!in_.python) return;
    const Version py = in_.python->major_minor();
    if (py < lo.major_minor() || py > hi.major_minor())
      c.failures.push_back({Kind::python, fmt::format("needs Python {} (you have {})", range_text(lo, hi), py.str()),
                            fmt::format("use Python {}", range_text(lo, hi))});
  }

  // `explicit_floor`: a floor the framework itself documents (JAX), else the CUDA rule. With the
  // GPU known, its own limits apply too: a driver older than its architecture does not know it
  // (the first branch, compared by branch: a launch driver of that branch works), and a driver
  // newer than its last branch ignores it (R470 for Kepler, R580 for Maxwell to Volta).
  void driver(Candidate& c, const Version& cuda, std::optional<Version> explicit_floor = std::nullopt) const {
    const DriverOs dos = driver_os(os_);
    std::optional<Version> required = explicit_floor ? explicit_floor : k_.required_driver(cuda, dos);
    const auto gpu_floor = in_.cc ? k_.gpu_driver_floor(*in_.cc, dos) : std::nullopt;
    const bool gpu_sets_floor = gpu_floor && (!required || required->major() < gpu_floor->branch());
    if (gpu_sets_floor) required = gpu_floor->driver;
    c.stack.min_driver = required ? required->str() : "";
    const knowledge::DriverBranchRow* last = in_.cc ? k_.gpu_driver_ceiling(*in_.cc) : nullptr;
    if (last && required && required->major() > last->last_branch) {
      c.failures.push_back({Kind::driver,
                            fmt::format("CUDA {} builds need driver >= {}, but {} GPUs end at the R{} branch", cuda.major_minor().str(),
                                        required->str(), last->architecture, last->last_branch),
                            ""});
      return;
    }
    if (!in_.driver) {
      c.stack.support = "driver unknown";
      return;
    }
    const Version& d = *in_.driver;
    if (last && d.major() > last->last_branch) {
      c.failures.push_back({Kind::driver,
                            fmt::format("driver {} no longer supports {} GPUs (their last branch is R{}): it ignores this GPU",
                                        d.str(), last->architecture, last->last_branch),
                            fmt::format("install the R{} driver branch, the last for {}", last->last_branch, last->architecture)});
      return;
    }
    if (gpu_sets_floor && d.major() < gpu_floor->branch()) {
      c.failures.push_back({Kind::driver,
                            fmt::format("driver {} predates {}: its first driver branch is R{} (CUDA {}'s driver {})", d.str(),
                                        gpu_words(), gpu_floor->branch(), gpu_floor->cuda.major_minor().str(),
                                        gpu_floor->driver.str()),
                            fmt::format("upgrade the driver to >= {}", gpu_floor->driver.str()), gpu_floor->driver});
      return;
    }
    if (!gpu_sets_floor && required && d < *required) {
      c.failures.push_back({Kind::driver,
                            fmt::format("{}; CUDA {} builds need >= {}", driver_reach(d, dos), cuda.major_minor().str(),
                                        required->str()),
                            fmt::format("upgrade the driver to >= {}", required->str()), *required});
      return;
    }
    const auto full = k_.full_floor(cuda, dos);
    c.stack.support = (full && d >= *full) ? "full" : "minor-version compatibility";
    if (c.stack.support != "full")
      c.stack.notes.push_back(fmt::format(
          "driver {} runs CUDA {} through minor-version compatibility (the toolkit's own floor is {}): no PTX JIT "
          "compilation, so a GPU newer than the build's architectures will not work",
          d.str(), cuda.major_minor().str(), full ? full->str() : std::string("not in the tables")));
  }

  // The cuDNN a build bundles or needs against the GPU: cuDNN ships kernels for a range of
  // architectures of its own (9.x: cc >= 5.0; 9.11+: cc >= 7.5), whatever the framework's list.
  void cudnn(Candidate& c, const std::string& cudnn_text, long cuda_major, bool bundled) const {
    if (!in_.cc || cudnn_text.empty()) return;
    const auto v = Version::parse(cudnn_text);
    if (!v) return;
    const int g = knowledge::sm_of(*in_.cc);
    bool exact = false;
    const knowledge::CudnnRow* r = nullptr;
    if (v->parts.size() == 1) {  // "7": any 7.x, so the newest one
      for (const auto& n : k_.cudnn)
        if (!r && n.cuda_major == cuda_major && n.cudnn.major() == v->major()) r = &n;
      exact = r != nullptr;
    } else {
      r = k_.cudnn_row_for(*v, cuda_major, &exact);
    }
    const std::string what = fmt::format("{} cuDNN {}", bundled ? "its bundled" : "the", v->str());
    if (!r) {
      c.stack.notes.push_back(fmt::format("{} (CUDA {}) is not in gpuready's tables: whether it has kernels for {} is not known",
                                          what, cuda_major, gpu_words()));
      return;
    }
    if (g < r->min_sm) {
      c.failures.push_back({Kind::arch,
                            fmt::format("{} has no kernels for {} (cuDNN {} for CUDA {} supports compute capability >= {})",
                                        what, gpu_words(), r->cudnn.str(), cuda_major, knowledge::cc_of_sm(r->min_sm)),
                            ""});
      return;
    }
    if (exact) return;
    // Between two documented releases that disagree about this GPU the answer is not known; when the
    // next one still supports it, so does this one (cuDNN drops architectures, never adds them back).
    if (const auto* n = k_.cudnn_after(*v, cuda_major); n && g < n->min_sm) {
      c.stack.notes.push_back(fmt::format(
          "{}'s architectures are not in gpuready's tables: {} supports {}, {} does not; unverified for this GPU", what,
          r->cudnn.str(), gpu_words(), n->cudnn.str()));
      c.unverified = true;
    }
  }

  // "driver 546.33 supports CUDA <= 12.3 (12.x through minor-version compatibility)"
  [[nodiscard]] std::string driver_reach(const Version& d, DriverOs dos) const {
    const auto newest = k_.newest_cuda(d, dos);
    if (!newest) return fmt::format("driver {} is older than every CUDA in gpuready's tables", d.str());
    std::string s = fmt::format("driver {} supports CUDA <= {}", d.str(), newest->major_minor().str());
    if (newest->major() >= 11) {
      // Minor-version compatibility extends it to the rest of that major.
      const auto cf = k_.compat_floor(newest->major(), dos);
      if (cf && d >= *cf) s += fmt::format(" ({}.x through minor-version compatibility)", newest->major());
    }
    return s;
  }

  [[nodiscard]] bool cc_known() const { return in_.cc.has_value(); }
  [[nodiscard]] const Version& cc() const { return *in_.cc; }
  [[nodiscard]] std::string gpu_words() const {
    const std::string arch = k_.architecture_of(*in_.cc);
    return arch.empty() ? fmt::format("compute capability {}", in_.cc->major_minor().str())
                        : fmt::format("compute capability {} ({})", in_.cc->major_minor().str(), arch);
  }
  [[nodiscard]] const Compat& k() const { return k_; }

 private:
  const Compat& k_;
  const PlanInputs& in_;
  std::string os_;
};

bool pin_matches(const std::optional<std::string>& pin, const Version& v) {
  if (!pin) return true;
  auto p = Version::parse(*pin);
  if (!p) return false;
  for (size_t i = 0; i < p->parts.size(); ++i)
    if ((i < v.parts.size() ? v.parts[i] : 0) != p->parts[i]) return false;
  return true;
}

bool cuda_pin_matches(const std::optional<Version>& pin, const Version& cuda, bool floor_semantics) {
  if (!pin) return true;
  if (pin->parts.size() == 1) return cuda.major() == pin->major();
  if (floor_semantics) return cuda.major() == pin->major() && cuda.major_minor() <= pin->major_minor();
  return cuda.major_minor() == pin->major_minor();
}

// ---- TensorFlow ------------------------------------------------------------------------

std::vector<Candidate> tensorflow_candidates(const Checker& ck, const PlanInputs& in, const std::string& os) {
  const Compat& k = ck.k();
  const std::string rows_os = os == "wsl2" ? "linux" : os;
  std::vector<Candidate> out;
  std::set<std::string> seen;
  for (const auto& any : k.tensorflow) {
    if (any.device != "gpu" || !seen.insert(any.version.str()).second) continue;
    const knowledge::TensorflowRow* row = nullptr;
    for (const auto& r : k.tensorflow)
      if (r.version == any.version && r.os == rows_os && r.device == "gpu") row = &r;
    // A release without a GPU build for this OS is a candidate only where users expect one and
    // need the reason: native Windows from 2.11, macOS after 1.1.
    if (!row && !(os == "windows" && any.version >= Version::of({2, 11})) &&
        !(os == "macos" && any.version > Version::of({1, 1})))
      continue;
    const auto& src = row ? *row : any;
    Candidate c = candidate("tensorflow", src.package, src.version, "", src.cuda.value_or(Version{}), os);
    c.stack.cuda = src.cuda ? src.cuda->str() : "";  // as the table writes it ("9" for the 1.x rows)
    c.stack.cudnn = src.cudnn ? src.cudnn->str() : "";
    c.stack.numpy = src.numpy;
    // Wheels before 2.18 were compiled against NumPy 1.x and fail to import under NumPy 2
    // (TF 2.18 release notes), whatever their metadata allows: bound what it leaves open.
    if (src.version < Version::of({2, 18})) {
      const std::string& n = c.stack.numpy;
      if (n.empty())
        c.stack.numpy = "<2";
      else if (n.find('<') == std::string::npos && n.find("~=") == std::string::npos && n.find("==") == std::string::npos)
        c.stack.numpy += ",<2";
    }
    c.stack.bundles_cuda = row && row->and_cuda;
    c.pinned = pin_matches(in.framework_version, c.version) && cuda_pin_matches(in.cuda, c.cuda, false);
    if (!row) {
      if (os == "windows" && c.version >= Version::of({2, 11}))
        c.failures.push_back({Kind::platform,
                              "TensorFlow >= 2.11 has no GPU support on native Windows: use WSL2, or 2.10 with "
                              "Python <= 3.10",
                              "use WSL2"});
      else
        c.failures.push_back({Kind::platform, "TensorFlow has no CUDA build for macOS after 1.1", ""});
      out.push_back(std::move(c));
      continue;
    }
    ck.python(c, row->python_min, row->python_max);
    if (ck.cc_known() && !row->sm.empty()) {
      // The wheels' own architecture list (their build configuration), not only what CUDA could build.
      const int g = knowledge::sm_of(ck.cc());
      const auto r = knowledge::kernels_for(row->sm, row->ptx, g);
      if (r == knowledge::KernelMatch::none)
        c.failures.push_back({Kind::arch,
                              fmt::format("TensorFlow {}'s wheels have no kernels for {} (they ship {}{})",
                                          c.version.major_minor().str(), ck.gpu_words(), knowledge::sm_list_words(row->sm),
                                          row->ptx ? " and PTX" : ""),
                              ""});
      else if (r == knowledge::KernelMatch::ptx)
        c.stack.notes.push_back(fmt::format(
            "{} runs through the wheel's PTX (JIT compiled at first start, which can take many minutes)", ck.gpu_words()));
    } else if (ck.cc_known() && row->cuda) {
      if (const auto* arch = k.arch_row(*row->cuda)) {
        const int g = knowledge::sm_of(ck.cc());
        if (g < arch->min_sm)
          c.failures.push_back(
              {Kind::arch,
               fmt::format("CUDA {} no longer builds for {}; its oldest is {}", row->cuda->major_minor().str(),
                           ck.gpu_words(), knowledge::cc_of_sm(arch->min_sm)),
               ""});
        else if (g / 10 > arch->max_sm / 10)
          c.stack.notes.push_back(fmt::format(
              "{} is newer than CUDA {} knows (newest {}): TensorFlow runs it only through PTX JIT compilation, "
              "slow at first start and not among TensorFlow's tested configurations",
              ck.gpu_words(), row->cuda->major_minor().str(), knowledge::cc_of_sm(arch->max_sm)));
      }
    }
    if (row->cuda && row->cudnn) ck.cudnn(c, row->cudnn->str(), row->cuda->major(), row->and_cuda);
    if (row->cuda) ck.driver(c, *row->cuda);
    out.push_back(std::move(c));
  }
  return out;
}

// ---- PyTorch ---------------------------------------------------------------------------

std::vector<Candidate> pytorch_candidates(const Checker& ck, const PlanInputs& in, const std::string& os) {
  const Compat& k = ck.k();
  const std::string platform = os == "wsl2" ? "linux" : os;
  std::vector<Candidate> out;
  for (const auto& row : k.pytorch) {
    if (!row.cuda) continue;  // CPU and ROCm wheels are not NVIDIA GPU stacks
    Candidate c = candidate("pytorch", "torch", row.version, row.variant, *row.cuda, os);
    c.stack.cudnn = row.cudnn;
    c.stack.index_url = row.index_url;
    c.stack.torchvision = row.torchvision;
    c.stack.torchaudio = row.torchaudio;
    c.stack.bundles_cuda = true;
    c.pinned = pin_matches(in.framework_version, c.version) && cuda_pin_matches(in.cuda, c.cuda, false);
    if (std::find(row.platforms.begin(), row.platforms.end(), platform) == row.platforms.end()) {
      c.failures.push_back({Kind::platform,
                            os == "macos" ? std::string("PyTorch has no CUDA wheels for macOS")
                                          : fmt::format("no {} wheel for {}", row.variant, platform),
                            ""});
      out.push_back(std::move(c));
      continue;
    }
    ck.python(c, row.python_min, row.python_max);
    if (ck.cc_known()) {
      const int g = knowledge::sm_of(ck.cc());
      if (!row.sm.empty()) {
        const auto r = knowledge::kernels_for(row.sm, row.ptx, g);
        if (r == knowledge::KernelMatch::none)
          c.failures.push_back({Kind::arch,
                                fmt::format("the {} wheels have no kernels for {} (they ship {}{})", row.variant,
                                            ck.gpu_words(), knowledge::sm_list_words(row.sm), row.ptx ? " and PTX" : ""),
                                ""});
        else if (r == knowledge::KernelMatch::ptx)
          c.stack.notes.push_back(fmt::format("{} runs through the wheel's PTX (JIT compiled at first start)",
                                              ck.gpu_words()));
      } else if (const auto* arch = k.arch_row(*row.cuda)) {
        if (knowledge::kernels_for(arch->sm, false, g) == knowledge::KernelMatch::none)
          c.failures.push_back({Kind::arch,
                                fmt::format("CUDA {} cannot build for {} (it builds for {})",
                                            row.cuda->major_minor().str(), ck.gpu_words(), knowledge::sm_list_words(arch->sm)),
                                ""});
        else
          c.stack.notes.push_back(fmt::format(
              "the architectures of this wheel are not in gpuready's tables: inferred from what CUDA {} can build",
              row.cuda->major_minor().str()));
      }
    }
    ck.cudnn(c, row.cudnn, row.cuda->major(), true);
    ck.driver(c, *row.cuda);
    out.push_back(std::move(c));
  }
  return out;
}

// ---- JAX -------------------------------------------------------------------------------

std::vector<Candidate> jax_candidates(const Checker& ck, const PlanInputs& in, const std::string& os) {
  const Compat& k = ck.k();
  std::vector<Candidate> out;
  for (const auto& row : k.jax) {
    if (!row.cuda_min) continue;  // a plugin whose CUDA the tables could not confirm is never offered
    Candidate c = candidate("jax", "jax", row.version, row.pip_extra, *row.cuda_min, os);
    c.stack.cudnn = row.cudnn_min ? row.cudnn_min->str() : "";
    // Before 0.4.26 the CUDA jaxlib wheels lived on Google's page, not on PyPI.
    if (row.version < Version::of({0, 4, 26}))
      c.stack.find_links = "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html";
    // cuda11_cudnn86-style extras (0.4.0-0.4.6) need CUDA and cuDNN installed on the machine.
    c.stack.bundles_cuda = row.pip_extra.find("cudnn") == std::string::npos;
    c.pinned = pin_matches(in.framework_version, c.version) && cuda_pin_matches(in.cuda, c.cuda, true);
    const bool linux_like = os == "linux" || os == "wsl2";
    if (!linux_like) {
      if (os == "windows")
        c.failures.push_back({Kind::platform, "JAX has no CUDA wheels for native Windows: use WSL2", "use WSL2"});
      else
        c.failures.push_back({Kind::platform, "JAX has no CUDA wheels for macOS", ""});
      out.push_back(std::move(c));
      continue;
    }
    ck.python(c, row.python_min, row.python_max);
    if (ck.cc_known()) {
      const int g = knowledge::sm_of(ck.cc());
      const auto* newest = k.newest_arch_row(row.cuda_major);
      if (row.min_sm && g < knowledge::sm_of(*row.min_sm))
        c.failures.push_back({Kind::arch,
                              fmt::format("the {} plugin needs compute capability >= {}; this GPU has {}",
                                          row.pip_extra, row.min_sm->major_minor().str(), ck.gpu_words()),
                              ""});
      else if (!row.sm.empty() && knowledge::kernels_for(row.sm, row.ptx, g) == knowledge::KernelMatch::none)
        // XLA compiles the model's own kernels for the GPU at run time, but jaxlib's precompiled
        // kernels (its custom calls) exist only for the .bazelrc list: "no kernel image" on others.
        c.failures.push_back({Kind::arch,
                              fmt::format("jax {} ({}) ships kernels for {}{}, none of which runs on {}", row.version.str(),
                                          row.pip_extra, knowledge::sm_list_words(row.sm), row.ptx ? " + PTX" : "",
                                          ck.gpu_words()),
                              ""});
      else if (newest && knowledge::kernels_for(newest->sm, false, g) == knowledge::KernelMatch::none)
        c.failures.push_back({Kind::arch,
                              fmt::format("CUDA {} (newest {}) cannot build for {}", row.cuda_major,
                                          newest->cuda.major_minor().str(), ck.gpu_words()),
                              ""});
    }
    // pip resolves the newest cuDNN of the plugin's CUDA major; a GPU it dropped needs a pin.
    if (ck.cc_known() && row.cudnn_min && c.viable() && c.stack.bundles_cuda) {
      ck.cudnn(c, row.cudnn_min->str(), row.cuda_major, true);
      const int g = knowledge::sm_of(ck.cc());
      const knowledge::CudnnRow* first_without = k.cudnn_after(*row.cudnn_min, row.cuda_major);  // the oldest without this GPU
      while (first_without && g >= first_without->min_sm) first_without = k.cudnn_after(first_without->cudnn, row.cuda_major);
      if (c.viable() && first_without)
        c.stack.notes.push_back(fmt::format(
            "pip installs the newest nvidia-cudnn-cu{} (cuDNN {} and later have no kernels for {}): pin "
            "\"nvidia-cudnn-cu{}<{}\" in the same pip command",
            row.cuda_major, first_without->cudnn.str(), ck.gpu_words(), row.cuda_major, first_without->cudnn.str()));
    }
    // A local-CUDA variant (0.4.x cuda11_cudnn86, cuda12-local) runs with the cuDNN the user installs, at
    // least its floor: that release's architectures (or the nearest documented ones) decide.
    if (ck.cc_known() && row.cudnn_min && c.viable() && !c.stack.bundles_cuda)
      ck.cudnn(c, row.cudnn_min->str(), row.cuda_major, false);
    // The JAX docs give a Linux floor; WSL2 runs the Windows driver, so the CUDA rule applies there.
    std::optional<Version> floor;
    if (os == "linux" && row.min_driver_linux) floor = row.min_driver_linux;
    // pip resolves the newest CUDA wheels of the plugin's major (jax[cuda12] >= 0.4.36 pins
    // nvidia-cuda-nvcc-cu12 >= 12.6.85 and is built with 12.9): support is judged against that CUDA.
    Version runtime = *row.cuda_min;
    if (c.stack.bundles_cuda)
      for (const auto& d : k.cuda_driver)  // newest first
        if (d.cuda.major() == row.cuda_major) {
          if (d.cuda > runtime) {
            runtime = d.cuda;
            c.stack.notes.push_back(fmt::format("pip installs the newest CUDA {} wheels (CUDA {} in gpuready's tables), "
                                                "not {}: the driver is judged against them",
                                                row.cuda_major, d.cuda.major_minor().str(), row.cuda_min->major_minor().str()));
          }
          break;
        }
    ck.driver(c, runtime, floor);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Candidate> candidates(const Compat& k, const PlanInputs& in, const std::string& os) {
  const Checker ck(k, in, os);
  const std::string& fw = *in.framework;
  if (fw == "tensorflow") return tensorflow_candidates(ck, in, os);
  if (fw == "pytorch") return pytorch_candidates(ck, in, os);
  return jax_candidates(ck, in, os);
}

// Newest framework version first; within a release, a build the driver supports fully
// (minor-version compatibility has no PTX JIT, which Triton and TF's XLA need), then the
// newest CUDA.
bool better(const Candidate& a, const Candidate& b) {
  if (a.version != b.version) return a.version > b.version;
  const bool fa = a.stack.support == "full", fb = b.stack.support == "full";
  if (fa != fb) return fa;
  if (a.cuda != b.cuda) return a.cuda > b.cuda;
  return a.stack.variant < b.stack.variant;
}

bool same_stack(const Stack& a, const Stack& b) {
  return a.framework_version == b.framework_version && a.variant == b.variant && a.cuda == b.cuda;
}

// Merges exclusions: one line per (variant, reason), over runs of consecutive versions.
std::vector<Exclusion> merge_exclusions(const std::vector<Candidate>& all) {
  struct Group {
    std::string name, variant, why;
    std::vector<Version> versions;
  };
  std::vector<Group> groups;
  for (const auto& c : all) {
    if (!c.pinned || c.viable()) continue;
    const std::string& why = c.failures.front().why;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.variant == c.stack.variant && g.why == why; });
    if (it == groups.end()) {
      groups.push_back({c.name(), c.stack.variant, why, {}});
      it = groups.end() - 1;
    }
    it->versions.push_back(c.version);
  }
  struct Line {
    Version newest;
    Exclusion e;
  };
  // "2.11.0+" only when the run reaches the framework's newest release.
  Version newest_release;
  for (const auto& c : all) newest_release = std::max(newest_release, c.version);
  std::vector<Line> lines;
  for (auto& g : groups) {
    // The versions this variant exists in, to know which excluded versions are consecutive.
    std::vector<Version> universe;
    for (const auto& c : all)
      if (c.stack.variant == g.variant) universe.push_back(c.version);
    std::sort(universe.begin(), universe.end());
    universe.erase(std::unique(universe.begin(), universe.end()), universe.end());
    std::sort(g.versions.begin(), g.versions.end());
    g.versions.erase(std::unique(g.versions.begin(), g.versions.end()), g.versions.end());
    size_t i = 0;
    while (i < g.versions.size()) {
      size_t j = i;
      auto pos = [&](const Version& v) { return std::lower_bound(universe.begin(), universe.end(), v) - universe.begin(); };
      while (j + 1 < g.versions.size() && pos(g.versions[j + 1]) == pos(g.versions[j]) + 1) ++j;
      std::string what = g.name + " " + g.versions[i].str();
      if (j > i) what += (g.versions[j] == newest_release) ? "+" : "-" + g.versions[j].str();
      if (!g.variant.empty()) what += " (" + g.variant + ")";
      lines.push_back({g.versions[j], {what, g.why}});
      i = j + 1;
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.newest > b.newest; });
  std::vector<Exclusion> out;
  for (auto& l : lines) out.push_back(std::move(l.e));
  return out;
}

// Changes to the machine that make a newer stack fit: every candidate whose failures all
// have a fix, grouped by which kinds of change it needs, the newest of each group.
std::vector<Change> find_changes(const Compat& k, const PlanInputs& in, const std::string& os,
                                 const std::vector<Candidate>& here, const std::optional<Candidate>& best) {
  struct Option {
    std::set<std::string> kinds;
    std::vector<std::string> texts;
    const Candidate* c;
  };
  std::vector<Option> options;
  std::map<std::string, std::vector<Candidate>> upgraded;  // candidates at an upgraded driver, by driver
  auto consider = [&](const Candidate& c, bool via_wsl2) {
    if (!c.pinned || (c.viable() && !via_wsl2)) return;
    Option o{{}, {}, &c};
    if (via_wsl2) {
      o.kinds.insert("os");
      o.texts.push_back("use WSL2");
    }
    for (const auto& f : c.failures) {
      if (f.fix.empty()) return;  // an architecture or a missing build: no change to the machine helps
      const std::string kind = f.kind == Kind::driver ? "driver" : f.kind == Kind::python ? "python" : "os";
      // Native Windows' "use WSL2" is judged by the WSL2 evaluation, whose own checks then apply.
      if (kind == "os") return;
      if (o.kinds.insert(kind).second) o.texts.push_back(f.fix);
    }
    // After a driver upgrade the stack is what the plan would say at that driver: its support (full or
    // minor-version compatibility) decides between builds of one release, as it does here.
    if (o.kinds.count("driver")) {
      Version target;
      for (const auto& f : c.failures)
        if (f.driver && *f.driver > target) target = *f.driver;
      const std::string key = (via_wsl2 ? "wsl2 " : "") + target.str();
      auto it = upgraded.find(key);
      if (it == upgraded.end()) {
        PlanInputs at = in;
        at.driver = target;
        it = upgraded.emplace(key, candidates(k, at, via_wsl2 ? "wsl2" : os)).first;
      }
      for (const auto& u : it->second)
        if (same_stack(u.stack, c.stack)) o.c = &u;
    }
    if (best && !better(*o.c, *best)) return;
    options.push_back(std::move(o));
  };
  for (const auto& c : here) consider(c, false);
  std::vector<Candidate> wsl;
  if (os == "windows") {
    wsl = candidates(k, in, "wsl2");
    for (const auto& c : wsl) consider(c, true);
  }
  // The newest per set of kinds.
  std::vector<Option> best_per;
  for (const auto& o : options) {
    auto it = std::find_if(best_per.begin(), best_per.end(), [&](const Option& b) { return b.kinds == o.kinds; });
    if (it == best_per.end())
      best_per.push_back(o);
    else if (better(*o.c, *it->c))
      *it = o;
  }
  // Drop an option when one needing fewer changes gives at least as new a stack.
  std::vector<Option> kept;
  for (const auto& o : best_per) {
    bool dominated = false;
    for (const auto& p : best_per)
      if (&p != &o && p.kinds.size() < o.kinds.size() &&
          std::includes(o.kinds.begin(), o.kinds.end(), p.kinds.begin(), p.kinds.end()) && !better(*o.c, *p.c))
        dominated = true;
    if (!dominated) kept.push_back(o);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Option& a, const Option& b) {
    if (a.kinds.size() != b.kinds.size()) return a.kinds.size() < b.kinds.size();
    return better(*a.c, *b.c);
  });
  std::vector<Change> out;
  for (const auto& o : kept) {
    Stack s = o.c->stack;
    s.why = "after this change";
    // A change of Python means the newest Python the stack supports.
    if (o.kinds.count("python")) s.python = s.python_range.substr(s.python_range.rfind('-') + 1);
    out.push_back({o.texts, s});
  }
  return out;
}

}  // namespace

Plan make_plan(const Compat& k, const PlanInputs& inputs) {
  Plan p;
  p.inputs = inputs;
  std::string os = inputs.os.value_or("linux");
  if (!inputs.os) p.notes.push_back("OS unknown: planned for Linux (give --os)");
  if (!inputs.framework) p.inputs.framework = "pytorch";
  if (inputs.no_nvidia_gpu && !inputs.cc) {
    p.notes.push_back(
        "no NVIDIA GPU was found on this machine: run `gpuready plan` on the machine with the GPU, or describe it "
        "with --gpu or --cc, and --driver");
    return p;
  }
  // How fresh the tables are, and what on this machine is newer than anything they know.
  {
    const knowledge::FreshnessRow* newest = nullptr;
    std::string known;
    for (const auto& f : k.freshness) {
      if (!f.date.empty() && (!newest || f.date > newest->date)) newest = &f;
      known += fmt::format("{}{} {}", known.empty() ? "" : ", ", f.component, f.newest.str());
    }
    if (newest)
      p.notes.push_back(fmt::format("gpuready's tables: newest dated source {} ({} {}); they know up to {}", newest->date,
                                    newest->component, newest->newest.str(), known));
    const auto [newest_cuda, newest_driver] = k.driver_table_reach();
    if (inputs.driver && inputs.driver->major() > newest_driver.major())
      p.notes.push_back(fmt::format("driver {} is newer than every driver in gpuready's tables (newest {}, CUDA {}'s): it runs "
                                    "at least CUDA {}; newer CUDA releases are not in the tables",
                                    inputs.driver->str(), newest_driver.str(), newest_cuda.major_minor().str(),
                                    newest_cuda.major_minor().str()));
    if (inputs.cuda && inputs.cuda->major_minor() > newest_cuda)
      p.notes.push_back(fmt::format("CUDA {} is newer than every CUDA in gpuready's tables (newest {}): nothing is known about it",
                                    inputs.cuda->str(), newest_cuda.major_minor().str()));
    if (inputs.installed_cuda && inputs.installed_cuda->major_minor() > newest_cuda)
      p.notes.push_back(fmt::format("this machine's CUDA toolkit {} is newer than every CUDA in gpuready's tables (newest {}): "
                                    "its driver floor is not known here (NVIDIA's release notes for it give it)",
                                    inputs.installed_cuda->str(), newest_cuda.major_minor().str()));
    if (inputs.framework && inputs.framework_version)
      if (const auto* f = k.freshness_of(*inputs.framework))
        if (const auto pin = Version::parse(*inputs.framework_version); pin && *pin > f->newest)
          p.notes.push_back(fmt::format("{} {} is newer than every release in gpuready's tables (newest {}): its builds "
                                        "cannot be checked",
                                        *inputs.framework, *inputs.framework_version, f->newest.str()));
  }
  if (!inputs.cc) p.notes.push_back("GPU unknown: its architecture was not checked (give --gpu or --cc)");
  if (!inputs.driver) p.notes.push_back("driver unknown: the plan states the minimum driver (give --driver)");
  if (!inputs.python)
    p.notes.push_back("Python unknown: each stack names the newest Python it supports (give --python)");

  std::vector<Candidate> all = candidates(k, p.inputs, os);
  std::stable_sort(all.begin(), all.end(), better);

  const Candidate* rec = nullptr;
  const Candidate* newest_any = nullptr;
  for (const auto& c : all) {
    if (!c.viable()) continue;
    if (!newest_any) newest_any = &c;
    if (c.pinned && !rec) rec = &c;
  }
  const bool pinned = inputs.framework_version || inputs.cuda;
  if (rec) {
    p.ok = true;
    p.recommended = rec->stack;
    p.recommended->why = pinned ? "the newest that fits the pins" : "the newest that fits";
  }
  auto add_alternative = [&](const Candidate& c, const std::string& why) {
    if (p.recommended && same_stack(c.stack, *p.recommended)) return;
    for (const auto& a : p.alternatives)
      if (same_stack(a, c.stack)) return;
    Stack s = c.stack;
    s.why = why;
    p.alternatives.push_back(std::move(s));
  };
  if (pinned && newest_any) add_alternative(*newest_any, "the newest that fits without the pins");
  // When the tables cannot confirm a part of the recommendation for this GPU, the newest they can.
  if (rec && rec->unverified)
    for (const auto& c : all)
      if (c.viable() && c.pinned && !c.unverified) {
        add_alternative(c, "the newest whose parts are all documented for this GPU");
        break;
      }
  // The newest of each other CUDA major: among the pinned stacks, and among all when none fits the pins.
  for (bool only_pinned : {true, false}) {
    if (!only_pinned && rec) break;
    std::set<long> majors;
    if (rec) majors.insert(rec->cuda.major());
    for (const auto& c : all) {
      if (!c.viable() || (only_pinned && !c.pinned)) continue;
      if (majors.insert(c.cuda.major()).second) add_alternative(c, fmt::format("the newest for CUDA {}", c.cuda.major()));
    }
  }
  p.excluded = merge_exclusions(all);
  std::optional<Candidate> best;
  if (rec) best = *rec;
  p.changes = find_changes(k, p.inputs, os, all, best);
  if (!p.ok) {
    bool any_pinned = std::any_of(all.begin(), all.end(), [](const Candidate& c) { return c.pinned; });
    if (!any_pinned)
      p.notes.push_back("no release in gpuready's tables matches the pins (--framework-version / --cuda)");
    else if (p.changes.empty())
      p.notes.push_back("nothing in gpuready's tables fits, and no change of driver, Python or OS would help: see "
                        "the exclusions");
  }
  if (p.recommended) p.steps = install_steps(k, p.inputs, *p.recommended);
  return p;
}

namespace {

nlohmann::json opt_json(const std::optional<std::string>& s) { return s ? nlohmann::json(*s) : nlohmann::json(); }
nlohmann::json opt_json(const std::optional<Version>& v) { return v ? nlohmann::json(v->str()) : nlohmann::json(); }

nlohmann::json stack_json(const Stack& s) {
  return {{"framework", s.framework},
          {"framework_version", s.framework_version},
          {"package", s.package},
          {"python", s.python},
          {"cuda", s.cuda},
          {"cudnn", s.cudnn},
          {"min_driver", s.min_driver},
          {"os", s.os},
          {"variant", s.variant},
          {"python_range", s.python_range},
          {"numpy", s.numpy},
          {"index_url", s.index_url},
          {"find_links", s.find_links},
          {"torchvision", s.torchvision},
          {"torchaudio", s.torchaudio},
          {"bundles_cuda", s.bundles_cuda},
          {"support", s.support},
          {"why", s.why},
          {"notes", s.notes}};
}

}  // namespace

nlohmann::json plan_to_json(const Plan& p) {
  nlohmann::json j;
  j["schema"] = kPlanSchema;
  j["ok"] = p.ok;
  const PlanInputs& in = p.inputs;
  j["inputs"] = {{"os", opt_json(in.os)},
                 {"gpu", opt_json(in.gpu)},
                 {"cc", in.cc ? nlohmann::json(in.cc->major_minor().str()) : nlohmann::json()},
                 {"driver", opt_json(in.driver)},
                 {"python", in.python ? nlohmann::json(in.python->major_minor().str()) : nlohmann::json()},
                 {"framework", opt_json(in.framework)},
                 {"framework_version", opt_json(in.framework_version)},
                 {"cuda", opt_json(in.cuda)},
                 {"source", in.source}};
  j["recommended"] = p.recommended ? stack_json(*p.recommended) : nlohmann::json();
  j["alternatives"] = nlohmann::json::array();
  for (const auto& s : p.alternatives) j["alternatives"].push_back(stack_json(s));
  j["excluded"] = nlohmann::json::array();
  for (const auto& e : p.excluded) j["excluded"].push_back({{"what", e.what}, {"why", e.why}});
  j["changes"] = nlohmann::json::array();
  for (const auto& c : p.changes)
    j["changes"].push_back({{"changes", c.changes}, {"gives", c.gives ? stack_json(*c.gives) : nlohmann::json()}});
  j["steps"] = nlohmann::json::array();
  for (const auto& s : p.steps) {
    nlohmann::json st = {{"kind", step_kind_name(s.kind)}, {"title", s.title}, {"commands", s.commands}};
    if (!s.package.empty()) st["package"] = s.package;
    j["steps"].push_back(std::move(st));
  }
  j["notes"] = p.notes;
  return j;
}

}  // namespace gpuready::plan
