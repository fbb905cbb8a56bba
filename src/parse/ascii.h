// Small ASCII text helpers shared by the parsers and collectors: whitespace trimming,
// case-insensitive comparison and lowering, digit tests. Locale-independent on purpose
// (std::isspace/tolower follow the C locale, which a host program could change).
#pragma once

#include <string>
#include <string_view>

namespace gpuready::parse {

// ' ', '\t', '\n', '\v', '\f', '\r'.
[[nodiscard]] constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
[[nodiscard]] constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
[[nodiscard]] constexpr char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Leading and trailing ASCII whitespace removed.
std::string_view trim(std::string_view s);

// Equal when ASCII letters are folded to lower case ("Name" == "NAME").
bool iequals(std::string_view a, std::string_view b);

// ASCII letters lowered; other bytes (UTF-8 included) unchanged.
std::string ascii_lower(std::string_view s);

// Non-empty and only '0'..'9'.
bool all_digits(std::string_view s);

}  // namespace gpuready::parse
