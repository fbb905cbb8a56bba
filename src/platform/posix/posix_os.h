// The POSIX implementations of the OS seams (declared in platform/os.h).
#pragma once

#include "platform/os.h"

namespace gpuready {

class PosixFs final : public Fs {
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

class PosixEnv final : public Env {
 public:
  std::optional<std::string> get(const std::string& name) const override;
  std::map<std::string, std::string> all() const override;
};

class PosixProc final : public Proc {
 public:
  ProcResult run(const std::vector<std::string>& argv, const ProcOptions& options) const override;
  std::optional<std::string> self_path() const override;
};

class PosixDynLib final : public DynLib {
 public:
  Handle open(const std::string& name_or_path, std::string* error) const override;
  void* symbol(Handle h, const std::string& name) const override;
  std::optional<std::string> path_of(Handle h, void* any_symbol) const override;
  void close(Handle h) const override;
  std::vector<std::string> loaded_files() const override;
};

}  // namespace gpuready
