// The deep framework checks (probe/framework_checks.cpp + probe/checks/framework_check.py + the
// doctor's rules_deep.cpp), end to end without a GPU: the real Python interpreter of this machine
// runs the real check script against stand-in framework packages (tests/fixtures/frameworks/,
// each reproducing one real failure) installed in virtual environments made here, as `python -m
// venv` makes them (pyvenv.cfg + bin/python3 + lib/pythonX.Y/site-packages).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "doctor/doctor.h"
#include "platform/os.h"
#include "probe/probe.h"

using namespace gpuready;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// This machine's python3 and its version, or nullopt (the test then skips, saying so).
struct Python {
  std::string path, version, xy;
};
std::optional<Python> host_python() {
  for (const char* p : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (!fs::exists(p)) continue;
    ProcOptions o;
    o.timeout = std::chrono::seconds(20);
    const ProcResult r = real_os().proc.run({p, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"}, o);
    if (!r.ok()) continue;
    Python py{p, r.out.substr(0, r.out.find('\n')), ""};
    py.xy = py.version.substr(0, py.version.rfind('.'));
    return py;
  }
  return std::nullopt;
}

// A virtual environment holding the named fixture packages.
class Venvs {
 public:
  explicit Venvs(const Python& py) : py_(py) {
    std::string err;
    root_ = make_temp_dir("venvs", &err).value_or("");
  }
  ~Venvs() {
    if (!root_.empty()) remove_tree(root_);
  }
  std::string make(const std::string& name, const std::vector<std::string>& fixtures) {
    const fs::path env = fs::path(root_) / name;
    fs::create_directories(env / "bin");
    fs::create_symlink(py_.path, env / "bin" / "python3");
    std::ofstream(env / "pyvenv.cfg") << "home = " << fs::path(py_.path).parent_path().string()
                                      << "\ninclude-system-site-packages = false\nversion = " << py_.version << "\n";
    const fs::path site = env / "lib" / ("python" + py_.xy) / "site-packages";
    fs::create_directories(site);
    for (const auto& f : fixtures)
      fs::copy(fs::path(GPUREADY_FIXTURES) / "frameworks" / f, site, fs::copy_options::recursive);
    return (env / "bin" / "python3").string();
  }
  const std::string& root() const { return root_; }

 private:
  Python py_;
  std::string root_;
};

// The probe's view of one interpreter (its packages, as `gpuready probe` reads them).
PythonEnv probe_env(const std::string& python) {
  ProbeOptions o;
  o.python_paths = {python};
  std::vector<PythonEnv> envs;
  collect_python(real_os(), o, envs);
  for (auto& e : envs)
    if (e.interpreter == python) return e;
  ADD_FAILURE() << "the probe did not find " << python;
  return {};
}

// The snapshot of a machine without a GPU holding these environments, deep-checked.
Snapshot deep_snapshot(const std::vector<std::string>& pythons, std::chrono::milliseconds timeout) {
  Snapshot s;
  for (const auto& p : pythons) s.python.push_back(probe_env(p));
  collect_frameworks(real_os(), s.python, timeout, {}, s.frameworks);
  return s;
}

const FrameworkCheck* check_of(const Snapshot& s, const std::string& python, const std::string& framework) {
  for (const auto& k : s.frameworks)
    if (k.python == python && k.framework == framework) return &k;
  return nullptr;
}

std::vector<const doctor::Finding*> findings(const doctor::Report& r, const std::string& code,
                                             const std::string& python) {
  std::vector<const doctor::Finding*> out;
  for (const auto& f : r.findings)
    if (f.code == code && f.python == python) out.push_back(&f);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

#define NEED_PYTHON(py)                                                    \
  const auto py = host_python();                                           \
  if (!py) GTEST_SKIP() << "no python3 on this machine to run the checks"; \
  Venvs venvs(*py);                                                        \
  ASSERT_FALSE(venvs.root().empty())

}  // namespace

TEST(FrameworkChecks, TensorflowWithoutItsCudaLibrariesSeesNoGpuAndItsWordsAreExplained) {
  NEED_PYTHON(py);
  const std::string python = venvs.make("tf", {"tf29_missing_cudart"});
  const Snapshot s = deep_snapshot({python}, std::chrono::seconds(60));
  const FrameworkCheck* k = check_of(s, python, "tensorflow");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->status, "no-gpu") << k->error << "\n" << k->output;
  EXPECT_EQ(k->package, "tensorflow");
  EXPECT_EQ(k->version.value_or(""), "2.9.1");
  EXPECT_EQ(k->built_cuda.value_or(""), "11.2");
  EXPECT_EQ(k->built_cudnn.value_or(""), "8");
  EXPECT_EQ(k->arch_list.size(), 6u);
  EXPECT_TRUE(k->import_seconds.has());
  EXPECT_NE(k->output.find("Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0"),
            std::string::npos)
      << k->output;
  EXPECT_NE(k->output.find("Skipping registering GPU devices"), std::string::npos) << k->output;
  EXPECT_EQ(k->output.find("gpuready-check-stage"), std::string::npos) << "the stage lines are not its output";

  const auto r = doctor::diagnose(s, knowledge::Compat::embedded());
  const auto f = findings(r, "framework.sees-no-gpu", python);
  ASSERT_EQ(f.size(), 1u);
  const std::string evidence = joined(f[0]->evidence);
  EXPECT_NE(f[0]->title.find("TensorFlow 2.9.1"), std::string::npos) << f[0]->title;
  EXPECT_NE(evidence.find("known failure dso.tf-so-missing"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("known failure tf.cannot-dlopen-gpu-libs"), std::string::npos) << evidence;
  EXPECT_NE(joined(f[0]->fix).find("libcudart.so.11.0"), std::string::npos) << joined(f[0]->fix);
  for (const auto& v : r.frameworks)
    if (v.name == "tensorflow") {
      EXPECT_FALSE(v.ready);
      EXPECT_EQ(v.check_status, "no-gpu");
    }
}

TEST(FrameworkChecks, ACpuOnlyTorchSeesNoGpuAndIsToldOnceOnAGpuMachine) {
  NEED_PYTHON(py);
  const std::string python = venvs.make("torch", {"torch_cpu"});
  Snapshot s = deep_snapshot({python}, std::chrono::seconds(60));
  const FrameworkCheck* k = check_of(s, python, "pytorch");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->status, "no-gpu") << k->error << "\n" << k->output;
  EXPECT_EQ(k->version.value_or(""), "2.11.0+cpu");
  EXPECT_FALSE(k->built_cuda.has());
  EXPECT_NE(k->built_cuda.why().find("CPU-only"), std::string::npos) << k->built_cuda.why();

  // No GPU here: the deep finding says it is a CPU-only build.
  auto r = doctor::diagnose(s, knowledge::Compat::embedded());
  auto f = findings(r, "framework.sees-no-gpu", python);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->title.find("CPU-only build"), std::string::npos) << f[0]->title;

  // On a GPU machine the static rule (from the wheel's metadata) says it: not twice.
  PciGpu g;
  g.vendor = "nvidia";
  s.pci_gpus.push_back(g);
  r = doctor::diagnose(s, knowledge::Compat::embedded());
  EXPECT_EQ(findings(r, "framework.sees-no-gpu", python).size(), 0u);
  EXPECT_EQ(findings(r, "torch.cpu-only", python).size(), 1u);
}

TEST(FrameworkChecks, AnImportThatHangsIsStoppedAtTheTimeout) {
  NEED_PYTHON(py);
  const std::string python = venvs.make("jax", {"jax_hangs"});
  const auto t0 = Clock::now();
  const FrameworkCheck k = check_framework(real_os(), python, "jax", "jax", std::chrono::seconds(2));
  EXPECT_LT(since(t0), 6.0);
  EXPECT_EQ(k.status, "timeout");
  EXPECT_EQ(k.stage, "import");
  EXPECT_NE(k.error.find("did not finish within 2 s: stopped while importing it"), std::string::npos) << k.error;

  Snapshot s;
  s.python.push_back(probe_env(python));
  s.frameworks = {k};
  const auto r = doctor::diagnose(s, knowledge::Compat::embedded());
  ASSERT_EQ(findings(r, "framework.check-timeout", python).size(), 1u);
}

TEST(FrameworkChecks, AnInterpreterCrashIsReportedWithWhereItDied) {
  NEED_PYTHON(py);
  const std::string python = venvs.make("crash", {"torch_crashes"});
  const FrameworkCheck k = check_framework(real_os(), python, "pytorch", "torch", std::chrono::seconds(30));
  EXPECT_EQ(k.status, "crashed");
  EXPECT_EQ(k.stage, "import");
  EXPECT_NE(k.error.find("SIGSEGV"), std::string::npos) << k.error;
  EXPECT_NE(k.output.find("Fatal Python error: Segmentation fault"), std::string::npos) << k.output;

  Snapshot s;
  s.python.push_back(probe_env(python));
  s.frameworks = {k};
  const auto r = doctor::diagnose(s, knowledge::Compat::embedded());
  const auto f = findings(r, "framework.crashed", python);
  ASSERT_EQ(f.size(), 1u);
  // The frame it died in: the package's own file.
  EXPECT_NE(joined(f[0]->evidence).find("torch/__init__.py\", line 5"), std::string::npos) << joined(f[0]->evidence);
}

TEST(FrameworkChecks, EnvironmentsAndFrameworksAreCheckedInParallel) {
  NEED_PYTHON(py);
  const std::string a = venvs.make("a", {"tf29_missing_cudart", "torch_cpu", "jax_hangs"});
  const std::string b = venvs.make("b", {"torch_crashes", "jax_hangs"});
  const auto t0 = Clock::now();
  const Snapshot s = deep_snapshot({a, b}, std::chrono::seconds(3));
  // Two imports hang for the whole timeout: one after the other would take 6 s and more.
  EXPECT_LT(since(t0), 5.5);
  ASSERT_EQ(s.frameworks.size(), 5u);
  EXPECT_EQ(check_of(s, a, "tensorflow")->status, "no-gpu");
  EXPECT_EQ(check_of(s, a, "pytorch")->status, "no-gpu");
  EXPECT_EQ(check_of(s, a, "jax")->status, "timeout");
  EXPECT_EQ(check_of(s, b, "pytorch")->status, "crashed");
  EXPECT_EQ(check_of(s, b, "jax")->status, "timeout");
}

TEST(FrameworkChecks, NeverImportsFromTheFolderGpureadyRunsIn) {
  NEED_PYTHON(py);
  const std::string python = venvs.make("tf", {"tf29_missing_cudart"});
  // The user's folder holds a tensorflow.py of their own (a classic shadowing mistake).
  const fs::path here = fs::path(venvs.root()) / "project";
  fs::create_directories(here);
  std::ofstream(here / "tensorflow.py") << "raise RuntimeError('the local tensorflow.py was imported')\n";
  const fs::path before = fs::current_path();
  fs::current_path(here);
  const FrameworkCheck k = check_framework(real_os(), python, "tensorflow", "tensorflow", std::chrono::seconds(60));
  fs::current_path(before);
  EXPECT_EQ(k.version.value_or(""), "2.9.1") << k.error << "\n" << k.output;
  EXPECT_EQ(k.output.find("local tensorflow.py"), std::string::npos) << k.output;
}

TEST(FrameworkChecks, AnInterpreterThatPrintsMegabytesOfGarbageIsBoundedAndSaidSo) {
  // Not a Python at all: a program that answers the check with 20 MiB of random bytes on both streams.
  std::string err;
  const auto dir = make_temp_dir("garbage", &err);
  ASSERT_TRUE(dir) << err;
  const std::string python = *dir + "/python3";
  std::ofstream(python) << "#!/bin/sh\nhead -c 10485760 /dev/urandom\nhead -c 10485760 /dev/urandom >&2\nexit 0\n";
  fs::permissions(python, fs::perms::owner_all);
  const auto t0 = Clock::now();
  const FrameworkCheck k = check_framework(real_os(), python, "pytorch", "torch", std::chrono::seconds(30));
  EXPECT_LT(since(t0), 20.0);
  EXPECT_EQ(k.status, "crashed");
  EXPECT_NE(k.error.find("exited without an answer"), std::string::npos) << k.error;
  EXPECT_LE(k.output.size(), 64u * 1024u);  // what is kept of its output is capped
  Snapshot s;
  s.frameworks = {k};
  EXPECT_NO_THROW((void)doctor::report_to_json(doctor::diagnose(s, knowledge::Compat::embedded())).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace));
  remove_tree(*dir);
}

TEST(FrameworkChecks, AnInterpreterThatCannotStartIsANotRunFinding) {
  const FrameworkCheck k =
      check_framework(real_os(), "/nonexistent/bin/python3", "pytorch", "torch", std::chrono::seconds(5));
  EXPECT_EQ(k.status, "error");
  EXPECT_NE(k.error.find("could not run /nonexistent/bin/python3"), std::string::npos) << k.error;
  Snapshot s;
  s.frameworks = {k};
  const auto r = doctor::diagnose(s, knowledge::Compat::embedded());
  EXPECT_EQ(findings(r, "framework.check-not-run", "/nonexistent/bin/python3").size(), 1u);
}

TEST(FrameworkChecks, DoctorDeepEndToEnd) {
  NEED_PYTHON(py);
  const std::string a = venvs.make("a", {"tf29_missing_cudart", "torch_cpu", "jax_hangs"});
  const std::string b = venvs.make("b", {"torch_crashes"});
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  const auto t0 = Clock::now();
  const ProcResult r = real_os().proc.run(
      {GPUREADY_EXE, "doctor", "--deep", "--json", "--python", a, "--python", b, "--framework-timeout", "3"}, o);
  EXPECT_LT(since(t0), 30.0);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::multiset<std::string> seen;
  for (const auto& f : j["findings"])
    if (f["python"] == a || f["python"] == b)
      seen.insert(f["code"].get<std::string>() + " " + f["python"].get<std::string>());
  // TensorFlow and torch see no GPU; on a machine with a GPU the CPU-only torch is torch.cpu-only (from its wheel).
  EXPECT_GE(seen.count("framework.sees-no-gpu " + a), 1u);
  EXPECT_EQ(seen.count("framework.sees-no-gpu " + a) + seen.count("torch.cpu-only " + a), 2u);
  EXPECT_EQ(seen.count("framework.check-timeout " + a), 1u);
  EXPECT_EQ(seen.count("framework.crashed " + b), 1u);
  // --deep and --replay do not go together (a replay has its own checks, if any).
  const ProcResult bad = real_os().proc.run({GPUREADY_EXE, "doctor", "--deep", "--replay", "x.json"}, o);
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
}
