// libFuzzer target for `gpuready doctor --replay page.html` (parse/report_html.h) and for the page itself
// (report/html_report.h): any bytes as a page; the snapshot block found in it, read as a snapshot when it is one,
// diagnosed and written as a page again. Invariants, not just "no crash": the page written has exactly one <script
// (its data block, whatever strings the snapshot holds), and its block gives back the same snapshot; --redact's
// rewrite of the snapshot always gives a snapshot, and a second pass changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/redact.h"
#include "core/snapshot.h"
#include "doctor/doctor.h"
#include "knowledge/compat.h"
#include "parse/report_html.h"
#include "report/html_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready;
  const std::string_view page(reinterpret_cast<const char*>(data), size);
  (void)parse::looks_like_html(page);
  const auto block = parse::embedded_snapshot_json(page);
  if (!block) return 0;
  if (block->data() < page.data() || block->data() + block->size() > page.data() + page.size()) std::abort();
  const auto doc = nlohmann::json::parse(*block, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  Snapshot s;
  try {
    s = snapshot_from_json(doc);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string out = render_html_report(doctor::diagnose(s, knowledge::Compat::embedded()), s, "2026-12-07");
  size_t scripts = 0;
  for (size_t at = out.find("<script"); at != std::string::npos; at = out.find("<script", at + 1)) ++scripts;
  if (scripts != 1) std::abort();
  const auto again = parse::embedded_snapshot_json(out);
  if (!again) std::abort();
  const auto round = nlohmann::json::parse(*again, nullptr, false);
  if (round.is_discarded()) std::abort();
  const auto want = nlohmann::json::parse(
      snapshot_to_json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), nullptr, false);
  if (round != want) std::abort();
  // --redact on the same snapshot: whatever its strings, a snapshot comes out, and redacting it again changes nothing
  // (its tokens are not what it replaces).
  const Snapshot red = redact(s);
  const auto dump = [](const Snapshot& x) {
    return snapshot_to_json(x).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (dump(redact(red)) != dump(red)) std::abort();
  return 0;
}
