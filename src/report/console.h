// Console reporter for the Snapshot: the human-readable `gpuready probe` output.
#pragma once

#include <string>

#include "core/snapshot.h"

namespace gpuready {

struct ConsoleStyle {
  bool color = false;  // ANSI colours (only on a terminal)
};

std::string render_snapshot_console(const Snapshot& s, const ConsoleStyle& style = {});

}  // namespace gpuready
