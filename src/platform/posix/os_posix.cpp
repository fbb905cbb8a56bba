// The real POSIX Os bundle and host facts from uname/sysinfo.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "platform/posix/posix_os.h"

namespace gpuready {

const Os& real_os() {
  static const PosixFs fs;
  static const PosixEnv env;
  static const PosixProc proc;
  static const PosixDynLib dl;
  static const Os os{fs, env, proc, dl};
  return os;
}

HostInfo host_info() {
  HostInfo h;
  utsname u{};
  if (::uname(&u) == 0) {
    h.kernel_name = u.sysname;
    h.kernel_release = u.release;
    h.machine = u.machine;
    h.hostname = u.nodename;
  }
  struct sysinfo si {};
  if (::sysinfo(&si) == 0) h.ram_bytes = static_cast<std::uint64_t>(si.totalram) * si.mem_unit;
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) h.logical_cpus = static_cast<int>(n);
  return h;
}

std::optional<std::string> make_temp_dir(const std::string& tag, std::string* error, const std::string& parent) {
  if (!parent.empty() && !is_absolute_path(parent)) {
    if (error) *error = parent + ": not an absolute path";
    return std::nullopt;
  }
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = !parent.empty() ? parent : tmp && is_absolute_path(tmp) ? std::string(tmp) : "/tmp";
  std::string pattern = base + "/gpuready-" + tag + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {  // mode 0700
    if (error) *error = "cannot make a folder like " + pattern + ": " + std::strerror(errno);
    return std::nullopt;
  }
  return pattern;
}

bool remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  return !ec;
}

void harden_process() {}

void prepare_heap() {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  constexpr size_t kPad = size_t{32} << 20;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (::mallopt(M_TOP_PAD, static_cast<int>(kPad)) != 1) return;
  // Blocks under the 128 KiB mmap threshold, until one is larger than the heap's free top: then
  // malloc extends the heap, by the block and the pad; freed, they stay in the heap's top. (Kept
  // in a volatile array: a compiler may drop a malloc whose block is only freed.)
  auto* start = static_cast<char*>(::sbrk(0));
  void* volatile blocks[16] = {};
  size_t n = 0;
  while (n < 16 && ::sbrk(0) == start) blocks[n++] = std::malloc(120 << 10);
  auto* end = static_cast<char*>(::sbrk(0));
  for (size_t i = 0; i < n; ++i) std::free(blocks[i]);
  const uintptr_t from = (reinterpret_cast<uintptr_t>(start) + kHuge - 1) & ~(kHuge - 1);
  const auto to = reinterpret_cast<uintptr_t>(end) & ~(kHuge - 1);
  if (start == reinterpret_cast<char*>(-1) || end == reinterpret_cast<char*>(-1) || to <= from) return;
  ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);  // advice: failure changes nothing
#endif
}

bool stdout_wants_color() {
  if (std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

namespace {
volatile sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }
}  // namespace

void catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

bool interrupted() { return g_interrupted != 0; }

bool stderr_is_terminal() { return isatty(2) == 1; }

#ifdef __linux__
struct ThreadCpuBinding::Saved {
  cpu_set_t set;
};
#else
struct ThreadCpuBinding::Saved {};
#endif

ThreadCpuBinding::ThreadCpuBinding() = default;

ThreadCpuBinding::~ThreadCpuBinding() {
#ifdef __linux__
  if (saved_) sched_setaffinity(0, sizeof saved_->set, &saved_->set);
#endif
  delete saved_;
}

bool ThreadCpuBinding::bind(const std::vector<int>& cpus, int* allowed, std::string* why) {
  *allowed = 0;
  if (saved_) {
    *why = "this thread is already bound";
    return false;
  }
#ifdef __linux__
  cpu_set_t old;
  if (sched_getaffinity(0, sizeof old, &old) != 0) {
    *why = std::string("sched_getaffinity failed: ") + std::strerror(errno);
    return false;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &old)) {
      CPU_SET(c, &set);
      ++*allowed;
    }
  if (*allowed == 0) {
    *why = "none of those CPUs is in this process's CPU set (a container or taskset)";
    return false;
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    *why = std::string("sched_setaffinity failed: ") + std::strerror(errno);
    *allowed = 0;
    return false;
  }
  saved_ = new Saved{old};
  return true;
#else
  (void)cpus;
  *why = "binding a thread to CPUs is implemented for Linux and Windows only";
  return false;
#endif
}

}  // namespace gpuready
