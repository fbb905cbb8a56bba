// libFuzzer target for `gpuready explain`: any bytes as a pasted error. Invariants: every
// match names a known code with a title and a cause, harmless matches come last, and the
// JSON document always serialises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "doctor/explain.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto matches = doctor::Explainer::embedded().explain(text);
  bool harmless_seen = false;
  for (const auto& m : matches) {
    if (m.code.empty() || m.title.empty() || m.cause.empty()) std::abort();
    if (harmless_seen && !m.harmless) std::abort();
    harmless_seen = harmless_seen || m.harmless;
  }
  (void)doctor::explain_to_json(matches).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
