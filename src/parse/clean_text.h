// Making text read from the machine safe to keep in a Snapshot: valid UTF-8 (JSON needs it),
// no control characters, bounded length. Used by the OS, CPU and PCI parsers and collectors.
#pragma once

#include <string>
#include <string_view>

namespace gpuready::parse {

// Invalid UTF-8 bytes become U+FFFD, control characters (tabs included) become spaces,
// leading/trailing whitespace is trimmed, and the result is cut at max_bytes (on a
// character boundary).
std::string clean_text(std::string_view raw, size_t max_bytes = 256);

// The first line of a sysfs/procfs attribute, trimmed: "32.0 GT/s PCIe\n" -> "32.0 GT/s PCIe".
std::string_view first_line(std::string_view text);

}  // namespace gpuready::parse
