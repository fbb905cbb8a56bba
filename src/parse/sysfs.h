// Parsers for Linux sysfs attribute files as the PCI collector reads them: "0x10de\n",
// "-1\n", "32.0 GT/s PCIe\n", and PCI device names "0000:01:00.0". Pure, non-throwing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

// "0x10de\n" -> 0x10de. The 0x prefix is required (sysfs always writes it); nullopt on
// anything else or a value above 32 bits.
std::optional<std::uint32_t> sysfs_hex(std::string_view text);

// "-1\n", "16\n" -> the int; nullopt on anything else.
std::optional<int> sysfs_int(std::string_view text);

// A PCI device name as /sys/bus/pci/devices lists it: domain (4+ hex digits; Intel VMD
// and Hyper-V use longer or random domains) ":" bus(2) ":" device(2) "." function(1).
bool is_pci_address(std::string_view name);

// "0-7,16-23" (a sysfs cpulist, e.g. /sys/devices/system/node/node0/cpulist) -> 0..7, 16..23,
// sorted and distinct; nullopt when malformed or when it names a CPU above max_cpu.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text, int max_cpu = 4095);

}  // namespace gpuready::parse
