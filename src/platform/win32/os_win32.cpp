// The real Windows Os bundle, host facts (RtlGetVersion, IsWow64Process2 / GetNativeSystemInfo,
// GlobalMemoryStatusEx, GetComputerNameExW) and the UTF-8/UTF-16, long-path and error-text
// helpers every win32 seam shares.
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "platform/win32/win32_os.h"

namespace gpuready {
namespace win32 {

std::wstring to_wide(const std::string& utf8) {
  if (utf8.empty() || utf8.size() > static_cast<size_t>(INT_MAX)) return {};
  const int n = ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  if (n <= 0) return {};
  std::wstring out(static_cast<size_t>(n), L'\0');
  ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
  return out;
}

std::string to_utf8(const wchar_t* wide, size_t length) {
  if (!wide || length == 0 || length > static_cast<size_t>(INT_MAX)) return {};
  const int n = ::WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(length), nullptr, 0, nullptr, nullptr);
  if (n <= 0) return {};
  std::string out(static_cast<size_t>(n), '\0');
  ::WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(length), out.data(), n, nullptr, nullptr);
  return out;
}

std::string to_utf8(const std::wstring& wide) { return to_utf8(wide.data(), wide.size()); }

namespace {
bool starts_with(const std::wstring& s, const wchar_t* prefix) { return s.rfind(prefix, 0) == 0; }
}  // namespace

std::wstring os_path(const std::string& utf8) {
  std::wstring w = to_wide(utf8);
  // \\?\ and \\.\ paths are passed through untouched: the OS does no parsing on them.
  if (starts_with(w, L"\\\\?\\") || starts_with(w, L"\\\\.\\")) return w;
  for (auto& c : w)
    if (c == L'/') c = L'\\';
  // MAX_PATH - 12 rather than MAX_PATH: directory APIs reserve room for an 8.3 name, and
  // list_dir appends "\*". Below that, plain paths work on every Windows version.
  if (w.size() < MAX_PATH - 12) return w;
  // \\?\ turns off normalisation, so the path must first be made absolute and clean.
  const DWORD need = ::GetFullPathNameW(w.c_str(), 0, nullptr, nullptr);
  if (need == 0) return w;
  std::wstring full(need, L'\0');
  const DWORD got = ::GetFullPathNameW(w.c_str(), need, full.data(), nullptr);
  if (got == 0 || got >= need) return w;
  full.resize(got);
  if (starts_with(full, L"\\\\")) return L"\\\\?\\UNC\\" + full.substr(2);
  return L"\\\\?\\" + full;
}

std::string strip_long_prefix(std::wstring path) {
  if (starts_with(path, L"\\\\?\\UNC\\")) return to_utf8(L"\\\\" + path.substr(8));
  if (starts_with(path, L"\\\\?\\")) return to_utf8(path.substr(4));
  return to_utf8(path);
}

std::optional<std::string> module_path(HMODULE module) {
  std::wstring buf(MAX_PATH, L'\0');
  for (int attempt = 0; attempt < 6; ++attempt) {
    const DWORD n = ::GetModuleFileNameW(module, buf.data(), static_cast<DWORD>(buf.size()));
    if (n == 0) return std::nullopt;
    if (n < buf.size()) {  // on truncation n == size: grow and retry
      buf.resize(n);
      return strip_long_prefix(buf);
    }
    buf.resize(buf.size() * 2);
  }
  return std::nullopt;
}

std::string error_text(DWORD code, const std::string& subject) {
  const DWORD flags = FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS;
  wchar_t* buf = nullptr;
  DWORD n = ::FormatMessageW(flags, nullptr, code, MAKELANGID(LANG_ENGLISH, SUBLANG_ENGLISH_US),
                             reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
  if (n == 0) n = ::FormatMessageW(flags, nullptr, code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
  std::string text;
  if (n > 0 && buf) text = to_utf8(buf, n);
  if (buf) ::LocalFree(buf);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return "Windows error " + std::to_string(code);
  // Some messages name their subject as %1 ("%1 is not a valid Win32 application.").
  for (size_t at = text.find("%1"); at != std::string::npos; at = text.find("%1", at + subject.size()))
    text.replace(at, 2, subject.empty() ? std::string("the file") : subject);
  return text;
}

std::string error_with(const std::string& subject, DWORD code) { return subject + ": " + error_text(code, subject); }

}  // namespace win32

const Os& real_os() {
  static const Win32Fs fs;
  static const Win32Env env;
  static const Win32Proc proc;
  static const Win32DynLib dl;
  static const Win32Registry reg;
  static const Os os{fs, env, proc, dl, reg};
  return os;
}

namespace {

// RTL_OSVERSIONINFOW has the layout of OSVERSIONINFOW; ntdll is always mapped, so this
// lookup cannot fail in practice. GetVersionExW would report 6.2 to an unmanifested exe.
std::string windows_release() {
  using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOW*);
  const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  if (!ntdll) return {};
  const FARPROC raw = ::GetProcAddress(ntdll, "RtlGetVersion");
  if (!raw) return {};
  const auto fn = reinterpret_cast<RtlGetVersionFn>(reinterpret_cast<void*>(raw));
  OSVERSIONINFOW v{};
  v.dwOSVersionInfoSize = sizeof v;
  if (fn(&v) != 0) return {};
  return std::to_string(v.dwMajorVersion) + "." + std::to_string(v.dwMinorVersion) + "." +
         std::to_string(v.dwBuildNumber);
}

std::string machine_name(USHORT image_machine) {
  switch (image_machine) {
    case IMAGE_FILE_MACHINE_AMD64: return "AMD64";
    case IMAGE_FILE_MACHINE_ARM64: return "ARM64";
    case IMAGE_FILE_MACHINE_I386: return "x86";
    case IMAGE_FILE_MACHINE_ARMNT: return "ARM";
    default: return {};
  }
}

std::string native_machine() {
  // IsWow64Process2 (Windows 10 1709+) sees through x64 emulation on ARM64, where
  // GetNativeSystemInfo reports AMD64 to an x64 process. Looked up at run time so the
  // executable still starts on older Windows.
  using IsWow64Process2Fn = BOOL(WINAPI*)(HANDLE, USHORT*, USHORT*);
  if (const HMODULE k32 = ::GetModuleHandleW(L"kernel32.dll")) {
    if (const FARPROC raw = ::GetProcAddress(k32, "IsWow64Process2")) {
      const auto fn = reinterpret_cast<IsWow64Process2Fn>(reinterpret_cast<void*>(raw));
      USHORT process_machine = 0, host_machine = 0;
      if (fn(::GetCurrentProcess(), &process_machine, &host_machine)) {
        std::string name = machine_name(host_machine);
        if (!name.empty()) return name;
      }
    }
  }
  SYSTEM_INFO si{};
  ::GetNativeSystemInfo(&si);
  switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64: return "AMD64";
    case PROCESSOR_ARCHITECTURE_ARM64: return "ARM64";
    case PROCESSOR_ARCHITECTURE_INTEL: return "x86";
    case PROCESSOR_ARCHITECTURE_ARM: return "ARM";
    default: return {};
  }
}

std::string computer_name() {
  DWORD size = 0;
  ::GetComputerNameExW(ComputerNameDnsHostname, nullptr, &size);  // size now includes the NUL
  if (size == 0) return {};
  std::wstring name(size, L'\0');
  if (!::GetComputerNameExW(ComputerNameDnsHostname, name.data(), &size)) return {};
  name.resize(size);
  return win32::to_utf8(name);
}

}  // namespace

HostInfo host_info() {
  HostInfo h;
  h.kernel_name = "Windows_NT";
  h.kernel_release = windows_release();
  h.machine = native_machine();
  h.hostname = computer_name();
  MEMORYSTATUSEX mem{};
  mem.dwLength = sizeof mem;
  if (::GlobalMemoryStatusEx(&mem)) h.ram_bytes = static_cast<std::uint64_t>(mem.ullTotalPhys);
  // ALL_PROCESSOR_GROUPS: machines with more than 64 logical CPUs have several groups.
  DWORD cpus = ::GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  if (cpus == 0) {
    SYSTEM_INFO si{};
    ::GetNativeSystemInfo(&si);
    cpus = si.dwNumberOfProcessors;
  }
  if (cpus > 0) h.logical_cpus = static_cast<int>(cpus);
  return h;
}

#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif

void harden_process() {
  // The current folder leaves the search order of every later LoadLibrary (ours are absolute
  // already; a vendor DLL's own loads are not), and only the application folder, System32 and
  // folders added with AddDllDirectory are searched.
  ::SetDllDirectoryW(L"");
  ::SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
}

void prepare_heap() {}

bool stdout_wants_color() {
  if (std::getenv("NO_COLOR")) return false;
  HANDLE out = ::GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (out == INVALID_HANDLE_VALUE || !::GetConsoleMode(out, &mode)) return false;  // a pipe or a file
  return ::SetConsoleMode(out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
}

namespace {
std::atomic<bool> g_interrupted{false};
BOOL WINAPI on_console_ctrl(DWORD type) {
  if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT) return FALSE;
  g_interrupted = true;
  return TRUE;
}
}  // namespace

void catch_interrupts() { ::SetConsoleCtrlHandler(on_console_ctrl, TRUE); }

bool interrupted() { return g_interrupted.load(); }

bool stderr_is_terminal() {
  HANDLE err = ::GetStdHandle(STD_ERROR_HANDLE);
  DWORD mode = 0;
  return err != INVALID_HANDLE_VALUE && err != nullptr && ::GetConsoleMode(err, &mode);
}

struct ThreadCpuBinding::Saved {
  DWORD_PTR mask;
};

ThreadCpuBinding::ThreadCpuBinding() = default;

ThreadCpuBinding::~ThreadCpuBinding() {
  if (saved_) ::SetThreadAffinityMask(::GetCurrentThread(), saved_->mask);
  delete saved_;
}

bool ThreadCpuBinding::bind(const std::vector<int>& cpus, int* allowed, std::string* why) {
  *allowed = 0;
  if (saved_) {
    *why = "this thread is already bound";
    return false;
  }
  DWORD_PTR process = 0, system = 0;
  if (!::GetProcessAffinityMask(::GetCurrentProcess(), &process, &system)) {
    *why = win32::error_with("GetProcessAffinityMask", ::GetLastError());
    return false;
  }
  constexpr int kBits = static_cast<int>(sizeof(DWORD_PTR) * CHAR_BIT);  // processor group 0
  DWORD_PTR mask = 0;
  for (int c : cpus)
    if (c >= 0 && c < kBits && (process >> c) & 1u) {
      mask |= DWORD_PTR{1} << c;
      ++*allowed;
    }
  if (mask == 0) {
    *why = "none of those CPUs is in this process's affinity mask (processor group 0)";
    return false;
  }
  const DWORD_PTR old = ::SetThreadAffinityMask(::GetCurrentThread(), mask);
  if (old == 0) {
    *why = win32::error_with("SetThreadAffinityMask", ::GetLastError());
    *allowed = 0;
    return false;
  }
  saved_ = new Saved{old};
  return true;
}

std::optional<std::string> make_temp_dir(const std::string& tag, std::string* error, const std::string& parent) {
  if (!parent.empty() && !is_absolute_path(parent)) {
    if (error) *error = parent + ": not an absolute path";
    return std::nullopt;
  }
  std::wstring base;
  if (!parent.empty()) {
    base = win32::to_wide(parent);
    if (base.back() != L'\\' && base.back() != L'/') base += L'\\';
  } else {
    wchar_t buf[MAX_PATH + 1];
    const DWORD n = ::GetTempPathW(MAX_PATH + 1, buf);
    if (n == 0 || n > MAX_PATH) {
      if (error) *error = win32::error_with("GetTempPathW", ::GetLastError());
      return std::nullopt;
    }
    base = buf;
  }
  // A name nobody else holds: the process id and a counter, retried while it exists.
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::wstring dir = std::wstring(base) + L"gpuready-" + win32::to_wide(tag) + L"-" +
                             std::to_wstring(::GetCurrentProcessId()) + L"-" + std::to_wstring(counter++);
    if (::CreateDirectoryW(dir.c_str(), nullptr)) return win32::to_utf8(dir);
    const DWORD e = ::GetLastError();
    if (e != ERROR_ALREADY_EXISTS) {
      if (error) *error = win32::error_with(win32::to_utf8(dir), e);
      return std::nullopt;
    }
  }
  if (error) *error = "cannot make a new folder in the temporary folder";
  return std::nullopt;
}

bool remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(win32::to_wide(path)), ec);
  return !ec;
}

}  // namespace gpuready
