// gpuready runs in folders people do not control. A folder holding files named like the vendor
// libraries and programs gpuready (or its children) load and run — a cloned repository, an unpacked
// archive — must never get its code run, whatever LD_LIBRARY_PATH and PATH say: an empty entry
// (what `export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH` leaves when the variable
// was unset), ".", or a relative folder all name the current folder to the loader and to execvp.
//
// Each test plants tests/fakes/planted.c (its constructor leaves a marker) under every library
// name and small scripts under every program name in a fresh folder, runs one gpuready command
// there with hostile search paths, and asserts that no marker appeared.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <fstream>

#include "platform/os.h"

using namespace gpuready;
namespace fs = std::filesystem;

namespace {

// Every library name gpuready, its modules, cuDNN/cuBLAS, oneDNN or a framework asks the loader
// for by name, and a stub library glibc resolves by name when a vendor library needs it.
const char* const kPlantedLibraries[] = {
    "libnvidia-ml.so.1", "libnvidia-ml.so", "libcuda.so.1",        "libcuda.so",          "libcudart.so.13",
    "libcudart.so.12",   "libcudart.so.11.0", "libcublas.so.13",   "libcublasLt.so.13",   "libcublas.so.12",
    "libcublasLt.so.12", "libcublas.so.11",   "libcublasLt.so.11", "libcudnn.so.9",       "libcudnn.so.8",
    "libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_engines_precompiled.so.9", "libdnnl.so.2",
    "libnccl.so.2",      "libnvrtc.so.13",    "libdnnl.so.3",      "libOpenCL.so.1",      "libgomp.so.1",
    "libpthread.so.0",   "libdl.so.2",        "librt.so.1",        "libz.so.1",           "libzstd.so.1",
    "liblzma.so.5",      "libpcre2-8.so.0",   "libgpuready-cpu.so", "libgpuready-cuda.so",
    "libgpuready-planted-dep.so"};

// Programs gpuready or a library it loads could start by name.
const char* const kPlantedPrograms[] = {"python3", "python", "nvidia-smi", "nvcc", "ldconfig", "ldconfig.real",
                                        "sh",      "uname",  "lspci",      "modinfo", "dpkg-query", "nvidia-ctk",
                                        "nvidia-container-cli", "gcc", "g++", "cc"};

class Planted : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("gpuready_planted_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    dir_ = base_ / "repo";
    markers_ = base_ / "markers";
    fs::create_directories(dir_ / "bin");
    fs::create_directories(dir_ / "lib");
    fs::create_directories(markers_);
    const fs::path planted = fs::path(GPUREADY_FAKES_DIR) / "libplanted.so";
    ASSERT_TRUE(fs::exists(planted)) << planted;
    for (const fs::path& where : {dir_, dir_ / "lib"})
      for (const char* name : kPlantedLibraries) fs::copy_file(planted, where / name);
    for (const fs::path& where : {dir_, dir_ / "bin"})
      for (const char* name : kPlantedPrograms) {
        const fs::path p = where / name;
        std::ofstream(p) << "#!/bin/sh\n: > \"$GPUREADY_PLANT_MARKERS/ran-" << name << "-$$\"\nexit 0\n";
        fs::permissions(p, fs::perms::owner_all);
      }
  }
  void TearDown() override { fs::remove_all(base_); }

  // Runs gpuready in the planted folder with search paths that name it: an empty entry, ".",
  // and relative folders, in LD_LIBRARY_PATH and PATH (the real folders stay, after the hostile ones).
  ProcResult run(std::vector<std::string> args, int timeout_s = 300, std::map<std::string, std::string> extra = {}) {
    args.insert(args.begin(), GPUREADY_EXE);
    ProcOptions o;
    o.timeout = std::chrono::seconds(timeout_s);
    o.cwd = dir_.string();
    o.clean_search_paths = false;  // hand gpuready the hostile variables as a user's shell would
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
    o.set_env = {{"GPUREADY_PLANT_MARKERS", markers_.string()},
                 {"LD_LIBRARY_PATH", "/nonexistent/cuda/lib64::.:lib"},
                 {"PATH", ":.:bin:" + path + ":"},
                 {"PYTHONPATH", ":."}};
    for (auto& [k, v] : extra) o.set_env[k] = v;
    return real_os().proc.run(args, o);
  }

  std::vector<std::string> markers() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(markers_)) {
      std::ifstream f(e.path());
      std::string what((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      out.push_back(e.path().filename().string() + (what.empty() ? "" : " (" + what + ")"));
    }
    return out;
  }

  void expect_nothing_ran(const ProcResult& r, const std::string& command) {
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_FALSE(r.timed_out) << command;
    EXPECT_EQ(r.signal, 0) << command << ": " << r.error;
    const auto m = markers();
    std::string list;
    for (const auto& x : m) list += "\n  " + x;
    EXPECT_TRUE(m.empty()) << command << " loaded or ran a planted file:" << list << "\nstderr: " << r.err.substr(0, 2000);
  }

  fs::path base_, dir_, markers_;
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

TEST_F(Planted, Probe) {
  const ProcResult r = run({"probe", "--json"});
  expect_nothing_ran(r, "gpuready probe");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(Planted, ProbeWithCudaInit) {
  const ProcResult r = run({"probe", "--cuda"});
  expect_nothing_ran(r, "gpuready probe --cuda");
}

TEST_F(Planted, Doctor) {
  const ProcResult r = run({});
  expect_nothing_ran(r, "gpuready");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
}

TEST_F(Planted, DoctorNamesTheHostileEntries) {
  const ProcResult r = run({"doctor", "--json"});
  expect_nothing_ran(r, "gpuready doctor --json");
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 500);
  std::vector<std::string> codes;
  for (const auto& f : j.at("findings")) codes.push_back(f.at("code").get<std::string>());
  EXPECT_NE(std::find(codes.begin(), codes.end(), "security.search-path-cwd"), codes.end()) << joined(codes);
}

TEST_F(Planted, DoctorDeep) {
  const ProcResult r = run({"doctor", "--deep", "--framework-timeout", "60"});
  expect_nothing_ran(r, "gpuready doctor --deep");
}

TEST_F(Planted, VerifyQuick) {
  const ProcResult r = run({"verify", "--quick"});
  expect_nothing_ran(r, "gpuready verify --quick");
}

TEST_F(Planted, Bench) {
  const ProcResult r = run({"bench", "--device", "all", "--images", "64", "--epochs", "1", "--size", "16x16x1"});
  expect_nothing_ran(r, "gpuready bench");
}

// An engine module whose dependency is in no system folder (libdnnl.so.2 on a machine without oneDNN,
// seen on the H200 test machine): the loader would take it from LD_LIBRARY_PATH's empty entry if the
// module were loaded in gpuready's own process, whose LD_LIBRARY_PATH is the user's.
TEST_F(Planted, BenchEngineWhoseDependencyIsNotInstalled) {
  const std::string module = std::string(GPUREADY_FAKES_DIR) + "/libneeds-planted-dep.so";
  ASSERT_TRUE(fs::exists(module)) << module;
  const ProcResult r = run({"bench", "--device", "cpu", "--images", "64", "--epochs", "1", "--size", "16x16x1"}, 300,
                           {{"GPUREADY_CPU_MODULE", module}});
  expect_nothing_ran(r, "gpuready bench --device cpu (an engine module with a dependency not installed)");
  EXPECT_NE(r.out.find("lacks"), std::string::npos) << r.out;  // it loaded (the real dependency), then lacked the engine's entry points
}

TEST_F(Planted, Explain) {
  const ProcResult r = run({"explain", "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory"});
  expect_nothing_ran(r, "gpuready explain");
}

// The page is written into the planted folder (the default name is relative: the current folder), and nothing
// there is loaded or run to make it.
TEST_F(Planted, Report) {
  const ProcResult r = run({"report", "--redact"});
  expect_nothing_ran(r, "gpuready report --redact");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(Planted, Plan) {
  const ProcResult r = run({"plan"});
  expect_nothing_ran(r, "gpuready plan");
}
