// os-release(5) parser: KEY=value, values optionally in "double" (with \" \\ \$ \` escapes)
// or 'single' quotes. Anything malformed is skipped, never thrown.
#include "parse/os_release.h"

#include "parse/ascii.h"
#include "parse/clean_text.h"

#include <cctype>

namespace gpuready::parse {
namespace {

// Shell variable names: the spec uses upper case, but the shell (and so a distribution's
// scripts) accepts any letter.
bool is_key_char(char c, bool first) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x80 && std::isalpha(u)) || c == '_' || (!first && u < 0x80 && std::isdigit(u));
}

// Unquotes one value; nullopt-like empty + false when the quoting is broken (unterminated).
bool unquote(std::string_view v, std::string& out) {
  out.clear();
  if (v.empty()) return true;
  const char q = v.front();
  if (q != '"' && q != '\'') {
    // Unquoted: the spec allows no spaces; we keep the text as written (trimmed).
    out.assign(v);
    return true;
  }
  for (size_t i = 1; i < v.size(); ++i) {
    const char c = v[i];
    if (c == q) return trim(v.substr(i + 1)).empty();  // text after the closing quote: malformed
    if (q == '"' && c == '\\' && i + 1 < v.size()) {
      const char n = v[i + 1];
      if (n == '"' || n == '\\' || n == '$' || n == '`') {
        out.push_back(n);
        ++i;
        continue;
      }
    }
    out.push_back(c);
  }
  return false;  // no closing quote
}

}  // namespace

std::map<std::string, std::string> os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.empty() || line.front() == '#') continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const std::string_view key = line.substr(0, eq);
    bool ok = true;
    for (size_t i = 0; i < key.size() && ok; ++i) ok = is_key_char(key[i], i == 0);
    if (!ok) continue;
    std::string value;
    if (!unquote(trim(line.substr(eq + 1)), value)) continue;
    out[std::string(key)] = clean_text(value, 512);
  }
  return out;
}

}  // namespace gpuready::parse
