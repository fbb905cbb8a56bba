// Test doubles for the OS seams (see test_os.h).
#include "support/test_os.h"

#include <filesystem>
#include <sstream>

#include "platform/posix/posix_os.h"

namespace fs = std::filesystem;

namespace gpuready::test {

std::string fixture(const std::string& relative) { return std::string(GPUREADY_FIXTURES) + "/" + relative; }

RootedFs::RootedFs(std::string root) : root_(std::move(root)) {}

std::string RootedFs::real(const std::string& path) const {
  std::string p = path;
  // "C:\\Program Files\\X" -> "/C/Program Files/X": Windows layouts live under <root>/C/...
  if (p.size() >= 2 && p[1] == ':') p = "/" + std::string(1, p[0]) + p.substr(2);
  for (char& c : p)
    if (c == '\\') c = '/';
  if (p.empty() || p[0] != '/') p = "/" + p;
  return root_ + p;
}

static const PosixFs& host_fs() {
  static const PosixFs f;
  return f;
}

std::optional<std::string> RootedFs::read_file(const std::string& path, size_t max_bytes, std::string* error) const {
  auto r = host_fs().read_file(real(path), max_bytes, error);
  if (!r && error) *error = path + error->substr(error->find(':'));
  return r;
}

std::optional<std::string> RootedFs::read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                                  std::string* error) const {
  auto r = host_fs().read_file_at(real(path), offset, max_bytes, error);
  if (!r && error) *error = path + error->substr(error->find(':'));
  return r;
}

std::optional<std::vector<DirEntry>> RootedFs::list_dir(const std::string& path, std::string* error) const {
  auto r = host_fs().list_dir(real(path), error);
  if (!r && error) *error = path + error->substr(error->find(':'));
  return r;
}

bool RootedFs::exists(const std::string& path) const { return host_fs().exists(real(path)); }
bool RootedFs::is_dir(const std::string& path) const { return host_fs().is_dir(real(path)); }

std::optional<std::string> RootedFs::read_link(const std::string& path) const {
  return host_fs().read_link(real(path));
}

std::optional<std::string> RootedFs::canonical(const std::string& path) const {
  auto r = host_fs().canonical(real(path));
  if (!r) return std::nullopt;
  auto root = host_fs().canonical(root_);
  if (root && r->rfind(*root, 0) == 0) {
    std::string inside = r->substr(root->size());
    return inside.empty() ? std::string("/") : inside;
  }
  return r;
}

std::optional<std::string> MapEnv::get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

ProcResult ScriptedProc::run(const std::vector<std::string>& argv, const ProcOptions& options) const {
  {
    std::lock_guard<std::mutex> lock(calls_mutex_);
    calls.push_back(argv);
  }
  if (!handler_) {
    ProcResult r;
    r.error = argv.empty() ? "no program" : argv[0] + ": No such file or directory";
    return r;
  }
  return handler_(argv, options);
}

FixtureOs::FixtureOs(const std::string& fixture_tree, std::map<std::string, std::string> env,
                     ScriptedProc::Handler handler)
    : fs(fixture(fixture_tree)), env(std::move(env)), proc(std::move(handler)) {}

int nvidia_smi_gpus(std::string* why) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(30);
  const ProcResult r = real_os().proc.run({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, o);
  if (!r.ok()) {
    *why = "nvidia-smi did not answer: " + (r.error.empty() ? r.err : r.error);
    return 0;
  }
  int n = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) ++n;
  if (n == 0) *why = "nvidia-smi listed no GPU";
  return n;
}

}  // namespace gpuready::test
