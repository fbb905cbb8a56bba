// libFuzzer target for the sysfs attribute parsers and parse::clean_text (PCI collector inputs).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "parse/clean_text.h"
#include "parse/sysfs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)gpuready::parse::sysfs_hex(text);
  (void)gpuready::parse::sysfs_int(text);
  (void)gpuready::parse::is_pci_address(text);
  if (const auto cpus = gpuready::parse::parse_cpu_list(std::string(text), 4095))
    for (size_t i = 1; i < cpus->size(); ++i)
      if ((*cpus)[i] <= (*cpus)[i - 1] || (*cpus)[i] > 4095) std::abort();  // sorted, distinct, bounded
  const std::string clean = gpuready::parse::clean_text(text, 64);
  if (clean.size() > 64) std::abort();
  (void)nlohmann::json(clean).dump();  // throws on invalid UTF-8
  return 0;
}
