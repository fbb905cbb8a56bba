// Core types: Version parsing/ordering, Fact JSON, Snapshot round trip and schema checks.
#include <gtest/gtest.h>

#include "core/snapshot.h"
#include "core/version.h"

using namespace gpuready;

TEST(Version, ParsesDriverAndPackageVersions) {
  auto v = Version::parse("580.159.04");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->parts, (std::vector<long>{580, 159, 4}));
  auto t = Version::parse("2.11.0+cu130");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->str(), "2.11.0+cu130");
  EXPECT_EQ(t->suffix, "+cu130");
  EXPECT_FALSE(Version::parse("abc"));
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("99999999999999999999"));
}

TEST(Version, OrdersNumerically) {
  EXPECT_LT(*Version::parse("12.9"), *Version::parse("12.10"));
  EXPECT_EQ(*Version::parse("12.4"), *Version::parse("12.4.0"));
  EXPECT_GT(*Version::parse("546.33"), *Version::parse("528.33"));
}

TEST(Version, StrKeepsTheDigitsAsWritten) {
  // A driver is named "470.57.02", never "470.57.2": users search for the written form.
  EXPECT_EQ(Version::parse("470.57.02")->str(), "470.57.02");
  EXPECT_EQ(Version::parse("v0012.4")->str(), "0012.4");
  EXPECT_EQ(Version::parse("2.11.0+cu130")->str(), "2.11.0+cu130");
  EXPECT_EQ(Version::of({2, 16}).str(), "2.16");
  EXPECT_EQ(*Version::parse("470.57.02"), Version::of({470, 57, 2}));
}

TEST(Version, FromCudaInteger) {
  EXPECT_EQ(Version::from_cuda_int(12040).str(), "12.4");
  EXPECT_EQ(Version::from_cuda_int(13000).str(), "13.0");
  EXPECT_EQ(Version::from_cuda_int(11080).str(), "11.8");
}

TEST(Fact, UnknownCarriesItsReason) {
  Fact<int> f = Fact<int>::unknown("NVML not found");
  nlohmann::json j = f;
  EXPECT_EQ(j, nlohmann::json({{"unknown", "NVML not found"}}));
  Fact<int> back = j.get<Fact<int>>();
  EXPECT_FALSE(back.has());
  EXPECT_EQ(back.why(), "NVML not found");
  Fact<int> k = 7;
  EXPECT_EQ(nlohmann::json(k), 7);
  EXPECT_EQ(nlohmann::json(7).get<Fact<int>>().value(), 7);
}

TEST(Snapshot, RoundTripsThroughJson) {
  Snapshot s;
  s.gpuready_version = "0.1.0";
  s.os.name = std::string("Debian GNU/Linux 12 (bookworm)");
  s.os.wsl = Fact<std::string>::unknown("not Linux");
  NvidiaGpu g;
  g.name = std::string("NVIDIA H200");
  g.pcie_gen_max = 5;
  s.nvidia.gpus.push_back(g);
  s.nvidia.steps.push_back({"nvmlInit_v2", true, "NVML_SUCCESS", "", 9.5});
  const nlohmann::json j = snapshot_to_json(s);
  EXPECT_EQ(j["schema"], "gpuready.snapshot/1");
  const Snapshot back = snapshot_from_json(j);
  EXPECT_EQ(snapshot_to_json(back), j);
  EXPECT_EQ(back.nvidia.gpus.at(0).pcie_gen_max.value(), 5);
}

TEST(Snapshot, RejectsOtherDocuments) {
  EXPECT_THROW(snapshot_from_json(nlohmann::json::array()), std::runtime_error);
  EXPECT_THROW(snapshot_from_json(nlohmann::json{{"a", 1}}), std::runtime_error);
  EXPECT_THROW(snapshot_from_json(nlohmann::json{{"schema", "gpuready.snapshot/9"}}), std::runtime_error);
  EXPECT_THROW(snapshot_from_json(nlohmann::json{{"schema", "gpuready.snapshot/1"}, {"os", 5}}), std::runtime_error);
}

TEST(Snapshot, OnlyAFrameworksOwnPackageIsTheFramework) {
  EXPECT_EQ(framework_of_package("torch"), "pytorch");
  EXPECT_EQ(framework_of_package("jax"), "jax");
  EXPECT_EQ(framework_of_package("tensorflow-gpu"), "tensorflow");
  EXPECT_EQ(framework_of_package("tf-nightly"), "tensorflow");
  // Installed beside a framework, or left behind by one: not the framework itself.
  EXPECT_EQ(framework_of_package("jaxlib"), "");
  EXPECT_EQ(framework_of_package("tensorflow-io-gcs-filesystem"), "");
  EXPECT_EQ(framework_of_package("tensorflow-estimator"), "");
  EXPECT_EQ(framework_of_package("torchvision"), "");
}
