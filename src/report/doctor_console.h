// Console reporter for the doctor's Report: the verdict first, the three CUDA versions side by
// side, then what to do in order (errors, then warnings), then what is merely worth knowing.
#pragma once

#include <string>

#include "doctor/doctor.h"
#include "report/console.h"

namespace gpuready {

std::string render_doctor_console(const doctor::Report& r, const Snapshot& s, const ConsoleStyle& style = {});

}  // namespace gpuready
