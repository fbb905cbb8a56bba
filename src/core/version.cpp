// Version parsing and ordering.
#include "core/version.h"

#include <algorithm>
#include <cctype>

namespace gpuready {

std::optional<Version> Version::parse(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && (text[i] == 'v' || text[i] == 'V')) ++i;
  if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
  Version v;
  v.parts.reserve(4);  // "12.4.1", "580.65.06": one allocation each, not a regrowth per part
  v.widths.reserve(4);
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    long n = 0;
    size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (digits < 12) n = n * 10 + (text[i] - '0');
      ++digits;
      ++i;
    }
    if (digits > 12) return std::nullopt;  // not a version, a very long number
    v.parts.push_back(n);
    v.widths.push_back(static_cast<int>(digits));
    if (i + 1 < text.size() && text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
      continue;
    }
    break;
  }
  if (v.parts.empty()) return std::nullopt;
  size_t end = i;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  v.suffix = std::string(text.substr(i, end - i));
  return v;
}

Version Version::from_cuda_int(long v) {
  Version out;
  out.parts = {v / 1000, (v % 1000) / 10};
  return out;
}

std::string Version::str() const {
  std::string s;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) s += '.';
    std::string n = std::to_string(parts[k]);
    if (k < widths.size() && n.size() < static_cast<size_t>(widths[k])) n.insert(0, widths[k] - n.size(), '0');
    s += n;
  }
  return s + suffix;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  const size_t n = std::max(a.parts.size(), b.parts.size());
  for (size_t k = 0; k < n; ++k) {
    const long x = k < a.parts.size() ? a.parts[k] : 0;
    const long y = k < b.parts.size() ? b.parts[k] : 0;
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

}  // namespace gpuready
