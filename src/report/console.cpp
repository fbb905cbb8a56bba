// Console reporter: placeholder body replaced below in this session.
#include "report/console.h"

namespace gpuready {
std::string render_snapshot_console(const Snapshot& s, const ConsoleStyle&) { return snapshot_to_json(s).dump(2) + "\n"; }
}  // namespace gpuready
