// Console reporter for the Snapshot: the human-readable `gpuready probe` output.
#pragma once

#include <string>

#include "core/snapshot.h"

namespace gpuready {

struct ConsoleStyle {
  bool color = false;  // ANSI colours (only on a terminal)
};

// ANSI colour, only when the style asks for it: paint(kRed, "NOT READY").
struct Paint {
  bool on = false;
  std::string operator()(const char* code, const std::string& s) const {
    return on ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
  }
};
inline constexpr const char* kRed = "1;31";
inline constexpr const char* kGreen = "1;32";
inline constexpr const char* kYellow = "1;33";
inline constexpr const char* kCyan = "36";
inline constexpr const char* kBold = "1";

std::string render_snapshot_console(const Snapshot& s, const ConsoleStyle& style = {});

// The GPU in a headline: the first GPU the driver lists ("NVIDIA H200 (+1 more)"), else an NVIDIA GPU only on the
// PCI bus ("NVIDIA GPU 10de:1f91 on the PCI bus": no driver answers for it), else "no NVIDIA GPU".
std::string gpu_headline(const Snapshot& s);

}  // namespace gpuready
