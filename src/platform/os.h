// The OS seams: every file read, environment lookup, child process, library load and registry
// read of gpuready goes through these five small interfaces. Real implementations live in
// platform/posix and platform/win32; tests substitute fakes (tests/support/test_os.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready {

// Filesystem access. Paths are UTF-8 strings in the OS's own syntax.
struct DirEntry {
  std::string name;         // file name only
  bool is_dir = false;      // after following symlinks
  bool is_symlink = false;
};

class Fs {
 public:
  virtual ~Fs() = default;
  // Reads at most max_bytes; nullopt with *error set when the file cannot be read.
  virtual std::optional<std::string> read_file(const std::string& path, size_t max_bytes,
                                               std::string* error) const = 0;
  // Reads at most max_bytes starting at byte `offset` (fewer at the end of the file, none past it);
  // nullopt with *error set when the file cannot be read. For a few bytes of a huge file (an ELF
  // library's dynamic section); the real implementations read only what is asked for, this default
  // reads the file from its start (correct, slow on big files).
  virtual std::optional<std::string> read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                                  std::string* error) const {
    if (offset > SIZE_MAX - max_bytes) {
      if (error) *error = path + ": offset out of range";
      return std::nullopt;
    }
    auto all = read_file(path, static_cast<size_t>(offset) + max_bytes, error);
    if (!all) return std::nullopt;
    if (all->size() <= offset) return std::string();
    return all->substr(static_cast<size_t>(offset), max_bytes);
  }
  // Lists a directory (no "." or ".."); nullopt with *error on failure.
  virtual std::optional<std::vector<DirEntry>> list_dir(const std::string& path,
                                                        std::string* error) const = 0;
  virtual bool exists(const std::string& path) const = 0;
  virtual bool is_dir(const std::string& path) const = 0;
  // Where a symlink points (one level); nullopt if not a link.
  virtual std::optional<std::string> read_link(const std::string& path) const = 0;
  // The canonical path with every link resolved; nullopt on a loop or a missing path.
  virtual std::optional<std::string> canonical(const std::string& path) const = 0;
};

class Env {
 public:
  virtual ~Env() = default;
  virtual std::optional<std::string> get(const std::string& name) const = 0;
  virtual std::map<std::string, std::string> all() const = 0;
};

struct ProcResult {
  bool started = false;        // false: could not start at all, see error
  bool timed_out = false;      // killed after the timeout
  int exit_code = -1;          // valid when exited normally
  int signal = 0;              // POSIX: the signal that ended it; 0 otherwise
  std::string out;             // stdout (capped)
  std::string err;             // stderr (capped)
  std::string error;           // why it could not start / how it ended, in words
  [[nodiscard]] bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

struct ProcOptions {
  std::chrono::milliseconds timeout{5000};
  size_t max_output = 1 << 20;                 // per stream
  std::map<std::string, std::string> set_env;  // added to (or replacing in) the inherited env
  std::vector<std::string> unset_env;
  std::string stdin_data;                      // written to the child's stdin, then closed
  std::string cwd;                             // the folder it runs in ("" = this process's)
  // Told each piece of the child's stderr as it arrives (progress from a long child), besides
  // collecting it in ProcResult::err. Pieces are not lines: the caller splits them.
  std::function<void(std::string_view)> on_stderr;
};

class Proc {
 public:
  virtual ~Proc() = default;
  // Runs argv[0] (a path, or a name looked up on PATH) and always returns: a child that
  // outlives the timeout is killed with its whole process group.
  virtual ProcResult run(const std::vector<std::string>& argv, const ProcOptions& options) const = 0;
  // The path of the running executable (to re-run gpuready itself as an isolated child).
  virtual std::optional<std::string> self_path() const = 0;
};

// Run-time library loading (dlopen / LoadLibraryExW).
class DynLib {
 public:
  virtual ~DynLib() = default;
  struct Handle {
    void* raw = nullptr;
    explicit operator bool() const { return raw != nullptr; }
  };
  // name_or_path as dlopen takes it; on failure an empty handle and *error = the loader's words.
  virtual Handle open(const std::string& name_or_path, std::string* error) const = 0;
  virtual void* symbol(Handle h, const std::string& name) const = 0;
  // The file the loader actually mapped for this handle (dlinfo / GetModuleFileNameW).
  virtual std::optional<std::string> path_of(Handle h, void* any_symbol) const = 0;
  virtual void close(Handle h) const = 0;
};

// The Windows registry, read only: where Windows keeps facts no file holds (the edition and
// build, the display driver's version, the CUDA toolkits the installer registered).
// Keys are written as regedit shows them, with the hive's long or short name:
// HKEY_LOCAL_MACHINE\SOFTWARE\NVIDIA Corporation or HKLM\SOFTWARE\NVIDIA Corporation.
// The 64-bit view is read from a 32-bit process too. Other OSes have no registry: every call
// answers nullopt with *error saying so.
struct RegistryValue {
  enum class Type { kString, kNumber, kStrings, kBinary };
  Type type = Type::kString;
  std::string text;                  // REG_SZ / REG_EXPAND_SZ (not expanded); a number in decimal
  std::uint64_t number = 0;          // REG_DWORD / REG_QWORD
  std::vector<std::string> strings;  // REG_MULTI_SZ
};

class Registry {
 public:
  virtual ~Registry() = default;
  // One value of a key; "" names the key's default value. nullopt with *error when the key or
  // the value is missing or cannot be read.
  virtual std::optional<RegistryValue> value(const std::string& key, const std::string& name,
                                             std::string* error) const = 0;
  // The names of a key's subkeys, in the registry's order.
  virtual std::optional<std::vector<std::string>> subkeys(const std::string& key, std::string* error) const = 0;
  // A string value (numbers as decimal text), or nullopt.
  std::optional<std::string> text(const std::string& key, const std::string& name) const {
    auto v = value(key, name, nullptr);
    if (!v || (v->type != RegistryValue::Type::kString && v->type != RegistryValue::Type::kNumber)) return std::nullopt;
    return v->text;
  }
};

// The registry of an OS that has none (and the default of an Os bundle made without one).
const Registry& no_registry();

// The bundle collectors receive.
struct Os {
  const Fs& fs;
  const Env& env;
  const Proc& proc;
  const DynLib& dl;
  const Registry& reg = no_registry();
};

// The real OS of this process.
const Os& real_os();

// Host facts that have no better seam (uname, sysinfo, GetVersionEx...).
struct HostInfo {
  std::string kernel_name;     // "Linux", "Windows_NT"
  std::string kernel_release;  // uname -r / Windows build
  std::string machine;         // x86_64, aarch64, AMD64
  std::string hostname;
  std::optional<std::uint64_t> ram_bytes;
  std::optional<int> logical_cpus;
};
HostInfo host_info();

// Whether standard output is a terminal that shows ANSI colours (on Windows this also turns
// the console's VT processing on). NO_COLOR set, or TERM=dumb, means no.
bool stdout_wants_color();

// A new empty folder under the system's temporary folder, only this user may enter
// (gpuready-<tag>-XXXXXX); nullopt with *error set when it cannot be made.
std::optional<std::string> make_temp_dir(const std::string& tag, std::string* error);
// Removes a folder and everything in it; false when something stayed.
bool remove_tree(const std::string& path);

// Path helpers that know the OS separator.
char path_separator();        // '/' or '\\'
char path_list_separator();   // ':' or ';' (PATH, LD_LIBRARY_PATH)
std::string join_path(const std::string& a, const std::string& b);
std::vector<std::string> split_path_list(const std::string& list);
// The last component and the folder of a path written with '/' or '\\' (a snapshot's paths may
// come from another OS): "C:\\CUDA\\bin\\cudart64_110.dll" -> "cudart64_110.dll", "C:\\CUDA\\bin".
std::string path_file_name(const std::string& path);  // the path itself when it has no separator
std::string path_folder(const std::string& path);     // "" when it has no separator

}  // namespace gpuready
