#include "verify/gpu_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/version.h"
#include "parse/ascii.h"
#include "platform/module_loader.h"
#include "verify/gpu_abi.h"
#include "verify/peaks.h"
#include "verify/test_values.h"

namespace gpuready::verify {
namespace {

GpuReply failed_reply(const std::string& step, const std::string& code, const std::string& why) {
  GpuReply r;
  r.steps.push_back({step, false, code, why, 0});
  return r;
}

}  // namespace

const char* module_file_name() {
#if defined(_WIN32)
  return "gpuready-cuda.dll";
#else
  return "libgpuready-cuda.so";
#endif
}

std::vector<std::string> module_candidates(const Os& os) {
  std::vector<std::string> out;
  if (auto env = os.env.get("GPUREADY_CUDA_MODULE"); env && !env->empty()) out.push_back(*env);
  if (auto self = os.proc.self_path()) {
    const std::string dir = path_folder(*self);
    out.push_back(dir + "/" + module_file_name());
    out.push_back(dir + "/../lib/gpuready/" + module_file_name());
  }
  return out;
}

GpuReply run_module(const Os& os, const std::vector<std::string>& candidates, const GpuRequest& req,
                    const std::function<void(const std::string&)>& progress) {
  const std::string step = "load the CUDA module";
  if (progress) progress(step);
  const LoadedModule mod = load_module(os, candidates, {"gpuready_cuda_abi", "gpuready_cuda_run", "gpuready_cuda_free"},
                                       GPUREADY_CUDA_ABI, module_file_name());
  switch (mod.problem) {
    case ModuleProblem::none:
      break;
    case ModuleProblem::missing:
      return failed_reply(step, "module_missing",
                          mod.why +
                              "; it is built where CMake finds a CUDA compiler (nvcc): rebuild gpuready on a "
                              "machine with the CUDA toolkit, or set GPUREADY_CUDA_MODULE");
    case ModuleProblem::not_loaded:
      return failed_reply(step, "module_not_loaded", mod.why);
    case ModuleProblem::lacks_entry_points:
      return failed_reply(step, "not_a_module", mod.why + ": it is not a gpuready CUDA module");
    case ModuleProblem::wrong_abi:
      return failed_reply(step, "module_abi", mod.why);
  }
  auto run = reinterpret_cast<gpuready_cuda_run_fn>(mod.run);
  auto release = reinterpret_cast<gpuready_cuda_free_fn>(mod.release);
  struct Ctx {
    const std::function<void(const std::string&)>* progress;
  } ctx{&progress};
  char* text = run(
      nlohmann::json(req).dump().c_str(),
      [](const char* s, void* p) {
        auto* cx = static_cast<Ctx*>(p);
        if (*cx->progress && s) (*cx->progress)(s);
      },
      &ctx);
  GpuReply reply;
  try {
    reply = nlohmann::json::parse(text ? text : "").get<GpuReply>();
  } catch (const std::exception& e) {
    reply = failed_reply("read the module's reply", "bad_reply", e.what());
  }
  release(text);
  reply.steps.insert(reply.steps.begin(), DriverStep{step, true, "", mod.path, 0});
  return reply;  // the module stays loaded: the process ends after this
}

namespace {

// The major in a cuBLAS file's name: "libcublas.so.12.9.1.4" / "cublas64_12.dll" -> 12; 0 unknown.
int cuda_major_of_library(const std::string& path) {
  const std::string name = parse::ascii_lower(path_file_name(path));
  for (const char* mark : {".so.", "64_"}) {
    const auto at = name.find(mark);
    if (at != std::string::npos) return std::atoi(name.c_str() + at + std::strlen(mark));
  }
  return 0;
}

}  // namespace

int cuda_major_of_folder(const std::string& dir) {
  // The folder after a "bin" component that starts with a digit: ...\bin\12.9[\x64].
  std::string folder = dir;
  for (int up = 0; up < 2 && !folder.empty(); ++up) {
    const std::string name = path_file_name(folder);
    const std::string above = path_folder(folder);
    if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) && parse::ascii_lower(path_file_name(above)) == "bin")
      return std::atoi(name.c_str());
    folder = above;
  }
  return 0;
}

void fill_libraries(GpuRequest* req, const Snapshot& s) {
  // The CUDA driver the probe loaded (an absolute path): the module opens exactly that file.
  req->cuda_driver = s.nvidia.cuda_library.value_or("");
  int driver_major = 0;
  if (s.nvidia.cuda_driver_version.has()) driver_major = std::atoi(s.nvidia.cuda_driver_version.value().c_str());
  // cuBLAS: the loader's pick of each major first (what a framework would get), then the other copies.
  std::vector<std::string> cublas;
  auto add = [&](const std::string& p) {
    if (!p.empty() && std::find(cublas.begin(), cublas.end(), p) == cublas.end()) cublas.push_back(p);
  };
  for (int major : {13, 12, 11}) {
    if (driver_major && major > driver_major) continue;
    // Linux's soname and the Windows DLL's name of that major.
    const std::string so = fmt::format("libcublas.so.{}", major), dll = fmt::format("cublas64_{}.dll", major);
    auto is_it = [&](const std::string& name) { return name == so || parse::ascii_lower(name) == dll; };
    for (const auto& r : s.libraries.resolutions)
      if (is_it(r.soname) && r.path.has()) add(r.canonical.empty() ? r.path.value() : r.canonical);
    std::vector<const LibraryCopy*> copies;
    for (const auto& c : s.libraries.copies)
      if (c.library == "cublas" && is_it(c.soname)) copies.push_back(&c);
    // Toolkit copies before pip's, then in the probe's order.
    std::stable_sort(copies.begin(), copies.end(), [](const LibraryCopy* a, const LibraryCopy* b) {
      return (a->origin == "toolkit") > (b->origin == "toolkit");
    });
    for (const auto* c : copies) add(c->path);
  }
  req->cublas = cublas;

  // cuDNN: the set in the folder the loader resolves libcudnn.so.N to, else the newest complete set.
  const CudnnSet* pick = nullptr;
  for (const auto& [so, dll] : {std::pair{"libcudnn.so.9", "cudnn64_9.dll"}, std::pair{"libcudnn.so.8", "cudnn64_8.dll"}}) {
    for (const auto& r : s.libraries.resolutions) {
      if ((r.soname != so && parse::ascii_lower(r.soname) != dll) || !r.path.has()) continue;
      const std::string dir = path_folder(r.canonical.empty() ? r.path.value() : r.canonical);
      for (const auto& set : s.libraries.cudnn_sets)
        if (set.dir == dir || path_folder(set.dir + "/x") == dir) pick = &set;
    }
    if (pick) break;
  }
  // Else the newest complete set, among those built for the CUDA major of the first cuBLAS when
  // the folder says (cuDNN's Windows installer: bin\12.9\x64 holds the build for CUDA 12, which
  // loads cublasLt64_12.dll).
  const int cublas_major = cublas.empty() ? 0 : cuda_major_of_library(cublas.front());
  for (int pass = 0; pass < 2 && !pick; ++pass)
    for (const auto& set : s.libraries.cudnn_sets) {
      if (!set.missing.empty()) continue;
      const int built_for = cuda_major_of_folder(set.dir);
      if (pass == 0 && built_for != 0 && cublas_major != 0 && built_for != cublas_major) continue;
      if (!pick || (set.version.has() && pick->version.has() &&
                    Version::parse(set.version.value()) > Version::parse(pick->version.value())))
        pick = &set;
    }
  req->cudnn_dir.clear();
  req->cudnn_files.clear();
  if (!pick) return;
  req->cudnn_dir = pick->dir;
  std::set<std::string> sonames;
  for (const auto& c : s.libraries.copies) {
    if (c.library != "cudnn" || path_folder(c.path) != pick->dir) continue;
    const std::string name = c.soname.empty() ? c.file_name : c.soname;
    if (!sonames.insert(name).second) continue;
    req->cudnn_files.push_back(c.path);
  }
  // On Windows the sub-libraries are not copies of their own (the probe lists them per set):
  // cudnn64_9.dll's folder holds cudnn_graph64_9.dll ... by cuDNN's naming, <stem>64_<major>.dll.
  const bool windows = std::any_of(req->cudnn_files.begin(), req->cudnn_files.end(),
                                   [](const std::string& f) { return parse::ascii_lower(f).ends_with(".dll"); });
  const int major = pick->version.has() ? std::atoi(pick->version.value().c_str()) : 0;
  if (windows && major > 0) {
    const std::string sep = pick->dir.find('\\') != std::string::npos ? "\\" : "/";
    for (const auto& stem : pick->present) {
      const std::string file = pick->dir + sep + stem + "64_" + std::to_string(major) + ".dll";
      if (std::find(req->cudnn_files.begin(), req->cudnn_files.end(), file) == req->cudnn_files.end())
        req->cudnn_files.push_back(file);
    }
  }
}

namespace {
// `path` lies in folder `root` (or is it).
bool under(const std::string& path, const std::string& root) {
  if (root.empty()) return false;
  const std::string r = root.back() == '/' || root.back() == '\\' ? root : root + "/";
  return path.rfind(r, 0) == 0 || path == root;
}
}  // namespace

std::vector<std::string> library_sources(const std::string& libs) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= libs.size()) {
    const size_t comma = std::min(libs.find(',', from), libs.size());
    std::string one = libs.substr(from, comma - from);
    while (!one.empty() && one.front() == ' ') one.erase(one.begin());
    while (!one.empty() && one.back() == ' ') one.pop_back();
    if (!one.empty()) out.push_back(one);
    from = comma + 1;
  }
  return out;
}

std::vector<std::string> library_folders(const std::string& libs) {
  std::vector<std::string> out;
  for (const auto& one : library_sources(libs))
    if (one != "system" && is_absolute_path(one)) out.push_back(one);
  return out;
}

namespace {
// What one source of --libs offers: its cuBLAS files (in fill_libraries' order) and its newest complete cuDNN set.
struct SourceLibs {
  std::string name;    // "system", "torch 2.11.0 in /opt/.../python3", "/opt/cublas11"
  std::vector<std::string> roots;
  bool system = false;
  std::vector<std::string> cublas;
  const CudnnSet* cudnn = nullptr;
};

bool source_libs(const GpuRequest& req, const Snapshot& s, const std::string& libs, SourceLibs* out,
                 std::string* why) {
  out->name = libs;
  if (libs == "system") {
    out->system = true;
    out->cublas = req.cublas;
    for (const auto& cs : s.libraries.cudnn_sets)
      if (cs.dir == req.cudnn_dir) out->cudnn = &cs;
    return true;
  }
  if (libs == "torch" || libs == "tensorflow" || libs == "jax") {
    for (const auto& env : s.python)
      for (const auto& pkg : env.packages)
        if (pkg.name == libs || (libs == "jax" && pkg.name == "jaxlib")) {
          for (const auto& sp : env.site_packages) out->roots.push_back(sp);
          if (out->name == libs) out->name = fmt::format("{} {} in {}", libs, pkg.version, env.interpreter);
        }
    if (out->roots.empty()) {
      *why = fmt::format("--libs {}: no Python environment the probe found has {} installed", libs, libs);
      return false;
    }
  } else if (is_absolute_path(libs)) {
    out->roots.push_back(libs);
  } else {
    *why = fmt::format("--libs {}: neither system, torch, tensorflow, jax nor an absolute folder", libs);
    return false;
  }
  auto inside = [&](const std::string& p) {
    return std::any_of(out->roots.begin(), out->roots.end(), [&](const std::string& r) { return under(p, r); });
  };
  // fill_libraries' list holds every copy of a major this driver can run, newest major first.
  for (const auto& c : req.cublas)
    if (inside(c)) out->cublas.push_back(c);
  for (const auto& cs : s.libraries.cudnn_sets)
    if (inside(cs.dir) && cs.missing.empty() &&
        (!out->cudnn || (cs.version.has() && out->cudnn->version.has() &&
                         Version::parse(cs.version.value()) > Version::parse(out->cudnn->version.value()))))
      out->cudnn = &cs;
  return true;
}
}  // namespace

bool restrict_libraries(GpuRequest* req, const Snapshot& s, const std::string& libs, std::string* why) {
  const std::vector<std::string> names = library_sources(libs);
  if (names.empty() || (names.size() == 1 && names[0] == "system")) return true;
  std::vector<SourceLibs> sources(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    if (!source_libs(*req, s, names[i], &sources[i], why)) return false;
  // Each library from the first source, in the order given, that has it.
  const SourceLibs* blas = nullptr;
  const SourceLibs* dnn = nullptr;
  for (const auto& src : sources) {
    if (!blas && !src.cublas.empty()) blas = &src;
    if (!dnn && src.cudnn) dnn = &src;
  }
  if (!blas || !dnn) {
    std::vector<std::string> looked;
    for (const auto& src : sources) {
      if (src.system)
        looked.push_back("among the system's picks");
      else if (src.roots.size() == 1 && src.roots[0] == src.name)
        looked.push_back("under " + src.name);
      else
        looked.push_back(fmt::format("under {} ({})", fmt::join(src.roots, ", "), src.name));
    }
    const std::string missing = !blas && !dnn ? "cuBLAS and no complete cuDNN" : !blas ? "cuBLAS" : "complete cuDNN";
    // One library there and not the other: the machine's copy of the other can be named too.
    const bool one_lacking = (blas != nullptr) != (dnn != nullptr);
    const bool has_system = std::find(names.begin(), names.end(), "system") != names.end();
    *why = fmt::format("--libs {}: the probe found no {} that this driver can run {}{}", libs, missing,
                       fmt::join(looked, "; "),
                       one_lacking && !has_system
                           ? fmt::format(" (to take the other library from the machine's picks: --libs {},system)", libs)
                           : std::string());
    return false;
  }
  req->cublas = blas->cublas;
  if (dnn->system) return true;  // fill_libraries' cuDNN set stays
  req->cudnn_dir = dnn->cudnn->dir;
  req->cudnn_files.clear();
  std::set<std::string> sonames;
  for (const auto& c : s.libraries.copies) {
    if (c.library != "cudnn" || path_folder(c.path) != dnn->cudnn->dir) continue;
    if (!sonames.insert(c.soname.empty() ? c.file_name : c.soname).second) continue;
    req->cudnn_files.push_back(c.path);
  }
  return true;
}

Reference gemm_reference(const GemmResult& r, std::uint64_t index) {
  Reference out;
  if (r.m <= 0 || r.n <= 0 || r.k <= 0) return out;
  const std::uint64_t m = static_cast<std::uint64_t>(r.m), k = static_cast<std::uint64_t>(r.k);
  const std::uint64_t i = index % m, j = index / m;
  for (std::uint64_t l = 0; l < k; ++l) {
    const double t = static_cast<double>(test_value(r.seed_a, i + l * m)) * test_value(r.seed_b, l + j * k);
    out.value += t;
    out.scale += std::fabs(t);
  }
  return out;
}

Reference conv_reference(const ConvResult& r, std::uint64_t index) {
  Reference out;
  if (r.x.size() != 4 || r.w.size() != 4 || r.y.size() != 4) return out;
  const long long N = r.x[0], C = r.x[1], H = r.x[2], W = r.x[3], K = r.w[0], R = r.w[2], S = r.w[3], P = r.y[2],
                  Q = r.y[3], pad = r.pad;
  auto X = [&](long long n, long long c, long long h, long long w) {
    return static_cast<double>(test_value(r.seed_x, static_cast<std::uint64_t>(((n * C + c) * H + h) * W + w)));
  };
  auto F = [&](long long k, long long c, long long rr, long long ss) {
    return static_cast<double>(test_value(r.seed_w, static_cast<std::uint64_t>(((k * C + c) * R + rr) * S + ss)));
  };
  auto DY = [&](long long n, long long k, long long p, long long q) {
    return static_cast<double>(test_value(r.seed_dy, static_cast<std::uint64_t>(((n * K + k) * P + p) * Q + q)));
  };
  auto add = [&](double t) {
    out.value += t;
    out.scale += std::fabs(t);
  };
  const long long i = static_cast<long long>(index);
  if (r.key == "cudnn.conv_fwd") {  // y[n,k,p,q] = sum x[n,c,p+r-pad,q+s-pad] w[k,c,r,s]
    const long long q = i % Q, p = i / Q % P, k = i / (P * Q) % K, n = i / (K * P * Q);
    for (long long c = 0; c < C; ++c)
      for (long long rr = 0; rr < R; ++rr)
        for (long long ss = 0; ss < S; ++ss) {
          const long long h = p + rr - pad, w = q + ss - pad;
          if (h >= 0 && h < H && w >= 0 && w < W) add(X(n, c, h, w) * F(k, c, rr, ss));
        }
  } else if (r.key == "cudnn.conv_bwd_data") {  // dx[n,c,h,w] = sum dy[n,k,h+pad-r,w+pad-s] w[k,c,r,s]
    const long long w = i % W, h = i / W % H, c = i / (H * W) % C, n = i / (C * H * W);
    for (long long k = 0; k < K; ++k)
      for (long long rr = 0; rr < R; ++rr)
        for (long long ss = 0; ss < S; ++ss) {
          const long long p = h + pad - rr, q = w + pad - ss;
          if (p >= 0 && p < P && q >= 0 && q < Q) add(DY(n, k, p, q) * F(k, c, rr, ss));
        }
  } else if (r.key == "cudnn.conv_bwd_filter") {  // dw[k,c,r,s] = sum dy[n,k,p,q] x[n,c,p+r-pad,q+s-pad]
    const long long ss = i % S, rr = i / S % R, c = i / (R * S) % C, k = i / (C * R * S);
    for (long long n = 0; n < N; ++n)
      for (long long p = 0; p < P; ++p)
        for (long long q = 0; q < Q; ++q) {
          const long long h = p + rr - pad, w = q + ss - pad;
          if (h >= 0 && h < H && w >= 0 && w < W) add(DY(n, k, p, q) * X(n, c, h, w));
        }
  }
  return out;
}

PointCheck check_points(const std::vector<SampledValue>& points, const std::function<Reference(std::uint64_t)>& ref,
                        double tolerance, const std::function<std::string(std::uint64_t)>& where) {
  PointCheck out;
  for (const auto& pt : points) {
    const Reference r = ref(pt.index);
    const double err = std::fabs(pt.value - r.value) / std::max(r.scale, 1e-30);
    // NaN compares false everywhere: count it as wrong explicitly.
    const bool bad = !(err <= tolerance);
    if (!(err <= out.max_error)) out.max_error = std::isnan(err) ? INFINITY : std::max(out.max_error, err);
    if (bad) {
      if (out.bad == 0)
        out.first_bad =
            fmt::format("{} = {}, expected {} (normalised error {:.2g})", where(pt.index), pt.value, r.value, err);
      ++out.bad;
    }
  }
  return out;
}

double tolerance_of(const std::string& key) {
  if (key == "gemm.fp32") return 1e-4;
  if (key == "gemm.tf32") return 1e-3;
  if (key == "gemm.fp16") return 2e-3;
  if (key == "gemm.bf16") return 1e-2;
  return 1e-3;  // cuDNN (tf32 allowed, FFT and Winograd transforms)
}

namespace {

const NvidiaGpu* gpu_of(const GpuReply& r, const Snapshot& s) {
  for (const auto& g : s.nvidia.gpus)
    if (!r.device.pci_bus_id.empty() && g.pci_bus_id.has() &&
        pci_bus_key(g.pci_bus_id.value()) == pci_bus_key(r.device.pci_bus_id))
      return &g;
  for (const auto& g : s.nvidia.gpus)
    if (!r.device.uuid.empty() && g.uuid.has() && g.uuid.value() == r.device.uuid) return &g;
  return nullptr;
}

// Clocks-event reasons that slow a GPU under load (not idle, not the application clock setting).
std::vector<std::string> slowdowns(const ClockWindow& w) {
  std::vector<std::string> out;
  for (const auto& r : w.reasons)
    if (r != "gpu_idle" && r != "applications_clocks_setting" && r != "display_clock_setting" && r != "sync_boost")
      out.push_back(r);
  return out;
}

std::string clocks_words(const ClockWindow& w) {
  if (w.samples == 0) return "";
  std::string s = fmt::format("; SM clock {}-{} MHz, up to {} C and {:.0f} W over {} NVML samples", w.sm_clock_min_mhz,
                              w.sm_clock_max_mhz, w.temperature_max_c, w.power_max_w, w.samples);
  if (auto slow = slowdowns(w); !slow.empty()) s += fmt::format(", clocks held back by {}", fmt::join(slow, ", "));
  return s;
}

// Thermal and hardware slowdowns are problems; reaching the power cap under a full GEMM is how a
// GPU is meant to run, so it is reported in the detail and the finding, not graded down.
bool hurts(const std::vector<std::string>& reasons) {
  for (const auto& r : reasons)
    if (r != "sw_power_cap") return true;
  return false;
}

Status grade(double ratio, const Thresholds& t) {
  return ratio >= t.pass ? Status::pass : ratio >= t.warn ? Status::warn : Status::fail;
}

std::string gemm_where(const GemmResult& r, std::uint64_t idx) {
  return fmt::format("C[{},{}]", idx % static_cast<std::uint64_t>(std::max(r.m, 1)),
                     idx / static_cast<std::uint64_t>(std::max(r.m, 1)));
}

std::string conv_where(const ConvResult& r, std::uint64_t idx) {
  const std::vector<int>& d = r.key == "cudnn.conv_fwd" ? r.y : r.key == "cudnn.conv_bwd_data" ? r.x : r.w;
  const char* name = r.key == "cudnn.conv_fwd" ? "y" : r.key == "cudnn.conv_bwd_data" ? "dx" : "dw";
  if (d.size() != 4) return name;
  const std::uint64_t d3 = d[3], d2 = d[2], d1 = d[1];
  return fmt::format("{}[{},{},{},{}]", name, idx / (d1 * d2 * d3), idx / (d2 * d3) % d1, idx / d3 % d2, idx % d3);
}

std::string version_of_cudnn(long long v) {
  // cuDNN 9: major*10000 + minor*100 + patch; cuDNN 8: major*1000 + minor*100 + patch.
  if (v >= 90000) return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, v / 100 % 10, v % 100);
}
std::string version_of_cuda(long long v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

// What a GEMM and a convolution check share: TFLOP/s per sample, the median, the clocks held back.
Check rate_check(const std::string& key, const std::string& method, double flop, const std::vector<double>& seconds,
                 const ClockWindow& clocks) {
  Check c;
  c.key = key;
  c.unit = "TFLOP/s";
  c.method = method;
  for (double sec : seconds)
    if (sec > 0) c.samples.push_back(flop / sec / 1e12);
  c.value = median(c.samples);
  c.clock_events = slowdowns(clocks);
  return c;
}

// Fails `c` when no sample was timed or a sampled output was wrong; true when it did.
bool failed_on_data(Check& c, const PointCheck& pc, size_t points, const char* what) {
  if (!c.value) {
    c.status = Status::fail;
    c.detail = "no timed sample";
    return true;
  }
  if (points > 0 && pc.bad == 0) return false;
  c.status = Status::fail;
  c.data_ok = false;
  c.detail = points == 0 ? fmt::format("no {} was read back to check", what)
                         : fmt::format("{} of {} sampled {} are wrong; first: {}", pc.bad, points, what, pc.first_bad);
  return true;
}

Check from_skip_or_error(const std::string& key, const std::string& unit, const std::string& skip,
                         const std::string& error, const std::string& method) {
  Check c;
  c.key = key;
  c.unit = unit;
  c.method = method;
  c.status = skip.empty() ? Status::fail : Status::skip;
  c.detail = skip.empty() ? error : skip;
  return c;
}

}  // namespace

std::vector<Check> judge_gpu(const GpuReply& r, const std::vector<std::string>& want, const Snapshot& s,
                             const knowledge::Compat& k, const Thresholds& t) {
  std::vector<Check> out;
  const NvidiaGpu* g = gpu_of(r, s);
  // A GPU the probe did not see (or no probe): the module's own facts give the peak's inputs.
  NvidiaGpu from_module;
  if (!g && !r.device.name.empty()) {
    from_module.name = Fact<std::string>(r.device.name);
    from_module.compute_capability = Fact<std::string>(fmt::format("{}.{}", r.device.cc_major, r.device.cc_minor));
    if (r.device.sm_count > 0) from_module.sm_count = Fact<int>(r.device.sm_count);
    if (r.device.clock_mhz > 0) from_module.sm_clock_max_mhz = Fact<int>(r.device.clock_mhz);
    g = &from_module;
  }
  // Which cuBLAS ran the products: the file the module opened and its libcublasLt, as mapped in the process.
  std::string cublas_files;
  if (!r.cublas_path.empty()) {
    std::vector<std::string> files{r.cublas_path};
    for (const auto& f : r.loaded)
      if (parse::ascii_lower(path_file_name(f)).find("cublas") != std::string::npos &&
          path_file_name(f) != path_file_name(r.cublas_path))
        files.push_back(f);
    cublas_files = fmt::format("; cuBLAS {}.{}.{}: {}", r.cublas_version / 10000, r.cublas_version % 10000 / 100,
                               r.cublas_version % 100, fmt::join(files, ", "));
  }
  for (const auto& x : r.gemm) {
    if (!x.skip.empty() || !x.error.empty()) {
      out.push_back(from_skip_or_error(x.key, "TFLOP/s", x.skip, x.error, x.method));
      continue;
    }
    Check c = rate_check(x.key, x.method + cublas_files, 2.0 * x.m * static_cast<double>(x.n) * x.k, x.seconds,
                         x.clocks);
    const PointCheck pc = check_points(
        x.points, [&](std::uint64_t i) { return gemm_reference(x, i); }, tolerance_of(x.key),
        [&](std::uint64_t i) { return gemm_where(x, i); });
    const std::string accuracy = fmt::format(
        "{} sampled elements of C match the CPU's exact result (largest normalised error {:.1e}, allowed "
        "{:.0e})",
        x.points.size(), pc.max_error, tolerance_of(x.key));
    std::string why_no_peak;
    std::optional<Peak> peak;
    if (auto p = precision_from_name(x.key.substr(5)); p && g) peak = gemm_peak(*g, *p, k, &why_no_peak);
    if (peak && peak->tflops > 0) {
      c.limit = peak->tflops;
      c.ratio = c.value ? std::optional<double>(*c.value / peak->tflops) : std::nullopt;
    }
    if (failed_on_data(c, pc, x.points.size(), "elements of C")) {
      // the detail says what was wrong
    } else if (c.ratio) {
      c.status = grade(*c.ratio, t);
      c.detail = fmt::format("{:.2f} of the {:.1f} TFLOP/s peak ({}; pass >= {:.2f}, warn >= {:.2f}); {}", *c.ratio,
                             peak->tflops, peak->basis, t.pass, t.warn, accuracy);
    } else {
      c.status = Status::pass;
      c.detail = fmt::format("no peak known to judge the rate against ({}); {}",
                             why_no_peak.empty() ? "the GPU's facts are missing" : why_no_peak, accuracy);
    }
    if (c.status == Status::pass && hurts(c.clock_events)) c.status = Status::warn;
    c.detail += clocks_words(x.clocks);
    out.push_back(std::move(c));
  }

  const bool cudnn_asked =
      std::any_of(want.begin(), want.end(), [](const std::string& w) { return w.rfind("cudnn.", 0) == 0; });
  if (cudnn_asked && !r.steps.empty()) {
    // cudnn.load: which cuDNN, built with which CUDA runtime, and whether every file came from one folder.
    Check c;
    c.key = "cudnn.load";
    c.unit = "";
    std::string load_error;
    bool tried = false;
    for (const auto& st : r.steps)
      if (st.name == "load cuDNN") {
        tried = true;
        if (!st.ok) load_error = st.message;
      }
    if (!tried) {
      c.status = Status::skip;
      for (const auto& st : r.steps)
        if (!st.ok) {
          c.detail = st.name + ": " + st.message;
          break;
        }
    } else if (!load_error.empty()) {
      c.status = Status::fail;
      c.detail = load_error;
    } else {
      std::set<std::string> dirs;
      std::vector<std::string> files;
      for (const auto& f : r.loaded)
        if (path_file_name(f).find("cudnn") != std::string::npos) {
          dirs.insert(path_folder(f));
          files.push_back(path_file_name(f));
        }
      c.detail = fmt::format("cuDNN {} (built with CUDA runtime {}) from {}: {} file(s) loaded ({})",
                             version_of_cudnn(r.cudnn_version), version_of_cuda(r.cudnn_cudart_version),
                             path_folder(r.cudnn_path), files.size(), fmt::join(files, ", "));
      c.method =
          "cudnnGetVersion / cudnnGetCudartVersion after loading the set by full path, sub-libraries first; the "
          "files mapped in the process listed afterwards";
      c.status = Status::pass;
      if (dirs.size() > 1) {
        c.status = Status::fail;
        c.detail +=
            fmt::format("; the files came from {} folders ({}): a mixed set", dirs.size(), fmt::join(dirs, ", "));
      }
    }
    out.push_back(std::move(c));
  }
  for (const auto& x : r.conv) {
    if (!x.skip.empty() || !x.error.empty()) {
      out.push_back(from_skip_or_error(x.key, "TFLOP/s", x.skip, x.error, x.method));
      continue;
    }
    double flop = 0;
    if (x.y.size() == 4 && x.w.size() == 4)
      flop = 2.0 * x.y[0] * x.y[1] * x.y[2] * static_cast<double>(x.y[3]) * x.w[1] * x.w[2] * x.w[3];
    Check c = rate_check(x.key, x.method, flop, x.seconds, x.clocks);
    const PointCheck pc = check_points(
        x.points, [&](std::uint64_t i) { return conv_reference(x, i); }, tolerance_of(x.key),
        [&](std::uint64_t i) { return conv_where(x, i); });
    const auto sec = median(x.seconds);
    if (failed_on_data(c, pc, x.points.size(), "outputs")) {
      // the detail says what was wrong
    } else {
      c.status = hurts(c.clock_events) ? Status::warn : Status::pass;
      c.detail = fmt::format(
          "{:.3f} ms per call with algorithm {}; {} sampled outputs match the CPU's exact result "
          "(largest normalised error {:.1e}, allowed {:.0e})",
          sec.value_or(0) * 1e3, x.algo, x.points.size(), pc.max_error, tolerance_of(x.key));
    }
    c.detail += clocks_words(x.clocks);
    out.push_back(std::move(c));
  }
  for (const auto& x : r.memory) {
    if (!x.skip.empty() || (!x.error.empty() && x.errors == 0)) {
      out.push_back(from_skip_or_error(x.key, "errors", x.skip, x.error, x.method));
      continue;
    }
    Check c;
    c.key = x.key;
    c.unit = "errors";
    c.method = x.method;
    c.value = static_cast<double>(x.errors);
    c.limit = 0;
    c.clock_events = slowdowns(x.clocks);
    const std::string tested = fmt::format("{:.1f} GiB tested in {:.1f} s ({:.0f} GB/s written and read)",
                                           x.bytes / 1073741824.0, x.seconds, x.write_read_gbps);
    if (x.errors > 0) {
      c.status = Status::fail;
      c.data_ok = false;
      std::vector<std::string> where;
      for (const auto& f : x.faults)
        where.push_back(fmt::format("0x{:x} (offset {}, {}): wrote 0x{:08x}, read 0x{:08x}", f.address, f.offset,
                                    f.pattern, f.expected, f.got));
      c.detail = fmt::format("{} word(s) read back different from what was written; {}; first: {}", x.errors, tested,
                             fmt::join(where.begin(), where.begin() + std::min<size_t>(where.size(), 4), "; "));
    } else {
      c.status = Status::pass;
      c.detail = "no errors; " + tested;
    }
    if (!x.error.empty()) c.detail += "; stopped early: " + x.error;
    out.push_back(std::move(c));
  }
  // Asked for, but no result: the first failed step says why (no driver, no module, a GPU the runtime cannot use).
  std::string why;
  for (const auto& st : r.steps)
    if (!st.ok) {
      why = st.name + ": " + st.message;
      if (st.code == "driver_too_old")
        for (const auto& row : k.minor_compat)
          if (row.cuda_major == 11 && row.min_linux && row.min_windows)
            why += fmt::format(": update the driver to {} (Linux) or {} (Windows) or newer", row.min_linux->str(),
                               row.min_windows->str());
      break;
    }
  for (const auto& w : want) {
    const bool have = std::any_of(out.begin(), out.end(), [&](const Check& c) { return c.key == w; });
    if (!have) out.push_back(skipped(w, why.empty() ? "the module returned no result for it" : why));
  }
  // In the order asked for, cudnn.load just before the first cuDNN check.
  auto rank = [&](const std::string& key) {
    if (key == "cudnn.load") {
      const auto first =
          std::find_if(want.begin(), want.end(), [](const std::string& x) { return x.rfind("cudnn.", 0) == 0; });
      return 2 * static_cast<long>(first - want.begin());
    }
    const auto it = std::find(want.begin(), want.end(), key);
    return 2 * static_cast<long>(it - want.begin()) + 1;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Check& a, const Check& b) { return rank(a.key) < rank(b.key); });
  return out;
}

}  // namespace gpuready::verify
