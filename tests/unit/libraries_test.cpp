// Tests of the library collector on fixture trees: copies and their versions, loader resolutions
// (LD_LIBRARY_PATH / ld.so.cache / default folders; System32 / PATH on Windows), cuDNN sets,
// WSL's copied driver libraries, header-only cuDNN, bad input; plus a run on this machine.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "probe/libraries_search.h"
#include "probe/probe.h"
#include "probe/toolkits_search.h"
#include "support/test_os.h"

namespace gpuready {
namespace {

using probe_detail::Layout;
using probe_detail::LibrarySearch;
using probe_detail::ToolkitSearch;
namespace stdfs = std::filesystem;

const std::vector<std::string> kDefaultDirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"};
const std::string kWin = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0";

LibraryFacts collect(const test::FixtureOs& fx, Layout l, const std::vector<PythonEnv>& py = {},
                     std::string ld_cache = "/etc/ld.so.cache") {
  std::vector<Toolkit> ts;
  probe_detail::collect_toolkits_in(fx.os(), ToolkitSearch{l}, ts);
  LibrarySearch s;
  s.layout = l;
  s.ld_cache = std::move(ld_cache);
  s.default_dirs = kDefaultDirs;
  LibraryFacts out;
  probe_detail::collect_libraries_in(fx.os(), s, ts, py, out);
  return out;
}

const LibraryCopy* copy_at(const LibraryFacts& f, const std::string& path) {
  for (const auto& c : f.copies)
    if (c.path == path) return &c;
  return nullptr;
}
size_t count_path(const LibraryFacts& f, const std::string& path) {
  size_t n = 0;
  for (const auto& c : f.copies) n += c.path == path;
  return n;
}
const LoaderResolution* res(const LibraryFacts& f, const std::string& soname) {
  for (const auto& r : f.resolutions)
    if (r.soname == soname) return &r;
  return nullptr;
}
const CudnnSet* set_in(const LibraryFacts& f, const std::string& dir) {
  for (const auto& s : f.cudnn_sets)
    if (s.dir == dir) return &s;
  return nullptr;
}

TEST(Libraries, LinuxToolkitSystemCudnnAndLoader) {
  test::FixtureOs fx("libs/linux_cuda12", {{"CUDA_HOME", "/usr/local/cuda"}, {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}});
  const LibraryFacts f = collect(fx, Layout::posix);
  EXPECT_EQ(f.ld_cache.value_or(""), "/etc/ld.so.cache");
  const std::string lib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/";

  const LibraryCopy* rt = copy_at(f, lib + "libcudart.so.12.4.127");
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->library, "cudart");
  EXPECT_EQ(rt->soname, "libcudart.so.12");
  EXPECT_EQ(rt->version.value_or(""), "12.4.127");
  EXPECT_EQ(rt->version_source, "file name");
  EXPECT_EQ(rt->origin, "toolkit");
  EXPECT_EQ(rt->origin_detail, "/usr/local/cuda-12.4");
  // lib64, targets/x86_64-linux/lib and LD_LIBRARY_PATH are one folder: one copy.
  EXPECT_EQ(count_path(f, lib + "libcudart.so.12.4.127"), 1u);

  const LibraryCopy* fft = copy_at(f, lib + "libcufft.so.11");
  ASSERT_NE(fft, nullptr);
  EXPECT_EQ(fft->version.value_or(""), "11.2.1.3");
  EXPECT_EQ(fft->version_source, "version.json");
  EXPECT_NE(copy_at(f, lib + "libcublasLt.so.12.4.5.8"), nullptr);

  const LibraryCopy* dnn9 = copy_at(f, lib + "libcudnn.so.9.1.0");
  ASSERT_NE(dnn9, nullptr);
  EXPECT_EQ(dnn9->soname, "libcudnn.so.9");
  EXPECT_EQ(dnn9->version.value_or(""), "9.1.0");

  const LibraryCopy* rt11 = copy_at(f, "/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudart.so.11.8.89");
  ASSERT_NE(rt11, nullptr);
  EXPECT_EQ(rt11->soname, "libcudart.so.11.0");

  const LibraryCopy* dnn8 = copy_at(f, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7");
  ASSERT_NE(dnn8, nullptr);
  EXPECT_EQ(dnn8->origin, "ld.so.cache");
  EXPECT_EQ(dnn8->soname, "libcudnn.so.8");
  EXPECT_EQ(dnn8->version.value_or(""), "8.9.7");

  const auto* r12 = res(f, "libcudart.so.12");
  ASSERT_NE(r12, nullptr);
  EXPECT_EQ(r12->via, "LD_LIBRARY_PATH");
  EXPECT_EQ(r12->path.value_or(""), "/usr/local/cuda/lib64/libcudart.so.12");
  const auto* r8 = res(f, "libcudnn.so.8");
  ASSERT_NE(r8, nullptr);
  EXPECT_EQ(r8->via, "ld.so.cache");
  EXPECT_EQ(r8->path.value_or(""), "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  const auto* r11 = res(f, "libcudart.so.11.0");
  ASSERT_NE(r11, nullptr);
  EXPECT_FALSE(r11->path.has()) << "cuda-11.8 is neither on LD_LIBRARY_PATH nor in the cache";
  EXPECT_NE(r11->path.why().find("not found"), std::string::npos);
  EXPECT_EQ(res(f, "libnccl.so.2"), nullptr) << "no NCCL anywhere: not asked";
  ASSERT_NE(res(f, "libcuda.so.1"), nullptr);
  EXPECT_EQ(res(f, "libcuda.so.1")->via, "ld.so.cache");

  // cuDNN 9 in the toolkit: complete, but libcudnn_adv is a stale 9.0.0.
  const CudnnSet* s9 = set_in(f, "/usr/local/cuda-12.4/targets/x86_64-linux/lib");
  ASSERT_NE(s9, nullptr);
  EXPECT_EQ(s9->present.size(), 7u);
  EXPECT_TRUE(s9->missing.empty());
  EXPECT_FALSE(s9->consistent);
  EXPECT_EQ(s9->versions.at("cudnn_adv"), "9.0.0");
  EXPECT_EQ(s9->versions.at("cudnn_ops"), "9.1.0");
  EXPECT_EQ(s9->version.value_or(""), "9.1.0");
  EXPECT_EQ(s9->header.value_or(""), "/usr/local/cuda-12.4/targets/x86_64-linux/include/cudnn_version.h");
  // cuDNN 8 from apt: whole, one version, its header in the multiarch include folder.
  const CudnnSet* s8 = set_in(f, "/usr/lib/x86_64-linux-gnu");
  ASSERT_NE(s8, nullptr);
  EXPECT_EQ(s8->present.size(), 6u);
  EXPECT_TRUE(s8->missing.empty());
  EXPECT_TRUE(s8->consistent);
  EXPECT_EQ(s8->header.value_or(""), "/usr/include/x86_64-linux-gnu/cudnn_version_v8.h");
}

TEST(Libraries, LoaderFallsBackToDefaultFoldersWithoutCache) {
  test::FixtureOs fx("libs/linux_cuda12", {});
  const LibraryFacts f = collect(fx, Layout::posix, {}, "/etc/no-such-cache");
  EXPECT_FALSE(f.ld_cache.has());
  EXPECT_NE(f.ld_cache.why().find("no-such-cache"), std::string::npos);
  const auto* r1 = res(f, "libcuda.so.1");
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->via, "default path");
  EXPECT_EQ(r1->path.value_or(""), "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  // Without LD_LIBRARY_PATH the toolkit's runtime is not found by the loader.
  const auto* r12 = res(f, "libcudart.so.12");
  ASSERT_NE(r12, nullptr);
  EXPECT_FALSE(r12->path.has());
  // The system cuDNN 8 is still a copy (found where the loader looked), origin "system".
  const LibraryCopy* dnn8 = copy_at(f, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7");
  ASSERT_NE(dnn8, nullptr);
  EXPECT_EQ(dnn8->origin, "system");
}

TEST(Libraries, WindowsToolkitWithCudnnCopiedIn) {
  const std::string v10 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.2";
  test::FixtureOs fx("libs/windows_cuda11", {{"CUDA_PATH", kWin},
                                             {"CUDA_PATH_V10_2", v10},
                                             {"SystemRoot", "C:\\Windows"},
                                             {"PATH", kWin + "\\bin;" + kWin + "\\libnvvp;C:\\Windows\\System32"}});
  const LibraryFacts f = collect(fx, Layout::windows);
  EXPECT_FALSE(f.ld_cache.has());
  const LibraryCopy* rt = copy_at(f, kWin + "\\bin\\cudart64_110.dll");
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->soname, "cudart64_110.dll");
  EXPECT_EQ(rt->version.value_or(""), "11.0");
  EXPECT_EQ(rt->origin, "toolkit");
  const LibraryCopy* dnn = copy_at(f, kWin + "\\bin\\cudnn64_8.dll");
  ASSERT_NE(dnn, nullptr);
  EXPECT_EQ(dnn->version.value_or(""), "8.0.5");
  EXPECT_EQ(dnn->version_source, "cudnn_version.h");
  ASSERT_NE(copy_at(f, v10 + "\\bin\\cudart64_102.dll"), nullptr);

  const auto* r = res(f, "cudart64_110.dll");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->via, "PATH");
  EXPECT_EQ(r->path.value_or(""), kWin + "\\bin\\cudart64_110.dll");
  const auto* drv = res(f, "nvcuda.dll");
  ASSERT_NE(drv, nullptr);
  EXPECT_EQ(drv->via, "System32");
  EXPECT_EQ(drv->path.value_or(""), "C:\\Windows\\System32\\nvcuda.dll");
  const LibraryCopy* nvcuda = copy_at(f, "C:\\Windows\\System32\\nvcuda.dll");
  ASSERT_NE(nvcuda, nullptr);
  EXPECT_EQ(nvcuda->origin, "System32");
  ASSERT_NE(res(f, "cudart64_12.dll"), nullptr);
  EXPECT_FALSE(res(f, "cudart64_12.dll")->path.has());

  const CudnnSet* s = set_in(f, kWin + "\\bin");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->missing, std::vector<std::string>{"cudnn_adv_train"});
  EXPECT_EQ(s->present.size(), 5u);
  EXPECT_TRUE(s->consistent);
  EXPECT_EQ(s->header.value_or(""), kWin + "\\include\\cudnn_version.h");
}

TEST(Libraries, WindowsHeaderOnlyCudnnIsRecorded) {
  test::FixtureOs fx("libs/windows_header_only", {{"CUDA_PATH", kWin}, {"PATH", kWin + "\\bin"}});
  const LibraryFacts f = collect(fx, Layout::windows);
  const LibraryCopy* h = copy_at(f, kWin + "\\include\\cudnn_version.h");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->library, "cudnn");
  EXPECT_EQ(h->soname, "") << "a header is no library: empty soname";
  EXPECT_EQ(h->version.value_or(""), "8.0.5");
  EXPECT_EQ(h->origin, "toolkit");
  EXPECT_EQ(h->origin_detail, kWin);
  EXPECT_TRUE(f.cudnn_sets.empty());
  const auto* r = res(f, "cudnn64_8.dll");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->path.has());
}

TEST(Libraries, PipWheelsAndConda) {
  const std::string sp12 = "/home/u/venv/lib/python3.12/site-packages";
  const std::string sp13 = "/home/u/cu13/lib/python3.12/site-packages";
  PythonEnv a, b;
  a.site_packages = {sp12};
  b.site_packages = {sp13, "relative/site-packages"};
  test::FixtureOs fx("libs/pip_wheels", {{"HOME", "/home/u"}});
  std::vector<Toolkit> none;
  LibrarySearch s;
  s.layout = Layout::posix;
  s.ld_cache = "/etc/ld.so.cache";
  s.default_dirs = kDefaultDirs;
  LibraryFacts f;
  probe_detail::collect_libraries_in(fx.os(), s, none, {a, b}, f);

  const LibraryCopy* dnn = copy_at(f, sp12 + "/nvidia/cudnn/lib/libcudnn.so.9");
  ASSERT_NE(dnn, nullptr);
  EXPECT_EQ(dnn->origin, "pip");
  EXPECT_EQ(dnn->origin_detail, "nvidia_cudnn_cu12-9.1.0.70.dist-info");
  EXPECT_EQ(dnn->version.value_or(""), "9.1.0");
  EXPECT_EQ(dnn->version_source, "cudnn_version.h");
  const LibraryCopy* blas = copy_at(f, sp12 + "/nvidia/cublas/lib/libcublas.so.12");
  ASSERT_NE(blas, nullptr);
  EXPECT_EQ(blas->version.value_or(""), "12.4.5.8");
  EXPECT_EQ(blas->version_source, "dist-info");
  EXPECT_EQ(copy_at(f, sp12 + "/nvidia/cublas/lib/libnvblas.so.12"), nullptr) << "not a library we track";
  const LibraryCopy* nccl = copy_at(f, sp12 + "/nvidia/nccl/lib/libnccl.so.2");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->version.value_or(""), "2.20.5");
  EXPECT_EQ(nccl->version_source, "nccl.h");
  const LibraryCopy* trt = copy_at(f, sp12 + "/tensorrt_libs/libnvinfer.so.10");
  ASSERT_NE(trt, nullptr);
  EXPECT_EQ(trt->library, "tensorrt");
  EXPECT_EQ(trt->version.value_or(""), "10.0.1");
  const LibraryCopy* rt13 = copy_at(f, sp13 + "/nvidia/cu13/lib/libcudart.so.13");
  ASSERT_NE(rt13, nullptr);
  EXPECT_EQ(rt13->version.value_or(""), "13.0.96");
  EXPECT_EQ(rt13->origin_detail, "nvidia_cuda_runtime-13.0.96.dist-info");
  const LibraryCopy* conda = copy_at(f, "/home/u/miniconda3/envs/cuda124/lib/libcudart.so.12.4.127");
  ASSERT_NE(conda, nullptr);
  EXPECT_EQ(conda->origin, "conda");
  EXPECT_EQ(conda->origin_detail, "/home/u/miniconda3/envs/cuda124");

  const CudnnSet* set = set_in(f, sp12 + "/nvidia/cudnn/lib");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->missing, std::vector<std::string>{"cudnn_engines_runtime_compiled"});
  EXPECT_TRUE(set->consistent);
  EXPECT_EQ(set->header.value_or(""), sp12 + "/nvidia/cudnn/include/cudnn_version.h");
  // Pip wheels are not on the loader's path: frameworks preload them by full path.
  ASSERT_NE(res(f, "libcudnn.so.9"), nullptr);
  EXPECT_FALSE(res(f, "libcudnn.so.9")->path.has());
}

TEST(Libraries, WslCopiesAndTheCacheThatSkipsThem) {
  test::FixtureOs fx("libs/wsl", {});
  const LibraryFacts f = collect(fx, Layout::posix);
  size_t libcuda = 0;
  for (const auto& c : f.copies) {
    if (c.library == "cuda") {
      ++libcuda;
      EXPECT_EQ(c.origin, "wsl");
    }
  }
  EXPECT_EQ(libcuda, 3u) << "libcuda.so, libcuda.so.1 and libcuda.so.1.1 are three copies";
  ASSERT_NE(copy_at(f, "/usr/lib/wsl/lib/libcuda.so"), nullptr);
  EXPECT_EQ(copy_at(f, "/usr/lib/wsl/lib/libcuda.so")->soname, "libcuda.so");
  EXPECT_EQ(copy_at(f, "/usr/lib/wsl/lib/libcuda.so.1.1")->soname, "libcuda.so.1");
  EXPECT_NE(copy_at(f, "/usr/lib/wsl/lib/libdxcore.so"), nullptr);
  EXPECT_NE(copy_at(f, "/usr/lib/wsl/lib/libnvidia-ml.so.1"), nullptr);

  const auto* r1 = res(f, "libcuda.so.1");
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->via, "ld.so.cache");
  EXPECT_EQ(r1->path.value_or(""), "/usr/lib/wsl/lib/libcuda.so.1");
  const auto* r0 = res(f, "libcuda.so");
  ASSERT_NE(r0, nullptr);
  EXPECT_FALSE(r0->path.has()) << "ldconfig left the unversioned copy out of the cache";
  EXPECT_EQ(res(f, "libnvidia-ml.so.1")->via, "ld.so.cache");

  test::FixtureOs fx2("libs/wsl", {{"LD_LIBRARY_PATH", "/usr/lib/wsl/lib"}});
  const LibraryFacts f2 = collect(fx2, Layout::posix);
  ASSERT_NE(res(f2, "libcuda.so"), nullptr);
  EXPECT_EQ(res(f2, "libcuda.so")->via, "LD_LIBRARY_PATH");
}

TEST(Libraries, BadInputNeverCrashes) {
  const stdfs::path root = stdfs::temp_directory_path() / "gpuready_libs_bad";
  stdfs::remove_all(root);
  stdfs::create_directories(root / "etc");
  stdfs::create_directories(root / "opt/lib");
  std::ofstream(root / "etc/ld.so.cache", std::ios::binary) << "glibc-ld.so.cache1.1\xff\xff\xff\x7f garbage";
  stdfs::create_symlink("libcudart.so.12", root / "opt/lib/libcudart.so.12");           // link to itself
  stdfs::create_symlink("libcublas.so.12.9.9", root / "opt/lib/libcublas.so.12");       // dangling
  std::ofstream(root / "opt/lib/libcudnn.so.9") << "x";
  std::ofstream(root / "opt/lib/libcudnn_ops.so.9.9.9") << "x";
  stdfs::create_symlink("libcudnn_ops.so.9.9.9", root / "opt/lib/libcudnn_ops.so.9");
  std::ofstream(root / "opt/lib/libcudnn_cnn.so.9") << "x";                              // no full version
  std::string path;
  for (int i = 0; i < 5000; ++i) path += "/none/" + std::to_string(i) + ":";
  path += "$ORIGIN/../lib::relative:/opt/lib";
  test::FixtureOs fx("", {{"LD_LIBRARY_PATH", path}});
  fx.fs = test::RootedFs(root.string());
  const auto t0 = std::chrono::steady_clock::now();
  const LibraryFacts f = collect(fx, Layout::posix);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 500.0);
  EXPECT_FALSE(f.ld_cache.has());
  EXPECT_NE(f.ld_cache.why().find("not a loader cache"), std::string::npos) << f.ld_cache.why();
  for (const auto& c : f.copies) {
    EXPECT_NE(c.library, "cudart") << "a link loop is no copy";
    EXPECT_NE(c.library, "cublas") << "a dangling link is no copy";
  }
  // /opt/lib is past 64 LD_LIBRARY_PATH entries: not scanned, not used by the emulated loader.
  EXPECT_EQ(copy_at(f, "/opt/lib/libcudnn.so.9"), nullptr);

  test::FixtureOs fx2("", {{"LD_LIBRARY_PATH", "$ORIGIN/../lib::relative:/opt/lib"}});
  fx2.fs = test::RootedFs(root.string());
  const LibraryFacts f2 = collect(fx2, Layout::posix);
  ASSERT_NE(copy_at(f2, "/opt/lib/libcudnn.so.9"), nullptr);
  EXPECT_EQ(copy_at(f2, "/opt/lib/libcudnn.so.9")->origin, "LD_LIBRARY_PATH");
  const CudnnSet* s = set_in(f2, "/opt/lib");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->present, (std::vector<std::string>{"cudnn_cnn", "cudnn_ops"}));
  EXPECT_EQ(s->missing.size(), 5u);
  EXPECT_EQ(s->versions.at("cudnn_ops"), "9.9.9");
  EXPECT_TRUE(s->consistent) << "9 and 9.9.9 do not contradict each other";
  EXPECT_FALSE(s->header.has());
  EXPECT_EQ(res(f2, "libcudnn.so.9")->via, "LD_LIBRARY_PATH");
  stdfs::remove_all(root);
}

TEST(Libraries, ThisMachine) {
  if (!stdfs::exists("/usr/local/cuda")) GTEST_SKIP() << "/usr/local/cuda is absent";
  const Os& os = real_os();
  std::vector<Toolkit> ts;
  LibraryFacts f;
  const auto t0 = std::chrono::steady_clock::now();
  collect_toolkits(os, ts);
  collect_libraries(os, ts, {}, f);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[this machine] ld_cache: " << nlohmann::json(f.ld_cache).dump() << "\n";
  for (const auto& c : f.copies) std::cout << "[this machine] copy " << nlohmann::json(c).dump() << "\n";
  for (const auto& r : f.resolutions) std::cout << "[this machine] resolve " << nlohmann::json(r).dump() << "\n";
  for (const auto& s : f.cudnn_sets) std::cout << "[this machine] cudnn set " << nlohmann::json(s).dump() << "\n";
  std::cout << "[this machine] toolkits + libraries took " << ms << " ms\n";
  const std::string lib = stdfs::canonical("/usr/local/cuda/lib64").string();
  bool cudart = false;
  for (const auto& c : f.copies) cudart = cudart || (c.library == "cudart" && c.path.rfind(lib, 0) == 0);
  EXPECT_TRUE(cudart) << "libcudart in " << lib;
  if (stdfs::exists(lib + "/libcudnn.so.9")) {
    const CudnnSet* s = set_in(f, lib);
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->version.has());
  }
}

}  // namespace
}  // namespace gpuready
