// The Windows implementations of the OS seams (declared in platform/os.h) and the few
// helpers they share: UTF-8 <-> UTF-16 at the seam, long-path prefixes, and the system's
// own words for an error code. Only platform/win32/*.cpp include this header.
#pragma once

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <string>
#include <string_view>

#include "platform/os.h"

namespace gpuready {

class Win32Fs final : public Fs {
 public:
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes, std::string* error) const override;
  std::optional<std::string> read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                          std::string* error) const override;
  std::optional<std::vector<DirEntry>> list_dir(const std::string& path, std::string* error) const override;
  bool exists(const std::string& path) const override;
  bool is_dir(const std::string& path) const override;
  std::optional<std::string> read_link(const std::string& path) const override;
  std::optional<std::string> canonical(const std::string& path) const override;
  std::optional<FileStat> stat(const std::string& path, std::string* error) const override;
};

// Variable names are case-insensitive on Windows: get("Path") finds PATH. all() keeps each
// name as the OS spells it (only one spelling can exist at a time).
class Win32Env final : public Env {
 public:
  std::optional<std::string> get(const std::string& name) const override;
  std::map<std::string, std::string> all() const override;
};

class Win32Proc final : public Proc {
 public:
  ProcResult run(const std::vector<std::string>& argv, const ProcOptions& options) const override;
  std::optional<std::string> self_path() const override;
};

class Win32DynLib final : public DynLib {
 public:
  Handle open(const std::string& name_or_path, std::string* error) const override;
  void* symbol(Handle h, const std::string& name) const override;
  std::optional<std::string> path_of(Handle h, void* any_symbol) const override;
  void close(Handle h) const override;
  std::vector<std::string> loaded_files() const override;
};

// Reads the 64-bit view of the registry (also from a 32-bit build).
class Win32Registry final : public Registry {
 public:
  std::optional<RegistryValue> value(const std::string& key, const std::string& name,
                                     std::string* error) const override;
  std::optional<std::vector<std::string>> subkeys(const std::string& key, std::string* error) const override;
};

namespace win32 {

// UTF-8 <-> UTF-16. Invalid sequences become U+FFFD rather than failing: a garbled name
// is still better than no answer.
std::wstring to_wide(const std::string& utf8);
std::string to_utf8(const std::wstring& wide);
std::string to_utf8(const wchar_t* wide, size_t length);

// The wide path to hand to a W API: '/' made '\\' and, when the path is long enough to hit
// MAX_PATH limits, made absolute and prefixed with \\?\ (or \\?\UNC\).
std::wstring os_path(const std::string& utf8);
// The reverse for paths the OS hands back: drops \\?\ (and turns \\?\UNC\x into \\x).
std::string strip_long_prefix(std::wstring path);
// The file a loaded module (or, for nullptr, the running executable) was mapped from.
std::optional<std::string> module_path(HMODULE module);

// The target stored in a FSCTL_GET_REPARSE_POINT answer: symlink (print name, else the NT
// substitute name made a DOS path; relative targets stay relative), junction / mount point,
// or WSL symlink (UTF-8). nullopt for other tags and for truncated or malformed data.
std::optional<std::string> reparse_target(std::string_view data);

// The system's words for a Win32 error code, without the trailing newline. US English when
// that language pack is present (so that reports and rules read the same everywhere), else
// the user's language; "%1" in the text is replaced by `subject`.
std::string error_text(DWORD code, const std::string& subject = {});
// "subject: <error_text>" — the shape every seam reports errors in.
std::string error_with(const std::string& subject, DWORD code);

}  // namespace win32
}  // namespace gpuready
