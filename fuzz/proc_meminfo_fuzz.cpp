// libFuzzer target for parse::proc_meminfo: any bytes must parse without crashing or overflow
// (UBSan reports a wrapped multiplication).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/proc_meminfo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)gpuready::parse::proc_meminfo(text);
  return 0;
}
