// run_child (see child.h).
#include "platform/child.h"

#include <csignal>
#include <cstdio>

namespace gpuready {
namespace {

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == ';')) s.pop_back();
  return s;
}

std::string seconds_text(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

}  // namespace

std::string signal_words(int sig) {
  struct Named {
    int number;
    const char* name;
    const char* words;
  };
  static const Named table[] = {
      {SIGSEGV, "SIGSEGV", "segmentation fault"}, {SIGABRT, "SIGABRT", "aborted"},
      {SIGILL, "SIGILL", "illegal instruction"},  {SIGFPE, "SIGFPE", "arithmetic exception"},
      {SIGTERM, "SIGTERM", "terminated"},          {SIGINT, "SIGINT", "interrupted"},
#ifndef _WIN32
      {SIGBUS, "SIGBUS", "bus error"},             {SIGKILL, "SIGKILL", "killed, often by the out-of-memory killer"},
      {SIGPIPE, "SIGPIPE", "broken pipe"},         {SIGHUP, "SIGHUP", "hang-up"},
      {SIGTRAP, "SIGTRAP", "trace trap"},          {SIGSYS, "SIGSYS", "bad system call"},
      {SIGXCPU, "SIGXCPU", "CPU time limit"},      {SIGQUIT, "SIGQUIT", "quit"},
#endif
  };
  for (const auto& n : table)
    if (n.number == sig) return std::string(n.name) + " (" + n.words + ")";
  return "signal " + std::to_string(sig);
}

std::string ntstatus_words(unsigned code) {
  const char* name = nullptr;
  switch (code) {
    case 0xC0000005u: name = "STATUS_ACCESS_VIOLATION"; break;
    case 0xC000001Du: name = "STATUS_ILLEGAL_INSTRUCTION"; break;
    case 0xC00000FDu: name = "STATUS_STACK_OVERFLOW"; break;
    case 0xC0000409u: name = "STATUS_STACK_BUFFER_OVERRUN"; break;
    case 0xC0000135u: name = "STATUS_DLL_NOT_FOUND"; break;
    case 0xC0000139u: name = "STATUS_ENTRYPOINT_NOT_FOUND"; break;
    case 0xC000007Bu: name = "STATUS_INVALID_IMAGE_FORMAT"; break;
    case 0xC0000142u: name = "STATUS_DLL_INIT_FAILED"; break;
    case 0xC0000094u: name = "STATUS_INTEGER_DIVIDE_BY_ZERO"; break;
    case 0xC0000374u: name = "STATUS_HEAP_CORRUPTION"; break;
    case 0xC000013Au: name = "STATUS_CONTROL_C_EXIT"; break;
    default: break;
  }
  if (!name && code < 0xC0000000u) return {};
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08X", code);
  return name ? std::string(hex) + " (" + name + ")" : std::string(hex);
}

std::string ChildRun::where() const { return last_step.empty() ? std::string() : " (it was in " + last_step + ")"; }

std::string ChildRun::stderr_tail(size_t max_chars) const {
  std::string lines;
  size_t at = 0;
  while (at < stderr_text.size()) {
    size_t nl = stderr_text.find('\n', at);
    if (nl == std::string::npos) nl = stderr_text.size();
    std::string line = trim_end(stderr_text.substr(at, nl - at));
    if (!line.empty()) lines += (lines.empty() ? "" : "; ") + line;
    at = nl + 1;
  }
  if (lines.size() > max_chars) lines = "..." + lines.substr(lines.size() - max_chars);
  return lines;
}

std::string ChildRun::summary(const std::string& what, size_t tail_chars) const {
  std::string s = what + " " + how + where();
  const std::string t = stderr_tail(tail_chars);
  if (!t.empty() && end != End::not_started) s += "; stderr: " + t;
  return s;
}

ChildRun run_child(const Os& os, const ChildSpec& spec) {
  ChildRun run;
  if (spec.argv.empty()) {
    run.how = "could not start: no program given";
    return run;
  }
  ProcOptions po;
  po.timeout = spec.timeout;
  po.max_output = spec.max_output;
  po.set_env = spec.set_env;
  po.unset_env = spec.unset_env;
  po.stdin_data = spec.stdin_data;
  po.clean_search_paths = spec.clean_search_paths;
  std::string dir;
  if (spec.private_dir) {
    std::string err;
    auto made = make_temp_dir("child", &err);
    if (!made) {
      run.how = "could not start: no private folder to run it in (" + err + ")";
      return run;
    }
    dir = *made;
    po.cwd = dir;
  }
  std::string pending;
  po.interrupt = spec.interrupt;
  if (spec.on_progress && !spec.progress_prefix.empty())
    po.on_stderr = [&](std::string_view piece) {
      pending.append(piece);
      for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
        const std::string_view line(pending.data(), nl);
        if (line.substr(0, spec.progress_prefix.size()) == spec.progress_prefix)
          spec.on_progress(line.substr(spec.progress_prefix.size()));
      }
      if (pending.size() > (1u << 16)) pending.clear();  // a child that never ends a line
    };
  const auto t0 = std::chrono::steady_clock::now();
  run.proc = os.proc.run(spec.argv, po);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!dir.empty()) remove_tree(dir);

  // Steps and progress out of stderr; what remains is what the child said.
  const std::string& err = run.proc.err;
  size_t at = 0;
  while (at < err.size()) {
    size_t nl = err.find('\n', at);
    if (nl == std::string::npos) nl = err.size();
    const std::string line = err.substr(at, nl - at);
    if (!spec.step_prefix.empty() && line.rfind(spec.step_prefix, 0) == 0)
      run.last_step = trim_end(line.substr(spec.step_prefix.size()));
    else if (spec.progress_prefix.empty() || line.rfind(spec.progress_prefix, 0) != 0)
      run.stderr_text += line + "\n";
    at = nl + 1;
  }

  const ProcResult& r = run.proc;
  if (!r.started) {
    run.end = ChildRun::End::not_started;
    run.how = "could not start: " + (r.error.empty() ? std::string("it did not start") : r.error);
  } else if (r.timed_out) {
    run.end = ChildRun::End::timed_out;
    run.how = "gave no answer within " + seconds_text(spec.timeout) + " and was stopped";
  } else if (r.signal != 0) {
    run.end = ChildRun::End::crashed;
    run.how = "was killed by " + signal_words(r.signal);
  } else if (const std::string nt = ntstatus_words(static_cast<unsigned>(r.exit_code)); !nt.empty()) {
    run.end = ChildRun::End::crashed;
    run.how = "crashed with " + nt;
  } else if (r.exit_code != 0) {
    run.end = ChildRun::End::failed;
    run.how = "exited with code " + std::to_string(r.exit_code);
  } else {
    run.end = ChildRun::End::exited;
    run.how = "exited normally";
  }
  return run;
}

}  // namespace gpuready
