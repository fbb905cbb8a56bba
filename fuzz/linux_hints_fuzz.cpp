// libFuzzer target for parse::wsl_from_kernel and parse::container_from_cgroup.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/linux_hints.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t half = size / 2;
  (void)gpuready::parse::wsl_from_kernel(text.substr(0, half), text.substr(half));
  (void)gpuready::parse::container_from_cgroup(text);
  return 0;
}
