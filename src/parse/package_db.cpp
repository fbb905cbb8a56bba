// dpkg status and nvidia-ctk output (see package_db.h).
#include "parse/package_db.h"

#include <cctype>

namespace gpuready::parse {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string> dpkg_installed_version(std::string_view status, std::string_view package) {
  std::string_view name, state, version;
  auto finish = [&]() -> std::optional<std::string> {
    if (name == package && state == "install ok installed" && !version.empty()) return std::string(version);
    name = state = version = {};
    return std::nullopt;
  };
  size_t pos = 0;
  while (pos <= status.size()) {
    size_t end = status.find('\n', pos);
    if (end == std::string_view::npos) end = status.size();
    const std::string_view line = status.substr(pos, end - pos);
    pos = end + 1;
    if (trim(line).empty()) {
      if (auto v = finish()) return v;
    } else if (line.front() != ' ' && line.front() != '\t') {
      const size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        const std::string_view key = line.substr(0, colon);
        const std::string_view value = trim(line.substr(colon + 1));
        if (key == "Package") name = value;
        else if (key == "Status") state = value;
        else if (key == "Version") version = value;
      }
    }
    if (end == status.size()) break;
  }
  return finish();
}

std::optional<std::string> nvidia_ctk_version(std::string_view output) {
  const std::string_view key = "version ";
  size_t at = 0;
  for (int lines = 0; lines < 8 && at < output.size(); ++lines) {
    size_t end = output.find('\n', at);
    if (end == std::string_view::npos) end = output.size();
    const std::string_view line = output.substr(at, end - at);
    at = end + 1;
    const size_t k = line.find(key);
    if (k == std::string_view::npos) continue;
    std::string v;
    for (size_t i = k + key.size(); i < line.size(); ++i) {
      const char c = line[i];
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && !v.empty())) v += c;
      else break;
    }
    while (!v.empty() && v.back() == '.') v.pop_back();
    if (v.find('.') != std::string::npos) return v;
  }
  return std::nullopt;
}

std::string debian_upstream_version(std::string_view version) {
  const size_t colon = version.find(':');
  if (colon != std::string_view::npos && colon < version.find('-')) version.remove_prefix(colon + 1);
  const size_t dash = version.rfind('-');
  if (dash != std::string_view::npos) version = version.substr(0, dash);
  const size_t tilde = version.find('~');
  if (tilde != std::string_view::npos) version = version.substr(0, tilde);
  return std::string(version);
}

}  // namespace gpuready::parse
