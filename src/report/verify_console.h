// Console reporter for `gpuready verify`: one line per check (status, what, the number against
// its limit), the reason under it when it is not a pass, then how each was measured.
#pragma once

#include <string>
#include <vector>

#include "report/console.h"
#include "verify/verify.h"

namespace gpuready {

std::string render_verify_console(const std::vector<verify::Check>& checks, const Snapshot& s,
                                  const ConsoleStyle& style = {});

}  // namespace gpuready
