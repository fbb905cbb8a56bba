// What the probe reads from the Windows registry (through the Registry seam, so a fixture
// registry gives the same answers on Linux as the real one on Windows): the edition and build,
// Secure Boot, the display adapters with their driver versions, and the CUDA toolkits the
// installer registered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "platform/os.h"

namespace gpuready::windows {

inline constexpr const char* kCurrentVersionKey = "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
inline constexpr const char* kSecureBootKey = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\SecureBoot\\State";
// The display adapter class: one numbered subkey (0000, 0001, ...) per installed adapter driver.
inline constexpr const char* kDisplayClassKey =
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";
// Every PCI device Windows enumerated, with or without a driver: Enum\PCI\VEN_xxxx&DEV_xxxx&...\<instance>.
inline constexpr const char* kPciEnumKey = "HKLM\\SYSTEM\\CurrentControlSet\\Enum\\PCI";
inline constexpr const char* kCudaToolkitsKey = "HKLM\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA";
inline constexpr const char* kWineKey = "HKLM\\SOFTWARE\\Wine";

struct WindowsVersion {
  std::string name;             // "Windows 11 Pro": ProductName, corrected for Windows 11 (see below)
  std::string edition;          // EditionID: "Professional", "Core", "Enterprise"
  std::string display_version;  // "23H2" (DisplayVersion, else ReleaseId "2004"), may be empty
  std::string version;          // "10.0.22631.4460": major.minor.build.UBR
  std::optional<long> build;    // 22631
  bool wine = false;            // running under Wine (it keeps HKLM\Software\Wine)
};

// The edition and build from CurrentVersion. `kernel_release` ("10.0.22631", RtlGetVersion) fills
// what the registry lacks. Windows 11 keeps "Windows 10" in ProductName: a build >= 22000 is
// Windows 11 whatever the name says. nullopt with *why when the key cannot be read.
std::optional<WindowsVersion> read_version(const Registry& reg, const std::string& kernel_release, std::string* why);

// UEFISecureBootEnabled: true/false, nullopt with *why when the key is missing (legacy BIOS
// firmware, or an older Windows) or unreadable.
std::optional<bool> read_secure_boot(const Registry& reg, std::string* why);

struct DisplayAdapter {
  std::string key;             // the registry key it was read from
  std::string description;     // DriverDesc: "NVIDIA GeForce GTX 1650"
  std::string provider;        // ProviderName: "NVIDIA", "Intel Corporation", "Microsoft"
  std::string driver_version;  // DriverVersion as Windows writes it: "31.0.15.5222"
  std::string driver_date;     // DriverDate: "3-19-2024"
  std::string matching_id;     // MatchingDeviceId: "pci\\ven_10de&dev_1f91&subsys_..."
  std::uint32_t vendor_id = 0, device_id = 0, subsystem_vendor_id = 0, subsystem_device_id = 0;
  std::string nvidia_version;  // "552.22" for an NVIDIA driver, else ""
};

// Every adapter of the display class with a readable DriverDesc (at most 64).
std::vector<DisplayAdapter> read_display_adapters(const Registry& reg, std::string* why);

// NVIDIA's driver version from the Windows file version of its driver package: the last five
// digits of the third and fourth parts. "31.0.15.5222" -> "552.22", "27.21.14.5671" -> "456.71".
std::optional<std::string> nvidia_version_from_windows(const std::string& driver_version);

// PCI ids from a hardware id: "PCI\\VEN_10DE&DEV_1F91&SUBSYS_86F01043&REV_A1" (any case).
void parse_pci_hardware_id(const std::string& id, DisplayAdapter& out);

// The display controllers on the PCI bus as Windows enumerated them (Windows has no sysfs), with
// or without a driver: ids from the device key's name, the kernel driver from its Service value
// ("nvlddmkm" NVIDIA's, "BasicDisplay" Microsoft's fallback, "none" without a driver), the
// address from LocationInformation ("PCI bus 1, device 0, function 0" -> "0000:01:00.0").
// A device with vendor id 0 (Wine's virtual adapter) is no PCI device: left out, said in *notes.
std::vector<PciGpu> read_pci_display_devices(const Registry& reg, std::vector<std::string>* notes);

// "PCI bus 1, device 0, function 0" -> "0000:01:00.0"; "" when it is not that shape.
std::string pci_address_from_location(const std::string& location);

// The NVIDIA display driver's version as its registry entry says ("552.22"), or why not.
Fact<std::string> nvidia_driver_version(const std::vector<DisplayAdapter>& adapters, const std::string& why_none);

struct RegisteredToolkit {
  std::string key;          // "v11.0"
  std::string install_dir;  // InstallDir: "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\"
};

// The toolkits the CUDA installer registered (one subkey per version, with InstallDir).
std::vector<RegisteredToolkit> read_registered_toolkits(const Registry& reg);

}  // namespace gpuready::windows
