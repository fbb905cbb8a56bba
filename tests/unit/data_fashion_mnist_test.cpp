// Real data as users bring it (label `data`: minutes of training, `ctest --preset data`): Fashion-MNIST as Debian's
// dataset-fashion-mnist installs it, gzip-compressed IDX files with their own t10k test split, read as they are by
// `gpuready bench --data` and learnt by the CPU engine to the accuracy the walkthrough's CNN reaches (>= 88 % on the
// 10,000 held-out images). docs/bench.md shows the command and what it reached.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "platform/os.h"
#include "train/bench.h"

using namespace gpuready;

namespace {

constexpr const char* kFashion = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnist, TheCpuEngineReaches88PercentOnItsOwnTestSplit) {
  if (!std::filesystem::exists(std::filesystem::path(kFashion) / "train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << kFashion << " is missing: apt install dataset-fashion-mnist";
  if (!std::filesystem::exists(std::filesystem::path(GPUREADY_EXE).parent_path() / train::engine_file_name("cpu")))
    GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  ProcOptions o;
  o.timeout = std::chrono::minutes(40);
  o.max_output = 4u << 20;
  const ProcResult r = real_os().proc.run(
      {GPUREADY_EXE, "bench", "--data", kFashion, "--device", "cpu", "--epochs", "4", "--json"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["dataset"]["train"], 60000);
  EXPECT_EQ(j["dataset"]["test"], 10000);  // t10k, not a share of the training files
  EXPECT_NE(j["dataset"]["source"].get<std::string>().find("t10k-images-idx3-ubyte.gz"), std::string::npos);
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& cpu = j["runs"][0];
  ASSERT_TRUE(cpu["accuracy"].is_number()) << cpu.dump();
  EXPECT_GE(cpu["accuracy"].get<double>(), 0.88) << cpu.dump();
  std::printf("Fashion-MNIST, CPU: held-out accuracy %.4f after %zu epochs, %.2f s per epoch\n",
              cpu["accuracy"].get<double>(), cpu["epochs"].size(), cpu["epoch_seconds"].get<double>());
}

}  // namespace
