// Parser for /proc/cpuinfo (x86 "flags", aarch64 "Features"/"CPU implementer" layouts).
// Pure and non-throwing: it splits the text into processor blocks; counting sockets and
// cores and picking the ISA flags is the CPU collector's job (probe/cpu.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

// One "processor : N" block. Fields absent on an architecture stay empty / nullopt.
struct CpuInfoProcessor {
  std::optional<int> processor;    // "processor" (logical CPU number)
  std::string vendor_id;           // x86 "vendor_id": "GenuineIntel", "AuthenticAMD"
  std::string model_name;          // x86 "model name"; ppc64le "cpu"
  std::optional<int> physical_id;  // x86 "physical id" (socket)
  std::optional<int> core_id;      // x86 "core id"
  std::optional<int> cpu_cores;    // x86 "cpu cores" (cores in this socket)
  std::string flags;               // x86 "flags", aarch64 "Features" (space-separated words)
  std::optional<int> implementer;  // aarch64 "CPU implementer" (0x41 = Arm)
  std::optional<int> part;         // aarch64 "CPU part" (0xd4f = Neoverse-V2)
};

struct CpuInfo {
  std::vector<CpuInfoProcessor> processors;
  // Lines outside any processor block (older arm kernels print "Hardware", "Processor",
  // sometimes "Features" once at the top); kept so the collector can fall back to them.
  std::string global_model_name;   // arm32-style "Processor", "model name", or "Hardware"
  std::string global_flags;        // a "flags"/"Features" line outside the blocks
  bool arm_features = false;       // the flags came from "Features" (arm) rather than "flags" (x86)
};

// At most kMaxCpuInfoProcessors blocks are kept (a bound for garbage input; real machines have
// a few thousand at most).
inline constexpr size_t kMaxCpuInfoProcessors = 16384;
CpuInfo proc_cpuinfo(std::string_view text);

}  // namespace gpuready::parse
