// libFuzzer target for parse/modules_dep: modules.dep lines, the module signature trailer and the
// kernel release order. None may crash, hang or read out of bounds; the order must stay strict.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/modules_dep.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto m = gpuready::parse::nvidia_module_in_modules_dep(text)) {
    if (m->path.empty() || m->path.find('\n') != std::string::npos || m->path.find(':') != std::string::npos)
      __builtin_trap();
    if (!m->compression.empty() && m->compression != "xz" && m->compression != "zst" && m->compression != "gz")
      __builtin_trap();
  }
  (void)gpuready::parse::module_signature_appended(text);
  const std::size_t half = size / 2;
  const std::string_view a = text.substr(0, half), b = text.substr(half);
  using gpuready::parse::kernel_release_less;
  if (kernel_release_less(a, a) || (kernel_release_less(a, b) && kernel_release_less(b, a))) __builtin_trap();
  return 0;
}
