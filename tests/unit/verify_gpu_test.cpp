// The CUDA module's checks without a GPU: the test values, the CPU references the sampled results
// are checked against, the judging of a reply (peaks, wrong elements, skips, clocks held back, the
// memory test's faults), the choice of libraries for the module, the module-loading failure paths
// of `gpuready __verify-gpu`, and the doctor's rules on what was measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "doctor/doctor.h"
#include "platform/os.h"
#include "verify/gpu_abi.h"
#include "verify/gpu_checks.h"
#include "verify/test_values.h"

using namespace gpuready;
using namespace gpuready::verify;

namespace {

TEST(TestValues, AreMultiplesOfOneOver128InRangeAndDifferBySeed) {
  std::set<int> seen;
  int same = 0;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const float v = test_value(7, i);
    const float scaled = v * 128.0f;
    ASSERT_EQ(scaled, std::floor(scaled)) << i;  // 8 significant bits: exact in fp16, bf16, tf32
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    seen.insert(static_cast<int>(scaled));
    same += test_value(8, i) == v;
  }
  EXPECT_EQ(seen.size(), 256u);  // every level is used
  EXPECT_LT(same, 20000 / 64);   // neighbouring seeds are unrelated (chance: 1/256)
  EXPECT_NE(test_value(8, 0), test_value(7, 1));
  EXPECT_LT(sample_index(3, 0, 100), 100u);
  EXPECT_EQ(sample_index(3, 0, 0), 0u);
}

GemmResult small_gemm(int m, int n, int k) {
  GemmResult r;
  r.key = "gemm.fp32";
  r.m = m;
  r.n = n;
  r.k = k;
  r.seed_a = 11;
  r.seed_b = 12;
  return r;
}

TEST(GemmReference, MatchesTheProductWrittenOut) {
  // Column-major, as cuBLAS: A(i,l) = value i + l*m, B(l,j) = value l + j*k, C(i,j) at i + j*m.
  const GemmResult r = small_gemm(5, 3, 4);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 5; ++i) {
      double c = 0, scale = 0;
      for (int l = 0; l < 4; ++l) {
        const double a = test_value(11, i + l * 5), b = test_value(12, l + j * 4);
        c += a * b;
        scale += std::fabs(a * b);
      }
      const Reference ref = gemm_reference(r, static_cast<std::uint64_t>(i + j * 5));
      EXPECT_EQ(ref.value, c) << i << "," << j;
      EXPECT_EQ(ref.scale, scale);
    }
}

ConvResult small_conv(const char* key) {
  ConvResult r;
  r.key = key;
  r.x = {2, 3, 5, 4};  // N C H W
  r.w = {4, 3, 3, 3};  // K C R S
  r.y = {2, 4, 5, 4};  // pad 1, stride 1: same size
  r.pad = 1;
  r.seed_x = 21;
  r.seed_w = 22;
  r.seed_dy = 23;
  return r;
}

TEST(ConvReference, ForwardMatchesADirectConvolution) {
  const ConvResult r = small_conv("cudnn.conv_fwd");
  // y[n,k,p,q] as a scatter from every input element (a different loop order from the reference's gather).
  std::vector<double> y(2 * 4 * 5 * 4, 0);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 5; ++h)
        for (int w = 0; w < 4; ++w)
          for (int k = 0; k < 4; ++k)
            for (int rr = 0; rr < 3; ++rr)
              for (int ss = 0; ss < 3; ++ss) {
                const int p = h - rr + 1, q = w - ss + 1;
                if (p < 0 || p >= 5 || q < 0 || q >= 4) continue;
                y[((n * 4 + k) * 5 + p) * 4 + q] += static_cast<double>(test_value(21, ((n * 3 + c) * 5 + h) * 4 + w)) *
                                                    test_value(22, ((k * 3 + c) * 3 + rr) * 3 + ss);
              }
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(conv_reference(r, i).value, y[i]) << i;
}

TEST(ConvReference, BackwardPassesAreTheForwardPassesAdjoints) {
  // <dy, conv(x, w)> = <conv_bwd_data(dy, w), x> = <conv_bwd_filter(x, dy), w>: each side summed
  // from a different reference, exact in double (multiples of 1/2^14, far from 2^53).
  const ConvResult fwd = small_conv("cudnn.conv_fwd"), bd = small_conv("cudnn.conv_bwd_data"),
                   bf = small_conv("cudnn.conv_bwd_filter");
  double dy_y = 0, dx_x = 0, dw_w = 0;
  for (std::uint64_t i = 0; i < 2 * 4 * 5 * 4; ++i) dy_y += test_value(23, i) * conv_reference(fwd, i).value;
  for (std::uint64_t i = 0; i < 2 * 3 * 5 * 4; ++i) dx_x += test_value(21, i) * conv_reference(bd, i).value;
  for (std::uint64_t i = 0; i < 4 * 3 * 3 * 3; ++i) dw_w += test_value(22, i) * conv_reference(bf, i).value;
  EXPECT_NE(dy_y, 0);
  EXPECT_EQ(dy_y, dx_x);
  EXPECT_EQ(dy_y, dw_w);
}

std::vector<SampledValue> exact_points(const GemmResult& r, int n) {
  std::vector<SampledValue> pts;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t idx = sample_index(5, i, static_cast<std::uint64_t>(r.m) * r.n);
    pts.push_back({idx, gemm_reference(r, idx).value});
  }
  return pts;
}

TEST(CheckPoints, CountsWrongAndNotANumberElements) {
  const GemmResult r = small_gemm(64, 64, 64);
  auto pts = exact_points(r, 50);
  auto ref = [&](std::uint64_t i) { return gemm_reference(r, i); };
  auto where = [](std::uint64_t i) { return "C" + std::to_string(i); };
  PointCheck ok = check_points(pts, ref, 1e-4, where);
  EXPECT_EQ(ok.bad, 0);
  EXPECT_EQ(ok.max_error, 0);
  pts[3].value += 1e-2;  // a small error within bf16's tolerance, beyond fp32's
  EXPECT_EQ(check_points(pts, ref, 1e-4, where).bad, 1);
  EXPECT_EQ(check_points(pts, ref, 1e-2, where).bad, 0);
  pts[7].value = std::nan("");
  const PointCheck bad = check_points(pts, ref, 1e-2, where);
  EXPECT_EQ(bad.bad, 1);
  EXPECT_NE(bad.first_bad.find("C" + std::to_string(pts[7].index)), std::string::npos) << bad.first_bad;
  EXPECT_LT(tolerance_of("gemm.fp32"), tolerance_of("gemm.fp16"));
  EXPECT_LT(tolerance_of("gemm.fp16"), tolerance_of("gemm.bf16"));
}

Snapshot h200_snapshot() {
  Snapshot s;
  NvidiaGpu g;
  g.name = Fact<std::string>("NVIDIA H200");
  g.pci_bus_id = Fact<std::string>("00000000:00:06.0");
  g.compute_capability = Fact<std::string>("9.0");
  g.sm_count = Fact<int>(132);
  g.sm_clock_max_mhz = Fact<int>(1980);
  s.nvidia.gpus.push_back(g);
  return s;
}

GpuReply h200_reply() {
  GpuReply r;
  r.device.name = "NVIDIA H200";
  r.device.pci_bus_id = "0000:00:06.0";
  r.device.cc_major = 9;
  r.device.sm_count = 132;
  r.steps.push_back({"cudaSetDevice", true, "", "", 1});
  return r;
}

GemmResult timed_gemm(const char* key, double tflops) {
  GemmResult g = small_gemm(64, 64, 64);
  g.key = key;
  g.points = exact_points(g, 32);
  const double sec = 2.0 * 64 * 64 * 64 / (tflops * 1e12);
  g.seconds = {sec, sec * 1.01, sec * 0.99};
  return g;
}

const Check* find(const std::vector<Check>& v, const std::string& key) {
  for (const auto& c : v)
    if (c.key == key) return &c;
  return nullptr;
}

TEST(JudgeGpu, GemmAgainstTheDatasheetPeak) {
  GpuReply r = h200_reply();
  r.gemm.push_back(timed_gemm("gemm.bf16", 783));  // torch.matmul's bf16 on the H200: 0.79 of 989.4
  r.gemm.push_back(timed_gemm("gemm.fp16", 300));  // 0.30: below the warn bar
  r.gemm.push_back(timed_gemm("gemm.tf32", 450));
  r.gemm.back().clocks.reasons = {"hw_thermal_slowdown", "sw_power_cap"};
  r.gemm.back().clocks.samples = 3;
  r.gemm.push_back(timed_gemm("gemm.fp32", 50));
  r.gemm.back().clocks.reasons = {"sw_power_cap"};
  r.gemm.back().clocks.samples = 3;
  const auto checks = judge_gpu(r, {"gemm.fp32", "gemm.tf32", "gemm.fp16", "gemm.bf16"}, h200_snapshot(),
                                knowledge::Compat::embedded());
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].key, "gemm.fp32");  // in the order asked for
  const Check* bf16 = find(checks, "gemm.bf16");
  ASSERT_TRUE(bf16 && bf16->value && bf16->limit && bf16->ratio);
  EXPECT_NEAR(*bf16->value, 783, 1);
  EXPECT_NEAR(*bf16->limit, 989.4, 0.1);
  EXPECT_EQ(bf16->status, Status::pass) << bf16->detail;
  EXPECT_NE(bf16->detail.find("datasheet"), std::string::npos) << bf16->detail;
  EXPECT_EQ(find(checks, "gemm.fp16")->status, Status::fail);
  const Check* tf32 = find(checks, "gemm.tf32");
  EXPECT_EQ(tf32->status, Status::warn) << tf32->detail;  // fast enough, but thermally held back
  EXPECT_EQ(tf32->clock_events, (std::vector<std::string>{"hw_thermal_slowdown", "sw_power_cap"}));
  const Check* fp32 = find(checks, "gemm.fp32");
  EXPECT_EQ(fp32->status, Status::pass) << fp32->detail;  // the power cap alone is how a full GPU runs
  EXPECT_NE(fp32->detail.find("sw_power_cap"), std::string::npos);
}

TEST(JudgeGpu, AWrongElementFailsWithWhereAndWhat) {
  GpuReply r = h200_reply();
  r.gemm.push_back(timed_gemm("gemm.bf16", 783));
  r.gemm.back().points[0].value = 1000;  // what --plant-corruption writes
  const auto checks = judge_gpu(r, {"gemm.bf16"}, h200_snapshot(), knowledge::Compat::embedded());
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::fail);
  EXPECT_FALSE(checks[0].data_ok);
  EXPECT_NE(checks[0].detail.find("= 1000, expected"), std::string::npos) << checks[0].detail;
}

TEST(JudgeGpu, SkipsAndMissingResultsSayWhy) {
  GpuReply r;
  r.steps.push_back({"load the CUDA module", true, "", "/x/libgpuready-cuda.so", 0});
  r.steps.push_back({"cudaGetDeviceCount", false, "cudaErrorInsufficientDriver", "no CUDA driver answered", 0});
  const auto checks =
      judge_gpu(r, {"gemm.fp32", "cudnn.conv_fwd", "memory.pattern"}, Snapshot{}, knowledge::Compat::embedded());
  ASSERT_EQ(checks.size(), 4u);  // cudnn.load joins the cuDNN checks
  EXPECT_EQ(checks[1].key, "cudnn.load");
  for (const auto& c : checks) {
    EXPECT_EQ(c.status, Status::skip) << c.key;
    EXPECT_NE(c.detail.find("no CUDA driver answered"), std::string::npos) << c.key << ": " << c.detail;
  }
  GpuReply r2 = h200_reply();
  GemmResult g;
  g.key = "gemm.tf32";
  g.skip = "tf32 needs compute capability 8.0 or newer; this GPU is 7.5";
  r2.gemm.push_back(g);
  const auto c2 = judge_gpu(r2, {"gemm.tf32"}, h200_snapshot(), knowledge::Compat::embedded());
  ASSERT_EQ(c2.size(), 1u);
  EXPECT_EQ(c2[0].status, Status::skip);
  EXPECT_EQ(c2[0].detail, g.skip);
}

TEST(JudgeGpu, MemoryFaultsAndMixedCudnnSets) {
  GpuReply r = h200_reply();
  MemoryResult m;
  m.bytes = 1ull << 30;
  m.seconds = 0.5;
  m.errors = 2;
  m.faults.push_back({0x7f0000003004ull, 12292, 0x00000c01, 0xa5a5a5a5, "own address"});
  r.memory.push_back(m);
  r.steps.push_back({"load cuDNN", true, "", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 1});
  r.cudnn_path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9";
  r.cudnn_version = 91400;
  r.cudnn_cudart_version = 13000;
  r.loaded = {"/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9",
              "/opt/venv/nvidia/cudnn/lib/libcudnn_cnn.so.9"};
  const auto checks =
      judge_gpu(r, {"cudnn.conv_fwd", "memory.pattern"}, h200_snapshot(), knowledge::Compat::embedded());
  const Check* mem = find(checks, "memory.pattern");
  ASSERT_TRUE(mem);
  EXPECT_EQ(mem->status, Status::fail);
  EXPECT_FALSE(mem->data_ok);
  EXPECT_NE(mem->detail.find("0x7f0000003004"), std::string::npos) << mem->detail;
  EXPECT_NE(mem->detail.find("read 0xa5a5a5a5"), std::string::npos) << mem->detail;
  const Check* load = find(checks, "cudnn.load");
  ASSERT_TRUE(load);
  EXPECT_EQ(load->status, Status::fail) << load->detail;
  EXPECT_NE(load->detail.find("cuDNN 9.14.0"), std::string::npos) << load->detail;
  EXPECT_NE(load->detail.find("2 folders"), std::string::npos) << load->detail;
  r.loaded.pop_back();
  const auto checks_one_set = judge_gpu(r, {"cudnn.conv_fwd"}, h200_snapshot(), knowledge::Compat::embedded());
  const Check* one_set = find(checks_one_set, "cudnn.load");
  ASSERT_TRUE(one_set);
  EXPECT_EQ(one_set->status, Status::pass);
  EXPECT_NE(one_set->detail.find("(libcudnn.so.9, libcudnn_graph.so.9)"), std::string::npos) << one_set->detail;
}

// The report names the very cuBLAS files the products ran on (verify --libs /opt/cublas11,system on the H200).
TEST(JudgeGpu, GemmNamesTheCublasFilesItRanOn) {
  GpuReply r = h200_reply();
  r.cublas_path = "/tmp/c11/libcublas.so.11";
  r.cublas_version = 111103;
  r.loaded = {"/tmp/c11/libcublas.so.11", "/tmp/c11/libcublasLt.so.11", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"};
  r.gemm.push_back(timed_gemm("gemm.fp32", 51));
  const auto checks = judge_gpu(r, {"gemm.fp32"}, h200_snapshot(), knowledge::Compat::embedded());
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_NE(checks[0].method.find("cuBLAS 11.11.3: /tmp/c11/libcublas.so.11, /tmp/c11/libcublasLt.so.11"),
            std::string::npos)
      << checks[0].method;
  EXPECT_EQ(checks[0].method.find("cudnn"), std::string::npos) << checks[0].method;
}

TEST(FillLibraries, TheLoadersPicksFirstAndNothingNewerThanTheDriver) {
  Snapshot s;
  s.nvidia.cuda_driver_version = Fact<std::string>("12.8");
  auto copy = [](const std::string& lib, const std::string& path, const std::string& soname,
                 const std::string& origin) {
    LibraryCopy c;
    c.library = lib;
    c.path = path;
    c.soname = soname;
    c.file_name = path.substr(path.rfind('/') + 1);
    c.origin = origin;
    return c;
  };
  s.libraries.copies = {
      copy("cublas", "/venv/nvidia/cublas/lib/libcublas.so.12", "libcublas.so.12", "pip"),
      copy("cublas", "/usr/local/cuda-12.8/lib64/libcublas.so.12.8.4.1", "libcublas.so.12", "toolkit"),
      copy("cublas", "/usr/local/cuda-13.0/lib64/libcublas.so.13", "libcublas.so.13", "toolkit"),
      copy("cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "libcudnn.so.9", "ld.so.cache"),
      copy("cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0", "libcudnn_ops.so.9", "ld.so.cache"),
      copy("cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "libcudnn_ops.so.9", "ld.so.cache"),
      copy("cudnn", "/venv/nvidia/cudnn/lib/libcudnn.so.9", "libcudnn.so.9", "pip")};
  LoaderResolution res;
  res.soname = "libcudnn.so.9";
  res.path = Fact<std::string>("/lib/x86_64-linux-gnu/libcudnn.so.9");
  res.canonical = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0";
  s.libraries.resolutions.push_back(res);
  CudnnSet sys, pip;
  sys.dir = "/usr/lib/x86_64-linux-gnu";
  sys.version = Fact<std::string>("9.14.0");
  pip.dir = "/venv/nvidia/cudnn/lib";
  pip.version = Fact<std::string>("9.19.0");  // newer, but not what the loader gives
  s.libraries.cudnn_sets = {pip, sys};
  GpuRequest req;
  fill_libraries(&req, s);
  EXPECT_EQ(req.cublas, (std::vector<std::string>{"/usr/local/cuda-12.8/lib64/libcublas.so.12.8.4.1",
                                                  "/venv/nvidia/cublas/lib/libcublas.so.12"}));
  EXPECT_EQ(req.cudnn_dir, "/usr/lib/x86_64-linux-gnu");
  EXPECT_EQ(req.cudnn_files.size(), 2u);  // one file per soname
  s.libraries.resolutions.clear();        // no loader pick: the newest complete set
  fill_libraries(&req, s);
  EXPECT_EQ(req.cudnn_dir, "/venv/nvidia/cudnn/lib");
}

// --libs on the H200 test machine as the probe saw it: the toolkit's cuBLAS 13 and the system's cuDNN
// 9.14 by default; torch's own pip copies (nvidia/cu13, nvidia/cudnn 9.19) with --libs torch.
TEST(RestrictLibraries, EachSourceGivesItsOwnFilesOrSaysWhatItLacks) {
  std::ifstream f(std::string(GPUREADY_FIXTURES) + "/snapshots/h200.json");
  const Snapshot s = snapshot_from_json(nlohmann::json::parse(f));
  GpuRequest sys;
  fill_libraries(&sys, s);
  EXPECT_EQ(sys.cuda_driver, "/usr/local/nvidia/lib64/libcuda.so.1");
  std::string why;
  GpuRequest req = sys;
  ASSERT_TRUE(restrict_libraries(&req, s, "system", &why)) << why;
  EXPECT_EQ(req.cublas, sys.cublas);
  EXPECT_EQ(req.cudnn_dir, "/usr/lib/x86_64-linux-gnu");

  req = sys;
  ASSERT_TRUE(restrict_libraries(&req, s, "torch", &why)) << why;
  const std::string sp = "/opt/torch/.venv/lib/python3.12/site-packages/";
  EXPECT_EQ(req.cublas, std::vector<std::string>{sp + "nvidia/cu13/lib/libcublas.so.13"});
  EXPECT_EQ(req.cudnn_dir, sp + "nvidia/cudnn/lib");
  ASSERT_FALSE(req.cudnn_files.empty());
  for (const auto& file : req.cudnn_files) EXPECT_EQ(file.rfind(sp + "nvidia/cudnn/lib/", 0), 0u) << file;

  req = sys;  // jax lives in the same environment: the same files
  ASSERT_TRUE(restrict_libraries(&req, s, "jax", &why)) << why;
  EXPECT_EQ(req.cudnn_dir, sp + "nvidia/cudnn/lib");

  req = sys;  // a folder with cuBLAS but no cuDNN
  EXPECT_FALSE(restrict_libraries(&req, s, "/usr/local/cuda-13.0", &why));
  EXPECT_NE(why.find("cuDNN"), std::string::npos) << why;
  EXPECT_EQ(why.find("cuBLAS"), std::string::npos) << why;
  EXPECT_NE(why.find("--libs /usr/local/cuda-13.0,system"), std::string::npos) << why;  // the way out
  EXPECT_EQ(req.cublas, sys.cublas);  // untouched on failure

  // Several sources: each library from the first that has it.
  req = sys;
  ASSERT_TRUE(restrict_libraries(&req, s, "/usr/local/cuda-13.0, system", &why)) << why;
  ASSERT_FALSE(req.cublas.empty());
  for (const auto& file : req.cublas) EXPECT_EQ(file.rfind("/usr/local/cuda-13.0/", 0), 0u) << file;
  EXPECT_EQ(req.cudnn_dir, sys.cudnn_dir);  // the machine's pick: the folder has none
  EXPECT_EQ(req.cudnn_files, sys.cudnn_files);
  req = sys;  // torch's cuBLAS first, then the system's cuDNN is never reached: torch has its own
  ASSERT_TRUE(restrict_libraries(&req, s, "torch,system", &why)) << why;
  EXPECT_EQ(req.cudnn_dir, sp + "nvidia/cudnn/lib");
  req = sys;  // the system's cuBLAS, torch's cuDNN
  ASSERT_TRUE(restrict_libraries(&req, s, "system,torch", &why)) << why;
  EXPECT_EQ(req.cublas, sys.cublas);
  EXPECT_EQ(req.cudnn_dir, "/usr/lib/x86_64-linux-gnu");
  req = sys;  // a folder with neither: no "take the other" advice
  EXPECT_FALSE(restrict_libraries(&req, s, "/opt/nothing-here", &why));
  EXPECT_NE(why.find("no cuBLAS and no complete cuDNN"), std::string::npos) << why;
  EXPECT_EQ(why.find(",system"), std::string::npos) << why;
  req = sys;  // a source that cannot be is an error even when another would do
  EXPECT_FALSE(restrict_libraries(&req, s, "system,relative/folder", &why));
  EXPECT_NE(why.find("relative/folder"), std::string::npos) << why;
  EXPECT_EQ(library_sources(" /a ,system,, torch "), (std::vector<std::string>{"/a", "system", "torch"}));
  EXPECT_EQ(library_folders("/a,system,torch,relative,/b"), (std::vector<std::string>{"/a", "/b"}));

  EXPECT_FALSE(restrict_libraries(&req, s, "tensorflow", &why));
  EXPECT_NE(why.find("no Python environment"), std::string::npos) << why;
  EXPECT_FALSE(restrict_libraries(&req, s, "relative/folder", &why));
  EXPECT_NE(why.find("absolute"), std::string::npos) << why;
}

// ---- `gpuready __verify-gpu`: the module-loading failure paths

GpuReply child(const std::vector<std::string>& modules, std::string* err = nullptr,
               const std::string& request = R"({"checks":["gemm.fp32"]})", const std::string& scenario = "") {
  std::vector<std::string> argv = {GPUREADY_EXE, "__verify-gpu", "--request", request};
  for (const auto& m : modules) argv.insert(argv.end(), {"--module", m});
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  if (!scenario.empty()) o.set_env["GPUREADY_FAKE_DRIVER"] = scenario;
  const ProcResult r = real_os().proc.run(argv, o);
  EXPECT_TRUE(r.ok()) << r.error << r.err;
  if (err) *err = r.err;
  const auto j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j.is_discarded() ? GpuReply{} : j.get<GpuReply>();
}

TEST(VerifyGpuChild, AMissingModuleIsAStepWithWhereItLooked) {
  const GpuReply r = child({"/nonexistent/libgpuready-cuda.so"});
  ASSERT_FALSE(r.steps.empty());
  EXPECT_FALSE(r.steps[0].ok);
  EXPECT_EQ(r.steps[0].code, "module_missing");
  EXPECT_NE(r.steps[0].message.find("/nonexistent/libgpuready-cuda.so"), std::string::npos) << r.steps[0].message;
}

TEST(VerifyGpuChild, AGarbageFileAndALibraryThatIsNoModuleAreRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "gpuready-verify-gpu-test";
  std::filesystem::create_directories(dir);
  const auto garbage = (dir / "libgpuready-cuda.so").string();
  std::ofstream(garbage) << "this is not an ELF file\n";
  GpuReply r = child({garbage});
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps[0].code, "module_not_loaded") << r.steps[0].message;
  EXPECT_NE(r.steps[0].message.find(garbage), std::string::npos);
  // A real shared library without the entry points: the fake libcuda the driver tests use.
  const std::string fake = std::string(GPUREADY_FAKES_DIR) + "/libcuda.so.1";
  if (std::filesystem::exists(fake)) {
    r = child({fake});
    ASSERT_FALSE(r.steps.empty());
    EXPECT_EQ(r.steps[0].code, "not_a_module") << r.steps[0].message;
  }
  std::filesystem::remove_all(dir);
}

TEST(VerifyGpuChild, TheRealModuleWithoutADriverSaysSo) {
  const auto module = std::filesystem::path(GPUREADY_EXE).parent_path() / module_file_name();
  if (!std::filesystem::exists(module)) GTEST_SKIP() << "the CUDA module is not built here (no CUDA compiler found)";
  if (std::filesystem::exists("/dev/nvidia0") || std::filesystem::exists("/dev/dxg"))
    GTEST_SKIP() << "this machine has an NVIDIA GPU: tests/unit/gpu_module_test.cpp covers it";
  const GpuReply r = child({module.string()});
  ASSERT_GE(r.steps.size(), 3u);
  EXPECT_TRUE(r.steps[0].ok) << r.steps[0].message;  // loaded, right ABI
  EXPECT_EQ(r.abi, GPUREADY_CUDA_ABI);
  bool driver_step = false;
  for (const auto& s : r.steps)
    if (s.name == "load the CUDA driver") {
      driver_step = true;
      EXPECT_FALSE(s.ok);
      EXPECT_EQ(s.code, "driver_not_loaded");
      EXPECT_NE(s.message.find("driver"), std::string::npos) << s.message;
    }
  EXPECT_TRUE(driver_step);
  EXPECT_TRUE(r.gemm.empty());
}

// The real module on the fake libcuda (tests/fakes: device memory is host memory, kernels do
// nothing): the whole driver-API path without a GPU — the driver opened from the request's path,
// the device's facts, the embedded fatbin handed to cuModuleLoadDataEx, the memory test's
// allocations, launches and read-backs — and each way it can stop, said in its step.
// The fake driver's file: libcuda.so.1 (in `dir`: "" the CUDA 13.0 fake, "/old" the 11.4 one), or on
// Windows nvcuda.dll (the 13.0 fake only), as an absolute path of this OS.
std::string fake_driver(const std::string& dir = "") {
#ifdef _WIN32
  if (!dir.empty()) return "";
  const auto p = std::filesystem::path(GPUREADY_FAKES_DIR) / "nvcuda.dll";
#else
  const auto p = std::filesystem::path(GPUREADY_FAKES_DIR + dir) / "libcuda.so.1";
#endif
  return std::filesystem::exists(p) ? std::filesystem::absolute(p).make_preferred().string() : "";
}

struct FakeModuleRun {
  std::filesystem::path module = std::filesystem::path(GPUREADY_EXE).parent_path() / module_file_name();
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpuready-module-fake-driver";
  // The GTX 1650 laptop's scenario with `changes` merged in, written to a file for the fake.
  std::string scenario(const nlohmann::json& changes) const {
    std::ifstream in(std::string(GPUREADY_FIXTURES) + "/nvidia/gtx1650_laptop_linux.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j.merge_patch(changes);
    std::filesystem::create_directories(dir);
    const auto path = (dir / (std::to_string(std::hash<std::string>{}(changes.dump())) + ".json")).string();
    std::ofstream(path) << j.dump();
    return path;
  }
  GpuReply run(const std::string& driver, const nlohmann::json& changes, const std::string& check = "memory.pattern") {
    nlohmann::json req = {{"cuda_driver", driver}, {"checks", {check}}, {"memory_share", 0.01}, {"memory_walking", false}};
    return child({module.string()}, nullptr, req.dump(), scenario(changes));
  }
};
const DriverStep* step_named(const GpuReply& r, const std::string& name) {
  for (const auto& s : r.steps)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(VerifyGpuChild, TheRealModuleRunsTheMemoryTestThroughTheDriverApiOnTheFakeDriver) {
  FakeModuleRun f;
  if (!std::filesystem::exists(f.module)) GTEST_SKIP() << "the CUDA module is not built here";
  ASSERT_FALSE(fake_driver().empty()) << "the fake CUDA driver was not built";
  for (const std::string dir : {"", "/old"}) {  // CUDA 13.0 (cuGetProcAddress_v2) and 11.4 (cuGetProcAddress)
    const std::string driver = fake_driver(dir);
    if (driver.empty()) continue;  // Windows: no 11.4 fake
    const GpuReply r = f.run(driver, {{"cuda_driver_version", dir.empty() ? 13000 : 11040}});
    for (const char* name : {"load the CUDA driver", "open the device", "load the kernels"}) {
      const auto* s = step_named(r, name);
      ASSERT_NE(s, nullptr) << dir << " " << name;
      EXPECT_TRUE(s->ok) << dir << " " << name << ": " << s->message;
    }
    const auto* load = step_named(r, "load the CUDA driver");
    ASSERT_NE(load, nullptr) << dir;
    EXPECT_NE(load->message.find(dir.empty() ? "via cuGetProcAddress_v2)" : "via cuGetProcAddress)"), std::string::npos)
        << load->message;
    EXPECT_NE(r.driver_path.find("fakes"), std::string::npos) << r.driver_path;
    EXPECT_EQ(r.device.name, "NVIDIA GeForce GTX 1650");
    EXPECT_EQ(r.device.cc_major, 7);
    EXPECT_EQ(r.device.cc_minor, 5);
    EXPECT_EQ(r.device.sm_count, 14);
    EXPECT_EQ(r.device.uuid, "GPU-3b1f5c2e-9a47-6d0e-81c4-2f6b7a9d0e13");
    EXPECT_EQ(r.device.memory_total, 4096ull << 20);
    EXPECT_EQ(r.device.kernel_image, "SASS sm_75");
    EXPECT_EQ(r.module_cuda, "11.8");
    ASSERT_EQ(r.memory.size(), 1u) << dir;
    EXPECT_TRUE(r.memory[0].error.empty()) << r.memory[0].error;
    EXPECT_GT(r.memory[0].bytes, 0u);
    EXPECT_EQ(r.memory[0].errors, 0u);
  }
}

TEST(VerifyGpuChild, TheRealModuleSaysWhyItStopsOnTheFakeDriver) {
  FakeModuleRun f;
  if (!std::filesystem::exists(f.module)) GTEST_SKIP() << "the CUDA module is not built here";
  const std::string driver = fake_driver();
  ASSERT_FALSE(driver.empty()) << "the fake CUDA driver was not built";
  // A driver older than CUDA 11: the kernels' floor, before any device work.
  GpuReply r = f.run(driver, {{"cuda_driver_version", 10020}});
  const auto* s = step_named(r, "load the CUDA driver");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->ok);
  EXPECT_EQ(s->code, "driver_too_old");
  EXPECT_NE(s->message.find("CUDA 10.2"), std::string::npos) << s->message;
  EXPECT_TRUE(r.memory.empty());
  // The driver refuses the fatbin: its code and the JIT's own words.
  r = f.run(driver, {{"cu_module_load", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
                     {"cu_module_jit_log", "ptxas application ptx input, line 9; fatal   : Unsupported .version 7.8"}});
  s = step_named(r, "load the kernels");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->ok);
  EXPECT_EQ(s->code, "kernels_not_loaded");
  EXPECT_NE(s->message.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION"), std::string::npos) << s->message;
  EXPECT_NE(s->message.find("Unsupported .version 7.8"), std::string::npos) << s->message;
  // No GPU the driver can see: cuInit's own answer.
  r = f.run(driver, {{"gpus", nlohmann::json::array()}});
  s = step_named(r, "load the CUDA driver");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->ok);
  EXPECT_NE(s->message.find("CUDA_ERROR_NO_DEVICE"), std::string::npos) << s->message;
  // Device memory runs out: the memory test says so instead of crashing.
  r = f.run(driver, {{"cu_mem_alloc_limit_bytes", 1024}});
  ASSERT_EQ(r.memory.size(), 1u);
  EXPECT_FALSE(r.memory[0].skip.empty());
  // The judge adds the floor from the tables to the driver's step.
  const auto checks = judge_gpu(f.run(driver, {{"cuda_driver_version", 10020}}), {"memory.pattern"}, Snapshot{},
                                knowledge::Compat::embedded());
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_NE(checks[0].detail.find("450.80.02"), std::string::npos) << checks[0].detail;
}

TEST(VerifyCli, ModuleChecksAreKeysAndSkipWithTheReason) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(120);
  ProcResult r = real_os().proc.run({GPUREADY_EXE, "verify", "-t", "gemm.fp64"}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gemm.bf16"), std::string::npos) << r.err;  // the list of checks names the module's
  if (std::filesystem::exists("/dev/nvidia0")) GTEST_SKIP() << "a GPU is here: the checks would run";
  r = real_os().proc.run({GPUREADY_EXE, "verify", "--json", "-t", "gemm.fp32", "-t", "memory.pattern"}, o);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // nothing ran
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["checks"].size(), 2u);
  for (const auto& c : j["checks"]) {
    EXPECT_EQ(c["status"], "skip");
    EXPECT_FALSE(c["detail"].get<std::string>().empty());
  }
}

// ---- the doctor's rules on what verify measured

TEST(MeasuredRules, ThrottlingPowerCapAndSlowGemmBecomeFindings) {
  Snapshot s = h200_snapshot();
  Measurement gemm;
  gemm.key = "gemm.bf16";
  gemm.status = "warn";
  gemm.value = Fact<double>(450);
  gemm.ratio = Fact<double>(0.45);
  gemm.detail = "0.45 of the 989.4 TFLOP/s peak";
  gemm.clock_events = {"hw_thermal_slowdown", "sw_power_cap"};
  s.measurements.push_back(gemm);
  const auto report = doctor::diagnose(s, knowledge::Compat::embedded());
  std::set<std::string> codes;
  for (const auto& f : report.findings) codes.insert(f.code);
  EXPECT_TRUE(codes.count("measured.gemm-slow"));
  EXPECT_TRUE(codes.count("measured.throttled"));
  EXPECT_TRUE(codes.count("measured.power-capped"));
  s.measurements[0].clock_events = {};
  s.measurements[0].status = "pass";
  codes.clear();
  for (const auto& f : doctor::diagnose(s, knowledge::Compat::embedded()).findings) codes.insert(f.code);
  EXPECT_FALSE(codes.count("measured.gemm-slow"));
  EXPECT_FALSE(codes.count("measured.throttled"));
  EXPECT_FALSE(codes.count("measured.power-capped"));
}

}  // namespace
