// POSIX implementation of Proc: fork/exec into a new process group, read both pipes
// with poll, and kill the whole group at the timeout, so a hung interpreter or a
// driver stuck in the kernel never hangs gpuready.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "platform/posix/posix_os.h"

extern char** environ;

namespace gpuready {
namespace {

long long now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// The child's environment: this process's, with set_env and unset_env applied, and (unless a test
// asks for the raw one) every search-path variable cleaned of entries that name the current folder.
std::vector<std::string> child_environment(const ProcOptions& o) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv(*e);
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string key = kv.substr(0, eq);
    if (vars.emplace(key, kv.substr(eq + 1)).second) order.push_back(key);
  }
  for (const auto& u : o.unset_env) vars.erase(u);
  for (const auto& [k, v] : o.set_env) {
    if (!vars.count(k)) order.push_back(k);
    vars[k] = v;
  }
  if (o.clean_search_paths)
    for (const auto& name : search_path_variables()) {
      auto it = vars.find(name);
      if (it == vars.end()) continue;
      CleanedPathList c = clean_search_path_list(it->second, name == "LD_PRELOAD" ? ": " : ":");
      if (c.kept == 0) vars.erase(it);
      else it->second = std::move(c.value);
    }
  std::vector<std::string> env;
  for (const auto& k : order) {
    auto it = vars.find(k);
    if (it != vars.end()) env.push_back(k + "=" + it->second);
  }
  return env;
}

// The file exec will run: argv[0] itself when it holds a '/' (it must then be absolute), else the
// first executable regular file of that name in an absolute folder of the child's PATH. Relative
// and empty PATH entries (the current folder) are never searched, whatever the environment says.
std::optional<std::string> resolve_program(const std::string& argv0, const std::vector<std::string>& env,
                                           std::string* why) {
  if (argv0.find('/') != std::string::npos) {
    if (!is_absolute_path(argv0)) {
      *why = argv0 + ": not run: gpuready runs programs by absolute path only, never from the current folder";
      return std::nullopt;
    }
    return argv0;
  }
  std::string path_value;
  for (const auto& kv : env)
    if (kv.rfind("PATH=", 0) == 0) path_value = kv.substr(5);
  const CleanedPathList dirs = clean_search_path_list(path_value, ":");
  size_t start = 0;
  while (start <= dirs.value.size() && !dirs.value.empty()) {
    const size_t end = dirs.value.find(':', start);
    const std::string dir = dirs.value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = join_path(dir, argv0);
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  *why = argv0 + ": not found in the absolute folders of PATH" +
         (dirs.dropped.empty() ? std::string() : " (its empty or relative entries are never searched)");
  return std::nullopt;
}

// SIGPIPE for this thread only, while it writes a child's stdin: blocked, and a pending one that
// our own write raised is taken back before the mask is restored. The process's disposition is
// never touched (a library or the embedding program may rely on it).
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    ::sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    active_ = ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old_) == 0;
  }
  ~ScopedSigpipeBlock() {
    if (!active_) return;
    if (!was_pending_) {
      sigset_t pipe_set;
      sigemptyset(&pipe_set);
      sigaddset(&pipe_set, SIGPIPE);
      const timespec zero{0, 0};
      while (::sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
      }
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  ScopedSigpipeBlock(const ScopedSigpipeBlock&) = delete;
  ScopedSigpipeBlock& operator=(const ScopedSigpipeBlock&) = delete;

 private:
  sigset_t old_{};
  bool active_ = false;
  bool was_pending_ = false;
};

}  // namespace

ProcResult PosixProc::run(const std::vector<std::string>& argv, const ProcOptions& options) const {
  ProcResult r;
  if (argv.empty()) {
    r.error = "no program given";
    return r;
  }
  std::vector<std::string> env = child_environment(options);
  std::string why;
  const auto program = resolve_program(argv[0], env, &why);
  if (!program) {
    r.error = why;
    return r;
  }
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);

  int out_pipe[2], err_pipe[2], in_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(in_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], in_pipe[0], in_pipe[1], exec_pipe[0], exec_pipe[1]})
      ::close(fd);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::signal(SIGPIPE, SIG_DFL);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) {
      const int e = -errno;  // negative: the folder, not the program, is what failed
      (void)!::write(exec_pipe[1], &e, sizeof e);
      ::_exit(127);
    }
    ::execve(program->c_str(), cargv.data(), cenv.data());
    const int e = errno;
    (void)!::write(exec_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the kill below cannot race the child's own call
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(in_pipe[0]);
  ::close(exec_pipe[1]);

  // Did exec work? The pipe closes on a successful exec (O_CLOEXEC) or carries errno.
  int exec_errno = 0;
  ssize_t got;
  do got = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    ::waitpid(pid, nullptr, 0);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(in_pipe[1]);
    r.error = exec_errno < 0 ? "cannot run in " + options.cwd + ": " + std::strerror(-exec_errno)
                             : argv[0] + ": " + std::strerror(exec_errno);
    return r;
  }
  r.started = true;

  // Feed stdin without blocking on a child that never reads it.
  size_t in_off = 0;
  int in_fd = in_pipe[1];
  ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
  const ScopedSigpipeBlock no_sigpipe;  // a child that exits without reading its stdin
  if (options.stdin_data.empty()) {
    ::close(in_fd);
    in_fd = -1;
  }

  const long long deadline = now_ms() + options.timeout.count();
  int fds[2] = {out_pipe[0], err_pipe[0]};
  std::string* sinks[2] = {&r.out, &r.err};
  char buf[16384];
  bool asked_to_stop = false;
  auto maybe_interrupt = [&] {
    if (!asked_to_stop && options.interrupt && options.interrupt()) {
      asked_to_stop = true;
      ::kill(-pid, SIGINT);
    }
  };
  while (fds[0] >= 0 || fds[1] >= 0) {
    maybe_interrupt();
    long long left = deadline - now_ms();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    if (options.interrupt) left = std::min(left, 100LL);
    pollfd p[3];
    int n = 0;
    int which[3];
    for (int k = 0; k < 2; ++k)
      if (fds[k] >= 0) {
        p[n] = {fds[k], POLLIN, 0};
        which[n++] = k;
      }
    if (in_fd >= 0) {
      p[n] = {in_fd, POLLOUT, 0};
      which[n++] = 2;
    }
    const int rc = ::poll(p, static_cast<nfds_t>(n), static_cast<int>(left));
    if (rc < 0 && errno != EINTR) break;
    for (int k = 0; k < n && rc > 0; ++k) {
      if (!p[k].revents) continue;
      if (which[k] == 2) {
        const ssize_t w = ::write(in_fd, options.stdin_data.data() + in_off, options.stdin_data.size() - in_off);
        if (w > 0) in_off += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) in_off = options.stdin_data.size();
        if (in_off >= options.stdin_data.size()) {
          ::close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      const int s = which[k];
      const ssize_t m = ::read(fds[s], buf, sizeof buf);
      if (m > 0) {
        const size_t room = options.max_output > sinks[s]->size() ? options.max_output - sinks[s]->size() : 0;
        sinks[s]->append(buf, std::min(room, static_cast<size_t>(m)));
        if (s == 1 && options.on_stderr) options.on_stderr(std::string_view(buf, static_cast<size_t>(m)));
      } else if (m == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[s]);
        fds[s] = -1;
      }
    }
  }
  if (in_fd >= 0) ::close(in_fd);
  for (int fd : fds)
    if (fd >= 0) ::close(fd);

  int status = 0;
  if (r.timed_out) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    r.error = argv[0] + ": no answer within " + std::to_string(options.timeout.count()) + " ms, killed";
    return r;
  }
  // Pipes closed; the child may still be running (it closed its stdout). Wait within the deadline.
  for (;;) {
    rusage usage{};
    const pid_t w = ::wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) {
      r.peak_memory_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux: kilobytes
      break;
    }
    if (w < 0 && errno != EINTR) break;
    maybe_interrupt();
    if (now_ms() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      r.error = argv[0] + ": no exit within " + std::to_string(options.timeout.count()) + " ms, killed";
      return r;
    }
    ::usleep(1000);
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.error = argv[0] + ": killed by signal " + std::to_string(r.signal) + " (" + ::strsignal(r.signal) + ")";
  }
  return r;
}

std::optional<std::string> PosixProc::self_path() const {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace gpuready
