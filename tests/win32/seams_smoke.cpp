// A smoke test of the real Windows OS seams (platform/win32): Fs, Env, Proc, DynLib, Registry
// and host_info against the live system. Built with MinGW and run under Wine (or on Windows) by
// scripts/check-win32-build.sh; it re-runs itself in --child-* modes as the Proc subject.
// Prints one PASS/FAIL/SKIP line per check; the exit code is the number of failures.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "platform/win32/win32_os.h"
#include "vendors/library_search.h"
// After windows.h: CommandLineToArgvW.
#include <shellapi.h>

using namespace gpuready;

namespace {

int failures = 0;
// "über-файл.txt" as UTF-8 bytes (u8"" literals are char8_t in C++20).
const std::string kUmlautName = "\xC3\xBC" "ber-\xD1\x84\xD0\xB0\xD0\xB9\xD0\xBB.txt";

void check(bool ok, const std::string& what, const std::string& detail = {}) {
  std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), detail.empty() ? "" : " -- ", detail.c_str());
  if (!ok) ++failures;
}

void skip(const std::string& what, const std::string& why) { std::printf("SKIP %s -- %s\n", what.c_str(), why.c_str()); }

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
bool ends_with_ci(std::string s, std::string suffix) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Writes through the wide API directly (not through the code under test).
bool write_file(const std::wstring& path, const std::string& data) {
  HANDLE h = ::CreateFileW(path.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return false;
  DWORD put = 0;
  const BOOL ok = ::WriteFile(h, data.data(), static_cast<DWORD>(data.size()), &put, nullptr);
  ::CloseHandle(h);
  return ok && put == data.size();
}

std::string narrow(const std::wstring& w) {
  // Independent of win32::to_utf8, so a bug there cannot cancel itself out.
  std::string out;
  for (size_t i = 0; i < w.size(); ++i) {
    unsigned long c = w[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < w.size()) c = 0x10000 + ((c - 0xD800) << 10) + (w[++i] - 0xDC00);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// ---- child modes -----------------------------------------------------------------------

int child_main(const std::string& mode, int argc, char** argv) {
  if (mode == "--child-args") {
    // Parse the raw command line by the documented rules, independent of our quoting code.
    int n = 0;
    wchar_t** args = ::CommandLineToArgvW(::GetCommandLineW(), &n);
    for (int i = 2; i < n; ++i) std::printf("[%s]", narrow(args[i]).c_str());
    ::LocalFree(args);
    return 0;
  }
  if (mode == "--child-env" && argc > 2) {
    wchar_t buf[1024];
    std::wstring name;
    for (const char* p = argv[2]; *p; ++p) name += static_cast<wchar_t>(*p);
    const DWORD n = ::GetEnvironmentVariableW(name.c_str(), buf, 1024);
    std::printf("%s", n == 0 && ::GetLastError() == ERROR_ENVVAR_NOT_FOUND ? "<unset>" : narrow(std::wstring(buf, n)).c_str());
    return 0;
  }
  if (mode == "--child-cat") {
    HANDLE in = ::GetStdHandle(STD_INPUT_HANDLE), out = ::GetStdHandle(STD_OUTPUT_HANDLE);
    char buf[4096];
    DWORD got = 0, put = 0;
    while (::ReadFile(in, buf, sizeof buf, &got, nullptr) && got > 0) ::WriteFile(out, buf, got, &put, nullptr);
    std::fputs("E", stderr);
    return 0;
  }
  if (mode == "--child-exit" && argc > 2) return std::atoi(argv[2]);
  if (mode == "--child-sleep") {
    ::Sleep(60000);
    return 0;
  }
  if (mode == "--child-spawn") {
    // Starts a grandchild that inherits our stdout, prints its pid and exits at once: only
    // killing the whole tree can end the run before the grandchild's minute is up.
    wchar_t self[MAX_PATH];
    ::GetModuleFileNameW(nullptr, self, MAX_PATH);
    std::wstring cmd = L"\"" + std::wstring(self) + L"\" --child-sleep";
    STARTUPINFOW si{};
    si.cb = sizeof si;
    PROCESS_INFORMATION pi{};
    if (!::CreateProcessW(self, cmd.data(), nullptr, nullptr, TRUE, 0, nullptr, nullptr, &si, &pi)) return 2;
    std::printf("%lu\n", static_cast<unsigned long>(pi.dwProcessId));
    std::fflush(stdout);
    ::CloseHandle(pi.hThread);
    ::CloseHandle(pi.hProcess);
    return 0;
  }
  return 99;
}

// ---- checks ----------------------------------------------------------------------------

struct TempDir {
  std::wstring wpath;
  std::string path;  // UTF-8
};

TempDir make_temp_dir() {
  wchar_t base[MAX_PATH];
  ::GetTempPathW(MAX_PATH, base);
  TempDir t;
  t.wpath = std::wstring(base) + L"gpuready_smoke_" + std::to_wstring(::GetCurrentProcessId());
  ::CreateDirectoryW(t.wpath.c_str(), nullptr);
  t.path = narrow(t.wpath);
  return t;
}

void check_fs(const Fs& fs, const TempDir& t) {
  const std::wstring hello = t.wpath + L"\\hello.txt";
  write_file(hello, "hello world");
  ::CreateDirectoryW((t.wpath + L"\\sub").c_str(), nullptr);
  write_file(t.wpath + L"\\\u00fcber-\u0444\u0430\u0439\u043b.txt", "umlaut");  // "über-файл.txt"

  std::string err;
  const std::string hello8 = t.path + "\\hello.txt";
  auto data = fs.read_file(hello8, 1 << 20, &err);
  check(data && *data == "hello world", "Fs::read_file whole file", data ? *data : err);
  data = fs.read_file(hello8, 5, &err);
  check(data && *data == "hello", "Fs::read_file respects max_bytes", data ? *data : err);
  data = fs.read_file(t.path + "/hello.txt", 100, &err);
  check(data && *data == "hello world", "Fs::read_file accepts forward slashes");
  data = fs.read_file(t.path + "\\" + kUmlautName, 100, &err);
  check(data && *data == "umlaut", "Fs::read_file non-ASCII UTF-8 name", data ? *data : err);

  err.clear();
  const std::string missing = t.path + "\\missing.txt";
  data = fs.read_file(missing, 100, &err);
  check(!data && starts_with(err, missing + ": ") && err.size() > missing.size() + 4, "Fs::read_file missing file: error text",
        err);
  err.clear();
  data = fs.read_file(t.path + "\\sub", 100, &err);
  check(!data && err == t.path + "\\sub: not a regular file (a folder)", "Fs::read_file on a directory", err);

  auto list = fs.list_dir(t.path, &err);
  bool saw_hello = false, saw_sub = false, saw_umlaut = false, saw_dots = false;
  if (list)
    for (const auto& e : *list) {
      if (e.name == "hello.txt") saw_hello = !e.is_dir && !e.is_symlink;
      if (e.name == "sub") saw_sub = e.is_dir && !e.is_symlink;
      if (e.name == kUmlautName) saw_umlaut = true;
      if (e.name == "." || e.name == "..") saw_dots = true;
    }
  check(list && saw_hello && saw_sub && saw_umlaut && !saw_dots, "Fs::list_dir names, is_dir, no dot entries",
        list ? std::to_string(list->size()) + " entries" : err);
  err.clear();
  check(!fs.list_dir(missing, &err) && starts_with(err, missing + ": "), "Fs::list_dir missing folder: error text", err);
  list = fs.list_dir(t.path + "\\sub", &err);
  check(list && list->empty(), "Fs::list_dir empty folder");

  check(fs.exists(hello8) && !fs.exists(missing), "Fs::exists");
  check(fs.is_dir(t.path) && fs.is_dir(t.path + "\\sub") && !fs.is_dir(hello8) && !fs.is_dir(missing), "Fs::is_dir");
  check(!fs.read_link(hello8), "Fs::read_link of a plain file is nullopt");

  const auto c1 = fs.canonical(t.path + "\\sub\\..\\hello.txt");
  const auto c2 = fs.canonical(hello8);
  check(c1 && c2 && *c1 == *c2 && !starts_with(*c1, "\\\\?\\") && ends_with_ci(*c1, "\\hello.txt"),
        "Fs::canonical resolves .. and drops \\\\?\\", c1 ? *c1 : "nullopt");
  check(!fs.canonical(missing), "Fs::canonical of a missing path is nullopt");

  // A path well past MAX_PATH, built with \\?\ directly; the seam must add the prefix itself.
  std::wstring wlong = L"\\\\?\\" + t.wpath;
  std::string long8 = t.path;
  for (int i = 0; i < 8; ++i) {
    const std::wstring part = L"\\long_component_number_" + std::to_wstring(i) + L"_abcdefghijklmnop";
    wlong += part;
    long8 += narrow(part);
    ::CreateDirectoryW(wlong.c_str(), nullptr);
  }
  write_file(wlong + L"\\deep.txt", "deep");
  data = fs.read_file(long8 + "\\deep.txt", 100, &err);
  check(long8.size() > MAX_PATH && data && *data == "deep", "Fs::read_file past MAX_PATH (" + std::to_string(long8.size()) + " chars)",
        data ? *data : err);
  list = fs.list_dir(long8, &err);
  check(list && list->size() == 1 && (*list)[0].name == "deep.txt", "Fs::list_dir past MAX_PATH", list ? "" : err);
  check(fs.is_dir(long8) && fs.exists(long8 + "\\deep.txt"), "Fs::is_dir/exists past MAX_PATH");

  // Symlinks need a privilege (or developer mode) on Windows; Wine may not support them.
  const std::wstring link = t.wpath + L"\\link.txt";
  const std::wstring dlink = t.wpath + L"\\dlink";
  const bool made = ::CreateSymbolicLinkW(link.c_str(), L"hello.txt", SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE) != 0;
  const DWORD made_error = ::GetLastError();
  if (!made) {
    skip("Fs symlinks on disk", "CreateSymbolicLinkW failed: " + win32::error_text(made_error));
  } else if (::GetFileAttributesW(link.c_str()) == INVALID_FILE_ATTRIBUTES) {
    // Wine 8 returns TRUE from CreateSymbolicLinkW without creating anything.
    skip("Fs symlinks on disk", "CreateSymbolicLinkW reported success but made no link (Wine stub)");
  } else {
    ::CreateSymbolicLinkW(dlink.c_str(), (t.wpath + L"\\sub").c_str(),
                          SYMBOLIC_LINK_FLAG_DIRECTORY | SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
    const auto target = fs.read_link(t.path + "\\link.txt");
    check(target && *target == "hello.txt", "Fs::read_link relative symlink", target.value_or("nullopt"));
    const auto dtarget = fs.read_link(t.path + "\\dlink");
    check(dtarget && ends_with_ci(*dtarget, "\\sub"), "Fs::read_link absolute directory symlink", dtarget.value_or("nullopt"));
    const auto cl = fs.canonical(t.path + "\\link.txt");
    check(cl && c2 && *cl == *c2, "Fs::canonical follows a symlink", cl.value_or("nullopt"));
    data = fs.read_file(t.path + "\\link.txt", 100, &err);
    check(data && *data == "hello world", "Fs::read_file through a symlink");
    list = fs.list_dir(t.path, &err);
    bool link_ok = false, dlink_ok = false;
    if (list)
      for (const auto& e : *list) {
        if (e.name == "link.txt") link_ok = e.is_symlink && !e.is_dir;
        if (e.name == "dlink") dlink_ok = e.is_symlink && e.is_dir;
      }
    check(link_ok && dlink_ok, "Fs::list_dir marks symlinks, is_dir follows them");
    ::DeleteFileW(link.c_str());
    ::RemoveDirectoryW(dlink.c_str());
  }
}

// A REPARSE_DATA_BUFFER built byte by byte (layout from the driver kit's ntifs.h).
std::string reparse_buffer(DWORD tag, const std::wstring& sub, const std::wstring& print, DWORD flags) {
  const bool symlink = tag == IO_REPARSE_TAG_SYMLINK;
  std::string names;
  names.append(reinterpret_cast<const char*>(sub.c_str()), sub.size() * 2);
  names.append(reinterpret_cast<const char*>(print.c_str()), print.size() * 2);
  const USHORT fields[4] = {0, static_cast<USHORT>(sub.size() * 2), static_cast<USHORT>(sub.size() * 2),
                            static_cast<USHORT>(print.size() * 2)};
  std::string body(reinterpret_cast<const char*>(fields), sizeof fields);
  if (symlink) body.append(reinterpret_cast<const char*>(&flags), sizeof flags);
  body += names;
  const USHORT length = static_cast<USHORT>(body.size());
  const USHORT reserved = 0;
  std::string out(reinterpret_cast<const char*>(&tag), 4);
  out.append(reinterpret_cast<const char*>(&length), 2);
  out.append(reinterpret_cast<const char*>(&reserved), 2);
  return out + body;
}

void check_reparse_parser() {
  using win32::reparse_target;
  const std::string abs = reparse_buffer(IO_REPARSE_TAG_SYMLINK, L"\\??\\C:\\CUDA\\v12.4", L"C:\\CUDA\\v12.4", 0);
  check(reparse_target(abs) == "C:\\CUDA\\v12.4", "reparse_target symlink uses the print name");
  check(reparse_target(reparse_buffer(IO_REPARSE_TAG_SYMLINK, L"\\??\\C:\\x\\y", L"", 0)) == "C:\\x\\y",
        "reparse_target symlink without print name: NT path made DOS");
  check(reparse_target(reparse_buffer(IO_REPARSE_TAG_SYMLINK, L"..\\lib\\cudnn64_9.dll", L"", 1)) ==
            "..\\lib\\cudnn64_9.dll",
        "reparse_target relative symlink stays relative");
  check(reparse_target(reparse_buffer(IO_REPARSE_TAG_MOUNT_POINT, L"\\??\\UNC\\srv\\share\\x", L"", 0)) ==
            "\\\\srv\\share\\x",
        "reparse_target junction to a UNC path");
  check(reparse_target(reparse_buffer(IO_REPARSE_TAG_MOUNT_POINT, L"\\??\\Volume{0d1c}\\", L"", 0)) ==
            "\\\\?\\Volume{0d1c}\\",
        "reparse_target volume mount point keeps \\\\?\\");
  std::string lx("\x1D\x00\x00\xA0\x10\x00\x00\x00\x02\x00\x00\x00libcuda.so.1", 24);
  check(reparse_target(lx) == "libcuda.so.1", "reparse_target WSL symlink (UTF-8 target)");
  check(!reparse_target(reparse_buffer(0x8000001B, L"x", L"y", 0)), "reparse_target ignores app execution aliases");
  // Every truncation, and a header that claims more data than there is, must be harmless.
  bool prefixes_ok = true;
  for (size_t n = 0; n < abs.size(); ++n) {
    const auto r = reparse_target(abs.substr(0, n));
    prefixes_ok = prefixes_ok && (!r || *r == "C:\\CUDA\\v12.4");
  }
  std::string lying = abs;
  lying[4] = '\xFF';
  lying[5] = '\x7F';
  check(prefixes_ok && reparse_target(lying) == "C:\\CUDA\\v12.4", "reparse_target truncated or lying buffers");
}

void check_env(const Env& env) {
  ::SetEnvironmentVariableW(L"GPUREADY_SMOKE", L"wert-\u00fc");
  ::SetEnvironmentVariableW(L"GPUREADY_EMPTY", L"");
  ::SetEnvironmentVariableW(L"GPUREADY_UNSET", nullptr);
  const auto v = env.get("GPUREADY_SMOKE");
  check(v && *v == "wert-\xC3\xBC", "Env::get UTF-8 value", v.value_or("nullopt"));
  check(env.get("gpuready_smoke") == v, "Env::get names are case-insensitive");
  check(!env.get("GPUREADY_UNSET"), "Env::get unset is nullopt");
  const auto e = env.get("GPUREADY_EMPTY");
  check(e && e->empty(), "Env::get empty value is \"\"", e ? "[" + *e + "]" : "nullopt");
  std::string big(5000, 'x');
  ::SetEnvironmentVariableW(L"GPUREADY_BIG", std::wstring(5000, L'x').c_str());
  check(env.get("GPUREADY_BIG") == big, "Env::get value longer than the first buffer");
  const auto all = env.all();
  bool equals_key = false;
  for (const auto& [k, val] : all) equals_key = equals_key || k.empty() || k[0] == '=';
  const auto it = all.find("GPUREADY_SMOKE");
  check(it != all.end() && it->second == *v && !equals_key && all.count("PATH") + all.count("Path") > 0,
        "Env::all has our variable, PATH, no '=C:' entries", std::to_string(all.size()) + " variables");
}

std::string dir_of(const std::string& path) { return path.substr(0, path.find_last_of('\\')); }

void check_proc(const Proc& proc, const TempDir& t) {
  const auto self = proc.self_path();
  check(self && ends_with_ci(*self, "seams_smoke.exe") && !starts_with(*self, "\\\\?\\"), "Proc::self_path",
        self.value_or("nullopt"));
  if (!self) return;
  ProcOptions o;
  o.timeout = std::chrono::milliseconds(20000);

  const std::vector<std::string> tricky = {"plain",      "with space", "quote\"inside", "trail\\",     "back\\\\\"q",
                                           "",           "\xC3\xBC\xE4\xB8\xAD", "tab\tx", "\\\\server\\share\\", "a\\b c\\"};
  std::vector<std::string> argv = {*self, "--child-args"};
  argv.insert(argv.end(), tricky.begin(), tricky.end());
  auto r = proc.run(argv, o);
  std::string want;
  for (const auto& a : tricky) want += "[" + a + "]";
  check(r.ok() && r.out == want, "Proc::run argv quoting round-trips", r.out + " " + r.error);

  std::string input;
  for (int i = 0; i < 300000; ++i) input += static_cast<char>('a' + i % 26);  // > the pipe buffers both ways
  o.stdin_data = input;
  r = proc.run({*self, "--child-cat"}, o);
  check(r.ok() && r.out == input && r.err == "E", "Proc::run stdin in, stdout and stderr out (300 KB)",
        std::to_string(r.out.size()) + " bytes, err=" + r.err + " " + r.error);
  o.max_output = 1000;
  r = proc.run({*self, "--child-cat"}, o);
  check(r.ok() && r.out == input.substr(0, 1000), "Proc::run caps output and keeps draining",
        std::to_string(r.out.size()) + " bytes " + r.error);
  o.max_output = 1 << 20;
  o.stdin_data.clear();

  r = proc.run({*self, "--child-exit", "7"}, o);
  check(r.started && !r.timed_out && r.exit_code == 7 && !r.ok(), "Proc::run exit code", std::to_string(r.exit_code));

  ::SetEnvironmentVariableW(L"GPUREADY_SMOKE", L"parent");
  ProcOptions eo = o;
  eo.set_env = {{"GPUREADY_CHILD", "x y"}};
  r = proc.run({*self, "--child-env", "GPUREADY_CHILD"}, eo);
  check(r.ok() && r.out == "x y", "Proc::run set_env adds", r.out);
  r = proc.run({*self, "--child-env", "GPUREADY_SMOKE"}, o);
  check(r.ok() && r.out == "parent", "Proc::run inherits the environment", r.out);
  eo.set_env = {{"gpuready_smoke", "replaced"}};
  r = proc.run({*self, "--child-env", "GPUREADY_SMOKE"}, eo);
  check(r.ok() && r.out == "replaced", "Proc::run set_env replaces case-insensitively", r.out);
  eo.set_env.clear();
  eo.unset_env = {"Gpuready_Smoke"};
  r = proc.run({*self, "--child-env", "GPUREADY_SMOKE"}, eo);
  check(r.ok() && r.out == "<unset>", "Proc::run unset_env removes case-insensitively", r.out);

  // PATH lookup with PATHEXT: the bare name, no extension, found only through PATH.
  eo = o;
  eo.set_env = {{"PATH", dir_of(*self)}};
  r = proc.run({"seams_smoke", "--child-exit", "5"}, eo);
  check(r.started && r.exit_code == 5, "Proc::run finds a bare name on PATH with PATHEXT", r.error);

  // The current folder is never searched: not for a relative PATH entry, not for a relative path.
  eo = o;
  eo.cwd = dir_of(*self);
  eo.set_env = {{"PATH", ".;bin;"}};
  r = proc.run({"seams_smoke", "--child-exit", "5"}, eo);
  check(!r.started, "Proc::run skips PATH's relative entries (the current folder)", r.error);
  r = proc.run({".\\seams_smoke.exe", "--child-exit", "5"}, eo);
  check(!r.started && r.error.find("absolute path only") != std::string::npos, "Proc::run refuses a relative program path",
        r.error);
  eo.cwd.clear();
  eo.set_env = {{"PATH", ".;" + dir_of(*self) + ";;bin"}};
  r = proc.run({*self, "--child-env", "PATH"}, eo);
  check(r.ok() && r.out == dir_of(*self), "Proc::run gives the child PATH without its relative entries", r.out);

  r = proc.run({"gpuready-no-such-program"}, o);
  check(!r.started && starts_with(r.error, "gpuready-no-such-program: "), "Proc::run missing program: error text",
        r.error);

  auto start = ::GetTickCount64();
  ProcOptions to = o;
  to.timeout = std::chrono::milliseconds(300);
  r = proc.run({*self, "--child-sleep"}, to);
  auto took = ::GetTickCount64() - start;
  check(r.started && r.timed_out && !r.ok() && r.error.find("killed") != std::string::npos && took < 5000,
        "Proc::run timeout kills", r.error + " (" + std::to_string(took) + " ms)");

  start = ::GetTickCount64();
  to.timeout = std::chrono::milliseconds(1500);
  r = proc.run({*self, "--child-spawn"}, to);
  took = ::GetTickCount64() - start;
  const unsigned long pid = std::strtoul(r.out.c_str(), nullptr, 10);
  bool grandchild_dead = false;
  if (pid != 0) {
    HANDLE h = ::OpenProcess(SYNCHRONIZE, FALSE, pid);
    grandchild_dead = !h || ::WaitForSingleObject(h, 3000) == WAIT_OBJECT_0;
    if (h) ::CloseHandle(h);
  }
  check(r.timed_out && pid != 0 && grandchild_dead && took < 6000,
        "Proc::run timeout kills the whole tree (job object)",
        "pid " + std::to_string(pid) + ", " + std::to_string(took) + " ms, " + r.error);

  // Batch files go through cmd.exe: plain arguments work, cmd metacharacters are refused.
  const std::wstring bat = t.wpath + L"\\hello.bat";
  write_file(bat, "@echo bat-%1\r\n");
  const std::string bat8 = t.path + "\\hello.bat";
  r = proc.run({bat8, "ok"}, o);
  check(r.ok() && r.out.find("bat-ok") != std::string::npos, "Proc::run a .bat file", r.out + r.error);
  r = proc.run({bat8, "a&calc"}, o);
  check(!r.started && r.error.find("batch") != std::string::npos, "Proc::run refuses cmd metacharacters for .bat",
        r.error);
}

void check_dynlib(const DynLib& dl, const TempDir& t) {
  std::string err;
  // A bare name is refused: gpuready resolves it first (System32, PATH's absolute entries).
  auto h = dl.open("kernel32.dll", &err);
  check(!h && err.find("absolute path only") != std::string::npos, "DynLib::open refuses a bare name", err);
  h = dl.open(".\\kernel32.dll", &err);
  check(!h && err.find("absolute path only") != std::string::npos, "DynLib::open refuses a relative path", err);
  const auto found = vendors::resolve_library(real_os(), "kernel32.dll", &err);
  check(found && found->via == "System32", "resolve_library finds kernel32.dll in System32", found ? found->path : err);
  h = found ? dl.open(found->path, &err) : DynLib::Handle{};
  check(static_cast<bool>(h), "DynLib::open the resolved path", err);
  if (h) {
    void* sym = dl.symbol(h, "GetTickCount64");
    check(sym != nullptr, "DynLib::symbol");
    check(dl.symbol(h, "GpureadyNoSuchExport") == nullptr, "DynLib::symbol missing is nullptr");
    const auto p = dl.path_of(h, nullptr);
    check(p && ends_with_ci(*p, "\\kernel32.dll"), "DynLib::path_of handle", p.value_or("nullopt"));
    const auto q = dl.path_of(DynLib::Handle{}, sym);
    check(q && p && *q == *p, "DynLib::path_of by symbol address", q.value_or("nullopt"));
    if (p) {
      auto h2 = dl.open(*p, &err);
      check(static_cast<bool>(h2), "DynLib::open full path (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)", err);
      dl.close(h2);
    }
    dl.close(h);
  }
  err.clear();
  const std::string no_such = t.path + "\\gpuready-no-such.dll";
  h = dl.open(no_such, &err);
  check(!h && starts_with(err, no_such + ": ") && err.find("(error 126)") != std::string::npos,
        "DynLib::open missing: words and code", err);
  err.clear();
  h = dl.open(t.path + "\\hello.txt", &err);
  check(!h && err.find("(error ") != std::string::npos && err.find("(error 126)") == std::string::npos,
        "DynLib::open a non-DLL file fails without a dialog", err);
}

// The registry seam against the live registry: a scratch key under HKCU written with the W API
// directly (not through the code under test), read back through Registry, then deleted.
void check_registry(const Registry& reg) {
  const wchar_t* scratch = L"Software\\gpuready-seams-smoke";
  ::RegDeleteTreeW(HKEY_CURRENT_USER, scratch);
  HKEY k = nullptr;
  if (::RegCreateKeyExW(HKEY_CURRENT_USER, scratch, 0, nullptr, 0, KEY_WRITE, nullptr, &k, nullptr) != ERROR_SUCCESS) {
    check(false, "Registry: create a scratch key under HKCU");
    return;
  }
  const std::wstring text = L"C:\\Program Files\\\u00fcber";  // "über": UTF-16 to UTF-8 at the seam
  ::RegSetValueExW(k, L"Text", 0, REG_SZ, reinterpret_cast<const BYTE*>(text.c_str()),
                   static_cast<DWORD>((text.size() + 1) * sizeof(wchar_t)));
  const DWORD dword = 546;
  ::RegSetValueExW(k, L"Count", 0, REG_DWORD, reinterpret_cast<const BYTE*>(&dword), sizeof dword);
  const unsigned long long qword = 1ull << 40;
  ::RegSetValueExW(k, L"Big", 0, REG_QWORD, reinterpret_cast<const BYTE*>(&qword), sizeof qword);
  const wchar_t multi[] = L"a\0bc\0";
  ::RegSetValueExW(k, L"List", 0, REG_MULTI_SZ, reinterpret_cast<const BYTE*>(multi), sizeof multi);
  HKEY sub = nullptr;
  ::RegCreateKeyExW(k, L"v11.0", 0, nullptr, 0, KEY_WRITE, nullptr, &sub, nullptr);
  if (sub) ::RegCloseKey(sub);
  ::RegCloseKey(k);

  const std::string key = "HKEY_CURRENT_USER\\Software\\gpuready-seams-smoke";
  std::string err;
  const auto t = reg.value(key, "Text", &err);
  check(t && t->type == RegistryValue::Type::kString &&
            t->text ==
                "C:\\Program Files\\\xC3\xBC"
                "ber",
        "Registry::value REG_SZ in UTF-8", t ? t->text : err);
  const auto n = reg.value("HKCU\\Software\\gpuready-seams-smoke", "count", &err);
  check(n && n->type == RegistryValue::Type::kNumber && n->number == 546 && n->text == "546",
        "Registry::value REG_DWORD (short hive name, any case)", n ? n->text : err);
  const auto q = reg.value(key, "Big", &err);
  check(q && q->number == (1ull << 40), "Registry::value REG_QWORD", q ? q->text : err);
  const auto m = reg.value(key, "List", &err);
  check(m && m->type == RegistryValue::Type::kStrings && m->strings == std::vector<std::string>{"a", "bc"},
        "Registry::value REG_MULTI_SZ");
  const auto kids = reg.subkeys(key, &err);
  check(kids && *kids == std::vector<std::string>{"v11.0"}, "Registry::subkeys", err);
  err.clear();
  check(!reg.value(key, "Absent", &err) && err.find("Absent") != std::string::npos,
        "Registry::value missing value: words", err);
  err.clear();
  check(!reg.subkeys(key + "\\nope", &err) && !err.empty(), "Registry::subkeys missing key: words", err);
  err.clear();
  check(!reg.value("HKEY_NOWHERE\\x", "y", &err) && err.find("not a registry key") != std::string::npos,
        "Registry: an unknown hive is refused", err);
  ::RegDeleteTreeW(HKEY_CURRENT_USER, scratch);
  // Windows itself (and Wine) keeps the edition and build here.
  const auto build = reg.text("HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", "CurrentBuildNumber");
  check(build && !build->empty(), "Registry: HKLM CurrentVersion\\CurrentBuildNumber", build.value_or("nullopt"));
}

void check_host() {
  const HostInfo h = host_info();
  std::printf("     host: %s %s %s %s ram=%llu cpus=%d\n", h.kernel_name.c_str(), h.kernel_release.c_str(),
              h.machine.c_str(), h.hostname.c_str(), static_cast<unsigned long long>(h.ram_bytes.value_or(0)),
              h.logical_cpus.value_or(0));
  check(h.kernel_name == "Windows_NT" && std::count(h.kernel_release.begin(), h.kernel_release.end(), '.') == 2,
        "host_info kernel", h.kernel_release);
  check(h.machine == "AMD64" || h.machine == "ARM64", "host_info machine", h.machine);
  check(!h.hostname.empty() && h.ram_bytes.value_or(0) > 0 && h.logical_cpus.value_or(0) > 0,
        "host_info hostname, RAM, CPUs");
}

}  // namespace

void check_thread_binding() {
  DWORD_PTR process = 0, system = 0;
  if (!::GetProcessAffinityMask(::GetCurrentProcess(), &process, &system) || process == 0) {
    skip("ThreadCpuBinding", "GetProcessAffinityMask gave nothing");
    return;
  }
  int first = 0;
  while (!((process >> first) & 1u)) ++first;
  {
    ThreadCpuBinding b;
    int allowed = -1;
    std::string why;
    const bool ok = b.bind({first, 1 << 20}, &allowed, &why);
    check(ok && allowed == 1, "ThreadCpuBinding pins the thread to one allowed CPU", why);
    // Setting a mask returns the old one: ours now is the one CPU.
    const DWORD_PTR now = ::SetThreadAffinityMask(::GetCurrentThread(), DWORD_PTR{1} << first);
    check(now == (DWORD_PTR{1} << first), "ThreadCpuBinding's mask is the thread's");
  }
  const DWORD_PTR after = ::SetThreadAffinityMask(::GetCurrentThread(), process);
  check(after == process, "ThreadCpuBinding puts the old mask back");
  ThreadCpuBinding none;
  int allowed = -1;
  std::string why;
  check(!none.bind({1 << 20}, &allowed, &why) && allowed == 0 && !why.empty(), "ThreadCpuBinding refuses CPUs not allowed", why);
}

int main(int argc, char** argv) {
  if (argc > 1 && starts_with(argv[1], "--child-")) return child_main(argv[1], argc, argv);
  const Os& os = real_os();
  const TempDir t = make_temp_dir();
  check(join_path("C:\\a", "b") == "C:\\a\\b" && split_path_list("a;b;;c").size() == 3, "path helpers use \\ and ;");
  check_fs(os.fs, t);
  check_reparse_parser();
  check_env(os.env);
  check_proc(os.proc, t);
  check_dynlib(os.dl, t);
  check_registry(os.reg);
  check_host();
  check_thread_binding();
  std::printf("%d failure(s)\n", failures);
  return failures;
}
