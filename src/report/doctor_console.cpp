// Console reporter for the doctor: short when all is well, ordered by what to do first when
// it is not. Nothing is judged here.
#include "report/doctor_console.h"

#include <fmt/format.h>

namespace gpuready {
namespace {


void finding(std::string& o, int n, const doctor::Finding& f, const Paint& paint) {
  const char* colour = f.severity == doctor::Severity::error  ? kRed
                       : f.severity == doctor::Severity::warn ? kYellow
                                                              : kCyan;
  o += fmt::format("  {} {} [{}]\n", paint(colour, std::to_string(n) + "."), f.title, f.code);
  for (const auto& e : f.evidence) o += "       seen: " + e + "\n";
  for (const auto& x : f.fix) o += "       " + x + "\n";
}

}  // namespace

std::string render_doctor_console(const doctor::Report& r, const Snapshot& s, const ConsoleStyle& style) {
  const Paint paint{style.color};
  std::string o;
  const std::string gpu = gpu_headline(s);
  const std::string osname = s.os.name.has() ? s.os.name.value() : r.os;
  const std::string driver = s.nvidia.driver_version.has() ? "driver " + s.nvidia.driver_version.value() : "no driver";
  o += fmt::format("gpuready: {} · {} · {}\n\n", osname, gpu, driver);

  o += r.ready ? paint(kGreen, "READY") : paint(kRed, "NOT READY");
  o += " for GPU deep learning\n";
  for (const auto& v : r.frameworks) {
    std::string state = v.ready ? paint(kGreen, "ready") : paint(kRed, "not ready");
    if (!v.ready && !v.blocking.empty()) {
      state += " (";
      for (size_t i = 0; i < v.blocking.size(); ++i) state += (i ? ", " : "") + v.blocking[i];
      state += ")";
    }
    o += fmt::format("  {:<11} {:<16} {}  {}\n", v.name, v.version.empty() ? "not installed" : v.version, state,
                     v.python);
    if (!v.check_summary.empty()) o += "              imported: " + v.check_summary + "\n";
  }
  if (r.frameworks.empty()) o += "  no TensorFlow, PyTorch or JAX found in the Python environments (gpuready plan)\n";

  o += "\n" + paint(kBold, "CUDA versions (three different things)") + "\n";
  o += "  the driver runs CUDA up to: " + (r.cuda.driver_newest.empty() ? std::string("unknown") : r.cuda.driver_newest) +
       "  (nvidia-smi's \"CUDA Version\")\n";
  if (r.cuda.toolkits.empty()) o += "  toolkits installed: none (frameworks' pip wheels bring their own CUDA)\n";
  for (const auto& t : r.cuda.toolkits)
    o += t.rfind("none at ", 0) == 0 ? "  toolkit named but not installed: " + t.substr(8) + "\n"
                                     : "  toolkit installed: " + t + "\n";
  for (const auto& f : r.cuda.frameworks) o += "  framework built for: " + f + "\n";

  int n = 0;
  bool todo = false, info = false;
  for (const auto& f : r.findings) {
    if (f.severity == doctor::Severity::info) {
      info = true;
      continue;
    }
    if (!todo) o += "\n" + paint(kBold, "Do this, in order") + "\n";
    todo = true;
    finding(o, ++n, f, paint);
  }
  if (info) {
    o += "\n" + paint(kBold, "Worth knowing") + "\n";
    for (const auto& f : r.findings)
      if (f.severity == doctor::Severity::info) finding(o, ++n, f, paint);
  }
  return o;
}

}  // namespace gpuready
