// collect_pci: every display/3D controller on the PCI bus (class 0x03xxxx) as sysfs sees it,
// whatever driver is bound or none: vendor/device ids, NUMA node, PCIe link, bound driver.
// Linux: /sys/bus/pci/devices. Windows: the display devices of the registry's Enum\PCI (no sysfs there).
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "parse/clean_text.h"
#include "parse/sysfs.h"
#include "probe/probe.h"
#include "probe/windows_registry.h"

namespace gpuready {
namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
constexpr size_t kAttrMax = 256;      // sysfs attributes are one short line
constexpr size_t kMaxDevices = 4096;  // far above any real machine; bounds a garbage tree

}  // namespace

std::string pci_vendor_name(std::uint32_t id) {
  switch (id) {
    case 0x10de: return "nvidia";
    case 0x1002: return "amd";
    case 0x8086: return "intel";
    default: return "other";
  }
}

namespace {

class Device {
 public:
  Device(const Fs& fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}

  // The attribute's text, or nullopt with why_ set to a sentence about it.
  std::optional<std::string> read(const char* attr) {
    std::string error;
    auto t = fs_.read_file(dir_ + "/" + attr, kAttrMax, &error);
    if (!t) why_ = "could not read " + error;
    return t;
  }
  std::optional<std::uint32_t> hex(const char* attr) {
    auto t = read(attr);
    if (!t) return std::nullopt;
    auto v = parse::sysfs_hex(*t);
    if (!v) why_ = fmt::format("{}/{} does not hold a hex number: \"{}\"", dir_, attr, parse::clean_text(*t, 40));
    return v;
  }
  Fact<int> integer(const char* attr) {
    auto t = read(attr);
    if (!t) return Fact<int>::unknown(why_);
    auto v = parse::sysfs_int(*t);
    if (!v) return Fact<int>::unknown(fmt::format("{}/{} does not hold a number: \"{}\"", dir_, attr,
                                                  parse::clean_text(*t, 40)));
    return *v;
  }
  Fact<std::string> word(const char* attr) {
    auto t = read(attr);
    if (!t) return Fact<std::string>::unknown(why_);
    std::string w = parse::clean_text(parse::first_line(*t), 64);
    if (w.empty()) return Fact<std::string>::unknown(fmt::format("{}/{} is empty", dir_, attr));
    // The kernel writes "Unknown" when the link has not trained or the speed has no name.
    if (w == "Unknown" || w.rfind("Unknown ", 0) == 0)
      return Fact<std::string>::unknown(fmt::format("the kernel reports {} as \"{}\"", attr, w));
    return w;
  }
  const std::string& why() const { return why_; }
  const std::string& dir() const { return dir_; }

 private:
  const Fs& fs_;
  std::string dir_;
  std::string why_;
};

Fact<std::string> bound_driver(const Fs& fs, const std::string& dir) {
  const std::string link = dir + "/driver";
  if (auto target = fs.read_link(link)) {
    // "../../../bus/pci/drivers/nvidia" -> "nvidia"
    std::string t = *target;
    while (!t.empty() && t.back() == '/') t.pop_back();
    const size_t slash = t.find_last_of('/');
    std::string name = parse::clean_text(slash == std::string::npos ? t : t.substr(slash + 1), 64);
    if (name.empty()) return Fact<std::string>::unknown(fmt::format("{} points to \"{}\", which names no driver", link, *target));
    return name;
  }
  if (fs.exists(link)) return Fact<std::string>::unknown(fmt::format("{} exists but is not a symlink", link));
  return std::string("none");  // no driver bound: the device sits unused
}

Fact<int> width(Device& d, const char* attr) {
  Fact<int> w = d.integer(attr);
  // Width 0: the link is down or the device is not behind a PCIe link.
  if (w.has() && w.value() <= 0)
    return Fact<int>::unknown(fmt::format("the kernel reports {} as {} (no trained PCIe link)", attr, w.value()));
  return w;
}

}  // namespace

void collect_pci(const Os& os, std::vector<PciGpu>& out, std::vector<std::string>* notes) {
  out.clear();
#ifdef _WIN32
  // Windows: every display device the PnP manager enumerated (probe/windows_registry.h).
  out = windows::read_pci_display_devices(os.reg, notes);
  return;
#endif
  std::string error;
  const auto entries = os.fs.list_dir(kPciDevices, &error);
  if (!entries) {  // no sysfs (Windows, WSL1, a container without /sys): nothing to list, and say so
    if (notes) notes->push_back("pci: the PCI bus could not be listed (" + error + "); GPUs without a driver are not seen");
    return;
  }

  size_t seen = 0;
  for (const DirEntry& e : *entries) {
    if (++seen > kMaxDevices) break;
    if (!parse::is_pci_address(e.name)) continue;
    Device d(os.fs, std::string(kPciDevices) + "/" + e.name);
    // Only display controllers (base class 0x03: VGA 0x0300, 3D 0x0302, other 0x0380).
    const auto cls = d.hex("class");
    if (!cls || (*cls >> 16) != 0x03) continue;

    PciGpu g;
    g.address = e.name;
    g.class_code = *cls;
    g.vendor_id = d.hex("vendor").value_or(0);
    g.vendor = pci_vendor_name(g.vendor_id);
    g.device_id = d.hex("device").value_or(0);
    g.subsystem_vendor_id = d.hex("subsystem_vendor").value_or(0);
    g.subsystem_device_id = d.hex("subsystem_device").value_or(0);
    g.kernel_driver = bound_driver(os.fs, d.dir());

    g.numa_node = d.integer("numa_node");
    if (g.numa_node.has() && g.numa_node.value() < 0)
      g.numa_node = Fact<int>::unknown(
          "the kernel gives this device no NUMA node (numa_node is -1: a one-node machine, or the firmware "
          "does not say)");

    g.link_speed_current = d.word("current_link_speed");
    g.link_speed_max = d.word("max_link_speed");
    g.link_width_current = width(d, "current_link_width");
    g.link_width_max = width(d, "max_link_width");
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const PciGpu& a, const PciGpu& b) { return a.address < b.address; });
}

}  // namespace gpuready
