// libFuzzer target for parse/driver_version: the /proc/driver/nvidia/version banner, driver
// versions in library file names, and CUDA_VISIBLE_DEVICES. None may crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/driver_version.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto v = gpuready::parse::nvidia_module_version(text)) {
    if (v->version.empty() || v->banner.empty()) __builtin_trap();
  }
  (void)gpuready::parse::driver_version_from_library_name(text);
  const auto vis = gpuready::parse::cuda_visible_devices(text);
  if (vis.hides_all() != vis.entries.empty()) __builtin_trap();
  for (const auto& e : vis.entries)
    if (e.is_index ? e.index < 0 : e.uuid.size() < 5) __builtin_trap();
  return 0;
}
