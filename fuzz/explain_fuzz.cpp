// libFuzzer target for `gpuready explain`: any bytes as a pasted error (the log splitter, the
// signatures, the code, number, message and library-name decoders, the environment-report reader
// and the doctor's rules on what it read). Invariants: every match
// names a code with a title and a cause, exactly one failure is the root cause and comes first,
// harmless matches come last, and the JSON document always serialises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "doctor/explain.h"
#include "doctor/pasted_env.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto matches = doctor::explain_paste(doctor::Explainer::embedded(), knowledge::Compat::embedded(), text, nullptr);
  bool harmless_seen = false;
  int roots = 0;
  for (size_t i = 0; i < matches.size(); ++i) {
    const auto& m = matches[i];
    if (m.code.empty() || m.title.empty() || m.cause.empty() || m.count == 0) std::abort();
    if (harmless_seen && !m.harmless) std::abort();
    harmless_seen = harmless_seen || m.harmless;
    if (m.root_cause && (i != 0 || m.harmless)) std::abort();  // the root cause is first, and a failure
    roots += m.root_cause ? 1 : 0;
  }
  if (roots > 1 || (!matches.empty() && !matches.front().harmless && roots != 1)) std::abort();
  (void)doctor::explain_to_json(matches).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
