// libFuzzer target for the small text parsers that have no fuzzer of their own:
// Version::parse (every version string gpuready reads), pyvenv.cfg, torch/version.py and
// clean_text. Checks invariants, not just "no crash": a parsed version prints back to a
// string that parses to an equal version, and clean_text always yields valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/version.h"
#include "parse/clean_text.h"
#include "parse/pyvenv_cfg.h"
#include "parse/torch_version.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto v = Version::parse(text)) {
    const auto again = Version::parse(v->str());
    if (!again || !(*again == *v)) std::abort();  // printing must not change the version
    (void)(*v <=> Version::from_cuda_int(static_cast<long>(size) * 1000));
  }
  (void)parse::pyvenv_cfg(text);
  (void)parse::python_version_prefix(text);
  (void)parse::torch_version(text);
  nlohmann::json j = parse::clean_text(text, 300);
  (void)j.dump();  // throws (aborting the fuzzer) on invalid UTF-8
  return 0;
}
