#include "platform/module_loader.h"

namespace gpuready {

std::string find_module_file(const Os& os, const std::vector<std::string>& candidates, std::string* tried) {
  for (const auto& c : candidates) {
    if (!is_absolute_path(c)) {  // "gpuready-cuda.so" or "./x.so" would name the current folder
      *tried += (tried->empty() ? "" : ", ") + c + " (ignored: not an absolute path)";
      continue;
    }
    if (os.fs.exists(c)) return c;
    *tried += (tried->empty() ? "" : ", ") + c;
  }
  return {};
}

LoadedModule load_module(const Os& os, const std::vector<std::string>& candidates, const ModuleSymbols& symbols,
                         int expected_abi, const std::string& file_name) {
  LoadedModule m;
  std::string tried;
  const std::string c = find_module_file(os, candidates, &tried);
  if (c.empty()) {
    m.why = file_name + " is not installed (looked at " + (tried.empty() ? std::string("nowhere") : tried) + ")";
    return m;
  }
  m.path = c;
  std::string err;
  const DynLib::Handle h = os.dl.open(c, &err);
  if (!h) {
    m.problem = ModuleProblem::not_loaded;
    m.why = c + " did not load: " + err;
    return m;
  }
  m.abi = os.dl.symbol(h, symbols.abi);
  m.run = os.dl.symbol(h, symbols.run);
  m.release = os.dl.symbol(h, symbols.release);
  if (!m.abi || !m.run || !m.release) {
    m.problem = ModuleProblem::lacks_entry_points;
    m.why = c + " lacks " + symbols.run;
    return m;
  }
  const int v = reinterpret_cast<int (*)()>(m.abi)();
  if (v != expected_abi) {
    m.problem = ModuleProblem::wrong_abi;
    m.why = c + " speaks ABI " + std::to_string(v) + ", this gpuready ABI " + std::to_string(expected_abi) +
            ": rebuild them together";
    return m;
  }
  m.problem = ModuleProblem::none;
  return m;  // stays loaded until the process ends
}

}  // namespace gpuready
