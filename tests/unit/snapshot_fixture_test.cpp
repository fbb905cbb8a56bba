// Snapshots recorded by `gpuready probe --json --save` on real machines (the H200 test
// machine, with and without --cuda, and this GPU-less Debian 12 development machine): they
// must load, round-trip unchanged, hold the facts those machines really have, and render.
#include <gtest/gtest.h>

#include <fstream>

#include "core/snapshot.h"
#include "core/version.h"
#include "report/console.h"
#include "support/test_os.h"

using namespace gpuready;

namespace {

nlohmann::json load_json(const std::string& name) {
  std::ifstream f(test::fixture("snapshots/" + name));
  EXPECT_TRUE(f.good()) << name;
  return nlohmann::json::parse(f);
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST(SnapshotFixtures, EveryRecordedSnapshotRoundTrips) {
  for (const char* name : {"h200.json", "h200-cuda.json", "nogpu-debian12.json"}) {
    const nlohmann::json j = load_json(name);
    const Snapshot s = snapshot_from_json(j);
    EXPECT_EQ(snapshot_to_json(s), j) << name << ": a field was lost or changed in the round trip";
  }
}

TEST(SnapshotFixtures, H200HasItsDriverGpuAndLink) {
  const Snapshot s = snapshot_from_json(load_json("h200.json"));
  EXPECT_EQ(s.os.id.value_or("?"), "ubuntu");
  EXPECT_EQ(s.os.wsl.value_or("?"), "none");
  EXPECT_TRUE(s.cpu.isa.value().at("amx_tile"));
  const auto& n = s.nvidia;
  EXPECT_EQ(n.driver_version.value_or("?"), "580.159.04");
  EXPECT_EQ(n.cuda_driver_version.value_or("?"), "13.0");
  EXPECT_EQ(n.kernel_module_version.value_or("?"), n.driver_version.value_or("!"));
  ASSERT_EQ(n.gpus.size(), 1u);
  const auto& g = n.gpus[0];
  EXPECT_EQ(g.name.value_or("?"), "NVIDIA H200");
  EXPECT_EQ(g.compute_capability.value_or("?"), "9.0");
  EXPECT_EQ(g.architecture.value_or("?"), "Hopper");
  EXPECT_EQ(g.pcie_gen_max.value_or(0), 5);
  EXPECT_EQ(g.pcie_width_max.value_or(0), 16);
  EXPECT_GT(g.memory_total_bytes.value_or(0), 140ull * 1000 * 1000 * 1000);
  // Without --cuda the default probe skips cuInit because NVML answered, and says so.
  EXPECT_FALSE(n.cuda_init.has());
  EXPECT_TRUE(contains(n.cuda_init.why(), "--cuda")) << n.cuda_init.why();
  EXPECT_FALSE(g.sm_count.has());
  // The same GPU on the PCI bus, bound to the nvidia driver.
  ASSERT_EQ(s.pci_gpus.size(), 1u);
  EXPECT_EQ(s.pci_gpus[0].device_id, 0x2335u);
  EXPECT_EQ(s.pci_gpus[0].kernel_driver.value_or("?"), "nvidia");
  // The three CUDA versions are different facts: the driver's newest, the toolkit, torch's.
  ASSERT_FALSE(s.toolkits.empty());
  EXPECT_EQ(Version::parse(s.toolkits[0].version.value_or("0"))->major(), 13);
  bool torch_cu130 = false;
  for (const auto& env : s.python)
    for (const auto& p : env.packages)
      if (p.name == "torch") torch_cu130 = p.details.count("variant") && p.details.at("variant") == "cu130";
  EXPECT_TRUE(torch_cu130);
  // Two cuDNN 9 installs side by side (the system's 9.14, torch's pip 9.19): both are seen.
  std::vector<std::string> cudnn_versions;
  for (const auto& set : s.libraries.cudnn_sets) cudnn_versions.push_back(set.version.value_or("?"));
  EXPECT_NE(std::find(cudnn_versions.begin(), cudnn_versions.end(), "9.14.0"), cudnn_versions.end());
  EXPECT_NE(std::find(cudnn_versions.begin(), cudnn_versions.end(), "9.19.0"), cudnn_versions.end());
}

TEST(SnapshotFixtures, H200WithCudaHasTheDriversView) {
  const Snapshot s = snapshot_from_json(load_json("h200-cuda.json"));
  EXPECT_EQ(s.nvidia.cuda_init.value_or("?"), "CUDA_SUCCESS");
  EXPECT_EQ(s.nvidia.cuda_device_count.value_or(0), 1);
  ASSERT_EQ(s.nvidia.gpus.size(), 1u);
  EXPECT_EQ(s.nvidia.gpus[0].sm_count.value_or(0), 132);
  EXPECT_EQ(s.nvidia.gpus[0].cuda_ordinal.value_or(-1), 0);
}

TEST(SnapshotFixtures, MachineWithoutGpuSaysWhyForEveryDriverFact) {
  const Snapshot s = snapshot_from_json(load_json("nogpu-debian12.json"));
  EXPECT_EQ(s.os.id.value_or("?"), "debian");
  EXPECT_TRUE(s.pci_gpus.empty());
  EXPECT_TRUE(s.nvidia.gpus.empty());
  EXPECT_FALSE(s.nvidia.driver_version.has());
  EXPECT_TRUE(contains(s.nvidia.driver_version.why(), "libnvidia-ml.so.1")) << s.nvidia.driver_version.why();
  bool nvml_step_failed = false;
  for (const auto& st : s.nvidia.steps)
    if (st.name == "load libnvidia-ml.so.1") nvml_step_failed = !st.ok && contains(st.message, "cannot open shared object");
  EXPECT_TRUE(nvml_step_failed) << "the loader's own words must be kept";
  // The CUDA 13.0 toolkit assembled from pip wheels, read without running nvcc.
  ASSERT_EQ(s.toolkits.size(), 1u);
  EXPECT_EQ(s.toolkits[0].version.value_or("?"), "13.0.88");
  EXPECT_TRUE(s.toolkits[0].is_path_nvcc);
}

TEST(SnapshotFixtures, ConsoleShowsWhatMattersFirst) {
  const std::string h200 = render_snapshot_console(snapshot_from_json(load_json("h200.json")));
  for (const char* line : {"  driver:                580.159.04", "  newest CUDA:           13.0", "  GPU 0: NVIDIA H200",
                           "    compute:             9.0 (Hopper)", "    PCIe:                Gen5 x16 now, Gen5 x16 max",
                           "nvidia 10de:2335  driver: nvidia"})
    EXPECT_TRUE(contains(h200, line)) << "missing: " << line << "\n" << h200;
  const std::string nogpu = render_snapshot_console(snapshot_from_json(load_json("nogpu-debian12.json")));
  EXPECT_TRUE(contains(nogpu, "none found (no display or 3D controller on the bus)"));
  EXPECT_TRUE(contains(nogpu, "  driver:                unknown (no NVIDIA driver library"));
  EXPECT_TRUE(contains(nogpu, "/usr/local/cuda-13.0  13.0.88 (from dist-info)  <- nvcc on PATH"));
}
