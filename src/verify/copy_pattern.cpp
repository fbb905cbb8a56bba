// The copies' pure parts (declared in copy.h): the keys in the order they run, the pattern every
// source buffer holds and the comparison that finds the first byte a copy got wrong.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "verify/copy.h"

namespace gpuready::verify {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<std::string> copy_keys() {
  return {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "bidir_h2d_pinned", "bidir_d2h_pinned", "d2d"};
}

// Each 8-byte word holds splitmix64(seed + word index): every word differs from its neighbours, so a
// copy shifted by any number of bytes, cut short or repeated from the wrong place does not match.
void fill_pattern(std::span<std::uint8_t> buf, std::uint64_t seed) {
  const size_t words = buf.size() / 8;
  std::uint8_t* p = buf.data();
  for (size_t w = 0; w < words; ++w) {
    const std::uint64_t v = splitmix64(seed + w);
    std::memcpy(p + w * 8, &v, 8);
  }
  const std::uint64_t last = splitmix64(seed + words);
  for (size_t i = words * 8; i < buf.size(); ++i) buf[i] = static_cast<std::uint8_t>(last >> ((i % 8) * 8));
}

std::optional<Mismatch> first_mismatch(std::span<const std::uint8_t> expected, std::span<const std::uint8_t> got) {
  constexpr size_t kChunk = 64 * 1024;
  const size_t n = std::min(expected.size(), got.size());
  for (size_t at = 0; at < n; at += kChunk) {
    const size_t len = std::min(kChunk, n - at);
    if (std::memcmp(expected.data() + at, got.data() + at, len) == 0) continue;
    for (size_t i = at; i < at + len; ++i)
      if (expected[i] != got[i]) return Mismatch{i, expected[i], got[i]};
  }
  if (got.size() < expected.size()) return Mismatch{got.size(), expected[got.size()], -1};
  return std::nullopt;
}

std::string mismatch_detail(const Mismatch& m, std::uint64_t expected_size) {
  if (m.got < 0)
    return fmt::format("offset {}: expected 0x{:02x}, got nothing (the copy is {} bytes short)", m.offset, m.expected,
                       expected_size > m.offset ? expected_size - m.offset : 0);
  return fmt::format("offset {}: expected 0x{:02x}, got 0x{:02x}", m.offset, m.expected, m.got);
}

}  // namespace gpuready::verify
