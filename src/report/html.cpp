#include "report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuready::html {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// Numbers in the SVG: short and locale-free.
std::string num(double v) { return fmt::format("{:.1f}", v); }

}  // namespace

std::string escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + s.size() / 8);
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': o += "&amp;"; ++i; continue;
      case '<': o += "&lt;"; ++i; continue;
      case '>': o += "&gt;"; ++i; continue;
      case '"': o += "&quot;"; ++i; continue;
      case '\'': o += "&#39;"; ++i; continue;
      default: break;
    }
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
      o += kReplacement;
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      o += kReplacement;
      ++i;
      continue;
    }
    o.append(s.substr(i, n));
    i += n;
  }
  return o;
}

std::string script_json(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string o;
  o.reserve(text.size() + 64);
  for (char c : text) {
    switch (c) {
      case '<': o += "\\u003c"; break;
      case '>': o += "\\u003e"; break;
      case '&': o += "\\u0026"; break;
      default: o += c;
    }
  }
  return o;
}

std::string svg_bar_chart(const BarChart& c) {
  // Layout in viewBox units: a label column, the bars, the value text under each bar.
  constexpr double kWidth = 640, kLabel = 200, kBarArea = 400, kRow = 34, kBarHeight = 14, kTop = 8;
  double scale = 0;
  for (const auto& b : c.bars) scale = std::max({scale, b.value, b.limit});
  if (!(scale > 0) || !std::isfinite(scale)) scale = 1;
  const double height = kTop + kRow * static_cast<double>(c.bars.size()) + 4;
  std::string o = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\"><title>{}</title>",
      num(kWidth), num(height), escape(c.title), escape(c.title));
  for (size_t i = 0; i < c.bars.size(); ++i) {
    const Bar& b = c.bars[i];
    const double y = kTop + kRow * static_cast<double>(i);
    const double value = std::isfinite(b.value) ? std::clamp(b.value, 0.0, scale) : 0.0;
    const double w = kBarArea * value / scale;
    const std::string cls = b.status.empty() ? "bar" : "bar " + escape(b.status);
    o += fmt::format("<text class=\"label\" x=\"0\" y=\"{}\">{}</text>", num(y + kBarHeight - 3), escape(b.label));
    o += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>", cls,
                     num(kLabel), num(y), num(w), num(kBarHeight), escape(b.label + ": " + b.value_text));
    if (b.limit > 0 && std::isfinite(b.limit)) {
      const double x = kLabel + kBarArea * std::min(b.limit, scale) / scale;
      o += fmt::format("<line class=\"limit\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(x), num(y - 3), num(x),
                       num(y + kBarHeight + 3));
    }
    o += fmt::format("<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>", num(kLabel), num(y + kBarHeight + 13),
                     escape(b.value_text));
  }
  o += "</svg>";
  return o;
}

}  // namespace gpuready::html
