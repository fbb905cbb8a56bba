// `gpuready bench` end to end: the CPU engine (the oneDNN module, where it is built) learns the
// synthetic set well above chance in a few small epochs, the JSON has the contracted fields, and bad
// flags or data are usage errors with a message.
#include "train/bench.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "platform/os.h"

using namespace gpuready;

namespace {

ProcResult run(const std::vector<std::string>& args, int seconds = 300,
               const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {GPUREADY_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcOptions o;
  o.timeout = std::chrono::seconds(seconds);
  o.max_output = 4u << 20;
  o.set_env = env;
  return real_os().proc.run(argv, o);
}

std::string fake_engine() { return std::string(GPUREADY_FAKES_DIR) + "/libfake-train-engine.so"; }

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
  // The engine's process held the data and the model: more than the 2,000 images' 6 MB, far less than 4 GiB.
  ASSERT_TRUE(cpu["host_peak_bytes"].is_number()) << cpu.dump();
  EXPECT_GT(cpu["host_peak_bytes"].get<double>(), 6e6);
  EXPECT_LT(cpu["host_peak_bytes"].get<double>(), 4.0 * (1u << 30));
}

// A user's ONEDNN_VERBOSE makes oneDNN print a line per primitive on the engine child's stdout, beside its reply:
// the run must still come back (the reply is the child's last JSON line).
TEST(Bench, TheCpuEngineRunsWithOneDnnVerboseSet) {
  if (!cpu_module_built()) GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  const ProcResult r = run({"bench", "--device", "cpu", "--images", "200", "--epochs", "1", "--json"}, 300,
                           {{"ONEDNN_VERBOSE", "1"}, {"DNNL_VERBOSE", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const auto& cpu = j["runs"][0];
  EXPECT_EQ(cpu["error"], "") << cpu.dump();
  EXPECT_TRUE(cpu["epoch_seconds"].is_number()) << cpu.dump();
}

// --threads reaches oneDNN: the engine's child runs with OMP_NUM_THREADS (the OpenMP runtime oneDNN runs on reads it,
// whichever compiler built the module), and the report says how many threads ran. Without it, the engine ran on
// every core whatever --threads said.
TEST(Bench, TheCpuEngineRunsOnTheThreadsAsked) {
  if (!cpu_module_built()) GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  for (const char* threads : {"1", "3"}) {
    const ProcResult r =
        run({"bench", "--device", "cpu", "--images", "200", "--epochs", "1", "--threads", threads, "--json"}, 300);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    const auto& cpu = j["runs"][0];
    EXPECT_EQ(cpu["error"], "") << cpu.dump();
    EXPECT_NE(cpu["engine"].get<std::string>().find(std::string("(") + threads + " threads)"), std::string::npos)
        << cpu.dump();
  }
}

TEST(Bench, EtaFromTheSteadyPaceAfterTheFirstEpoch) {
  // Nothing before the second epoch begins (the first also searches algorithms).
  EXPECT_EQ(train::eta_text(0, 50, 100, 4, 0, 10.0), "");
  // Epoch 1 (of 0..3) half done in 5 s: 50 + 2 x 100 steps left at 10 steps/s.
  EXPECT_EQ(train::eta_text(1, 50, 100, 4, 1, 5.0), " ETA 25s");
  EXPECT_EQ(train::eta_text(2, 100, 100, 4, 1, 20.0), " ETA 10s");
  EXPECT_EQ(train::eta_text(3, 100, 100, 4, 1, 30.0), " ETA 0s");
  EXPECT_EQ(train::eta_text(1, 1, 1000, 11, 1, 1.0), " ETA 2h46m");
  EXPECT_EQ(train::eta_text(1, 10, 100, 3, 1, 6.0), " ETA 1m54s");
  EXPECT_EQ(train::eta_text(1, 0, 100, 3, 1, 1.0), "");  // no step done yet
}

TEST(Bench, CtrlCStopsCleanlyAndReportsTheEpochsDone) {
  if (!cpu_module_built()) GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  std::vector<std::string> argv = {GPUREADY_EXE, "bench", "--device", "cpu", "--images", "2000",
                                   "--epochs",   "1000",  "--batch",  "64",  "--json"};
  ProcOptions o;
  o.timeout = std::chrono::seconds(300);
  o.max_output = 4u << 20;
  const auto start = std::chrono::steady_clock::now();
  // Ctrl-C (SIGINT to gpuready's process group, as a terminal sends it) once it has trained a while.
  o.interrupt = [&] { return std::chrono::steady_clock::now() - start > std::chrono::seconds(20); };
  const ProcResult r = real_os().proc.run(argv, o);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;  // 128 + SIGINT
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& cpu = j["runs"][0];
  EXPECT_EQ(cpu["stopped"], true) << cpu.dump();
  // Far fewer than 1000 epochs, and each one finished is reported (the one in progress is not).
  EXPECT_LT(cpu["epochs"].size(), 200u);
  if (cpu["epochs"].empty()) {
    EXPECT_NE(cpu["error"].get<std::string>().find("before its first epoch"), std::string::npos) << cpu.dump();
  } else {
    EXPECT_EQ(cpu["error"], "") << cpu.dump();
    EXPECT_TRUE(cpu["accuracy"].is_number()) << cpu.dump();
  }
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
  r = run({"bench", "--filters", "8"});
  EXPECT_EQ(r.exit_code, 2);
  r = run({"bench", "--device", "cpu", "--size", "12x12x1", "--kernel", "5"});  // 12 -> 8 -> 4 -> 0
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not fit 12x12x1"), std::string::npos) << r.err;
}

TEST(Bench, TheModelFollowsItsFlags) {
  const ProcResult r = run({"bench", "--device", "cpu", "--images", "200", "--epochs", "0", "--filters", "8,16",
                            "--kernel", "5", "--dense", "32", "--lr", "0.01", "--json"});
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(j["model"]["layers"],
            "Conv2D 8 5x5 + ReLU, MaxPool 2, Conv2D 16 5x5 + ReLU, MaxPool 2, Flatten, Dense 32 + ReLU, Dense 10, "
            "softmax cross-entropy, Adam lr 0.01");
  if (cpu_module_built()) {
    EXPECT_EQ(j["runs"][0]["error"], "") << j.dump(1);
  }
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
#ifdef _WIN32
    EXPECT_NE(r.out.find("gpuready-cpu.dll is not installed"), std::string::npos) << r.out;
#else
    EXPECT_NE(r.out.find("libgpuready-cpu.so is not installed"), std::string::npos) << r.out;
#endif
  } else {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
}

train::BenchReport slow_gpu(int batch, double gpu_epoch) {
  train::BenchReport r;
  r.request.batch = batch;
  train::BenchRun cpu, gpu;
  cpu.device = "cpu";
  cpu.epoch_seconds = 1.0;
  gpu.device = "gpu";
  gpu.epoch_seconds = gpu_epoch;
  gpu.reply.steps_per_epoch = 100;
  r.runs = {cpu, gpu};
  r.speedup = 1.0 / gpu_epoch;
  return r;
}

TEST(Bench, AGpuThatIsNotFasterIsExplainedByTheFacts) {
  // Faster: nothing to explain.
  EXPECT_TRUE(train::why_gpu_not_faster(slow_gpu(128, 0.5)).empty());
  // A tiny batch.
  auto why = train::why_gpu_not_faster(slow_gpu(4, 2.0));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("the batch is 4 image(s)"), std::string::npos) << why[0];
  EXPECT_NE(why[0].find("20.00 ms per step"), std::string::npos) << why[0];
  // A launch-bound step (0.02 ms), data streamed, a narrow link, throttling and a busy GPU.
  auto r = slow_gpu(128, 1.25);
  r.runs[1].reply.details = {
      "data: streamed, each batch gathered on the host (3000 MiB would not fit in 2000 MiB free)"};
  train::GpuFacts f;
  f.pcie_gen = 3;
  f.pcie_gen_max = 4;
  f.pcie_width = 4;
  f.pcie_width_max = 16;
  f.clocks_event_reasons = {"gpu_idle", "hw_thermal_slowdown"};
  f.utilization_percent = 85;
  r.gpu = f;
  r.speedup = 0.8;
  r.runs[1].epoch_seconds = 1.25;
  r.runs[1].reply.steps_per_epoch = 10000;
  why = train::why_gpu_not_faster(r);
  std::string all;
  for (const auto& w : why) all += w + "\n";
  EXPECT_EQ(why.size(), 5u) << all;
  EXPECT_NE(all.find("a step takes 0.12 ms"), std::string::npos) << all;
  EXPECT_NE(all.find("did not fit in GPU memory"), std::string::npos) << all;
  EXPECT_NE(all.find("PCIe Gen 3 x4 of Gen 4 x16"), std::string::npos) << all;
  EXPECT_NE(all.find("hw_thermal_slowdown"), std::string::npos) << all;
  EXPECT_EQ(all.find("gpu_idle"), std::string::npos) << all;  // idle is not a slowdown
  EXPECT_NE(all.find("85% busy"), std::string::npos) << all;
  EXPECT_EQ(train::bench_to_json(r)["gpu_not_faster_because"].size(), 5u);
  EXPECT_NE(train::render_bench_console(r).find("The GPU is not faster than the CPU here (0.80x)"), std::string::npos);
  // Nothing known: say where to look.
  auto none = slow_gpu(128, 2.0);
  none.runs[1].reply.steps_per_epoch = 10;
  why = train::why_gpu_not_faster(none);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("gpuready verify"), std::string::npos) << why[0];
}

// The engine's process holds the data once and its held-out copy, not the data twice (the split is made in the
// data's own memory): 1,000 images of 128x128x3 are 197 MB; the fake engine adds nothing of its own. What the
// process holds beyond the data (libraries, and under ASan its shadow) is measured on 10 images and taken off.
TEST(Bench, TheEnginesProcessHoldsTheDataOnce) {
  if (!std::filesystem::exists(fake_engine())) GTEST_SKIP() << fake_engine() << " was not built";
  auto peak = [](int images) {
    const ProcResult r = run({"bench", "--device", "gpu", "--images", std::to_string(images), "--size", "128x128x3",
                              "--epochs", "0", "--json"},
                             120, {{"GPUREADY_CUDA_MODULE", fake_engine()}, {"GPUREADY_FAKE_ENGINE", "answer"}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
    const auto& p = j.is_discarded() ? nlohmann::json() : j["runs"][0]["host_peak_bytes"];
    return p.is_number() ? p.get<double>() : -1.0;
  };
  const double small = peak(10), big = peak(1000);
  if (small < 0 || big < 0) GTEST_SKIP() << "this OS does not report the child's peak memory";
  const double data = 1000.0 * 128 * 128 * 3 * sizeof(float);
  EXPECT_GT(big - small, data);
  EXPECT_LT(big - small, 1.75 * data) << "twice the data (the split copied)";
}

// The GPU engine runs in the child `gpuready __bench-engine`: its answer comes back, a child that
// hangs is stopped at --timeout and one that crashes is reported, each as the GPU run's error.
TEST(Bench, TheGpuEngineRunsInAChildThatIsStoppedOrBuriedCleanly) {
  if (!std::filesystem::exists(fake_engine())) GTEST_SKIP() << fake_engine() << " was not built";
  const std::vector<std::string> args = {"bench",    "--device", "gpu",       "--images", "20",
                                         "--epochs", "0",        "--timeout", "3",        "--json"};
  ProcResult r = run(args, 120, {{"GPUREADY_CUDA_MODULE", fake_engine()}, {"GPUREADY_FAKE_ENGINE", "answer"}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(j["runs"][0]["engine"], "fake");
  EXPECT_EQ(j["runs"][0]["epoch_seconds"], 0.5);

  const auto t0 = std::chrono::steady_clock::now();
  r = run(args, 120, {{"GPUREADY_CUDA_MODULE", fake_engine()}, {"GPUREADY_FAKE_ENGINE", "hang"}});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_NE(j["runs"][0]["error"].get<std::string>().find("did not finish in 3 s"), std::string::npos) << r.out;

  r = run(args, 120, {{"GPUREADY_CUDA_MODULE", fake_engine()}, {"GPUREADY_FAKE_ENGINE", "crash"}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_NE(j["runs"][0]["error"].get<std::string>().find("no result"), std::string::npos) << r.out;
}

}  // namespace
