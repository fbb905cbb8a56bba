// collect_pci on sysfs fixture trees: the H200 VM (real /sys/devices symlink layout), a laptop
// with nouveau on a GTX 1650 Mobile beside an Intel iGPU, an AMD Navi 21 + Raphael, a GPU with
// no driver, WSL2's paravirtual adapter, garbage attributes, missing /sys, loops, unreadable dirs.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "probe/probe.h"
#include "support/test_os.h"

using namespace gpuready;
using gpuready::test::FixtureOs;

namespace {

std::vector<PciGpu> gpus(const std::string& tree) {
  FixtureOs f(tree);
  std::vector<PciGpu> out;
  collect_pci(f.os(), out);
  return out;
}

// A scratch tree for layouts git cannot hold (loops, permissions).
struct TempTree {
  std::filesystem::path root;
  TempTree() {
    root = std::filesystem::temp_directory_path() /
           ("gpuready_pci_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "sys/bus/pci/devices");
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::permissions(root / "sys/bus/pci/devices", std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(root, ec);
  }
  std::filesystem::path dev(const std::string& addr) { return root / "sys/bus/pci/devices" / addr; }
  void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::vector<PciGpu> collect() {
    test::RootedFs fs(root.string());
    test::MapEnv env;
    test::ScriptedProc proc(nullptr);
    test::NoDynLib dl;
    std::vector<PciGpu> out;
    collect_pci(Os{fs, env, proc, dl}, out);
    return out;
  }
};

}  // namespace

TEST(PciProbe, H200Gen5x16WithNvidiaDriver) {
  const auto g = gpus("hosts/h200");
  ASSERT_EQ(g.size(), 1u);  // the host bridge 0000:00:00.0 (class 0x0600) is not a GPU
  EXPECT_EQ(g[0].address, "0000:00:06.0");
  EXPECT_EQ(g[0].vendor, "nvidia");
  EXPECT_EQ(g[0].vendor_id, 0x10deu);
  EXPECT_EQ(g[0].device_id, 0x2335u);
  EXPECT_EQ(g[0].subsystem_vendor_id, 0x10deu);
  EXPECT_EQ(g[0].subsystem_device_id, 0x18bfu);
  EXPECT_EQ(g[0].class_code, 0x030200u);
  EXPECT_EQ(g[0].kernel_driver.value_or(""), "nvidia");
  EXPECT_EQ(g[0].link_speed_current.value_or(""), "32.0 GT/s PCIe");
  EXPECT_EQ(g[0].link_speed_max.value_or(""), "32.0 GT/s PCIe");
  EXPECT_EQ(g[0].link_width_current.value_or(0), 16);
  EXPECT_EQ(g[0].link_width_max.value_or(0), 16);
  EXPECT_FALSE(g[0].numa_node.has());  // numa_node -1 on this one-node VM
  EXPECT_NE(g[0].numa_node.why().find("-1"), std::string::npos) << g[0].numa_node.why();
}

TEST(PciProbe, LaptopNouveauAndIntelIgpu) {
  const auto g = gpus("hosts/laptop");
  ASSERT_EQ(g.size(), 2u);  // the GPU's HDMI audio function (class 0x0403) is left out
  EXPECT_EQ(g[0].address, "0000:00:02.0");  // sorted by address
  EXPECT_EQ(g[0].vendor, "intel");
  EXPECT_EQ(g[0].device_id, 0x3e9bu);
  EXPECT_EQ(g[0].class_code, 0x030000u);
  EXPECT_EQ(g[0].kernel_driver.value_or(""), "i915");
  // An integrated GPU has no PCIe link: the missing files become reasons.
  EXPECT_FALSE(g[0].link_speed_current.has());
  EXPECT_NE(g[0].link_speed_current.why().find("current_link_speed"), std::string::npos);
  EXPECT_FALSE(g[0].link_width_max.has());
  EXPECT_EQ(g[1].address, "0000:01:00.0");
  EXPECT_EQ(g[1].vendor, "nvidia");
  EXPECT_EQ(g[1].device_id, 0x1f91u);
  EXPECT_EQ(g[1].subsystem_vendor_id, 0x17aau);
  EXPECT_EQ(g[1].subsystem_device_id, 0x3a2eu);
  EXPECT_EQ(g[1].kernel_driver.value_or(""), "nouveau");
  EXPECT_EQ(g[1].link_speed_current.value_or(""), "2.5 GT/s PCIe");
  EXPECT_EQ(g[1].link_speed_max.value_or(""), "8.0 GT/s PCIe");
}

TEST(PciProbe, GpuWithoutDriver) {
  const auto g = gpus("hosts/nodriver");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].kernel_driver.value_or(""), "none");
  EXPECT_EQ(g[0].device_id, 0x2335u);
}

TEST(PciProbe, AmdDgpuAndIgpu) {
  const auto g = gpus("hosts/amd");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].address, "0000:03:00.0");
  EXPECT_EQ(g[0].vendor, "amd");
  EXPECT_EQ(g[0].vendor_id, 0x1002u);
  EXPECT_EQ(g[0].device_id, 0x73bfu);
  EXPECT_EQ(g[0].kernel_driver.value_or(""), "amdgpu");
  EXPECT_EQ(g[0].link_speed_max.value_or(""), "16.0 GT/s PCIe");
  EXPECT_EQ(g[1].address, "0000:13:00.0");
  EXPECT_EQ(g[1].device_id, 0x164eu);
  EXPECT_EQ(g[1].kernel_driver.value_or(""), "amdgpu");
  EXPECT_EQ(g[1].subsystem_vendor_id, 0u);  // subsystem files absent in this tree
}

TEST(PciProbe, Wsl2ShowsOnlyTheParavirtualAdapter) {
  const auto g = gpus("hosts/wsl2");
  ASSERT_EQ(g.size(), 1u);  // virtio-fs (class 0x0100) is not a GPU
  EXPECT_EQ(g[0].address, "fe50:00:00.0");
  EXPECT_EQ(g[0].vendor, "other");
  EXPECT_EQ(g[0].vendor_id, 0x1414u);  // Microsoft "Basic Render Driver", not the NVIDIA GPU
  EXPECT_EQ(g[0].kernel_driver.value_or(""), "none");
  EXPECT_FALSE(g[0].numa_node.has());
  EXPECT_FALSE(g[0].link_width_current.has());
}

TEST(PciProbe, NoSysfsMeansNoGpus) {
  EXPECT_TRUE(gpus("hosts/wsl1").empty());
  EXPECT_TRUE(gpus("hosts/does-not-exist").empty());
  EXPECT_TRUE(gpus("hosts/debian12").empty());  // this machine: virtio devices only
}

TEST(PciProbe, GarbageAttributes) {
  const auto g = gpus("hosts/garbage");
  // 0000:00:02.0 has class "garbage" (skipped), not-an-address is not a device name.
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].address, "0000:00:03.0");
  EXPECT_EQ(g[0].vendor_id, 0u);  // "nonsense"
  EXPECT_EQ(g[0].vendor, "other");
  EXPECT_EQ(g[0].device_id, 0u);  // 0x1234567890 does not fit 32 bits
  EXPECT_FALSE(g[0].numa_node.has());
  EXPECT_NE(g[0].numa_node.why().find("abc"), std::string::npos) << g[0].numa_node.why();
  EXPECT_FALSE(g[0].link_speed_current.has());  // "Unknown"
  EXPECT_NE(g[0].link_speed_current.why().find("Unknown"), std::string::npos);
  EXPECT_FALSE(g[0].link_speed_max.has());      // empty file
  EXPECT_NE(g[0].link_speed_max.why().find("empty"), std::string::npos);
  EXPECT_FALSE(g[0].link_width_current.has());  // 0
  EXPECT_FALSE(g[0].link_width_max.has());      // "x16"
  EXPECT_FALSE(g[0].kernel_driver.has());       // a link to "/" names no driver
  EXPECT_EQ(g[1].address, "0000:00:04.0");
  EXPECT_FALSE(g[1].kernel_driver.has());       // a directory where the symlink should be
  EXPECT_NE(g[1].kernel_driver.why().find("not a symlink"), std::string::npos) << g[1].kernel_driver.why();
  EXPECT_FALSE(g[1].subsystem_device_id);
}

TEST(PciProbe, SymlinkLoopsAndDanglingLinks) {
  TempTree t;
  std::filesystem::create_symlink("0000:00:01.0", t.dev("0000:00:01.0"));  // a link to itself
  std::filesystem::create_symlink("../../../devices/gone/0000:00:05.0", t.dev("0000:00:05.0"));  // dangling
  t.write(t.dev("0000:00:02.0") / "class", "0x030000\n");
  t.write(t.dev("0000:00:02.0") / "vendor", "0x10de\n");
  std::filesystem::create_symlink("driver", t.dev("0000:00:02.0") / "driver");  // driver -> itself
  const auto g = t.collect();
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].address, "0000:00:02.0");
  EXPECT_EQ(g[0].kernel_driver.value_or(""), "driver");  // the link's own words, not a hang
}

TEST(PciProbe, UnreadableDirectories) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not stop reads";
  TempTree t;
  t.write(t.dev("0000:00:02.0") / "class", "0x030000\n");
  std::filesystem::permissions(t.root / "sys/bus/pci/devices", std::filesystem::perms::none);
  EXPECT_TRUE(t.collect().empty());
}

TEST(PciProbe, DevicesPathIsAFile) {
  TempTree t;
  std::filesystem::remove_all(t.root / "sys/bus/pci/devices");
  t.write(t.root / "sys/bus/pci/devices", "not a directory\n");
  EXPECT_TRUE(t.collect().empty());
}

TEST(PciProbe, UnreadableAttributeFile) {
  TempTree t;
  t.write(t.dev("0000:00:02.0") / "class", "0x030200\n");
  std::filesystem::create_directories(t.dev("0000:00:02.0") / "numa_node");  // a dir: read fails
  const auto g = t.collect();
  ASSERT_EQ(g.size(), 1u);
  EXPECT_FALSE(g[0].numa_node.has());
  EXPECT_NE(g[0].numa_node.why().find("numa_node"), std::string::npos) << g[0].numa_node.why();
}

TEST(PciProbe, AMissingBusIsANoteNotASilentEmptyList) {
  test::FixtureOs f("hosts/does-not-exist");
  std::vector<PciGpu> out;
  std::vector<std::string> notes;
  collect_pci(f.os(), out, &notes);
  EXPECT_TRUE(out.empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("/sys/bus/pci/devices"), std::string::npos) << notes[0];
  // A bus that lists fine leaves no note.
  test::FixtureOs h("hosts/h200");
  notes.clear();
  collect_pci(h.os(), out, &notes);
  EXPECT_TRUE(notes.empty());
}
