// libFuzzer target for parse::proc_cpuinfo: any bytes must parse without crashing, block
// count stays bounded, and every kept string is valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "parse/proc_cpuinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto info = gpuready::parse::proc_cpuinfo(text);
  if (info.processors.size() > gpuready::parse::kMaxCpuInfoProcessors) std::abort();
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : info.processors) j.push_back({p.vendor_id, p.model_name, p.flags});
  j.push_back(info.global_model_name);
  j.push_back(info.global_flags);
  (void)j.dump();
  return 0;
}
