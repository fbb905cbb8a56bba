// Parser for /proc/meminfo ("MemTotal:       24683620 kB"). Pure and non-throwing; the CPU
// collector (probe/cpu.cpp) takes MemTotal and MemAvailable from it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace gpuready::parse {

// Field -> bytes ("kB" is KiB, as the kernel means it). Fields without a unit (HugePages_Total)
// are kept as plain counts; lines that do not parse, or whose value overflows 64 bits, are skipped.
std::map<std::string, std::uint64_t> proc_meminfo(std::string_view text);

}  // namespace gpuready::parse
