// The one way gpuready starts a child it depends on (itself as `__probe-driver`, `__verify-copy`,
// `__verify-gpu`, `__bench-engine`; a Python interpreter; nvcc and the program it built): through
// the Proc seam (absolute program path, search paths cleaned of the current folder), with a
// timeout, optionally in a private empty folder (0700, removed afterwards), reading the steps
// the child announces on stderr, and turning every way it can end into one kind and one sentence.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "platform/os.h"

namespace gpuready {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0]: an absolute path, or a name found on PATH's absolute folders
  std::string what;               // how messages name it: "the driver probe", "the Python interpreter"
  std::chrono::milliseconds timeout{5000};
  size_t max_output = 4u << 20;
  std::map<std::string, std::string> set_env;
  std::vector<std::string> unset_env;
  std::string stdin_data;
  bool private_dir = false;  // run in a new empty folder only this user may enter, removed afterwards
  // Lines of stderr that begin with step_prefix announce where the child is ("gpuready-step: cuInit");
  // lines that begin with progress_prefix go to on_progress (the rest of the line) as they arrive.
  std::string step_prefix;
  std::string progress_prefix;
  std::function<void(std::string_view)> on_progress;
  std::function<bool()> interrupt;  // ProcOptions::interrupt: asks the child to stop (Ctrl-C of a long run)
  bool clean_search_paths = true;  // only a test turns this off
};

struct ChildRun {
  enum class End {
    exited,       // exit code 0 (whether its answer is usable is the caller's to judge)
    failed,       // a non-zero exit code
    crashed,      // a signal (POSIX) or an exception status (Windows 0xC0000005 ...)
    timed_out,    // killed at the timeout
    not_started,  // could not be started (missing program, no private folder, refused path)
  };
  End end = End::not_started;
  ProcResult proc;
  std::string last_step;    // the last step announced ("" when none)
  std::string stderr_text;  // stderr without the step and progress lines
  std::string how;          // how it ended, in words: "killed by SIGSEGV (segmentation fault)", "exit code 3",
                            // "no answer within 10 s", "could not start: ..."
  double seconds = 0;

  // " (it was in cuInit)" or "".
  std::string where() const;
  // The last `max_chars` characters of stderr_text, trimmed, one line ("; "-joined).
  std::string stderr_tail(size_t max_chars) const;
  // "<what> <how><where>" plus "; stderr: <tail>" when it said something: the sentence for a report.
  std::string summary(const std::string& what, size_t tail_chars = 400) const;
};

ChildRun run_child(const Os& os, const ChildSpec& spec);

// A POSIX signal by name and in words: "SIGSEGV (segmentation fault)"; "signal 77" when unknown.
std::string signal_words(int sig);
// A Windows exception status that ended a process: "0xC0000005 (STATUS_ACCESS_VIOLATION)"; ""
// when the code is not one.
std::string ntstatus_words(unsigned code);

}  // namespace gpuready
