// Rules about the GPU and its driver: is there an NVIDIA GPU, which driver holds it, can
// NVML and libcuda be reached (natively and in WSL), and does CUDA_VISIBLE_DEVICES hide it.
#include <fmt/format.h>

#include "doctor/rules.h"
#include "parse/driver_version.h"

namespace gpuready::doctor {
namespace {

const PciGpu* first_nvidia(const Snapshot& s) {
  for (const auto& p : s.pci_gpus)
    if (p.vendor == "nvidia") return &p;
  return nullptr;
}

std::string gpu_words(const Context& c, const PciGpu& p) {
  const auto* row = c.k.gpu_by_pci_id(p.device_id);
  return fmt::format("{} ({:04x}:{:04x} at {})", row ? row->name : std::string("NVIDIA GPU"), p.vendor_id, p.device_id,
                     p.address);
}

std::string step_line(const DriverStep& st) {
  return st.name + ": " + (st.code.empty() ? "" : st.code + ": ") + st.message;
}

// How to install the driver on this OS (distribution-aware on Linux).
std::vector<std::string> install_driver_lines(const Context& c) {
  if (c.os == "windows")
    return {"# install the NVIDIA driver for your GPU from https://www.nvidia.com/Download/index.aspx, then reboot",
            "nvidia-smi"};
  if (c.os == "wsl2")
    return {"# install the NVIDIA driver on Windows (https://www.nvidia.com/Download/index.aspx); WSL2 uses it",
            "wsl --shutdown   # in Windows, then open WSL2 again", "nvidia-smi"};
  const std::string id = c.s.os.id.has() ? c.s.os.id.value() : "";
  if (id == "ubuntu" || id == "pop" || id == "linuxmint")
    return {"sudo ubuntu-drivers install   # the recommended NVIDIA driver for this GPU", "sudo reboot", "nvidia-smi"};
  if (id == "debian")
    return {"# enable the non-free and non-free-firmware components in /etc/apt/sources.list, then:",
            "sudo apt-get update && sudo apt-get install nvidia-driver firmware-misc-nonfree", "sudo reboot",
            "nvidia-smi"};
  return {"# install your distribution's NVIDIA driver package, or the driver from "
          "https://www.nvidia.com/Download/index.aspx",
          "sudo reboot", "nvidia-smi"};
}

}  // namespace

std::vector<Finding> rule_no_nvidia_gpu(const Context& c) {
  if (nvidia_on_bus(c.s) || !c.s.nvidia.gpus.empty()) return {};
  if (c.s.nvidia.nvml_device_count.has() && c.s.nvidia.nvml_device_count.value() > 0) return {};
  Finding f;
  f.title = "No NVIDIA GPU found: CUDA frameworks will run on the CPU only";
  if (c.s.pci_gpus.empty()) {
    f.evidence.push_back("PCI bus: no display controller found");
  } else {
    for (const auto& p : c.s.pci_gpus)
      f.evidence.push_back(fmt::format("PCI bus: {} display controller {:04x}:{:04x} at {}", p.vendor, p.vendor_id,
                                       p.device_id, p.address));
  }
  if (const auto* st = driver_step(c.s, "nvmlInit_v2")) f.evidence.push_back(step_line(*st));
  const std::string container = c.s.os.container.has() ? c.s.os.container.value() : "none";
  if (container != "none" && container != "unknown") {
    f.evidence.push_back("running in a container (" + container + ")");
    f.fix = {"# start the container with the GPU passed through (needs the NVIDIA Container Toolkit on the host):",
             "docker run --gpus all ...   # or --runtime=nvidia; Kubernetes: resources.limits nvidia.com/gpu: 1"};
  } else {
    f.fix = {"# CUDA needs an NVIDIA GPU; in a VM, pass the GPU through to it",
             "gpuready plan --gpu \"<GPU name>\" --driver <version>   # to plan for the machine that has one"};
  }
  return {f};
}

std::vector<Finding> rule_nouveau(const Context& c) {
  std::vector<Finding> out;
  for (const auto& p : c.s.pci_gpus) {
    if (p.vendor != "nvidia" || !p.kernel_driver.has() || p.kernel_driver.value() != "nouveau") continue;
    Finding f;
    f.title = "The open-source nouveau driver holds " + gpu_words(c, p) + ": CUDA needs NVIDIA's driver";
    f.evidence.push_back("/sys/bus/pci/devices/" + p.address + "/driver -> nouveau");
    f.fix = install_driver_lines(c);
    f.fix.insert(f.fix.begin(),
                 {"# NVIDIA's driver packages blacklist nouveau; if it still binds after installing them:",
                  "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
                  "sudo update-initramfs -u"});
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_driver_not_installed(const Context& c) {
  const PciGpu* p = first_nvidia(c.s);
  if (!p || c.os == "wsl2") return {};  // WSL2 has no PCI view of the GPU; its own rules apply
  if (p->kernel_driver.has() && (p->kernel_driver.value() == "nvidia" || p->kernel_driver.value() == "nouveau"))
    return {};
  const DriverStep* load = nvml_load_step(c.s);
  if (!load || load->ok) return {};  // the libraries are there: the module rule speaks
  Finding f;
  // Windows: NVIDIA's display driver (nvlddmkm) holds the GPU, yet nvml.dll does not load (missing,
  // or "Bad EXE format" (193) from a damaged or foreign copy): the driver's install is broken.
  const bool windows_driver_bound = p->kernel_driver.has() && p->kernel_driver.value() == "nvlddmkm";
  if (windows_driver_bound) {
    f.title = "NVIDIA's driver (nvlddmkm) holds " + gpu_words(c, *p) +
              ", but its nvml.dll cannot be loaded: the driver's install is incomplete or damaged";
    f.evidence.push_back(step_line(*load));
    f.fix = {
        "# reinstall the NVIDIA driver from https://www.nvidia.com/Download/index.aspx: Custom (Advanced) > "
        "Perform a clean installation, then reboot",
        "nvidia-smi"};
    return {f};
  }
  f.title = "No NVIDIA driver is installed for " + gpu_words(c, *p);
  f.evidence.push_back(step_line(*load));
  if (p->kernel_driver.has()) f.evidence.push_back("kernel driver bound to the GPU: " + p->kernel_driver.value());
  f.fix = install_driver_lines(c);
  f.fix.push_back("gpuready plan   # which driver version the framework you want needs");
  return {f};
}

std::vector<Finding> rule_driver_mismatch(const Context& c) {
  const DriverStep* init = driver_step(c.s, "nvmlInit_v2");
  if (!init || init->code != "NVML_ERROR_LIB_RM_VERSION_MISMATCH") return {};
  Finding f;
  f.title = "Driver/library version mismatch: the loaded kernel module is older than the driver libraries";
  f.evidence.push_back(step_line(*init));
  if (c.s.nvidia.kernel_module_version.has())
    f.evidence.push_back("kernel module (/proc/driver/nvidia/version): " + c.s.nvidia.kernel_module_version.value());
  if (c.s.nvidia.nvml_library.has()) f.evidence.push_back("NVML library: " + c.s.nvidia.nvml_library.value());
  f.fix = {"# the driver was upgraded (often by unattended-upgrades) while the old module stayed loaded",
           "sudo reboot",
           "# or, with no process using the GPU: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe "
           "nvidia",
           "nvidia-smi"};
  return {f};
}

namespace {

// The kernel module is not loaded: NVML says so, or the libraries load while no driver holds the GPU.
bool module_not_loaded(const Context& c) {
  if (c.os != "linux") return false;
  const DriverStep* init = driver_step(c.s, "nvmlInit_v2");
  const PciGpu* p = first_nvidia(c.s);
  const DriverStep* load = nvml_load_step(c.s);
  const bool nvml_says = init && init->code == "NVML_ERROR_DRIVER_NOT_LOADED";
  const bool unbound = p && load && load->ok && p->kernel_driver.has() && p->kernel_driver.value() == "none";
  return nvml_says || unbound;
}

// No module for the running kernel, though other kernels have one: DKMS did not rebuild it.
bool module_missing_for_kernel(const Context& c) {
  return !c.s.nvidia.kernel_module_file.has() && !c.s.nvidia.kernel_module_kernels.empty();
}

// Secure Boot on and the running kernel's module unsigned: the kernel refuses to load it.
bool module_unsigned_under_secure_boot(const Context& c) {
  const auto& n = c.s.nvidia;
  return c.s.os.secure_boot.has() && c.s.os.secure_boot.value() && n.kernel_module_file.has() &&
         n.kernel_module_signed.has() && !n.kernel_module_signed.value();
}

std::string kernel_of(const Context& c) { return c.s.os.kernel.has() ? c.s.os.kernel.value() : "$(uname -r)"; }

}  // namespace

std::vector<Finding> rule_module_not_loaded(const Context& c) {
  if (!module_not_loaded(c) || module_missing_for_kernel(c) || module_unsigned_under_secure_boot(c)) return {};
  const DriverStep* init = driver_step(c.s, "nvmlInit_v2");
  const PciGpu* p = first_nvidia(c.s);
  Finding f;
  f.title = "The NVIDIA driver is installed but its kernel module is not loaded";
  if (init && !init->ok) f.evidence.push_back(step_line(*init));
  if (p) f.evidence.push_back("kernel driver bound to " + gpu_words(c, *p) + ": " +
                              (p->kernel_driver.has() ? p->kernel_driver.value() : std::string("unknown")));
  if (c.s.os.kernel.has()) f.evidence.push_back("running kernel: " + c.s.os.kernel.value());
  if (c.s.nvidia.kernel_module_file.has())
    f.evidence.push_back("module file: " + c.s.nvidia.kernel_module_file.value());
  if (c.s.os.secure_boot.has())
    f.evidence.push_back(std::string("Secure Boot: ") + (c.s.os.secure_boot.value() ? "on" : "off"));
  f.fix = {"sudo modprobe nvidia   # its error says why it cannot load",
           "dkms status   # the module must be built for the running kernel (uname -r)",
           "sudo dkms autoinstall   # after a kernel upgrade without the module rebuilt"};
  if (!c.s.os.secure_boot.has() || c.s.os.secure_boot.value())
    f.fix.push_back(
        "mokutil --sb-state   # with Secure Boot on, the module must be signed: enroll its key with sudo "
        "mokutil --import <key.der> and reboot");
  f.fix.push_back("sudo reboot");
  return {f};
}

std::vector<Finding> rule_module_not_built(const Context& c) {
  if (!module_not_loaded(c) || !module_missing_for_kernel(c)) return {};
  const std::string k = kernel_of(c);
  std::string others;
  for (const auto& o : c.s.nvidia.kernel_module_kernels) others += (others.empty() ? "" : ", ") + o;
  Finding f;
  f.title = fmt::format(
      "The NVIDIA kernel module was built for kernel {} but not for the running kernel {}: it was "
      "not rebuilt after a kernel update",
      others, k);
  f.evidence = {"running kernel: " + k, "nvidia module for this kernel: " + c.s.nvidia.kernel_module_file.why(),
                "kernels with an nvidia module: " + others};
  const std::string id = c.s.os.id.has() ? c.s.os.id.value() : "";
  if (id == "fedora" || id == "rhel" || id == "rocky" || id == "almalinux" || id == "centos")
    f.fix = {fmt::format("sudo dnf install kernel-devel-{}   # the headers DKMS builds against", k)};
  else
    f.fix = {fmt::format("sudo apt-get install linux-headers-{}   # the headers DKMS builds against", k)};
  f.fix.push_back(fmt::format("sudo dkms autoinstall -k {}", k));
  f.fix.push_back("sudo modprobe nvidia && nvidia-smi");
  return {f};
}

std::vector<Finding> rule_secure_boot_unsigned(const Context& c) {
  if (!module_not_loaded(c) || module_missing_for_kernel(c) || !module_unsigned_under_secure_boot(c)) return {};
  Finding f;
  f.title = "Secure Boot is on and the NVIDIA kernel module is not signed: the kernel refuses to load it";
  f.evidence = {"Secure Boot: on (SecureBoot EFI variable)",
                "module file: " + c.s.nvidia.kernel_module_file.value() + " (no module signature appended)"};
  f.fix = {"# sign the module with a key the firmware trusts (DKMS makes one), enroll it, and reboot:",
           "sudo mokutil --import /var/lib/dkms/mok.pub   # Ubuntu: /var/lib/shim-signed/mok/MOK.der; asks for a "
           "one-time password",
           "sudo dkms autoinstall --force   # rebuilds and signs the module",
           "sudo reboot   # the blue MOK manager appears: Enroll MOK, enter the password",
           "# or turn Secure Boot off in the firmware settings"};
  return {f};
}

std::vector<Finding> rule_wsl1(const Context& c) {
  if (!c.s.os.wsl.has() || c.s.os.wsl.value() != "wsl1") return {};
  Finding f;
  f.title = "This is WSL1, which has no GPU access: CUDA needs WSL2";
  f.evidence.push_back("kernel: " + (c.s.os.kernel.has() ? c.s.os.kernel.value() : std::string("?")));
  f.fix = {"# in Windows (PowerShell or cmd):", "wsl --list --verbose   # the VERSION column shows 1",
           "wsl --set-version <distribution> 2", "wsl --set-default-version 2"};
  return {f};
}

std::vector<Finding> rule_wsl_linux_driver(const Context& c) {
  if (!c.s.os.wsl.has() || c.s.os.wsl.value() != "wsl2") return {};
  std::vector<std::string> evidence;
  if (c.s.nvidia.nvml_library.has() && c.s.nvidia.nvml_library.value().rfind("/usr/lib/wsl/", 0) != 0)
    evidence.push_back("NVML was loaded from " + c.s.nvidia.nvml_library.value() + ", not /usr/lib/wsl/lib");
  if (c.s.nvidia.kernel_module_version.has())
    evidence.push_back("/proc/driver/nvidia/version exists: " + c.s.nvidia.kernel_module_version.value());
  if (evidence.empty()) return {};
  Finding f;
  f.title = "A Linux NVIDIA driver is installed inside WSL2: it shadows the Windows driver WSL2 must use";
  f.evidence = evidence;
  f.fix = {"dpkg -l | grep -E 'nvidia-driver|libnvidia-compute|cuda-drivers'   # the packages to remove",
           "sudo apt-get purge 'nvidia-driver-*' 'libnvidia-compute-*' cuda-drivers",
           "# inside WSL2 install only cuda-toolkit-X-Y, never 'cuda' or 'cuda-drivers' (they pull a driver)",
           "wsl --shutdown   # in Windows, then open WSL2 again"};
  return {f};
}

std::vector<Finding> rule_wsl_libcuda(const Context& c) {
  if (!c.s.os.wsl.has() || c.s.os.wsl.value() != "wsl2") return {};
  for (const auto& r : c.s.libraries.resolutions) {
    if (r.soname != "libcuda.so.1") continue;
    if (r.path.has() && r.path.value().rfind("/usr/lib/wsl/", 0) == 0) return {};
    Finding f;
    f.title = r.path.has() ? "WSL2: libcuda.so.1 resolves to " + r.path.value() + " instead of the Windows driver's copy"
                           : "WSL2: the loader cannot find libcuda.so.1 (the Windows driver's copy in /usr/lib/wsl/lib)";
    f.evidence.push_back("libcuda.so.1: " + (r.path.has() ? r.path.value() + " (via " + r.via + ")" : r.path.why()));
    f.fix = {"ls -l /usr/lib/wsl/lib/libcuda.so*   # missing: update WSL and the Windows driver (wsl --update)",
             "echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf", "sudo ldconfig"};
    return {f};
  }
  return {};
}

std::vector<Finding> rule_visible_devices_hide_all(const Context& c) {
  if (!c.s.nvidia.cuda_visible_devices.has()) return {};
  const std::string value = c.s.nvidia.cuda_visible_devices.value();
  const auto vis = parse::cuda_visible_devices(value);
  if (!vis.hides_all()) return {};
  if (c.s.nvidia.gpus.empty() && !nvidia_on_bus(c.s)) return {};
  Finding f;
  f.title = "CUDA_VISIBLE_DEVICES hides every GPU: frameworks will see none";
  f.evidence.push_back("CUDA_VISIBLE_DEVICES=\"" + value + "\"" +
                       (vis.truncated ? " (CUDA stops at \"" + vis.stopped_at + "\", an invalid entry)" : ""));
  f.fix = for_os(c, {"unset CUDA_VISIBLE_DEVICES   # or list GPUs by index: export CUDA_VISIBLE_DEVICES=0"},
                 {"set CUDA_VISIBLE_DEVICES=   # or list GPUs by index: set CUDA_VISIBLE_DEVICES=0"});
  return {f};
}

}  // namespace gpuready::doctor
