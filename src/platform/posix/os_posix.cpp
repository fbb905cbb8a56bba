// The real POSIX Os bundle and host facts from uname/sysinfo.
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
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

bool stdout_wants_color() {
  if (std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace gpuready
