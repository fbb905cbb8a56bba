// The nvcc check without a GPU: fake `nvcc` shell scripts stand in for the toolkit (one that builds a
// script "binary", one that fails with nvcc's own words, one that hangs), a snapshot built here
// points at them; then the real nvcc of this machine (/usr/local/cuda/bin/nvcc; skipped where there
// is none, as on CI) compiles the program for real.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "platform/os.h"
#include "verify/nvcc_check.h"

using namespace gpuready;
using namespace gpuready::verify;
namespace stdfs = std::filesystem;

namespace {

constexpr const char* kRealNvcc = "/usr/local/cuda/bin/nvcc";

struct TempDir {
  stdfs::path path;
  explicit TempDir(const std::string& name) {
    path = stdfs::temp_directory_path() / ("gpuready_nvcc_" + std::to_string(::getpid()) + "_" + name);
    stdfs::remove_all(path);
    stdfs::create_directories(path / "tmp");
  }
  ~TempDir() {
    std::error_code ec;
    stdfs::remove_all(path, ec);
  }
  // Where nvcc_checks makes its fresh folder (so the test can see it is gone afterwards).
  [[nodiscard]] std::string tmp() const { return (path / "tmp").string(); }
  [[nodiscard]] bool tmp_empty() const { return stdfs::is_empty(path / "tmp"); }
};

// A fake nvcc: records its arguments in <dir>/args, then runs `body` (with $out = the -o file and
// $src = the .cu file).
std::string fake_nvcc(const TempDir& d, const std::string& name, const std::string& body) {
  const stdfs::path p = d.path / name;
  std::ofstream f(p);
  f << "#!/bin/sh\n"
       "echo \"$@\" > '"
    << (d.path / "args").string()
    << "'\n"
       "out=''; src=''\n"
       "while [ $# -gt 0 ]; do case \"$1\" in -o) out=\"$2\"; shift;; *.cu) src=\"$1\";; esac; shift; done\n"
    << body << "\n";
  f.close();
  stdfs::permissions(p, stdfs::perms::owner_all);
  return p.string();
}

// Builds a "binary" that prints `line` and exits with `code`.
std::string builds(const std::string& line, int code = 0) {
  return "grep -q gpuready-nvcc-ok \"$src\" || { echo 'no source' >&2; exit 3; }\n"
         "printf '#!/bin/sh\\necho \"" +
         line + "\"\\nexit " + std::to_string(code) + "\\n' > \"$out\"\nchmod +x \"$out\"";
}

std::string args_of(const TempDir& d) {
  std::ifstream f(d.path / "args");
  std::string s;
  std::getline(f, s);
  return s;
}

Snapshot snapshot(const std::string& nvcc, const std::string& version, const std::string& cc) {
  Snapshot s;
  Toolkit t;
  t.root = stdfs::path(nvcc).parent_path().string();
  t.nvcc = nvcc;
  if (!version.empty()) t.version = version;
  t.is_path_nvcc = true;
  s.toolkits.push_back(t);
  if (!cc.empty()) {
    NvidiaGpu g;
    g.name = "NVIDIA Test GPU";
    g.compute_capability = cc;
    s.nvidia.gpus.push_back(g);
    s.nvidia.cuda_driver_version = "12.2";
  }
  return s;
}

NvccOptions options(const TempDir& d) {
  NvccOptions o;
  o.temp_parent = d.tmp();
  o.compile_timeout = std::chrono::seconds(20);
  o.run_timeout = std::chrono::seconds(20);
  return o;
}

const Check& find(const std::vector<Check>& v, const std::string& key) {
  for (const auto& c : v)
    if (c.key == key) return c;
  static Check none;
  ADD_FAILURE() << "no check " << key;
  return none;
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(VerifyNvcc, ExpectedLineIsTheSumOfTheKernelsValues) {
  EXPECT_EQ(nvcc_expected_line(), "gpuready-nvcc-ok 1572352");  // sum of i*3+1 for i < 1024
}

TEST(VerifyNvcc, CompilesForTheGpusArchitectureAndRunsIt) {
  TempDir d("ok");
  const auto checks =
      nvcc_checks(real_os(), snapshot(fake_nvcc(d, "nvcc", builds(nvcc_expected_line())), "12.4.1", "9.0"), options(d));
  ASSERT_EQ(checks.size(), 2u);
  const Check& c = checks[0];
  EXPECT_EQ(c.key, "nvcc.compile");
  EXPECT_EQ(c.status, Status::pass) << c.detail;
  EXPECT_EQ(c.unit, "s");
  ASSERT_TRUE(c.value);
  EXPECT_GE(*c.value, 0);
  EXPECT_TRUE(contains(c.detail, "-arch=sm_90")) << c.detail;
  EXPECT_TRUE(contains(c.method, "sm_90")) << c.method;
  EXPECT_TRUE(contains(args_of(d), "-arch=sm_90 -o ")) << args_of(d);
  EXPECT_TRUE(contains(args_of(d), d.tmp())) << "compiled in the fresh folder: " << args_of(d);
  EXPECT_EQ(checks[1].key, "nvcc.run");
  EXPECT_EQ(checks[1].status, Status::pass) << checks[1].detail;
  EXPECT_TRUE(d.tmp_empty()) << "the temporary folder is removed";
}

TEST(VerifyNvcc, AProgramThatPrintsTheWrongSumFails) {
  TempDir d("sum");
  const auto checks =
      nvcc_checks(real_os(), snapshot(fake_nvcc(d, "nvcc", builds("gpuready-nvcc-ok 7")), "12.4", "8.6"), options(d));
  EXPECT_EQ(find(checks, "nvcc.compile").status, Status::pass);
  const Check& r = find(checks, "nvcc.run");
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_TRUE(contains(r.detail, "gpuready-nvcc-ok 7")) << r.detail;
}

TEST(VerifyNvcc, AToolkitNewerThanTheDriverIsSaidWithTheDriversCuda) {
  TempDir d("driver");
  const auto checks = nvcc_checks(
      real_os(),
      snapshot(fake_nvcc(d, "nvcc",
                         builds("gpuready-nvcc-error cudaMalloc: cudaErrorInsufficientDriver: CUDA driver version is "
                                "insufficient for CUDA runtime version",
                                1)),
               "12.4.1", "8.9"),
      options(d));
  const Check& r = find(checks, "nvcc.run");
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_TRUE(contains(r.detail, "newer than the driver supports")) << r.detail;
  EXPECT_TRUE(contains(r.detail, "CUDA 12.2 at most")) << r.detail;
  EXPECT_TRUE(contains(r.detail, "insufficient for CUDA runtime version")) << r.detail;
}

TEST(VerifyNvcc, AnArchitectureTheToolkitDropsFailsWithNvccsLineAndTheTablesAnswer) {
  TempDir d("arch");
  const auto checks = nvcc_checks(
      real_os(),
      snapshot(fake_nvcc(d, "nvcc", "echo \"nvcc fatal   : Unsupported gpu architecture 'compute_50'\" >&2; exit 1"),
               "13.0.88", "5.0"),
      options(d));
  const Check& c = find(checks, "nvcc.compile");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_TRUE(contains(c.detail, "nvcc fatal   : Unsupported gpu architecture 'compute_50'")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "CUDA 13.0 builds for sm_75 to sm_121; this GPU is sm_50: use CUDA 12.x")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "-arch=sm_50")) << "the command is in the detail: " << c.detail;
  EXPECT_EQ(find(checks, "nvcc.run").status, Status::skip);
  EXPECT_TRUE(d.tmp_empty());
}

TEST(VerifyNvcc, ArchitectureHintsFromTheTables) {
  EXPECT_EQ(arch_support_hint("13.0", 61),
            "CUDA 13.0 builds for sm_75 to sm_121; this GPU is sm_61: use CUDA 12.x (12.9 is the newest that builds "
            "for sm_61)");
  EXPECT_EQ(arch_support_hint("11.0.2", 89),
            "CUDA 11.0 builds for sm_35 to sm_80; this GPU is sm_89: use CUDA 11.8 or newer");
  EXPECT_EQ(arch_support_hint("1.0", 89), "");
}

TEST(VerifyNvcc, NoHostCompilerIsSaidInWords) {
  TempDir d("cc");
  const auto checks = nvcc_checks(
      real_os(),
      snapshot(fake_nvcc(d, "nvcc",
                         "echo 'gcc: No such file or directory' >&2; echo 'nvcc fatal   : Failed to preprocess host "
                         "compiler properties.' >&2; exit 1"),
               "13.0", "9.0"),
      options(d));
  const Check& c = find(checks, "nvcc.compile");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_TRUE(contains(c.detail, "no host compiler")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "Failed to preprocess host compiler properties")) << c.detail;
}

TEST(VerifyNvcc, AHangingNvccIsStoppedAtTheTimeout) {
  TempDir d("hang");
  NvccOptions o = options(d);
  o.compile_timeout = std::chrono::seconds(1);
  const auto t0 = std::chrono::steady_clock::now();
  const auto checks =
      nvcc_checks(real_os(), snapshot(fake_nvcc(d, "nvcc", "echo compiling; sleep 30"), "12.4", "9.0"), o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(15));
  const Check& c = find(checks, "nvcc.compile");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_TRUE(contains(c.detail, "nvcc did not finish in 1 s")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "compiling")) << c.detail;
  EXPECT_EQ(find(checks, "nvcc.run").status, Status::skip);
  EXPECT_TRUE(d.tmp_empty());
}

TEST(VerifyNvcc, NoToolkitSkipsBoth) {
  TempDir d("none");
  Snapshot s;
  Toolkit pip;  // a pip toolkit has no nvcc
  pip.root = "/venv/lib/python3.12/site-packages/nvidia/cuda_runtime";
  pip.nvcc = Fact<std::string>::unknown("no bin/nvcc");
  s.toolkits.push_back(pip);
  const auto checks = nvcc_checks(real_os(), s, options(d));
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& c : checks) {
    EXPECT_EQ(c.status, Status::skip);
    EXPECT_TRUE(contains(c.detail, "no CUDA toolkit with nvcc found")) << c.detail;
  }
}

TEST(VerifyNvcc, NoGpuCompilesForTheDefaultArchitectureAndSkipsTheRun) {
  TempDir d("nogpu");
  const auto checks =
      nvcc_checks(real_os(), snapshot(fake_nvcc(d, "nvcc", builds(nvcc_expected_line())), "12.4", ""), options(d));
  EXPECT_EQ(find(checks, "nvcc.compile").status, Status::pass);
  EXPECT_FALSE(contains(args_of(d), "-arch")) << args_of(d);
  const Check& r = find(checks, "nvcc.run");
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.detail, "no NVIDIA GPU to run it on");
}

TEST(VerifyNvcc, ThePathsNvccIsPreferredAndOnlySelectsKeys) {
  TempDir d("path");
  Snapshot s = snapshot(fake_nvcc(d, "nvcc", builds(nvcc_expected_line())), "12.4", "9.0");
  Toolkit other;
  other.root = "/opt/other";
  other.nvcc = fake_nvcc(d, "nvcc-other", "echo wrong toolkit >&2; exit 1");
  s.toolkits.insert(s.toolkits.begin(), other);  // first, but not PATH's
  NvccOptions o = options(d);
  o.only = {"nvcc.compile"};
  const auto checks = nvcc_checks(real_os(), s, o);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].key, "nvcc.compile");
  EXPECT_EQ(checks[0].status, Status::pass) << checks[0].detail;
  // nvcc.run alone still compiles; a failed compile is then the run's failure.
  s.toolkits.erase(s.toolkits.begin() + 1);
  o.only = {"nvcc.run"};
  const auto run_only = nvcc_checks(real_os(), s, o);
  ASSERT_EQ(run_only.size(), 1u);
  EXPECT_EQ(run_only[0].key, "nvcc.run");
  EXPECT_EQ(run_only[0].status, Status::fail);
  EXPECT_TRUE(contains(run_only[0].detail, "wrong toolkit")) << run_only[0].detail;
}

TEST(VerifyNvcc, TheRealNvccCompilesAndTheRunSkipsWithoutAGpu) {
  if (!stdfs::exists(kRealNvcc)) GTEST_SKIP() << kRealNvcc << " is absent (no CUDA toolkit on this machine)";
  TempDir d("real");
  NvccOptions o = options(d);
  o.compile_timeout = std::chrono::seconds(120);
  const auto checks = nvcc_checks(real_os(), snapshot(kRealNvcc, "", ""), o);
  const Check& c = find(checks, "nvcc.compile");
  EXPECT_EQ(c.status, Status::pass) << c.detail;
  EXPECT_EQ(find(checks, "nvcc.run").status, Status::skip);
  EXPECT_EQ(find(checks, "nvcc.run").detail, "no NVIDIA GPU to run it on");
  EXPECT_TRUE(d.tmp_empty());
}

TEST(VerifyNvcc, TheRealNvcc13RefusesPascalWithItsOwnWords) {
  if (!stdfs::exists(kRealNvcc)) GTEST_SKIP() << kRealNvcc << " is absent (no CUDA toolkit on this machine)";
  ProcOptions po;
  po.timeout = std::chrono::seconds(30);
  const ProcResult v = real_os().proc.run({kRealNvcc, "--version"}, po);
  if (!contains(v.out, "release 13.")) GTEST_SKIP() << "this nvcc is not CUDA 13: " << v.out;
  TempDir d("real61");
  NvccOptions o = options(d);
  o.compile_timeout = std::chrono::seconds(120);
  const auto checks = nvcc_checks(real_os(), snapshot(kRealNvcc, "13.0", "6.1"), o);
  const Check& c = find(checks, "nvcc.compile");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_TRUE(contains(c.detail, "Unsupported gpu architecture 'sm_61'") ||
              contains(c.detail, "Unsupported gpu architecture 'compute_61'"))
      << c.detail;
  EXPECT_TRUE(contains(c.detail, "use CUDA 12.x")) << c.detail;
}
