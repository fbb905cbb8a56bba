// sysfs attribute parsers used by the PCI collector (probe/pci.cpp).
#include "parse/sysfs.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "parse/clean_text.h"

namespace gpuready::parse {
namespace {

bool all_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::optional<std::uint32_t> sysfs_hex(std::string_view text) {
  std::string_view v = first_line(text);
  if (v.size() < 3 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return std::nullopt;
  v.remove_prefix(2);
  if (!all_hex(v)) return std::nullopt;
  std::uint32_t out = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out, 16);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return out;
}

std::optional<int> sysfs_int(std::string_view text) {
  const std::string_view v = first_line(text);
  if (v.empty()) return std::nullopt;
  int out = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out, 10);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return out;
}

bool is_pci_address(std::string_view name) {
  // dddd:bb:dd.f with a domain of 4..8 hex digits.
  const size_t c1 = name.find(':');
  if (c1 == std::string_view::npos || c1 < 4 || c1 > 8) return false;
  if (name.size() != c1 + 8) return false;
  return all_hex(name.substr(0, c1)) && all_hex(name.substr(c1 + 1, 2)) && name[c1 + 3] == ':' &&
         all_hex(name.substr(c1 + 4, 2)) && name[c1 + 6] == '.' && name[c1 + 7] >= '0' && name[c1 + 7] <= '7';
}

std::optional<std::vector<int>> parse_cpu_list(const std::string& text, int max_cpu) {
  std::vector<int> cpus;
  size_t pos = 0;
  auto number = [&](int* out) {
    const size_t start = pos;
    long v = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < 9)
      v = v * 10 + (text[pos++] - '0');
    if (pos == start || (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')) return false;
    *out = static_cast<int>(v);
    return true;
  };
  auto trailing_space = [&] {
    while (pos < text.size() && (text[pos] == '\n' || text[pos] == '\r' || text[pos] == ' ')) ++pos;
    return pos == text.size();
  };
  if (trailing_space()) return cpus;  // an empty list: a node without CPUs (memory only)
  while (true) {
    int a = 0, b = 0;
    if (!number(&a)) return std::nullopt;
    b = a;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      if (!number(&b) || b < a) return std::nullopt;
    }
    if (b > max_cpu) return std::nullopt;
    for (int c = a; c <= b; ++c) cpus.push_back(c);
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (trailing_space()) break;
    return std::nullopt;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace gpuready::parse
