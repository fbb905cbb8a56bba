// GPU test (ctest label "gpu"): the CUDA module's checks on a real NVIDIA GPU through
// `gpuready verify --quick --json`: the matrix products, the three convolutions and the memory test
// run and their sampled results match the CPU; cuDNN loads from one folder; and a planted
// corruption is caught in each kind of check. Skips itself, with the reason, where nvidia-smi lists
// no GPU or the module was not built.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "platform/os.h"
#include "support/test_os.h"
#include "verify/gpu_checks.h"

using namespace gpuready;

namespace {

nlohmann::json verify(const std::vector<std::string>& extra, int* exit_code) {
  std::vector<std::string> argv = {GPUREADY_EXE, "verify", "--quick", "--json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcOptions o;
  o.timeout = std::chrono::seconds(300);
  o.max_output = 8u << 20;
  const ProcResult r = real_os().proc.run(argv, o);
  *exit_code = r.exit_code;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  return j;
}

const std::vector<std::string> kChecks = {"-t", "gemm.fp32",
                                          "-t", "gemm.tf32",
                                          "-t", "gemm.fp16",
                                          "-t", "gemm.bf16",
                                          "-t", "cudnn.conv_fwd",
                                          "-t", "cudnn.conv_bwd_data",
                                          "-t", "cudnn.conv_bwd_filter",
                                          "-t", "memory.pattern"};

class GpuModule : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (test::nvidia_smi_gpus(&why) == 0) GTEST_SKIP() << why;
    const auto module = std::filesystem::path(GPUREADY_EXE).parent_path() / verify::module_file_name();
    if (!std::filesystem::exists(module)) GTEST_SKIP() << module << " was not built (no CUDA compiler)";
  }
};

TEST_F(GpuModule, EveryCheckRunsAndItsResultsAreRight) {
  int rc = -1;
  const auto j = verify(kChecks, &rc);
  ASSERT_TRUE(j.contains("checks")) << j.dump(1);
  std::ostringstream all;
  for (const auto& c : j["checks"])
    all << c["key"] << " " << c["status"] << " " << c["value"] << " " << c["detail"] << "\n";
  std::cout << all.str();
  ASSERT_EQ(j["checks"].size(), 9u) << all.str();  // eight checks and cudnn.load
  for (const auto& c : j["checks"]) {
    const std::string key = c["key"], status = c["status"];
    EXPECT_TRUE(status == "pass" || status == "warn") << key << ": " << c["detail"];
    EXPECT_TRUE(c["data_ok"].get<bool>()) << key;
    if (key.rfind("gemm.", 0) == 0 || key.rfind("cudnn.conv", 0) == 0) {
      ASSERT_TRUE(c["value"].is_number()) << key;
      EXPECT_GT(c["value"].get<double>(), 1.0) << key;  // TFLOP/s: any GPU of this decade does more
    }
  }
  EXPECT_EQ(rc, 0);
}

TEST_F(GpuModule, APlantedCorruptionIsCaughtInEachKindOfCheck) {
  int rc = -1;
  const auto j =
      verify({"--plant-corruption", "-t", "gemm.bf16", "-t", "cudnn.conv_bwd_filter", "-t", "memory.pattern"}, &rc);
  ASSERT_TRUE(j.contains("checks")) << j.dump(1);
  int caught = 0;
  for (const auto& c : j["checks"]) {
    if (c["key"] == "cudnn.load") continue;
    EXPECT_EQ(c["status"], "fail") << c["key"] << ": " << c["detail"];
    EXPECT_FALSE(c["data_ok"].get<bool>()) << c["key"];
    caught += !c["data_ok"].get<bool>();
  }
  EXPECT_EQ(caught, 3);
  EXPECT_EQ(rc, 1);
  bool finding = false;
  for (const auto& f : j["findings"]) finding |= f["code"] == "measured.data-corrupt";
  EXPECT_TRUE(finding);
}

}  // namespace
