// libFuzzer target for `gpuready plan --snapshot FILE` and `gpuready doctor --replay FILE`:
// any bytes as a snapshot document, then, when it is one, the plan inputs taken from it, the
// plan for each framework, and every doctor rule with the verdicts.
// Invariants, not just "no crash": a rejected document is a std::exception (the CLI's
// clear error), ok == (recommended is set), every exclusion says what and why, and the
// JSON documents always serialise; a ready report has no error finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "doctor/doctor.h"
#include "knowledge/compat.h"
#include "plan/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready;
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  Snapshot s;
  try {
    s = snapshot_from_json(doc);
  } catch (const std::exception&) {
    return 0;  // the CLI prints "<file> is not a gpuready snapshot: ..." and exits 2
  }
  const auto& k = knowledge::Compat::embedded();
  for (const char* fw : plan::kFrameworks) {
    plan::PlanInputs in = plan::inputs_from_snapshot(k, s, "snapshot", fw, nullptr);
    in.framework = fw;
    const plan::Plan p = plan::make_plan(k, in);
    if (p.ok != p.recommended.has_value()) std::abort();
    for (const auto& e : p.excluded)
      if (e.what.empty() || e.why.empty()) std::abort();
    if (p.ok && p.steps.empty()) std::abort();
    (void)plan::plan_to_json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  const doctor::Report r = doctor::diagnose(s, k, {{"tensorflow"}});
  if (r.ready)
    for (const auto& f : r.findings)
      if (f.severity == doctor::Severity::error) std::abort();
  (void)doctor::report_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
