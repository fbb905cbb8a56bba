// The pieces `gpuready report` builds its page from: text made safe for HTML, JSON made safe inside a <script> data
// block, and bar charts drawn as inline SVG (no script, no font, nothing loaded from anywhere). Everything a machine
// or a user wrote (file names, GPU names, a framework's output) goes through escape(): a file called
// "<script>alert(1)</script>.so" is shown as those characters, never as markup.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::html {

// Text for an element's content or a double- or single-quoted attribute: & < > " ' as character references;
// bytes that are not valid UTF-8 and control characters other than tab and newline as U+FFFD.
std::string escape(std::string_view s);

// JSON text to place between <script type="application/json"> and </script>: '<', '>' and '&' written as \u003c,
// \u003e and \u0026 (inside JSON strings, the only place they can occur), so no "</script" or "<!--" can end or
// change the block; invalid UTF-8 replaced. json::parse reads it back unchanged.
std::string script_json(const nlohmann::json& j);

// One bar: its label, its value and, when the hardware has one, the limit it is judged against (drawn as a mark).
struct Bar {
  std::string label;       // "host to device, pinned"
  double value = 0;        // >= 0
  double limit = 0;        // 0: none
  std::string value_text;  // "52.1 GB/s (0.91 of the link)"
  std::string status;      // "pass" | "warn" | "fail" | "": the bar's colour class
};

struct BarChart {
  std::string title;  // what the chart shows ("Copies against the link")
  std::string unit;   // "GB/s"
  std::vector<Bar> bars;
};

// A horizontal bar chart as one <svg> element (role="img", its title and every bar's text inside it): one
// <rect class="bar ..."> per bar, scaled to the largest value or limit, a line per limit, the values as text.
// Sizes in the viewBox, so it scales to the page; colours from the page's CSS (light and dark).
std::string svg_bar_chart(const BarChart& c);

}  // namespace gpuready::html
