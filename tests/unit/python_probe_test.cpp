// The Python collector over real layouts (tests/fixtures/python/*): which interpreters it
// finds, what files answer without running them, what it asks a scripted interpreter, and
// how it reports broken installs. Three tests use the real OS: python3, a hanging
// "interpreter", and a missing --python path.
#include <gtest/gtest.h>

#include <memory>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#ifndef _WIN32
#include <unistd.h>
#endif

#include "probe/probe.h"
#include "parse/pep440.h"
#include "probe/python_internal.h"
#include "support/test_os.h"

using namespace gpuready;
using gpuready::test::FixtureOs;

namespace {

const PythonEnv* env_of(const std::vector<PythonEnv>& envs, const std::string& interpreter) {
  for (const auto& e : envs)
    if (e.interpreter == interpreter) return &e;
  return nullptr;
}

const PythonPackage* pkg(const PythonEnv& e, const std::string& name) {
  for (const auto& p : e.packages)
    if (p.name == name) return &p;
  return nullptr;
}

std::string detail(const PythonPackage* p, const std::string& key) {
  if (!p) return "<no package>";
  auto it = p->details.find(key);
  return it == p->details.end() ? "<absent>" : it->second;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string names(const std::vector<PythonEnv>& envs) {
  std::string s;
  for (const auto& e : envs) s += e.interpreter + " ";
  return s;
}

ProcResult answer(const nlohmann::json& j) {
  ProcResult r;
  r.started = true;
  r.exit_code = 0;
  r.out = j.dump() + "\n";
  return r;
}

// What Ubuntu 24.04's /usr/bin/python3.12 prints for the collector's script.
ProcResult debian_python_312() {
  return answer({{"version", "3.12.3"},
                 {"prefix", "/usr"},
                 {"base_prefix", "/usr"},
                 {"site",
                  {"/usr/local/lib/python3.12/dist-packages", "/usr/lib/python3/dist-packages",
                   "/usr/lib/python3.12/dist-packages"}},
                 {"base_site", {"/usr/local/lib/python3.12/dist-packages"}},
                 {"user_site", "/root/.local/lib/python3.12/site-packages"},
                 {"platform", "linux"}});
}

}  // namespace

TEST(PythonPaths, BothLayouts) {
  EXPECT_EQ(python::parent("/usr/bin"), "/usr");
  EXPECT_EQ(python::parent("/usr"), "/");
  EXPECT_EQ(python::parent("C:\\Users"), "C:\\");
  EXPECT_EQ(python::parent("C:\\Users\\me\\python.exe"), "C:\\Users\\me");
  EXPECT_EQ(python::base_name("C:\\Users\\me\\python.exe"), "python.exe");
  EXPECT_EQ(python::join("C:\\x", "Lib/site-packages"), "C:\\x\\Lib\\site-packages");
  EXPECT_EQ(python::join("/x/", "lib"), "/x/lib");
  const auto w = python::split_search_path("C:\\a;\"C:\\Program Files\\b\";;C:\\c", false);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1], "C:\\Program Files\\b");
}

namespace {
// The H200 test machine as a fixture tree (python/h200_venv: its venv's dist-info folders;
// python/h200_closure: the same with every real METADATA), seen with the machine's PATH and
// VIRTUAL_ENV; only the system Python answers a question (Debian's 3.12).
std::unique_ptr<FixtureOs> h200_machine(const std::string& tree) {
  return std::make_unique<FixtureOs>(
      tree,
      std::map<std::string, std::string>{
          {"PATH", "/opt/torch/.venv/bin:/usr/bin:/bin"}, {"VIRTUAL_ENV", "/opt/torch/.venv"}, {"HOME", "/root"}},
      [](const std::vector<std::string>& argv, const ProcOptions&) {
        if (argv[0].rfind("/usr/bin/python3", 0) == 0) return debian_python_312();
        return ProcResult{};
      });
}
}  // namespace

// `pip install gpuready` into a venv puts the executable in <venv>/bin: run from there without activating the venv
// (no VIRTUAL_ENV, not on PATH), the doctor still looks at that venv, the one being diagnosed.
TEST(PythonProbe, TheVenvGpureadyIsInstalledInIsFoundWithoutActivation) {
  FixtureOs f("python/h200_venv", {{"PATH", "/usr/bin:/bin"}, {"HOME", "/root"}},
              [](const std::vector<std::string>& argv, const ProcOptions&) {
                if (argv[0].rfind("/usr/bin/python3", 0) == 0) return debian_python_312();
                return ProcResult{};
              });
  std::vector<PythonEnv> envs;
  collect_python(f.os(), ProbeOptions{}, envs);
  EXPECT_EQ(env_of(envs, "/opt/torch/.venv/bin/python3"), nullptr) << names(envs);  // /usr/bin/gpuready: not in it

  f.proc.self = "/opt/torch/.venv/bin/gpuready";
  envs.clear();
  collect_python(f.os(), ProbeOptions{}, envs);
  const PythonEnv* venv = env_of(envs, "/opt/torch/.venv/bin/python3");
  ASSERT_NE(venv, nullptr) << names(envs);
  EXPECT_TRUE(has(venv->found_by, "gpuready's own environment"));
  EXPECT_NE(pkg(*venv, "torch"), nullptr);
  EXPECT_EQ(python::own_environment(f.os()).value_or("?"), "/opt/torch/.venv");
  f.proc.self = "/opt/torch/bin/gpuready";  // a prefix that is no environment
  EXPECT_FALSE(python::own_environment(f.os()).has_value());
}

TEST(PythonProbe, H200VenvIsAnsweredByItsFilesAndTheSystemPythonIsAskedOnce) {
  const auto machine = h200_machine("python/h200_venv");
  const FixtureOs& f = *machine;
  std::vector<PythonEnv> envs;
  collect_python(f.os(), ProbeOptions{}, envs);
  ASSERT_EQ(envs.size(), 2u) << names(envs);

  const PythonEnv* venv = env_of(envs, "/opt/torch/.venv/bin/python3");
  ASSERT_NE(venv, nullptr) << names(envs);
  EXPECT_TRUE(has(venv->found_by, "venv"));
  EXPECT_TRUE(has(venv->found_by, "PATH"));
  EXPECT_EQ(venv->version.value_or("?"), "3.12.3");
  EXPECT_EQ(venv->prefix.value_or("?"), "/opt/torch/.venv");
  EXPECT_EQ(venv->site_packages, std::vector<std::string>{"/opt/torch/.venv/lib/python3.12/site-packages"});
  EXPECT_EQ(venv->error, "");

  const std::string sp = "/opt/torch/.venv/lib/python3.12/site-packages";
  const PythonPackage* torch = pkg(*venv, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version, "2.11.0+cu130");  // from torch/version.py: uv's METADATA says 2.11.0
  EXPECT_EQ(detail(torch, "metadata_version"), "2.11.0");
  EXPECT_EQ(detail(torch, "cuda"), "13.0");
  EXPECT_EQ(detail(torch, "variant"), "cu130");
  EXPECT_EQ(torch->location, sp + "/torch-2.11.0.dist-info");
  EXPECT_EQ(detail(pkg(*venv, "nvidia-cudnn-cu13"), "lib_dir"), sp + "/nvidia/cudnn/lib");
  EXPECT_EQ(pkg(*venv, "nvidia-cudnn-cu13")->version, "9.19.0.56");
  EXPECT_EQ(detail(pkg(*venv, "nvidia-cudnn-cu13"), "cuda_major"), "13");
  EXPECT_EQ(detail(pkg(*venv, "nvidia-nccl-cu13"), "lib_dir"), sp + "/nvidia/nccl/lib");
  EXPECT_EQ(detail(pkg(*venv, "nvidia-cublas"), "lib_dir"), sp + "/nvidia/cu13/lib");
  EXPECT_EQ(detail(pkg(*venv, "nvidia-cuda-runtime"), "lib_dir"), sp + "/nvidia/cu13/lib");
  EXPECT_EQ(detail(pkg(*venv, "cupy-cuda13x"), "cuda_major"), "13");
  for (const char* n : {"torchvision", "jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "numpy"})
    EXPECT_NE(pkg(*venv, n), nullptr) << n;
  EXPECT_EQ(pkg(*venv, "numpy")->version, "2.5.2");
  EXPECT_EQ(pkg(*venv, "requests"), nullptr);
  EXPECT_EQ(pkg(*venv, "pip"), nullptr);

  // Only the system interpreter (whose name says just "3.12") was run, once, isolated.
  ASSERT_EQ(f.proc.calls.size(), 1u);
  EXPECT_EQ(f.proc.calls[0][0], "/usr/bin/python3");
  EXPECT_EQ(f.proc.calls[0][1], "-I");
  const PythonEnv* sys = env_of(envs, "/usr/bin/python3");
  ASSERT_NE(sys, nullptr);
  EXPECT_EQ(sys->version.value_or("?"), "3.12.3");
  EXPECT_EQ(sys->prefix.value_or("?"), "/usr");
  // Existing folders only; the absent user site and /usr/lib/python3.12/dist-packages are left out.
  EXPECT_EQ(sys->site_packages,
            (std::vector<std::string>{"/usr/local/lib/python3.12/dist-packages", "/usr/lib/python3/dist-packages"}));
  EXPECT_EQ(sys->packages.size(), 0u);
}

TEST(PythonProbe, WindowsCondaEnvWithTensorflowGpu24) {
  const std::string slow = "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\python.exe";
  FixtureOs f("python/windows_conda",
              {{"SystemRoot", "C:\\Windows"},
               {"USERPROFILE", "C:\\Users\\me"},
               {"LOCALAPPDATA", "C:\\Users\\me\\AppData\\Local"},
               {"APPDATA", "C:\\Users\\me\\AppData\\Roaming"},
               {"CONDA_PREFIX", "C:\\Users\\me\\miniconda3\\envs\\tf"},
               // Under Wine the Linux environment comes along: Unix paths name no Windows folder.
               {"PYENV_ROOT", "/root/.pyenv"},
               {"VIRTUAL_ENV", "/home/me/venv"},
               {"PATH",
                "C:\\Users\\me\\miniconda3\\envs\\tf;C:\\Users\\me\\miniconda3\\envs\\tf\\Scripts;"
                "C:\\Windows\\system32;C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps"}},
              [&](const std::vector<std::string>& argv, const ProcOptions&) {
                ProcResult r;
                r.started = true;
                r.timed_out = argv[0] == slow;
                return r;
              });
  std::vector<PythonEnv> envs;
  collect_python(f.os(), ProbeOptions{}, envs);

  for (const auto& e : envs) EXPECT_NE(e.interpreter.front(), '/') << e.interpreter;
  const PythonEnv* tf = env_of(envs, "C:\\Users\\me\\miniconda3\\envs\\tf\\python.exe");
  ASSERT_NE(tf, nullptr) << names(envs);
  EXPECT_EQ(tf->found_by, (std::vector<std::string>{"conda", "PATH"}));
  EXPECT_EQ(tf->version.value_or("?"), "3.8.5");  // conda-meta/python-3.8.5-h5fd99cc_1.json
  EXPECT_EQ(tf->prefix.value_or("?"), "C:\\Users\\me\\miniconda3\\envs\\tf");
  EXPECT_EQ(tf->site_packages, std::vector<std::string>{"C:\\Users\\me\\miniconda3\\envs\\tf\\Lib\\site-packages"});
  const PythonPackage* tfgpu = pkg(*tf, "tensorflow-gpu");
  ASSERT_NE(tfgpu, nullptr);
  EXPECT_EQ(tfgpu->version, "2.4.0");
  EXPECT_EQ(detail(tfgpu, "cuda_version"), "11.0");
  EXPECT_EQ(detail(tfgpu, "cuda_version_raw"), "64_110");
  EXPECT_EQ(detail(tfgpu, "cudnn_version"), "8");
  EXPECT_EQ(detail(tfgpu, "is_cuda_build"), "true");
  EXPECT_EQ(detail(tfgpu, "cudart_dll_name"), "cudart64_110.dll");
  EXPECT_EQ(pkg(*tf, "numpy")->version, "1.19.5");
  const PythonPackage* cudnn = pkg(*tf, "cudnn");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_EQ(cudnn->version, "8.0.4");
  EXPECT_EQ(detail(cudnn, "installer"), "conda");
  EXPECT_EQ(pkg(*tf, "cudatoolkit")->version, "11.0.221");
  EXPECT_EQ(pkg(*tf, "pip"), nullptr);

  const PythonEnv* base = env_of(envs, "C:\\Users\\me\\miniconda3\\python.exe");
  ASSERT_NE(base, nullptr) << names(envs);
  EXPECT_EQ(base->version.value_or("?"), "3.9.12");
  EXPECT_TRUE(base->packages.empty());

  // The python.org install's files say "3.11" only: it is asked, hangs, and keeps its file facts.
  const PythonEnv* org = env_of(envs, slow);
  ASSERT_NE(org, nullptr) << names(envs);
  EXPECT_TRUE(has(org->found_by, "windows install"));
  EXPECT_EQ(org->error, "python.exe did not answer within 10 s: killed");
  EXPECT_EQ(org->version.value_or("?"), "3.11");
  EXPECT_EQ(pkg(*org, "numpy")->version, "1.26.4");

  EXPECT_EQ(envs.size(), 3u) << names(envs);  // the Store alias in WindowsApps is not an interpreter
  ASSERT_EQ(f.proc.calls.size(), 1u);
  EXPECT_EQ(f.proc.calls[0][0], slow);
}

TEST(PythonProbe, LinuxTensorflowWithNvidiaWheelsGivenAsAFolder) {
  FixtureOs f("python/linux_tf216", {{"PATH", "/usr/bin"}, {"HOME", "/home/u"}},
              [](const std::vector<std::string>&, const ProcOptions&) {
                ProcResult r;
                r.started = true;
                r.exit_code = 1;
                r.err = "Fatal Python error: init_fs_encoding: failed to get the Python codec\nmore\n";
                return r;
              });
  ProbeOptions opts;
  opts.python_paths = {"/home/u/tf"};
  std::vector<PythonEnv> envs;
  collect_python(f.os(), opts, envs);
  ASSERT_EQ(envs.size(), 2u) << names(envs);
  const PythonEnv& v = envs[0];
  EXPECT_EQ(v.interpreter, "/home/u/tf/bin/python3");
  EXPECT_EQ(v.found_by, std::vector<std::string>{"--python"});
  EXPECT_EQ(v.version.value_or("?"), "3.11.2");
  const std::string sp = "/home/u/tf/lib/python3.11/site-packages";
  const PythonPackage* tf = pkg(v, "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ(tf->version, "2.16.1");
  EXPECT_EQ(detail(tf, "cuda_version"), "12.3");
  EXPECT_EQ(detail(tf, "cudnn_version"), "8");
  EXPECT_EQ(detail(tf, "cuda_version_raw"), "<absent>");
  EXPECT_EQ(detail(tf, "is_cuda_build"), "true");
  EXPECT_EQ(detail(pkg(v, "nvidia-cudnn-cu12"), "lib_dir"), sp + "/nvidia/cudnn/lib");
  EXPECT_EQ(detail(pkg(v, "nvidia-cudnn-cu12"), "cuda_major"), "12");
  EXPECT_EQ(detail(pkg(v, "nvidia-cublas-cu12"), "lib_dir"), sp + "/nvidia/cublas/lib");
  // No RECORD: the CUDA 12 folder rule finds it.
  EXPECT_EQ(detail(pkg(v, "nvidia-cuda-runtime-cu12"), "lib_dir"), sp + "/nvidia/cuda_runtime/lib");
  EXPECT_NE(pkg(v, "keras"), nullptr);

  // The system python3.11 exits with an error: the first line of its stderr is kept.
  const PythonEnv& sys = envs[1];
  EXPECT_EQ(sys.interpreter, "/usr/bin/python3.11");
  EXPECT_EQ(sys.error,
            "python3.11 exited with code 1: Fatal Python error: init_fs_encoding: failed to get the Python codec");
  EXPECT_EQ(sys.version.value_or("?"), "3.11");
  ASSERT_EQ(f.proc.calls.size(), 1u);
}

TEST(PythonProbe, CpuTorchInPyenvBehindAShim) {
  FixtureOs f("python/cpu_torch", {{"PATH", "/root/.pyenv/shims:/usr/bin"}, {"HOME", "/root"}});
  std::vector<PythonEnv> envs;
  collect_python(f.os(), ProbeOptions{}, envs);
  ASSERT_EQ(envs.size(), 1u) << names(envs);
  const PythonEnv& e = envs[0];
  EXPECT_EQ(e.interpreter, "/root/.pyenv/versions/3.11.7/bin/python3");
  EXPECT_EQ(e.found_by, (std::vector<std::string>{"pyenv", "PATH (pyenv shim)"}));
  EXPECT_EQ(e.version.value_or("?"), "3.11.7");
  const PythonPackage* torch = pkg(e, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version, "2.5.1+cpu");
  EXPECT_EQ(detail(torch, "cuda"), "none");
  EXPECT_EQ(detail(torch, "variant"), "cpu");
  EXPECT_EQ(pkg(e, "numpy")->version, "2.1.3");
  EXPECT_TRUE(f.proc.calls.empty());  // neither the shim nor the pyenv version was run
}

TEST(PythonProbe, BrokenInstallsAreReportedNotFatal) {
  FixtureOs f("python/broken", {{"PATH", "/usr/bin"}, {"HOME", "/nohome"}});
  ProbeOptions opts;
  opts.python_paths = {"/srv/env/bin/python3", "/srv/oldvenv", "/srv/loop/python3", "/srv/nothing/python3",
                       "/srv/env/bin/python3.99"};
  std::vector<PythonEnv> envs;
  collect_python(f.os(), opts, envs);
  ASSERT_EQ(envs.size(), 5u) << names(envs);
  // A missing file in a real folder: its name must not pass for a version.
  EXPECT_FALSE(envs[4].version.has());
  EXPECT_TRUE(envs[4].packages.empty());

  const PythonEnv& e = envs[0];
  EXPECT_EQ(e.version.value_or("?"), "3.10.12");
  const PythonPackage* torch = pkg(e, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version, "2.1.0");
  EXPECT_EQ(detail(torch, "version_source"), "folder name");
  EXPECT_NE(detail(torch, "problem").find("METADATA has no Name/Version headers"), std::string::npos);
  EXPECT_NE(detail(torch, "problem").find("torch/version.py is missing"), std::string::npos);
  const PythonPackage* tf = pkg(e, "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ(tf->version, "2.15.0");
  EXPECT_NE(detail(tf, "problem").find("METADATA is missing or unreadable"), std::string::npos);
  EXPECT_EQ(pkg(e, "numpy")->version, "1.24.4");
  EXPECT_NO_THROW((void)nlohmann::json(e).dump());  // garbage bytes never reach the JSON

  // A venv whose base Python is gone: the link problem, plus what pyvenv.cfg and site-packages say.
  EXPECT_EQ(envs[1].interpreter, "/srv/oldvenv/bin/python3");
  EXPECT_NE(envs[1].error.find("which does not exist or loops"), std::string::npos) << envs[1].error;
  EXPECT_EQ(envs[1].version.value_or("?"), "3.9.2");
  EXPECT_EQ(pkg(envs[1], "numpy")->version, "1.19.5");

  EXPECT_NE(envs[2].error.find("/srv/loop/python3 is a link to python3"), std::string::npos) << envs[2].error;
  EXPECT_FALSE(envs[2].version.has());
  EXPECT_EQ(envs[3].error, "--python: /srv/nothing/python3: no such file");
  EXPECT_EQ(envs[3].version.why(), envs[3].error);
  EXPECT_TRUE(f.proc.calls.empty());
}

namespace {
// Fails every listing of a site folder, as a permission problem would.
class NoSiteListingFs final : public Fs {
 public:
  explicit NoSiteListingFs(const Fs& inner) : in_(inner) {}
  std::optional<std::string> read_file(const std::string& p, size_t n, std::string* e) const override {
    return in_.read_file(p, n, e);
  }
  std::optional<std::vector<DirEntry>> list_dir(const std::string& p, std::string* e) const override {
    if (p.size() >= 13 && p.substr(p.size() - 13) == "site-packages") {
      if (e) *e = p + ": Permission denied";
      return std::nullopt;
    }
    return in_.list_dir(p, e);
  }
  bool exists(const std::string& p) const override { return in_.exists(p); }
  bool is_dir(const std::string& p) const override { return in_.is_dir(p); }
  std::optional<std::string> read_link(const std::string& p) const override { return in_.read_link(p); }
  std::optional<std::string> canonical(const std::string& p) const override { return in_.canonical(p); }

 private:
  const Fs& in_;
};
}  // namespace

TEST(PythonProbe, UnreadableSitePackagesIsAnErrorOfThatEnvOnly) {
  FixtureOs f("python/h200_venv", {{"PATH", ""}});
  NoSiteListingFs fs(f.fs);
  ProbeOptions opts;
  opts.python_paths = {"/opt/torch/.venv/bin/python3"};
  std::vector<PythonEnv> envs;
  collect_python(Os{fs, f.env, f.proc, f.dl}, opts, envs);
  ASSERT_EQ(envs.size(), 1u) << names(envs);
  EXPECT_EQ(envs[0].version.value_or("?"), "3.12.3");
  EXPECT_TRUE(envs[0].packages.empty());
  EXPECT_EQ(envs[0].error,
            "cannot list /opt/torch/.venv/lib/python3.12/site-packages: "
            "/opt/torch/.venv/lib/python3.12/site-packages: Permission denied");
}

TEST(PythonProbe, ScriptedHangAndGarbageAnswersKeepFileFacts) {
  std::chrono::milliseconds seen{0};
  FixtureOs hang("python/h200_venv", {{"PATH", "/usr/bin"}},
                 [&](const std::vector<std::string>&, const ProcOptions& o) {
                   seen = o.timeout;
                   ProcResult r;
                   r.started = true;
                   r.timed_out = true;
                   return r;
                 });
  ProbeOptions opts;
  opts.child_timeout = std::chrono::milliseconds(1500);
  std::vector<PythonEnv> envs;
  collect_python(hang.os(), opts, envs);
  ASSERT_EQ(envs.size(), 1u) << names(envs);
  EXPECT_EQ(seen, std::chrono::milliseconds(1500));
  EXPECT_EQ(envs[0].error, "python3 did not answer within 1.5 s: killed");
  EXPECT_EQ(envs[0].version.value_or("?"), "3.12");  // from the file the link ends at
  EXPECT_EQ(envs[0].prefix.value_or("?"), "/usr");

  FixtureOs junk("python/h200_venv", {{"PATH", "/usr/bin"}}, [](const std::vector<std::string>&, const ProcOptions&) {
    ProcResult r;
    r.started = true;
    r.exit_code = 0;
    r.out = "Python 3.12.3\n";
    return r;
  });
  envs.clear();
  collect_python(junk.os(), ProbeOptions{}, envs);
  ASSERT_EQ(envs.size(), 1u);
  EXPECT_EQ(envs[0].error, "python3 answered something other than the expected JSON: Python 3.12.3");
}

// --- the real OS (POSIX: the hanging "interpreter" is a /bin/sh script) ---
#ifndef _WIN32

TEST(PythonProbeReal, RunsThisMachinesPython3) {
  const std::string py = "/usr/bin/python3";
  if (!real_os().fs.exists(py)) GTEST_SKIP() << "no " << py << " on this machine";
  ProbeOptions opts;
  opts.python_paths = {py};
  std::vector<PythonEnv> envs;
  const auto t0 = std::chrono::steady_clock::now();
  collect_python(real_os(), opts, envs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("collect_python on this machine: %.1f ms, %zu interpreters\n", ms, envs.size());
  ASSERT_FALSE(envs.empty());
  const PythonEnv& e = envs[0];
  EXPECT_EQ(e.interpreter, py);
  EXPECT_EQ(e.error, "");
  ASSERT_TRUE(e.version.has()) << e.version.why();
  // The real answer is a full X.Y.Z that starts with what the file name said.
  const std::string file_xy = python::file_facts(real_os(), py).version;
  EXPECT_EQ(e.version.value().rfind(file_xy + ".", 0), 0u) << e.version.value() << " vs " << file_xy;
  EXPECT_EQ(std::count(e.version.value().begin(), e.version.value().end(), '.'), 2);
  EXPECT_FALSE(e.site_packages.empty());
  EXPECT_LT(ms, 5000.0);
}

TEST(PythonProbeReal, HangingInterpreterIsKilledAtTheTimeout) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpuready-python-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path script = dir / "fake-python";
  { std::ofstream(script) << "#!/bin/sh\nsleep 30\n"; }
  fs::permissions(script, fs::perms::owner_all);
  ProbeOptions opts;
  opts.python_paths = {script.string()};
  opts.child_timeout = std::chrono::seconds(1);
  std::vector<PythonEnv> envs;
  const auto t0 = std::chrono::steady_clock::now();
  collect_python(real_os(), opts, envs);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fs::remove_all(dir);
  ASSERT_FALSE(envs.empty());
  EXPECT_EQ(envs[0].interpreter, script.string());
  EXPECT_EQ(envs[0].error, "fake-python did not answer within 1 s: killed");
  EXPECT_FALSE(envs[0].version.has());
  EXPECT_LT(s, 4.0);
  EXPECT_GE(s, 0.9);
}

TEST(PythonProbeReal, MissingPythonArgumentIsAClearMessage) {
  ProbeOptions opts;
  opts.python_paths = {"/nonexistent/gpuready-test/python3"};
  std::vector<PythonEnv> envs;
  collect_python(real_os(), opts, envs);
  ASSERT_FALSE(envs.empty());
  EXPECT_EQ(envs[0].interpreter, "/nonexistent/gpuready-test/python3");
  EXPECT_EQ(envs[0].error, "--python: /nonexistent/gpuready-test/python3: no such file");
  EXPECT_FALSE(envs[0].version.has());
  EXPECT_FALSE(envs[0].prefix.has());
}
#endif  // _WIN32

// ---- Requires-Dist: what the packages need, transitively, and what is installed ----

namespace {
std::vector<PythonEnv> probe_h200_closure() {
  // The H200 test machine's venv with every dist-info's real METADATA headers (copied from the
  // machine); there `python -m pip check` said "No broken requirements found."
  const auto machine = h200_machine("python/h200_closure");
  std::vector<PythonEnv> envs;
  collect_python(machine->os(), ProbeOptions{}, envs);
  return envs;
}
const PythonRequirement* req(const PythonEnv& e, const std::string& by, const std::string& name) {
  for (const auto& r : e.requirements)
    if (r.by == by && r.name == name) return &r;
  return nullptr;
}
}  // namespace

TEST(PythonRequirements, TheH200VenvsClosureIsReadAndAgreesWithPipCheck) {
  const auto envs = probe_h200_closure();
  const PythonEnv* venv = env_of(envs, "/opt/torch/.venv/bin/python3");
  ASSERT_NE(venv, nullptr) << names(envs);
  // torch's own pins, with the platform marker true on Linux, and what is installed.
  const auto* cudnn = req(*venv, "torch", "nvidia-cudnn-cu13");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_EQ(cudnn->specifier, "==9.19.0.56");
  EXPECT_EQ(cudnn->installed, "9.19.0.56");
  const auto* te = req(*venv, "torch", "typing-extensions");
  ASSERT_NE(te, nullptr);
  EXPECT_EQ(te->specifier, ">=4.10.0");
  EXPECT_FALSE(te->installed.empty());
  // Transitively: sympy (torch's) needs mpmath; cuda-toolkit[cublas,...] (torch's) brings its extras' wheels.
  EXPECT_NE(req(*venv, "sympy", "mpmath"), nullptr);
  const auto* cublas = req(*venv, "cuda-toolkit", "nvidia-cublas");
  ASSERT_NE(cublas, nullptr);
  EXPECT_FALSE(cublas->extra.empty());
  // jax[cuda13] is in use (its plugin is installed): its pins count; jax[tpu] is not (no libtpu).
  const auto* plugin = req(*venv, "jax", "jax-cuda13-plugin");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->extra, "cuda13");
  EXPECT_EQ(req(*venv, "jax", "libtpu"), nullptr);
  // Extras nobody asked for and only a package of another extra would need stay out (jax[ci] pins jaxlib 0.11.1).
  // (networkx[default] would bring numpy, scipy, pandas, matplotlib, all installed there: no GPU package, not counted.)
  for (const auto& r : venv->requirements) {
    EXPECT_NE(r.extra, "ci") << r.by << " " << r.name;
    EXPECT_FALSE(r.by == "networkx" && !r.extra.empty()) << r.name;
  }
  // pip check found nothing broken there; neither does this closure.
  for (const auto& r : venv->requirements) {
    const auto spec = parse::VersionSpecifier::parse(r.specifier);
    ASSERT_TRUE(spec) << r.by << " -> " << r.name << r.specifier;
    EXPECT_TRUE(!r.installed.empty() && spec->contains(r.installed))
        << r.by << " " << r.by_version << " needs " << r.name << r.specifier << " [" << r.extra << "], installed '"
        << r.installed << "'";
  }
  EXPECT_GT(venv->requirements.size(), 40u);
}

TEST(PythonRequirements, TensorFlow24WithNumpy124IsAnUnmetRequirement) {
  FixtureOs f("python/tf24_numpy124", {{"PATH", "/home/u/tf24/bin:/usr/bin"}, {"HOME", "/home/u"}},
              [](const std::vector<std::string>&, const ProcOptions&) { return ProcResult{}; });
  std::vector<PythonEnv> envs;
  collect_python(f.os(), ProbeOptions{}, envs);
  const PythonEnv* venv = env_of(envs, "/home/u/tf24/bin/python3");
  ASSERT_NE(venv, nullptr) << names(envs);
  const auto* np = req(*venv, "tensorflow", "numpy");
  ASSERT_NE(np, nullptr);
  EXPECT_EQ(np->specifier, "~=1.19.2");  // read from the "numpy (~=1.19.2)" spelling
  EXPECT_EQ(np->installed, "1.24.4");
  EXPECT_FALSE(parse::VersionSpecifier::parse(np->specifier)->contains(np->installed));
  const auto* te = req(*venv, "tensorflow", "typing-extensions");
  ASSERT_NE(te, nullptr);
  EXPECT_EQ(te->installed, "4.12.2");
  const auto* pb = req(*venv, "tensorflow", "protobuf");
  ASSERT_NE(pb, nullptr);
  EXPECT_EQ(pb->installed, "3.20.3");
}
