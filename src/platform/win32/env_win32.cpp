// Windows implementation of Env: GetEnvironmentVariableW and GetEnvironmentStringsW, so that
// non-ASCII values (a user name in a path) arrive intact as UTF-8.
#include "platform/win32/win32_os.h"

namespace gpuready {

std::optional<std::string> Win32Env::get(const std::string& name) const {
  const std::wstring wname = win32::to_wide(name);
  if (wname.empty()) return std::nullopt;
  std::wstring value(256, L'\0');
  for (int attempt = 0; attempt < 4; ++attempt) {
    ::SetLastError(ERROR_SUCCESS);
    const DWORD n = ::GetEnvironmentVariableW(wname.c_str(), value.data(), static_cast<DWORD>(value.size()));
    if (n == 0) {
      // 0 is both "not set" and "set to the empty string"; only the error code tells them apart.
      if (::GetLastError() == ERROR_ENVVAR_NOT_FOUND) return std::nullopt;
      return std::string();
    }
    if (n < value.size()) {
      value.resize(n);
      return win32::to_utf8(value);
    }
    value.assign(n, L'\0');  // n is the size needed, including the NUL; retry (it may grow meanwhile)
  }
  return std::nullopt;
}

std::map<std::string, std::string> Win32Env::all() const {
  std::map<std::string, std::string> out;
  wchar_t* block = ::GetEnvironmentStringsW();
  if (!block) return out;
  for (const wchar_t* p = block; *p;) {
    const std::wstring entry(p);
    p += entry.size() + 1;
    // Entries such as "=C:=C:\work" are cmd.exe's per-drive current directories, not
    // variables: their name starts with '=', so the separator is searched from index 1.
    if (entry.empty() || entry[0] == L'=') continue;
    const size_t eq = entry.find(L'=', 1);
    if (eq == std::wstring::npos) continue;
    out.emplace(win32::to_utf8(entry.substr(0, eq)), win32::to_utf8(entry.substr(eq + 1)));
  }
  ::FreeEnvironmentStringsW(block);
  return out;
}

}  // namespace gpuready
