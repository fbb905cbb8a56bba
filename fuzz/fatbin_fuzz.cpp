// libFuzzer target for the fat binary parser (parse/fatbin.h): any bytes must parse or be refused
// with a reason, never crash; every entry it returns must lie inside the bytes and the entry count
// stay capped; the cubin and PTX header readers run on every image it finds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parse/fatbin.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready::parse;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string err;
  const auto fb = parse_fatbin(bytes, &err);
  if (!fb) {
    if (err.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  if (fb->entries.size() > kFatbinMaxEntries) std::abort();
  for (const auto& e : fb->entries) {
    if (e.offset > size || e.size > size - e.offset) std::abort();
    const std::string_view image = bytes.substr(e.offset, e.size);
    std::string why;
    (void)parse_cubin_header(image, &why);
    if (const auto p = parse_ptx_header(image, &why); p && p->target.size() > 32) std::abort();
  }
  return 0;
}
