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

// What stat says about a path (links followed).
struct FileStat {
  enum class Type { regular, directory, other };  // other: a FIFO, a device, a socket
  Type type = Type::other;
  std::uint64_t size = 0;
  std::optional<std::uint32_t> mode;  // POSIX permission bits with setuid/setgid/sticky (07777); none on Windows
  std::optional<std::uint32_t> owner;  // POSIX uid
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
  // stat (links followed); nullopt with *error when the path cannot be looked at. A fake that
  // does not know answers nullopt.
  virtual std::optional<FileStat> stat(const std::string& path, std::string* error) const {
    if (error) *error = path + ": cannot be looked at";
    return std::nullopt;
  }
};

// A file a user named (doctor --replay, plan --snapshot, explain --file), read through the Fs seam:
// only a regular file ("-" is not handled here), at most max_bytes (a bigger one is refused, not
// cut). nullopt with *error a sentence naming the file: missing, a folder, a device or FIFO
// (/dev/zero, /dev/stdin of a terminal), or too big.
std::optional<std::string> read_user_file(const Fs& fs, const std::string& path, size_t max_bytes, std::string* error);

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
  // The most memory the child (and, on Windows, what it started) held at once: Linux its peak resident
  // set (wait4's ru_maxrss), Windows the job's peak committed memory; 0 unknown.
  std::uint64_t peak_memory_bytes = 0;
  [[nodiscard]] bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

struct ProcOptions {
  std::chrono::milliseconds timeout{5000};
  size_t max_output = 1 << 20;                 // per stream
  std::map<std::string, std::string> set_env;  // added to (or replacing in) the inherited env
  std::vector<std::string> unset_env;
  std::string stdin_data;                      // written to the child's stdin, then closed
  std::string cwd;                             // the folder it runs in ("" = this process's)
  // Drop empty and relative entries (the current folder, to the loader and to exec) from the
  // child's LD_LIBRARY_PATH, PATH, PYTHONPATH and LD_PRELOAD (clean_search_path_list). Only a
  // test that hands a child a hostile environment on purpose turns this off.
  bool clean_search_paths = true;
  // Told each piece of the child's stderr as it arrives (progress from a long child), besides
  // collecting it in ProcResult::err. Pieces are not lines: the caller splits them.
  std::function<void(std::string_view)> on_stderr;
  // Polled about every 100 ms while the child runs (POSIX): once it answers true, the child's process
  // group is sent SIGINT and the run goes on until it exits or the timeout. Not implemented on Windows
  // yet (the child has a console of its own, CREATE_NO_WINDOW, which the user's Ctrl-C does not reach):
  // there it runs to its end.
  std::function<bool()> interrupt;
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
  // Every file mapped into this process as a library (dl_iterate_phdr / EnumProcessModules): what
  // a library really pulled in after it loaded. Empty where the platform cannot say.
  virtual std::vector<std::string> loaded_files() const { return {}; }
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

// Called first in main. Windows: the process's DLL search drops the current folder and PATH
// (SetDefaultDllDirectories + SetDllDirectoryW(L"")), for our loads and for every LoadLibrary a
// vendor DLL makes itself. POSIX: nothing to do at run time (the loader read LD_LIBRARY_PATH when
// the process started; the executable's DT_RPATH lists the system folders ahead of it, see
// src/CMakeLists.txt, and every child gets cleaned search paths).
void harden_process();

// Called first in main, before the embedded tables are parsed (some 10 MB of small allocations
// that every command makes). Linux with glibc: the heap grows by 32 MiB at once and asks for
// transparent huge pages, so those megabytes arrive in a few faults instead of thousands (the
// same as GLIBC_TUNABLES=glibc.malloc.hugetlb=1; a no-op where huge pages are off). Elsewhere:
// nothing.
void prepare_heap();

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

// Ctrl-C (SIGINT; the console's Ctrl-C and Ctrl-Break on Windows) sets a flag instead of ending the
// process, from the first call on; interrupted() reads it. For long runs that stop cleanly.
void catch_interrupts();
bool interrupted();

// Whether standard error is a terminal (a console on Windows): where a progress bar that redraws
// its line with '\r' may be drawn.
bool stderr_is_terminal();

// Pins the calling thread to some CPUs (those of them this process may use) for the binding's
// lifetime, then puts its old CPU set back. Linux: sched_setaffinity; Windows: the thread's
// affinity mask within processor group 0; elsewhere bind() says it is not implemented.
class ThreadCpuBinding {
 public:
  ThreadCpuBinding();
  ThreadCpuBinding(const ThreadCpuBinding&) = delete;
  ThreadCpuBinding& operator=(const ThreadCpuBinding&) = delete;
  ~ThreadCpuBinding();
  // false with *why when the thread stays where it was (none of `cpus` is allowed here, the call
  // failed); *allowed = how many of `cpus` it now runs on.
  bool bind(const std::vector<int>& cpus, int* allowed, std::string* why);

 private:
  struct Saved;
  Saved* saved_ = nullptr;  // the old CPU set while bound
};

// A new empty folder, only this user may enter (gpuready-<tag>-XXXXXX: mkdtemp's mode 0700 on
// POSIX; on Windows inside the user's own temporary folder), under `parent` when given, else the
// system's temporary folder (TMPDIR / GetTempPath; a relative TMPDIR is ignored). nullopt with
// *error set when it cannot be made or `parent` is not absolute.
std::optional<std::string> make_temp_dir(const std::string& tag, std::string* error, const std::string& parent = {});
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

// Whether a path names one place whatever the current folder is: "/usr/lib" on POSIX;
// "C:\\Windows", "\\\\server\\share" or a path rooted on the current drive ("\\x", "/x") on
// Windows. "", ".", "lib", "..\\x" and Windows' "C:x" (the current folder of drive C) are not.
bool is_absolute_path(std::string_view path);

// A search-path list (PATH, LD_LIBRARY_PATH, PYTHONPATH, LD_PRELOAD) with every entry that names
// the current folder removed: empty entries ("a::b", a leading or trailing separator), "." and
// any relative folder. `separators` are the characters that split it (":" or ";"; LD_PRELOAD
// also splits on spaces). The kept entries stay in order, joined by the first separator.
struct CleanedPathList {
  std::string value;                 // "" when nothing absolute was left
  std::vector<std::string> dropped;  // as written: "" for an empty entry, ".", "lib" ...
  size_t kept = 0;
};
CleanedPathList clean_search_path_list(std::string_view list, std::string_view separators);
// The variables a child's loader, exec and Python search: cleaned in every child's environment.
const std::vector<std::string>& search_path_variables();

}  // namespace gpuready
