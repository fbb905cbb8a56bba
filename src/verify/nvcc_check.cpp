// The nvcc check: compile and run a tiny CUDA program with the installed toolkit (nvcc_check.h).
#include "verify/nvcc_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "core/version.h"
#include "knowledge/compat.h"

namespace gpuready::verify {
namespace {

namespace stdfs = std::filesystem;

constexpr int kCount = 1024;

// The program: 1024 ints written by a kernel, copied back and checked on the host. On a CUDA error
// it prints the call, the error's name and its text ("cudaErrorInsufficientDriver: CUDA driver
// version is insufficient for CUDA runtime version") and returns non-zero.
constexpr const char* kSource = R"cu(// Written by gpuready verify (the nvcc check); deleted after the run.
#include <stdio.h>

__global__ void fill(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * 3 + 1;
}

static int failed(const char* what, cudaError_t e) {
  printf("gpuready-nvcc-error %s: %s: %s\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return 1;
}

int main() {
  const int n = 1024;
  static int h[1024];
  int* d = 0;
  cudaError_t e = cudaMalloc((void**)&d, n * sizeof(int));
  if (e != cudaSuccess) return failed("cudaMalloc", e);
  fill<<<(n + 255) / 256, 256>>>(d, n);
  e = cudaGetLastError();
  if (e != cudaSuccess) return failed("kernel launch", e);
  e = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return failed("cudaMemcpy", e);
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    if (h[i] != i * 3 + 1) {
      printf("gpuready-nvcc-error element %d: expected %d, got %d\n", i, i * 3 + 1, h[i]);
      return 2;
    }
    sum += h[i];
  }
  cudaFree(d);
  printf("gpuready-nvcc-ok %lld\n", sum);
  return 0;
}
)cu";

bool wanted(const NvccOptions& o, const std::string& key) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), key) != o.only.end();
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The last `n` non-empty lines of a child's output, trimmed, joined with " | " and capped.
std::string last_lines(const std::string& text, size_t n) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<long>(n));
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : " | ") + l;
  if (out.size() > 800) out = "..." + out.substr(out.size() - 800);
  return out;
}

// The first line of `text` that contains `what`, trimmed.
std::string line_with(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  if (at == std::string::npos) return "";
  const size_t b = text.rfind('\n', at);
  const size_t e = text.find('\n', at);
  std::string line = text.substr(b == std::string::npos ? 0 : b + 1,
                                 e == std::string::npos ? std::string::npos : e - (b == std::string::npos ? 0 : b + 1));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string quoted(const std::string& a) { return a.find(' ') == std::string::npos ? a : "\"" + a + "\""; }

std::string command_text(const std::vector<std::string>& argv) {
  std::string t;
  for (const auto& a : argv) t += (t.empty() ? "" : " ") + quoted(a);
  return t;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Check make(const std::string& key, Status st, std::string detail, const std::string& method) {
  Check c;
  c.key = key;
  c.status = st;
  c.detail = std::move(detail);
  c.method = method;
  return c;
}

const Toolkit* pick_toolkit(const Snapshot& s) {
  for (const auto& t : s.toolkits)
    if (t.is_path_nvcc && t.nvcc.has() && !t.nvcc.value().empty()) return &t;
  for (const auto& t : s.toolkits)
    if (t.nvcc.has() && !t.nvcc.value().empty()) return &t;
  return nullptr;
}

// The first GPU's sm number (9.0 -> 90); 0 when unknown. The name in the tables stands in for a
// compute capability the probe could not read.
int gpu_sm(const NvidiaGpu& g) {
  if (g.compute_capability.has())
    if (auto v = Version::parse(g.compute_capability.value())) return knowledge::sm_of(*v);
  if (g.name.has())
    if (const auto* row = knowledge::Compat::embedded().gpu_by_name(g.name.value())) return knowledge::sm_of(row->cc);
  return 0;
}

// Why nvcc failed, in words, before its own lines.
std::string compile_failure_words(const std::string& out, const Toolkit& tk, int sm) {
  const std::string version = tk.version.has() ? tk.version.value() : "";
  for (const char* marker : {"Unsupported gpu architecture", "is not defined for option 'gpu-architecture'"}) {
    if (!has(out, marker)) continue;
    std::string words = "this toolkit does not build for this GPU's architecture: " + line_with(out, marker);
    if (sm > 0 && !version.empty()) {
      const std::string hint = arch_support_hint(version, sm);
      if (!hint.empty()) words += " (" + hint + ")";
    }
    return words;
  }
  if (has(out, "Failed to preprocess host compiler properties") || has(out, "Cannot find compiler") ||
      (has(out, "No such file or directory") && (has(out, "gcc") || has(out, "g++") || has(out, "cl.exe"))) ||
      (has(out, "not found") && (has(out, "gcc") || has(out, "g++")))) {
#ifdef _WIN32
    return "nvcc found no host compiler: it needs Visual Studio's cl.exe (run from a \"x64 Native Tools\" prompt, "
           "or install the Visual Studio C++ build tools)";
#else
    return "nvcc found no host compiler: it needs g++ (e.g. apt install g++, dnf install gcc-c++), or one given "
           "with -ccbin";
#endif
  }
  if (has(out, "unsupported GNU version") || has(out, "unsupported clang version") ||
      has(out, "unsupported Microsoft Visual Studio version"))
    return "the host compiler is newer than this CUDA" + (version.empty() ? "" : " " + version) +
           " supports: install an older g++ and pass it with -ccbin, or use a newer CUDA toolkit";
  return "nvcc failed";
}

}  // namespace

std::vector<std::string> nvcc_keys() { return {"nvcc.compile", "nvcc.run"}; }

std::string nvcc_expected_line() {
  long long sum = 0;
  for (int i = 0; i < kCount; ++i) sum += i * 3 + 1;
  return "gpuready-nvcc-ok " + std::to_string(sum);
}

std::string arch_support_hint(const std::string& toolkit_version, int sm) {
  const auto v = Version::parse(toolkit_version);
  if (!v || sm <= 0) return "";
  const auto& compat = knowledge::Compat::embedded();
  const knowledge::CudaArchRow* row = compat.arch_row(*v);
  if (!row) return "";
  std::string h = fmt::format("CUDA {} builds for sm_{} to sm_{}; this GPU is sm_{}", v->major_minor().str(),
                              row->min_sm, row->max_sm, sm);
  if (row->sm.count(sm)) return h;
  if (sm < row->min_sm) {
    for (const auto& r : compat.cuda_arch)  // newest first: the newest CUDA that still builds for it
      if (r.sm.count(sm))
        return h + fmt::format(": use CUDA {}.x ({} is the newest that builds for sm_{})", r.cuda.major(),
                               r.cuda.major_minor().str(), sm);
    return h + ": no CUDA in the tables builds for it";
  }
  for (auto it = compat.cuda_arch.rbegin(); it != compat.cuda_arch.rend(); ++it)  // oldest first
    if (it->sm.count(sm)) return h + fmt::format(": use CUDA {} or newer", it->cuda.major_minor().str());
  return h + ": no CUDA in the tables builds for it yet";
}

std::vector<Check> nvcc_checks(const Os& os, const Snapshot& s, const NvccOptions& o) {
  const bool want_compile = wanted(o, "nvcc.compile"), want_run = wanted(o, "nvcc.run");
  std::vector<Check> out;
  auto skip_all = [&](const std::string& why) {
    if (want_compile) out.push_back(skipped("nvcc.compile", why));
    if (want_run) out.push_back(skipped("nvcc.run", why));
    return out;
  };
  if (!want_compile && !want_run) return out;

  const Toolkit* tk = pick_toolkit(s);
  if (!tk)
    return skip_all(
        "no CUDA toolkit with nvcc found (frameworks' pip wheels do not need one; install it only to build CUDA "
        "code: gpuready plan)");
  const std::string nvcc = tk->nvcc.value();
  const std::string tk_name =
      "CUDA" + (tk->version.has() ? " " + tk->version.value() : std::string()) + " at " + tk->root;

  const NvidiaGpu* gpu = s.nvidia.gpus.empty() ? nullptr : &s.nvidia.gpus.front();
  const int sm = gpu ? gpu_sm(*gpu) : 0;

  std::string error;
  // Owner-only from its creation (mkdtemp's 0700), never made first and restricted after: the
  // program compiled into it is then run, and nobody else may swap it in between.
  const auto made = make_temp_dir("nvcc", &error, o.temp_parent);
  if (!made) return skip_all("no private folder to compile in: " + error);
  const auto dir = std::optional<stdfs::path>(stdfs::path(*made));
  struct Cleanup {
    stdfs::path p;
    ~Cleanup() {
      std::error_code ec;
      stdfs::remove_all(p, ec);
    }
  } cleanup{*dir};

  const std::string src = (*dir / "check.cu").string();
#ifdef _WIN32
  const std::string exe = (*dir / "check.exe").string();
#else
  const std::string exe = (*dir / "check").string();
#endif
  {
    std::ofstream f(src, std::ios::binary);
    f << kSource;
    if (!f.flush()) return skip_all("cannot write " + src);
  }

  std::vector<std::string> argv = {nvcc};
  if (sm > 0) argv.push_back(fmt::format("-arch=sm_{}", sm));
  argv.insert(argv.end(), {"-o", exe, src});
  const std::string cmd = command_text(argv);
  const std::string arch_words = sm > 0 ? fmt::format("sm_{}", sm) : "nvcc's default architecture";
  const std::string method = fmt::format(
      "{} compiles a kernel for {} that writes i*3+1 to {} ints; the program copies them back and checks them on "
      "the host",
      tk_name, arch_words, kCount);

  // Compile.
  ProcOptions po;
  po.timeout = o.compile_timeout;
  po.max_output = 256u << 10;
  auto t0 = std::chrono::steady_clock::now();
  const ProcResult cr = os.proc.run(argv, po);
  const double compile_s = seconds_since(t0);
  Check compile = make("nvcc.compile", Status::pass, cmd, method);
  compile.unit = "s";
  compile.value = compile_s;
  compile.samples = {compile_s};
  if (!cr.started) {
    compile.status = Status::fail;
    compile.value.reset();
    compile.samples.clear();
    compile.detail = "could not start nvcc: " + cr.error;
  } else if (cr.timed_out) {
    compile.status = Status::fail;
    compile.detail = fmt::format("nvcc did not finish in {:.0f} s: {}",
                                 std::chrono::duration<double>(o.compile_timeout).count(), cmd);
    const std::string said = last_lines(cr.err + "\n" + cr.out, 4);
    if (!said.empty()) compile.detail += "; it said: " + said;
  } else if (!cr.ok()) {
    compile.status = Status::fail;
    const std::string all = cr.err + "\n" + cr.out;
    compile.detail = compile_failure_words(all, *tk, sm) + "; " + cmd + " ended with " +
                     (cr.signal ? "signal " + std::to_string(cr.signal) : "exit " + std::to_string(cr.exit_code));
    const std::string said = last_lines(all, 6);
    if (!said.empty()) compile.detail += ": " + said;
  } else if (!stdfs::exists(exe)) {
    compile.status = Status::fail;
    compile.detail = "nvcc exited 0 but wrote no " + exe + ": " + cmd;
  } else if (sm == 0) {
    compile.detail += gpu ? " (the GPU's compute capability is unknown: nvcc's default architecture)"
                          : " (no NVIDIA GPU: nvcc's default architecture)";
  }
  if (want_compile) out.push_back(compile);

  if (!want_run) return out;
  // Run.
  if (compile.status != Status::pass) {
    if (want_compile)
      out.push_back(skipped("nvcc.run", "nvcc.compile failed: nothing to run"));
    else
      out.push_back(make("nvcc.run", Status::fail, "the compile failed: " + compile.detail, method));
    return out;
  }
  if (!gpu) {
    out.push_back(skipped("nvcc.run", "no NVIDIA GPU to run it on"));
    return out;
  }
  ProcOptions ro;
  ro.timeout = o.run_timeout;
  ro.max_output = 64u << 10;
  t0 = std::chrono::steady_clock::now();
  const ProcResult rr = os.proc.run({exe}, ro);
  const double run_s = seconds_since(t0);
  Check run = make("nvcc.run", Status::pass, "printed " + nvcc_expected_line(), method);
  run.unit = "s";
  run.value = run_s;
  run.samples = {run_s};
  const std::string said = rr.out + "\n" + rr.err;
  if (!rr.started) {
    run.status = Status::fail;
    run.value.reset();
    run.samples.clear();
    run.detail = "could not start the compiled program: " + rr.error;
  } else if (rr.timed_out) {
    run.status = Status::fail;
    run.detail = fmt::format(
        "the compiled program did not finish in {:.0f} s (a driver that hangs on first contact: "
        "gpuready doctor)",
        std::chrono::duration<double>(o.run_timeout).count());
  } else if (rr.ok() && has(rr.out, nvcc_expected_line())) {
    // pass
  } else {
    run.status = Status::fail;
    std::string words = "the compiled program failed";
    if (has(said, "cudaErrorInsufficientDriver") || has(said, "insufficient for CUDA runtime")) {
      words = "the toolkit" + (tk->version.has() ? " (CUDA " + tk->version.value() + ")" : std::string()) +
              " is newer than the driver supports";
      if (s.nvidia.cuda_driver_version.has())
        words += " (the driver runs CUDA " + s.nvidia.cuda_driver_version.value() +
                 " at most): update the driver, or build with a CUDA " + s.nvidia.cuda_driver_version.value() +
                 " or older toolkit";
      else
        words += ": update the driver, or build with an older toolkit";
    } else if (has(said, "cudaErrorNoKernelImageForDevice") || has(said, "no kernel image is available")) {
      words = "the program has no code for this GPU (" + arch_words + " was asked for)";
    } else if (rr.ok()) {
      words = "the program ran but did not print " + nvcc_expected_line();
    }
    std::string ended = rr.signal ? "signal " + std::to_string(rr.signal) : "exit " + std::to_string(rr.exit_code);
    const std::string tail = last_lines(said, 6);
    run.detail = words + " (" + ended + ")" + (tail.empty() ? "" : ": " + tail);
  }
  out.push_back(run);
  return out;
}

}  // namespace gpuready::verify
