// `gpuready --version`: which gpuready this is (version, commit, build day), how fresh its knowledge
// tables are, and which optional parts this build has and whether this installation finds them.
#include <fmt/format.h>

#include "cli/build_info.h"
#include "explain/pattern.h"
#include "knowledge/compat.h"
#include "platform/module_loader.h"
#include "platform/os.h"
#include "train/bench.h"
#include "verify/gpu_checks.h"

namespace gpuready::cli {
namespace {

// Where an optional module is: the file the loader would load (find_module_file), or where it looked.
std::string module_state(const Os& os, const std::vector<std::string>& candidates) {
  std::string tried;
  const std::string file = find_module_file(os, candidates, &tried);
  return file.empty() ? "not found (looked at " + tried + ")" : file;
}

}  // namespace

std::string version_text() {
  const BuildInfo& b = build_info();
  std::string out = fmt::format("gpuready {}\ncommit {}, built {}\n", b.version, b.commit, b.date);
  // The knowledge tables: the newest release of each component they know, and the latest date read.
  const auto& k = knowledge::Compat::embedded();
  std::string newest_date, known;
  for (const auto& f : k.freshness) {
    if (f.date > newest_date) newest_date = f.date;
    known += fmt::format("{}{} {}", known.empty() ? "" : ", ", f.component, f.newest.str());
  }
  out += fmt::format("knowledge tables: as of {} ({})\n", newest_date.empty() ? "an unknown date" : newest_date, known);
  [[maybe_unused]] const Os& os = real_os();
  out += "optional parts:\n";
#if defined(GPUREADY_BUILT_CUDA_MODULE)
  out += fmt::format("  CUDA module (verify's GPU checks, bench's GPU engine): built; {}\n",
                     module_state(os, verify::module_candidates(os)));
#else
  out += "  CUDA module (verify's GPU checks, bench's GPU engine): not in this build\n";
#endif
#if defined(GPUREADY_BUILT_CPU_ENGINE)
  out += fmt::format("  CPU engine (bench --device cpu, oneDNN): built; {}\n",
                     module_state(os, train::engine_candidates(os, "cpu")));
#else
  out += "  CPU engine (bench --device cpu, oneDNN): not in this build\n";
#endif
  out += fmt::format("  explain's matcher: {}", explain::Pattern::engine());
  return out;
}

}  // namespace gpuready::cli
