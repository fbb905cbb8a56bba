// Console reporter for a Plan: the human-readable `gpuready plan` output.
#pragma once

#include <string>

#include "plan/plan.h"

namespace gpuready {

std::string render_plan_console(const plan::Plan& p);

}  // namespace gpuready
