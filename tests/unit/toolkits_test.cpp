// Tests of the toolkit collector on fixture trees (Linux runfile layout with a /usr/local/cuda link,
// Windows CUDA v11.0/v10.2, pip wheels, conda) and on bad input; plus a run on this machine.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "probe/probe.h"
#include "probe/toolkits_search.h"
#include "support/test_os.h"

namespace gpuready {
namespace {

using probe_detail::Layout;
using probe_detail::ToolkitSearch;
namespace stdfs = std::filesystem;

const Toolkit* find_root(const std::vector<Toolkit>& ts, const std::string& canonical_root) {
  for (const auto& t : ts)
    if (t.canonical_root == canonical_root) return &t;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<Toolkit> collect(const test::FixtureOs& fx, Layout l = Layout::posix) {
  std::vector<Toolkit> out;
  ToolkitSearch s;
  s.layout = l;
  probe_detail::collect_toolkits_in(fx.os(), s, out);
  return out;
}

// A scratch tree under the build's temp folder, removed at the end of the test.
struct TempTree {
  stdfs::path root;
  TempTree() {
    root = stdfs::temp_directory_path() / ("gpuready_tk_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                           "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    stdfs::remove_all(root);
    stdfs::create_directories(root);
  }
  ~TempTree() {
    std::error_code ec;
    stdfs::permissions(root / "usr/local/cuda-locked", stdfs::perms::owner_all, ec);
    stdfs::remove_all(root, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    stdfs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel, std::ios::binary) << text;
  }
};

TEST(Toolkits, LinuxRunfileLayoutMergesTheCudaLink) {
  test::FixtureOs fx("libs/linux_cuda12",
                     {{"CUDA_HOME", "/usr/local/cuda"}, {"PATH", "/usr/local/cuda/bin:/usr/bin:/bin"}});
  const auto ts = collect(fx);
  ASSERT_EQ(ts.size(), 2u) << "cuda-12.4 (also as cuda) and cuda-11.8; the symlink loop is skipped";
  const Toolkit* t = find_root(ts, "/usr/local/cuda-12.4");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->root, "/usr/local/cuda-12.4") << "the real folder's name wins over the link";
  EXPECT_TRUE(has(t->found_by, "CUDA_HOME"));
  EXPECT_TRUE(has(t->found_by, "PATH nvcc"));
  EXPECT_TRUE(has(t->found_by, "/usr/local/cuda*"));
  EXPECT_EQ(t->found_by.size(), 3u);
  EXPECT_EQ(t->version.value_or(""), "12.4.1");
  EXPECT_EQ(t->version_source, "version.json");
  EXPECT_TRUE(t->is_path_nvcc);
  EXPECT_EQ(t->nvcc.value_or(""), "/usr/local/cuda-12.4/bin/nvcc");
  const Toolkit* old = find_root(ts, "/usr/local/cuda-11.8");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->version.value_or(""), "11.8.0");
  EXPECT_FALSE(old->is_path_nvcc);
  EXPECT_TRUE(fx.proc.calls.empty()) << "files answered every version: nvcc must not run";
}

TEST(Toolkits, PathNvccIsAttributedToItsInstall) {
  test::FixtureOs fx("libs/linux_cuda12", {{"PATH", "relative/bin::/usr/local/cuda-11.8/bin/:/usr/local/cuda/bin"}});
  const auto ts = collect(fx);
  const Toolkit* old = find_root(ts, "/usr/local/cuda-11.8");
  const Toolkit* cur = find_root(ts, "/usr/local/cuda-12.4");
  ASSERT_TRUE(old && cur);
  EXPECT_TRUE(old->is_path_nvcc);
  EXPECT_TRUE(has(old->found_by, "PATH nvcc"));
  EXPECT_FALSE(cur->is_path_nvcc);
  EXPECT_FALSE(has(cur->found_by, "PATH nvcc"));
}

TEST(Toolkits, HugePathStaysFastAndCapped) {
  std::string path;
  for (int i = 0; i < 5000; ++i) path += "/no/such/dir" + std::to_string(i) + ":";
  path += "/usr/local/cuda/bin";
  test::FixtureOs fx("libs/linux_cuda12", {{"PATH", path}});
  const auto t0 = std::chrono::steady_clock::now();
  const auto ts = collect(fx);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 500.0);
  // Entry 5001 is beyond the cap: PATH's nvcc is not found there, the installs still are.
  for (const auto& t : ts) EXPECT_FALSE(t.is_path_nvcc) << t.root;
  EXPECT_EQ(ts.size(), 2u);

  // Duplicates and empty entries do not use up the cap.
  std::string dup;
  for (int i = 0; i < 5000; ++i) dup += "/usr/bin::";
  test::FixtureOs fx2("libs/linux_cuda12", {{"PATH", dup + "/usr/local/cuda/bin"}});
  const auto ts2 = collect(fx2);
  const Toolkit* cur = find_root(ts2, "/usr/local/cuda-12.4");
  ASSERT_NE(cur, nullptr);
  EXPECT_TRUE(cur->is_path_nvcc);
}

TEST(Toolkits, WindowsInstallerLayout) {
  const std::string v11 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0";
  const std::string v10 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.2";
  test::FixtureOs fx("libs/windows_cuda11", {{"CUDA_PATH", v11},
                                             {"CUDA_PATH_V11_0", v11 + "\\"},
                                             {"CUDA_PATH_V10_2", v10},
                                             {"ProgramFiles", "C:\\Program Files"},
                                             {"Path", v11 + "\\bin;" + v11 + "\\libnvvp;;C:\\Windows\\System32"}});
  const auto ts = collect(fx, Layout::windows);
  ASSERT_EQ(ts.size(), 2u);
  const Toolkit* t = find_root(ts, v11);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->root, v11);
  EXPECT_TRUE(has(t->found_by, "CUDA_PATH"));
  EXPECT_TRUE(has(t->found_by, "CUDA_PATH_V11_0"));
  EXPECT_TRUE(has(t->found_by, "PATH nvcc"));
  EXPECT_TRUE(has(t->found_by, "Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v*"));
  EXPECT_EQ(t->version.value_or(""), "11.0.228");
  EXPECT_EQ(t->version_source, "version.txt");
  EXPECT_EQ(t->nvcc.value_or(""), v11 + "\\bin\\nvcc.exe");
  EXPECT_TRUE(t->is_path_nvcc);
  const Toolkit* old = find_root(ts, v10);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->version.value_or(""), "10.2.89");
  EXPECT_TRUE(has(old->found_by, "CUDA_PATH_V10_2"));
  EXPECT_FALSE(old->is_path_nvcc);
}

TEST(Toolkits, CondaEnvsAndPipWheels) {
  test::FixtureOs fx("libs/pip_wheels", {{"HOME", "/home/u"}, {"PATH", "/usr/bin"}});
  auto ts = collect(fx);
  ASSERT_EQ(ts.size(), 1u) << "only the env with cuda-nvcc is a toolkit (not base, not envs/empty)";
  EXPECT_EQ(ts[0].root, "/home/u/miniconda3/envs/cuda124");
  EXPECT_EQ(ts[0].found_by, std::vector<std::string>{"conda"});
  EXPECT_EQ(ts[0].version.value_or(""), "12.4.131");
  EXPECT_EQ(ts[0].version_source, "conda-meta");
  EXPECT_EQ(ts[0].nvcc.value_or(""), "/home/u/miniconda3/envs/cuda124/bin/nvcc");

  const std::string sp12 = "/home/u/venv/lib/python3.12/site-packages";
  const std::string sp13 = "/home/u/cu13/lib/python3.12/site-packages";
  probe_detail::collect_pip_toolkits_in(fx.os(), ToolkitSearch{Layout::posix}, {sp12, sp13, sp12}, ts);
  ASSERT_EQ(ts.size(), 3u);
  const Toolkit* w12 = find_root(ts, sp12 + "/nvidia/cuda_nvcc");
  ASSERT_NE(w12, nullptr);
  EXPECT_EQ(w12->found_by, std::vector<std::string>{"pip"});
  EXPECT_EQ(w12->version.value_or(""), "12.4.131");
  EXPECT_EQ(w12->version_source, "dist-info");
  const Toolkit* w13 = find_root(ts, sp13 + "/nvidia/cu13");
  ASSERT_NE(w13, nullptr);
  EXPECT_EQ(w13->version.value_or(""), "13.0.88");
  EXPECT_EQ(w13->version_source, "dist-info");
  EXPECT_TRUE(fx.proc.calls.empty());

  // The probe's entry point takes the Python envs as the Python collector filled them (with this
  // OS's layout: the tree above is a Linux one).
#ifndef _WIN32
  PythonEnv env;
  env.site_packages = {sp13};
  std::vector<Toolkit> again;
  collect_pip_toolkits(fx.os(), {env}, again);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].root, sp13 + "/nvidia/cu13");
#endif
}

TEST(Toolkits, NvccRunsOnlyWhenNoFileAnswers) {
  TempTree tree;
  tree.write("opt/cuda/bin/nvcc", "#!/bin/sh\n");
  test::FixtureOs fx("", {{"PATH", "/opt/cuda/bin"}},
                     [](const std::vector<std::string>&, const ProcOptions&) {
                       ProcResult r;
                       r.started = true;
                       r.exit_code = 0;
                       r.out = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.6, V12.6.77\n";
                       return r;
                     });
  fx.fs = test::RootedFs(tree.root.string());
  const auto ts = collect(fx);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].version.value_or(""), "12.6.77");
  EXPECT_EQ(ts[0].version_source, "nvcc --version");
  EXPECT_TRUE(has(ts[0].found_by, "/opt/cuda"));
  EXPECT_TRUE(has(ts[0].found_by, "PATH nvcc"));
  ASSERT_EQ(fx.proc.calls.size(), 1u);
  EXPECT_EQ(fx.proc.calls[0], (std::vector<std::string>{"/opt/cuda/bin/nvcc", "--version"}));

  test::FixtureOs hung("", {}, [](const std::vector<std::string>&, const ProcOptions& o) {
    EXPECT_LE(o.timeout.count(), 10000);
    ProcResult r;
    r.started = true;
    r.timed_out = true;
    return r;
  });
  hung.fs = test::RootedFs(tree.root.string());
  const auto ts2 = collect(hung);
  ASSERT_EQ(ts2.size(), 1u);
  EXPECT_FALSE(ts2[0].version.has());
  EXPECT_NE(ts2[0].version.why().find("timed out"), std::string::npos) << ts2[0].version.why();
}

TEST(Toolkits, DistInfoAndCondaMetaNamesMustCarryAVersion) {
  TempTree tree;
  const std::string sp = "venv/lib/python3.12/site-packages";
  // A dist-info folder without a version in its name is not an answer, even when it sorts first.
  tree.write(sp + "/nvidia_cuda_nvcc_cu12.dist-info/METADATA", "Name: nvidia-cuda-nvcc-cu12\n");
  // METADATA whose Version does not start with a digit: the folder's version stands.
  tree.write(sp + "/nvidia_cuda_runtime_cu12-12.4.127.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: nvidia-cuda-runtime-cu12\nVersion: dev\n");
  test::FixtureOs fx("");
  fx.fs = test::RootedFs(tree.root.string());
  const auto d = probe_detail::dist_info_version(fx.os(), Layout::posix, "/" + sp,
                                                 {"nvidia_cuda_nvcc", "nvidia_cuda_runtime"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->version, "12.4.127");
  EXPECT_EQ(d->dist_info, "/" + sp + "/nvidia_cuda_runtime_cu12-12.4.127.dist-info");

  // conda-meta: "cuda-nvcc-impl-..." is another package than cuda-nvcc; the cuda-cudart record answers.
  tree.write("conda/envs/cu/bin/nvcc", "#!/bin/sh\n");
  tree.write("conda/envs/cu/conda-meta/cuda-nvcc-impl-12.6.20-0.json", "{}");
  tree.write("conda/envs/cu/conda-meta/cuda-cudart-12.4.127-0.json", "{}");
  test::FixtureOs conda("", {{"CONDA_PREFIX", "/conda/envs/cu"}});
  conda.fs = test::RootedFs(tree.root.string());
  const auto ts = collect(conda);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].version.value_or(""), "12.4.127");
  EXPECT_EQ(ts[0].version_source, "conda-meta");
}

TEST(Toolkits, BadInputNeverCrashes) {
  if (std::string why; !test::can_create_symlinks(&why)) GTEST_SKIP() << why;
  TempTree tree;
  // Garbage version.json, truncated cuda.h: the runtime's file name still answers.
  tree.write("usr/local/cuda-garbage/version.json", "\x7f\x45LF\x02\x01 not json {{{");
  tree.write("usr/local/cuda-garbage/include/cuda.h", "#ifndef __cuda_cuda_h__\n#define CUDA_VERS");
  tree.write("usr/local/cuda-garbage/lib64/libcudart.so.12.2.140", "x");
  // version.json that is a folder; version.txt without a version; nothing else.
  stdfs::create_directories(tree.root / "usr/local/cuda-odd/version.json");
  tree.write("usr/local/cuda-odd/version.txt", "CUDA Version \n");
  // A folder nobody may read (as root this still reads: the test then only checks nothing breaks).
  tree.write("usr/local/cuda-locked/version.json", "{}");
  stdfs::permissions(tree.root / "usr/local/cuda-locked", stdfs::perms::none);
  // Loops: a link to itself and two links to each other.
  stdfs::create_directory_symlink("cuda-self", tree.root / "usr/local/cuda-self");
  stdfs::create_directory_symlink("cuda-b", tree.root / "usr/local/cuda-a");
  stdfs::create_directory_symlink("cuda-a", tree.root / "usr/local/cuda-b");
  test::FixtureOs fx("", {{"CUDA_HOME", "/usr/local/cuda-11.7"}, {"CUDA_PATH", "not/absolute"}});
  fx.fs = test::RootedFs(tree.root.string());
  const auto ts = collect(fx);

  const Toolkit* g = find_root(ts, "/usr/local/cuda-garbage");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->version.value_or(""), "12.2.140");
  EXPECT_EQ(g->version_source, "file name");
  EXPECT_FALSE(g->nvcc.has());
  const Toolkit* odd = find_root(ts, "/usr/local/cuda-odd");
  ASSERT_NE(odd, nullptr);
  EXPECT_FALSE(odd->version.has());
  EXPECT_NE(odd->version.why().find("version.txt"), std::string::npos) << odd->version.why();
  // CUDA_HOME pointing at nothing is kept: a later rule can say so.
  const Toolkit* gone = find_root(ts, "/usr/local/cuda-11.7");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->found_by, std::vector<std::string>{"CUDA_HOME"});
  EXPECT_NE(gone->version.why().find("not a folder"), std::string::npos);
  for (const auto& t : ts) {
    EXPECT_EQ(t.root.find("cuda-self"), std::string::npos);
    EXPECT_EQ(t.root.find("cuda-a"), std::string::npos);
    EXPECT_NE(t.root, "not/absolute");
  }
  EXPECT_TRUE(fx.proc.calls.empty());
}

// This machine: /usr/local/cuda here was assembled from NVIDIA's pip wheels (dist-info, no version.json).
TEST(Toolkits, ThisMachine) {
#ifdef _WIN32
  GTEST_SKIP() << "this Linux machine's toolkit; a Windows machine's probe is the windows_probe test";
#endif
  if (!stdfs::exists("/usr/local/cuda")) GTEST_SKIP() << "/usr/local/cuda is absent";
  std::vector<Toolkit> ts;
  const auto t0 = std::chrono::steady_clock::now();
  collect_toolkits(real_os(), ts);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& t : ts) std::cout << "[this machine] " << nlohmann::json(t).dump() << "\n";
  std::cout << "[this machine] collect_toolkits took " << ms << " ms\n";
  const Toolkit* t = find_root(ts, stdfs::canonical("/usr/local/cuda").string());
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->version.has()) << t->version.why();
  EXPECT_NE(t->version_source, "nvcc --version") << "a file should answer on this machine";
  EXPECT_TRUE(has(t->found_by, "/usr/local/cuda*"));
}

}  // namespace
}  // namespace gpuready
