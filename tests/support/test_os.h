// Test doubles for the OS seams: a file system rooted at a fixture folder (so a
// collector reading "/usr/local/cuda/version.json" reads tests/fixtures/<tree>/usr/local/cuda/version.json),
// an environment from a map, and scripted child processes.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "platform/os.h"

namespace gpuready::test {

// Absolute path of a fixture folder: GPUREADY_FIXTURES is set by tests/CMakeLists.txt.
std::string fixture(const std::string& relative);
// A recorded snapshot of tests/fixtures/snapshots/ ("h200.json"), parsed.
Snapshot fixture_snapshot(const std::string& name);

class RootedFs final : public Fs {
 public:
  explicit RootedFs(std::string root);
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes, std::string* error) const override;
  std::optional<std::string> read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                          std::string* error) const override;
  std::optional<std::vector<DirEntry>> list_dir(const std::string& path, std::string* error) const override;
  bool exists(const std::string& path) const override;
  bool is_dir(const std::string& path) const override;
  std::optional<std::string> read_link(const std::string& path) const override;
  // Resolves links inside the fixture and returns the path as the probe sees it (root stripped).
  std::optional<std::string> canonical(const std::string& path) const override;
  std::optional<FileStat> stat(const std::string& path, std::string* error) const override;
  // Maps a probe-visible path (also a Windows one, "C:\\Program Files\\...") onto the real file.
  std::string real(const std::string& path) const;

 private:
  std::string root_;
};

class MapEnv final : public Env {
 public:
  MapEnv() = default;
  explicit MapEnv(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}
  std::optional<std::string> get(const std::string& name) const override;
  std::map<std::string, std::string> all() const override { return vars_; }
  std::map<std::string, std::string>& vars() { return vars_; }

 private:
  std::map<std::string, std::string> vars_;
};

// Answers run() from a function; records every argv it was given.
class ScriptedProc final : public Proc {
 public:
  using Handler = std::function<ProcResult(const std::vector<std::string>& argv, const ProcOptions& options)>;
  explicit ScriptedProc(Handler h) : handler_(std::move(h)) {}
  ProcResult run(const std::vector<std::string>& argv, const ProcOptions& options) const override;
  std::optional<std::string> self_path() const override { return self; }
  std::string self = "/usr/bin/gpuready";  // where "gpuready" runs from (a venv's bin/ in the wheel's tests)
  mutable std::vector<std::vector<std::string>> calls;

 private:
  Handler handler_;
  mutable std::mutex calls_mutex_;  // collectors run children from several threads (Python interpreters)
};

// A loader that finds nothing (for collectors that must cope without any library).
class NoDynLib final : public DynLib {
 public:
  Handle open(const std::string& name, std::string* error) const override {
    if (error) *error = name + ": cannot open shared object file: No such file or directory";
    return {};
  }
  void* symbol(Handle, const std::string&) const override { return nullptr; }
  std::optional<std::string> path_of(Handle, void*) const override { return std::nullopt; }
  void close(Handle) const override {}
};

// A registry from a map: key (any case, HKLM or HKEY_LOCAL_MACHINE) -> value name -> value.
// Subkeys are the keys one level below, in the order they were added.
class MapRegistry final : public Registry {
 public:
  std::optional<RegistryValue> value(const std::string& key, const std::string& name,
                                     std::string* error) const override;
  std::optional<std::vector<std::string>> subkeys(const std::string& key, std::string* error) const override;
  // Adds (or replaces) one value; creates the key and its parents.
  void set(const std::string& key, const std::string& name, RegistryValue v);
  void set_text(const std::string& key, const std::string& name, const std::string& text);
  void set_number(const std::string& key, const std::string& name, std::uint64_t n);
  // Loads a regedit export ("Windows Registry Editor Version 5.00" or REGEDIT4; UTF-16LE with a
  // byte-order mark, as regedit writes it, or UTF-8): [keys], "name"="string", @= for the
  // default value, dword:, hex(b): (QWORD), hex(7): (multi-string), hex(2): (expandable) and
  // hex: (binary), with '\' line continuations. False with *error at the first line it cannot read.
  bool load_reg_file(const std::string& text, std::string* error);
  bool empty() const { return keys_.empty(); }

 private:
  static std::string canon(const std::string& key);
  std::map<std::string, std::map<std::string, RegistryValue>> keys_;  // canon key -> lower name -> value
  std::map<std::string, std::vector<std::string>> children_;          // canon key -> subkey names
};

// A whole fake OS over a fixture tree. A file named registry.reg at the tree's root is its
// registry (a regedit export); without one the registry is empty.
struct FixtureOs {
  explicit FixtureOs(const std::string& fixture_tree, std::map<std::string, std::string> env = {},
                     ScriptedProc::Handler proc = nullptr);
  RootedFs fs;
  MapEnv env;
  ScriptedProc proc;
  NoDynLib dl;
  MapRegistry reg;
  Os os() const { return Os{fs, env, proc, dl, reg}; }
};

// Whether this machine lets the tests make symlinks (Wine stubs CreateSymbolicLinkW; Windows needs
// Developer Mode or an elevated process); false with *why when not.
bool can_create_symlinks(std::string* why);

// The GPUs nvidia-smi lists on this machine: what the GPU tests (label gpu) skip themselves on.
// 0, with why, when it lists none or does not answer.
int nvidia_smi_gpus(std::string* why);

}  // namespace gpuready::test
