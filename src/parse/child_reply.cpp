#include "parse/child_reply.h"

#include "parse/json_nesting.h"

namespace gpuready::parse {

std::optional<nlohmann::json> child_reply(std::string_view out, int max_depth) {
  std::size_t end = out.size();
  while (end > 0) {
    const std::size_t nl = out.rfind('\n', end - 1);
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    std::string_view line = out.substr(begin, end - begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!line.empty() && line.front() == '{' && line.back() == '}' && json_nesting_ok(line, max_depth)) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.is_object()) return j;
    }
    if (nl == std::string_view::npos) break;
    end = nl;
  }
  return std::nullopt;
}

}  // namespace gpuready::parse
