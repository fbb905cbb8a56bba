// ASCII text helpers (see ascii.h).
#include "parse/ascii.h"

#include <cstdint>
#include <cstring>

namespace gpuready::parse {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  return true;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  // Eight bytes at a time (every line of a pasted log goes through here): a byte's high bit after
  // adding 0x3f says ">= 'A'", after adding 0x25 "> 'Z'" (on its low seven bits, so no carry
  // crosses into the next byte); bytes >= 0x80 (UTF-8) are left alone; 0x20 is added to the rest.
  constexpr uint64_t ones = 0x0101010101010101ULL;
  size_t i = 0;
  for (; i + 8 <= out.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, out.data() + i, 8);
    const uint64_t low7 = w & (0x7f * ones);
    const uint64_t upper = ~w & (0x80 * ones) & ((low7 + 0x3f * ones) ^ (low7 + 0x25 * ones));
    w |= upper >> 2;
    std::memcpy(out.data() + i, &w, 8);
  }
  for (; i < out.size(); ++i) out[i] = to_lower(out[i]);
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

}  // namespace gpuready::parse
