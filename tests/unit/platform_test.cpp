// The POSIX implementations of the OS seams against the real OS: timeouts really kill,
// errors keep the OS's words, reads are capped, FIFOs and loops do not hang.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "platform/os.h"
#include "vendors/library_search.h"

using namespace gpuready;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("gpuready_platform_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path / "locked", fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
};

const Os& os() { return real_os(); }

}  // namespace

TEST(Proc, CapturesOutputAndExitCode) {
  ProcOptions o;
  const ProcResult r = os().proc.run({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, o);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
}

TEST(Proc, TimeoutKillsTheWholeProcessGroup) {
  ProcOptions o;
  o.timeout = std::chrono::milliseconds(300);
  const auto t0 = std::chrono::steady_clock::now();
  // The grandchild keeps stdout open: only killing the group ends the wait.
  const ProcResult r = os().proc.run({"/bin/sh", "-c", "sleep 30 & sleep 30"}, o);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_NE(r.error.find("300 ms"), std::string::npos) << r.error;
}

TEST(Proc, ChildThatClosesItsOutputButKeepsRunningStillTimesOut) {
  ProcOptions o;
  o.timeout = std::chrono::milliseconds(300);
  const ProcResult r = os().proc.run({"/bin/sh", "-c", "exec >&- 2>&-; sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
}

TEST(Proc, MissingProgramSaysSo) {
  const ProcResult r = os().proc.run({"/nonexistent/program"}, {});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("No such file"), std::string::npos) << r.error;
}

TEST(Proc, SignalIsReported) {
  const ProcResult r = os().proc.run({"/bin/sh", "-c", "kill -SEGV $$"}, {});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.signal, 11);
  EXPECT_NE(r.error.find("signal 11"), std::string::npos) << r.error;
}

TEST(Proc, StdinIsDeliveredAndOutputCapped) {
  ProcOptions o;
  o.stdin_data = std::string(200000, 'x');
  o.max_output = 1000;
  const ProcResult r = os().proc.run({"/bin/cat"}, o);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.out.size(), 1000u);
}

TEST(Proc, EnvironmentIsSetAndUnset) {
  ProcOptions o;
  o.set_env = {{"GPUREADY_TEST_A", "one"}};
  o.unset_env = {"HOME"};
  const ProcResult r = os().proc.run({"/bin/sh", "-c", "echo \"$GPUREADY_TEST_A-${HOME:-unset}\""}, o);
  EXPECT_EQ(r.out, "one-unset\n");
}

TEST(Fs, ReadIsCappedAndErrorsKeepTheOsWords) {
  TempDir t;
  std::ofstream(t.path / "big") << std::string(10000, 'a');
  std::string err;
  auto data = os().fs.read_file((t.path / "big").string(), 100, &err);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->size(), 100u);
  EXPECT_FALSE(os().fs.read_file((t.path / "missing").string(), 100, &err));
  EXPECT_NE(err.find("No such file or directory"), std::string::npos) << err;
}

TEST(Fs, FifoDoesNotBlock) {
  TempDir t;
  const auto fifo = (t.path / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string err;
  EXPECT_FALSE(os().fs.read_file(fifo, 100, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

TEST(Fs, SymlinkLoopHasNoCanonicalPath) {
  TempDir t;
  fs::create_symlink(t.path / "b", t.path / "a");
  fs::create_symlink(t.path / "a", t.path / "b");
  EXPECT_FALSE(os().fs.canonical((t.path / "a").string()));
  EXPECT_FALSE(os().fs.is_dir((t.path / "a").string()));
  auto entries = os().fs.list_dir(t.path.string(), nullptr);
  ASSERT_TRUE(entries);
  for (const auto& e : *entries) EXPECT_TRUE(e.is_symlink);
}

TEST(Fs, UnreadableDirectoryIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every directory: permission errors cannot be produced";
  TempDir t;
  fs::create_directories(t.path / "locked");
  fs::permissions(t.path / "locked", fs::perms::none);
  std::string err;
  EXPECT_FALSE(os().fs.list_dir((t.path / "locked").string(), &err));
  EXPECT_NE(err.find("Permission denied"), std::string::npos) << err;
}

TEST(DynLib, MissingLibraryKeepsTheLoaderMessage) {
  std::string err;
  auto h = os().dl.open("/nonexistent/libgpuready-does-not-exist.so.1", &err);
  EXPECT_FALSE(h);
  EXPECT_NE(err.find("libgpuready-does-not-exist.so.1"), std::string::npos) << err;
}

TEST(DynLib, LoadsAndFindsTheFileItMapped) {
  std::string err;
  // A bare name is never handed to the loader (docs/security.md): resolve it first.
  EXPECT_FALSE(os().dl.open("libm.so.6", &err));
  const auto libm = vendors::resolve_library(os(), "libm.so.6", &err);
  ASSERT_TRUE(libm) << err;
  auto h = os().dl.open(libm->path, &err);
  ASSERT_TRUE(h) << err;
  void* cos_fn = os().dl.symbol(h, "cos");
  EXPECT_NE(cos_fn, nullptr);
  EXPECT_EQ(os().dl.symbol(h, "no_such_symbol_here"), nullptr);
  auto path = os().dl.path_of(h, cos_fn);
  ASSERT_TRUE(path);
  EXPECT_NE(path->find("libm"), std::string::npos) << *path;
  os().dl.close(h);
}

TEST(Path, SplitSkipsEmptyEntries) {
  EXPECT_EQ(split_path_list("/a::/b:"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(join_path("/usr/local/", "cuda"), "/usr/local/cuda");
  EXPECT_EQ(join_path("/usr/local", "cuda"), "/usr/local/cuda");
}

// prepare_heap: the heap grows by its pad at once and that range is advised for huge pages (the
// "hg" VmFlag of a [heap] mapping in /proc/self/smaps), whatever the heap held before.
TEST(PrepareHeap, GrowsTheHeapOnceAndAsksForHugePages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator does not use the program break";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer's allocator does not use the program break";
#endif
#endif
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  gpuready::prepare_heap();
  std::ifstream smaps("/proc/self/smaps");
  ASSERT_TRUE(smaps) << "no /proc/self/smaps";
  std::string line;
  bool in_heap = false;
  unsigned long size_kb = 0, advised_kb = 0;
  while (std::getline(smaps, line)) {
    const bool header = !line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < 17 &&
                        line.find(':') > line.find(' ');
    if (header) {
      in_heap = line.size() >= 6 && line.compare(line.size() - 6, 6, "[heap]") == 0;
      continue;
    }
    if (!in_heap) continue;
    if (line.rfind("Size:", 0) == 0) size_kb = std::stoul(line.substr(5));
    if (line.rfind("VmFlags:", 0) == 0 && line.find(" hg") != std::string::npos) advised_kb += size_kb;
  }
  EXPECT_GE(advised_kb, 16UL << 10) << "no [heap] mapping of 16 MiB or more is advised for huge pages";
}

namespace gpuready {
namespace {

#ifdef __linux__
std::vector<int> my_cpus() {
  cpu_set_t set;
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

TEST(ThreadCpuBinding, PinsTheThreadAndPutsItsCpuSetBack) {
  const std::vector<int> before = my_cpus();
  ASSERT_FALSE(before.empty());
  {
    ThreadCpuBinding b;
    int allowed = -1;
    std::string why;
    // The last CPU this thread may use, a CPU number no machine has and a negative one.
    ASSERT_TRUE(b.bind({before.back(), 1 << 20, -3}, &allowed, &why)) << why;
    EXPECT_EQ(allowed, 1);
    EXPECT_EQ(my_cpus(), std::vector<int>{before.back()});
    EXPECT_FALSE(b.bind({before.front()}, &allowed, &why));
    EXPECT_NE(why.find("already bound"), std::string::npos) << why;
  }
  EXPECT_EQ(my_cpus(), before);
}

TEST(ThreadCpuBinding, NoAllowedCpuLeavesTheThreadWhereItWas) {
  const std::vector<int> before = my_cpus();
  ThreadCpuBinding b;
  int allowed = -1;
  std::string why;
  EXPECT_FALSE(b.bind({1 << 20}, &allowed, &why));
  EXPECT_EQ(allowed, 0);
  EXPECT_NE(why.find("none of those CPUs"), std::string::npos) << why;
  EXPECT_EQ(my_cpus(), before);
}
#endif

}  // namespace
}  // namespace gpuready

namespace gpuready {
namespace {

TEST(Proc, InterruptAsksTheChildToStopAndWaitsForIt) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(20);
  const auto start = std::chrono::steady_clock::now();
  o.interrupt = [&] { return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(300); };
  // The child catches SIGINT, says so and exits with its own code: it was asked, not killed. (A shell's
  // background job ignores SIGINT: the trap ends it.)
  const ProcResult r =
      real_os().proc.run({"/bin/sh", "-c", "trap 'echo stopping; kill $!; exit 3' INT; sleep 15 >/dev/null 2>&1 & wait"}, o);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("stopping"), std::string::npos) << r.out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace gpuready
