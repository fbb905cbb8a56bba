// libFuzzer target for the ld.so.cache reader: any bytes must parse or be refused, never crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "parse/ld_so_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string err;
  auto c = gpuready::parse::parse_ld_so_cache(in, &err);
  if (c) {
    for (const auto& e : c->entries) (void)gpuready::parse::ld_cache_flags_text(e.flags);
  }
  // The same bytes behind each header, so the fuzzer reaches the entry tables quickly.
  for (const char* magic : {"glibc-ld.so.cache1.1", "ld.so-1.7.0"}) {
    std::string framed = std::string(magic) + std::string(in);
    (void)gpuready::parse::parse_ld_so_cache(framed, &err);
  }
  return 0;
}
