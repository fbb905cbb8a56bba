// clean_text: UTF-8 validation and control-character removal for facts read from files.
#include "parse/clean_text.h"

namespace gpuready::parse {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid
// (overlongs, surrogates and code points above U+10FFFF are rejected).
size_t utf8_len(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t n = 0;
  unsigned cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    cp = b0 & 0x0Fu;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    cp = b0 & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

}  // namespace

std::string clean_text(std::string_view raw, size_t max_bytes) {
  std::string out;
  out.reserve(raw.size() < max_bytes ? raw.size() : max_bytes);
  for (size_t i = 0; i < raw.size();) {
    const size_t n = utf8_len(raw, i);
    std::string_view piece;
    if (n == 0) {
      piece = "\xEF\xBF\xBD";  // U+FFFD
      i += 1;
    } else {
      piece = raw.substr(i, n);
      i += n;
      const auto c = static_cast<unsigned char>(piece[0]);
      if (n == 1 && (c < 0x20 || c == 0x7F)) piece = " ";
    }
    if (out.size() + piece.size() > max_bytes) break;
    out.append(piece);
  }
  const size_t b = out.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  const size_t e = out.find_last_not_of(' ');
  return out.substr(b, e - b + 1);
}

std::string_view first_line(std::string_view text) {
  const size_t nl = text.find('\n');
  std::string_view line = text.substr(0, nl);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

}  // namespace gpuready::parse
