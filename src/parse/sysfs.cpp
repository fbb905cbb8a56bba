// sysfs attribute parsers used by the PCI collector (probe/pci.cpp).
#include "parse/sysfs.h"

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

}  // namespace gpuready::parse
