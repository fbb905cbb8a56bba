// Tests of the library collector on fixture trees: copies and their versions, loader resolutions
// (LD_LIBRARY_PATH / ld.so.cache / default folders; System32 / PATH on Windows), cuDNN sets,
// WSL's copied driver libraries, header-only cuDNN, DLLs in a toolkit's lib\x64, what each library
// file needs and where the loader finds it for that file (RPATH / LD_LIBRARY_PATH / RUNPATH with
// $ORIGIN / cache / default folders), bad input; plus a run on this machine.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

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
                     std::string ld_cache = "/etc/ld.so.cache", std::vector<std::string> extra_dirs = {}) {
  std::vector<Toolkit> ts;
  probe_detail::collect_toolkits_in(fx.os(), ToolkitSearch{l}, ts);
  LibrarySearch s;
  s.layout = l;
  s.ld_cache = std::move(ld_cache);
  s.default_dirs = kDefaultDirs;
  s.extra_dirs = std::move(extra_dirs);
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
std::vector<std::string> need_names(const std::vector<Dependency>& needs) {
  std::vector<std::string> out;
  for (const auto& d : needs) out.push_back(d.name);
  return out;
}
const Dependency* need(const std::vector<Dependency>& needs, const std::string& name, const std::string& by = "") {
  for (const auto& d : needs)
    if (d.name == name && (by.empty() || d.needed_by == by)) return &d;
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

  // cuSOLVER's dependencies, in its DT_NEEDED order without the C runtime: LD_LIBRARY_PATH comes
  // before its RUNPATH $ORIGIN (both reach the same folder here).
  const LibraryCopy* sol = copy_at(f, lib + "libcusolver.so.11");
  ASSERT_NE(sol, nullptr);
  EXPECT_EQ(sol->runpath, "$ORIGIN");
  EXPECT_EQ(need_names(sol->needs), (std::vector<std::string>{"libnvJitLink.so.12", "libcusparse.so.12",
                                                              "libcublas.so.12", "libcublasLt.so.12"}));
  for (const auto& d : sol->needs) {
    EXPECT_EQ(d.needed_by, "libcusolver.so.11");
    EXPECT_EQ(d.via, "LD_LIBRARY_PATH") << d.name;
    EXPECT_EQ(d.path.value_or(""), "/usr/local/cuda/lib64/" + d.name);
  }
  const LibraryCopy* blas = copy_at(f, lib + "libcublas.so.12.4.5.8");
  ASSERT_NE(blas, nullptr);
  EXPECT_EQ(need_names(blas->needs), std::vector<std::string>{"libcublasLt.so.12"});
  EXPECT_EQ(blas->needs[0].needed_by, "libcublas.so.12.4.5.8");
  // Text stand-ins and the driver's tiny libraries name nothing.
  EXPECT_TRUE(rt->needs.empty());
  EXPECT_EQ(rt->runpath, "");
  ASSERT_NE(copy_at(f, "/usr/lib/x86_64-linux-gnu/libcuda.so.535.161.07"), nullptr);
  EXPECT_TRUE(copy_at(f, "/usr/lib/x86_64-linux-gnu/libcuda.so.535.161.07")->needs.empty());

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
  // What its sub-libraries need: graph needs zlib; the engines, heuristic and ops need graph and
  // zlib; cnn and adv need ops too. zlib comes from the loader cache, the rest through LD_LIBRARY_PATH.
  EXPECT_EQ(s9->needs.size(), 15u);
  EXPECT_EQ(need_names(dnn9->needs), std::vector<std::string>{}) << "the main library needs only the C runtime";
  const Dependency* z = need(s9->needs, "libz.so.1", "libcudnn_ops.so.9.1.0");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->via, "ld.so.cache");
  EXPECT_EQ(z->path.value_or(""), "/usr/lib/x86_64-linux-gnu/libz.so.1");
  const Dependency* g = need(s9->needs, "libcudnn_graph.so.9", "libcudnn_adv.so.9.0.0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->via, "LD_LIBRARY_PATH");
  EXPECT_NE(need(s9->needs, "libcudnn_ops.so.9", "libcudnn_cnn.so.9.1.0"), nullptr);
  EXPECT_EQ(need(s9->needs, "libcudnn_ops.so.9", "libcudnn_heuristic.so.9.1.0"), nullptr);
  EXPECT_EQ(need(s9->needs, "libc.so.6"), nullptr) << "the C runtime is left out";
  EXPECT_EQ(need(s9->needs, "ld-linux-x86-64.so.2"), nullptr);
  // cuDNN 8 from apt: whole, one version, its header in the multiarch include folder.
  const CudnnSet* s8 = set_in(f, "/usr/lib/x86_64-linux-gnu");
  ASSERT_NE(s8, nullptr);
  EXPECT_EQ(s8->present.size(), 6u);
  EXPECT_TRUE(s8->missing.empty());
  EXPECT_TRUE(s8->consistent);
  EXPECT_EQ(s8->header.value_or(""), "/usr/include/x86_64-linux-gnu/cudnn_version_v8.h");
  EXPECT_TRUE(s8->needs.empty());
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
  // Without LD_LIBRARY_PATH, cuSOLVER finds its dependencies through its RUNPATH $ORIGIN (the
  // toolkit folder with links resolved), and cuDNN's zlib in the default folders.
  const std::string lib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/";
  const LibraryCopy* sol = copy_at(f, lib + "libcusolver.so.11");
  ASSERT_NE(sol, nullptr);
  ASSERT_EQ(sol->needs.size(), 4u);
  for (const auto& d : sol->needs) {
    EXPECT_EQ(d.via, "RUNPATH") << d.name;
    EXPECT_EQ(d.path.value_or(""), lib + d.name);
  }
  const CudnnSet* s9 = set_in(f, "/usr/local/cuda-12.4/targets/x86_64-linux/lib");
  ASSERT_NE(s9, nullptr);
  const Dependency* z = need(s9->needs, "libz.so.1");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->via, "default path");
  EXPECT_EQ(z->path.value_or(""), "/usr/lib/x86_64-linux-gnu/libz.so.1");
}

TEST(Libraries, DependencyTheLoaderCannotFind) {
  // CUDA 12.4's cuSOLVER and cuSPARSE without libnvJitLink.so.12 anywhere.
  test::FixtureOs fx("libs/linux_deps", {});
  const LibraryFacts f = collect(fx, Layout::posix, {}, "/etc/no-cache");
  const std::string lib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib";
  const LibraryCopy* sol = copy_at(f, lib + "/libcusolver.so.11");
  ASSERT_NE(sol, nullptr);
  const Dependency* jit = need(sol->needs, "libnvJitLink.so.12");
  ASSERT_NE(jit, nullptr);
  EXPECT_FALSE(jit->path.has());
  EXPECT_EQ(jit->via, "");
  EXPECT_EQ(jit->needed_by, "libcusolver.so.11");
  const std::string& why = jit->path.why();
  EXPECT_NE(why.find("not found by the loader"), std::string::npos) << why;
  EXPECT_NE(why.find("its RUNPATH (" + lib + ")"), std::string::npos) << why;
  EXPECT_NE(why.find("LD_LIBRARY_PATH"), std::string::npos) << why;
  EXPECT_NE(why.find("the (unreadable) loader cache"), std::string::npos) << why;
  EXPECT_NE(why.find("the default folders"), std::string::npos) << why;
  // Its other dependencies are there, next to it.
  const Dependency* blas = need(sol->needs, "libcublas.so.12");
  ASSERT_NE(blas, nullptr);
  EXPECT_EQ(blas->via, "RUNPATH");
  EXPECT_EQ(blas->path.value_or(""), lib + "/libcublas.so.12");
  const LibraryCopy* sparse = copy_at(f, lib + "/libcusparse.so.12");
  ASSERT_NE(sparse, nullptr);
  ASSERT_EQ(sparse->needs.size(), 1u);
  EXPECT_FALSE(sparse->needs[0].path.has());
  // The framework-level resolution of libcusolver.so.11 is not affected: it knows no RUNPATH.
  ASSERT_NE(res(f, "libcusolver.so.11"), nullptr);
  EXPECT_FALSE(res(f, "libcusolver.so.11")->path.has());
}

// `verify --libs /opt/cuda11/lib`: a folder on no search path (cuBLAS 11 unpacked from Debian's libcublas11) is
// listed because the user named it, and only then.
TEST(Libraries, FolderNamedByTheUserIsListed) {
  test::FixtureOs fx("libs/linux_deps", {});
  const std::string blas = "/opt/cuda11/lib/libcublas.so.11.11.3.6";
  EXPECT_EQ(copy_at(collect(fx, Layout::posix, {}, "/etc/no-cache"), blas), nullptr);
  const LibraryFacts f = collect(fx, Layout::posix, {}, "/etc/no-cache", {"/opt/cuda11/lib"});
  const LibraryCopy* c = copy_at(f, blas);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->origin, "--libs");
  EXPECT_EQ(c->soname, "libcublas.so.11");
  EXPECT_EQ(c->version.value_or(""), "11.11.3.6");
  const Dependency* lt = need(c->needs, "libcublasLt.so.11");  // found beside it, through its RPATH
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->path.value_or(""), "/opt/cuda11/lib/libcublasLt.so.11");
  EXPECT_EQ(count_path(f, blas), 1u);
}

TEST(Libraries, RpathComesBeforeLdLibraryPathAndRunpathAfter) {
  test::FixtureOs fx("libs/linux_deps", {{"LD_LIBRARY_PATH", "/opt/stale/lib:/opt/cuda11/lib:/opt/odd/lib"}});
  const LibraryFacts f = collect(fx, Layout::posix, {}, "/etc/no-cache");
  // CUDA 11 cuBLAS with an old-style DT_RPATH $ORIGIN: its own folder wins over LD_LIBRARY_PATH's
  // stale copy.
  const LibraryCopy* b11 = copy_at(f, "/opt/cuda11/lib/libcublas.so.11.11.3.6");
  ASSERT_NE(b11, nullptr);
  EXPECT_EQ(b11->runpath, "$ORIGIN") << "DT_RPATH as written when there is no DT_RUNPATH";
  ASSERT_EQ(b11->needs.size(), 1u);
  EXPECT_EQ(b11->needs[0].via, "RPATH");
  EXPECT_EQ(b11->needs[0].path.value_or(""), "/opt/cuda11/lib/libcublasLt.so.11");
  // The toolkit's cuBLAS has a RUNPATH: LD_LIBRARY_PATH's stale cuBLASLt is taken first.
  const LibraryCopy* b12 = copy_at(f, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcublas.so.12.4.5.8");
  ASSERT_NE(b12, nullptr);
  ASSERT_EQ(b12->needs.size(), 1u);
  EXPECT_EQ(b12->needs[0].via, "LD_LIBRARY_PATH");
  EXPECT_EQ(b12->needs[0].path.value_or(""), "/opt/stale/lib/libcublasLt.so.12");
  // RUNPATH '$ORIGINAL:rel::$LIB/x:${ORIGIN}/../nvjl': $ORIGINAL is no $ORIGIN, relative, empty and
  // $LIB entries are not searched, ${ORIGIN} is; the path is reported without "..".
  const LibraryCopy* nccl = copy_at(f, "/opt/odd/lib/libnccl.so.2");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->runpath, "$ORIGINAL:rel::$LIB/x:${ORIGIN}/../nvjl");
  ASSERT_EQ(nccl->needs.size(), 1u);
  EXPECT_EQ(nccl->needs[0].via, "RUNPATH");
  EXPECT_EQ(nccl->needs[0].path.value_or(""), "/opt/odd/nvjl/libnvJitLink.so.12");
  // The same dependency of cuSOLVER is still missing: /opt/odd/nvjl is only in NCCL's RUNPATH.
  const LibraryCopy* sol = copy_at(f, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcusolver.so.11");
  ASSERT_NE(sol, nullptr);
  ASSERT_NE(need(sol->needs, "libnvJitLink.so.12"), nullptr);
  EXPECT_FALSE(need(sol->needs, "libnvJitLink.so.12")->path.has());
}

TEST(Libraries, ElfReadsAreCapped) {
  test::FixtureOs fx("libs/linux_cuda12", {});
  std::vector<Toolkit> ts;
  probe_detail::collect_toolkits_in(fx.os(), ToolkitSearch{Layout::posix}, ts);
  LibrarySearch s;
  s.layout = Layout::posix;
  s.default_dirs = kDefaultDirs;
  s.max_elf_files = 3;
  s.max_dependency_lookups = 2;
  LibraryFacts f;
  probe_detail::collect_libraries_in(fx.os(), s, ts, {}, f);
  size_t read = 0, looked_up = 0, capped = 0;
  for (const auto& c : f.copies) {
    read += !c.runpath.empty();
    for (const auto& d : c.needs) {
      if (d.path.has())
        ++looked_up;
      else if (d.path.why().find("stops after 2 lookups") != std::string::npos)
        ++capped;
    }
  }
  EXPECT_LE(read, 3u);
  EXPECT_LE(looked_up, 2u);
  for (const auto& set : f.cudnn_sets) EXPECT_TRUE(set.needs.empty()) << set.dir << ": no reads left for it";
  // Without the caps the same tree reads far more.
  const LibraryFacts all = collect(fx, Layout::posix, {}, "/etc/ld.so.cache");
  size_t read_all = 0;
  for (const auto& c : all.copies) read_all += !c.runpath.empty();
  EXPECT_GT(read_all, 3u);
}

TEST(Libraries, WindowsDllsInLibX64AreCopies) {
  const std::string v12 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
  test::FixtureOs fx("libs/windows_dll_in_lib", {{"CUDA_PATH", v12}, {"PATH", v12 + "\\bin"}});
  const LibraryFacts f = collect(fx, Layout::windows);
  const LibraryCopy* dnn = copy_at(f, v12 + "\\lib\\x64\\cudnn64_9.dll");
  ASSERT_NE(dnn, nullptr) << "a DLL in lib\\x64 is recorded";
  EXPECT_EQ(dnn->origin, "toolkit");
  EXPECT_EQ(dnn->origin_detail, v12);
  EXPECT_EQ(dnn->soname, "cudnn64_9.dll");
  EXPECT_EQ(dnn->version.value_or(""), "9.1.0");
  EXPECT_EQ(dnn->version_source, "cudnn_version.h");
  EXPECT_TRUE(dnn->needs.empty()) << "PE imports are not read";
  ASSERT_NE(copy_at(f, v12 + "\\bin\\cudart64_12.dll"), nullptr);
  for (const auto& c : f.copies) {
    EXPECT_EQ(c.path.find(".lib"), std::string::npos) << "import libraries are no copies: " << c.path;
  }
  // The loader does not look in lib\x64: cuDNN is not found.
  ASSERT_NE(res(f, "cudnn64_9.dll"), nullptr);
  EXPECT_FALSE(res(f, "cudnn64_9.dll")->path.has());
  // Its sub-libraries make a whole cuDNN 9 set there.
  const CudnnSet* s = set_in(f, v12 + "\\lib\\x64");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->missing.empty());
  EXPECT_EQ(s->present.size(), 7u);
  EXPECT_TRUE(s->needs.empty());
  // No header-only record: the library is there, in the wrong folder.
  EXPECT_EQ(copy_at(f, v12 + "\\include\\cudnn_version.h"), nullptr);
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
  // The wheel's sub-libraries find each other through their RUNPATH $ORIGIN, but nothing provides
  // zlib here: the failure a real machine without zlib1g shows.
  const std::string dnn_lib = sp12 + "/nvidia/cudnn/lib";
  const Dependency* g = need(set->needs, "libcudnn_graph.so.9", "libcudnn_ops.so.9");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->via, "RUNPATH");
  EXPECT_EQ(g->path.value_or(""), dnn_lib + "/libcudnn_graph.so.9");
  const Dependency* z = need(set->needs, "libz.so.1", "libcudnn_graph.so.9");
  ASSERT_NE(z, nullptr);
  EXPECT_FALSE(z->path.has());
  EXPECT_NE(z->path.why().find("its RUNPATH (" + dnn_lib + ", " + dnn_lib + "/../../cublas/lib"), std::string::npos)
      << z->path.why();
  size_t zlibs = 0;
  for (const auto& d : set->needs) {
    zlibs += d.name == "libz.so.1";
    EXPECT_NE(d.needed_by, "libcudnn_engines_runtime_compiled.so.9") << "that file is missing";
  }
  EXPECT_EQ(zlibs, 6u) << "each of the six present sub-libraries needs zlib";
  EXPECT_EQ(dnn->runpath, "$ORIGIN");
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
  if (std::string why; !test::can_create_symlinks(&why)) GTEST_SKIP() << why;
  const stdfs::path root = stdfs::temp_directory_path() / "gpuready_libs_bad";
  stdfs::remove_all(root);
  stdfs::create_directories(root / "etc");
  stdfs::create_directories(root / "opt/lib");
  std::ofstream(root / "etc/ld.so.cache", std::ios::binary) << "glibc-ld.so.cache1.1\xff\xff\xff\x7f garbage";
  stdfs::create_symlink("libcudart.so.12", root / "opt/lib/libcudart.so.12");           // link to itself
  stdfs::create_symlink("libcublas.so.12.9.9", root / "opt/lib/libcublas.so.12");       // dangling
  // Library files: a real ELF cut short, one whose names carry bytes that are no UTF-8, and text.
  std::string elf;
  {
    std::ifstream in(test::fixture("libs/pip_wheels/home/u/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/"
                                   "libcudnn_ops.so.9"),
                     std::ios::binary);
    elf.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(elf.size(), 1000u);
  std::ofstream(root / "opt/lib/libcudnn.so.9", std::ios::binary) << elf.substr(0, 300);
  std::ofstream(root / "opt/lib/libcudnn_ops.so.9.9.9") << "x";
  stdfs::create_symlink("libcudnn_ops.so.9.9.9", root / "opt/lib/libcudnn_ops.so.9");
  for (const std::string from : {"libz.so.1", "$ORIGIN:$ORIGIN"}) {
    const size_t at = elf.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    elf[at + 1] = '\xff';
  }
  std::ofstream(root / "opt/lib/libcudnn_cnn.so.9", std::ios::binary) << elf;  // no full version
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
  EXPECT_TRUE(copy_at(f2, "/opt/lib/libcudnn.so.9")->needs.empty()) << "a cut ELF file names nothing";
  // The bad bytes are made U+FFFD, so the snapshot's JSON can be written.
  const Dependency* z = need(s->needs,
                             "l\xEF\xBF\xBD"
                             "bz.so.1");
  ASSERT_NE(z, nullptr) << nlohmann::json(s->needs).dump();
  EXPECT_EQ(z->needed_by, "libcudnn_cnn.so.9");
  // "$\xffRIGIN" is no token the loader knows: that entry is left out, the others are searched.
  EXPECT_NE(z->path.why().find("its RUNPATH (/opt/lib/../../cublas/lib, "), std::string::npos) << z->path.why();
  EXPECT_NO_THROW((void)nlohmann::json(f2).dump());
  stdfs::remove_all(root);
}

TEST(Libraries, ThisMachine) {
#ifdef _WIN32
  GTEST_SKIP() << "this Linux machine's toolkit; a Windows machine's probe is the windows_probe test";
#endif
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
  // cuSOLVER names cuBLAS as NEEDED in every CUDA release; the dynamic section of the real ~140 MB
  // file is read.
  for (const auto& c : f.copies) {
    if (c.library != "cusolver" || c.path.rfind(lib, 0) != 0) continue;
    bool blas = false;
    for (const auto& d : c.needs) blas = blas || d.name.rfind("libcublas.so.", 0) == 0;
    EXPECT_TRUE(blas) << c.path << ": " << nlohmann::json(c.needs).dump();
  }
  if (stdfs::exists(lib + "/libcudnn.so.9")) {
    const CudnnSet* s = set_in(f, lib);
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->version.has());
  }
}

}  // namespace
}  // namespace gpuready
