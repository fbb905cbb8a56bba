// GEMM peaks for `gpuready verify` (src/verify/peaks.h): a datasheet row for the exact NVML name
// wins; otherwise SMs x max SM clock x the compute capability's FLOP/clock/SM; nullopt with the
// reason when the GPU lacks the precision or nothing is known. Every GPU here carries an SM count
// and clock, so a datasheet answer is told apart from a computed one by its value and basis.
#include <gtest/gtest.h>

#include "core/snapshot.h"
#include "knowledge/compat.h"
#include "verify/peaks.h"

using namespace gpuready;
using namespace gpuready::verify;

namespace {

const knowledge::Compat& k() { return knowledge::Compat::embedded(); }

NvidiaGpu gpu(const std::string& name, const std::string& cc, int sms, int max_mhz) {
  NvidiaGpu g;
  g.name = name;
  g.compute_capability = cc;
  g.sm_count = sms;
  g.sm_clock_max_mhz = max_mhz;
  return g;
}

// The H200 of the project's test machine as the probe saw it (tests/fixtures/snapshots/h200.json).
NvidiaGpu h200() { return gpu("NVIDIA H200", "9.0", 132, 1980); }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(VerifyPeaks, PrecisionNamesRoundTrip) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
    EXPECT_EQ(precision_from_name(precision_name(p)), p);
  EXPECT_STREQ(precision_name(Precision::tf32), "tf32");
  EXPECT_EQ(precision_from_name("BF16"), Precision::bf16);
  EXPECT_EQ(precision_from_name("fp64"), std::nullopt);
  EXPECT_EQ(precision_from_name("fp16 "), std::nullopt);
  EXPECT_EQ(precision_from_name(""), std::nullopt);
}

TEST(VerifyPeaks, H200ComesFromItsDatasheetRowForEveryPrecision) {
  // Datasheet: FP32 67, TF32 494.7 (989 with sparsity), FP16/BF16 989.4 (1,979 with sparsity).
  // Computing instead would give 66.9 / 535.3 / 1070.5 (132 SMs x 1980 MHz x 256/2048/4096).
  const struct {
    Precision p;
    double tflops;
  } want[] = {{Precision::fp32, 67}, {Precision::tf32, 494.7}, {Precision::fp16, 989.4}, {Precision::bf16, 989.4}};
  for (const auto& w : want) {
    std::string why;
    const auto peak = gemm_peak(h200(), w.p, k(), &why);
    ASSERT_TRUE(peak) << precision_name(w.p) << ": " << why;
    EXPECT_DOUBLE_EQ(peak->tflops, w.tflops) << precision_name(w.p);
    EXPECT_TRUE(has(peak->basis, "datasheet: NVIDIA H200 (")) << peak->basis;
  }
}

TEST(VerifyPeaks, AGpuWithoutARowIsComputedFromSmsTimesClock) {
  // NVIDIA H800 (cc 9.0) has no datasheet row. With 132 SMs at 1980 MHz:
  //   bf16 = 132 x 1980e6 x 4096 FLOP/clock/SM = 1,070,530,560e6 FLOP/s = 1070.53056 TFLOP/s
  //   tf32 = 132 x 1980e6 x 2048 = 535.26528 TFLOP/s;  fp32 = 132 x 1980e6 x 256 = 66.90816 TFLOP/s
  const NvidiaGpu h800 = gpu("NVIDIA H800", "9.0", 132, 1980);
  std::string why;
  auto bf16 = gemm_peak(h800, Precision::bf16, k(), &why);
  ASSERT_TRUE(bf16) << why;
  EXPECT_NEAR(bf16->tflops, 1070.53056, 1e-9);
  EXPECT_EQ(bf16->basis, "computed: 132 SMs x 1980 MHz x 4096 FLOP/clock/SM (compute capability 9.0)");
  EXPECT_NEAR(gemm_peak(h800, Precision::tf32, k())->tflops, 535.26528, 1e-9);
  EXPECT_NEAR(gemm_peak(h800, Precision::fp16, k())->tflops, 1070.53056, 1e-9);
  EXPECT_NEAR(gemm_peak(h800, Precision::fp32, k())->tflops, 66.90816, 1e-9);

  // NVIDIA A800-SXM4-80GB (cc 8.0), 108 SMs at 1410 MHz:
  //   fp16 = 108 x 1410e6 x 2048 = 311.86944 TFLOP/s (the A100 datasheet's 312);
  //   fp32 = 108 x 1410e6 x 128 = 19.49184 TFLOP/s (64 FP32 lanes per SM; the datasheet's 19.5).
  const NvidiaGpu a800 = gpu("NVIDIA A800-SXM4-80GB", "8.0", 108, 1410);
  EXPECT_NEAR(gemm_peak(a800, Precision::fp16, k())->tflops, 311.86944, 1e-9);
  EXPECT_NEAR(gemm_peak(a800, Precision::tf32, k())->tflops, 155.93472, 1e-9);
  EXPECT_NEAR(gemm_peak(a800, Precision::fp32, k())->tflops, 19.49184, 1e-9);
}

TEST(VerifyPeaks, TuringHasNoTf32OrBf16AndItsFp16IsNotComputed) {
  // A cc 7.5 GeForce without a datasheet row: fp32 is computed (68 x 1545e6 x 128 = 13.44768
  // TFLOP/s), tf32/bf16 do not exist, and fp16 with fp32 accumulate differs by product (the
  // RTX 2080 Ti runs it at half the Titan RTX's per-SM rate), so it is not computed.
  const NvidiaGpu rtx2080ti = gpu("NVIDIA GeForce RTX 2080 Ti", "7.5", 68, 1545);
  EXPECT_NEAR(gemm_peak(rtx2080ti, Precision::fp32, k())->tflops, 13.44768, 1e-9);
  for (Precision p : {Precision::tf32, Precision::bf16}) {
    std::string why;
    EXPECT_FALSE(gemm_peak(rtx2080ti, p, k(), &why)) << precision_name(p);
    EXPECT_TRUE(has(why, "compute capability 7.5 has no")) << why;
    EXPECT_TRUE(has(why, p == Precision::tf32 ? "TF32" : "BF16")) << why;
  }
  std::string why;
  EXPECT_FALSE(gemm_peak(rtx2080ti, Precision::fp16, k(), &why));
  EXPECT_TRUE(has(why, "\"NVIDIA GeForce RTX 2080 Ti\" has no datasheet row")) << why;
  EXPECT_TRUE(has(why, "is not computed")) << why;

  // Datasheet rows say the same for Turing boards they cover: the T4 has FP16 (65) but no TF32.
  EXPECT_DOUBLE_EQ(gemm_peak(gpu("Tesla T4", "7.5", 40, 1590), Precision::fp16, k())->tflops, 65);
  EXPECT_FALSE(gemm_peak(gpu("Tesla T4", "7.5", 40, 1590), Precision::tf32, k(), &why));
  EXPECT_TRUE(has(why, "Tesla T4 has no TF32 peak in the datasheet table")) << why;
}

TEST(VerifyPeaks, TheWalkthroughsGtx1650HasFp16OnlyAtItsCudaCoreRate) {
  // No tensor cores: fp16 with fp32 accumulate runs on the FP32 units (2.98 = 896 x 2 x 1665 MHz).
  const NvidiaGpu gtx = gpu("NVIDIA GeForce GTX 1650", "7.5", 14, 2100);
  const auto fp32 = gemm_peak(gtx, Precision::fp32, k());
  const auto fp16 = gemm_peak(gtx, Precision::fp16, k());
  ASSERT_TRUE(fp32 && fp16);
  EXPECT_DOUBLE_EQ(fp32->tflops, 2.98);
  EXPECT_DOUBLE_EQ(fp16->tflops, fp32->tflops);
  for (Precision p : {Precision::tf32, Precision::bf16}) {
    std::string why;
    EXPECT_FALSE(gemm_peak(gtx, p, k(), &why));
    EXPECT_TRUE(has(why, "NVIDIA GeForce GTX 1650 has no")) << why;
  }
}

TEST(VerifyPeaks, UnknownCapabilityOrMissingFactsSayWhy) {
  std::string why;
  // A Kepler K80 (cc 3.7): no per-SM rate is known for it.
  EXPECT_FALSE(gemm_peak(gpu("Tesla K80", "3.7", 13, 875), Precision::fp32, k(), &why));
  EXPECT_TRUE(has(why, "no per-SM rate is known for compute capability 3.7")) << why;

  NvidiaGpu g = gpu("NVIDIA H800", "9.0", 132, 1980);
  g.sm_count = Fact<int>::unknown("cuInit was not called");
  EXPECT_FALSE(gemm_peak(g, Precision::bf16, k(), &why));
  EXPECT_TRUE(has(why, "the SM count is unknown (cuInit was not called)")) << why;

  g = gpu("NVIDIA H800", "9.0", 132, 1980);
  g.sm_clock_max_mhz = Fact<int>::unknown("NVML_ERROR_NOT_SUPPORTED");
  EXPECT_FALSE(gemm_peak(g, Precision::fp32, k(), &why));
  EXPECT_TRUE(has(why, "the max SM clock is unknown (NVML_ERROR_NOT_SUPPORTED)")) << why;

  g = gpu("NVIDIA H800", "9.0", 0, 1980);
  EXPECT_FALSE(gemm_peak(g, Precision::fp32, k(), &why));
  EXPECT_TRUE(has(why, "reported as 0")) << why;

  g = gpu("NVIDIA H800", "9.0", 132, 1980);
  g.compute_capability = Fact<std::string>::unknown("NVML too old");
  EXPECT_FALSE(gemm_peak(g, Precision::fp32, k(), &why));
  EXPECT_TRUE(has(why, "compute capability is unknown (NVML too old)")) << why;
  g.compute_capability = std::string("nine");
  EXPECT_FALSE(gemm_peak(g, Precision::fp32, k(), &why));
  EXPECT_TRUE(has(why, "\"nine\" does not parse")) << why;

  // A name that is unknown still computes from the facts it has.
  g = gpu("x", "9.0", 132, 1980);
  g.name = Fact<std::string>::unknown("NVML not loaded");
  EXPECT_NEAR(gemm_peak(g, Precision::fp32, k())->tflops, 66.90816, 1e-9);
  g.sm_count = Fact<int>::unknown("not collected");
  EXPECT_FALSE(gemm_peak(g, Precision::fp32, k(), &why));
  EXPECT_TRUE(has(why, "the GPU's name is unknown")) << why;
}

TEST(VerifyPeaks, TheExportLimitedH20IsNeverComputedAtTheHopperRate) {
  // cc 9.0 with 78 SMs would compute to 78 x 1980e6 x 4096 = 632.6 TFLOP/s; reports give 148.
  std::string why;
  EXPECT_FALSE(gemm_peak(gpu("NVIDIA H20", "9.0", 78, 1980), Precision::bf16, k(), &why));
  EXPECT_TRUE(has(why, "NVIDIA H20 has no BF16 peak")) << why;
}

TEST(VerifyPeaks, NamesMatchExactlyAsNvmlSpellsThem) {
  // The H100 boards differ only by name: SXM5 80GB, PCIe and NVL.
  const struct {
    const char* name;
    double bf16;
  } boards[] = {{"NVIDIA H100 80GB HBM3", 989.4},
                {"NVIDIA H100 PCIe", 756.5},
                {"NVIDIA H100 NVL", 835.5},
                {"NVIDIA H200 NVL", 835.5},
                {"NVIDIA A100-SXM4-80GB", 312},
                {"NVIDIA A100 80GB PCIe", 312},
                {"NVIDIA L4", 121},
                {"NVIDIA GeForce RTX 4090", 165.2}};
  for (const auto& b : boards) {
    const auto peak = gemm_peak(gpu(b.name, "9.0", 1, 1), Precision::bf16, k());
    ASSERT_TRUE(peak) << b.name;
    EXPECT_DOUBLE_EQ(peak->tflops, b.bf16) << b.name;
    EXPECT_TRUE(has(peak->basis, std::string("datasheet: ") + b.name + " (")) << peak->basis;
  }
  // No folding of case, spaces or brand words: these fall through to the computed rate
  // (1 SM x 1 MHz x 4096 FLOP/clock = 0.004096 TFLOP/s), so they are not the H200's row.
  for (const char* near_miss : {"nvidia h200", "H200", "NVIDIA  H200", "NVIDIA H200 "}) {
    const auto peak = gemm_peak(gpu(near_miss, "9.0", 1, 1), Precision::bf16, k());
    ASSERT_TRUE(peak) << near_miss;
    EXPECT_NEAR(peak->tflops, 0.004096, 1e-12) << near_miss;
    EXPECT_TRUE(has(peak->basis, "computed: ")) << peak->basis;
  }
  // A Max-Q laptop name is its own NVML name, not the desktop GTX 1650's row: fp16 on cc 7.5 is
  // then not computed, and fp32 is (16 SMs x 1245 MHz x 128 = 2.54976 TFLOP/s).
  const NvidiaGpu maxq = gpu("NVIDIA GeForce GTX 1650 with Max-Q Design", "7.5", 16, 1245);
  EXPECT_FALSE(gemm_peak(maxq, Precision::fp16, k()));
  EXPECT_NEAR(gemm_peak(maxq, Precision::fp32, k())->tflops, 2.54976, 1e-9);
}
