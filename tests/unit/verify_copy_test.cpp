// The copy measurement without a GPU: the data check (pattern, first mismatch), the NUMA cpulist
// parser, CopyReport's JSON, and `gpuready __verify-copy` against a libcuda that does not exist and
// against the fake driver (tests/fakes: host memory behind the CUDA copy calls), in a child and in
// this process (with entry points hidden, as an old or odd driver lacks them).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "probe/nvidia_driver.h"
#include "support/test_os.h"
#include "parse/sysfs.h"
#include "verify/copy.h"

namespace gpuready::verify {
namespace {

// ---------------------------------------------------------------- the data check

std::vector<std::uint8_t> pattern(size_t n, std::uint64_t seed = 7) {
  std::vector<std::uint8_t> v(n);
  fill_pattern(v, seed);
  return v;
}

TEST(CopyPattern, DependsOnOffsetAndSeed) {
  const auto a = pattern(4096 + 5);
  EXPECT_EQ(a, pattern(4096 + 5));
  EXPECT_NE(a, pattern(4096 + 5, 8));
  // No 8-byte word repeats its neighbour, and the bytes take many values.
  for (size_t w = 1; w < a.size() / 8; ++w) ASSERT_NE(std::memcmp(&a[w * 8], &a[(w - 1) * 8], 8), 0) << w;
  EXPECT_GT(std::set<std::uint8_t>(a.begin(), a.end()).size(), 200u);
  // A prefix is the same pattern (the tail of a length that is not a multiple of 8 too).
  const auto b = pattern(13);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin()));
}

TEST(CopyPattern, EqualBuffersHaveNoMismatch) {
  const auto a = pattern(1 << 20);
  EXPECT_FALSE(first_mismatch(a, a));
  EXPECT_FALSE(first_mismatch({}, {}));
}

TEST(CopyPattern, CatchesAFlippedByte) {
  const auto a = pattern(300000);
  for (size_t at : {size_t{0}, size_t{65535}, size_t{65536}, size_t{123457}, a.size() - 1}) {
    auto b = a;
    b[at] = static_cast<std::uint8_t>(~b[at]);
    const auto m = first_mismatch(a, b);
    ASSERT_TRUE(m) << at;
    EXPECT_EQ(m->offset, at);
    EXPECT_EQ(m->expected, a[at]);
    EXPECT_EQ(m->got, b[at]);
    char expected[64];
    std::snprintf(expected, sizeof expected, "offset %zu: expected 0x%02x, got 0x%02x", at, a[at], b[at]);
    EXPECT_EQ(mismatch_detail(*m, a.size()), expected);
  }
}

TEST(CopyPattern, CatchesAShiftedCopy) {
  const auto a = pattern(1 << 16);
  for (size_t shift : {1, 3, 8, 64, 4096}) {
    // The copy started `shift` bytes late: dst[i] = src[i + shift], the end left as it was (zero).
    std::vector<std::uint8_t> b(a.size(), 0);
    std::copy(a.begin() + static_cast<std::ptrdiff_t>(shift), a.end(), b.begin());
    const auto m = first_mismatch(a, b);
    ASSERT_TRUE(m) << shift;
    EXPECT_LT(m->offset, 16u) << "shift " << shift << " should differ within the first words";
    // ... and `shift` bytes early.
    std::vector<std::uint8_t> c(a.size(), 0);
    std::copy(a.begin(), a.end() - static_cast<std::ptrdiff_t>(shift), c.begin() + static_cast<std::ptrdiff_t>(shift));
    ASSERT_TRUE(first_mismatch(a, c)) << shift;
  }
}

TEST(CopyPattern, CatchesAShortCopy) {
  const auto a = pattern(100000);
  // Into a buffer of the right size holding zeros past the copied part.
  std::vector<std::uint8_t> b(a.size(), 0);
  std::copy(a.begin(), a.begin() + 99000, b.begin());
  auto m = first_mismatch(a, b);
  ASSERT_TRUE(m);
  EXPECT_GE(m->offset, 99000u);
  EXPECT_LT(m->offset, 99016u);
  // A result that is itself shorter.
  const std::vector<std::uint8_t> c(a.begin(), a.begin() + 4096);
  m = first_mismatch(a, c);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->offset, 4096u);
  EXPECT_EQ(m->got, -1);
  EXPECT_NE(mismatch_detail(*m, a.size()).find("got nothing (the copy is 95904 bytes short)"), std::string::npos)
      << mismatch_detail(*m, a.size());
}

TEST(CopyCpuList, ParsesSysfsLists) {
  EXPECT_EQ(parse::parse_cpu_list("0-3,8-9\n"), (std::vector<int>{0, 1, 2, 3, 8, 9}));
  EXPECT_EQ(parse::parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse::parse_cpu_list("2-4,3-5"), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(parse::parse_cpu_list("\n"), (std::vector<int>{}));  // a node with memory only
  for (const char* bad : {"a", "3-1", "1,,2", "1-", "-1", "1 2", "0-99999", "12345678901"})
    EXPECT_FALSE(parse::parse_cpu_list(bad)) << bad;
  EXPECT_FALSE(parse::parse_cpu_list("0-8", 7));
}

TEST(CopyKeys, NameEachDirectionOnce) {
  const auto k = copy_keys();
  for (const char* want :
       {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "bidir_h2d_pinned", "bidir_d2h_pinned", "d2d"})
    EXPECT_EQ(std::count(k.begin(), k.end(), want), 1) << want;
  EXPECT_EQ(k.size(), 7u);
}

// ---------------------------------------------------------------- JSON

TEST(CopyJson, RoundTrips) {
  CopyReport r;
  DriverStep s;
  s.name = "cuInit";
  s.ok = true;
  s.code = "CUDA_SUCCESS";
  s.message = "the CUDA driver initialised";
  s.ms = 180.5;
  r.steps = {s};
  r.device_count = 2;
  r.device_name = "NVIDIA H200";
  r.pci_bus_id = "00000000:18:00.0";
  r.numa_node = 1;
  r.peer_access = {{0, 1}, {1, 0}};
  CopyResult a;
  a.key = "p2p_write_0_1";
  a.device = 0;
  a.peer = 1;
  a.bytes = 256ull << 20;
  a.copies_per_sample = 8;
  a.seconds = {0.0051, 0.0050, 0.0052};
  a.bytes_factor = 1;
  a.verified = false;
  a.verify_detail = "offset 89478485: expected 0x3c, got 0xc3";
  a.error = "";
  a.method = "cuMemcpyPeerAsync ...";
  a.link_gen = {1, 5};
  a.link_width = {16};
  CopyResult b;
  b.key = "d2d";
  b.bytes_factor = 2;
  b.verified = true;
  b.error = "cuEventSynchronize failed: an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)";
  r.results = {a, b};

  const nlohmann::json j = r;
  const CopyReport back = nlohmann::json::parse(j.dump()).get<CopyReport>();
  EXPECT_EQ(nlohmann::json(back), j);
  ASSERT_EQ(back.results.size(), 2u);
  EXPECT_EQ(back.results[0].key, "p2p_write_0_1");
  EXPECT_EQ(back.results[0].peer, 1);
  EXPECT_EQ(back.results[0].seconds, a.seconds);
  EXPECT_EQ(back.results[0].link_gen, (std::vector<int>{1, 5}));
  EXPECT_EQ(back.results[0].verify_detail, a.verify_detail);
  EXPECT_EQ(back.results[1].bytes_factor, 2);
  EXPECT_EQ(back.results[1].error, b.error);
  EXPECT_EQ(back.peer_access, r.peer_access);
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0].code, "CUDA_SUCCESS");
  EXPECT_EQ(back.numa_node, 1);
}

TEST(CopyJson, MissingKeysKeepDefaults) {
  const CopyReport r = nlohmann::json::parse(R"({"results":[{"key":"d2d"}]})").get<CopyReport>();
  EXPECT_EQ(r.numa_node, -1);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].peer, -1);
  EXPECT_EQ(r.results[0].bytes_factor, 1);
  EXPECT_FALSE(r.results[0].verified);
}

#ifndef _WIN32  // the fake driver libraries are ELF shared objects (tests/fakes)

// ---------------------------------------------------------------- the child, against fakes

const std::string kFakes = GPUREADY_FAKES_DIR;
const std::string kFakeCuda = kFakes + "/libcuda.so.1";
const std::string kFakeNvml = kFakes + "/libnvidia-ml.so.1";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuready_copy_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// A scenario: a fixture (tests/fixtures/nvidia/<base>.json) with keys added or replaced.
std::string scenario(const std::string& base, const nlohmann::json& extra = nlohmann::json::object()) {
  std::ifstream in(test::fixture("nvidia/" + base + ".json"));
  nlohmann::json j = nlohmann::json::parse(in);
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  const std::string path = temp_path(base + "_" + std::to_string(std::hash<std::string>{}(extra.dump())) + ".json");
  std::ofstream(path) << j.dump();
  return path;
}

struct ChildRun {
  ProcResult proc;
  CopyReport report;
  std::vector<std::string> announced;  // stderr's step lines, in order
};

ChildRun run_child(const std::vector<std::string>& args, const std::optional<std::string>& scenario_path) {
  std::vector<std::string> argv = {GPUREADY_EXE, "__verify-copy"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  if (scenario_path) o.set_env["GPUREADY_FAKE_DRIVER"] = *scenario_path;
  o.unset_env.push_back("CUDA_VISIBLE_DEVICES");
  ChildRun r;
  r.proc = real_os().proc.run(argv, o);
  const auto j = nlohmann::json::parse(r.proc.out.substr(0, r.proc.out.find('\n')), nullptr, false);
  if (!j.is_discarded()) r.report = j.get<CopyReport>();
  const std::string prefix = kDriverStepPrefix;
  size_t pos = 0;
  while (pos < r.proc.err.size()) {
    size_t end = r.proc.err.find('\n', pos);
    if (end == std::string::npos) end = r.proc.err.size();
    const std::string line = r.proc.err.substr(pos, end - pos);
    if (line.rfind(prefix, 0) == 0) r.announced.push_back(line.substr(prefix.size()));
    pos = end + 1;
  }
  return r;
}

// A small, quick run on the fake: 1 MiB copies, 2 samples of 2.
std::vector<std::string> quick(std::vector<std::string> more = {}) {
  std::vector<std::string> a = {"--libcuda", kFakeCuda, "--nvml",   kFakeNvml, "--bytes",  "1048576",
                                "--samples", "2",       "--copies", "2",       "--warmup", "1"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

const DriverStep* step(const CopyReport& r, const std::string& name_start) {
  for (const auto& s : r.steps)
    if (s.name.rfind(name_start, 0) == 0) return &s;
  return nullptr;
}

std::vector<std::string> keys(const CopyReport& r) {
  std::vector<std::string> k;
  for (const auto& x : r.results) k.push_back(x.key);
  return k;
}

TEST(VerifyCopyChild, MissingLibcudaIsAFailedStepNotACrash) {
  const ChildRun r = run_child({"--libcuda", "/nonexistent/libcuda.so.1"}, std::nullopt);
  ASSERT_TRUE(r.proc.ok()) << r.proc.error << r.proc.err;
  ASSERT_EQ(r.report.steps.size(), 1u) << r.proc.out;
  EXPECT_EQ(r.report.steps[0].name, "load libcuda.so.1");
  EXPECT_FALSE(r.report.steps[0].ok);
  EXPECT_EQ(r.report.steps[0].code, "library_not_found");
  EXPECT_NE(r.report.steps[0].message.find("/nonexistent/libcuda.so.1"), std::string::npos);
  EXPECT_TRUE(r.report.results.empty());
  EXPECT_EQ(r.announced, (std::vector<std::string>{"load libcuda.so.1"}));
}

TEST(VerifyCopyChild, NoDeviceStopsAtCuInit) {
  const ChildRun r = run_child(quick(), scenario("driver_no_gpu"));
  ASSERT_TRUE(r.proc.ok()) << r.proc.error << r.proc.err;
  ASSERT_EQ(r.report.steps.size(), 2u) << r.proc.out;
  EXPECT_TRUE(r.report.steps[0].ok);
  EXPECT_EQ(r.report.steps[1].name, "cuInit");
  EXPECT_FALSE(r.report.steps[1].ok);
  EXPECT_EQ(r.report.steps[1].code, "CUDA_ERROR_NO_DEVICE");
  EXPECT_NE(r.report.steps[1].message.find("no CUDA-capable device is detected"), std::string::npos);
  EXPECT_TRUE(r.report.results.empty());
  ASSERT_FALSE(r.announced.empty());
  EXPECT_EQ(r.announced.back(), "cuInit");
}

TEST(VerifyCopyChild, EveryCopyRunsAndIsVerifiedOnTheFake) {
  const ChildRun r = run_child(quick(), scenario("h200"));
  ASSERT_TRUE(r.proc.ok()) << r.proc.error << r.proc.err;
  EXPECT_EQ(r.report.device_count, 1);
  EXPECT_EQ(r.report.device_name, "NVIDIA H200");
  EXPECT_EQ(r.report.pci_bus_id, "0000:00:06.0");
  EXPECT_EQ(keys(r.report), copy_keys()) << r.proc.out;
  for (const auto& x : r.report.results) {
    SCOPED_TRACE(x.key);
    EXPECT_TRUE(x.error.empty()) << x.error;
    EXPECT_TRUE(x.verified) << x.verify_detail;
    EXPECT_EQ(x.bytes, 1u << 20);
    EXPECT_EQ(x.copies_per_sample, 2);
    EXPECT_EQ(x.seconds.size(), 2u);
    for (double s : x.seconds) EXPECT_GE(s, 0);
    EXPECT_EQ(x.bytes_factor, x.key == "d2d" ? 2 : 1);
    EXPECT_FALSE(x.method.empty());
    if (x.key == "d2d") {
      EXPECT_TRUE(x.link_gen.empty());
    } else {
      // The fake NVML answers the fixture's current link: Gen5 x16.
      EXPECT_EQ(x.link_gen, (std::vector<int>{5})) << x.method;
      EXPECT_EQ(x.link_width, (std::vector<int>{16}));
    }
  }
  const DriverStep* spin = step(r.report, "spin kernel");
  ASSERT_TRUE(spin);
  EXPECT_TRUE(spin->ok) << spin->message;
  // Each step and each copy was announced before it ran.
  for (const auto& s : r.report.steps)
    EXPECT_NE(std::find(r.announced.begin(), r.announced.end(), s.name), r.announced.end()) << s.name;
  for (const char* k : {"h2d_pinned", "bidir_pinned", "d2d"})
    EXPECT_NE(std::find(r.announced.begin(), r.announced.end(), k), r.announced.end()) << k;
}

TEST(VerifyCopyChild, PlantedCorruptionIsCaught) {
  const ChildRun r = run_child(quick({"--plant-corruption"}), scenario("h200"));
  ASSERT_TRUE(r.proc.ok()) << r.proc.error << r.proc.err;
  ASSERT_EQ(r.report.results.size(), copy_keys().size()) << r.proc.out;
  for (const auto& x : r.report.results) {
    SCOPED_TRACE(x.key);
    EXPECT_TRUE(x.error.empty()) << x.error;
    EXPECT_FALSE(x.verified);
    // The byte at a third of the buffer was flipped.
    EXPECT_EQ(x.verify_detail.rfind("offset 349525: expected 0x", 0), 0u) << x.verify_detail;
    EXPECT_NE(x.verify_detail.find("--plant-corruption"), std::string::npos);
  }
}

TEST(VerifyCopyChild, OnlyRunsTheSelectedCopies) {
  ChildRun r = run_child(quick({"--only", "h2d_pinned", "--only", "bidir"}), scenario("h200"));
  ASSERT_TRUE(r.proc.ok()) << r.proc.err;
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"h2d_pinned", "bidir_h2d_pinned", "bidir_d2h_pinned"}));
  r = run_child(quick({"--only", "bidir_pinned", "--only", "pageable", "--only", "d2d"}), scenario("h200"));
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"bidir_h2d_pinned", "bidir_d2h_pinned", "d2d"}));
  const DriverStep* unknown = step(r.report, "--only pageable");
  ASSERT_TRUE(unknown) << r.proc.out;
  EXPECT_FALSE(unknown->ok);
  EXPECT_EQ(unknown->code, "unknown_key");
  // Only d2d: no host copies, so NVML is not opened for link samples.
  r = run_child(quick({"--only", "d2d"}), scenario("h200"));
  EXPECT_EQ(keys(r.report), (std::vector<std::string>{"d2d"}));
  EXPECT_FALSE(step(r.report, "NVML"));
}

TEST(VerifyCopyChild, WithoutTheSpinKernelTheCopiesStillRun) {
  const ChildRun r = run_child(quick({"--only", "h2d_pinned"}),
                               scenario("h200", {{"cu_module_load", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"}}));
  ASSERT_TRUE(r.proc.ok()) << r.proc.err;
  const DriverStep* spin = step(r.report, "spin kernel");
  ASSERT_TRUE(spin);
  EXPECT_FALSE(spin->ok);
  EXPECT_EQ(spin->code, "spin_kernel_unavailable");
  EXPECT_NE(spin->message.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION"), std::string::npos) << spin->message;
  ASSERT_EQ(r.report.results.size(), 1u);
  EXPECT_TRUE(r.report.results[0].verified);
  EXPECT_NE(r.report.results[0].method.find("without the spin kernel"), std::string::npos)
      << r.report.results[0].method;
}

TEST(VerifyCopyChild, OutOfMemoryHalvesTheBuffers) {
  // 100 MiB of device memory: 2 x 64 MiB does not fit, 2 x 32 MiB does.
  ChildRun r = run_child({"--libcuda", kFakeCuda, "--bytes", std::to_string(64 << 20), "--samples", "1", "--copies",
                          "1", "--warmup", "0", "--only", "d2d"},
                         scenario("h200", {{"cu_mem_alloc_limit_bytes", 100 << 20}}));
  ASSERT_TRUE(r.proc.ok()) << r.proc.err;
  ASSERT_EQ(r.report.results.size(), 1u) << r.proc.out;
  EXPECT_EQ(r.report.results[0].bytes, 32u << 20);
  EXPECT_TRUE(r.report.results[0].verified);
  EXPECT_NE(r.report.results[0].method.find("halved from 64 MiB to 32 MiB"), std::string::npos)
      << r.report.results[0].method;
  // Not even 32 MiB: the allocation step fails in words and nothing runs.
  r = run_child({"--libcuda", kFakeCuda, "--bytes", std::to_string(64 << 20), "--only", "d2d"},
                scenario("h200", {{"cu_mem_alloc_limit_bytes", 10 << 20}}));
  ASSERT_TRUE(r.proc.ok()) << r.proc.err;
  const DriverStep* alloc = step(r.report, "allocate buffers");
  ASSERT_TRUE(alloc) << r.proc.out;
  EXPECT_FALSE(alloc->ok);
  EXPECT_EQ(alloc->code, "out_of_memory");
  EXPECT_NE(alloc->message.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << alloc->message;
  EXPECT_TRUE(r.report.results.empty());
}

TEST(VerifyCopyChild, PeerCopiesBetweenTwoGpus) {
  ChildRun r = run_child(quick({"--only", "p2p"}), scenario("two_gpus", {{"cu_peer_access", true}}));
  ASSERT_TRUE(r.proc.ok()) << r.proc.err;
  EXPECT_EQ(r.report.device_count, 2);
  EXPECT_EQ(r.report.peer_access, (std::vector<std::vector<int>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(keys(r.report),
            (std::vector<std::string>{"p2p_read_0_1", "p2p_write_0_1", "p2p_read_1_0", "p2p_write_1_0"}));
  for (const auto& x : r.report.results) {
    SCOPED_TRACE(x.key);
    EXPECT_TRUE(x.error.empty()) << x.error;
    EXPECT_TRUE(x.verified) << x.verify_detail;
    EXPECT_EQ(x.device, x.key.back() == '1' ? 0 : 1);
    EXPECT_EQ(x.peer, x.key.back() - '0');
  }
  // Without peer access: the matrix says so and no peer copy runs.
  r = run_child(quick({"--only", "p2p"}), scenario("two_gpus"));
  EXPECT_EQ(r.report.peer_access, (std::vector<std::vector<int>>{{0, 0}, {0, 0}}));
  EXPECT_TRUE(r.report.results.empty());
}

TEST(VerifyCopyChild, ADeviceThatDoesNotExist) {
  const ChildRun r = run_child(quick({"--device", "3"}), scenario("h200"));
  ASSERT_TRUE(r.proc.ok()) << r.proc.err;
  const DriverStep* count = step(r.report, "cuDeviceGetCount");
  ASSERT_TRUE(count);
  EXPECT_FALSE(count->ok);
  EXPECT_EQ(count->code, "CUDA_ERROR_INVALID_DEVICE");
  EXPECT_TRUE(r.report.results.empty());
}

TEST(VerifyCopyChild, BadFlagsAreAUsageError) {
  const ChildRun r = run_child({"--samples", "0"}, std::nullopt);
  EXPECT_EQ(r.proc.exit_code, 2) << r.proc.out << r.proc.err;
}

// ---------------------------------------------------------------- in process, entry points hidden

// The real loader, except that the named symbols are missing (and cuGetProcAddress with them, so
// every entry point comes from dlsym as on a driver older than CUDA 11.3).
class HidingDynLib final : public DynLib {
 public:
  explicit HidingDynLib(std::set<std::string> hidden) : hidden_(std::move(hidden)) {
    hidden_.insert({"cuGetProcAddress", "cuGetProcAddress_v2"});
  }
  Handle open(const std::string& name_or_path, std::string* error) const override {
    return real_os().dl.open(name_or_path, error);
  }
  void* symbol(Handle h, const std::string& name) const override {
    return hidden_.count(name) ? nullptr : real_os().dl.symbol(h, name);
  }
  std::optional<std::string> path_of(Handle h, void* any_symbol) const override {
    return real_os().dl.path_of(h, any_symbol);
  }
  void close(Handle h) const override { real_os().dl.close(h); }

 private:
  std::set<std::string> hidden_;
};

class ScopedFakeDriver {
 public:
  explicit ScopedFakeDriver(const std::string& path) { ::setenv("GPUREADY_FAKE_DRIVER", path.c_str(), 1); }
  ~ScopedFakeDriver() { ::unsetenv("GPUREADY_FAKE_DRIVER"); }
};

CopyReport in_process(const std::set<std::string>& hidden, const std::vector<std::string>& only,
                      std::vector<std::string>* announced) {
  ScopedFakeDriver fake(scenario("h200"));
  HidingDynLib dl(hidden);
  const Os& r = real_os();
  const Os os{r.fs, r.env, r.proc, dl};
  CopyOptions o;
  o.bytes = 1 << 20;
  o.samples = 2;
  o.copies_per_sample = 2;
  o.warmup = 0;
  o.only = only;
  o.cuda_candidates = {kFakeCuda};
  o.nvml_candidates = {"/nonexistent/libnvidia-ml.so.1"};
  return measure_copies(os, o, [&](const std::string& s) { announced->push_back(s); });
}

TEST(VerifyCopyInProcess, ResolvedByDlsymOnOldDrivers) {
  std::vector<std::string> announced;
  const CopyReport r = in_process({}, {"h2d_pinned", "d2d"}, &announced);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_NE(r.steps[0].message.find("entry points via dlsym"), std::string::npos) << r.steps[0].message;
  ASSERT_EQ(keys(r), (std::vector<std::string>{"h2d_pinned", "d2d"}));
  for (const auto& x : r.results) EXPECT_TRUE(x.verified) << x.key << ": " << x.error;
  // NVML did not load: the copies say the link was not sampled, and why.
  const DriverStep* nvml = step(r, "NVML");
  ASSERT_TRUE(nvml);
  EXPECT_FALSE(nvml->ok);
  EXPECT_NE(r.results[0].method.find("PCIe link not sampled: NVML did not load"), std::string::npos)
      << r.results[0].method;
}

TEST(VerifyCopyInProcess, AMissingEntryPointIsAnErrorInWords) {
  std::vector<std::string> announced;
  // No pinned memory: the allocation step fails and says which call is missing.
  CopyReport r = in_process({"cuMemHostAlloc"}, {"h2d_pinned"}, &announced);
  const DriverStep* alloc = step(r, "allocate buffers");
  ASSERT_TRUE(alloc);
  EXPECT_FALSE(alloc->ok);
  EXPECT_NE(alloc->message.find("cuMemHostAlloc is missing from libcuda.so"), std::string::npos) << alloc->message;
  EXPECT_TRUE(r.results.empty());
  EXPECT_EQ(announced.back(), alloc->name);

  // No module loading: the copies run without the spin kernel.
  r = in_process({"cuModuleLoadData"}, {"d2d"}, &announced);
  const DriverStep* spin = step(r, "spin kernel");
  ASSERT_TRUE(spin);
  EXPECT_FALSE(spin->ok);
  EXPECT_NE(spin->message.find("cuModuleLoadData is missing"), std::string::npos) << spin->message;
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(r.results[0].verified);

  // No events: each copy fails with the missing call named, and nothing crashes.
  r = in_process({"cuEventElapsedTime"}, {"h2d_pinned", "d2d"}, &announced);
  ASSERT_EQ(r.results.size(), 2u);
  for (const auto& x : r.results) {
    EXPECT_NE(x.error.find("cuEventElapsedTime is missing"), std::string::npos) << x.key << ": " << x.error;
    EXPECT_FALSE(x.verified);
  }

  // No context at all.
  r = in_process({"cuDevicePrimaryCtxRetain"}, {}, &announced);
  const DriverStep* ctx = step(r, "CUDA context");
  ASSERT_TRUE(ctx);
  EXPECT_FALSE(ctx->ok);
  EXPECT_NE(ctx->message.find("cuDevicePrimaryCtxRetain is missing"), std::string::npos) << ctx->message;
}

#endif  // _WIN32

}  // namespace
}  // namespace gpuready::verify
