// libFuzzer target for parse/package_db: dpkg's status database and `nvidia-ctk --version` output.
// None may crash or hang; a version found must be a line's own text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/package_db.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* pkg : {"nvidia-container-toolkit", "libnvidia-container1", ""})
    if (auto v = gpuready::parse::dpkg_installed_version(text, pkg)) {
      if (v->empty() || v->find('\n') != std::string::npos) __builtin_trap();
      const std::string up = gpuready::parse::debian_upstream_version(*v);
      if (up.size() > v->size()) __builtin_trap();
    }
  if (auto v = gpuready::parse::nvidia_ctk_version(text))
    if (v->find('.') == std::string::npos || v->front() == '.') __builtin_trap();
  (void)gpuready::parse::debian_upstream_version(text);
  return 0;
}
