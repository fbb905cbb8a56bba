// collect_os on fixture trees recorded from real machines (tests/fixtures/hosts/<tree>):
// Debian 12 here, the Ubuntu 24.04 H200 VM, WSL2, WSL1, and broken or missing files.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "probe/os_detect.h"
#include "probe/probe.h"
#include "support/test_os.h"

using namespace gpuready;
using gpuready::detail::OsFamily;
using gpuready::test::FixtureOs;

namespace {

// Fixture facts only: no HostInfo, so the answer cannot come from the machine running the test.
OsFacts facts(const FixtureOs& f, const HostInfo* host = nullptr, OsFamily family = OsFamily::kLinux) {
  OsFacts o;
  detail::collect_os_as(f.os(), family, host, o);
  return o;
}

}  // namespace

TEST(OsProbe, Debian12ThisMachine) {
  FixtureOs f("hosts/debian12", {{"CONTAINER_NAME", "fatal-pizza"}});
  const OsFacts o = facts(f);
  EXPECT_EQ(o.family.value_or(""), "linux");
  EXPECT_EQ(o.name.value_or(""), "Debian GNU/Linux 12 (bookworm)");  // via the /etc/os-release symlink
  EXPECT_EQ(o.id.value_or(""), "debian");
  EXPECT_EQ(o.version.value_or(""), "12");
  EXPECT_EQ(o.kernel.value_or(""), "6.18.44-fc-v782");
  EXPECT_EQ(o.arch.value_or(""), "x86_64");
  EXPECT_EQ(o.wsl.value_or(""), "none");
  EXPECT_EQ(o.container.value_or(""), "docker");  // /.dockerenv
}

TEST(OsProbe, H200Ubuntu2404) {
  FixtureOs f("hosts/h200");
  const OsFacts o = facts(f);
  EXPECT_EQ(o.name.value_or(""), "Ubuntu 24.04.3 LTS");
  EXPECT_EQ(o.id.value_or(""), "ubuntu");
  EXPECT_EQ(o.version.value_or(""), "24.04");
  EXPECT_EQ(o.kernel.value_or(""), "6.18.44-fc-v657-gpu");
  EXPECT_EQ(o.arch.value_or(""), "x86_64");
  EXPECT_EQ(o.wsl.value_or(""), "none");
  EXPECT_EQ(o.container.value_or(""), "docker");
}

TEST(OsProbe, Wsl2) {
  FixtureOs f("hosts/wsl2", {{"WSL_DISTRO_NAME", "Ubuntu-22.04"}, {"WSL_INTEROP", "/run/WSL/1234_interop"}});
  const OsFacts o = facts(f);
  EXPECT_EQ(o.name.value_or(""), "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(o.version.value_or(""), "22.04");
  EXPECT_EQ(o.kernel.value_or(""), "5.15.153.1-microsoft-standard-WSL2");
  EXPECT_EQ(o.wsl.value_or(""), "wsl2");
  EXPECT_EQ(o.container.value_or(""), "none");
  // WSL2 5.15 predates /proc/sys/kernel/arch: without uname the arch is unknown, with a reason...
  EXPECT_FALSE(o.arch.has());
  EXPECT_NE(o.arch.why().find("/proc/sys/kernel/arch"), std::string::npos) << o.arch.why();
  // ...and with uname's answer it is known.
  HostInfo host;
  host.machine = "x86_64";
  EXPECT_EQ(facts(f, &host).arch.value_or(""), "x86_64");
}

TEST(OsProbe, Wsl1) {
  FixtureOs f("hosts/wsl1", {{"WSL_DISTRO_NAME", "Ubuntu-20.04"}});
  const OsFacts o = facts(f);
  EXPECT_EQ(o.name.value_or(""), "Ubuntu 20.04.6 LTS");
  EXPECT_EQ(o.kernel.value_or(""), "4.4.0-22621-Microsoft");
  EXPECT_EQ(o.wsl.value_or(""), "wsl1");
}

TEST(OsProbe, CustomWsl2KernelFoundByEnvironment) {
  // A self-built WSL2 kernel need not say "microsoft"; the WSL variables still do.
  FixtureOs f("hosts/debian12", {{"WSL_INTEROP", "/run/WSL/1_interop"}});
  EXPECT_EQ(facts(f).wsl.value_or(""), "wsl2");
  FixtureOs g("hosts/does-not-exist", {{"WSL_DISTRO_NAME", "Ubuntu"}});
  const OsFacts o = facts(g);
  EXPECT_FALSE(o.wsl.has());
  EXPECT_NE(o.wsl.why().find("WSL_DISTRO_NAME"), std::string::npos) << o.wsl.why();
}

TEST(OsProbe, ContainerSigns) {
  EXPECT_EQ(facts(FixtureOs("hosts/debian12", {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}})).container.value_or(""),
            "kubernetes");
  EXPECT_EQ(facts(FixtureOs("hosts/wsl1", {{"container", "systemd-nspawn"}})).container.value_or(""),
            "systemd-nspawn");
  EXPECT_EQ(facts(FixtureOs("hosts/wsl1", {{"container", "Podman"}})).container.value_or(""), "podman");
  EXPECT_EQ(facts(FixtureOs("hosts/wsl1")).container.value_or(""), "none");
}

TEST(OsProbe, UsrLibFallback) {
  const OsFacts o = facts(FixtureOs("hosts/fallback"));
  EXPECT_EQ(o.id.value_or(""), "debian");
  EXPECT_EQ(o.version.value_or(""), "12");
}

TEST(OsProbe, GarbageFilesGiveReasons) {
  const OsFacts o = facts(FixtureOs("hosts/garbage"));
  EXPECT_EQ(o.family.value_or(""), "linux");
  // NAME="Broken is unterminated; PRETTY_NAME holds invalid UTF-8 and a control byte.
  EXPECT_EQ(o.name.value_or(""), "\xEF\xBF\xBD\xEF\xBF\xBDLinux");
  EXPECT_FALSE(o.id.has());  // ID= is empty
  EXPECT_NE(o.id.why().find("no ID line"), std::string::npos) << o.id.why();
  EXPECT_FALSE(o.version.has());
  EXPECT_NE(o.version.why().find("VERSION_ID"), std::string::npos);
  EXPECT_FALSE(o.kernel.has());  // empty osrelease
  EXPECT_NE(o.kernel.why().find("empty"), std::string::npos) << o.kernel.why();
  EXPECT_FALSE(o.arch.has());    // blank lines only
  EXPECT_FALSE(o.wsl.has());     // no kernel text at all
  EXPECT_EQ(o.container.value_or(""), "none");
}

TEST(OsProbe, MissingTreeGivesReasonsNotCrashes) {
  const OsFacts o = facts(FixtureOs("hosts/does-not-exist"));
  EXPECT_EQ(o.family.value_or(""), "linux");
  for (const Fact<std::string>* f : {&o.name, &o.id, &o.version, &o.kernel, &o.arch, &o.wsl}) {
    EXPECT_FALSE(f->has());
    EXPECT_FALSE(f->why().empty());
  }
  EXPECT_NE(o.name.why().find("/etc/os-release"), std::string::npos) << o.name.why();
  EXPECT_NE(o.name.why().find("/usr/lib/os-release"), std::string::npos) << o.name.why();
  // Kernel and arch from uname when the files are gone.
  HostInfo host;
  host.kernel_release = "6.1.0-18-amd64";
  host.machine = "aarch64";
  const OsFacts h = facts(FixtureOs("hosts/does-not-exist"), &host);
  EXPECT_EQ(h.kernel.value_or(""), "6.1.0-18-amd64");
  EXPECT_EQ(h.arch.value_or(""), "aarch64");
  EXPECT_EQ(h.wsl.value_or(""), "none");
}

// Windows without the registry's CurrentVersion key (and without host facts): each fact says why.
// The edition and build from a real registry: tests/unit/windows_layout_test.cpp.
TEST(OsProbe, WindowsWithoutItsRegistryKeysSaysWhy) {
  FixtureOs f("hosts/does-not-exist", {{"PROCESSOR_ARCHITECTURE", "AMD64"}});
  const OsFacts o = facts(f, nullptr, OsFamily::kWindows);
  EXPECT_EQ(o.family.value_or(""), "windows");
  EXPECT_EQ(o.id.value_or(""), "windows");
  EXPECT_EQ(o.arch.value_or(""), "x86_64");
  EXPECT_EQ(o.wsl.value_or(""), "none");
  for (const Fact<std::string>* f2 : {&o.name, &o.version}) {
    EXPECT_FALSE(f2->has());
    EXPECT_NE(f2->why().find("CurrentVersion: The system cannot find"), std::string::npos) << f2->why();
  }
  EXPECT_NE(o.kernel.why().find("RtlGetVersion"), std::string::npos) << o.kernel.why();
  EXPECT_NE(o.container.why().find("not implemented yet"), std::string::npos) << o.container.why();
  FixtureOs arm("hosts/does-not-exist", {{"PROCESSOR_ARCHITECTURE", "x86"}, {"PROCESSOR_ARCHITEW6432", "ARM64"}});
  EXPECT_EQ(facts(arm, nullptr, OsFamily::kWindows).arch.value_or(""), "aarch64");
}

// ------------------------------------------------------------------ Secure Boot (the SecureBoot EFI variable)

TEST(OsSecureBoot, EfiVariableOnAndOff) {
  // efivarfs: 4 attribute bytes (0x06: boot-service and runtime access), then the value.
  EXPECT_EQ(facts(FixtureOs("hosts/laptop")).secure_boot.value_or(false), true);
  EXPECT_EQ(facts(FixtureOs("hosts/ubuntu2404_runfile")).secure_boot.value_or(false), true);
  const OsFacts off = facts(FixtureOs("hosts/debian12_kernel_update"));
  EXPECT_EQ(off.secure_boot.value_or(true), false) << off.secure_boot.why();
  // The sysfs interface of kernels before 6.0 (vars/<name>/data: the value byte alone).
  EXPECT_EQ(facts(FixtureOs("hosts/rhel7_efi_vars")).secure_boot.value_or(false), true);
}

TEST(OsSecureBoot, LegacyBiosBootHasNoSecureBoot) {
  // No /sys/firmware/efi beside a populated /sys/firmware: the machine booted through a BIOS.
  const OsFacts server = facts(FixtureOs("hosts/ubuntu2404_dkms_bios"));
  EXPECT_EQ(server.secure_boot.value_or(true), false) << server.secure_boot.why();
  // This machine and the H200 test machine (Firecracker VMs: ACPI tables and a memory map, no UEFI), seen
  // from their docker containers, which leave /sys/firmware visible.
  const OsFacts here = facts(FixtureOs("hosts/debian12"));
  EXPECT_EQ(here.secure_boot.value_or(true), false) << here.secure_boot.why();
  const OsFacts h200 = facts(FixtureOs("hosts/h200"));
  EXPECT_EQ(h200.container.value_or(""), "docker");
  EXPECT_EQ(h200.secure_boot.value_or(true), false) << h200.secure_boot.why();
}

TEST(OsSecureBoot, HiddenOrUnreadableFirmwareIsUnknown) {
  // No /sys/firmware at all (a runtime that hides it, sysfs not mounted): no efi/ says nothing about the boot.
  const OsFacts hidden = facts(FixtureOs("hosts/fallback"));
  EXPECT_FALSE(hidden.secure_boot.has());
  EXPECT_NE(hidden.secure_boot.why().find("/sys/firmware is not readable"), std::string::npos)
      << hidden.secure_boot.why();
  EXPECT_NE(hidden.secure_boot.why().find("the boot mode is not visible"), std::string::npos)
      << hidden.secure_boot.why();
  const OsFacts unmounted = facts(FixtureOs("hosts/efivarfs_unmounted"));
  EXPECT_FALSE(unmounted.secure_boot.has());
  EXPECT_NE(unmounted.secure_boot.why().find("booted through UEFI, but /sys/firmware/efi/efivars is not readable"),
            std::string::npos)
      << unmounted.secure_boot.why();
  // A variable without its value byte.
  const OsFacts garbage = facts(FixtureOs("hosts/garbage"));
  EXPECT_FALSE(garbage.secure_boot.has());
  EXPECT_NE(garbage.secure_boot.why().find("holds 3 bytes, not the 5 of a one-byte EFI variable"), std::string::npos)
      << garbage.secure_boot.why();
  EXPECT_FALSE(facts(FixtureOs("hosts/does-not-exist")).secure_boot.has());
}

TEST(OsSecureBoot, WslAndOtherSystemsSayWhy) {
  FixtureOs wsl("hosts/wsl2", {{"WSL_DISTRO_NAME", "Ubuntu-22.04"}});
  const OsFacts w = facts(wsl);
  EXPECT_FALSE(w.secure_boot.has());
  EXPECT_NE(w.secure_boot.why().find("Windows host"), std::string::npos) << w.secure_boot.why();
  // The laptop's efivars are not read on Windows or macOS, whatever the tree holds: Windows asks its
  // registry (SecureBoot\State), which this tree lacks.
  const OsFacts win = facts(FixtureOs("hosts/laptop"), nullptr, OsFamily::kWindows);
  EXPECT_FALSE(win.secure_boot.has());
  EXPECT_NE(win.secure_boot.why().find("SecureBoot\\State: The system cannot find"), std::string::npos)
      << win.secure_boot.why();
  const OsFacts mac = facts(FixtureOs("hosts/laptop"), nullptr, OsFamily::kMacos);
  EXPECT_FALSE(mac.secure_boot.has());
  EXPECT_NE(mac.secure_boot.why().find("macOS"), std::string::npos) << mac.secure_boot.why();
}

TEST(OsProbe, RealMachineTiming) {
  // Not an assertion on time: prints what the three host collectors cost here.
  const Os& os = real_os();
  const auto t0 = std::chrono::steady_clock::now();
  OsFacts o;
  CpuFacts c;
  std::vector<PciGpu> p;
  collect_os(os, o);
  const auto t1 = std::chrono::steady_clock::now();
  collect_cpu(os, c);
  const auto t2 = std::chrono::steady_clock::now();
  collect_pci(os, p);
  const auto t3 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("[timing] collect_os %.3f ms, collect_cpu %.3f ms, collect_pci %.3f ms\n", ms(t0, t1), ms(t1, t2),
              ms(t2, t3));
  EXPECT_TRUE(o.family.has());
  EXPECT_TRUE(o.kernel.has()) << o.kernel.why();
}
