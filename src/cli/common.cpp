// What several subcommands share: probe options for the isolated driver child, reading a
// snapshot file saved by `gpuready probe --save`, and the --framework values.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "parse/report_html.h"

namespace gpuready::cli {

ProbeOptions isolated_probe_options(const Os& os, double timeout_s) {
  ProbeOptions opts;
  opts.child_timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  if (auto self = os.proc.self_path()) opts.driver_probe_argv = {*self, "__probe-driver"};
  return opts;
}

CLI::Option* add_deep_flags(CLI::App* sub, bool* deep, double* framework_timeout_s) {
  auto* flag = sub->add_flag("--deep", *deep,
                             "Also import each framework in each Python environment and run a matrix product and a "
                             "convolution on its GPU and its CPU (one child per framework, in parallel)");
  sub->add_option("--framework-timeout", *framework_timeout_s,
                  "Seconds each framework check may take before it is stopped (default 60)")
      ->check(CLI::Range(1.0, 3600.0));
  return flag;
}

void set_deep_options(ProbeOptions& opts, bool deep, double framework_timeout_s) {
  opts.deep = deep;
  opts.framework_timeout = std::chrono::milliseconds(static_cast<long long>(framework_timeout_s * 1000));
}

std::optional<Snapshot> read_snapshot_file(const std::string& path, std::string* error) {
  // A snapshot is a few hundred KiB; 64 MiB leaves room for a verify of a big node, and refuses
  // /dev/zero or a FIFO with words instead of taking memory without end.
  std::string why;
  const auto text = read_user_file(real_os().fs, path, kMaxSnapshotBytes, &why);
  if (!text) {
    *error = "cannot read " + why;
    return std::nullopt;
  }
  std::string_view json = *text;
  if (parse::looks_like_html(json)) {
    // A page `gpuready report` wrote carries its snapshot.
    const auto inside = parse::embedded_snapshot_json(json);
    if (!inside) {
      *error = path + " is an HTML page without a gpuready snapshot in it (gpuready report writes one)";
      return std::nullopt;
    }
    json = *inside;
  }
  try {
    return snapshot_from_json(nlohmann::json::parse(json));
  } catch (const std::exception& e) {
    *error = path + " is not a gpuready snapshot: " + e.what();
    return std::nullopt;
  }
}

std::optional<Snapshot> replay_or_probe(const Os& os, const std::string& command, const std::string& replay,
                                        const std::vector<std::string>& python, double timeout_s, bool deep,
                                        double framework_timeout_s) {
  if (!replay.empty()) {
    std::string err;
    auto saved = read_snapshot_file(replay, &err);
    if (!saved) std::fprintf(stderr, "gpuready %s: %s\n", command.c_str(), err.c_str());
    return saved;
  }
  ProbeOptions opts = isolated_probe_options(os, timeout_s);
  opts.python_paths = python;
  set_deep_options(opts, deep, framework_timeout_s);
  return run_probe(os, opts);
}

bool save_snapshot_file(const std::string& path, const Snapshot& s, std::string* error) {
  // Invalid UTF-8 from a file name or a vendor string must not abort the report: replace it.
  const std::string text = snapshot_to_json(s).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) {
    if (error) *error = "cannot write the snapshot to " + path;
    return false;
  }
  return true;
}

std::string framework_flag(const std::string& value) {
  if (value == "torch") return "pytorch";
  if (value == "tf") return "tensorflow";
  return value;
}

}  // namespace gpuready::cli
