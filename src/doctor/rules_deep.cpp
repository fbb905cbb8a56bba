// Rules about what importing each framework showed (Snapshot::frameworks, from `doctor --deep`,
// `probe --deep` or `verify`): it did not import, crashed, hung, sees no GPU, failed or computed
// wrong on it, loaded a CUDA library from two places, or printed a known problem. What the
// framework printed goes through the explain catalogue (data/error_signatures.csv), so its own
// words become the cause and the fix.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "doctor/explain.h"
#include "doctor/rules.h"

namespace gpuready::doctor {
namespace {

std::string display_name(const std::string& fw) {
  if (fw == "pytorch") return "PyTorch";
  if (fw == "tensorflow") return "TensorFlow";
  if (fw == "jax") return "JAX";
  return fw;
}

// "torch 2.11.0+cu130 in /opt/venv/bin/python3"
std::string who(const FrameworkCheck& k) {
  return fmt::format("{}{} in {}", k.package.empty() ? k.framework : k.package,
                     k.version.has() ? " " + k.version.value() : std::string(), k.python);
}

Finding scoped(const FrameworkCheck& k) {
  Finding f;
  f.frameworks = {k.framework};
  f.python = k.python;
  return f;
}

// The import command a user can run to see the same thing.
std::string import_line(const FrameworkCheck& k) {
  const char* mod = k.framework == "pytorch" ? "torch" : k.framework == "tensorflow" ? "tensorflow" : "jax";
  return fmt::format("{} -c \"import {}\"   # the same import, by hand", k.python, mod);
}

// Known failures in what it printed, grouped by signature (harmless lines left out).
struct Problem {
  ExplainMatch match;
  std::vector<std::string> lines;  // every line that matched it
};

std::vector<Problem> problems(const Context& c, const FrameworkCheck& k) {
  const std::string text = k.output + "\n" + k.error + "\n" + k.gpu_error;
  std::vector<ExplainMatch> matches;
  if (&c.k == &knowledge::Compat::embedded()) {
    matches = Explainer::embedded().explain(text, &c.s);
  } else {
    matches = Explainer(c.k).explain(text, &c.s);
  }
  std::vector<Problem> out;
  for (auto& m : matches) {
    if (m.harmless) continue;
    std::string line = m.evidence.empty() ? std::string() : m.evidence.front();
    if (line.rfind("your text: ", 0) == 0) line = line.substr(11);
    auto it = std::find_if(out.begin(), out.end(), [&](const Problem& p) { return p.match.code == m.code; });
    if (it != out.end()) {
      if (!line.empty() && it->lines.size() < 4) it->lines.push_back(line);
      continue;
    }
    out.push_back({std::move(m), {}});
    if (!line.empty()) out.back().lines.push_back(line);
  }
  return out;
}

// Adds the known failures to a finding: the lines, the cause, the fix (the first fix wins the fix list).
void add_problems(Finding& f, const std::vector<Problem>& ps) {
  for (const auto& p : ps) {
    for (const auto& l : p.lines) f.evidence.push_back("it printed: " + l);
    f.evidence.push_back(fmt::format("known failure {}: {}", p.match.code, p.match.cause));
    if (f.fix.empty())
      for (const auto& x : p.match.fix) f.fix.push_back(x);
  }
}

// The last lines of what it printed (a traceback's end, a crash's stack).
std::vector<std::string> output_tail(const FrameworkCheck& k, size_t n) {
  std::vector<std::string> lines;
  size_t end = k.output.size();
  while (lines.size() < n && end > 0) {
    size_t start = k.output.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    if (end > start) lines.insert(lines.begin(), "  " + k.output.substr(start, end - start));
    if (start == 0) break;
    end = start - 1;
  }
  return lines;
}

// A crash's own report: faulthandler's "Fatal Python error" line and the innermost frames after it
// (most recent call first), else the last lines.
std::vector<std::string> crash_report(const FrameworkCheck& k, size_t frames) {
  const size_t at = k.output.find("Fatal Python error");
  if (at == std::string::npos) return output_tail(k, frames);
  std::vector<std::string> lines;
  size_t pos = at;
  while (pos < k.output.size() && lines.size() < frames + 2) {
    size_t eol = k.output.find('\n', pos);
    if (eol == std::string::npos) eol = k.output.size();
    if (eol > pos) lines.push_back("  " + k.output.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return lines;
}

bool machine_has_gpu(const Snapshot& s) { return nvidia_on_bus(s) || !s.nvidia.gpus.empty(); }

// The static rule torch.cpu-only already says this for a CPU-only wheel on a GPU machine.
bool static_cpu_only_covers(const Context& c, const FrameworkCheck& k) {
  if (k.framework != "pytorch" || !machine_has_gpu(c.s)) return false;
  for (const auto& f : c.frameworks) {
    if (f.framework == "pytorch" && f.env->interpreter == k.python) return torch_cpu_only_wheel(*f.package);
  }
  return false;
}

const PythonEnv* env_of(const Context& c, const std::string& python) {
  for (const auto& e : c.s.python)
    if (e.interpreter == python) return &e;
  return nullptr;
}

// One finding for each check with this status, its fields filled by `write(check, finding)`; a
// `write` that returns false leaves that check out.
template <class Write>
std::vector<Finding> per_check(const Context& c, const char* status, Write write) {
  std::vector<Finding> out;
  for (const auto& k : c.s.frameworks) {
    if (k.status != status) continue;
    Finding f = scoped(k);
    if (write(k, f)) out.push_back(std::move(f));
  }
  return out;
}

// When no known failure gave a fix: the import by hand, the advice, and the plan's reinstall.
void fix_or_reinstall(const Context& c, const FrameworkCheck& k, Finding& f, const std::string& advice) {
  if (!f.fix.empty()) return;
  f.fix = {import_line(k), advice};
  if (const PythonEnv* env = env_of(c, k.python))
    for (auto& l : reinstall_lines(c, k.framework, *env)) f.fix.push_back(l);
}

}  // namespace

std::vector<Finding> rule_deep_import_failed(const Context& c) {
  return per_check(c, "import-failed", [&](const FrameworkCheck& k, Finding& f) {
    f.title = fmt::format("{} cannot be imported in {}: {}", k.package, k.python, k.error);
    f.evidence = {"import " + (k.framework == "pytorch" ? std::string("torch") : k.framework) + " raised " + k.error};
    add_problems(f, problems(c, k));
    for (auto& l : output_tail(k, 4)) f.evidence.push_back(l);
    fix_or_reinstall(c, k, f,
                     "gpuready explain --file <the error saved to a file>   # its cause and fix, if it is a known one");
    return true;
  });
}

std::vector<Finding> rule_deep_crashed(const Context& c) {
  return per_check(c, "crashed", [&](const FrameworkCheck& k, Finding& f) {
    f.title = fmt::format("Python crashed with {}: {}", k.package, k.error);
    f.evidence = {who(k) + ": " + k.error};
    add_problems(f, problems(c, k));
    for (auto& l : crash_report(k, 6)) f.evidence.push_back(l);
    fix_or_reinstall(c, k, f,
                     "# a crash inside a native library: update the framework (and the driver), or reinstall it; "
                     "the stack above names the library it died in");
    return true;
  });
}

std::vector<Finding> rule_deep_timeout(const Context& c) {
  return per_check(c, "timeout", [&](const FrameworkCheck& k, Finding& f) {
    f.title = fmt::format("{} {}", who(k), k.error);
    f.evidence = {fmt::format("the last step it announced: {}", k.stage.empty() ? "none" : k.stage)};
    add_problems(f, problems(c, k));
    for (auto& l : output_tail(k, 4)) f.evidence.push_back(l);
    f.fix = {fmt::format("timeout 300 {} -c \"import {}\"   # by hand: does it ever finish?", k.python,
                         k.framework == "pytorch" ? "torch" : k.framework),
             "# a first import on a slow or network file system, or a first run compiling kernels for this GPU "
             "(PTX JIT), can take minutes: gpuready doctor --deep --framework-timeout 600",
             "# hung for good: a driver or GPU that does not answer (nvidia-smi hangs too), or a package that waits "
             "on the network at import"};
    return true;
  });
}

std::vector<Finding> rule_deep_no_gpu(const Context& c) {
  return per_check(c, "no-gpu", [&](const FrameworkCheck& k, Finding& f) {
    if (static_cpu_only_covers(c, k)) return false;
    const auto ps = problems(c, k);
    // Not a CUDA build at all (CPU-only, ROCm, JAX without its CUDA plugin): the reinstall is the fix.
    const bool not_cuda = !k.built_cuda.has() && k.built_cuda.why() != "the framework does not say";
    const std::string cause = not_cuda ? k.built_cuda.why() : ps.empty() ? std::string() : ps.front().match.title;
    f.title = fmt::format("{} {}in {} sees no GPU{}", display_name(k.framework),
                          k.version.has() ? k.version.value() + " " : std::string(), k.python,
                          cause.empty() ? std::string() : ": " + cause);
    f.evidence.push_back(fmt::format("{}: built with CUDA {}; GPUs it lists: none", who(k),
                                     k.built_cuda.has() ? k.built_cuda.value() : "none (" + k.built_cuda.why() + ")"));
    if (!k.gpu_error.empty()) f.evidence.push_back("it says: " + k.gpu_error);
    if (!k.error.empty()) f.evidence.push_back("it raised: " + k.error);
    if (!machine_has_gpu(c.s))
      f.evidence.push_back("gpuready finds no NVIDIA GPU on this machine either (gpu.none): that comes first");
    if (not_cuda)
      if (const PythonEnv* env = env_of(c, k.python)) f.fix = reinstall_lines(c, k.framework, *env);
    add_problems(f, ps);
    if (f.fix.empty())
      f.fix = {"nvidia-smi   # the driver must list the GPU first",
               "echo \"$CUDA_VISIBLE_DEVICES\"   # an empty or wrong list hides GPUs from every framework",
               import_line(k)};
    return true;
  });
}

std::vector<Finding> rule_deep_op_failed(const Context& c) {
  return per_check(c, "op-failed", [&](const FrameworkCheck& k, Finding& f) {
    std::string what = k.error;
    std::string op_name = k.stage.rfind("gpu-op ", 0) == 0 ? k.stage.substr(7) : "an operation";
    for (const auto& op : k.ops)
      if (!op.error.empty()) {
        what = op.error;
        op_name = op.name;
        break;
      }
    f.title = fmt::format("{} sees the GPU, but {} on it fails: {}", who(k), op_name, what);
    for (const auto& d : k.devices)
      f.evidence.push_back(fmt::format("GPU {}: {} (compute capability {})", d.index, d.name,
                                       d.compute_capability.has() ? d.compute_capability.value() : "?"));
    if (!k.arch_list.empty()) {
      std::string archs;
      for (const auto& a : k.arch_list) archs += (archs.empty() ? "" : " ") + a;
      f.evidence.push_back("kernels the build carries: " + archs);
    }
    add_problems(f, problems(c, k));
    for (auto& l : output_tail(k, 4)) f.evidence.push_back(l);
    if (f.fix.empty()) f.fix = {import_line(k), "gpuready verify   # the GPU itself: copies, matrix products, memory"};
    return true;
  });
}

std::vector<Finding> rule_deep_wrong_result(const Context& c) {
  return per_check(c, "wrong-result", [&](const FrameworkCheck& k, Finding& f) {
    std::string worst;
    for (const auto& op : k.ops) {
      const std::string e = op.max_error.has() ? fmt::format("{:.3g}", op.max_error.value()) : op.max_error.why();
      f.evidence.push_back(fmt::format("{}: GPU vs CPU, largest difference {} of the largest value (allowed {:g})",
                                       op.name, e, kFrameworkOpTolerance));
      if (!op.max_error.has() || op.max_error.value() > kFrameworkOpTolerance) worst = op.name;
    }
    f.title = fmt::format("{}: {} on the GPU gives a different result than on the CPU", who(k), worst);
    f.fix = {"gpuready verify   # copies, matrix products and a memory test with known data",
             "sudo dmesg | grep -i -E 'xid|nvrm'   # errors the driver logged",
             "nvidia-smi -q -d ECC,ROW_REMAPPER   # memory errors the GPU counted",
             "# the operands are exact in fp32 and TF32: any difference beyond rounding is the GPU, its memory or the "
             "framework's kernels computing wrong"};
    return true;
  });
}

std::vector<Finding> rule_deep_not_run(const Context& c) {
  return per_check(c, "error", [&](const FrameworkCheck& k, Finding& f) {
    f.title = fmt::format("gpuready could not check {} in {}: {}", k.package, k.python, k.error);
    f.evidence = {k.error};
    for (auto& l : output_tail(k, 4)) f.evidence.push_back(l);
    f.fix = {import_line(k)};
    return true;
  });
}

std::vector<Finding> rule_deep_library_mix(const Context& c) {
  std::vector<Finding> out;
  for (const auto& k : c.s.frameworks) {
    // cuDNN's main library and its sub-libraries count as one library: a dispatcher from one install
    // and engines from another is the classic mix.
    std::map<std::string, std::vector<const LoadedLibrary*>> by_library;
    for (const auto& l : k.libraries) {
      if (l.library.empty()) continue;
      by_library[l.library.rfind("cudnn", 0) == 0 ? "cudnn" : l.library].push_back(&l);
    }
    for (const auto& [lib, copies] : by_library) {
      std::vector<std::string> folders;
      for (const auto* l : copies) {
        const std::string dir = folder_key(path_folder(l->path));
        if (std::find(folders.begin(), folders.end(), dir) == folders.end()) folders.push_back(dir);
      }
      if (folders.size() < 2) continue;
      Finding f = scoped(k);
      f.title = fmt::format("{} loaded {} from {} different folders", who(k), lib, folders.size());
      for (const auto* l : copies)
        f.evidence.push_back(fmt::format("{} ({})", l->path, l->version.has() ? l->version.value() : "version ?"));
      f.evidence.push_back(
          "one process with two copies of a library uses whichever each caller bound first: versions mix silently");
      f.fix = for_os(c,
                     {"echo \"$LD_LIBRARY_PATH\"   # a folder here overrides the framework's own copies",
                      "# keep one copy: the framework's own (its pip wheels) — take the other folder out of "
                      "LD_LIBRARY_PATH, or uninstall the other copy"},
                     {"echo %PATH%   # a folder here can override the framework's own DLLs",
                      "# keep one copy: the framework's own — take the other folder out of PATH, or uninstall it"});
      out.push_back(std::move(f));
    }
    // The cuDNN it runs with is older than the one it was built with.
    if (k.built_cudnn.has() && k.runtime_cudnn.has()) {
      const auto built = Version::parse(k.built_cudnn.value());
      const auto run = Version::parse(k.runtime_cudnn.value());
      if (built && run && !built->parts.empty() && !run->parts.empty()) {
        const size_t n = std::min<size_t>(std::min(built->parts.size(), run->parts.size()), 2);
        const std::vector<long> b(built->parts.begin(), built->parts.begin() + static_cast<long>(n));
        const std::vector<long> r(run->parts.begin(), run->parts.begin() + static_cast<long>(n));
        if (r < b) {
          Finding f = scoped(k);
          f.title = fmt::format("{} runs with cuDNN {}, older than the {} it was built with", who(k),
                                k.runtime_cudnn.value(), k.built_cudnn.value());
          for (const auto& l : k.libraries)
            if (l.library.rfind("cudnn", 0) == 0)
              f.evidence.push_back(fmt::format("loaded {} ({})", l.path, l.version.has() ? l.version.value() : "?"));
          f.fix = {"# an older cuDNN earlier on the loader's path wins over the framework's own: see the folders above",
                   for_os(c, {"echo \"$LD_LIBRARY_PATH\""}, {"echo %PATH%"}).front()};
          out.push_back(std::move(f));
        }
      }
    }
  }
  return out;
}

std::vector<Finding> rule_deep_printed_problem(const Context& c) {
  std::vector<Finding> out;
  for (const auto& k : c.s.frameworks) {
    if (k.status != "ready") continue;
    for (const auto& p : problems(c, k)) {
      Finding f = scoped(k);
      f.title = fmt::format("{} works on the GPU but printed a known problem: {}", who(k), p.match.title);
      add_problems(f, {p});
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace gpuready::doctor
