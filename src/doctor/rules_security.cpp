// Rules about what programs started on this machine load and run, and from where: search-path
// entries that name the current folder, GPU libraries and search folders anyone may write, a
// container toolkit with a known escape (CVE-2025-23266), and a driver that does not answer.
#include <fmt/format.h>

#include "core/version.h"
#include "doctor/rules.h"

namespace gpuready::doctor {
namespace {

std::string entry_words(const UnsafeSearchEntry& e) {
  if (e.problem == "empty") return fmt::format("entry {} is empty", e.index + 1);
  return fmt::format("entry {} is \"{}\", {}", e.index + 1, e.entry,
                     e.problem == "relative" ? "a relative folder" : "a folder anyone may write");
}

// What an entry that names the current folder exposes, per variable.
std::string exposure(const std::string& variable) {
  if (variable == "LD_LIBRARY_PATH")
    return "every program started from a folder loads libraries from that folder first: a libcuda.so.1 or "
           "libnvidia-ml.so.1 in a cloned repository or an unpacked archive runs its code in your CUDA programs";
  if (variable == "LD_PRELOAD") return "a library named there is loaded into every program, from whichever folder it is started in";
  if (variable == "PYTHONPATH")
    return "Python imports modules from the folder it is started in before the installed ones: a torch.py or "
           "numpy.py there replaces the real package";
  return "a program named like a command (python, nvcc, nvidia-smi) in the folder you are in runs instead of the real one";
}

// The value without the entries that name the current folder.
std::string cleaned(const Context& c, const std::string& value) {
  const char sep = c.os == "windows" ? ';' : ':';
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t end = value.find(sep, start);
    const std::string e = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const bool absolute = c.os == "windows" ? (e.size() >= 3 && e[1] == ':' && (e[2] == '\\' || e[2] == '/')) ||
                                                  (e.size() >= 2 && (e[0] == '\\' || e[0] == '/') && e[0] == e[1])
                                            : !e.empty() && e[0] == '/';
    if (absolute) out += (out.empty() ? "" : std::string(1, sep)) + e;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

std::vector<Finding> rule_search_path_cwd(const Context& c) {
  std::vector<Finding> out;
  for (const auto& variable : {"LD_LIBRARY_PATH", "PATH", "PYTHONPATH", "LD_PRELOAD"}) {
    std::vector<const UnsafeSearchEntry*> entries;
    for (const auto& e : c.s.security.unsafe_entries)
      if (e.variable == variable && (e.problem == "empty" || e.problem == "relative")) entries.push_back(&e);
    if (entries.empty()) continue;
    Finding f;
    f.severity = Severity::warn;
    f.title = fmt::format("{} names the current folder ({}): {}", variable,
                          entries.size() == 1 ? entry_words(*entries[0]) : fmt::format("{} entries", entries.size()),
                          exposure(variable));
    const auto it = c.s.security.search_paths.find(variable);
    if (it != c.s.security.search_paths.end()) f.evidence.push_back(std::string(variable) + "=" + it->second);
    for (const auto* e : entries) f.evidence.push_back(entry_words(*e));
    const std::string value = it != c.s.security.search_paths.end() ? it->second : std::string();
    const std::string keep = cleaned(c, value);
    if (c.os == "windows") {
      f.fix = {fmt::format("set {}={}   # for this terminal", variable, keep),
               "# to keep it: Settings > System > About > Advanced system settings > Environment Variables, edit " +
                   std::string(variable) + " and delete the empty, \".\" or relative entries"};
    } else {
      f.fix.push_back(keep.empty() ? fmt::format("unset {}", variable) : fmt::format("export {}={}", variable, keep));
      if (std::string_view(variable) == "LD_LIBRARY_PATH" || std::string_view(variable) == "PATH" ||
          std::string_view(variable) == "PYTHONPATH")
        f.fix.push_back(fmt::format(
            "# in ~/.bashrc (or ~/.profile), write the guides' line so that it adds no empty entry when {0} was unset:  "
            "export {0}=/usr/local/cuda/{1}${{{0}:+:${0}}}",
            variable, std::string_view(variable) == "PATH" ? "bin" : std::string_view(variable) == "PYTHONPATH" ? "..." : "lib64"));
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_writable_library(const Context& c) {
  std::vector<Finding> out;
  if (!c.s.security.writable.empty()) {
    Finding f;
    f.title = fmt::format("{} GPU librar{} can be replaced by any user of this machine: whatever is put there runs in "
                          "every CUDA program",
                          c.s.security.writable.size(), c.s.security.writable.size() == 1 ? "y" : "ies");
    std::vector<std::string> files;
    for (const auto& w : c.s.security.writable) {
      f.evidence.push_back(w.path + ": " + w.reason);
      const std::string prefix = "its folder ";
      if (w.reason.rfind(prefix, 0) == 0) {
        const std::string dir = w.reason.substr(prefix.size(), w.reason.find(" is world-writable") - prefix.size());
        files.push_back("sudo chmod o-w '" + dir + "'");
      } else {
        files.push_back("sudo chmod o-w '" + w.path + "'");
      }
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    f.fix = files;
    f.fix.push_back("# then reinstall the package or wheel that owns them: a file that was writable may have been changed");
    out.push_back(std::move(f));
  }
  std::vector<const UnsafeSearchEntry*> dirs;
  for (const auto& e : c.s.security.unsafe_entries)
    if (e.problem == "world-writable") dirs.push_back(&e);
  if (!dirs.empty()) {
    Finding f;
    f.title = fmt::format("{} search-path folder{} any user may write: a library or program put there is picked up "
                          "by every program that searches it",
                          dirs.size(), dirs.size() == 1 ? " is one" : "s are ones");
    for (const auto* e : dirs) {
      f.evidence.push_back(e->variable + " " + entry_words(*e));
      f.fix.push_back("sudo chmod o-w '" + e->entry + "'   # or take it out of " + e->variable);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_container_toolkit_cve(const Context& c) {
  const auto& v = c.s.security.container_toolkit_version;
  if (!v.has()) return {};
  const auto have = Version::parse(v.value());
  if (!have || *have >= Version::of({1, 17, 8})) return {};
  Finding f;
  f.title = fmt::format("NVIDIA Container Toolkit {} lets a container image run code as root on the host "
                        "(CVE-2025-23266, fixed in 1.17.8)",
                        v.value());
  f.evidence = {"installed: " + c.s.security.container_toolkit_source,
                "NVIDIA security bulletin 5659 (July 2025): CVE-2025-23266 (CVSS 9.0) and CVE-2025-23267 affect every "
                "Container Toolkit up to 1.17.7 (GPU Operator up to 25.3.0)"};
  const std::string id = c.s.os.id.has() ? c.s.os.id.value() : "";
  if (c.s.security.container_toolkit_source.rfind("dpkg", 0) == 0)
    f.fix = {"sudo apt-get update && sudo apt-get install --only-upgrade nvidia-container-toolkit "
             "nvidia-container-toolkit-base libnvidia-container-tools libnvidia-container1",
             "sudo systemctl restart docker   # or containerd / cri-o",
             "nvidia-ctk --version   # 1.17.8 or newer"};
  else
    f.fix = {"sudo dnf upgrade nvidia-container-toolkit   # or zypper / yum, from NVIDIA's repository",
             "sudo systemctl restart docker   # or containerd / cri-o", "nvidia-ctk --version   # 1.17.8 or newer"};
  f.fix.push_back("# until then: on 1.17.x, disable the enable-cuda-compat hook (features.disable-cuda-compat-lib-hook "
                  "= true in /etc/nvidia-container-toolkit/config.toml)");
  return {f};
}

std::vector<Finding> rule_driver_hung(const Context& c) {
  const DriverStep* hung = nullptr;
  for (const auto& st : c.s.nvidia.steps)
    if (!st.ok && st.code == "timeout") hung = &st;
  if (!hung) return {};
  Finding f;
  f.title = "The NVIDIA driver did not answer: a hung driver or GPU (every CUDA program started now will hang too)";
  f.evidence.push_back(hung->name + ": " + hung->message);
  f.fix = for_os(c,
                 {"sudo dmesg | grep -iE 'NVRM|Xid' | tail -20   # Xid errors say what the GPU did",
                  "nvidia-smi   # hangs as well when the driver is stuck",
                  "# no process holds the GPU any more: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && "
                  "sudo modprobe nvidia; otherwise reboot",
                  "gpuready doctor   # again after the reset"},
                 {"# Event Viewer > Windows Logs > System: nvlddmkm errors say what the GPU did",
                  "nvidia-smi   # hangs as well when the driver is stuck",
                  "# restart the computer (or disable and enable the GPU in Device Manager)",
                  "gpuready doctor   # again after the restart"});
  return {f};
}

}  // namespace gpuready::doctor
