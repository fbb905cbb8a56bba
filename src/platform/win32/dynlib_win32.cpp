// Windows implementation of DynLib: LoadLibraryExW with the missing-DLL dialog suppressed
// (a probe must never stop on a modal box), GetProcAddress, GetModuleFileNameW; failures keep
// the system's words and code (126 not found, 193 wrong architecture, 127 missing export).
#include <cstdint>

#include "platform/win32/win32_os.h"

namespace gpuready {
namespace {

bool looks_like_path(const std::string& s) { return s.find_first_of("\\/:") != std::string::npos; }

}  // namespace

DynLib::Handle Win32DynLib::open(const std::string& name_or_path, std::string* error) const {
  std::wstring target = win32::to_wide(name_or_path);
  DWORD flags = 0;  // a bare name: the standard search order, as the application itself would see it
  if (looks_like_path(name_or_path)) {
    // LOAD_WITH_ALTERED_SEARCH_PATH makes the DLL's own folder the first place its
    // dependencies are looked for (how cudnn64_9.dll finds its sibling DLLs), but is
    // undefined for relative paths: make the path absolute first.
    for (auto& c : target)
      if (c == L'/') c = L'\\';
    const DWORD need = ::GetFullPathNameW(target.c_str(), 0, nullptr, nullptr);
    if (need > 0) {
      std::wstring full(need, L'\0');
      const DWORD got = ::GetFullPathNameW(target.c_str(), need, full.data(), nullptr);
      if (got > 0 && got < need) target = full.substr(0, got);
    }
    flags = LOAD_WITH_ALTERED_SEARCH_PATH;
  }
  // Per-thread error mode: no "nvml.dll was not found" box, without touching other threads.
  DWORD old_mode = 0;
  const bool mode_set = ::SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode) != 0;
  HMODULE m = target.empty() ? nullptr : ::LoadLibraryExW(target.c_str(), nullptr, flags);
  const DWORD code = m ? ERROR_SUCCESS : (target.empty() ? ERROR_INVALID_NAME : ::GetLastError());
  if (mode_set) ::SetThreadErrorMode(old_mode, nullptr);
  if (!m && error) {
    // The words are localised only when no English pack exists; the code is what a rule can
    // match on in every language, so it is kept in the text.
    *error = win32::error_with(name_or_path, code) + " (error " + std::to_string(code) + ")";
  }
  return Handle{reinterpret_cast<void*>(m)};
}

void* Win32DynLib::symbol(Handle h, const std::string& name) const {
  if (!h) return nullptr;
  const FARPROC p = ::GetProcAddress(static_cast<HMODULE>(h.raw), name.c_str());
  // FARPROC -> void* through an integer: the seam hands out data pointers, and a direct
  // function-to-object pointer cast is only conditionally supported.
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(p));
}

std::optional<std::string> Win32DynLib::path_of(Handle h, void* any_symbol) const {
  if (h) return win32::module_path(static_cast<HMODULE>(h.raw));
  if (any_symbol) {
    HMODULE m = nullptr;
    if (::GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                             static_cast<LPCWSTR>(any_symbol), &m))
      return win32::module_path(m);
  }
  return std::nullopt;
}

void Win32DynLib::close(Handle h) const {
  if (h) ::FreeLibrary(static_cast<HMODULE>(h.raw));
}

}  // namespace gpuready
