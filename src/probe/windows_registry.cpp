// The registry readers of the Windows probe (see windows_registry.h).
#include "probe/windows_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "probe/probe.h"

namespace gpuready::windows {
namespace {

constexpr size_t kMaxAdapters = 64;
constexpr size_t kMaxToolkits = 64;
constexpr size_t kMaxPciDevices = 1024;  // Enum\\PCI keys looked at (a workstation has ~50)

std::string text_of(const Registry& reg, const std::string& key, const char* name) {
  return parse::clean_text(reg.text(key, name).value_or(""), 256);
}

std::optional<long> to_long(const std::string& s) {
  if (!parse::all_digits(s) || s.size() > 9) return std::nullopt;
  return std::strtol(s.c_str(), nullptr, 10);
}

std::uint32_t hex_after(const std::string& lower, const char* tag, size_t digits) {
  const size_t at = lower.find(tag);
  if (at == std::string::npos) return 0;
  const std::string h = lower.substr(at + std::char_traits<char>::length(tag), digits);
  if (h.size() != digits) return 0;
  std::uint32_t v = 0;
  for (char c : h) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      return 0;
    v = v * 16 + static_cast<std::uint32_t>(d);
  }
  return v;
}

}  // namespace

std::optional<WindowsVersion> read_version(const Registry& reg, const std::string& kernel_release, std::string* why) {
  std::string error;
  const auto product = reg.value(kCurrentVersionKey, "ProductName", &error);
  if (!product || product->type != RegistryValue::Type::kString) {
    if (why)
      *why = "could not read the Windows edition (" +
             (product ? kCurrentVersionKey + std::string("\\ProductName is no string") : error) + ")";
    return std::nullopt;
  }
  WindowsVersion v;
  v.name = parse::clean_text(product->text, 256);
  v.edition = text_of(reg, kCurrentVersionKey, "EditionID");
  v.display_version = text_of(reg, kCurrentVersionKey, "DisplayVersion");
  if (v.display_version.empty()) v.display_version = text_of(reg, kCurrentVersionKey, "ReleaseId");

  // major.minor: the DWORDs Windows 10 added, else the kernel's (RtlGetVersion), else CurrentVersion ("6.1").
  std::string major_minor;
  const auto major = reg.value(kCurrentVersionKey, "CurrentMajorVersionNumber", nullptr);
  const auto minor = reg.value(kCurrentVersionKey, "CurrentMinorVersionNumber", nullptr);
  if (major && minor && major->type == RegistryValue::Type::kNumber && minor->type == RegistryValue::Type::kNumber) {
    major_minor = fmt::format("{}.{}", major->number, minor->number);
  } else if (const size_t dot = kernel_release.find('.', kernel_release.find('.') + 1);
             dot != std::string::npos && kernel_release.find('.') != std::string::npos) {
    major_minor = kernel_release.substr(0, dot);
  } else {
    major_minor = text_of(reg, kCurrentVersionKey, "CurrentVersion");
  }
  std::string build = text_of(reg, kCurrentVersionKey, "CurrentBuildNumber");
  if (!parse::all_digits(build)) build = text_of(reg, kCurrentVersionKey, "CurrentBuild");
  if (parse::all_digits(build)) v.build = to_long(build);
  v.version = major_minor;
  if (v.build) v.version += (v.version.empty() ? "" : ".") + std::to_string(*v.build);
  if (const auto ubr = reg.value(kCurrentVersionKey, "UBR", nullptr);
      v.build && ubr && ubr->type == RegistryValue::Type::kNumber)
    v.version += "." + std::to_string(ubr->number);

  // Windows 11 kept ProductName "Windows 10 Pro": its builds start at 22000.
  if (v.build && *v.build >= 22000 && v.name.rfind("Windows 10", 0) == 0) v.name = "Windows 11" + v.name.substr(10);
  v.wine = reg.subkeys(kWineKey, nullptr).has_value();
  return v;
}

std::optional<bool> read_secure_boot(const Registry& reg, std::string* why) {
  std::string error;
  const auto v = reg.value(kSecureBootKey, "UEFISecureBootEnabled", &error);
  if (!v) {
    if (why)
      *why = "Secure Boot state not in the registry (" + error + "): a legacy BIOS boot, or a Windows older than 8";
    return std::nullopt;
  }
  if (v->type != RegistryValue::Type::kNumber) {
    if (why) *why = std::string(kSecureBootKey) + "\\UEFISecureBootEnabled is not a number";
    return std::nullopt;
  }
  return v->number != 0;
}

std::optional<std::string> nvidia_version_from_windows(const std::string& driver_version) {
  // Four dot-separated numbers; the NVIDIA version is the last five digits of parts 3 and 4.
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= driver_version.size(); ++i) {
    if (i == driver_version.size() || driver_version[i] == '.') {
      parts.push_back(driver_version.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() != 4) return std::nullopt;
  for (const auto& p : parts)
    if (!parse::all_digits(p) || p.size() > 5) return std::nullopt;
  std::string fourth = parts[3];
  if (fourth.size() > 4) return std::nullopt;
  fourth.insert(0, 4 - fourth.size(), '0');
  const std::string digits = parts[2] + fourth;
  if (digits.size() < 5) return std::nullopt;
  const std::string last = digits.substr(digits.size() - 5);
  return fmt::format("{}.{}", std::strtol(last.substr(0, 3).c_str(), nullptr, 10), last.substr(3));
}

void parse_pci_hardware_id(const std::string& id, DisplayAdapter& out) {
  const std::string lower = parse::ascii_lower(id);
  if (lower.rfind("pci\\", 0) != 0) return;
  out.vendor_id = hex_after(lower, "ven_", 4);
  out.device_id = hex_after(lower, "dev_", 4);
  const std::uint32_t subsys = hex_after(lower, "subsys_", 8);
  out.subsystem_device_id = subsys >> 16;  // SUBSYS_ddddvvvv: device id first, then the vendor's
  out.subsystem_vendor_id = subsys & 0xffff;
}

std::vector<DisplayAdapter> read_display_adapters(const Registry& reg, std::string* why) {
  std::vector<DisplayAdapter> out;
  std::string error;
  const auto keys = reg.subkeys(kDisplayClassKey, &error);
  if (!keys) {
    if (why) *why = "could not list the display adapters (" + error + ")";
    return out;
  }
  for (const auto& k : *keys) {
    if (out.size() >= kMaxAdapters) break;
    if (!parse::all_digits(k)) continue;  // "Properties" and the like are no adapters
    DisplayAdapter a;
    a.key = std::string(kDisplayClassKey) + "\\" + k;
    a.description = text_of(reg, a.key, "DriverDesc");
    if (a.description.empty()) continue;  // a slot left by an uninstalled driver
    a.provider = text_of(reg, a.key, "ProviderName");
    a.driver_version = text_of(reg, a.key, "DriverVersion");
    a.driver_date = text_of(reg, a.key, "DriverDate");
    a.matching_id = text_of(reg, a.key, "MatchingDeviceId");
    parse_pci_hardware_id(a.matching_id, a);
    const bool nvidia = a.vendor_id == 0x10de || parse::ascii_lower(a.provider).find("nvidia") != std::string::npos;
    if (nvidia) a.nvidia_version = nvidia_version_from_windows(a.driver_version).value_or("");
    out.push_back(std::move(a));
  }
  if (out.empty() && why) *why = "no display adapter driver is installed (" + std::string(kDisplayClassKey) + ")";
  return out;
}

std::string pci_address_from_location(const std::string& location) {
  // "PCI bus 1, device 0, function 0" (English on every Windows: the PnP manager writes it).
  const std::string l = parse::ascii_lower(location);
  unsigned bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf(l.c_str(), "pci bus %u, device %u, function %u%c", &bus, &dev, &fn, &tail) != 3) return {};
  if (bus > 255 || dev > 31 || fn > 7) return {};
  return fmt::format("0000:{:02x}:{:02x}.{:x}", bus, dev, fn);
}

std::vector<PciGpu> read_pci_display_devices(const Registry& reg, std::vector<std::string>* notes) {
  std::vector<PciGpu> out;
  std::string error;
  const auto ids = reg.subkeys(kPciEnumKey, &error);
  if (!ids) {
    if (notes) notes->push_back("pci: could not list the PCI devices (" + error + ")");
    return out;
  }
  const std::string display_guid =
      parse::ascii_lower(std::string(kDisplayClassKey).substr(std::string(kDisplayClassKey).rfind('\\') + 1));
  size_t looked = 0;
  for (const auto& id : *ids) {
    if (++looked > kMaxPciDevices) break;
    const std::string id_key = std::string(kPciEnumKey) + "\\" + id;
    const auto instances = reg.subkeys(id_key, nullptr);
    if (!instances) continue;
    for (const auto& inst : *instances) {
      const std::string key = id_key + "\\" + inst;
      const std::string guid = parse::ascii_lower(text_of(reg, key, "ClassGUID"));
      if (guid != display_guid && parse::ascii_lower(text_of(reg, key, "Class")) != "display") continue;
      DisplayAdapter ids_of;
      parse_pci_hardware_id("PCI\\" + id, ids_of);
      if (ids_of.vendor_id == 0) {
        if (notes)
          notes->push_back("pci: left out the display adapter \"" + text_of(reg, key, "DeviceDesc") + "\" (" + id +
                           "): vendor id 0 is no PCI device (a virtual adapter)");
        continue;
      }
      PciGpu g;
      g.vendor_id = ids_of.vendor_id;
      g.vendor = pci_vendor_name(g.vendor_id);
      g.device_id = ids_of.device_id;
      g.subsystem_vendor_id = ids_of.subsystem_vendor_id;
      g.subsystem_device_id = ids_of.subsystem_device_id;
      g.class_code = 0x030000;
      g.address = pci_address_from_location(text_of(reg, key, "LocationInformation"));
      if (g.address.empty()) g.address = id + "\\" + inst;
      const std::string service = text_of(reg, key, "Service");
      g.kernel_driver = service.empty() ? std::string("none") : service;
      const std::string why_no_bus = "Windows keeps no PCIe link or NUMA facts in the registry";
      g.numa_node = Fact<int>::unknown(why_no_bus);
      g.link_speed_current = g.link_speed_max = Fact<std::string>::unknown(why_no_bus);
      g.link_width_current = g.link_width_max = Fact<int>::unknown(why_no_bus);
      out.push_back(std::move(g));
    }
  }
  std::sort(out.begin(), out.end(), [](const PciGpu& a, const PciGpu& b) { return a.address < b.address; });
  return out;
}

Fact<std::string> nvidia_driver_version(const std::vector<DisplayAdapter>& adapters, const std::string& why_none) {
  for (const auto& a : adapters) {
    if (!a.nvidia_version.empty()) return Fact<std::string>(a.nvidia_version);
    if (a.vendor_id == 0x10de && parse::ascii_lower(a.provider).find("nvidia") != std::string::npos)
      return Fact<std::string>::unknown(a.key + ": DriverVersion \"" + a.driver_version +
                                        "\" is not an NVIDIA driver version (a.b.c.dddd)");
  }
  return Fact<std::string>::unknown(why_none.empty() ? "no NVIDIA display driver is installed (display adapters: " +
                                                           std::to_string(adapters.size()) + ")"
                                                     : why_none);
}

std::vector<RegisteredToolkit> read_registered_toolkits(const Registry& reg) {
  std::vector<RegisteredToolkit> out;
  const auto keys = reg.subkeys(kCudaToolkitsKey, nullptr);
  if (!keys) return out;
  for (const auto& k : *keys) {
    if (out.size() >= kMaxToolkits) break;
    const std::string dir = reg.text(std::string(kCudaToolkitsKey) + "\\" + k, "InstallDir").value_or("");
    if (!dir.empty()) out.push_back({k, dir});
  }
  return out;
}

}  // namespace gpuready::windows
