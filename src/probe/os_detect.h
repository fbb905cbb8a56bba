// The OS and CPU collectors with their two host inputs made explicit: the OS family the
// binary was built for, and the uname/sysinfo facts (HostInfo). collect_os / collect_cpu
// pass the real ones; tests pass fixed ones so a fixture tree gives the same facts anywhere.
#pragma once

#include "core/snapshot.h"
#include "platform/os.h"

namespace gpuready::detail {

enum class OsFamily { kLinux, kWindows, kMacos };

// The family this binary was compiled for.
OsFamily build_os_family();

// host may be null: then only the Fs/Env seams are used (a fixture says everything).
void collect_os_as(const Os& os, OsFamily family, const HostInfo* host, OsFacts& out);
void collect_cpu_as(const Os& os, OsFamily family, const HostInfo* host, CpuFacts& out);

}  // namespace gpuready::detail
