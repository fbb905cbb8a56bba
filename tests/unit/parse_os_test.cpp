// Parsers behind the OS, CPU and PCI collectors: os-release, /proc/cpuinfo, /proc/meminfo,
// sysfs attributes, WSL/container hints and clean_text, on real excerpts and on bad input.
#include <gtest/gtest.h>

#include <string>

#include "parse/clean_text.h"
#include "parse/linux_hints.h"
#include "parse/os_release.h"
#include "parse/proc_cpuinfo.h"
#include "parse/proc_meminfo.h"
#include "parse/sysfs.h"

using namespace gpuready::parse;

TEST(OsRelease, ParsesDebianFile) {
  // /usr/lib/os-release of Debian 12, as on the build machine.
  const auto kv = os_release(
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
      "VERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\nHOME_URL=\"https://www.debian.org/\"\n");
  EXPECT_EQ(kv.at("PRETTY_NAME"), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(kv.at("ID"), "debian");
  EXPECT_EQ(kv.at("VERSION_ID"), "12");
  EXPECT_EQ(kv.at("VERSION_CODENAME"), "bookworm");
  EXPECT_EQ(kv.at("HOME_URL"), "https://www.debian.org/");
}

TEST(OsRelease, QuotingEscapesCommentsAndDuplicates) {
  const auto kv = os_release(
      "# comment\n  \nNAME='Single Quoted'\nPRETTY_NAME=\"say \\\"hi\\\" \\\\ \\$HOME\"\nID=first\nID=second\r\n"
      "BROKEN=\"unterminated\nTRAILING=\"x\" junk\nlower_key=ok\n=novalue\n1BAD=x\nEMPTY=\n");
  EXPECT_EQ(kv.at("NAME"), "Single Quoted");
  EXPECT_EQ(kv.at("PRETTY_NAME"), "say \"hi\" \\ $HOME");
  EXPECT_EQ(kv.at("ID"), "second");  // the shell keeps the last assignment
  EXPECT_EQ(kv.count("BROKEN"), 0u);
  EXPECT_EQ(kv.count("TRAILING"), 0u);
  EXPECT_EQ(kv.count("1BAD"), 0u);
  EXPECT_EQ(kv.at("EMPTY"), "");
  EXPECT_EQ(kv.size(), 5u);  // NAME PRETTY_NAME ID lower_key EMPTY
}

TEST(OsRelease, GarbageGivesNothingAndCleanValues) {
  EXPECT_TRUE(os_release("").empty());
  EXPECT_TRUE(os_release(std::string("\x7f" "ELF\x02\x01\x00\x00\n\xff\xfe", 11)).empty());
  const auto kv = os_release("NAME=\"a\xff\x01" "b\"\n");
  EXPECT_EQ(kv.at("NAME"), "a\xEF\xBF\xBD b");  // invalid byte -> U+FFFD, control -> space
}

TEST(CleanText, Utf8AndControlsAndLength) {
  EXPECT_EQ(clean_text("  Intel(R) Xeon(R)\t\n"), "Intel(R) Xeon(R)");
  EXPECT_EQ(clean_text("caf\xC3\xA9"), "caf\xC3\xA9");                   // valid UTF-8 kept
  EXPECT_EQ(clean_text("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");         // overlong rejected
  EXPECT_EQ(clean_text("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate rejected
  EXPECT_EQ(clean_text(std::string(1000, 'x'), 10).size(), 10u);
  EXPECT_EQ(clean_text("ab\xC3\xA9", 3), "ab");                            // never cuts a character
  EXPECT_EQ(first_line("32.0 GT/s PCIe\nmore"), "32.0 GT/s PCIe");
}

TEST(ProcCpuinfo, X86Blocks) {
  const auto info = proc_cpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nphysical id\t: 0\n"
      "core id\t\t: 0\ncpu cores\t: 16\nflags\t\t: fpu avx avx2 amx_tile\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\nphysical id\t: 1\ncore id\t\t: 3\nflags\t\t: fpu\n\n");
  ASSERT_EQ(info.processors.size(), 2u);
  EXPECT_EQ(info.processors[0].processor, 0);
  EXPECT_EQ(info.processors[0].vendor_id, "GenuineIntel");
  EXPECT_EQ(info.processors[0].model_name, "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(info.processors[0].cpu_cores, 16);
  EXPECT_EQ(info.processors[0].flags, "fpu avx avx2 amx_tile");
  EXPECT_EQ(info.processors[1].physical_id, 1);
  EXPECT_EQ(info.processors[1].core_id, 3);
  EXPECT_FALSE(info.arm_features);
}

TEST(ProcCpuinfo, Arm64Blocks) {
  const auto info = proc_cpuinfo(
      "processor\t: 71\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd sve sve2 bf16\nCPU implementer\t: 0x41\n"
      "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd4f\nCPU revision\t: 0\n");
  ASSERT_EQ(info.processors.size(), 1u);
  EXPECT_EQ(info.processors[0].processor, 71);
  EXPECT_EQ(info.processors[0].implementer, 0x41);
  EXPECT_EQ(info.processors[0].part, 0xd4f);
  EXPECT_EQ(info.processors[0].flags, "fp asimd sve sve2 bf16");
  EXPECT_TRUE(info.arm_features);
  EXPECT_TRUE(info.processors[0].model_name.empty());
}

TEST(ProcCpuinfo, OldArmGlobalLines) {
  // Older arm kernels: a "Processor" line first, per-CPU blocks, then "Hardware" after a blank line.
  const auto info = proc_cpuinfo(
      "Processor\t: AArch64 Processor rev 4 (aarch64)\nprocessor\t: 0\nprocessor\t: 1\n"
      "Features\t: fp asimd\n\nHardware\t: Qualcomm\n");
  EXPECT_EQ(info.processors.size(), 2u);
  EXPECT_EQ(info.global_model_name, "AArch64 Processor rev 4 (aarch64)");
}

TEST(ProcCpuinfo, BadInput) {
  EXPECT_TRUE(proc_cpuinfo("").processors.empty());
  EXPECT_TRUE(proc_cpuinfo("processor : zero\nvendor_id : X\n").processors.empty());
  const auto trunc = proc_cpuinfo("processor\t: 0\nvendor_id\t: Genu");  // cut mid-line
  ASSERT_EQ(trunc.processors.size(), 1u);
  EXPECT_EQ(trunc.processors[0].vendor_id, "Genu");
  const auto neg = proc_cpuinfo("processor : 0\nphysical id : -3\ncore id : 99999999999999\n");
  ASSERT_EQ(neg.processors.size(), 1u);
  EXPECT_FALSE(neg.processors[0].physical_id);
  EXPECT_FALSE(neg.processors[0].core_id);
  // A flood of blocks is bounded.
  std::string many;
  for (size_t i = 0; i < kMaxCpuInfoProcessors + 10; ++i) many += "processor : 1\n";
  EXPECT_EQ(proc_cpuinfo(many).processors.size(), kMaxCpuInfoProcessors);
}

TEST(ProcMeminfo, ParsesKilobytesAndCounts) {
  const auto m = proc_meminfo(
      "MemTotal:       24683620 kB\nMemAvailable:   24341944 kB\nHugePages_Total:       0\nActive(anon):  12 kB\n");
  EXPECT_EQ(m.at("MemTotal"), 24683620ull * 1024);
  EXPECT_EQ(m.at("MemAvailable"), 24341944ull * 1024);
  EXPECT_EQ(m.at("HugePages_Total"), 0u);
  EXPECT_EQ(m.at("Active(anon)"), 12u * 1024);
}

TEST(ProcMeminfo, BadInput) {
  EXPECT_TRUE(proc_meminfo("").empty());
  const auto m = proc_meminfo(
      "MemTotal: 99999999999999999999 kB\nMemFree: 18446744073709551615 kB\nX: 12 MB\nY: abc kB\nZ:\n: 5\n"
      "MemAvailable: 1");  // last line truncated, no unit: kept as a plain count
  EXPECT_EQ(m.count("MemTotal"), 0u);  // does not fit 64 bits
  EXPECT_EQ(m.count("MemFree"), 0u);   // fits, but not once multiplied by 1024
  EXPECT_EQ(m.count("X"), 0u);
  EXPECT_EQ(m.count("Y"), 0u);
  EXPECT_EQ(m.at("MemAvailable"), 1u);
}

TEST(Sysfs, HexIntAndAddress) {
  EXPECT_EQ(sysfs_hex("0x10de\n"), 0x10deu);
  EXPECT_EQ(sysfs_hex("0x030200\n"), 0x030200u);
  EXPECT_FALSE(sysfs_hex("10de\n"));
  EXPECT_FALSE(sysfs_hex("0x\n"));
  EXPECT_FALSE(sysfs_hex("0x1234567890\n"));
  EXPECT_FALSE(sysfs_hex("0x12g4"));
  EXPECT_FALSE(sysfs_hex(""));
  EXPECT_EQ(sysfs_int("-1\n"), -1);
  EXPECT_EQ(sysfs_int("16\n"), 16);
  EXPECT_FALSE(sysfs_int("x16"));
  EXPECT_FALSE(sysfs_int("16 lanes"));
  EXPECT_TRUE(is_pci_address("0000:00:06.0"));
  EXPECT_TRUE(is_pci_address("fe50:00:00.0"));
  EXPECT_TRUE(is_pci_address("10000:e0:06.0"));  // Intel VMD domain
  EXPECT_FALSE(is_pci_address("0000:00:06.8"));
  EXPECT_FALSE(is_pci_address("not-an-address"));
  EXPECT_FALSE(is_pci_address("0000:00:06"));
  EXPECT_FALSE(is_pci_address(""));
}

TEST(LinuxHints, WslFromKernel) {
  EXPECT_EQ(wsl_from_kernel("5.15.153.1-microsoft-standard-WSL2", ""), "wsl2");
  EXPECT_EQ(wsl_from_kernel("4.19.104-microsoft-standard", ""), "wsl2");  // early WSL2 kernels
  EXPECT_EQ(wsl_from_kernel("4.4.0-22621-Microsoft",
                            "Linux version 4.4.0-22621-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) )"),
            "wsl1");
  EXPECT_EQ(wsl_from_kernel("", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1)"), "wsl2");
  EXPECT_EQ(wsl_from_kernel("6.1.0-18-amd64", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)"), "");
  EXPECT_EQ(wsl_from_kernel("", ""), "");
}

TEST(LinuxHints, ContainerFromCgroup) {
  EXPECT_EQ(container_from_cgroup("12:pids:/docker/3f1c2a\n0::/docker/3f1c2a\n"), "docker");
  EXPECT_EQ(container_from_cgroup("0::/system.slice/docker-3f1c2a.scope\n"), "docker");
  EXPECT_EQ(container_from_cgroup("11:cpu:/kubepods/burstable/pod1/3f1c\n"), "kubernetes");
  EXPECT_EQ(container_from_cgroup("0::/machine.slice/libpod-3f1c.scope/container\n"), "podman");
  EXPECT_EQ(container_from_cgroup("0::/lxc.payload.web1\n"), "lxc");
  EXPECT_EQ(container_from_cgroup("0::/\n"), "");
  EXPECT_EQ(container_from_cgroup("0::/process_api/core\n"), "");
  EXPECT_EQ(container_from_cgroup("docker\n"), "");  // not in a path field
  EXPECT_EQ(container_from_cgroup(""), "");
}
