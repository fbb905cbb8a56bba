// libFuzzer target for parse::os_release: any bytes must parse without crashing, and every
// value must be valid UTF-8 (the snapshot's JSON writer throws on anything else).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "parse/os_release.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto kv = gpuready::parse::os_release(text);
  nlohmann::json j = kv;
  (void)j.dump();  // throws (and so aborts the fuzzer) on invalid UTF-8
  return 0;
}
