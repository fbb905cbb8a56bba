// Kernel module bookkeeping parsers (see modules_dep.h). Pure, bounded, never throw.
#include "parse/modules_dep.h"

#include "parse/ascii.h"

namespace gpuready::parse {
namespace {

// The compression of an NVIDIA module file name, or nullopt when the name is another module's.
std::optional<std::string> nvidia_module_compression(std::string_view file_name) {
  for (std::string_view base : {"nvidia.ko", "nvidia-current.ko"}) {
    if (file_name.substr(0, base.size()) != base) continue;
    const std::string_view rest = file_name.substr(base.size());
    if (rest.empty()) return std::string();
    for (std::string_view c : {"xz", "zst", "gz"})
      if (rest.size() == c.size() + 1 && rest[0] == '.' && rest.substr(1) == c) return std::string(c);
  }
  return std::nullopt;
}

}  // namespace

std::optional<KernelModuleFile> nvidia_module_in_modules_dep(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view path = trim(line.substr(0, colon));
    if (path.empty() || path.size() > 4096) continue;
    const size_t slash = path.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (auto c = nvidia_module_compression(name)) return KernelModuleFile{std::string(path), *c};
  }
  return std::nullopt;
}

bool module_signature_appended(std::string_view file_tail) {
  return file_tail.size() >= kModuleSignatureMarker.size() &&
         file_tail.substr(file_tail.size() - kModuleSignatureMarker.size()) == kModuleSignatureMarker;
}

bool kernel_release_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare the digit runs as numbers: skip leading zeros, then the longer run is larger.
      size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      const std::string_view na = a.substr(is, ie - is), nb = b.substr(js, je - js);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal as read ("6.01" vs "6.1"): fall back to bytes so the order stays strict
}

}  // namespace gpuready::parse
