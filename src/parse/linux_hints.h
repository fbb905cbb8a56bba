// Parsers for the small Linux texts that say where we run: the kernel release and
// /proc/version (WSL1 vs WSL2) and /proc/1/cgroup (which container runtime). Pure, non-throwing.
#pragma once

#include <string>
#include <string_view>

namespace gpuready::parse {

// What the kernel strings say about WSL: "wsl2" ("-microsoft-standard-WSL2", or the
// lower-case "microsoft" of early WSL2 kernels such as "4.19.104-microsoft-standard"),
// "wsl1" (WSL1's emulated kernel writes "4.4.0-22621-Microsoft", capital M, no WSL2),
// or "" when neither text mentions Microsoft.
std::string wsl_from_kernel(std::string_view osrelease, std::string_view proc_version);

// The container runtime named in a /proc/<pid>/cgroup text ("kubernetes" for kubepods,
// "docker", "podman" for libpod, "lxc"), or "" when the paths name none (cgroup v2
// namespaces usually show just "0::/").
std::string container_from_cgroup(std::string_view cgroup);

}  // namespace gpuready::parse
