// collect_frameworks: the deep checks. Package metadata (python_packages.cpp) says what is
// installed; only importing says whether it works: a missing DLL, a CPU-only build, a driver too
// old, a GPU without kernels all show up first on import or on the first operation. So each
// framework of each environment is imported by the embedded script probe/checks/framework_check.py,
// in its own child (an import can hang or crash the interpreter), with a timeout, from an empty
// folder (a torch.py in the user's folder must not shadow torch), with the user's environment plus
// a few variables that only make the framework say more or take less memory. The script reports
// facts; the status here is read from them; the doctor's rules (rules_deep.cpp) judge.
#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "parse/cuda_headers.h"
#include "parse/framework_answer.h"
#include "platform/child.h"
#include "probe/libraries_catalog.h"
#include "probe/probe.h"
#include "probe/python_internal.h"

namespace gpuready {
namespace {

// At most n holders at once (std::counting_semaphore's job; written out because the portable Linux build's C++
// library, Debian 11's libstdc++ 10, has no <semaphore>). A Held slot is given back however its scope ends.
class Slots {
 public:
  explicit Slots(unsigned n) : free_(n) {}
  class Held {
   public:
    explicit Held(Slots& s) : s_(s) {
      std::unique_lock lock(s_.m_);
      s_.cv_.wait(lock, [this] { return s_.free_ > 0; });
      --s_.free_;
    }
    ~Held() {
      {
        std::lock_guard lock(s_.m_);
        ++s_.free_;
      }
      s_.cv_.notify_one();
    }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    Slots& s_;
  };

 private:
  std::mutex m_;
  std::condition_variable cv_;
  unsigned free_;
};

constexpr size_t kMaxOutputKept = 32 * 1024;

// The stage as a reader says it: "import" -> "importing it"; "gpu-op matmul" -> "running matmul on the GPU".
std::string stage_words(const std::string& stage) {
  if (stage.empty() || stage == "start") return "starting";
  if (stage == "import") return "importing it";
  if (stage == "build") return "reading its build information";
  if (stage == "devices") return "listing its GPUs";
  if (stage.rfind("gpu-op ", 0) == 0) return "running " + stage.substr(7) + " on the GPU";
  if (stage == "libraries") return "listing its loaded libraries";
  return stage;
}

void set_status(FrameworkCheck& c, const ChildRun& run, const std::optional<parse::FrameworkAnswer>& a,
                std::chrono::milliseconds timeout) {
  const ProcResult& r = run.proc;
  const std::string announced = parse::last_check_stage(r.err);
  if (run.end == ChildRun::End::not_started) {
    c.status = "error";
    c.error = "could not run " + c.python + ": " + (r.error.empty() ? run.how : r.error);
    return;
  }
  if (run.end == ChildRun::End::timed_out) {
    c.status = "timeout";
    c.stage = announced;
    c.error = fmt::format("did not finish within {}: stopped while {}", python::seconds_text(timeout),
                          stage_words(announced));
    return;
  }
  if (!a) {
    c.status = "crashed";
    c.stage = announced;
    c.error = "the interpreter " +
              (run.end == ChildRun::End::exited ? std::string("exited without an answer") : run.how) + " while " +
              stage_words(announced);
    return;
  }
  if (!a->error_stage.empty()) {
    c.stage = a->error_stage;
    if (a->error_stage == "import" || a->error_stage == "start")
      c.status = "import-failed";
    else if (a->error_stage.rfind("gpu-op", 0) == 0)
      c.status = "op-failed";
    else if (a->error_stage == "devices")
      c.status = "no-gpu";
    else
      c.status = "error";
    return;
  }
  if (!a->gpu_available) {
    c.status = "no-gpu";
    return;
  }
  for (const auto& op : c.ops)
    if (!op.error.empty()) {
      c.status = "op-failed";
      c.stage = "gpu-op " + op.name;
      return;
    }
  for (const auto& op : c.ops)
    if (!op.max_error.has() || op.max_error.value() > kFrameworkOpTolerance) {
      c.status = "wrong-result";
      return;
    }
  c.status = c.ops.empty() ? "error" : "ready";
  if (c.ops.empty()) c.error = "it sees a GPU but ran no operation on it";
}

// Which library a loaded file is ("cudnn", "cudnn_graph", "cudart"), and the version its name carries.
void classify(LoadedLibrary& l) {
  const std::string name = path_file_name(l.path);
  const auto f = parse::parse_library_file_name(name);
  if (!f) return;
  if (const auto* kind = probe_detail::kind_for_stem(f->stem, f->windows)) {
    l.library = kind->library;
  } else {
    // cuDNN's sub-libraries: libcudnn_graph.so.9, cudnn_ops_infer64_8.dll.
    std::string stem = f->windows ? parse::ascii_lower(f->stem) : f->stem;
    if (stem.rfind("lib", 0) == 0) stem = stem.substr(3);
    for (int major : {8, 9}) {
      const auto& subs = probe_detail::cudnn_sub_libraries(major);
      if (std::find(subs.begin(), subs.end(), stem) != subs.end()) l.library = stem;
    }
  }
  // Only a full version: "libcudnn.so.9" names the major its users ask for, not the version it is.
  if (!l.version.has() && std::count(f->version.begin(), f->version.end(), '.') >= 2) {
    l.version = f->version;
    l.version_source = "file name";
  } else if (!l.version.has() && !l.library.empty()) {
    l.version =
        Fact<std::string>::unknown(f->version.empty() ? "its file name carries no version"
                                                      : "its file name gives only the major (" + f->version + ")");
  }
}

// A check before (or without) an answer: every fact unknown for the same reason.
FrameworkCheck not_imported(const std::string& python, const std::string& framework, const std::string& package) {
  FrameworkCheck c;
  c.framework = framework;
  c.package = package;
  c.python = python;
  const auto why = Fact<std::string>::unknown("not imported");
  c.version = c.built_cuda = c.built_cudnn = c.runtime_cudnn = c.runtime_cuda = why;
  c.import_seconds = Fact<double>::unknown("not imported");
  return c;
}

}  // namespace

FrameworkCheck check_framework(const Os& os, const std::string& python, const std::string& framework,
                               const std::string& package, std::chrono::milliseconds timeout) {
  FrameworkCheck c = not_imported(python, framework, package);
  ChildSpec po;
  po.argv = {python, "-u", "-", framework};
  po.timeout = timeout;
  po.max_output = 4u << 20;
  po.private_dir = true;  // an empty folder of its own: nothing there to import by accident
  po.stdin_data = std::string(framework_check_script());
  // Only what makes the framework say why, and take less of a GPU others may be using.
  po.set_env = {{"PYTHONDONTWRITEBYTECODE", "1"},
                {"PYTHONIOENCODING", "utf-8"},
                {"TF_CPP_MIN_LOG_LEVEL", "0"},
                {"TF_FORCE_GPU_ALLOW_GROWTH", "true"},
                {"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}};
  po.unset_env = {"PYTHONINSPECT", "PYTHONSTARTUP"};
  const ChildRun run = run_child(os, po);
  const ProcResult& r = run.proc;
  c.seconds = run.seconds;

  const auto answer = r.started ? parse::parse_framework_answer(r.out, c) : std::nullopt;
  set_status(c, run, answer, timeout);
  c.output = parse::framework_output(r.out, r.err, kMaxOutputKept);
  for (auto& l : c.libraries) classify(l);
  return c;
}

void collect_frameworks(const Os& os, const std::vector<PythonEnv>& python, std::chrono::milliseconds timeout,
                        const std::vector<std::string>& only, std::vector<FrameworkCheck>& out) {
  struct Job {
    const PythonEnv* env;
    std::string framework, package;
  };
  std::vector<Job> jobs;
  for (const auto& env : python)
    for (const auto& p : env.packages) {
      const std::string fw = framework_of_package(p.name);
      if (fw.empty() || (!only.empty() && std::find(only.begin(), only.end(), fw) == only.end())) continue;
      if (std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.env == &env && j.framework == fw; }))
        continue;
      jobs.push_back({&env, fw, p.name});
    }
  // Imports are CPU-bound for a second or two each: as many at once as there are CPUs (at least 2).
  static Slots slots(std::clamp(std::thread::hardware_concurrency(), 2u, 64u));
  auto run = [&os, timeout](const Job& j) {
    // An interpreter the probe could not even find (a dangling venv link) is not run.
    if (!j.env->error.empty() && !j.env->prefix.has()) {
      FrameworkCheck c = not_imported(j.env->interpreter, j.framework, j.package);
      c.status = "error";
      c.error = "not run: " + j.env->error;
      return c;
    }
    // One slot for the length of the check, given back however it ends (an exception included).
    Slots::Held slot(slots);
    return check_framework(os, j.env->interpreter, j.framework, j.package, timeout);
  };
  std::vector<std::future<FrameworkCheck>> results;
  for (const auto& j : jobs) {
    try {
      results.push_back(std::async(std::launch::async, run, j));
    } catch (const std::system_error&) {  // no thread to be had: later, on this one
      results.push_back(std::async(std::launch::deferred, run, j));
    }
  }
  for (auto& f : results) out.push_back(f.get());
}

void fill_loaded_versions(const Os& os, const LibraryFacts& libraries, std::vector<FrameworkCheck>& checks) {
  auto real = [&](const std::string& p) { return os.fs.canonical(p).value_or(p); };
  std::vector<std::string> copy_files;  // each copy's real file, resolved once
  for (const auto& copy : libraries.copies) copy_files.push_back(real(copy.path));
  for (auto& c : checks)
    for (auto& l : c.libraries) {
      if (l.version.has() || l.library.empty()) continue;
      const std::string file = real(l.path);
      for (size_t i = 0; i < libraries.copies.size(); ++i)
        if (const auto& copy = libraries.copies[i];
            copy.version.has() && (copy.path == l.path || copy_files[i] == file)) {
          l.version = copy.version.value();
          l.version_source = "probe (" + copy.version_source + ")";
          break;
        }
      if (l.version.has() || l.library.rfind("cudnn_", 0) != 0) continue;
      // A cuDNN sub-library: the version of the set in its folder.
      const std::string dir = path_folder(file);
      for (const auto& set : libraries.cudnn_sets)
        if (set.version.has() && real(set.dir) == dir) {
          l.version = set.version.value();
          l.version_source = "probe (the cuDNN set in its folder)";
          break;
        }
    }
}

}  // namespace gpuready
