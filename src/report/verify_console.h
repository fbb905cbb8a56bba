// Console reporter for `gpuready verify`: one line per check (status, what, the number against
// its limit), the reason under it when it is not a pass, then how each was measured.
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor.h"
#include "report/console.h"
#include "verify/verify.h"

namespace gpuready {

// `findings`: what the doctor's rules make of the measurements (measured.*), shown after the checks.
std::string render_verify_console(const std::vector<verify::Check>& checks,
                                  const std::vector<doctor::Finding>& findings, const Snapshot& s,
                                  const ConsoleStyle& style = {});

}  // namespace gpuready
