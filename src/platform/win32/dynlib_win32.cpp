// Windows implementation of DynLib: LoadLibraryExW of an absolute path with LOAD_LIBRARY_SEARCH_*
// flags (never the current folder or PATH) and the missing-DLL dialog suppressed
// (a probe must never stop on a modal box), GetProcAddress, GetModuleFileNameW; failures keep
// the system's words and code (126 not found, 193 wrong architecture, 127 missing export).
#include <algorithm>
#include <cstdint>

#include "platform/win32/win32_os.h"

#include <psapi.h>

namespace gpuready {

DynLib::Handle Win32DynLib::open(const std::string& name_or_path, std::string* error) const {
  // Only an absolute path (vendors::resolve_library finds the file first): a bare name would go
  // through the DLL search order, whose PATH part can name the current folder.
  if (!is_absolute_path(name_or_path)) {
    if (error) *error = name_or_path + ": not loaded: gpuready loads libraries by absolute path only";
    return Handle{};
  }
  std::wstring target = win32::to_wide(name_or_path);
  for (auto& c : target)
    if (c == L'/') c = L'\\';
  // The DLL's dependencies are looked for in its own folder (how cudnn64_9.dll finds its sibling
  // DLLs), then the application folder and System32; never the current folder or PATH.
  const DWORD flags = LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
  // Per-thread error mode: no "nvml.dll was not found" box, without touching other threads.
  DWORD old_mode = 0;
  const bool mode_set = ::SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode) != 0;
  HMODULE m = ::LoadLibraryExW(target.c_str(), nullptr, flags);
  const DWORD code = m ? ERROR_SUCCESS : ::GetLastError();
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

std::vector<std::string> Win32DynLib::loaded_files() const {
  // K32EnumProcessModules: kernel32's own export since Windows 7 (no psapi.lib to link).
  std::vector<HMODULE> mods(1024);
  DWORD needed = 0;
  const HANDLE self = ::GetCurrentProcess();
  if (!::K32EnumProcessModules(self, mods.data(), static_cast<DWORD>(mods.size() * sizeof(HMODULE)), &needed))
    return {};
  mods.resize(std::min<std::size_t>(mods.size(), needed / sizeof(HMODULE)));
  std::vector<std::string> out;
  for (HMODULE m : mods)
    if (auto p = win32::module_path(m)) out.push_back(*p);
  return out;
}

}  // namespace gpuready
