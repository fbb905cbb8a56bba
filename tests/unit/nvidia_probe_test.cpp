// The NVIDIA driver collector against the fake driver libraries (tests/fakes), scenario by
// scenario (tests/fixtures/nvidia/*.json): in this process and through the isolated child
// (the real gpuready executable), plus the parsers behind it (parse/driver_version.h).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "doctor/doctor.h"
#include "knowledge/compat.h"
#include "parse/driver_version.h"
#include "parse/modules_dep.h"
#include "probe/nvidia_driver.h"
#include "probe/probe.h"
#include "support/test_os.h"

namespace gpuready {
namespace {

#ifndef _WIN32  // the fake driver libraries are ELF shared objects (tests/fakes)

const std::string kFakes = GPUREADY_FAKES_DIR;
std::string fake_nvml(bool r470 = false) { return kFakes + (r470 ? "/old" : "") + "/libnvidia-ml.so.1"; }
std::string fake_cuda(bool r470 = false) { return kFakes + (r470 ? "/old" : "") + "/libcuda.so.1"; }
std::string scenario(const std::string& name) { return test::fixture("nvidia/" + name + ".json"); }

// Sets (or unsets) one environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) ::setenv(name_.c_str(), value->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The real file system, except /proc/driver/nvidia from a fixture tree (the scenario's kernel
// module) and the running kernel's release and /lib/modules from a host tree (tests/fixtures/hosts;
// one without them, such as "none", leaves the release to uname and /lib/modules empty). The fake
// libraries themselves are real files, and the probe resolves their links.
class ProcOverlayFs final : public Fs {
 public:
  explicit ProcOverlayFs(const std::string& tree, const std::string& host = "none")
      : tree_(test::fixture("nvidia/trees/" + tree)), host_(test::fixture("hosts/" + host)) {}
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes, std::string* error) const override {
    return pick(path).read_file(path, max_bytes, error);
  }
  std::optional<std::string> read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                          std::string* error) const override {
    return pick(path).read_file_at(path, offset, max_bytes, error);
  }
  std::optional<std::vector<DirEntry>> list_dir(const std::string& path, std::string* error) const override {
    return pick(path).list_dir(path, error);
  }
  bool exists(const std::string& path) const override { return pick(path).exists(path); }
  bool is_dir(const std::string& path) const override { return pick(path).is_dir(path); }
  std::optional<std::string> read_link(const std::string& path) const override { return pick(path).read_link(path); }
  std::optional<std::string> canonical(const std::string& path) const override { return pick(path).canonical(path); }

 private:
  const Fs& pick(const std::string& path) const {
    if (path.rfind("/proc/driver/nvidia", 0) == 0) return tree_;
    for (const char* p : {"/proc/sys/kernel", "/lib/modules", "/usr/lib/modules"})
      if (path.rfind(p, 0) == 0) return host_;
    return real_os().fs;
  }
  test::RootedFs tree_;
  test::RootedFs host_;
};

struct TreeOs {
  TreeOs(const std::string& tree, const std::string& host) : fs(tree, host) {}
  Os os() const {
    const Os& r = real_os();
    return Os{fs, r.env, r.proc, r.dl};
  }
  ProcOverlayFs fs;
};

ProbeOptions fake_options(bool r470 = false, CudaInitPolicy policy = CudaInitPolicy::automatic) {
  ProbeOptions o;
  o.nvml_candidates = {fake_nvml(r470)};
  o.cuda_candidates = {fake_cuda(r470)};
  o.cuda_init = policy;
  return o;
}

ProbeOptions child_options_for_module_test() {
  ProbeOptions o = fake_options();
  o.driver_probe_argv = {GPUREADY_EXE, "__probe-driver"};
  o.child_timeout = std::chrono::milliseconds(10000);
  return o;
}

struct ProbeRun {
  NvidiaDriverFacts facts;
  double ms = 0;
};

// Runs the collector with the fake driver answering from `scenario_name`.
ProbeRun probe(const std::string& scenario_name, const ProbeOptions& opts, const std::string& tree = "h200",
               const std::optional<std::string>& visible_devices = std::nullopt, const std::string& host = "none") {
  ScopedEnv driver("GPUREADY_FAKE_DRIVER", scenario(scenario_name));
  ScopedEnv cvd("CUDA_VISIBLE_DEVICES", visible_devices);
  TreeOs t(tree, host);
  ProbeRun r;
  const auto t0 = std::chrono::steady_clock::now();
  collect_nvidia(t.os(), opts, r.facts);
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

const DriverStep* find_step(const NvidiaDriverFacts& f, const std::string& name) {
  for (const auto& s : f.steps)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> step_names(const NvidiaDriverFacts& f) {
  std::vector<std::string> n;
  for (const auto& s : f.steps) n.push_back(s.name);
  return n;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// ------------------------------------------------------------------ in this process

TEST(NvidiaProbe, H200FactsAsNvidiaSmiShowsThem) {
  const ProbeRun r = probe("h200", fake_options());
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.driver_version.value_or("?"), "580.159.04");
  EXPECT_EQ(f.cuda_driver_version.value_or("?"), "13.0");
  EXPECT_EQ(f.kernel_module_version.value_or("?"), "580.159.04");
  EXPECT_EQ(f.nvml_device_count.value_or(-1), 1);
  ASSERT_TRUE(f.nvml_library.has());
  EXPECT_TRUE(contains(f.nvml_library.value(), "libnvidia-ml.so.1"));
  ASSERT_EQ(f.gpus.size(), 1u);
  const NvidiaGpu& g = f.gpus[0];
  EXPECT_EQ(g.name.value_or("?"), "NVIDIA H200");
  EXPECT_EQ(g.uuid.value_or("?"), "GPU-ae870f63-b730-75d2-665f-2eafa76dd46c");
  EXPECT_EQ(g.pci_bus_id.value_or("?"), "00000000:00:06.0");
  EXPECT_EQ(g.memory_total_bytes.value_or(0), 143771ULL << 20);
  EXPECT_EQ(g.compute_capability.value_or("?"), "9.0");
  EXPECT_EQ(g.architecture.value_or("?"), "Hopper");
  EXPECT_EQ(g.pcie_gen_max.value_or(0), 5);
  EXPECT_EQ(g.pcie_width_max.value_or(0), 16);
  EXPECT_EQ(g.persistence_mode.value_or(false), true);
  EXPECT_EQ(g.ecc_enabled.value_or(false), true);
  EXPECT_EQ(g.clocks_event_reasons.value_or({}), std::vector<std::string>{"gpu_idle"});
  EXPECT_DOUBLE_EQ(g.power_limit_w.value_or(0), 700.0);
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 115.809);
  EXPECT_EQ(g.sm_clock_max_mhz.value_or(0), 1980);
  EXPECT_EQ(g.memory_bus_width_bits.value_or(0), 6016);
  // NVML answered, so the default policy leaves cuInit (~0.2 s on this GPU) alone.
  EXPECT_FALSE(g.sm_count.has());
  EXPECT_TRUE(contains(g.sm_count.why(), "cuInit was not called"));
  const DriverStep* init = find_step(f, "cuInit");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->code, "skipped");
  EXPECT_EQ(step_names(f),
            (std::vector<std::string>{"load libnvidia-ml.so.1", "nvmlInit_v2", "nvmlSystemGetDriverVersion",
                                      "nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetCount_v2",
                                      "GPU 0 (nvmlDeviceGetHandleByIndex_v2 and queries)", "load libcuda.so.1",
                                      "cuDriverGetVersion", "cuInit"}));
  for (const auto& s : f.steps) EXPECT_TRUE(s.ok) << s.name << ": " << s.message;
}

// ECC on and clean, row remapping with nothing remapped, and page retirement (before Ampere) not
// supported: a healthy Hopper, as the real H200 answered (recorded/h200_health_probe_driver_cuda.json).
TEST(NvidiaProbe, H200MemoryHealthAndUtilisation) {
  const ProbeRun r = probe("h200", fake_options());
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  const nlohmann::json got = r.facts.gpus[0];
  const nlohmann::json real = read_json(test::fixture("nvidia/recorded/h200_health_probe_driver_cuda.json"))["gpus"][0];
  for (const char* key : {"pcie_gen_gpu_max", "ecc_enabled", "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate",
                          "ecc_corrected_volatile", "retired_pages_sbe", "retired_pages_dbe", "retired_pages_pending",
                          "remapped_rows_correctable", "remapped_rows_uncorrectable", "row_remap_pending",
                          "row_remap_failed", "utilization_percent"})
    EXPECT_EQ(got[key], real[key]) << key;
  const NvidiaGpu& g = r.facts.gpus[0];
  EXPECT_EQ(g.pcie_gen_gpu_max.value_or(0), 5);
  EXPECT_EQ(g.ecc_uncorrected_volatile.value_or(99), 0u);
  EXPECT_EQ(g.ecc_uncorrected_aggregate.value_or(99), 0u);
  EXPECT_EQ(g.ecc_corrected_volatile.value_or(99), 0u);
  EXPECT_EQ(g.remapped_rows_correctable.value_or(-1), 0);
  EXPECT_EQ(g.remapped_rows_uncorrectable.value_or(-1), 0);
  EXPECT_EQ(g.row_remap_pending.value_or(true), false);
  EXPECT_EQ(g.row_remap_failed.value_or(true), false);
  EXPECT_EQ(g.utilization_percent.value_or(-1), 0);
  for (const Fact<int>* f : {&g.retired_pages_sbe, &g.retired_pages_dbe}) {
    EXPECT_FALSE(f->has());
    EXPECT_EQ(f->why(), "not supported on this GPU or driver (nvmlDeviceGetRetiredPages: NVML_ERROR_NOT_SUPPORTED)");
  }
  EXPECT_FALSE(g.retired_pages_pending.has());
  EXPECT_TRUE(
      contains(g.retired_pages_pending.why(), "nvmlDeviceGetRetiredPagesPendingStatus: NVML_ERROR_NOT_SUPPORTED"))
      << g.retired_pages_pending.why();
}

// The fake replaying the H200 recording gives back exactly what the real driver gave. The recording
// predates the memory-health facts, so only the facts it holds are compared.
TEST(NvidiaProbe, H200WithCudaReplaysTheRecordedMachine) {
  const ProbeRun r = probe("h200", fake_options(false, CudaInitPolicy::always));
  const nlohmann::json got = r.facts;
  const nlohmann::json real = read_json(test::fixture("nvidia/recorded/h200_probe_driver_cuda.json"));
  ASSERT_EQ(got["gpus"].size(), real["gpus"].size());
  for (size_t i = 0; i < real["gpus"].size(); ++i)
    for (const auto& [key, value] : real["gpus"][i].items()) EXPECT_EQ(got["gpus"][i][key], value) << key;
  for (const char* key : {"driver_version", "cuda_driver_version", "kernel_module_version", "nvml_device_count",
                          "cuda_init", "cuda_device_count", "cuda_visible_devices"})
    EXPECT_EQ(got[key], real[key]) << key;
  std::vector<std::string> real_steps;
  for (const auto& s : real["steps"]) real_steps.push_back(s["name"].get<std::string>());
  EXPECT_EQ(step_names(r.facts), real_steps);
  EXPECT_EQ(r.facts.gpus[0].sm_count.value_or(0), 132);
  EXPECT_EQ(r.facts.gpus[0].cuda_ordinal.value_or(-1), 0);
}

TEST(NvidiaProbe, LaptopGtx1650AtIdleTrainsTheLinkDown) {
  const ProbeRun r = probe("gtx1650_laptop_linux", fake_options(), "proprietary_module");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.driver_version.value_or("?"), "535.183.01");
  EXPECT_EQ(f.cuda_driver_version.value_or("?"), "12.2");
  EXPECT_EQ(f.kernel_module_version.value_or("?"), "535.183.01");
  ASSERT_EQ(f.gpus.size(), 1u);
  const NvidiaGpu& g = f.gpus[0];
  EXPECT_EQ(g.architecture.value_or("?"), "Turing");
  EXPECT_EQ(g.compute_capability.value_or("?"), "7.5");
  EXPECT_EQ(g.memory_total_bytes.value_or(0), 4096ULL << 20);
  EXPECT_EQ(g.pcie_gen_current.value_or(0), 1);
  EXPECT_EQ(g.pcie_gen_max.value_or(0), 3);
  EXPECT_EQ(g.pcie_width_current.value_or(0), 8);
  EXPECT_EQ(g.pcie_width_max.value_or(0), 16);
  EXPECT_EQ(g.persistence_mode.value_or(true), false);
  EXPECT_FALSE(g.ecc_enabled.has());
  EXPECT_TRUE(contains(g.ecc_enabled.why(), "NVML_ERROR_NOT_SUPPORTED"));
  EXPECT_FALSE(g.power_draw_w.has());
  EXPECT_TRUE(contains(g.power_draw_w.why(), "nvmlDeviceGetPowerUsage"));
  // A GeForce without ECC: no counters, no page retirement, no row remapping; each says so.
  EXPECT_EQ(g.pcie_gen_gpu_max.value_or(0), 3);
  EXPECT_EQ(g.utilization_percent.value_or(-1), 0);
  EXPECT_FALSE(g.ecc_uncorrected_volatile.has());
  EXPECT_EQ(g.ecc_uncorrected_volatile.why(),
            "not supported on this GPU or driver (nvmlDeviceGetTotalEccErrors: NVML_ERROR_NOT_SUPPORTED)");
  EXPECT_FALSE(g.ecc_corrected_volatile.has());
  EXPECT_FALSE(g.retired_pages_dbe.has());
  for (const Fact<int>* rows : {&g.remapped_rows_correctable, &g.remapped_rows_uncorrectable}) {
    EXPECT_FALSE(rows->has());
    EXPECT_EQ(rows->why(), "not supported on this GPU or driver (nvmlDeviceGetRemappedRows: NVML_ERROR_NOT_SUPPORTED)");
  }
  EXPECT_FALSE(g.row_remap_pending.has());
  EXPECT_FALSE(g.row_remap_failed.has());
  EXPECT_EQ(g.row_remap_failed.why(), g.remapped_rows_correctable.why());
}

// After an uncorrectable DRAM error (Xid 94) an A100 remaps the row at the next reset (Xid 63).
TEST(NvidiaProbe, A100WithARowRemapPendingAfterUncorrectableErrors) {
  const ProbeRun r = probe("a100_row_remap_pending", fake_options());
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  const NvidiaGpu& g = r.facts.gpus[0];
  EXPECT_EQ(g.architecture.value_or("?"), "Ampere");
  EXPECT_EQ(g.ecc_enabled.value_or(false), true);
  EXPECT_EQ(g.ecc_uncorrected_volatile.value_or(0), 2u);
  EXPECT_EQ(g.ecc_uncorrected_aggregate.value_or(0), 2u);
  EXPECT_EQ(g.ecc_corrected_volatile.value_or(99), 0u);
  EXPECT_EQ(g.remapped_rows_correctable.value_or(-1), 0);
  EXPECT_EQ(g.remapped_rows_uncorrectable.value_or(-1), 1);
  EXPECT_EQ(g.row_remap_pending.value_or(false), true);
  EXPECT_EQ(g.row_remap_failed.value_or(true), false);
  EXPECT_FALSE(g.retired_pages_sbe.has());  // Ampere remaps rows instead of retiring pages
  EXPECT_TRUE(contains(g.retired_pages_sbe.why(), "NVML_ERROR_NOT_SUPPORTED")) << g.retired_pages_sbe.why();
  EXPECT_EQ(g.pcie_gen_gpu_max.value_or(0), 4);
  EXPECT_EQ(g.utilization_percent.value_or(-1), 0);
}

// A Gen4 GPU in a Gen3 slot: the slot's limit (pcie_gen_max) and the GPU's own (pcie_gen_gpu_max) differ.
TEST(NvidiaProbe, Gen4GpuHeldAtGen3ByTheSlot) {
  const ProbeRun r = probe("gen4_gpu_gen3_slot", fake_options());
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  const NvidiaGpu& g = r.facts.gpus[0];
  EXPECT_EQ(g.name.value_or("?"), "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(g.pcie_gen_current.value_or(0), 3);
  EXPECT_EQ(g.pcie_gen_max.value_or(0), 3);
  EXPECT_EQ(g.pcie_gen_gpu_max.value_or(0), 4);
  EXPECT_EQ(g.utilization_percent.value_or(-1), 98);
  EXPECT_EQ(g.clocks_event_reasons.value_or({}), std::vector<std::string>{"sw_power_cap"});
  EXPECT_FALSE(g.ecc_uncorrected_volatile.has());
  EXPECT_FALSE(g.remapped_rows_uncorrectable.has());
}

// A GPU that has ECC but runs with it off (the RTX 4090's default) counts nothing: the reason says ECC is off.
TEST(NvidiaProbe, EccOffIsTheReasonForNoCounters) {
  const ProbeRun r = probe("two_gpus", fake_options());
  ASSERT_EQ(r.facts.gpus.size(), 2u);
  const NvidiaGpu& g = r.facts.gpus[0];
  ASSERT_EQ(g.ecc_enabled.value_or(true), false);
  EXPECT_FALSE(g.ecc_uncorrected_volatile.has());
  EXPECT_EQ(
      g.ecc_uncorrected_volatile.why(),
      "ECC is off on this GPU, so it counts no ECC errors (nvmlDeviceGetTotalEccErrors: NVML_ERROR_NOT_SUPPORTED)");
  EXPECT_EQ(g.ecc_corrected_volatile.why(), g.ecc_uncorrected_volatile.why());
}

// Windows' driver models through NVML: WDDM (displays, TDR watchdog), TCC; a pending switch is named.
// On Linux NVML answers NOT_SUPPORTED and the reason says the models are Windows'.
TEST(NvidiaProbe, WindowsDriverModelsAreNamedWithAPendingSwitch) {
  const ProbeRun win = probe("windows_wddm_tcc", fake_options());
  ASSERT_EQ(win.facts.gpus.size(), 2u);
  EXPECT_EQ(win.facts.gpus[0].driver_model.value_or("?"), "WDDM (TCC after a reboot)");
  EXPECT_EQ(win.facts.gpus[1].driver_model.value_or("?"), "TCC");
  const ProbeRun linux_gpu = probe("h200", fake_options());
  ASSERT_EQ(linux_gpu.facts.gpus.size(), 1u);
  EXPECT_FALSE(linux_gpu.facts.gpus[0].driver_model.has());
  EXPECT_NE(linux_gpu.facts.gpus[0].driver_model.why().find("Windows driver models"), std::string::npos);
  // A driver without the call (the R470 fake lacks nothing here, so the old library must still answer).
  const ProbeRun old = probe("old_driver_r470", fake_options(true));
  ASSERT_FALSE(old.facts.gpus.empty());
  EXPECT_FALSE(old.facts.gpus[0].driver_model.has());
}

// NVML could not start, CUDA still lists the GPU: every NVML-only fact says why it is unknown.
TEST(NvidiaProbe, GpuSeenOnlyByCudaHasEveryNvmlFactUnknown) {
  ProbeOptions o = fake_options();
  o.nvml_candidates = {"/nonexistent/gpuready-test/libnvidia-ml.so.1"};
  const ProbeRun r = probe("h200", o);
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  const NvidiaGpu& g = r.facts.gpus[0];
  EXPECT_EQ(g.sm_count.value_or(0), 132);
  const nlohmann::json j = g;
  for (const char* key :
       {"pcie_gen_gpu_max", "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate", "ecc_corrected_volatile",
        "retired_pages_sbe", "retired_pages_dbe", "retired_pages_pending", "remapped_rows_correctable",
        "remapped_rows_uncorrectable", "row_remap_pending", "row_remap_failed", "utilization_percent"}) {
    ASSERT_TRUE(j[key].is_object()) << key << ": " << j[key];
    EXPECT_TRUE(contains(j[key]["unknown"].get<std::string>(), "NVML: no NVIDIA driver library"))
        << key << ": " << j[key];
  }
}

TEST(NvidiaProbe, NoDriverSaysTheLibraryIsMissingInTheLoadersWords) {
  ProbeOptions o;
  o.nvml_candidates = {"/nonexistent/gpuready-test/libnvidia-ml.so.1"};
  o.cuda_candidates = {"/nonexistent/gpuready-test/libcuda.so.1"};
  const ProbeRun r = probe("h200", o, "no_module");
  const NvidiaDriverFacts& f = r.facts;
  ASSERT_GE(f.steps.size(), 2u);
  const DriverStep& nvml = f.steps[0];
  EXPECT_EQ(nvml.name, "load libnvidia-ml.so.1");
  EXPECT_FALSE(nvml.ok);
  EXPECT_EQ(nvml.code, "library_not_found");
  EXPECT_TRUE(contains(nvml.message, "no NVIDIA driver is installed")) << nvml.message;
  EXPECT_TRUE(contains(nvml.message, "/nonexistent/gpuready-test/libnvidia-ml.so.1: cannot open shared object file"))
      << nvml.message;
  EXPECT_EQ(f.steps[1].name, "load libcuda.so.1");
  EXPECT_FALSE(f.steps[1].ok);
  EXPECT_FALSE(f.driver_version.has());
  EXPECT_FALSE(f.nvml_device_count.has());
  EXPECT_FALSE(f.cuda_device_count.has());
  EXPECT_FALSE(f.kernel_module_version.has());
  EXPECT_TRUE(contains(f.kernel_module_version.why(), "kernel module is not loaded"));
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_LT(r.ms, 100.0);  // the no-GPU machine's whole probe must stay under 100 ms
}

TEST(NvidiaProbe, LaterCandidateIsTriedWhenTheFirstIsMissing) {
  ProbeOptions o = fake_options();
  o.nvml_candidates.insert(o.nvml_candidates.begin(), "/nonexistent/gpuready-test/libnvidia-ml.so.1");
  const ProbeRun r = probe("h200", o);
  ASSERT_TRUE(r.facts.steps.size() > 0 && r.facts.steps[0].ok) << r.facts.steps[0].message;
  EXPECT_EQ(r.facts.nvml_library.value_or("?"), fake_nvml());
  EXPECT_EQ(r.facts.gpus.size(), 1u);
}

TEST(NvidiaProbe, DriverWithoutGpuCallsCuInitForTheDiagnosis) {
  const ProbeRun r = probe("driver_no_gpu", fake_options());
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.nvml_device_count.value_or(-1), 0);
  const DriverStep* count = find_step(f, "nvmlDeviceGetCount_v2");
  ASSERT_NE(count, nullptr);
  EXPECT_TRUE(contains(count->message, "sees no NVIDIA GPU"));
  const DriverStep* init = find_step(f, "cuInit");
  ASSERT_NE(init, nullptr);
  EXPECT_FALSE(init->ok);
  EXPECT_EQ(init->code, "CUDA_ERROR_NO_DEVICE");
  EXPECT_TRUE(contains(init->message, "no NVIDIA GPU it can use")) << init->message;
  EXPECT_EQ(f.cuda_init.value_or("?"), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(f.cuda_device_count.value_or(-1), 0);
  EXPECT_TRUE(f.gpus.empty());
}

TEST(NvidiaProbe, VersionMismatchNamesBothVersions) {
  const ProbeRun r = probe("version_mismatch", fake_options(), "version_mismatch");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.kernel_module_version.value_or("?"), "580.95.05");
  const DriverStep* init = find_step(f, "nvmlInit_v2");
  ASSERT_NE(init, nullptr);
  EXPECT_FALSE(init->ok);
  EXPECT_EQ(init->code, "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  // The library version comes from the file behind the soname link (libnvidia-ml.so.580.159.04).
  EXPECT_TRUE(contains(init->message, "Driver/library version mismatch: the NVIDIA kernel module loaded is 580.95.05 "
                                      "but the user-space library is 580.159.04; reboot, or reload the nvidia modules"))
      << init->message;
  EXPECT_FALSE(f.driver_version.has());
  EXPECT_TRUE(contains(f.driver_version.why(), "NVML_ERROR_LIB_RM_VERSION_MISMATCH"));
  // NVML could not list GPUs, so cuInit runs and confirms from the CUDA side.
  const DriverStep* cu = find_step(f, "cuInit");
  ASSERT_NE(cu, nullptr);
  EXPECT_EQ(cu->code, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  EXPECT_TRUE(contains(cu->message, "different driver versions")) << cu->message;
  EXPECT_TRUE(f.gpus.empty());
}

TEST(NvidiaProbe, KernelModuleNotLoaded) {
  const ProbeRun r = probe("driver_not_loaded", fake_options(), "no_module");
  const DriverStep* init = find_step(r.facts, "nvmlInit_v2");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->code, "NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_TRUE(contains(init->message, "kernel driver is not loaded")) << init->message;
  EXPECT_TRUE(contains(init->message, "Driver Not Loaded")) << init->message;  // NVML's own words
  EXPECT_FALSE(r.facts.kernel_module_version.has());
}

TEST(NvidiaProbe, OldDriverMissingSymbolsAreFactsNotCrashes) {
  const ProbeRun r = probe("old_driver_r470", fake_options(true));
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.driver_version.value_or("?"), "470.256.02");
  EXPECT_EQ(f.cuda_driver_version.value_or("?"), "11.4");
  EXPECT_NE(find_step(f, "nvmlSystemGetCudaDriverVersion"), nullptr);  // the pre-_v2 export
  ASSERT_EQ(f.gpus.size(), 1u);
  const NvidiaGpu& g = f.gpus[0];
  EXPECT_EQ(g.architecture.value_or("?"), "Volta");
  // Throttle reasons under their pre-R535 name: same bits (0x5 = idle + software power cap).
  EXPECT_EQ(g.clocks_event_reasons.value_or({}), (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_FALSE(g.memory_bus_width_bits.has());
  EXPECT_EQ(g.memory_bus_width_bits.why(), "nvmlDeviceGetMemoryBusWidth is missing from libnvidia-ml.so.1 (driver too old?)");
  // nvmlDeviceGetGpuMaxPcieLinkGeneration arrived in R525.
  EXPECT_FALSE(g.pcie_gen_gpu_max.has());
  EXPECT_EQ(g.pcie_gen_gpu_max.why(),
            "nvmlDeviceGetGpuMaxPcieLinkGeneration is missing from libnvidia-ml.so.1 (driver too old?)");
  EXPECT_EQ(g.pcie_gen_max.value_or(0), 3);
  // Volta retires pages instead of remapping rows; the counts come back through NVML_ERROR_INSUFFICIENT_SIZE.
  EXPECT_EQ(g.retired_pages_sbe.value_or(-1), 2);
  EXPECT_EQ(g.retired_pages_dbe.value_or(-1), 1);
  EXPECT_EQ(g.retired_pages_pending.value_or(false), true);
  EXPECT_EQ(g.ecc_uncorrected_volatile.value_or(99), 0u);
  EXPECT_EQ(g.ecc_uncorrected_aggregate.value_or(99), 1u);
  EXPECT_FALSE(g.remapped_rows_uncorrectable.has());
  EXPECT_TRUE(contains(g.remapped_rows_uncorrectable.why(), "NVML_ERROR_NOT_SUPPORTED"));
  EXPECT_EQ(g.utilization_percent.value_or(-1), 5);
  const DriverStep* cuda = find_step(f, "load libcuda.so.1");
  ASSERT_NE(cuda, nullptr);
  EXPECT_TRUE(contains(cuda->message, "via cuGetProcAddress)")) << cuda->message;  // the 11.3-11.8 form
}

TEST(NvidiaProbe, OldDriverWithCudaFillsTheBusWidthFromTheDriverApi) {
  const ProbeRun r = probe("old_driver_r470", fake_options(true, CudaInitPolicy::always));
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].memory_bus_width_bits.value_or(0), 4096);
  EXPECT_EQ(r.facts.gpus[0].sm_count.value_or(0), 80);
}

TEST(NvidiaProbe, TwoGpusAreMatchedToCudaOrdinalsByPciLocation) {
  const ProbeRun r = probe("two_gpus", fake_options(false, CudaInitPolicy::always));
  const NvidiaDriverFacts& f = r.facts;
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.cuda_device_count.value_or(0), 2);
  EXPECT_EQ(f.gpus[0].name.value_or("?"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(f.gpus[0].architecture.value_or("?"), "Ada Lovelace");
  EXPECT_EQ(f.gpus[0].cuda_ordinal.value_or(-1), 1);
  EXPECT_EQ(f.gpus[0].sm_count.value_or(0), 128);
  EXPECT_EQ(f.gpus[1].name.value_or("?"), "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(f.gpus[1].architecture.value_or("?"), "Ampere");
  EXPECT_EQ(f.gpus[1].cuda_ordinal.value_or(-1), 0);
  EXPECT_EQ(f.gpus[1].sm_count.value_or(0), 108);
  // 0x84: software power cap + hardware power brake.
  EXPECT_EQ(f.gpus[1].clocks_event_reasons.value_or({}),
            (std::vector<std::string>{"sw_power_cap", "hw_power_brake_slowdown"}));
}

TEST(NvidiaProbe, CudaVisibleDevicesHidingAGpuIsSaidWhenCuInitRan) {
  const ProbeRun r = probe("two_gpus", fake_options(false, CudaInitPolicy::always), "h200", "1");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.cuda_visible_devices.value_or("?"), "1");
  EXPECT_EQ(f.cuda_device_count.value_or(0), 1);
  ASSERT_EQ(f.gpus.size(), 2u);
  // CUDA's own order is A100, 4090: "1" keeps the 4090, now ordinal 0.
  EXPECT_EQ(f.gpus[0].cuda_ordinal.value_or(-1), 0);
  EXPECT_FALSE(f.gpus[1].cuda_ordinal.has());
  EXPECT_TRUE(contains(f.gpus[1].cuda_ordinal.why(), "CUDA_VISIBLE_DEVICES=\"1\"")) << f.gpus[1].cuda_ordinal.why();
  const DriverStep* s = find_step(f, "CUDA_VISIBLE_DEVICES");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->ok);
  EXPECT_EQ(s->code, "hides_some");
  EXPECT_TRUE(contains(s->message, "hides 1 of the 2 GPUs NVML lists: CUDA sees 1")) << s->message;
}

TEST(NvidiaProbe, CudaVisibleDevicesEmptyMakesCuInitFailAndSaysWhy) {
  // As on the real H200 (recorded/h200_probe_driver_cvd_empty.json): cuInit answers CUDA_ERROR_NO_DEVICE.
  const ProbeRun r = probe("h200", fake_options(false, CudaInitPolicy::always), "h200", "");
  const nlohmann::json real = read_json(test::fixture("nvidia/recorded/h200_probe_driver_cvd_empty.json"));
  const nlohmann::json got = r.facts;
  EXPECT_EQ(got["cuda_init"], real["cuda_init"]);
  EXPECT_EQ(got["cuda_device_count"], real["cuda_device_count"]);
  const DriverStep* init = find_step(r.facts, "cuInit");
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(contains(init->message, "CUDA_VISIBLE_DEVICES=\"\" hides it")) << init->message;
  const DriverStep* s = find_step(r.facts, "CUDA_VISIBLE_DEVICES");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->code, "hides_all");
}

TEST(NvidiaProbe, CudaVisibleDevicesIsJudgedWithoutCuInit) {
  for (const std::string v : {"", "-1", "none", "NoDevFiles"}) {
    const ProbeRun r = probe("two_gpus", fake_options(), "h200", v);
    const DriverStep* s = find_step(r.facts, "CUDA_VISIBLE_DEVICES");
    ASSERT_NE(s, nullptr) << v;
    EXPECT_EQ(s->code, "hides_all") << v;
    EXPECT_TRUE(contains(s->message, "hides every GPU from CUDA programs")) << s->message;
    EXPECT_EQ(find_step(r.facts, "cuInit")->code, "skipped");
  }
  {
    const ProbeRun r = probe("two_gpus", fake_options(), "h200", "0,-1,1");
    const DriverStep* s = find_step(r.facts, "CUDA_VISIBLE_DEVICES");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->code, "hides_some");
    EXPECT_TRUE(contains(s->message, "will see 1 of the 2 GPUs")) << s->message;
    EXPECT_TRUE(contains(s->message, "ignores \"-1\"")) << s->message;
  }
  {
    const ProbeRun r = probe("two_gpus", fake_options(), "h200", "GPU-9f2b7d10,0");
    const DriverStep* s = find_step(r.facts, "CUDA_VISIBLE_DEVICES");
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->ok) << s->message;
  }
  {
    const ProbeRun r = probe("two_gpus", fake_options());
    EXPECT_EQ(find_step(r.facts, "CUDA_VISIBLE_DEVICES"), nullptr);
    EXPECT_FALSE(r.facts.cuda_visible_devices.has());
  }
}

TEST(NvidiaProbe, ArchitectureFromComputeCapabilityWhenTheEnumIsTooOld) {
  const ProbeRun r = probe("gpu_newer_than_driver", fake_options());
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].architecture.value_or("?"), "Blackwell");
  EXPECT_EQ(r.facts.gpus[0].compute_capability.value_or("?"), "12.0");
}

TEST(NvidiaProbe, ALibraryWithoutTheEntryPointsIsSymbolMissing) {
  // Each fake stands in for the wrong library: present and loadable, but not the API asked for.
  ProbeOptions o;
  o.nvml_candidates = {fake_cuda()};
  o.cuda_candidates = {fake_nvml()};
  const ProbeRun r = probe("h200", o);
  const DriverStep* init = find_step(r.facts, "nvmlInit_v2");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->code, "symbol_missing");
  EXPECT_TRUE(contains(init->message, "nvmlInit_v2 is missing from libcuda.so.1")) << init->message;
  const DriverStep* ver = find_step(r.facts, "cuDriverGetVersion");
  ASSERT_NE(ver, nullptr);
  EXPECT_EQ(ver->code, "symbol_missing");
  bool via_dlsym = false;  // a library without cuGetProcAddress: the exports themselves
  for (const auto& s : r.facts.steps) via_dlsym = via_dlsym || contains(s.message, "entry points via dlsym");
  EXPECT_TRUE(via_dlsym);
  const DriverStep* cu = find_step(r.facts, "cuInit");
  ASSERT_NE(cu, nullptr);
  EXPECT_EQ(cu->code, "symbol_missing");
}

// ------------------------------------------------------------------ kernel module files (/lib/modules)

// Ubuntu 22.04 laptop, Secure Boot on: DKMS built the module for both kernels and signed it with the MOK key.
TEST(NvidiaKernelModule, DkmsModuleSignedForTheRunningKernel) {
  const ProbeRun r = probe("gtx1650_laptop_linux", fake_options(), "proprietary_module", std::nullopt, "laptop");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.kernel_module_file.value_or("?"), "/lib/modules/6.5.0-28-generic/updates/dkms/nvidia.ko")
      << f.kernel_module_file.why();
  EXPECT_EQ(f.kernel_module_kernels, (std::vector<std::string>{"6.5.0-27-generic", "6.5.0-28-generic"}));
  EXPECT_EQ(f.kernel_module_signed.value_or(false), true) << f.kernel_module_signed.why();
}

// Debian 12 rebooted into 6.1.0-18 after an upgrade; DKMS had built nvidia-current.ko for 6.1.0-17 only.
TEST(NvidiaKernelModule, KernelUpdateWithoutADkmsRebuild) {
  const ProbeRun r = probe("driver_not_loaded", fake_options(), "no_module", std::nullopt, "debian12_kernel_update");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_FALSE(f.kernel_module_file.has());
  EXPECT_EQ(f.kernel_module_file.why(),
            "no nvidia module for kernel 6.1.0-18-amd64 in /lib/modules/6.1.0-18-amd64/modules.dep");
  EXPECT_EQ(f.kernel_module_kernels, std::vector<std::string>{"6.1.0-17-amd64"});
  EXPECT_FALSE(f.kernel_module_signed.has());
  EXPECT_TRUE(contains(f.kernel_module_signed.why(), "no NVIDIA module file")) << f.kernel_module_signed.why();
  EXPECT_FALSE(f.kernel_module_version.has());  // and so nothing is loaded
}

// NVIDIA's .run installer on Ubuntu 24.04 wrote an unsigned nvidia.ko: with Secure Boot on it will not load.
TEST(NvidiaKernelModule, RunfileModuleIsUnsigned) {
  const ProbeRun r = probe("driver_not_loaded", fake_options(), "no_module", std::nullopt, "ubuntu2404_runfile");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.kernel_module_file.value_or("?"), "/lib/modules/6.8.0-45-generic/kernel/drivers/video/nvidia.ko");
  EXPECT_EQ(f.kernel_module_kernels, std::vector<std::string>{"6.8.0-45-generic"});
  EXPECT_EQ(f.kernel_module_signed.value_or(true), false) << f.kernel_module_signed.why();
}

TEST(NvidiaKernelModule, ACompressedModuleIsReadThroughItsDecoder) {
  // Ubuntu 24.04's DKMS signs, then zstd-compresses: the trailer is at the end of the decompressed bytes.
  const ProbeRun r = probe("h200", fake_options(), "h200", std::nullopt, "ubuntu2404_dkms_bios");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_EQ(f.kernel_module_file.value_or("?"), "/lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko.zst");
  ASSERT_TRUE(f.kernel_module_signed.has()) << f.kernel_module_signed.why();
  EXPECT_TRUE(f.kernel_module_signed.value());
}

// A container sees the host's kernel but not its /lib/modules (the H200 test machine is one).
TEST(NvidiaKernelModule, NoModulesFolderSaysWhy) {
  const ProbeRun r = probe("h200", fake_options(), "h200", std::nullopt, "h200");
  const NvidiaDriverFacts& f = r.facts;
  EXPECT_FALSE(f.kernel_module_file.has());
  EXPECT_TRUE(contains(f.kernel_module_file.why(),
                       "the modules of the running kernel 6.18.44-fc-v657-gpu are not "
                       "readable here (/lib/modules/6.18.44-fc-v657-gpu/modules.dep: "))
      << f.kernel_module_file.why();
  EXPECT_TRUE(f.kernel_module_kernels.empty());
  EXPECT_FALSE(f.kernel_module_signed.has());
  EXPECT_EQ(f.kernel_module_version.value_or("?"), "580.159.04");  // loaded all the same
}

TEST(NvidiaKernelModule, TheParentsViewWinsOverTheChilds) {
  // The child reads the real machine's /lib/modules; the parent's host tree is what counts.
  const ProbeRun r = probe("h200", child_options_for_module_test(), "h200", std::nullopt, "ubuntu2404_runfile");
  ASSERT_FALSE(r.facts.steps.empty());
  EXPECT_TRUE(r.facts.steps[0].ok) << r.facts.steps[0].message;
  EXPECT_EQ(r.facts.kernel_module_file.value_or("?"), "/lib/modules/6.8.0-45-generic/kernel/drivers/video/nvidia.ko");
  EXPECT_EQ(r.facts.kernel_module_signed.value_or(true), false);
}

// The real file system, counting what is read.
class CountingFs final : public Fs {
 public:
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes, std::string* error) const override {
    auto r = real_os().fs.read_file(path, max_bytes, error);
    if (r) bytes += r->size();
    return r;
  }
  std::optional<std::string> read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                          std::string* error) const override {
    auto r = real_os().fs.read_file_at(path, offset, max_bytes, error);
    if (r) bytes += r->size();
    ++reads;
    return r;
  }
  std::optional<std::vector<DirEntry>> list_dir(const std::string& path, std::string* error) const override {
    return real_os().fs.list_dir(path, error);
  }
  bool exists(const std::string& path) const override { return real_os().fs.exists(path); }
  bool is_dir(const std::string& path) const override { return real_os().fs.is_dir(path); }
  std::optional<std::string> read_link(const std::string& path) const override { return real_os().fs.read_link(path); }
  std::optional<std::string> canonical(const std::string& path) const override { return real_os().fs.canonical(path); }
  mutable size_t bytes = 0;
  mutable size_t reads = 0;
};

// The tail of a file through Fs::read_file_at, whatever its length (a module is 50-100 MB).
TEST(NvidiaKernelModule, FileTail) {
  char tmpl[] = "/tmp/gpuready-tail-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const std::string path = tmpl;
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string(3u << 20, '\x7f') << parse::kModuleSignatureMarker;
  }
  const Fs& fs = real_os().fs;
  std::string err;
  auto tail = read_file_tail(fs, path, parse::kModuleSignatureMarker.size(), &err);
  ASSERT_TRUE(tail) << err;
  EXPECT_EQ(*tail, parse::kModuleSignatureMarker);
  EXPECT_EQ(read_file_tail(fs, path, 4, &err).value_or("?"), "ed~\n");
  EXPECT_EQ(read_file_tail(fs, path, 64u << 20, &err).value_or("").size(),
            (3u << 20) + parse::kModuleSignatureMarker.size());  // shorter than asked: the whole file
  // Only the end is read: the marker and one byte per probe of the length (about 2*log2(3 MiB)).
  CountingFs counting;
  EXPECT_EQ(read_file_tail(counting, path, 28, &err).value_or("?"), parse::kModuleSignatureMarker);
  EXPECT_LT(counting.bytes, 100u);
  EXPECT_LT(counting.reads, 50u);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "\x7f"
         "ELF unsigned";
  }
  EXPECT_FALSE(parse::module_signature_appended(read_file_tail(fs, path, 28, &err).value_or("")));
  EXPECT_EQ(read_file_tail(fs, path, 28, &err).value_or("?"),
            "\x7f"
            "ELF unsigned");
  ::unlink(path.c_str());
  EXPECT_FALSE(read_file_tail(fs, path, 28, &err));
  EXPECT_TRUE(contains(err, "No such file")) << err;
  // Sizes around the powers of two the search halves between.
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{27}, size_t{28}, size_t{29}, size_t{4095},
                   size_t{4096}, size_t{4097}, size_t{65537}}) {
    std::string body;
    for (size_t i = 0; i < n; ++i) body.push_back(static_cast<char>('a' + i % 26));
    {
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      f << body;
    }
    EXPECT_EQ(read_file_tail(fs, path, 28, &err).value_or("?"), body.substr(n > 28 ? n - 28 : 0)) << n;
  }
  ::unlink(path.c_str());
  // A fixture tree.
  test::RootedFs tree(test::fixture("hosts/laptop"));
  auto fixture_tail = read_file_tail(tree, "/lib/modules/6.5.0-28-generic/updates/dkms/nvidia.ko", 28, &err);
  ASSERT_TRUE(fixture_tail) << err;
  EXPECT_EQ(*fixture_tail, parse::kModuleSignatureMarker);
}

// ------------------------------------------------------------------ through the isolated child

ProbeOptions child_options(CudaInitPolicy policy = CudaInitPolicy::automatic) {
  ProbeOptions o = fake_options(false, policy);
  o.driver_probe_argv = {GPUREADY_EXE, "__probe-driver"};
  o.child_timeout = std::chrono::milliseconds(10000);
  return o;
}

TEST(NvidiaProbeChild, AnswersLikeTheInProcessProbe) {
  const ProbeRun in = probe("two_gpus", fake_options(false, CudaInitPolicy::always));
  const ProbeRun child = probe("two_gpus", child_options(CudaInitPolicy::always));
  ASSERT_FALSE(child.facts.steps.empty());
  EXPECT_EQ(child.facts.steps[0].name, "isolated driver probe (gpuready __probe-driver)");
  EXPECT_TRUE(child.facts.steps[0].ok) << child.facts.steps[0].message;
  EXPECT_EQ(nlohmann::json(child.facts.gpus), nlohmann::json(in.facts.gpus));
  EXPECT_EQ(child.facts.steps.size(), in.facts.steps.size() + 1);
  EXPECT_EQ(child.facts.driver_version.value_or("?"), "580.95.05");
}

TEST(NvidiaProbeChild, ALibraryThatCrashesWhenLoadedCostsOneStep) {
  const ProbeRun r = probe("crash_on_load", child_options());
  ASSERT_EQ(r.facts.steps.size(), 1u);
  const DriverStep& s = r.facts.steps[0];
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.code, "crashed");
  EXPECT_TRUE(contains(s.message, "killed by SIGSEGV (segmentation fault)")) << s.message;
  EXPECT_TRUE(contains(s.message, "it was in load libnvidia-ml.so.1")) << s.message;
  EXPECT_FALSE(r.facts.driver_version.has());
  EXPECT_EQ(r.facts.driver_version.why(), s.message);
}

TEST(NvidiaProbeChild, AHungDriverIsATimeoutNotAHang) {
  ProbeOptions o = child_options();
  o.child_timeout = std::chrono::milliseconds(1000);
  const ProbeRun r = probe("hang_in_init", o);
  EXPECT_LT(r.ms, 5000.0);
  ASSERT_EQ(r.facts.steps.size(), 1u);
  const DriverStep& s = r.facts.steps[0];
  EXPECT_EQ(s.code, "timeout");
  EXPECT_TRUE(contains(s.message, "the driver did not answer within 1 s: a hung driver or GPU; check dmesg for Xid errors"))
      << s.message;
  EXPECT_TRUE(contains(s.message, "(it was in nvmlInit_v2)")) << s.message;
  EXPECT_FALSE(r.facts.nvml_device_count.has());
}

TEST(NvidiaProbeChild, GarbageOutputIsSaidSo) {
  ProbeOptions o = child_options();
  o.driver_probe_argv = {"/bin/echo", "this is not JSON"};
  const ProbeRun r = probe("h200", o);
  ASSERT_EQ(r.facts.steps.size(), 1u);
  EXPECT_EQ(r.facts.steps[0].code, "bad_output");
  EXPECT_TRUE(contains(r.facts.steps[0].message, "this is not JSON")) << r.facts.steps[0].message;
}

TEST(NvidiaProbeChild, AChildThatCannotStartFallsBackInProcess) {
  ProbeOptions o = child_options();
  o.driver_probe_argv = {"/nonexistent/gpuready-test/gpuready", "__probe-driver"};
  const ProbeRun r = probe("h200", o);
  ASSERT_FALSE(r.facts.steps.empty());
  EXPECT_EQ(r.facts.steps[0].code, "not_started");
  EXPECT_TRUE(contains(r.facts.steps[0].message, "in-process instead")) << r.facts.steps[0].message;
  EXPECT_EQ(r.facts.driver_version.value_or("?"), "580.159.04");
}

TEST(NvidiaProbeChild, MismatchMessageUsesThisProcessesModuleVersion) {
  // The child reads the real /proc (absent here); the parent's fixture tree names the module.
  const ProbeRun r = probe("version_mismatch", child_options(), "version_mismatch");
  const DriverStep* init = find_step(r.facts, "nvmlInit_v2");
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(contains(init->message, "module loaded is 580.95.05 but the user-space library is 580.159.04"))
      << init->message;
  EXPECT_EQ(r.facts.kernel_module_version.value_or("?"), "580.95.05");
}

TEST(NvidiaProbeChild, PassesPolicyCandidatesAndCudaVisibleDevices) {
  NvidiaDriverFacts answer;
  answer.driver_version = std::string("555.42.06");
  const std::string printed = nlohmann::json(answer).dump();
  std::vector<std::string> seen_argv;
  ProcOptions seen_opts;
  test::FixtureOs fos("nvidia/trees/h200", {{"CUDA_VISIBLE_DEVICES", "0"}},
                      [&](const std::vector<std::string>& argv, const ProcOptions& po) {
                        seen_argv = argv;
                        seen_opts = po;
                        ProcResult pr;
                        pr.started = true;
                        pr.exit_code = 0;
                        pr.out = printed;
                        return pr;
                      });
  ProbeOptions o;
  o.driver_probe_argv = {"/usr/bin/gpuready", "__probe-driver"};
  o.cuda_init = CudaInitPolicy::never;
  o.nvml_candidates = {"/x/libnvidia-ml.so.1"};
  o.cuda_candidates = {"/x/libcuda.so.1"};
  o.child_timeout = std::chrono::milliseconds(2500);
  NvidiaDriverFacts f;
  collect_nvidia(fos.os(), o, f);
  EXPECT_EQ(seen_argv, (std::vector<std::string>{"/usr/bin/gpuready", "__probe-driver", "--no-cuda", "--nvml",
                                                 "/x/libnvidia-ml.so.1", "--libcuda", "/x/libcuda.so.1"}));
  EXPECT_EQ(seen_opts.timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(seen_opts.set_env.at("CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(f.driver_version.value_or("?"), "555.42.06");
  EXPECT_EQ(f.cuda_visible_devices.value_or("?"), "0");
  EXPECT_EQ(f.kernel_module_version.value_or("?"), "580.159.04");
}

// ------------------------------------------------------------------ fault injection
// Each case: no crash of gpuready, bounded time, and the step (or fact) that says what happened.

TEST(FaultInjection, ALibraryThatCrashesInInitCostsOneStep) {
  const ProbeRun r = probe("crash_in_init", child_options());
  EXPECT_LT(r.ms, 9000.0);
  ASSERT_EQ(r.facts.steps.size(), 1u);
  EXPECT_EQ(r.facts.steps[0].code, "crashed");
  EXPECT_TRUE(contains(r.facts.steps[0].message, "killed by SIGSEGV (segmentation fault) (it was in nvmlInit_v2)"))
      << r.facts.steps[0].message;
}

TEST(FaultInjection, ALibcudaThatCrashesInCuInitCostsOneStep) {
  const ProbeRun r = probe("cu_init_crash", child_options(CudaInitPolicy::always));
  ASSERT_FALSE(r.facts.steps.empty());
  EXPECT_EQ(r.facts.steps[0].code, "crashed");
  EXPECT_TRUE(contains(r.facts.steps[0].message, "(it was in cuInit)")) << r.facts.steps[0].message;
}

TEST(FaultInjection, AHangInAPerGpuQueryIsATimeout) {
  ProbeOptions o = child_options();
  o.child_timeout = std::chrono::milliseconds(1500);
  const ProbeRun r = probe("hang_in_device_query", o);
  EXPECT_LT(r.ms, 6000.0);
  ASSERT_EQ(r.facts.steps.size(), 1u);
  EXPECT_EQ(r.facts.steps[0].code, "timeout");
  EXPECT_TRUE(contains(r.facts.steps[0].message, "a hung driver or GPU")) << r.facts.steps[0].message;
  // The doctor names it on top, before anything else it finds.
  Snapshot s;
  s.nvidia = r.facts;
  const auto report = doctor::diagnose(s, knowledge::Compat::embedded());
  ASSERT_FALSE(report.findings.empty());
  EXPECT_EQ(report.findings[0].code, "driver.hung");
}

TEST(FaultInjection, AbsurdAnswersAreBoundedAndNeverCrash) {
  for (const ProbeOptions& o : {fake_options(), child_options()}) {
    const ProbeRun r = probe("absurd_values", o);
    EXPECT_LT(r.ms, 9000.0);
    // A million GPUs: at most 64 are asked about; a string without its NUL is cut at the buffer's end.
    EXPECT_LE(r.facts.gpus.size(), 64u);
    for (const auto& g : r.facts.gpus) {
      if (g.name.has()) EXPECT_LE(g.name.value().size(), 96u);
      if (g.uuid.has()) EXPECT_LE(g.uuid.value().size(), 96u);
    }
    if (r.facts.driver_version.has()) EXPECT_LE(r.facts.driver_version.value().size(), 96u);
    // The doctor and its JSON take it too.
    Snapshot s;
    s.nvidia = r.facts;
    const auto report = doctor::diagnose(s, knowledge::Compat::embedded());
    EXPECT_NO_THROW((void)doctor::report_to_json(report).dump());
  }
}

TEST(FaultInjection, FilesThatAreNoLibraryAreFailedStepsNotHangsOrCrashes) {
  namespace fs = std::filesystem;
  std::string err;
  const auto dir = make_temp_dir("faults", &err);
  ASSERT_TRUE(dir) << err;
  const fs::path d(*dir);
  const std::string real = fake_nvml();
  std::string elf;
  {
    std::ifstream f(real, std::ios::binary);
    elf.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(elf.size(), 4096u);
  struct Case {
    std::string name;
    std::function<void(const fs::path&)> make;
  };
  const std::vector<Case> cases = {
      {"a folder", [](const fs::path& p) { fs::create_directory(p); }},
      {"a FIFO", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0); }},
      {"0 bytes", [](const fs::path& p) { std::ofstream(p, std::ios::binary); }},
      {"a truncated ELF", [&](const fs::path& p) { std::ofstream(p, std::ios::binary) << elf.substr(0, 512); }},
      {"the wrong architecture",
       [&](const fs::path& p) {
         std::string other = elf;
         other[18] = static_cast<char>(0xB7);  // e_machine: EM_AARCH64
         other[19] = 0;
         std::ofstream(p, std::ios::binary) << other;
       }},
      {"a symlink loop",
       [&](const fs::path& p) {
         fs::create_symlink(p.parent_path() / (p.filename().string() + ".other"), p);
         fs::create_symlink(p, p.parent_path() / (p.filename().string() + ".other"));
       }},
  };
  int n = 0;
  for (const auto& c : cases) {
    const fs::path sub = d / std::to_string(n++);
    fs::create_directory(sub);
    const fs::path lib = sub / "libnvidia-ml.so.1";
    c.make(lib);
    for (bool isolated : {false, true}) {
      ProbeOptions o = isolated ? child_options() : fake_options();
      o.nvml_candidates = {lib.string()};
      const ProbeRun r = probe("h200", o);
      EXPECT_LT(r.ms, 9000.0) << c.name;
      const DriverStep* load = nullptr;
      for (const auto& st : r.facts.steps)
        if (st.name == "load libnvidia-ml.so.1") load = &st;
      ASSERT_NE(load, nullptr) << c.name << (isolated ? " (child)" : "");
      EXPECT_FALSE(load->ok) << c.name;
      EXPECT_FALSE(load->message.empty()) << c.name;
      EXPECT_FALSE(r.facts.driver_version.has()) << c.name;
    }
  }
  remove_tree(*dir);
}

#endif  // _WIN32

// ------------------------------------------------------------------ parsers

TEST(DriverVersionParse, OpenAndProprietaryModuleBanners) {
  auto open = parse::nvidia_module_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
      "GCC version:  gcc version 15.3.0 (GCC) \n");
  ASSERT_TRUE(open);
  EXPECT_EQ(open->version, "580.159.04");
  EXPECT_EQ(open->flavour, "open");
  EXPECT_EQ(open->gcc, "gcc version 15.3.0 (GCC)");
  auto prop = parse::nvidia_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 "
                                           "19:39:15 UTC 2024\n");
  ASSERT_TRUE(prop);
  EXPECT_EQ(prop->version, "535.183.01");
  EXPECT_EQ(prop->flavour, "proprietary");
  auto arm = parse::nvidia_module_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.54.15  Tue Mar  5 "
                                          "19:58:46 UTC 2024");
  ASSERT_TRUE(arm);
  EXPECT_EQ(arm->version, "550.54.15");
}

TEST(DriverVersionParse, GarbageIsNoVersion) {
  EXPECT_FALSE(parse::nvidia_module_version(""));
  EXPECT_FALSE(parse::nvidia_module_version("NVRM version:"));
  EXPECT_FALSE(parse::nvidia_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"));
  EXPECT_FALSE(parse::nvidia_module_version("GCC version: 12.2.0\n"));
  EXPECT_FALSE(parse::nvidia_module_version(std::string(100000, '\0')));
}

TEST(DriverVersionParse, VersionFromLibraryFileName) {
  EXPECT_EQ(parse::driver_version_from_library_name("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04"),
            "580.159.04");
  EXPECT_EQ(parse::driver_version_from_library_name("libcuda.so.535.183.01"), "535.183.01");
  EXPECT_FALSE(parse::driver_version_from_library_name("libcuda.so.1"));
  EXPECT_FALSE(parse::driver_version_from_library_name("nvml.dll"));
  EXPECT_FALSE(parse::driver_version_from_library_name("libnvidia-ml.so.580.x"));
}

TEST(CudaVisibleDevicesParse, ListsAndTheirEnds) {
  auto two = parse::cuda_visible_devices(" 1 , 0 ");
  ASSERT_EQ(two.entries.size(), 2u);
  EXPECT_EQ(two.entries[0].index, 1);
  EXPECT_EQ(two.entries[1].index, 0);
  EXPECT_FALSE(two.truncated);
  for (const char* v : {"", "-1", "none", " "}) EXPECT_TRUE(parse::cuda_visible_devices(v).hides_all()) << v;
  auto cut = parse::cuda_visible_devices("0,-1,1");
  ASSERT_EQ(cut.entries.size(), 1u);
  EXPECT_TRUE(cut.truncated);
  EXPECT_EQ(cut.stopped_at, "-1");
  auto uuid = parse::cuda_visible_devices("GPU-ae870f63,MIG-1234abcd");
  ASSERT_EQ(uuid.entries.size(), 2u);
  EXPECT_EQ(uuid.entries[0].uuid, "GPU-ae870f63");
  EXPECT_FALSE(uuid.entries[0].is_index);
  EXPECT_EQ(parse::cuda_visible_devices(std::string(100000, ',')).entries.size(), 0u);
  EXPECT_EQ(parse::cuda_visible_devices("99999999999").entries.size(), 0u);  // not an ordinal: too long
}

TEST(ModulesDepParse, FindsTheNvidiaModuleAndNotItsSiblings) {
  const auto m = parse::nvidia_module_in_modules_dep(
      "kernel/drivers/video/fbdev/nvidia/nvidiafb.ko: kernel/drivers/video/vgastate.ko\n"
      "updates/dkms/nvidia-uvm.ko: updates/dkms/nvidia.ko\n"
      "updates/dkms/nvidia-modeset.ko: updates/dkms/nvidia.ko\n"
      "updates/dkms/nvidia-drm.ko: updates/dkms/nvidia-modeset.ko updates/dkms/nvidia.ko\n"
      "updates/dkms/nvidia-peermem.ko: updates/dkms/nvidia.ko\n"
      "updates/dkms/nvidia.ko:\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "updates/dkms/nvidia.ko");
  EXPECT_EQ(m->compression, "");
  // Only the file before the colon counts: dependencies naming nvidia.ko are not the module's line.
  EXPECT_FALSE(parse::nvidia_module_in_modules_dep("updates/dkms/nvidia-uvm.ko: updates/dkms/nvidia.ko\n"));
  for (const char* c : {"xz", "zst", "gz"}) {
    const auto z = parse::nvidia_module_in_modules_dep(std::string("kernel/nvidia-550/nvidia.ko.") + c + ":\n");
    ASSERT_TRUE(z) << c;
    EXPECT_EQ(z->compression, c);
  }
  // Debian's name; an absolute path as old module-init-tools wrote it; CRLF and blanks around.
  EXPECT_EQ(parse::nvidia_module_in_modules_dep("updates/dkms/nvidia-current.ko:\n")->path,
            "updates/dkms/nvidia-current.ko");
  EXPECT_EQ(parse::nvidia_module_in_modules_dep("/lib/modules/2.6.32-5-686/nvidia/nvidia.ko: \r\n")->path,
            "/lib/modules/2.6.32-5-686/nvidia/nvidia.ko");
  EXPECT_EQ(parse::nvidia_module_in_modules_dep("  nvidia.ko  :  \n")->path, "nvidia.ko");
}

TEST(ModulesDepParse, GarbageIsNoModule) {
  for (const std::string& t :
       {std::string(), std::string("nvidia.ko"), std::string(":\n:\n"), std::string("updates/dkms/nvidia.ko.bz2:\n"),
        std::string("updates/nvidia.kox:\n"), std::string("updates/dkms/nvidia.ko/:\n"), std::string("xnvidia.ko:\n"),
        std::string(100000, '\0'), std::string(100000, ':')})
    EXPECT_FALSE(parse::nvidia_module_in_modules_dep(t)) << t.substr(0, 40);
}

TEST(ModulesDepParse, SignatureMarkerAtTheEndOnly) {
  EXPECT_TRUE(parse::module_signature_appended("~Module signature appended~\n"));
  EXPECT_TRUE(parse::module_signature_appended(std::string("\x7f"
                                                           "ELF....\x00\x00\x02") +
                                               "~Module signature appended~\n"));
  EXPECT_FALSE(parse::module_signature_appended("~Module signature appended~"));     // no newline
  EXPECT_FALSE(parse::module_signature_appended("~Module signature appended~\nx"));  // not at the end
  EXPECT_FALSE(parse::module_signature_appended("appended~\n"));
  EXPECT_FALSE(parse::module_signature_appended(""));
}

TEST(ModulesDepParse, KernelReleasesInReadingOrder) {
  EXPECT_TRUE(parse::kernel_release_less("6.1.0-9-amd64", "6.1.0-17-amd64"));
  EXPECT_FALSE(parse::kernel_release_less("6.1.0-17-amd64", "6.1.0-9-amd64"));
  EXPECT_TRUE(parse::kernel_release_less("5.15.0-105-generic", "6.5.0-28-generic"));
  EXPECT_TRUE(parse::kernel_release_less("6.8.0-45-generic", "6.8.0-45-lowlatency"));
  EXPECT_TRUE(parse::kernel_release_less("6.8.0", "6.8.0-45-generic"));
  EXPECT_FALSE(parse::kernel_release_less("6.8.0-45-generic", "6.8.0-45-generic"));
  std::vector<std::string> v = {"6.1.0-18-amd64", "6.1.0-9-amd64", "6.1.0-17-amd64", "5.10.0-28-amd64"};
  std::sort(v.begin(), v.end(),
            [](const std::string& a, const std::string& b) { return parse::kernel_release_less(a, b); });
  EXPECT_EQ(v, (std::vector<std::string>{"5.10.0-28-amd64", "6.1.0-9-amd64", "6.1.0-17-amd64", "6.1.0-18-amd64"}));
}

}  // namespace
}  // namespace gpuready
