// /proc/cpuinfo parser: "key<tabs>: value" lines, blocks separated by blank lines, each
// block starting at "processor". Malformed lines are skipped; numbers out of range are dropped.
#include "parse/proc_cpuinfo.h"

#include <charconv>

#include "parse/ascii.h"
#include "parse/clean_text.h"

namespace gpuready::parse {
namespace {

// Decimal, or hex with a 0x prefix (the aarch64 fields are written "0x41", "0xd4f").
std::optional<int> to_int(std::string_view v) {
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    v.remove_prefix(2);
    base = 16;
  }
  if (v.empty()) return std::nullopt;
  int out = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  if (ec != std::errc() || ptr != v.data() + v.size() || out < 0) return std::nullopt;
  return out;
}

}  // namespace

CpuInfo proc_cpuinfo(std::string_view text) {
  CpuInfo info;
  CpuInfoProcessor* cur = nullptr;  // the block lines currently belong to
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::string_view line = trim(raw);
    if (line.empty()) {
      cur = nullptr;  // a blank line ends the block; what follows is global until "processor"
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (key == "processor") {
      if (info.processors.size() >= kMaxCpuInfoProcessors) break;
      info.processors.emplace_back();
      cur = &info.processors.back();
      cur->processor = to_int(value);
      if (!cur->processor) {
        // A non-numeric "processor" is garbage, not a block. (Old arm kernels' capital-P
        // "Processor : AArch64 Processor rev 4" is another key, handled as a global line.)
        info.processors.pop_back();
        cur = nullptr;
      }
      continue;
    }
    if (!cur) {
      if (key == "flags" || key == "Features") {
        info.global_flags = clean_text(value, 8192);
        info.arm_features = key == "Features";
      } else if ((key == "Processor" || key == "model name" || key == "Hardware") && info.global_model_name.empty()) {
        info.global_model_name = clean_text(value);
      }
      continue;
    }
    if (key == "vendor_id") {
      cur->vendor_id = clean_text(value, 64);
    } else if (key == "model name" || (key == "cpu" && cur->model_name.empty())) {
      cur->model_name = clean_text(value);
    } else if (key == "physical id") {
      cur->physical_id = to_int(value);
    } else if (key == "core id") {
      cur->core_id = to_int(value);
    } else if (key == "cpu cores") {
      cur->cpu_cores = to_int(value);
    } else if (key == "flags" || key == "Features") {
      cur->flags = clean_text(value, 8192);
      info.arm_features = key == "Features";
    } else if (key == "CPU implementer") {
      cur->implementer = to_int(value);
    } else if (key == "CPU part") {
      cur->part = to_int(value);
    }
  }
  return info;
}

}  // namespace gpuready::parse
