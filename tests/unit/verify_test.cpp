// verify without a GPU: the statistics, the limits (PCIe link rate, memory bandwidth), the
// judging of copy results against the H200 machine's real snapshot (fake results with the
// numbers nvbandwidth and PyTorch measured there), the report's JSON, and `gpuready verify`'s
// behaviour where no GPU can be reached.
#include <gtest/gtest.h>

#include <fstream>

#include "platform/os.h"
#include "verify/verify.h"

using namespace gpuready;
using namespace gpuready::verify;

namespace {

Snapshot h200() {
  std::ifstream f(std::string(GPUREADY_FIXTURES) + "/snapshots/h200.json");
  return snapshot_from_json(nlohmann::json::parse(f));
}

// A result whose samples give `gbps` (5 samples around it).
CopyResult result(const std::string& key, double gbps, double factor = 1) {
  CopyResult r;
  r.key = key;
  r.bytes = 256ull << 20;
  r.copies_per_sample = 8;
  r.bytes_factor = factor;
  const double moved = static_cast<double>(r.bytes) * r.copies_per_sample * factor;
  for (double k : {0.98, 1.0, 1.01, 0.99, 1.02}) r.seconds.push_back(moved / (gbps * k * 1e9));
  r.verified = true;
  r.method = "test";
  return r;
}

CopyReport report(std::vector<CopyResult> results) {
  CopyReport r;
  r.device_count = 1;
  r.pci_bus_id = "0000:00:06.0";  // the H200 fixture's GPU, as the copy child reports it (4-digit domain)
  r.results = std::move(results);
  return r;
}

const Check& only(const std::vector<Check>& v) {
  EXPECT_EQ(v.size(), 1u);
  return v.front();
}

}  // namespace

TEST(VerifyStats, MedianOfOddEvenAndNone) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_FALSE(median({}));
}

TEST(VerifyLimits, PcieRatePerDirectionAfterLineCoding) {
  EXPECT_NEAR(*pcie_gbps(5, 16), 63.0, 0.01);  // the H200 machine's Gen5 x16
  EXPECT_NEAR(*pcie_gbps(3, 16), 15.76, 0.01);
  EXPECT_NEAR(*pcie_gbps(4, 8), 15.75, 0.01);
  EXPECT_FALSE(pcie_gbps(0, 16));
  EXPECT_FALSE(pcie_gbps(7, 16));
  EXPECT_FALSE(pcie_gbps(5, 0));
}

TEST(VerifyLimits, MemoryBandwidthFromNvmlClockAndBusWidth) {
  const Snapshot s = h200();
  // 3201 MHz x 2 x 6016 bits / 8 = 4814 GB/s: the datasheet's 4.8 TB/s.
  EXPECT_NEAR(*memory_gbps(s.nvidia.gpus[0]), 4814.4, 0.5);
  NvidiaGpu g;
  EXPECT_FALSE(memory_gbps(g));
}

TEST(VerifyJudge, PinnedCopiesAreJudgedAgainstTheLink) {
  const Snapshot s = h200();
  // nvbandwidth's 55.4 GB/s on this machine: 0.88 of Gen5 x16.
  const Check good = only(judge_copies(report({result("h2d_pinned", 55.4)}), s));
  EXPECT_EQ(good.key, "copy.h2d_pinned");
  EXPECT_EQ(good.status, Status::pass);
  EXPECT_NEAR(*good.value, 55.4, 0.01);
  EXPECT_NEAR(*good.limit, 63.0, 0.01);
  EXPECT_NEAR(*good.ratio, 0.879, 0.005);
  EXPECT_EQ(good.samples.size(), 5u);
  EXPECT_EQ(only(judge_copies(report({result("d2h_pinned", 40)}), s)).status, Status::warn);  // 0.63
  const Check slow = only(judge_copies(report({result("h2d_pinned", 20)}), s));           // 0.32
  EXPECT_EQ(slow.status, Status::fail);
  EXPECT_NE(slow.detail.find("PCIe Gen5 x16: 63.0 GB/s each way"), std::string::npos) << slow.detail;
}

TEST(VerifyJudge, TheGpuIsFoundByItsBusIdBeforeItsOrdinal) {
  // Two GPUs: CUDA's device 0 is the H200 at 00:06.0 (Gen5); the copy child ran on the one at 18:00.0
  // (CUDA_VISIBLE_DEVICES reordered them), which sits in a Gen3 slot. Its bus ID must pick it.
  Snapshot s = h200();
  NvidiaGpu other = s.nvidia.gpus[0];
  other.pci_bus_id = std::string("00000000:18:00.0");
  other.pcie_gen_current = 3;
  other.pcie_gen_max = 3;
  other.cuda_ordinal = 1;
  s.nvidia.gpus[0].cuda_ordinal = 0;
  s.nvidia.gpus.push_back(other);
  CopyReport on_other = report({result("h2d_pinned", 13)});
  on_other.device_count = 2;
  on_other.pci_bus_id = "0000:18:00.0";
  const Check c = only(judge_copies(on_other, s));
  EXPECT_NEAR(*c.limit, 15.76, 0.01) << c.detail;  // Gen3 x16, not the H200's Gen5
  EXPECT_EQ(c.status, Status::pass);
  // Without the bus ID, device 0 is the Gen5 GPU and 13 GB/s is far too slow for it.
  on_other.pci_bus_id.clear();
  EXPECT_EQ(only(judge_copies(on_other, s)).status, Status::fail);
}

TEST(VerifyJudge, DeviceCopiesAreJudgedAgainstTheMemory) {
  // PyTorch's 4.28 TB/s counting read + write: 0.89 of the HBM.
  const Check c = only(judge_copies(report({result("d2d", 4280, 2)}), h200()));
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_NEAR(*c.value, 4280, 1);
  EXPECT_NEAR(*c.ratio, 0.889, 0.005);
}

TEST(VerifyJudge, CorruptedDataFailsWhateverTheSpeed) {
  CopyResult r = result("h2d_pinned", 55.4);
  r.verified = false;
  r.verify_detail = "offset 4096: expected 0x5a, got 0xa5";
  const Check c = only(judge_copies(report({r}), h200()));
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_NE(c.detail.find("offset 4096"), std::string::npos) << c.detail;
}

TEST(VerifyJudge, ALinkThatRanBelowItsMaxDuringTheCopyWarns) {
  CopyResult r = result("h2d_pinned", 55.4);
  r.link_gen = {4};
  const Check c = only(judge_copies(report({r}), h200()));
  EXPECT_EQ(c.status, Status::warn);
  EXPECT_NE(c.detail.find("ran at Gen4 during the copy, not Gen5"), std::string::npos) << c.detail;
  r.link_gen = {1, 5};  // dropped at idle, trained up for the copy
  EXPECT_EQ(only(judge_copies(report({r}), h200())).status, Status::pass);
}

TEST(VerifyJudge, PageableIsReportedNotJudgedAndErrorsFail) {
  const Check p = only(judge_copies(report({result("h2d_pageable", 8.9)}), h200()));
  EXPECT_EQ(p.status, Status::pass);
  EXPECT_NE(p.detail.find("staging"), std::string::npos);
  CopyResult e = result("d2h_pinned", 0);
  e.seconds.clear();
  e.error = "cuMemHostAlloc: CUDA_ERROR_OUT_OF_MEMORY";
  const Check f = only(judge_copies(report({e}), h200()));
  EXPECT_EQ(f.status, Status::fail);
  EXPECT_EQ(f.detail, "cuMemHostAlloc: CUDA_ERROR_OUT_OF_MEMORY");
}

TEST(VerifyJudge, AGpuTheSnapshotDoesNotKnowHasNoLimit) {
  const Check c = only(judge_copies(report({result("h2d_pinned", 12)}), Snapshot{}));
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_FALSE(c.limit);
  EXPECT_NE(c.detail.find("no limit known"), std::string::npos);
}

TEST(VerifyJson, Contract) {
  auto checks = judge_copies(report({result("h2d_pinned", 55.4)}), h200());
  checks.push_back(skipped("copy.p2p", "one GPU"));
  const auto j = verify_to_json(checks);
  EXPECT_EQ(j.at("schema"), "gpuready.verify/1");
  ASSERT_EQ(j.at("checks").size(), 2u);
  for (const auto& c : j.at("checks"))
    for (const char* k : {"key", "status", "value", "unit", "limit", "ratio", "detail"}) EXPECT_TRUE(c.contains(k)) << k;
  EXPECT_EQ(j["checks"][0]["status"], "pass");
  EXPECT_TRUE(j["checks"][1]["value"].is_null());
  EXPECT_EQ(j["checks"][1]["status"], "skip");
}

TEST(VerifyCli, UnknownCheckIsAUsageError) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  const auto r = real_os().proc.run({GPUREADY_EXE, "verify", "-t", "copy.nonsense"}, o);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("copy.h2d_pinned"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvcc.compile"), std::string::npos) << r.err;
}

TEST(VerifyCli, WithoutAReachableDriverEveryCheckIsSkippedWithTheReason) {
  // CI's machines have no driver; on a GPU machine this test has nothing to check.
  ProcOptions o;
  o.timeout = std::chrono::seconds(120);
  const auto r = real_os().proc.run({GPUREADY_EXE, "verify", "--json", "--quick"}, o);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("checks").empty());
  // nvcc.compile needs no GPU: with a CUDA toolkit installed it passes (and verify exits 0).
  bool compiled = false;
  for (const auto& c : j.at("checks")) {
    if (c.at("key") == "nvcc.compile") compiled = c.at("status") == "pass";
    if (c.at("status") == "pass" && c.at("key") != "nvcc.compile")
      GTEST_SKIP() << "a GPU answered: this test is for machines without one";
  }
  EXPECT_EQ(r.exit_code, compiled ? 0 : 1) << r.err;
  for (const auto& c : j.at("checks")) {
    if (c.at("key") == "nvcc.compile" && compiled) continue;
    EXPECT_EQ(c.at("status"), "skip") << c.dump();
    EXPECT_FALSE(c.at("detail").get<std::string>().empty());
  }
  // The copies, the module's checks, nvcc, then the frameworks (none installed: one "framework" check, skipped).
  const auto& checks = j.at("checks");
  ASSERT_GE(checks.size(), 2u);
  EXPECT_EQ(checks.back().at("key").get<std::string>().rfind("framework", 0), 0u) << checks.back().dump();
  size_t nvcc_run = checks.size();
  for (size_t i = 0; i < checks.size(); ++i)
    if (checks[i].at("key") == "nvcc.run") nvcc_run = i;
  ASSERT_LT(nvcc_run, checks.size());
  for (size_t i = nvcc_run + 1; i < checks.size(); ++i)
    EXPECT_EQ(checks[i].at("key").get<std::string>().rfind("framework", 0), 0u) << checks[i].dump();
}

TEST(VerifyCli, FrameworkChecksAreAFamilyOfTheirOwn) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(120);
  const auto r = real_os().proc.run({GPUREADY_EXE, "verify", "--json", "-t", "framework.jax"}, o);
  const auto j = nlohmann::json::parse(r.out);
  // Only JAX is imported: no copies, no module, no nvcc; without JAX here, one skipped "framework" check.
  for (const auto& c : j.at("checks")) {
    const std::string key = c.at("key");
    EXPECT_TRUE(key == "framework.jax" || key == "framework") << c.dump();
  }
  const auto bad = real_os().proc.run({GPUREADY_EXE, "verify", "-t", "framework.mxnet"}, o);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("framework.pytorch"), std::string::npos) << bad.err;
}

TEST(VerifyCli, OnlyTheFamiliesNamedByTestRun) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(120);
  const auto r = real_os().proc.run({GPUREADY_EXE, "verify", "--json", "-t", "nvcc.run"}, o);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("checks").size(), 1u) << j.dump();
  EXPECT_EQ(j["checks"][0]["key"], "nvcc.run");
  const auto c = real_os().proc.run({GPUREADY_EXE, "verify", "--json", "-t", "copy.d2d"}, o);
  const auto copies = nlohmann::json::parse(c.out);  // kept: a range-for over a temporary's member dangles
  for (const auto& x : copies.at("checks"))
    EXPECT_EQ(x.at("key").get<std::string>().rfind("copy", 0), 0u) << x.dump();
}
