// The snapshot inside a page `gpuready report` wrote (report/html_report.h): the text of its
// <script type="application/json" id="gpuready-snapshot"> block, so `doctor --replay` and `plan --snapshot` read
// the page as they read a saved snapshot. Pure; fuzzed (fuzz/report_html_fuzz.cpp).
#pragma once

#include <optional>
#include <string_view>

namespace gpuready::parse {

// Does the text look like an HTML page (after a byte-order mark and white space, '<')? A snapshot saved as JSON
// starts with '{'.
bool looks_like_html(std::string_view text);

// The JSON text of the page's snapshot block, or nullopt when the page has none (or it is not closed).
std::optional<std::string_view> embedded_snapshot_json(std::string_view page);

}  // namespace gpuready::parse
