// GPU test (ctest label "gpu"): `gpuready verify -t nvcc.compile -t nvcc.run --json` on a machine with
// an NVIDIA GPU and a CUDA toolkit: the tiny kernel compiles for this GPU's architecture and runs
// with the right result. Skips itself, with the reason, without nvidia-smi's GPU or without nvcc.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "platform/os.h"

using namespace gpuready;

TEST(GpuNvcc, VerifyCompilesAndRunsTheKernel) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(30);
  const ProcResult smi = real_os().proc.run({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, o);
  if (!smi.ok() || smi.out.find_first_not_of(" \r\n") == std::string::npos)
    GTEST_SKIP() << "nvidia-smi lists no GPU: " << (smi.error.empty() ? smi.err : smi.error);
  const ProcResult which = real_os().proc.run({"nvcc", "--version"}, o);
  if (!which.ok() && !std::filesystem::exists("/usr/local/cuda/bin/nvcc"))
    GTEST_SKIP() << "no nvcc on PATH or in /usr/local/cuda/bin";

  o.timeout = std::chrono::seconds(300);
  const ProcResult r =
      real_os().proc.run({GPUREADY_EXE, "verify", "-t", "nvcc.compile", "-t", "nvcc.run", "--json"}, o);
  ASSERT_TRUE(r.started) << r.error;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j.at("checks").size(), 2u) << j.dump(2);
  for (const auto& c : j.at("checks")) {
    if (c.at("key") == "nvcc.compile" && c.at("status") == "skip")
      GTEST_SKIP() << "gpuready found no toolkit: " << c.at("detail");
    EXPECT_EQ(c.at("status"), "pass") << c.dump(2);
    EXPECT_EQ(c.at("unit"), "s");
  }
  EXPECT_EQ(j["checks"][0]["key"], "nvcc.compile");
  EXPECT_EQ(j["checks"][1]["key"], "nvcc.run");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}
