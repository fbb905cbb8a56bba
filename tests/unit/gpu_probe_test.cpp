// GPU tests (ctest label "gpu"): the real probe on a machine with an NVIDIA GPU, checked
// against NVIDIA's own tool (nvidia-smi --query-gpu). Skips itself, with the reason, where
// there is no GPU or no nvidia-smi.
#include <gtest/gtest.h>

#include <sstream>

#include "core/snapshot.h"
#include "core/version.h"
#include "platform/os.h"

using namespace gpuready;

namespace {

struct SmiGpu {
  std::vector<std::string> fields;
};

// nvidia-smi's CSV for the fields we compare; nullopt (with why) when it cannot answer.
std::optional<std::vector<SmiGpu>> query_nvidia_smi(std::string* why) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(30);
  const ProcResult r = real_os().proc.run(
      {"nvidia-smi",
       "--query-gpu=name,uuid,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max,compute_cap,pci.bus_id",
       "--format=csv,noheader,nounits"},
      o);
  if (!r.ok()) {
    *why = "nvidia-smi did not answer: " + (r.error.empty() ? r.err : r.error);
    return std::nullopt;
  }
  std::vector<SmiGpu> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    SmiGpu g;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) {
      const auto b = cell.find_first_not_of(' ');
      g.fields.push_back(b == std::string::npos ? "" : cell.substr(b));
    }
    if (g.fields.size() == 8) out.push_back(g);
  }
  if (out.empty()) {
    *why = "nvidia-smi listed no GPU";
    return std::nullopt;
  }
  return out;
}

Snapshot probe(const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {GPUREADY_EXE, "probe", "--json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  const ProcResult r = real_os().proc.run(argv, o);
  EXPECT_TRUE(r.ok()) << r.error << r.err;
  return snapshot_from_json(nlohmann::json::parse(r.out));
}

}  // namespace

TEST(GpuProbe, AgreesWithNvidiaSmi) {
  std::string why;
  const auto smi = query_nvidia_smi(&why);
  if (!smi) GTEST_SKIP() << "no NVIDIA GPU to compare with: " << why;
  const Snapshot s = probe({"--cuda"});
  const auto& n = s.nvidia;
  ASSERT_EQ(n.gpus.size(), smi->size()) << "gpuready and nvidia-smi list different numbers of GPUs";
  ASSERT_TRUE(n.driver_version.has()) << n.driver_version.why();
  EXPECT_EQ(n.driver_version.value(), smi->at(0).fields[2]);
  ASSERT_TRUE(n.cuda_driver_version.has()) << n.cuda_driver_version.why();
  EXPECT_TRUE(Version::parse(n.cuda_driver_version.value()));
  for (size_t i = 0; i < smi->size(); ++i) {
    const auto& f = smi->at(i).fields;
    const auto& g = n.gpus[i];
    EXPECT_EQ(g.name.value_or("?"), f[0]);
    EXPECT_EQ(g.uuid.value_or("?"), f[1]);
    ASSERT_TRUE(g.memory_total_bytes.has()) << g.memory_total_bytes.why();
    EXPECT_EQ(g.memory_total_bytes.value() / (1024 * 1024), std::stoull(f[3]));
    EXPECT_EQ(std::to_string(g.pcie_gen_max.value_or(-1)), f[4]);
    EXPECT_EQ(std::to_string(g.pcie_width_max.value_or(-1)), f[5]);
    EXPECT_EQ(g.compute_capability.value_or("?"), f[6]);
    ASSERT_TRUE(g.sm_count.has()) << "with --cuda the SM count comes from the CUDA driver: " << g.sm_count.why();
    EXPECT_GT(g.sm_count.value(), 0);
    EXPECT_TRUE(g.architecture.has()) << g.architecture.why();
  }
  EXPECT_EQ(n.cuda_init.value_or("?"), "CUDA_SUCCESS");
  EXPECT_EQ(static_cast<size_t>(n.cuda_device_count.value_or(-1)), smi->size());
  // The same GPUs are on the PCI bus with the nvidia driver bound.
  int bound = 0;
  for (const auto& p : s.pci_gpus)
    if (p.vendor == "nvidia" && p.kernel_driver.value_or("") == "nvidia") ++bound;
  EXPECT_EQ(static_cast<size_t>(bound), smi->size());
}

TEST(GpuProbe, DefaultProbeSkipsCuInitButKeepsNvmlFacts) {
  std::string why;
  const auto smi = query_nvidia_smi(&why);
  if (!smi) GTEST_SKIP() << "no NVIDIA GPU: " << why;
  const Snapshot s = probe({});
  ASSERT_EQ(s.nvidia.gpus.size(), smi->size());
  EXPECT_FALSE(s.nvidia.cuda_init.has()) << "cuInit should not run when NVML answered";
  EXPECT_FALSE(s.nvidia.cuda_init.why().empty());
}

TEST(GpuProbe, CudaVisibleDevicesHidingEveryGpuIsReported) {
  std::string why;
  const auto smi = query_nvidia_smi(&why);
  if (!smi) GTEST_SKIP() << "no NVIDIA GPU: " << why;
  std::vector<std::string> argv = {GPUREADY_EXE, "probe", "--json", "--cuda"};
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  o.set_env = {{"CUDA_VISIBLE_DEVICES", ""}};
  const ProcResult r = real_os().proc.run(argv, o);
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  const Snapshot s = snapshot_from_json(nlohmann::json::parse(r.out));
  EXPECT_EQ(s.nvidia.gpus.size(), smi->size()) << "NVML ignores CUDA_VISIBLE_DEVICES and still lists every GPU";
  EXPECT_EQ(s.nvidia.cuda_visible_devices.value_or("?"), "");
  EXPECT_NE(s.nvidia.cuda_init.value_or("CUDA_SUCCESS"), "CUDA_SUCCESS");
}
