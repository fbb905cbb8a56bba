// `gpuready report`: the doctor's answer and the facts behind it as one self-contained HTML page (docs/report.md).
// Nothing on the page is loaded from anywhere (its Content-Security-Policy forbids every load; charts are inline SVG
// drawn by report/html.h); every string from the machine is escaped; the snapshot is embedded as JSON
// (<script type="application/json" id="gpuready-snapshot">), so `gpuready doctor --replay page.html` diagnoses the
// machine the page describes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/snapshot.h"
#include "doctor/doctor.h"

namespace gpuready {

// The page. `when` is the time it was made (ISO 8601, UTC); `bench`, when given, is `gpuready bench --json`'s report
// (schema gpuready.bench/1): drawn (epoch times, images per second, the speedup or why there is none) and embedded
// as <script type="application/json" id="gpuready-bench">.
std::string render_html_report(const doctor::Report& r, const Snapshot& s, const std::string& when,
                               const nlohmann::json* bench = nullptr);

// The default file name: "gpuready-report-<host>-<YYYY-MM-DD>.html", the host name reduced to letters, digits, '-'
// and '_' (a name from the machine must not make a path): "gpuready-report-h200-node-2026-12-07.html".
std::string default_report_name(const Snapshot& s, const std::string& when);

}  // namespace gpuready
