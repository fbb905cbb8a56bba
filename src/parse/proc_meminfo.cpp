// /proc/meminfo parser: "Key:   <number> [kB]" lines; anything else is skipped.
#include "parse/proc_meminfo.h"

#include <charconv>
#include <limits>

#include "parse/ascii.h"

namespace gpuready::parse {

std::map<std::string, std::uint64_t> proc_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 64) continue;
    const std::string_view key = line.substr(0, colon);
    if (key.find_first_of(" \t") != std::string_view::npos) continue;
    std::string_view rest = trim(line.substr(colon + 1));
    std::uint64_t n = 0;
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec != std::errc() || ptr == rest.data()) continue;
    const std::string_view unit = trim(rest.substr(static_cast<size_t>(ptr - rest.data())));
    if (unit == "kB") {
      if (n > std::numeric_limits<std::uint64_t>::max() / 1024) continue;
      n *= 1024;
    } else if (!unit.empty()) {
      continue;  // a unit we do not know: better no value than a wrong one
    }
    out[std::string(key)] = n;
  }
  return out;
}

}  // namespace gpuready::parse
