// Console reporter for verify: what was measured, against what, and the verdict of each.
#include "report/verify_console.h"

#include <fmt/format.h>

namespace gpuready {

std::string render_verify_console(const std::vector<verify::Check>& checks,
                                  const std::vector<doctor::Finding>& findings, const Snapshot& s,
                                  const ConsoleStyle& style) {
  const Paint paint{style.color};
  std::string o;
  std::string gpu = "no NVIDIA GPU";
  if (!s.nvidia.gpus.empty() && s.nvidia.gpus.front().name.has()) gpu = s.nvidia.gpus.front().name.value();
  o += fmt::format("gpuready verify: {}{}\n\n", gpu,
                   s.nvidia.driver_version.has() ? " · driver " + s.nvidia.driver_version.value() : std::string());
  int fails = 0, warns = 0, passes = 0, skips = 0;
  for (const auto& c : checks) {
    const char* colour = c.status == verify::Status::pass   ? kGreen
                         : c.status == verify::Status::warn ? kYellow
                         : c.status == verify::Status::fail ? kRed
                                                            : kCyan;
    fails += c.status == verify::Status::fail;
    warns += c.status == verify::Status::warn;
    passes += c.status == verify::Status::pass;
    skips += c.status == verify::Status::skip;
    std::string number;
    // Counts (memory errors) as integers; a check with no number (cudnn.load) shows its one-line detail instead.
    if (c.value)
      number = c.unit == "errors" ? fmt::format("{:>9.0f} {}", *c.value, c.unit)
                                  : fmt::format("{:>9.1f} {}", *c.value, c.unit);
    if (c.value && c.limit && c.ratio && c.unit != "errors")
      number += fmt::format("  ({:.2f} of {:.1f})", *c.ratio, *c.limit);
    if (!c.value && c.status == verify::Status::pass) number = c.detail;
    o += fmt::format("  {} {:<24} {}\n", paint(colour, fmt::format("{:<4}", verify::status_name(c.status))), c.key,
                     number);
    if (c.status != verify::Status::pass && !c.detail.empty()) o += "       " + c.detail + "\n";
  }
  o += fmt::format("\n{} passed, {} warned, {} failed, {} skipped\n", passes, warns, fails, skips);
  if (!findings.empty()) o += "\n" + paint(kBold, "What this means") + "\n";
  for (const auto& f : findings) {
    o += "  " +
         paint(f.severity == doctor::Severity::error  ? kRed
               : f.severity == doctor::Severity::warn ? kYellow
                                                      : kCyan,
               f.title) +
         " [" + f.code + "]\n";
    for (const auto& e : f.evidence) o += "       seen: " + e + "\n";
    for (const auto& x : f.fix) o += "       " + x + "\n";
  }
  std::string methods;
  for (const auto& c : checks)
    if (!c.method.empty() && methods.find(c.method) == std::string::npos) methods += "  " + c.method + "\n";
  if (!methods.empty()) o += "\nhow: \n" + methods;
  return o;
}

}  // namespace gpuready
