#include "parse/report_html.h"

namespace gpuready::parse {

bool looks_like_html(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const size_t at = text.find_first_not_of(" \t\r\n");
  return at != std::string_view::npos && text[at] == '<';
}

std::optional<std::string_view> embedded_snapshot_json(std::string_view page) {
  // The block's opening tag as gpuready writes it; the id is what identifies it.
  constexpr std::string_view kId = "id=\"gpuready-snapshot\"";
  const size_t id = page.find(kId);
  if (id == std::string_view::npos) return std::nullopt;
  const size_t open = page.rfind("<script", id);
  const size_t gt = page.find('>', id + kId.size());
  if (open == std::string_view::npos || gt == std::string_view::npos) return std::nullopt;
  // The tag must be the <script> element that holds the id (no other tag between them).
  if (page.substr(open, id - open).find('>') != std::string_view::npos) return std::nullopt;
  const size_t close = page.find("</script", gt + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return page.substr(gt + 1, close - gt - 1);
}

}  // namespace gpuready::parse
