// pyvenv.cfg parser (see pyvenv_cfg.h). CPython's site.venv() reads "key = value" lines,
// splitting on the first '=', stripping both sides and lowercasing the key; we do the same.
#include "parse/pyvenv_cfg.h"

#include <cctype>

#include "parse/ascii.h"
#include "parse/clean_text.h"

namespace gpuready::parse {

std::string python_version_prefix(std::string_view text) {
  text = trim(text);
  std::string out;
  int parts = 0;
  size_t i = 0;
  while (i < text.size() && parts < 3) {
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i || j - i > 6) break;
    if (!out.empty()) out += '.';
    out.append(text.substr(i, j - i));
    ++parts;
    if (j >= text.size() || text[j] != '.') break;
    i = j + 1;
  }
  return parts >= 2 ? out : std::string();
}

PyvenvCfg pyvenv_cfg(std::string_view text) {
  PyvenvCfg c;
  size_t pos = 0;
  int lines = 0;
  while (pos < text.size() && lines++ < 200) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(trim(line.substr(0, eq)));
    if (key.empty() || key[0] == '#') continue;
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.values[clean_text(key, 100)] = clean_text(trim(line.substr(eq + 1)), 1024);
  }
  auto get = [&](const char* k) -> std::string {
    auto it = c.values.find(k);
    return it == c.values.end() ? std::string() : it->second;
  };
  c.home = get("home");
  c.executable = get("executable");
  c.version = python_version_prefix(get("version"));
  if (c.version.empty()) c.version = python_version_prefix(get("version_info"));
  const std::string inc = get("include-system-site-packages");
  if (!inc.empty()) {
    std::string lower;
    for (char ch : inc) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.include_system_site_packages = lower == "true";
  }
  return c;
}

}  // namespace gpuready::parse
