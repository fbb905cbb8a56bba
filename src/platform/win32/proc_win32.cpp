// Windows implementation of Proc: CreateProcessW with an MSVCRT-quoted command line, a Job
// Object so that a timeout kills the whole tree, and overlapped named pipes pumped by one
// wait loop (the counterpart of the POSIX poll loop), so a hung child never hangs gpuready.
#include <algorithm>
#include <atomic>
#include <cstdio>

#include "platform/win32/win32_os.h"

namespace gpuready {
namespace {

// ---- command line ----------------------------------------------------------------------

// The quoting that CommandLineToArgvW and the MSVC/MinGW CRTs undo: backslashes are literal
// except before a quote, where they must be doubled, and a quote itself becomes \".
void append_quoted(std::wstring& cmd, const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
    cmd += arg;
    return;
  }
  cmd += L'"';
  for (auto it = arg.begin();; ++it) {
    size_t backslashes = 0;
    while (it != arg.end() && *it == L'\\') {
      ++it;
      ++backslashes;
    }
    if (it == arg.end()) {
      cmd.append(backslashes * 2, L'\\');  // the closing quote follows: keep them literal
      break;
    }
    if (*it == L'"') {
      cmd.append(backslashes * 2 + 1, L'\\');
      cmd += L'"';
    } else {
      cmd.append(backslashes, L'\\');
      cmd += *it;
    }
  }
  cmd += L'"';
}

// argv[0] is parsed by other rules (no backslash escapes; quotes only group), and a file
// name cannot contain a quote, so plain quoting when it has blanks is exact.
void append_program(std::wstring& cmd, const std::wstring& program) {
  if (!program.empty() && program.find_first_of(L" \t") == std::wstring::npos)
    cmd += program;
  else
    cmd += L'"' + program + L'"';
}

bool ends_with_ci(const std::wstring& s, const wchar_t* suffix) {
  const std::wstring suf(suffix);
  return s.size() >= suf.size() &&
         ::CompareStringOrdinal(s.c_str() + (s.size() - suf.size()), -1, suf.c_str(), -1, TRUE) == CSTR_EQUAL;
}

// CreateProcessW runs a .bat/.cmd through cmd.exe, which re-parses the command line by its
// own rules (%VAR% expands even inside quotes, & | < > ^ act unless quoted): arguments with
// those characters cannot be passed safely, so they are refused (cf. CVE-2024-24576).
bool batch_unsafe(const std::wstring& arg) { return arg.find_first_of(L"\"%&|<>^!\r\n") != std::wstring::npos; }

// ---- environment -----------------------------------------------------------------------

bool iequal(const std::wstring& a, const std::wstring& b) {
  return ::CompareStringOrdinal(a.c_str(), static_cast<int>(a.size()), b.c_str(), static_cast<int>(b.size()), TRUE) ==
         CSTR_EQUAL;
}

// "=C:=C:\x" (per-drive current directory) has the name "=C:": search '=' from index 1.
std::wstring env_name(const std::wstring& entry) { return entry.substr(0, entry.find(L'=', 1)); }

// The inherited block with set_env / unset_env applied. Names compare case-insensitively,
// and CreateProcessW wants the block sorted that way (ordinal, not by locale).
std::vector<std::wstring> child_environment(const ProcOptions& o) {
  std::vector<std::wstring> drop;
  for (const auto& [k, v] : o.set_env) drop.push_back(win32::to_wide(k));
  for (const auto& k : o.unset_env) drop.push_back(win32::to_wide(k));
  std::vector<std::wstring> env;
  if (wchar_t* block = ::GetEnvironmentStringsW()) {
    for (const wchar_t* p = block; *p;) {
      std::wstring entry(p);
      p += entry.size() + 1;
      const std::wstring name = env_name(entry);
      const bool dropped = std::any_of(drop.begin(), drop.end(), [&](const std::wstring& d) { return iequal(d, name); });
      if (!dropped) env.push_back(std::move(entry));
    }
    ::FreeEnvironmentStringsW(block);
  }
  for (const auto& [k, v] : o.set_env) env.push_back(win32::to_wide(k) + L"=" + win32::to_wide(v));
  if (o.clean_search_paths) {
    // PATH and PYTHONPATH without the entries that name the current folder ("", ".", "bin").
    for (auto it = env.begin(); it != env.end();) {
      const std::wstring name = env_name(*it);
      if (iequal(name, L"PATH") || iequal(name, L"PYTHONPATH")) {
        const std::string value = win32::to_utf8(it->substr(std::min(it->size(), name.size() + 1)));
        const CleanedPathList c = clean_search_path_list(value, ";");
        if (c.kept == 0) {
          it = env.erase(it);
          continue;
        }
        *it = name + L"=" + win32::to_wide(c.value);
      }
      ++it;
    }
  }
  std::stable_sort(env.begin(), env.end(), [](const std::wstring& a, const std::wstring& b) {
    const std::wstring na = env_name(a), nb = env_name(b);
    return ::CompareStringOrdinal(na.c_str(), static_cast<int>(na.size()), nb.c_str(), static_cast<int>(nb.size()),
                                  TRUE) == CSTR_LESS_THAN;
  });
  return env;
}

std::wstring environment_block(const std::vector<std::wstring>& env) {
  std::wstring block;
  for (const auto& e : env) {
    block += e;
    block += L'\0';
  }
  if (block.empty()) block += L'\0';  // an empty block is two NULs
  block += L'\0';
  return block;
}

// A variable as the child will see it (set_env wins, unset_env hides, else inherited).
std::optional<std::wstring> child_variable(const std::vector<std::wstring>& env, const wchar_t* name) {
  for (const auto& e : env)
    if (iequal(env_name(e), name)) return e.substr(std::min(e.size(), env_name(e).size() + 1));
  return std::nullopt;
}

// ---- finding the program ---------------------------------------------------------------

bool is_file(const std::wstring& p) {
  const DWORD a = ::GetFileAttributesW(p.c_str());
  return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

std::vector<std::wstring> split_list(const std::wstring& list) {
  std::vector<std::wstring> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(L';', start);
    if (end == std::wstring::npos) end = list.size();
    std::wstring item = list.substr(start, end - start);
    // PATH entries are sometimes quoted ("C:\Program Files\x"); the quotes are not part of the name.
    item.erase(std::remove(item.begin(), item.end(), L'"'), item.end());
    while (!item.empty() && item.back() == L' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

// The file names to try for `base`: itself when it already has an extension, then base +
// each PATHEXT extension (CreateProcessW adds none when given lpApplicationName).
std::vector<std::wstring> candidates(const std::wstring& base, const std::vector<std::wstring>& exts) {
  std::vector<std::wstring> out;
  const size_t slash = base.find_last_of(L"\\/:");
  const size_t dot = base.find_last_of(L'.');
  if (dot != std::wstring::npos && (slash == std::wstring::npos || dot > slash)) out.push_back(base);
  for (const auto& e : exts) out.push_back(base + e);
  return out;
}

// Resolves argv[0] the way a shell would, but only through PATH: unlike CreateProcessW's own
// search, the current directory and gpuready's own folder are not searched first, so an
// nvidia-smi.exe planted in the working directory is never run. (A walk of our own rather
// than SearchPathW: that one appends no extension to "python3.11", and skips quoted entries.)
std::optional<std::wstring> resolve_program(const std::string& argv0, const std::vector<std::wstring>& env) {
  std::vector<std::wstring> exts = split_list(child_variable(env, L"PATHEXT").value_or(L".COM;.EXE;.BAT;.CMD"));
  if (exts.empty()) exts = {L".COM", L".EXE", L".BAT", L".CMD"};
  if (argv0.find_first_of("\\/:") != std::string::npos) {
    if (!is_absolute_path(argv0)) return std::nullopt;  // never relative to the current folder
    for (const auto& c : candidates(win32::os_path(argv0), exts))
      if (is_file(c)) return c;
    return std::nullopt;
  }
  const std::wstring name = win32::to_wide(argv0);
  for (const auto& dir : split_list(child_variable(env, L"PATH").value_or(L""))) {
    if (!is_absolute_path(win32::to_utf8(dir))) continue;  // "", ".", "bin": the current folder
    const std::wstring base = dir.back() == L'\\' || dir.back() == L'/' ? dir + name : dir + L"\\" + name;
    for (const auto& c : candidates(base, exts)) {
      const std::wstring full = win32::os_path(win32::to_utf8(c));
      if (is_file(full)) return full;
    }
  }
  return std::nullopt;
}

// ---- pipes -----------------------------------------------------------------------------

struct OwnedHandle {
  HANDLE h = INVALID_HANDLE_VALUE;
  OwnedHandle() = default;
  explicit OwnedHandle(HANDLE raw) : h(raw) {}
  OwnedHandle(const OwnedHandle&) = delete;
  OwnedHandle& operator=(const OwnedHandle&) = delete;
  ~OwnedHandle() { reset(); }
  [[nodiscard]] bool valid() const { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  void reset(HANDLE raw = INVALID_HANDLE_VALUE) {
    if (valid()) ::CloseHandle(h);
    h = raw;
  }
};

// The parent's end of one pipe, used with overlapped I/O so that one wait covers stdout,
// stderr and stdin together (anonymous pipes cannot be overlapped, hence named pipes).
struct AsyncEnd {
  OwnedHandle handle;
  OwnedHandle event{::CreateEventW(nullptr, TRUE, FALSE, nullptr)};
  OVERLAPPED ov{};
  bool pending = false;
  char buf[16384];

  [[nodiscard]] bool open() const { return handle.valid(); }
  void close() {
    if (!open()) return;
    if (pending) {
      // The kernel still owns `ov` and `buf` until the cancelled operation completes.
      ::CancelIoEx(handle.h, &ov);
      DWORD n = 0;
      ::GetOverlappedResult(handle.h, &ov, &n, TRUE);
      pending = false;
    }
    handle.reset();
  }
  void arm() {
    ov = OVERLAPPED{};
    ov.hEvent = event.h;
    pending = true;
  }
  ~AsyncEnd() { close(); }
};

// Creates a pipe whose parent end is overlapped and whose child end is an ordinary,
// inheritable, synchronous handle (what a child's stdio expects).
bool make_pipe(AsyncEnd& parent, OwnedHandle& child, bool parent_reads, DWORD* error) {
  if (!parent.event.valid()) {  // CreateEventW failed: overlapped I/O would have nothing to signal
    *error = ::GetLastError();
    return false;
  }
  static std::atomic<unsigned> counter{0};
  const std::wstring name = L"\\\\.\\pipe\\gpuready-" + std::to_wstring(::GetCurrentProcessId()) + L"-" +
                            std::to_wstring(counter++) + L"-" + std::to_wstring(::GetTickCount64());
  const DWORD mode = (parent_reads ? PIPE_ACCESS_INBOUND : PIPE_ACCESS_OUTBOUND) | FILE_FLAG_OVERLAPPED |
                     FILE_FLAG_FIRST_PIPE_INSTANCE;
  parent.handle.reset(::CreateNamedPipeW(name.c_str(), mode, PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
                                         PIPE_REJECT_REMOTE_CLIENTS, 1, 65536, 65536, 0, nullptr));
  if (!parent.open()) {
    *error = ::GetLastError();
    return false;
  }
  SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
  const DWORD access = parent_reads ? GENERIC_WRITE : (GENERIC_READ | FILE_WRITE_ATTRIBUTES);
  child.reset(::CreateFileW(name.c_str(), access, 0, &sa, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!child.valid()) {
    *error = ::GetLastError();
    parent.close();
    return false;
  }
  return true;
}

// Crash codes a child commonly ends with, in words (a missing DLL is the classic one).
std::string ntstatus_words(DWORD code) {
  switch (code) {
    case 0xC0000135: return "STATUS_DLL_NOT_FOUND: a DLL it needs was not found";
    case 0xC0000139: return "STATUS_ENTRYPOINT_NOT_FOUND: a DLL it loaded lacks a function it needs";
    case 0xC000007B: return "STATUS_INVALID_IMAGE_FORMAT: a DLL it needs is damaged or for another architecture";
    case 0xC0000142: return "STATUS_DLL_INIT_FAILED: a DLL it loaded failed to initialise";
    case 0xC0000005: return "STATUS_ACCESS_VIOLATION: it crashed";
    case 0xC000001D: return "STATUS_ILLEGAL_INSTRUCTION: it used an instruction this CPU lacks";
    case 0xC00000FD: return "STATUS_STACK_OVERFLOW: it crashed";
    case 0xC0000409: return "STATUS_STACK_BUFFER_OVERRUN: it aborted (fail-fast)";
    default: return {};
  }
}

std::string hex(DWORD v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08lX", static_cast<unsigned long>(v));
  return buf;
}

ULONGLONG now_ms() { return ::GetTickCount64(); }

}  // namespace

ProcResult Win32Proc::run(const std::vector<std::string>& argv, const ProcOptions& options) const {
  ProcResult r;
  if (argv.empty()) {
    r.error = "no program given";
    return r;
  }
  const std::vector<std::wstring> env = child_environment(options);
  const auto program = resolve_program(argv[0], env);
  if (!program) {
    r.error = argv[0].find_first_of("\\/:") != std::string::npos && !is_absolute_path(argv[0])
                  ? argv[0] + ": not run: gpuready runs programs by absolute path only, never from the current folder"
                  : win32::error_with(argv[0], ERROR_FILE_NOT_FOUND);
    return r;
  }
  const bool batch = ends_with_ci(*program, L".bat") || ends_with_ci(*program, L".cmd");
  std::wstring cmd;
  append_program(cmd, win32::to_wide(argv[0]));
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::wstring arg = win32::to_wide(argv[i]);
    if (batch && batch_unsafe(arg)) {
      r.error = argv[0] + ": argument " + std::to_string(i) +
                " has characters cmd.exe would interpret, not passed to a batch file";
      return r;
    }
    cmd += L' ';
    append_quoted(cmd, arg);
  }
  if (cmd.size() >= 32767) {  // CreateProcessW's documented limit, NUL included
    r.error = argv[0] + ": command line longer than Windows allows (32767 characters)";
    return r;
  }

  AsyncEnd out, err, in;
  OwnedHandle child_out, child_err, child_in;
  DWORD pipe_error = 0;
  if (!make_pipe(out, child_out, true, &pipe_error) || !make_pipe(err, child_err, true, &pipe_error) ||
      !make_pipe(in, child_in, false, &pipe_error)) {
    r.error = win32::error_with("pipe", pipe_error);
    return r;
  }

  // Only these three handles are inherited, even if another thread is starting a child with
  // its own inheritable handles at the same moment.
  STARTUPINFOEXW si{};
  si.StartupInfo.cb = sizeof si;
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = child_in.h;
  si.StartupInfo.hStdOutput = child_out.h;
  si.StartupInfo.hStdError = child_err.h;
  HANDLE inherit[3] = {child_in.h, child_out.h, child_err.h};
  SIZE_T attr_size = 0;
  ::InitializeProcThreadAttributeList(nullptr, 1, 0, &attr_size);
  std::vector<char> attr_storage(attr_size);
  auto* attrs = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attr_storage.data());
  bool have_attrs = attr_size > 0 && ::InitializeProcThreadAttributeList(attrs, 1, 0, &attr_size);
  if (have_attrs && !::UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit, sizeof inherit,
                                                 nullptr, nullptr)) {
    ::DeleteProcThreadAttributeList(attrs);
    have_attrs = false;
  }
  DWORD flags = CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
  if (have_attrs) {
    flags |= EXTENDED_STARTUPINFO_PRESENT;
    si.lpAttributeList = attrs;
  }

  // KILL_ON_JOB_CLOSE: whatever the child started dies with the job (at the timeout, or when
  // run() returns); DIE_ON_UNHANDLED_EXCEPTION: a crash ends the child instead of waiting on
  // a Windows Error Reporting dialog until the timeout.
  OwnedHandle job(::CreateJobObjectW(nullptr, nullptr));
  if (job.valid()) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
    if (!::SetInformationJobObject(job.h, JobObjectExtendedLimitInformation, &limits, sizeof limits)) job.reset();
  }

  std::wstring block = environment_block(env);
  PROCESS_INFORMATION pi{};
  // The child inherits the process error mode: with SEM_FAILCRITICALERRORS a missing DLL ends
  // it with STATUS_DLL_NOT_FOUND instead of a modal box nobody will click.
  const UINT old_mode = ::GetErrorMode();
  ::SetErrorMode(old_mode | SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  const std::wstring cwd = win32::to_wide(options.cwd);
  const BOOL created = ::CreateProcessW(program->c_str(), cmd.data(), nullptr, nullptr, TRUE, flags, block.data(),
                                        cwd.empty() ? nullptr : cwd.c_str(), &si.StartupInfo, &pi);
  const DWORD create_error = created ? ERROR_SUCCESS : ::GetLastError();
  ::SetErrorMode(old_mode);
  if (have_attrs) ::DeleteProcThreadAttributeList(attrs);
  // The child's ends now live in the child; closing ours is what lets EOF arrive.
  child_in.reset();
  child_out.reset();
  child_err.reset();
  if (!created) {
    r.error = win32::error_with(argv[0], create_error);
    return r;
  }
  OwnedHandle process(pi.hProcess);
  OwnedHandle thread(pi.hThread);
  // Assigned while suspended, so not even the first grandchild can escape the job. Failure
  // (very old Windows inside another job) leaves TerminateProcess on the child alone.
  if (job.valid() && !::AssignProcessToJobObject(job.h, process.h)) job.reset();
  ::ResumeThread(thread.h);
  r.started = true;

  auto kill_tree = [&] {
    if (job.valid()) ::TerminateJobObject(job.h, 1);
    ::TerminateProcess(process.h, 1);
    ::WaitForSingleObject(process.h, 5000);
  };

  const ULONGLONG deadline = now_ms() + static_cast<ULONGLONG>(std::max<long long>(0, options.timeout.count()));
  const std::string& input = options.stdin_data;
  size_t in_off = 0;
  if (input.empty()) in.close();
  AsyncEnd* readers[2] = {&out, &err};
  std::string* sinks[2] = {&r.out, &r.err};

  while (out.open() || err.open()) {
    // Start an operation on every open end that has none in flight.
    for (int k = 0; k < 2; ++k) {
      AsyncEnd& p = *readers[k];
      if (!p.open() || p.pending) continue;
      p.arm();
      if (!::ReadFile(p.handle.h, p.buf, sizeof p.buf, nullptr, &p.ov) && ::GetLastError() != ERROR_IO_PENDING) {
        p.pending = false;  // ERROR_BROKEN_PIPE: every writer has closed: EOF
        p.close();
      }
    }
    if (in.open() && !in.pending) {
      const DWORD chunk = static_cast<DWORD>(std::min<size_t>(input.size() - in_off, 1 << 20));
      in.arm();
      if (!::WriteFile(in.handle.h, input.data() + in_off, chunk, nullptr, &in.ov) &&
          ::GetLastError() != ERROR_IO_PENDING) {
        in.pending = false;  // the child closed its stdin: the rest is dropped, as on POSIX
        in.close();
      }
    }
    HANDLE events[3];
    DWORD n = 0;
    for (AsyncEnd* p : {&out, &err, &in})
      if (p->open() && p->pending) events[n++] = p->event.h;
    if (n == 0) continue;
    const ULONGLONG now = now_ms();
    if (now >= deadline) {
      r.timed_out = true;
      break;
    }
    const DWORD w = ::WaitForMultipleObjects(n, events, FALSE, static_cast<DWORD>(std::min<ULONGLONG>(deadline - now, 0xFFFFFFFEull)));
    if (w == WAIT_TIMEOUT) {
      r.timed_out = true;
      break;
    }
    if (w == WAIT_FAILED) break;
    // Harvest every operation that has finished (several may have).
    for (int k = 0; k < 2; ++k) {
      AsyncEnd& p = *readers[k];
      if (!p.open() || !p.pending) continue;
      DWORD got = 0;
      if (::GetOverlappedResult(p.handle.h, &p.ov, &got, FALSE)) {
        p.pending = false;
        const size_t room = options.max_output > sinks[k]->size() ? options.max_output - sinks[k]->size() : 0;
        sinks[k]->append(p.buf, std::min<size_t>(room, got));  // past the cap: keep draining, drop the bytes
        if (k == 1 && options.on_stderr && got > 0) options.on_stderr(std::string_view(p.buf, got));
      } else if (::GetLastError() != ERROR_IO_INCOMPLETE) {
        p.pending = false;
        p.close();
      }
    }
    if (in.open() && in.pending) {
      DWORD put = 0;
      if (::GetOverlappedResult(in.handle.h, &in.ov, &put, FALSE)) {
        in.pending = false;
        in_off += put;
        if (in_off >= input.size()) in.close();
      } else if (::GetLastError() != ERROR_IO_INCOMPLETE) {
        in.pending = false;
        in.close();
      }
    }
  }
  in.close();
  if (r.timed_out) {
    kill_tree();
    out.close();
    err.close();
    r.error = argv[0] + ": no answer within " + std::to_string(options.timeout.count()) + " ms, killed";
    return r;
  }
  out.close();
  err.close();

  // Both pipes are closed; the child may still be running. Wait within the deadline.
  const ULONGLONG now = now_ms();
  const DWORD left = now >= deadline ? 0 : static_cast<DWORD>(std::min<ULONGLONG>(deadline - now, 0xFFFFFFFEull));
  if (::WaitForSingleObject(process.h, left) != WAIT_OBJECT_0) {
    kill_tree();
    r.timed_out = true;
    r.error = argv[0] + ": no exit within " + std::to_string(options.timeout.count()) + " ms, killed";
    return r;
  }
  DWORD code = 0;
  if (!::GetExitCodeProcess(process.h, &code)) {
    r.error = win32::error_with(argv[0], ::GetLastError());
    return r;
  }
  r.exit_code = static_cast<int>(code);
  if (job.valid()) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION info{};
    if (::QueryInformationJobObject(job.h, JobObjectExtendedLimitInformation, &info, sizeof info, nullptr))
      r.peak_memory_bytes = info.PeakJobMemoryUsed;
  }
  // Exit codes in the NTSTATUS error range mean the process was ended by the system.
  if (code >= 0xC0000000u) {
    const std::string words = ntstatus_words(code);
    r.error = argv[0] + ": ended with " + hex(code) + (words.empty() ? std::string() : " (" + words + ")");
  }
  return r;  // `job` closes here: anything the child left running is killed with it
}

std::optional<std::string> Win32Proc::self_path() const { return win32::module_path(nullptr); }

}  // namespace gpuready
