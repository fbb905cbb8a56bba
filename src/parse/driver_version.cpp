// Driver self-description parsers (see driver_version.h). Pure, bounded, never throw.
#include "parse/driver_version.h"

#include <cctype>

#include "parse/ascii.h"

namespace gpuready::parse {
namespace {

// A dotted numeric token such as "580.159.04" (at least one dot, digits around each dot).
bool is_dotted_version(std::string_view tok) {
  if (tok.empty() || tok.size() > 32 || !is_digit(tok.front()) || !is_digit(tok.back())) return false;
  bool dot = false;
  for (size_t i = 0; i < tok.size(); ++i) {
    if (tok[i] == '.') {
      if (!is_digit(tok[i - 1])) return false;
      dot = true;
    } else if (!is_digit(tok[i])) {
      return false;
    }
  }
  return dot;
}

}  // namespace

std::optional<NvidiaModuleVersion> nvidia_module_version(std::string_view text) {
  std::optional<NvidiaModuleVersion> out;
  std::string gcc;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.rfind("GCC version:", 0) == 0) {
      gcc = std::string(trim(line.substr(12)));
      continue;
    }
    if (out || line.rfind("NVRM version:", 0) != 0) continue;
    // The version is the first dotted token after "Kernel Module" (the architecture word
    // "x86_64" or "aarch64" is not dotted, so "Open Kernel Module for x86_64" is skipped too).
    std::string_view rest = line.substr(13);
    const size_t km = rest.find("Kernel Module");
    if (km != std::string_view::npos) rest = rest.substr(km + 13);
    size_t i = 0;
    while (i < rest.size()) {
      while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
      size_t j = i;
      while (j < rest.size() && !std::isspace(static_cast<unsigned char>(rest[j]))) ++j;
      const std::string_view tok = rest.substr(i, j - i);
      if (is_dotted_version(tok)) {
        NvidiaModuleVersion v;
        v.version = std::string(tok);
        v.flavour = line.find("Open Kernel Module") != std::string_view::npos ? "open" : "proprietary";
        v.banner = std::string(line);
        out = std::move(v);
        break;
      }
      i = j;
    }
  }
  if (out) out->gcc = gcc;
  return out;
}

std::optional<std::string> driver_version_from_library_name(std::string_view file_name) {
  const size_t slash = file_name.find_last_of("/\\");
  if (slash != std::string_view::npos) file_name.remove_prefix(slash + 1);
  const size_t so = file_name.find(".so.");
  if (so == std::string_view::npos) return std::nullopt;
  const std::string_view tail = file_name.substr(so + 4);
  if (!is_dotted_version(tail)) return std::nullopt;
  return std::string(tail);
}

VisibleDevices cuda_visible_devices(std::string_view value) {
  VisibleDevices out;
  size_t pos = 0;
  // An empty value is itself the first (invalid) entry: CUDA then sees no device.
  while (pos <= value.size()) {
    size_t end = value.find(',', pos);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view tok = trim(value.substr(pos, end - pos));
    pos = end + 1;
    VisibleDevices::Entry e;
    bool ok = false;
    if (!tok.empty() && tok.size() <= 9) {
      ok = true;
      for (char c : tok) ok = ok && is_digit(c);
      if (ok) {
        e.is_index = true;
        e.index = 0;
        for (char c : tok) e.index = e.index * 10 + (c - '0');
      }
    }
    if (!ok && tok.size() > 4 && tok.size() <= 128 && (tok.rfind("GPU-", 0) == 0 || tok.rfind("MIG-", 0) == 0)) {
      ok = true;
      e.uuid = std::string(tok);
    }
    if (!ok) {
      out.truncated = true;
      out.stopped_at = std::string(tok);
      break;
    }
    if (out.entries.size() >= 1024) break;  // far beyond any machine; bounds a hostile value
    out.entries.push_back(std::move(e));
    if (end == value.size()) break;
  }
  return out;
}

}  // namespace gpuready::parse
