// WSL and container hints from kernel strings and cgroup paths.
#include "parse/linux_hints.h"

namespace gpuready::parse {
namespace {

bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

}  // namespace

std::string wsl_from_kernel(std::string_view osrelease, std::string_view proc_version) {
  for (std::string_view s : {osrelease, proc_version}) {
    if (contains(s, "WSL2") || contains(s, "microsoft-standard") || contains(s, "-microsoft")) return "wsl2";
  }
  for (std::string_view s : {osrelease, proc_version}) {
    // WSL1: "4.4.0-22621-Microsoft" and "(Microsoft@Microsoft.com)": capital M, no WSL2.
    if (contains(s, "Microsoft")) return "wsl1";
  }
  return {};
}

std::string container_from_cgroup(std::string_view cgroup) {
  // Only the path part of each "id:controllers:path" line names a runtime.
  bool docker = false, podman = false, lxc = false;
  while (!cgroup.empty()) {
    const size_t nl = cgroup.find('\n');
    const std::string_view line = cgroup.substr(0, nl);
    cgroup = nl == std::string_view::npos ? std::string_view{} : cgroup.substr(nl + 1);
    const size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    const size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view path = line.substr(c2 + 1);
    if (contains(path, "kubepods")) return "kubernetes";  // k8s wins: it also runs docker/containerd
    if (contains(path, "libpod")) podman = true;
    if (contains(path, "/docker") || contains(path, "docker-")) docker = true;
    if (contains(path, "/lxc") || contains(path, "lxc.payload")) lxc = true;
  }
  if (podman) return "podman";
  if (docker) return "docker";
  if (lxc) return "lxc";
  return {};
}

}  // namespace gpuready::parse
