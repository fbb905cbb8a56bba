// GPU test (ctest label "gpu"): `gpuready __verify-copy` on a real NVIDIA GPU with the default
// 256 MiB buffers: every copy runs and its data check passes, the numbers are plausible, and a
// planted corruption is caught. Skips itself, with the reason, where nvidia-smi lists no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "platform/os.h"
#include "support/test_os.h"
#include "verify/copy.h"

using namespace gpuready;
using namespace gpuready::verify;

namespace {

using test::nvidia_smi_gpus;

CopyReport run_copies(const std::vector<std::string>& extra, std::string* err) {
  std::vector<std::string> argv = {GPUREADY_EXE, "__verify-copy", "--bytes", "268435456"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcOptions o;
  o.timeout = std::chrono::seconds(300);
  o.max_output = 4u << 20;
  const ProcResult r = real_os().proc.run(argv, o);
  EXPECT_TRUE(r.ok()) << r.error << "\n" << r.err;
  *err = r.err;
  const auto j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j.is_discarded() ? CopyReport{} : j.get<CopyReport>();
}

double median_gbps(const CopyResult& x) {
  std::vector<double> s = x.seconds;
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  const double t = s[s.size() / 2];
  return t > 0 ? static_cast<double>(x.bytes) * x.copies_per_sample * x.bytes_factor / t / 1e9 : 0;
}

std::string steps_text(const CopyReport& r) {
  std::string t;
  for (const auto& s : r.steps) t += (s.ok ? "  ok   " : "  FAIL ") + s.name + ": " + s.code + " " + s.message + "\n";
  return t;
}

}  // namespace

TEST(GpuCopy, EveryCopyIsVerifiedAndPlausible) {
  std::string why;
  const int gpus = nvidia_smi_gpus(&why);
  if (gpus == 0) GTEST_SKIP() << "no NVIDIA GPU: " << why;
  std::string err;
  const CopyReport r = run_copies({}, &err);
  ASSERT_FALSE(r.results.empty()) << steps_text(r) << err;
  EXPECT_EQ(r.device_count, gpus);
  for (const auto& s : r.steps)
    if (s.name.rfind("spin kernel", 0) == 0) {
      EXPECT_TRUE(s.ok) << "the spin kernel's PTX did not load: " << s.message;
    }
  std::vector<std::string> keys;
  for (const auto& x : r.results) {
    SCOPED_TRACE(x.key + ": " + x.method);
    keys.push_back(x.key);
    EXPECT_TRUE(x.error.empty()) << x.error;
    EXPECT_TRUE(x.verified) << x.verify_detail;
    EXPECT_EQ(x.bytes, 268435456u);
    ASSERT_EQ(x.seconds.size(), 5u);
    for (double s : x.seconds) EXPECT_GT(s, 0);
    const double gbps = median_gbps(x);
    std::printf("  %-18s %8.1f GB/s  link gen %s width %s\n", x.key.c_str(), gbps,
                nlohmann::json(x.link_gen).dump().c_str(), nlohmann::json(x.link_width).dump().c_str());
    EXPECT_GT(gbps, 1.0);
    if (x.key == "h2d_pinned" || x.key == "d2h_pinned") {
      EXPECT_FALSE(x.link_gen.empty()) << "NVML gave no link sample";
    }
    if (x.key == "d2d") {
      EXPECT_GT(gbps, 100.0) << "device memory copies should beat any host link";
    }
  }
  for (const auto& k : copy_keys()) EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
}

TEST(GpuCopy, PlantedCorruptionIsCaught) {
  std::string why;
  if (nvidia_smi_gpus(&why) == 0) GTEST_SKIP() << "no NVIDIA GPU: " << why;
  std::string err;
  const CopyReport r =
      run_copies({"--plant-corruption", "--only", "h2d_pinned", "--only", "d2d", "--samples", "1"}, &err);
  ASSERT_EQ(r.results.size(), 2u) << steps_text(r) << err;
  for (const auto& x : r.results) {
    SCOPED_TRACE(x.key);
    EXPECT_TRUE(x.error.empty()) << x.error;
    EXPECT_FALSE(x.verified);
    EXPECT_EQ(x.verify_detail.rfind("offset 89478485: expected 0x", 0), 0u) << x.verify_detail;
  }
}
