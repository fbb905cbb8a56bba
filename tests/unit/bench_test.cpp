// `gpuready bench` end to end: the CPU engine (the oneDNN module, where it is built) learns the
// synthetic set well above chance in a few small epochs, the JSON has the contracted fields, and bad
// flags or data are usage errors with a message.
#include "train/bench.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "platform/os.h"

using namespace gpuready;

namespace {

ProcResult run(const std::vector<std::string>& args, int seconds = 300) {
  std::vector<std::string> argv = {GPUREADY_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcOptions o;
  o.timeout = std::chrono::seconds(seconds);
  o.max_output = 4u << 20;
  return real_os().proc.run(argv, o);
}

bool cpu_module_built() {
  return std::filesystem::exists(std::filesystem::path(GPUREADY_EXE).parent_path() / train::engine_file_name("cpu"));
}

TEST(Bench, TheCpuEngineLearnsTheSyntheticSetWellAboveChance) {
  if (!cpu_module_built()) GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  const ProcResult r =
      run({"bench", "--device", "cpu", "--images", "2000", "--epochs", "2", "--batch", "64", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["schema"], "gpuready.bench/1");
  EXPECT_EQ(j["dataset"]["train"], 1600);
  EXPECT_EQ(j["dataset"]["test"], 400);
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& cpu = j["runs"][0];
  EXPECT_EQ(cpu["device"], "cpu");
  EXPECT_EQ(cpu["precision"], "fp32");
  for (const char* k : {"epoch_seconds", "images_per_second", "first_epoch_seconds", "final_loss", "accuracy"})
    EXPECT_TRUE(cpu[k].is_number()) << k << ": " << cpu.dump();
  EXPECT_EQ(cpu["epochs"].size(), 3u);  // the first and two timed
  // 10 classes: chance is 0.10. Three epochs over 1,600 images reach about 0.6-0.8.
  EXPECT_GT(cpu["accuracy"].get<double>(), 0.4) << cpu.dump();
  EXPECT_LT(cpu["epochs"][2]["train_loss"].get<double>(), cpu["epochs"][0]["train_loss"].get<double>());
  EXPECT_TRUE(j["speedup"].is_null());  // one device
}

TEST(Bench, BadFlagsAndDataAreUsageErrors) {
  ProcResult r = run({"bench", "--size", "28x28"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("HxWxC"), std::string::npos) << r.err;
  r = run({"bench", "--data", "/nonexistent/data"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/data"), std::string::npos) << r.err;
  r = run({"bench", "--device", "tpu"});
  EXPECT_EQ(r.exit_code, 2);
  r = run({"bench", "--precision", "fp8"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(Bench, AnEngineThatIsMissingIsReportedNotACrash) {
  // The GPU engine is looked for under $GPUREADY_CUDA_MODULE first; a path that does not exist and no
  // module beside the executable: "not run" with where it looked, exit 1 for a device asked by name.
  train::TrainRequest q;
  train::Split none;
  const auto reply = train::run_engine(real_os(), {"/nonexistent/libgpuready-cuda.so"}, q, none, {});
  EXPECT_NE(reply.error.find("/nonexistent/libgpuready-cuda.so"), std::string::npos) << reply.error;
  const ProcResult r = run({"bench", "--device", "cpu", "--images", "20", "--epochs", "0", "--json"}, 120);
  if (!cpu_module_built()) {
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("libgpuready-cpu.so is not installed"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
}

}  // namespace
