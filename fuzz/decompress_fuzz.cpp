// libFuzzer target for parse/decompress: any bytes handed to the zstd, xz and gzip decoders as a
// compressed kernel module. None may crash, hang or take more than the cap; the tail is at most
// what was asked for.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/decompress.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const char* format : {"zst", "xz", "gz", "lz4"}) {
    std::string err;
    if (auto tail = gpuready::parse::decompressed_tail(bytes, format, 28, 1u << 22, &err)) {
      if (tail->size() > 28) __builtin_trap();
    } else if (err.empty()) {
      __builtin_trap();
    }
  }
  return 0;
}
