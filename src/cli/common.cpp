// What several subcommands share: probe options for the isolated driver child, reading a
// snapshot file saved by `gpuready probe --save`, and the --framework values.
#include <fstream>
#include <sstream>

#include "cli/commands.h"

namespace gpuready::cli {

ProbeOptions isolated_probe_options(const Os& os, double timeout_s) {
  ProbeOptions opts;
  opts.child_timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  if (auto self = os.proc.self_path()) opts.driver_probe_argv = {*self, "__probe-driver"};
  return opts;
}

std::optional<Snapshot> read_snapshot_file(const std::string& path, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot read " + path;
    return std::nullopt;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    return snapshot_from_json(nlohmann::json::parse(ss.str()));
  } catch (const std::exception& e) {
    *error = path + " is not a gpuready snapshot: " + e.what();
    return std::nullopt;
  }
}

std::string framework_flag(const std::string& value) {
  if (value == "torch") return "pytorch";
  if (value == "tf") return "tensorflow";
  return value;
}

}  // namespace gpuready::cli
