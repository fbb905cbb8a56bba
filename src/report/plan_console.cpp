// Console reporter for a Plan: what it was planned for, the recommended stack, the
// alternatives, what was excluded and why, the changes that would help, then the numbered
// install steps. Nothing is decided here.
#include "report/plan_console.h"

#include <fmt/format.h>

namespace gpuready {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// "tensorflow-gpu 2.10.0"
std::string name(const plan::Stack& s) {
  std::string n = s.package + " " + s.framework_version;
  if (!s.variant.empty()) n += " (" + s.variant + ")";
  return n;
}

// "CUDA 11.2 · cuDNN 8.1 · Python 3.8 (3.7-3.10) · driver >= 452.39"
std::string facts(const plan::Stack& s) {
  std::vector<std::string> f;
  if (!s.cuda.empty()) f.push_back("CUDA " + s.cuda);
  if (!s.cudnn.empty()) f.push_back("cuDNN " + s.cudnn);
  f.push_back("Python " + s.python + (s.python_range.empty() ? "" : " (" + s.python_range + ")"));
  if (!s.min_driver.empty()) f.push_back("driver >= " + s.min_driver);
  if (!s.numpy.empty()) f.push_back("numpy" + s.numpy);
  return join(f, " · ");
}

std::string input(const plan::PlanInputs& in, const char* field, const std::string& value) {
  auto it = in.source.find(field);
  return it == in.source.end() ? value : value + " [" + it->second + "]";
}

}  // namespace

std::string render_plan_console(const plan::Plan& p) {
  const plan::PlanInputs& in = p.inputs;
  std::string o;
  std::vector<std::string> what;
  what.push_back(input(in, "framework", in.framework.value_or("?")));
  what.push_back(input(in, "os", "OS " + in.os.value_or("unknown")));
  std::string gpu = in.gpu.value_or(in.cc ? std::string("GPU") : std::string("GPU unknown"));
  if (in.cc) gpu += fmt::format(" (cc {}.{})", in.cc->major(), in.cc->minor());
  what.push_back(input(in, in.source.count("gpu") ? "gpu" : "cc", gpu));
  what.push_back(input(in, "driver", "driver " + (in.driver ? in.driver->str() : std::string("unknown"))));
  what.push_back(input(in, "python", "Python " + (in.python ? fmt::format("{}.{}", in.python->major(), in.python->minor())
                                                          : std::string("unknown"))));
  if (in.framework_version) what.push_back(input(in, "framework_version", "pinned " + *in.framework_version));
  if (in.cuda) what.push_back(input(in, "cuda", "CUDA pinned " + in.cuda->str()));
  o += "Plan for " + join(what, " · ") + "\n\n";

  if (p.recommended) {
    const auto& r = *p.recommended;
    o += fmt::format("Recommended: {}\n  {}\n", name(r), facts(r));
    o += fmt::format("  {}; {}\n", r.bundles_cuda ? "CUDA and cuDNN come with the wheels" : "CUDA and cuDNN installed separately",
                     r.support == "driver unknown" ? "driver not known" : "driver support: " + r.support);
    for (const auto& n : r.notes) o += "  note: " + n + "\n";
  } else {
    o += "Nothing fits (ok: false).\n";
  }
  if (!p.alternatives.empty()) {
    o += "\nAlternatives\n";
    for (const auto& a : p.alternatives) o += fmt::format("  {:<30} {}  ({})\n", name(a), facts(a), a.why);
  }
  if (!p.changes.empty()) {
    o += p.ok ? "\nWhat a change would give\n" : "\nWhat to change\n";
    for (const auto& c : p.changes)
      o += fmt::format("  {}{}\n", join(c.changes, " and "),
                       c.gives ? fmt::format(": {} ({})", name(*c.gives), facts(*c.gives)) : std::string());
  }
  if (!p.excluded.empty()) {
    o += "\nExcluded\n";
    for (const auto& e : p.excluded) o += fmt::format("  {:<30} {}\n", e.what, e.why);
  }
  if (!p.steps.empty()) {
    o += "\nInstall\n";
    int i = 0;
    for (const auto& s : p.steps) {
      o += fmt::format("  {}. {}\n", ++i, s.title);
      for (const auto& c : s.commands) o += "       " + c + "\n";
    }
  }
  if (!p.notes.empty()) {
    o += "\nNotes\n";
    for (const auto& n : p.notes) o += "  - " + n + "\n";
  }
  return o;
}

}  // namespace gpuready
