// collect_cpu on fixture trees from real machines: this Debian 12 AMD EPYC VM, the H200's
// Intel Xeon (AVX-512 + AMX), an arm64 Neoverse-V2 (Grace), and truncated/empty/missing files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probe/os_detect.h"
#include "probe/probe.h"
#include "support/test_os.h"

using namespace gpuready;
using gpuready::detail::OsFamily;
using gpuready::test::FixtureOs;

namespace {

CpuFacts facts(const std::string& tree, const HostInfo* host = nullptr, OsFamily family = OsFamily::kLinux) {
  FixtureOs f(tree);
  CpuFacts c;
  detail::collect_cpu_as(f.os(), family, host, c);
  return c;
}

bool has_isa(const CpuFacts& c, const std::string& name) {
  const auto* m = c.isa.get();
  if (!m) return false;
  auto it = m->find(name);
  EXPECT_NE(it, m->end()) << name << " missing from the ISA map";
  return it != m->end() && it->second;
}

}  // namespace

TEST(CpuProbe, Debian12AmdEpyc) {
  const CpuFacts c = facts("hosts/debian12");
  EXPECT_EQ(c.vendor.value_or(""), "AuthenticAMD");
  EXPECT_EQ(c.model.value_or(""), "AMD EPYC");
  EXPECT_EQ(c.sockets.value_or(0), 1);
  EXPECT_EQ(c.cores.value_or(0), 2);
  EXPECT_EQ(c.threads.value_or(0), 2);
  for (const char* f : {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                        "avx512_bf16"})
    EXPECT_TRUE(has_isa(c, f)) << f;
  for (const char* f : {"amx_tile", "amx_bf16", "amx_int8"}) EXPECT_FALSE(has_isa(c, f)) << f;
  EXPECT_EQ(c.isa.value().size(), 13u);
  EXPECT_EQ(c.ram_bytes.value_or(0), 24683620ull * 1024);
  EXPECT_EQ(c.ram_available_bytes.value_or(0), 24216996ull * 1024);
}

TEST(CpuProbe, H200XeonWithAmx) {
  const CpuFacts c = facts("hosts/h200");
  EXPECT_EQ(c.vendor.value_or(""), "GenuineIntel");
  EXPECT_EQ(c.model.value_or(""), "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(c.sockets.value_or(0), 1);
  EXPECT_EQ(c.cores.value_or(0), 16);
  EXPECT_EQ(c.threads.value_or(0), 16);
  for (const char* f : {"avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16",
                        "amx_int8", "fma", "f16c", "sse4_2"})
    EXPECT_TRUE(has_isa(c, f)) << f;
  EXPECT_EQ(c.ram_bytes.value_or(0), 131981020ull * 1024);
}

TEST(CpuProbe, Arm64GraceFromFeaturesAndSysfsTopology) {
  const CpuFacts c = facts("hosts/grace");
  EXPECT_EQ(c.vendor.value_or(""), "ARM");
  EXPECT_EQ(c.model.value_or(""), "Neoverse-V2");  // from CPU implementer 0x41 / part 0xd4f
  EXPECT_EQ(c.threads.value_or(0), 2);
  EXPECT_EQ(c.sockets.value_or(0), 1);   // /sys/devices/system/cpu/cpu*/topology
  EXPECT_EQ(c.cores.value_or(0), 2);
  for (const char* f : {"asimd", "sve", "sve2", "bf16", "i8mm"}) EXPECT_TRUE(has_isa(c, f)) << f;
  EXPECT_FALSE(has_isa(c, "sme"));
  EXPECT_EQ(c.isa.value().count("avx2"), 0u);  // x86 names do not apply
  EXPECT_FALSE(c.ram_bytes.has());
  EXPECT_NE(c.ram_bytes.why().find("/proc/meminfo"), std::string::npos) << c.ram_bytes.why();
}

TEST(CpuProbe, UnknownArmPartSaysWhich) {
  // A tree made at run time: an arm64 cpuinfo whose part number gpuready does not know.
  const auto root = std::filesystem::temp_directory_path() / ("gpuready_cpu_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(root / "proc");
  std::ofstream(root / "proc/cpuinfo") << "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xfff\n";
  test::RootedFs fs(root.string());
  test::MapEnv env;
  test::ScriptedProc proc(nullptr);
  test::NoDynLib dl;
  CpuFacts c;
  detail::collect_cpu_as(Os{fs, env, proc, dl}, OsFamily::kLinux, nullptr, c);
  std::filesystem::remove_all(root);
  EXPECT_EQ(c.vendor.value_or(""), "ARM");
  EXPECT_FALSE(c.model.has());
  EXPECT_NE(c.model.why().find("0xfff"), std::string::npos) << c.model.why();
  EXPECT_FALSE(c.cores.has());  // no topology anywhere
  EXPECT_TRUE(has_isa(c, "asimd"));
}

TEST(CpuProbe, TruncatedCpuinfoAndEmptyMeminfo) {
  const CpuFacts c = facts("hosts/garbage");
  EXPECT_EQ(c.vendor.value_or(""), "GenuineIntel");
  EXPECT_EQ(c.threads.value_or(0), 1);
  EXPECT_FALSE(c.sockets.has());
  EXPECT_FALSE(c.sockets.why().empty());
  EXPECT_FALSE(c.cores.has());
  EXPECT_NE(c.cores.why().find("1 logical CPUs"), std::string::npos) << c.cores.why();
  // The flags line is cut at "av": avx must not be reported from the fragment.
  EXPECT_TRUE(has_isa(c, "sse4_2"));
  EXPECT_TRUE(has_isa(c, "fma"));
  EXPECT_FALSE(has_isa(c, "avx"));
  EXPECT_FALSE(c.ram_bytes.has());
  EXPECT_NE(c.ram_bytes.why().find("MemTotal"), std::string::npos) << c.ram_bytes.why();
  EXPECT_FALSE(c.ram_available_bytes.has());
}

TEST(CpuProbe, MissingProcGivesReasons) {
  const CpuFacts c = facts("hosts/does-not-exist");
  EXPECT_FALSE(c.vendor.has());
  EXPECT_NE(c.vendor.why().find("/proc/cpuinfo"), std::string::npos) << c.vendor.why();
  EXPECT_FALSE(c.threads.has());
  EXPECT_FALSE(c.isa.has());
  EXPECT_FALSE(c.ram_bytes.has());
  // uname/sysinfo answers fill what they can.
  HostInfo host;
  host.logical_cpus = 8;
  host.ram_bytes = 16ull << 30;
  const CpuFacts h = facts("hosts/does-not-exist", &host);
  EXPECT_EQ(h.threads.value_or(0), 8);
  EXPECT_EQ(h.ram_bytes.value_or(0), 16ull << 30);
  EXPECT_FALSE(h.cores.has());
}

TEST(CpuProbe, WindowsFamilySaysNotImplemented) {
  HostInfo host;
  host.logical_cpus = 12;
  const CpuFacts c = facts("hosts/debian12", &host, OsFamily::kWindows);  // Linux files are not read
  EXPECT_FALSE(c.vendor.has());
  EXPECT_NE(c.vendor.why().find("not implemented yet"), std::string::npos);
  EXPECT_EQ(c.threads.value_or(0), 12);
  EXPECT_FALSE(c.ram_bytes.has());
}

TEST(CpuProbe, ThisMachineHasFacts) {
  CpuFacts c;
  collect_cpu(real_os(), c);
  EXPECT_TRUE(c.threads.has()) << c.threads.why();
  EXPECT_GT(c.threads.value_or(0), 0);
  EXPECT_TRUE(c.ram_bytes.has()) << c.ram_bytes.why();
}
