// GPU tests (ctest label "gpu"): the real probe on a machine with an NVIDIA GPU, checked
// against NVIDIA's own tool (nvidia-smi --query-gpu). Skips itself, with the reason, where
// there is no GPU or no nvidia-smi.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <type_traits>

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

// One nvidia-smi --query-gpu answer per GPU, by field name; nullopt (with why) when it cannot answer.
std::optional<std::vector<std::map<std::string, std::string>>> query_fields(const std::vector<std::string>& fields,
                                                                            std::string* why) {
  std::string list;
  for (const auto& f : fields) list += (list.empty() ? "" : ",") + f;
  ProcOptions o;
  o.timeout = std::chrono::seconds(30);
  const ProcResult r = real_os().proc.run({"nvidia-smi", "--query-gpu=" + list, "--format=csv,noheader,nounits"}, o);
  if (!r.ok()) {
    *why = "nvidia-smi did not answer: " + (r.error.empty() ? r.err + r.out : r.error);
    return std::nullopt;
  }
  std::vector<std::map<std::string, std::string>> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    for (std::string cell; std::getline(cs, cell, ',');) {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(" \r");
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    if (cells.size() != fields.size()) continue;
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < fields.size(); ++i) m[fields[i]] = cells[i];
    out.push_back(std::move(m));
  }
  if (out.empty()) {
    *why = "nvidia-smi listed no GPU";
    return std::nullopt;
  }
  return out;
}

// nvidia-smi writes "[N/A]" or "[Not Supported]" where NVML answered NVML_ERROR_NOT_SUPPORTED.
bool smi_not_available(const std::string& cell) { return cell.empty() || cell.front() == '['; }

// A fact against nvidia-smi's cell: unknown where nvidia-smi has no value, else equal. Booleans
// come as "Yes"/"No" (remapped_rows.pending/.failure) or "Enabled"/"Disabled".
template <class T>
void expect_same(const Fact<T>& fact, const std::string& cell, const std::string& what) {
  if (smi_not_available(cell)) {
    EXPECT_FALSE(fact.has()) << what << ": nvidia-smi says " << cell << " but gpuready has a value";
    return;
  }
  ASSERT_TRUE(fact.has()) << what << ": nvidia-smi says " << cell << ", gpuready: " << fact.why();
  if constexpr (std::is_same_v<T, bool>) {
    const bool yes = cell == "Yes" || cell == "Enabled" || cell == "1";
    EXPECT_EQ(fact.value(), yes) << what << ": nvidia-smi says " << cell;
  } else {
    EXPECT_EQ(std::to_string(fact.value()), cell) << what;
  }
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

// The memory-health and PCIe facts against nvidia-smi's names for the same NVML calls
// (nvidia-smi --help-query-gpu). `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER` and the "GPU Link Info" of
// `nvidia-smi -q` (PCIe generation "Max", "Device Max") show the same.
TEST(GpuProbe, HealthFactsAgreeWithNvidiaSmi) {
  const std::vector<std::string> fields = {"pcie.link.gen.max",
                                           "pcie.link.gen.gpumax",
                                           "ecc.mode.current",
                                           "ecc.errors.uncorrected.volatile.total",
                                           "ecc.errors.uncorrected.aggregate.total",
                                           "ecc.errors.corrected.volatile.total",
                                           "retired_pages.single_bit_ecc.count",
                                           "retired_pages.double_bit.count",
                                           "retired_pages.pending",
                                           "remapped_rows.correctable",
                                           "remapped_rows.uncorrectable",
                                           "remapped_rows.pending",
                                           "remapped_rows.failure",
                                           "utilization.gpu"};
  std::string why;
  const auto smi = query_fields(fields, &why);
  if (!smi) GTEST_SKIP() << "no NVIDIA GPU (or an nvidia-smi without these fields) to compare with: " << why;
  const Snapshot s = probe({});
  ASSERT_EQ(s.nvidia.gpus.size(), smi->size());
  for (size_t i = 0; i < smi->size(); ++i) {
    const auto& f = smi->at(i);
    const auto& g = s.nvidia.gpus[i];
    SCOPED_TRACE("GPU " + std::to_string(i) + " " + g.name.value_or("?"));
    expect_same(g.pcie_gen_max, f.at("pcie.link.gen.max"), "pcie_gen_max");
    expect_same(g.pcie_gen_gpu_max, f.at("pcie.link.gen.gpumax"), "pcie_gen_gpu_max");
    expect_same(g.ecc_enabled, f.at("ecc.mode.current"), "ecc_enabled");
    expect_same(g.ecc_uncorrected_volatile, f.at("ecc.errors.uncorrected.volatile.total"), "ecc_uncorrected_volatile");
    expect_same(g.ecc_uncorrected_aggregate, f.at("ecc.errors.uncorrected.aggregate.total"),
                "ecc_uncorrected_aggregate");
    expect_same(g.ecc_corrected_volatile, f.at("ecc.errors.corrected.volatile.total"), "ecc_corrected_volatile");
    expect_same(g.retired_pages_sbe, f.at("retired_pages.single_bit_ecc.count"), "retired_pages_sbe");
    expect_same(g.retired_pages_dbe, f.at("retired_pages.double_bit.count"), "retired_pages_dbe");
    expect_same(g.retired_pages_pending, f.at("retired_pages.pending"), "retired_pages_pending");
    expect_same(g.remapped_rows_correctable, f.at("remapped_rows.correctable"), "remapped_rows_correctable");
    expect_same(g.remapped_rows_uncorrectable, f.at("remapped_rows.uncorrectable"), "remapped_rows_uncorrectable");
    expect_same(g.row_remap_pending, f.at("remapped_rows.pending"), "row_remap_pending");
    expect_same(g.row_remap_failed, f.at("remapped_rows.failure"), "row_remap_failed");
    // Utilisation moves between the two readings: known where nvidia-smi knows it, and a percentage.
    if (smi_not_available(f.at("utilization.gpu"))) {
      EXPECT_FALSE(g.utilization_percent.has());
    } else {
      ASSERT_TRUE(g.utilization_percent.has()) << g.utilization_percent.why();
      EXPECT_GE(g.utilization_percent.value(), 0);
      EXPECT_LE(g.utilization_percent.value(), 100);
    }
  }
}
