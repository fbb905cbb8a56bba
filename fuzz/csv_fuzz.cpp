// libFuzzer target for knowledge::parse_csv (the --data folder is user input): any bytes
// parse or fail with a message; a parsed table is rectangular.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "knowledge/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string error;
  const auto t = gpuready::knowledge::parse_csv(std::string_view(reinterpret_cast<const char*>(data), size), &error);
  if (!t) {
    if (error.empty()) std::abort();  // a failure always says why
    return 0;
  }
  for (const auto& row : t->rows)
    if (row.size() != t->header.size()) std::abort();
  if (t->rows.size() != t->lines.size()) std::abort();
  return 0;
}
