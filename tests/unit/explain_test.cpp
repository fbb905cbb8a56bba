// explain: every signature in data/error_signatures.csv matches the real error texts it was
// taken from (the example and a second report's variant), with other version numbers too;
// ordinary output is not recognised; the machine's facts sharpen the answer; huge or hostile
// input stays bounded; and `gpuready explain` end to end.
#include <gtest/gtest.h>

#include <chrono>
#include <iterator>
#include <set>
#include <fstream>
#include <random>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "doctor/explain.h"
#include "doctor/pasted_env.h"
#include "explain/literal_set.h"
#include "explain/log_text.h"
#include "explain/pattern.h"
#include "parse/env_report.h"
#include "parse/ascii.h"
#include "platform/os.h"
#include "support/test_os.h"

using namespace gpuready;
using namespace gpuready::doctor;
using gpuready::explain::required_literals;
using gpuready::explain::decode_library_name;

namespace {

const Explainer& ex() { return Explainer::embedded(); }

bool has_code(const std::vector<ExplainMatch>& m, const std::string& code) {
  return std::any_of(m.begin(), m.end(), [&](const ExplainMatch& x) { return x.code == code; });
}

std::string codes(const std::vector<ExplainMatch>& m) {
  std::string s;
  for (const auto& x : m) s += x.code + " ";
  return s;
}

// The text with every number of two or more digits (that the pattern does not spell out)
// replaced by another: other versions, sizes, line numbers of the same failure.
std::string other_numbers(const std::string& text, const std::string& pattern) {
  static const std::regex number("[0-9]{2,}");
  std::string out;
  auto it = std::sregex_iterator(text.begin(), text.end(), number);
  size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out += text.substr(last, static_cast<size_t>(m.position()) - last);
    std::string n = m.str();
    if (pattern.find(n) == std::string::npos) {
      for (auto& c : n) c = c == '9' ? '1' : static_cast<char>(c + 1);
    }
    out += n;
    last = static_cast<size_t>(m.position() + m.length());
  }
  return out + text.substr(last);
}

}  // namespace

TEST(Explain, TheCatalogueHasEnoughSourcedSignatures) {
  const auto& rows = knowledge::Compat::embedded().error_signatures;
  EXPECT_GE(rows.size(), 25u);
  std::set<std::string> seen;
  for (const auto& r : rows) {
    EXPECT_TRUE(seen.insert(r.code).second) << "duplicate " << r.code;
    EXPECT_FALSE(r.example.empty()) << r.code;
    EXPECT_FALSE(r.cause.empty()) << r.code;
    EXPECT_FALSE(r.fix.empty()) << r.code;
  }
}

// Whether a row's own pattern matches `text` as explain reads it: a line, or (for a pattern that
// allows white space) the line joined with the next four, the match starting on that line.
bool pattern_matches(const knowledge::ErrorSignatureRow& r, const std::string& text) {
  std::string why;
  const auto re = explain::Pattern::compile(r.pattern, &why);
  EXPECT_TRUE(re) << r.code << ": " << why;
  if (!re) return false;
  const auto lines = explain::split_log(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (re->search(lines[i].text)) return true;
    std::string window = lines[i].text;
    for (size_t j = i + 1; j < lines.size() && j < i + 5; ++j) window += "\n" + lines[j].text;
    if (const auto m = re->search(window); m && m->begin < lines[i].text.size()) return true;
  }
  return false;
}

TEST(Explain, LogLinesKeepTheirNumbersAcrossCarriageReturns) {
  // CRLF ends one line; a lone CR (a progress bar redrawn) ends a piece of the same line; blank
  // and white-space-only lines are dropped but counted.
  const auto lines = explain::split_log("A\r\nEpoch 1\rEpoch 2 Error\n  \n\nlast");
  ASSERT_EQ(lines.size(), 4u);
  const std::vector<std::pair<std::string, size_t>> want = {{"A", 1}, {"Epoch 1", 2}, {"Epoch 2 Error", 2}, {"last", 5}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(lines[i].text, want[i].first);
    EXPECT_EQ(lines[i].lower, gpuready::parse::ascii_lower(want[i].first));
    EXPECT_EQ(lines[i].number, want[i].second);
  }
  EXPECT_TRUE(explain::split_log("").empty());
  EXPECT_EQ(explain::split_log("x\n").size(), 1u);
}

TEST(Explain, EverySignatureMatchesItsRealReports) {
  size_t wins = 0, rows = 0;
  for (const auto& r : knowledge::Compat::embedded().error_signatures) {
    ++rows;
    // A row with a context counts only in a paste that has it, as a real one does.
    const std::string context = "Traceback: import tensorflow as tf (" + r.context + ")\n";
    bool won = false;
    for (const std::string* text : {&r.example, &r.variant}) {
      if (text->empty()) continue;
      EXPECT_TRUE(pattern_matches(r, *text)) << r.code << " does not match its own report:\n" << *text;
      const auto m = ex().explain(context + *text);
      won = won || has_code(m, r.code);
      // Where an earlier (more specific) row takes the line, the paste is still recognised, and a
      // failure stays a failure.
      EXPECT_FALSE(m.empty()) << r.code << ": not recognised:\n" << *text;
      if (r.kind == "failure")
        EXPECT_TRUE(std::any_of(m.begin(), m.end(), [](const auto& x) { return !x.harmless; }))
            << r.code << ": its failure is not reported:\n" << *text << "\ngot: " << codes(m);
    }
    wins += won ? 1 : 0;
  }
  // Rows that never win on their own texts are duplicates of earlier rows: a few by design (a
  // harmless wrapper around a quoted failure), not many.
  EXPECT_GE(wins + 5, rows) << "rows shadowed by earlier rows: remove or reorder them";
}

TEST(Explain, OtherVersionNumbersStillMatch) {
  for (const auto& r : knowledge::Compat::embedded().error_signatures) {
    const std::string text = other_numbers(r.example, r.pattern);
    EXPECT_TRUE(pattern_matches(r, text)) << r.code << " with other numbers:\n" << text;
  }
}

TEST(Explain, CauseAndFixNameWhatTheLineCaptured) {
  // Rows write "$1" in their cause or fix for what their pattern captured on the line (a version, an
  // instance type): the answer shows the value, never the placeholder.
  const auto m = ex().explain("nvidia-docker | 2016/08/22 12:54:02 Error: unsupported CUDA version: driver 7.5 < image 8.0");
  ASSERT_TRUE(has_code(m, "nvidia-docker.driver-older-than-image")) << codes(m);
  EXPECT_NE(m[0].cause.find("(7.5)"), std::string::npos) << m[0].cause;
  EXPECT_EQ(m[0].cause.find('$'), std::string::npos) << m[0].cause;
  std::string fixes;
  for (const auto& f : m[0].fix) fixes += f + "\n";
  EXPECT_NE(fixes.find("supports CUDA 8.0"), std::string::npos) << fixes;
  EXPECT_EQ(fixes.find("$1"), std::string::npos) << fixes;
  for (const auto& r : knowledge::Compat::embedded().error_signatures) {
    const auto got = ex().explain(r.example);
    const auto it = std::find_if(got.begin(), got.end(), [&](const auto& x) { return x.code == r.code; });
    if (it == got.end()) continue;  // EverySignatureMatchesItsRealReports reports those
    EXPECT_EQ(it->cause.find("$1"), std::string::npos) << r.code << ": " << it->cause;
  }
}

TEST(Explain, OrdinaryOutputIsNotAFailure) {
  const char* texts[] = {
      "Epoch 1/10\n1875/1875 [==============================] - 10s 5ms/step - loss: 0.2981 - accuracy: 0.9134",
      "Successfully installed numpy-1.26.4 tensorflow-2.15.0",
      "Tue Nov 30 10:00:00 2026\n| NVIDIA-SMI 580.159.04  Driver Version: 580.159.04  CUDA Version: 13.0 |",
      "True\nNVIDIA GeForce RTX 4090",
      "",
  };
  for (const char* t : texts) {
    const auto m = ex().explain(t);
    EXPECT_TRUE(std::all_of(m.begin(), m.end(), [](const auto& x) { return x.harmless; })) << t << "\ngot: " << codes(m);
  }
}

TEST(Explain, GenericRowsCountOnlyInTheirContext) {
  // "Illegal instruction" alone is any program's crash; after a TensorFlow import it is the AVX one.
  EXPECT_FALSE(has_code(ex().explain("Illegal instruction (core dumped)"), "tf.illegal-instruction"));
  EXPECT_TRUE(has_code(ex().explain("$ python -c 'import tensorflow'\nIllegal instruction (core dumped)"),
                       "tf.illegal-instruction"));
  // A context of several words: any one counts. DKMS fails for any module; for NVIDIA's, the
  // paste says nvidia or shows the NV_EXCLUDE_BUILD_MODULES its dkms.conf passes to make.
  const char* dkms = "Error! Bad return status for module build on kernel: 6.8.10-300.fc40.x86_64 (x86_64)";
  EXPECT_FALSE(has_code(ex().explain(std::string("Building module: vboxhost\n") + dkms), "dkms.build-failed"));
  EXPECT_TRUE(has_code(ex().explain(std::string("'make' -j12 NV_EXCLUDE_BUILD_MODULES='' KERNEL_UNAME=6.8.10 modules\n") + dkms),
                       "dkms.build-failed"));
  EXPECT_TRUE(has_code(ex().explain(std::string("Consult /var/lib/dkms/nvidia/545.29.02/build/make.log\n") + dkms),
                       "dkms.build-failed"));
}

TEST(Explain, TheWalkthroughsMissingDllWithHarmlessLinesAround) {
  const std::string paste =
      "2021-03-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
      "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
      "2021-03-01 10:00:00.000001: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if "
      "you do not have a GPU set up on your machine.\n"
      "2019-01-09 21:39:35.073563: I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports instructions "
      "that this TensorFlow binary was not compiled to use: AVX2 AVX512F FMA\n";
  const auto m = ex().explain(paste);
  ASSERT_GE(m.size(), 2u) << codes(m);
  EXPECT_EQ(m.front().code, "dso.tf-dll-missing");
  EXPECT_FALSE(m.front().harmless);
  EXPECT_TRUE(m.back().harmless) << m.back().code;
  ASSERT_FALSE(m.front().groups.empty());
  EXPECT_EQ(m.front().groups[0], "cudart64_110.dll");
}

TEST(Explain, TheMachineSharpensTheAnswer) {
  const Snapshot broken = test::fixture_snapshot("h200-broken-tf210.json");  // libcudart.so.11.0 under /usr/local/cuda-11.2, unresolved
  const auto m = ex().explain(
      "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
      "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
      &broken);
  ASSERT_FALSE(m.empty());
  std::string ev;
  for (const auto& e : m.front().evidence) ev += e + "\n";
  EXPECT_NE(ev.find("is at /usr/local/cuda-11.2/lib64/libcudart.so.11.2.152"), std::string::npos) << ev;
  EXPECT_NE(ev.find("loader does not search"), std::string::npos) << ev;

  const Snapshot h200 = test::fixture_snapshot("h200.json");  // cuDNN 9 only
  const auto c = ex().explain("ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory", &h200);
  ASSERT_FALSE(c.empty());
  std::string cev;
  for (const auto& e : c.front().evidence) cev += e + "\n";
  EXPECT_NE(cev.find("no copy of libcudnn.so.8"), std::string::npos) << cev;
}

TEST(Explain, RequiredLiteralsAreInEveryRealReportAndCoverMostPatterns) {
  // The prefilter skips a pattern whose literals are absent: a wrong literal would hide a real
  // match, so each one must be in the texts the row was taken from.
  size_t filtered = 0;
  std::string unfiltered;
  const auto& rows = knowledge::Compat::embedded().error_signatures;
  for (const auto& r : rows) {
    const auto lits = required_literals(r.pattern);
    if (lits.empty()) {
      unfiltered += r.code + " ";
      continue;
    }
    ++filtered;
    for (const std::string* text : {&r.example, &r.variant}) {
      if (text->empty()) continue;
      std::string lower = *text;
      for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      EXPECT_TRUE(
          std::any_of(lits.begin(), lits.end(), [&](const auto& l) { return lower.find(l) != std::string::npos; }))
          << r.code << ": none of its literals (first: " << lits.front() << ") is in: " << *text;
    }
  }
  EXPECT_GE(filtered, rows.size() - 3) << "most patterns should have a literal the prefilter can use; not: "
                                       << unfiltered;
  // How literals are taken: optional atoms and groups are left out, alternatives each give one.
  EXPECT_EQ(required_literals("Loaded runtime CuDNN library: (\\d+)"),
            std::vector<std::string>{"loaded runtime cudnn library: "});
  EXPECT_EQ(required_literals("The NVIDIA driver on your system is too old \\(found version"),
            std::vector<std::string>{"the nvidia driver on your system is too old (found version"});
  EXPECT_EQ(required_literals("(?:could not create cudnn handle|cuDNN error):? CUDNN_STATUS"),
            std::vector<std::string>{" cudnn_status"});
  EXPECT_EQ(required_literals("(?:alpha one|beta two)"), (std::vector<std::string>{"alpha one", "beta two"}));
  EXPECT_EQ(required_literals("abcd?ef"), std::vector<std::string>{"abc"});
  EXPECT_TRUE(required_literals("(?:ab|cd)").empty());  // too short to be worth it
}

TEST(Explain, AMegabyteOfLogIsFast) {
  // A 1 MiB build log with the walkthrough's error at the end (before the prefilter: ~10 s).
  std::string log;
  while (log.size() < (1u << 20) - 200)
    log += "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device\n";
  log +=
      "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
      "'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n";
  const auto start = std::chrono::steady_clock::now();
  const auto m = ex().explain(log);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(has_code(m, m.empty() ? "" : m.front().code)) << codes(m);
  EXPECT_FALSE(m.empty());
  EXPECT_LT(s, 10.0) << "bounded, not a benchmark: docs/benchmarks.md has the timing";
}

TEST(Explain, HugeOrHostileInputStaysBounded) {
  std::mt19937 rng(7);
  std::string noise(2u << 20, '\0');
  for (auto& ch : noise) ch = static_cast<char>(rng());
  std::string one_line(300000, 'a');
  one_line += " CUDA driver version is insufficient for CUDA runtime version";
  std::string progress;  // Keras redraws its bar with "\r"; the error follows on the same "line"
  for (int i = 0; i < 20000; ++i) progress += "\r 12/1875 [>.............................] - ETA: 2:31 - loss: 2.30";
  progress += "\rRuntimeError: CUDA error: no kernel image is available for execution on the device\n";
  const auto start = std::chrono::steady_clock::now();
  const auto from_noise = ex().explain(noise);
  const auto from_line = ex().explain(one_line);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  // Random bytes name no known error.
  EXPECT_TRUE(from_noise.empty()) << codes(from_noise);
  // No line is cut: the words at the end of a 300 kB line are found.
  EXPECT_TRUE(has_code(from_line, "cuda.insufficient-driver")) << codes(from_line);
  const auto from_progress = ex().explain(progress);
  EXPECT_TRUE(has_code(from_progress, "torch.no-kernel-image")) << codes(from_progress);
}

TEST(ExplainCli, ArgumentsFileStdinJsonAndExitCodes) {
  auto run = [](std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin(), GPUREADY_EXE);
    ProcOptions o;
    o.timeout = std::chrono::seconds(60);
    o.stdin_data = in;
    return real_os().proc.run(args, o);
  };
  const ProcResult a = run({"explain", "--no-probe", "Failed to initialize NVML: Driver/library version mismatch"});
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("[nvml.driver-mismatch]"), std::string::npos) << a.out;
  const ProcResult s = run({"explain", "--no-probe", "--json"}, "AssertionError: Torch not compiled with CUDA enabled\n");
  EXPECT_EQ(s.exit_code, 0) << s.err;
  const auto j = nlohmann::json::parse(s.out);
  EXPECT_EQ(j.at("schema"), "gpuready.explain/1");
  EXPECT_EQ(j.at("matches")[0].at("code"), "torch.not-compiled-cuda");
  for (const char* k : {"code", "title", "cause", "fix", "evidence"}) EXPECT_TRUE(j.at("matches")[0].contains(k)) << k;
  const ProcResult dash = run({"explain", "--no-probe", "-"}, "Failed to initialize NVML: Driver/library version mismatch\n");
  EXPECT_EQ(dash.exit_code, 0) << "'-' reads standard input: " << dash.out;
  EXPECT_NE(dash.out.find("[nvml.driver-mismatch]"), std::string::npos) << dash.out;
  const ProcResult none = run({"explain", "--no-probe", "everything is fine"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.out.find("Not recognised"), std::string::npos);
  const ProcResult missing = run({"explain", "--file", "/nonexistent/log.txt"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read /nonexistent/log.txt"), std::string::npos) << missing.err;
}

// ---- The decoders, each where it must fire and where it must stay silent ----

namespace {

const ExplainMatch* root_of(const std::vector<ExplainMatch>& m) {
  return !m.empty() && m.front().root_cause ? &m.front() : nullptr;
}

bool names(const ExplainMatch* m, const std::string& token) {
  return m && std::find(m->root.begin(), m->root.end(), token) != m->root.end();
}

std::string roots(const std::vector<ExplainMatch>& m) {
  std::string s;
  for (const auto& x : m) {
    s += x.code + "{";
    for (const auto& r : x.root) s += r + " ";
    s += "} ";
  }
  return s;
}

bool claims_failure(const std::vector<ExplainMatch>& m) {
  return std::any_of(m.begin(), m.end(), [](const auto& x) { return !x.harmless; });
}

}  // namespace

TEST(ExplainCodes, EveryCodeOfTheTableIsFoundByItsName) {
  // Every row, in a sentence of its own: the decoder is the table, not a list of favourites. An
  // Xid has no name of its own: it is found in the kernel log line that carries its number.
  for (const auto& r : knowledge::Compat::embedded().error_codes) {
    const auto m = r.family == "xid" ? ex().explain("kernel: NVRM: Xid (PCI:0000:01:00): " + std::to_string(r.number.value_or(0)) + ", pid=4242, name=python")
                                     : ex().explain("RuntimeError: the call failed with " + r.name + " somewhere");
    // The root cause, or a harmless match that names it where the catalogue calls that status harmless
    // (rocm-smi's RSMI_STATUS_NOT_SUPPORTED for a field the GPU lacks).
    const bool named = names(root_of(m), r.name) || std::any_of(m.begin(), m.end(), [&](const ExplainMatch& x) {
                         return x.harmless && names(&x, r.name);
                       });
    EXPECT_TRUE(named) << r.family << " " << r.name << ": " << roots(m);
  }
}

TEST(ExplainCodes, ByNumberAsTheTutorialsCheckMacroPrintsIt) {
  // "CUDA error = 999 at main.cu:196 'cudaDeviceSynchronize()'", pasted with and without the space.
  for (const char* t : {"CUDA error = 999 at main.cu:196 'cudaDeviceSynchronize()'", "CUDA error = 999at main.cu:196"})
    EXPECT_TRUE(names(root_of(ex().explain(t)), "cudaErrorUnknown")) << t << ": " << roots(ex().explain(t));
  EXPECT_TRUE(ex().explain("CUDA error = 999.5 percent").empty());  // not a code
  // TensorFlow's "failed. Status: <message>" with an older release's wording of the message.
  const char* tf = "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 "
                   "failed. Status: all CUDA-capable devices are busy or unavailable";
  EXPECT_TRUE(names(root_of(ex().explain(tf)), "cudaErrorDevicesUnavailable")) << roots(ex().explain(tf));
  EXPECT_TRUE(ex().explain("Upload failed. Status: all files are busy or unavailable").empty());  // no CUDA on the line
}

TEST(ExplainCodes, ByNumberWhereTheLineSaysWhose) {
  const auto a = ex().explain("RuntimeError: CUDA error 804 while initialising");
  EXPECT_TRUE(names(root_of(a), "cudaErrorCompatNotSupportedOnDevice")) << roots(a);
  EXPECT_TRUE(names(root_of(a), "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE")) << "the driver API's name for the same number";
  const auto b = ex().explain("cuInit returned 999");
  EXPECT_TRUE(names(root_of(b), "CUDA_ERROR_UNKNOWN")) << roots(b);
  // A pre-10.1 number, told apart by the message on the line (46 is cudaErrorDevicesUnavailable then).
  const auto c = ex().explain("THCudaCheck FAIL file=THCStorage.cu line=66 error=46 : all CUDA-capable devices are busy or unavailable");
  EXPECT_TRUE(names(root_of(c), "cudaErrorDevicesUnavailable")) << roots(c);
  // Where the line says whose number it is in other ways: a CHECK's "(N vs. 0)" (3 is cuDNN 8's
  // BAD_PARAM), Numba's "[N] Call to cuXxx results in" (the driver API's number), and the kernel
  // driver's Xid events in the log formats of several driver generations.
  const std::pair<const char*, const char*> other_forms[] = {
      {"F tensorflow/stream_executor/cuda/cuda_dnn.cc:521] Check failed: cudnnSetTensorNdDescriptor(handle_.get(), "
       "elem_type, nd, dims.data(), strides.data()) == CUDNN_STATUS_SUCCESS (3 vs. 0)batch_descriptor: {count: 0 "
       "feature_map_count: 64}",
       "CUDNN_STATUS_BAD_PARAM"},
      {"Check failed: status == CUBLAS_STATUS_SUCCESS (13 vs. 0)", "CUBLAS_STATUS_EXECUTION_FAILED"},
      // The success value first (tensorflow#526): CHECK_EQ(CUDA_SUCCESS, call).
      {"Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)", "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"},
      {"numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuMemcpyDtoH results in UNKNOWN_CUDA_ERROR",
       "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {"Xid 13, pid=1234, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address", "Xid 13"},
      {"[  966.503025] NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000120, intr 10000000", "Xid 31"},
      {"NVRM: Xid (PCI:0000:3b:00): 74, pid=1234, NVLink: fatal error detected on link 4", "nvlink-error"},
      // The math libraries' own "failure N" / "status N" (CNTK, MIGraphX).
      {"CURAND failure 105: (see curand.h & look for curandStatus or CURAND_STATUS_xxx) ; GPU=0",
       "CURAND_STATUS_LENGTH_NOT_MULTIPLE"},
      {"/code/AMDMIGraphX/src/targets/gpu/gemm_impl.cpp:126: operator(): rocblas_invoke: rocBLAS call failed with status 4",
       "rocblas_status_invalid_size"},
      {"cuSOLVER error: 3 in potrf", "CUSOLVER_STATUS_INVALID_VALUE"},
      // XLA's stream executor prints a number its own table does not name: 34 is the toolkit's stub libcuda.
      {"2021-08-12 12:19:51.012484: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:271] "
       "failed call to cuInit: UNKNOWN ERROR (34)",
       "CUDA_ERROR_STUB_LIBRARY"},
      {"E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (100)", "CUDA_ERROR_NO_DEVICE"},
      // 303 keeps its row: TensorFlow's stub could not load libcuda.so.1 at all.
      {"E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (303)", "driver-not-loaded"},
      // Vulkan's VkResult, negative (ncnn, llama.cpp's Vulkan backend), and Level Zero's large numbers.
      {"vkCreateInstance failed -9", "VK_ERROR_INCOMPATIBLE_DRIVER"},
      {"vkCreateInstance failed -9", "vulkan-driver-missing"},
      {"ggml_vulkan: vkAllocateMemory returned -2", "out-of-memory"},
      {"VkResult: -4 while submitting the command buffer", "VK_ERROR_DEVICE_LOST"},
      {"  what():  Unknown ze_result_t value: 1879179264", "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE"},
      {"zeInit failed, ze_result 0x78000001", "ZE_RESULT_ERROR_UNINITIALIZED"},
      // OptiX's OptixResult on a line that names OptiX (NVISII, Blender Cycles, Mitsuba).
      {"Optix call (optixInit()) failed with code 7801 (line 150)", "OPTIX_ERROR_UNSUPPORTED_ABI_VERSION"},
      {"Optix call (optixInit()) failed with code 7801 (line 150)", "driver-too-old"},
      {"OptiX error: OPTIX_ERROR_LIBRARY_NOT_FOUND", "OPTIX_ERROR_LIBRARY_NOT_FOUND"},
      // DCGM's dcgmReturn_t by errorString()'s message (dcgm-exporter, LDMS, dcgmi) and by name.
      {"ERROR     : dcgm_sampler dcgmConnect() failed: Host engine connection invalid/disconnected(-21)",
       "dcgm-hostengine-down"},
      {"dcgmi diag -r 1 failed: DCGM_ST_INSUFFICIENT_DRIVER_VERSION", "driver-too-old"},
      {"dcgmGroupCreate returned -21", "DCGM_ST_CONNECTION_NOT_VALID"},
      // NVML's numbers where the line says NVML (T-Rex, Go and Rust wrappers).
      {"WARN: NVML: can't get GPU #0, error code 15", "NVML_ERROR_GPU_IS_LOST"},
      {"nvmlInit failed with error 9", "NVML_ERROR_DRIVER_NOT_LOADED"},
      // OpenCL's errors after an OpenCL call or the word OpenCL (OpenVINO's clDNN, hashcat, OpenCV).
      {"Failed to create plugin libclDNNPlugin.so for device GPU [CLDNN ERROR]. clGetPlatformIDs error -1001",
       "opencl-icd-missing"},
      {"clBuildProgram failed: -11", "CL_BUILD_PROGRAM_FAILURE"},
      // HSA's statuses by number where the line says hsa_status (the ROCm runtime's own log lines).
      {":1:rocmemory.cpp :1043: Failed to create memory for IPC, failed with hsa_status: 4097",
       "HSA_STATUS_ERROR_INVALID_ARGUMENT"},
      // ROCm SMI and AMD SMI statuses by name (rocm-smi, amd-smi, ollama's and dask's bindings).
      {"ERROR: GPU[0] : Unable to set fan speed: RSMI_STATUS_PERMISSION", "rocm-permission"},
      {"AmdSmiLibraryException: Error code:\n\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded", "rocm-no-kfd"},
      // CUPTI's CUptiResult (the framework profilers' interface) by name and by number where the line says CUPTI.
      {"E external/org_tensorflow/tensorflow/core/profiler/internal/gpu/cupti_tracer.cc:1487] function "
       "cupti_interface_->ActivityDisable(activity)failed with error CUPTI_ERROR_NOT_INITIALIZED",
       "CUPTI_ERROR_NOT_INITIALIZED"},
      {"CUPTI call cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL) failed with error 35", "nvidia-device-permission"},
      {"cuptiSubscribe returned 26", "dcgm-profiling-contention"},
      // The CUDA samples print the runtime call without "()": 35 is the runtime's number (driver too old).
      {"cudaGetDeviceCount returned 35", "cudaErrorInsufficientDriver"},
  };
  for (const auto& [text, token] : other_forms) {
    const auto m = ex().explain(text);
    EXPECT_TRUE(names(root_of(m), token)) << token << " in " << text << ": " << roots(m);
  }
  // Numbers nobody attributes to CUDA stay numbers.
  for (const char* t : {"HTTP error 404: Not Found", "Process finished with exit code 139", "error 804 in line 3 of config.yaml",
                        "assert(x == 0) failed (3 vs. 0)", "Check failed: CUDA_SUCCESS == status (0 vs. 0)",
                        "[404] Call to api.example.com results in Not Found",
                        "Xiddle 13 apples", "the XID 74 field of the form", "rocBLAS version 4.2.0 loaded",
                        "curand generator created with seed 105", "MIOpen 3.1.0 found 7 solvers",
                        "note: a failed call to cuInit is logged once (see docs, section 34)",
                        "vkCreateInstance took 3 ms (layers -2 skipped)", "The upload failed -5 times",
                        "ze_result_t zeInit: ZE_RESULT_SUCCESS, driver version 16777216 (1.3.26918)",
                        "NVML library version: 535.129.03 (error reporting on)", "nvml status page: 15 GPUs",
                        "hsa_status 0 (success) after 4097 calls", "clang error: -1 is not a valid option value",
                        "the render failed with code 7801 (see the log)", "OptiX 7.7 loaded, 7050 rays per second",
                        "cupti tracer collected 35 events, error budget 0", "CUPTI_SUCCESS after 26 calls",
                        "time=\"2024-02-28T16:29:11+01:00\" level=info msg=\"Not collecting CPU metrics; Error retrieving DCGM "
                        "MIG hierarchy: This request is serviced by a module of DCGM that is not currently loaded\""})
    EXPECT_FALSE(claims_failure(ex().explain(t))) << t << ": " << roots(ex().explain(t));
}

TEST(ExplainCodes, ByMessageTextAndSpellings) {
  const auto a = ex().explain("RuntimeError: CUDA error: forward compatibility was attempted on non supported HW");
  EXPECT_TRUE(names(root_of(a), "cudaErrorCompatNotSupportedOnDevice")) << roots(a);
  const auto b = ex().explain("libcudnn.cudnnStatusArchMismatch");  // a binding's camel case
  EXPECT_TRUE(names(root_of(b), "CUDNN_STATUS_ARCH_MISMATCH")) << roots(b);
  const auto c = ex().explain("cudnn_status_internal_error");
  EXPECT_TRUE(names(root_of(c), "CUDNN_STATUS_INTERNAL_ERROR")) << roots(c);
  const auto d = ex().explain("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8");
  EXPECT_TRUE(names(root_of(d), "ncclSystemError")) << roots(d);
  const auto e = ex().explain("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!");
  EXPECT_TRUE(names(root_of(e), "hipErrorNoBinaryForGpu")) << roots(e);
  // One message, two vendors: CUDA's unless the line or the paste speaks of HIP/ROCm.
  const auto f = ex().explain("RuntimeError: an illegal memory access was encountered");
  ASSERT_NE(root_of(f), nullptr);
  EXPECT_EQ(root_of(f)->code, "code.cudaErrorIllegalAddress") << roots(f);
  const auto g = ex().explain("ROCm 6.0, MI210\nRuntimeError: an illegal memory access was encountered");
  ASSERT_NE(root_of(g), nullptr);
  EXPECT_EQ(root_of(g)->code, "code.hipErrorIllegalAddress") << roots(g);
  // A driver API call or the GPUassert macro names CUDA for a short message.
  EXPECT_TRUE(names(root_of(ex().explain("cuMemAlloc failed: out of memory")), "CUDA_ERROR_OUT_OF_MEMORY"));
  EXPECT_TRUE(names(root_of(ex().explain("GPUassert: invalid device symbol main.cu 10")), "cudaErrorInvalidSymbol"));
  EXPECT_TRUE(names(root_of(ex().explain("jaxlib/gpu/prng_kernels.cc:33: operation gpuGetLastError() failed: out of memory.")),
                    "cudaErrorMemoryAllocation"));
  // A short message counts only where the line names its library: "invalid argument" and "out of
  // memory" are everyone's words.
  for (const char* t : {"OSError: [Errno 22] Invalid argument: 'C:\\\\data\\\\x.csv'", "MemoryError: out of memory",
                        "java.lang.OutOfMemoryError: Java heap space", "unknown error",
                        "ValueError: cuDF column: invalid argument", "customer: out of memory"})
    EXPECT_FALSE(claims_failure(ex().explain(t))) << t << ": " << roots(ex().explain(t));
}

TEST(ExplainCodes, CheckValuesInEitherOrderAndLibraryStatusReports) {
  auto root_has = [](const std::vector<explain::Match>& m, const std::string& t) {
    return std::any_of(m.begin(), m.end(), [&](const explain::Match& x) {
      return x.root_cause && std::find(x.root.begin(), x.root.end(), t) != x.root.end();
    });
  };
  for (const char* t : {"F0101 foo.cu:12] Check failed: status == CUBLAS_STATUS_SUCCESS (13 vs. 0)",
                        "error: CUBLAS_STATUS_SUCCESS(0 vs 13)"}) {
    const auto m = ex().explain(t);
    EXPECT_TRUE(root_has(m, "CUBLAS_STATUS_EXECUTION_FAILED")) << t << ": " << roots(m);
  }
  const auto bnb = ex().explain("cuBLAS API failed with status 15\nerror detected");
  EXPECT_TRUE(root_has(bnb, "CUBLAS_STATUS_NOT_SUPPORTED")) << roots(bnb);
  // Success in both places is no failure.
  EXPECT_FALSE(root_has(ex().explain("Check failed: status == CUBLAS_STATUS_SUCCESS (0 vs. 0)"), "CUBLAS_STATUS_SUCCESS"));
}

// A short runtime message counts on a line that names CUDA, a CUDA call, or the CUDA source file a
// CUDA_CHECK-style macro reports (bitsandbytes: "Error <message> at line N in file ops.cu").
TEST(ExplainCodes, AShortMessageCountsBesideACudaSourceFile) {
  EXPECT_TRUE(names(root_of(ex().explain("RuntimeError: Error named symbol not found at line 233 in file /src/csrc/ops.cu")),
                    "cudaErrorSymbolNotFound"));
  EXPECT_TRUE(names(root_of(ex().explain("kernels.cuh:40: named symbol not found")), "cudaErrorSymbolNotFound"));
  EXPECT_TRUE(ex().explain("Error named symbol not found at line 233 in file /src/linker.cpp").empty());
  EXPECT_TRUE(ex().explain("Error named symbol not found in file /src/scene.cube").empty());
}

TEST(ExplainCodes, AMessageLibrariesShareIsTheCalledLibrarys) {
  auto root_has = [](const std::vector<explain::Match>& m, const std::string& t) {
    return !m.empty() && std::find(m.front().root.begin(), m.front().root.end(), t) != m.front().root.end();
  };
  // "operation not supported" is the CUDA runtime's and cuSPARSE's message: the call on the line decides.
  const auto rt = ex().explain("RuntimeError: foo/cusparse_kernels.cc:12: CUDA call cudaMallocAsync(&p, n, s) failed: operation not supported");
  EXPECT_TRUE(root_has(rt, "cudaErrorNotSupported")) << roots(rt);
  EXPECT_FALSE(root_has(rt, "CUSPARSE_STATUS_NOT_SUPPORTED")) << roots(rt);
  const auto sp = ex().explain("RuntimeError: foo/cuda_ops.cc:40: cusparseSpMM(handle, ...) failed: operation not supported");
  EXPECT_TRUE(root_has(sp, "CUSPARSE_STATUS_NOT_SUPPORTED")) << roots(sp);
  EXPECT_FALSE(root_has(sp, "cudaErrorNotSupported")) << roots(sp);
}

TEST(ExplainLibraries, EverySpellingOfAMissingLibrary) {
  const std::pair<const char*, const char*> cases[] = {
      {"ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory", "libcudnn.so.8"},
      {"Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file",
       "libcudart.so.11.0"},
      {"Could not locate zlibwapi.dll. Please make sure it is in your library path!", "zlibwapi.dll"},
      {"Could not load library cudnn_cnn_infer64_8.dll. Error code 126", "cudnn_cnn_infer64_8.dll"},
      {"OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Python310\\lib\\site-packages\\"
       "torch\\lib\\cudnn_adv_infer64_8.dll\" or one of its dependencies.",
       "cudnn_adv_infer64_8.dll"},
      {"/usr/bin/ld: cannot find -lcudart", "libcudart.so"},
      {"LINK : fatal error LNK1181: cannot open input file 'cudart.lib'", "cudart.lib"},
      {"ImportError: /opt/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: cudaGraphDebugDotPrint, "
       "version libcudart.so.11.0",
       "libtorch_cuda.so"},
      {"nvrtc: error: failed to open libnvrtc-builtins.so.12.1.", "libnvrtc-builtins.so.12.1"},
      // Windows' loader dialog, in its wordings.
      {"The code execution cannot proceed because cublasLt64_12.dll was not found. Reinstalling the program may fix this "
       "problem.",
       "cublasLt64_12.dll"},
      {"The code execution cannot continue because hiprtc0507.dll was not found.", "hiprtc0507.dll"},
      {"The program can't start because nvinfer_10.dll is missing from your computer.", "nvinfer_10.dll"},
      // ldd's report, for a library the tables know and one they do not (an MPI transport)
      {"\tlibcudnn_ops.so.9 => not found", "libcudnn_ops.so.9"},
      {"\tlibucp.so.0 => not found", "libucp.so.0"},
      // macOS's loader
      {"dyld: Library not loaded: @rpath/libcudart.10.2.dylib\n  Referenced from: /x/libtorch_cuda.dylib", "libcudart.10.2.dylib"},
      {"OSError: dlopen(libcudnn.7.dylib, 6): image not found", "libcudnn.7.dylib"},
  };
  for (const auto& [text, lib] : cases) {
    const auto m = ex().explain(text);
    EXPECT_TRUE(names(root_of(m), lib)) << text << "\ngot: " << roots(m);
    ASSERT_FALSE(m.empty());
    EXPECT_FALSE(m.front().fix.empty()) << text;
  }
  // What the name means: component and version, and the step for that version only.
  const auto d = decode_library_name(knowledge::Compat::embedded(), "cudart64_110.dll");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->stem, "cudart");
  EXPECT_TRUE(d->windows);
  EXPECT_NE(d->release.find("11"), std::string::npos) << d->release;
  const auto z = decode_library_name(knowledge::Compat::embedded(), "cudnn_ops_infer64_8.dll");
  ASSERT_TRUE(z);
  EXPECT_EQ(z->stem, "cudnn_ops_infer") << "the longest file pattern wins over cudnn64_{v}";
  EXPECT_FALSE(decode_library_name(knowledge::Compat::embedded(), "libfoo.so.1"));
  // macOS names: the version before ".dylib"
  const auto mac = decode_library_name(knowledge::Compat::embedded(), "libcudart.10.2.dylib");
  ASSERT_TRUE(mac);
  EXPECT_EQ(mac->stem, "cudart");
  EXPECT_EQ(mac->version, "10.2");
  const auto mac_dev = decode_library_name(knowledge::Compat::embedded(), "libcublas.dylib");
  ASSERT_TRUE(mac_dev);
  EXPECT_EQ(mac_dev->stem, "cublas");
  EXPECT_FALSE(decode_library_name(knowledge::Compat::embedded(), "libfoo.1.dylib"));
  // An MSVC import library: the stem alone, on Windows; one the tables do not know stays unknown.
  const auto imp = decode_library_name(knowledge::Compat::embedded(), "cuda.lib");
  ASSERT_TRUE(imp);
  EXPECT_EQ(imp->stem, "cuda");
  EXPECT_TRUE(imp->windows);
  EXPECT_FALSE(decode_library_name(knowledge::Compat::embedded(), "aio.lib"));
  EXPECT_TRUE(ex().explain("LINK : fatal error LNK1181: cannot open input file 'main.obj'").empty());
  // A Windows column with several shapes and notes ("nvinfer.dll (TRT 7/8) | nvinfer_{v}.dll (TRT 10)"): each decodes.
  for (const auto& [file, stem] : std::vector<std::pair<std::string, std::string>>{
           {"nvinfer.dll", "nvinfer"}, {"nvinfer_10.dll", "nvinfer"}, {"amdhip64_6.dll", "amdhip64"},
           {"amdhip64.dll", "amdhip64"}, {"hiprtc0507.dll", "hiprtc"}, {"amd_comgr_2.dll", "amd_comgr"}}) {
    const auto n = decode_library_name(knowledge::Compat::embedded(), file);
    ASSERT_TRUE(n) << file;
    EXPECT_EQ(n->stem, stem) << file;
    EXPECT_TRUE(n->windows) << file;
  }
  EXPECT_TRUE(ex().explain("The program cannot continue because the disk is full").empty());
  const auto fixes = ex().explain("ImportError: libcublas.so.12: cannot open shared object file: No such file or directory");
  ASSERT_FALSE(fixes.empty());
  std::string all;
  for (const auto& f : fixes.front().fix)
    if (f.rfind("Install it: ", 0) == 0) all += f + "\n";
  EXPECT_NE(all.find("cu12"), std::string::npos) << all;
  EXPECT_EQ(all.find("cu11"), std::string::npos) << "only the CUDA 12 package: " << all;
}

// ldd's lines for libraries it found, a "not found" that is not ldd's, and macOS's loader about a library
// outside the GPU stack name nothing missing of ours.
TEST(ExplainLibraries, LoaderLinesThatMissNothingOfOursStaySilent) {
  // macOS's loader about a library outside the GPU stack (torchaudio's libsox) claims nothing.
  EXPECT_FALSE(claims_failure(ex().explain("OSError: dlopen(/x/libtorchaudio_sox.so, 0x0006): Library not loaded: "
                                           "@rpath/libsox.dylib")));
  EXPECT_FALSE(claims_failure(ex().explain("\tlibucp.so.0 => /usr/lib/x86_64-linux-gnu/libucp.so.0 (0x00007f2a1c000000)\n"
                                           "\tlibcudart.so.12 => /usr/local/cuda/lib64/libcudart.so.12 (0x00007f2a1b000000)")));
  EXPECT_FALSE(claims_failure(ex().explain("the value => not found in the cache, recomputing it")));
}

// macOS's loader says "Symbol not found: __ZN..." (Mach-O names carry one more underscore) where
// Linux says "undefined symbol: _ZN...": a PyTorch C++ symbol either way.
TEST(ExplainLibraries, AMissingTorchSymbolOnMacosIsAnAbiMismatch) {
  const auto m = ex().explain("ImportError: dlopen(/Users/me/venv/lib/python3.9/site-packages/foo/_C.so, 2): Symbol not found: "
                              "__ZN3c1015SmallVectorBaseIjE8grow_podEPvmm\n  Referenced from: /Users/me/venv/foo/_C.so");
  EXPECT_TRUE(has_code(m, "torch.extension-abi-mismatch")) << codes(m);
  EXPECT_TRUE(names(root_of(m), "dll-version-mismatch")) << roots(m);
  // A symbol of another library is not PyTorch's.
  EXPECT_FALSE(has_code(ex().explain("dlopen(/x/libfoo.dylib, 2): Symbol not found: _png_create_read_struct"),
                        "torch.extension-abi-mismatch"));
}

// A CUDA library lacking a symbol another part was built against: two CUDA releases are mixed.
TEST(ExplainLibraries, AnUndefinedCudaSymbolIsAVersionMix) {
  const auto m = ex().explain("undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12");
  EXPECT_TRUE(names(root_of(m), "libcudart.so.12")) << roots(m);
  EXPECT_TRUE(names(root_of(m), "cuda-version-mismatch")) << roots(m);
  // Not for a library that is not CUDA's.
  const auto o = ex().explain("ImportError: /opt/app/libfoo.so.1: undefined symbol: _ZN3foo3barEv");
  EXPECT_FALSE(names(root_of(o), "cuda-version-mismatch")) << roots(o);
}

// The loader's other ways of saying that two versions are mixed, and the runtime a Windows DLL belongs to.
TEST(ExplainLibraries, RelocationErrorsAndRuntimeDllsNameWhatIsMixedOrMissing) {
  // glibc: "symbol S, version V not defined in file F with link time reference": F is the older copy.
  const auto reloc = ex().explain(
      "OSError: /env/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.11: symbol cublasLtHSHMatmulAlgoInit, "
      "version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference");
  EXPECT_TRUE(names(root_of(reloc), "libcublasLt.so.11")) << roots(reloc);
  EXPECT_TRUE(names(root_of(reloc), "dll-version-mismatch")) << roots(reloc);
  EXPECT_TRUE(names(root_of(reloc), "cuda-version-mismatch")) << roots(reloc);
  // Microsoft's C/C++ runtime DLLs are the MSVC runtime; a CUDA DLL is not.
  const auto vc = ex().explain("ImportError: DLL load failed while importing _C: vcruntime140_1.dll was not found");
  EXPECT_TRUE(names(root_of(vc), "msvc-runtime")) << roots(vc);
  const auto cu = ex().explain("Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found");
  EXPECT_FALSE(names(root_of(cu), "msvc-runtime")) << roots(cu);
  // GNU ld in a Chinese locale says "cannot find -lX" as "找不到 -lX".
  const auto ld = ex().explain("/usr/bin/ld: 找不到 -lnvinfer");
  EXPECT_TRUE(names(root_of(ld), "libnvinfer.so")) << roots(ld);
  EXPECT_FALSE(claims_failure(ex().explain("找不到文件 config.yaml"))) << "no -l, no library";
}

TEST(ExplainLibraries, FilesThatAreNotLibrariesStayUnclaimed) {
  for (const char* t : {"FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'",
                        "Could not open requirements file: [Errno 2] No such file or directory: 'requirements.txt'",
                        "error: failed to open the config: permission denied", "Please make sure that you are logged in",
                        "We also support .so files; see docs/plugins.md",
                        // Desktop libraries opencv-python needs in a slim image: not the GPU stack's (library_stems.csv: system).
                        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
                        "ImportError: libgthread-2.0.so.0: cannot open shared object file: No such file or directory"})
    EXPECT_FALSE(claims_failure(ex().explain(t))) << t << ": " << roots(ex().explain(t));
  const auto glibcxx = ex().explain(
      "ImportError: /home/u/miniconda3/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by "
      "/usr/lib/x86_64-linux-gnu/libicuuc.so.70)");
  EXPECT_TRUE(names(root_of(glibcxx), "libstdcxx-too-old")) << roots(glibcxx);
}

// The version tag a loader says is missing names the runtime, and the copy that lacks it is the one
// before ": version" (not the one that asked for it, after "required by").
TEST(ExplainLibraries, AMissingVersionTagNamesTheRuntimeThatLacksIt) {
  const auto cxxabi = ex().explain(
      "OSError: /lib64/libstdc++.so.6: version `CXXABI_1.3.9' not found (required by "
      "/env/lib/python3.9/site-packages/bitsandbytes/libbitsandbytes_cuda114_nocublaslt.so)");
  EXPECT_TRUE(names(root_of(cxxabi), "libstdcxx-too-old")) << roots(cxxabi);
  const auto glibc = ex().explain(
      "ImportError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found (required by "
      "/home/u/.local/lib/python3.8/site-packages/jaxlib/xla_extension.so)");
  ASSERT_NE(root_of(glibc), nullptr);
  EXPECT_EQ(root_of(glibc)->code, "library.glibc-too-old") << roots(glibc);
  EXPECT_TRUE(names(root_of(glibc), "glibc-too-old")) << roots(glibc);
  EXPECT_FALSE(names(root_of(glibc), "libstdcxx-too-old")) << roots(glibc);
  // A library's own version node: the older copy before ": version" is the one to replace.
  const auto jit = ex().explain(
      "ImportError: /usr/local/cuda/lib64/libnvJitLink.so.12: version `libnvJitLink.so.12' not found (required by "
      "/venv/lib/python3.10/site-packages/nvidia/cusparse/lib/libcusparse.so.12)");
  EXPECT_TRUE(names(root_of(jit), "libnvJitLink.so.12")) << roots(jit);
  ASSERT_NE(root_of(jit), nullptr);
  EXPECT_NE(root_of(jit)->title.find("libnvJitLink"), std::string::npos) << root_of(jit)->title;
  // Other version words stay silent: a GLIBC mention that is not a missing version tag.
  EXPECT_FALSE(claims_failure(ex().explain("ldd (Ubuntu GLIBC 2.35-0ubuntu3.8) 2.35"))) << "ldd --version";
}

// Nothing in the catalogue, but only info/warning-level lines and none says that something failed:
// a notice. A failure word (strong ones even at info level) or an unmarked line keeps it out.
TEST(ExplainStory, UncataloguedInfoAndWarningLinesAreNotices) {
  for (const char* t : {"W0821 08:49:41.251296 104802 server.cc:208] using the slower allocator for pinned buffers",
                        "2024-01-01 10:00:00.123456: I tensorflow/core/foo.cc:12] failed to find optional plugin foo, continuing",
                        "/usr/lib/python3/dist-packages/foo/bar.py:12: FutureWarning: `baz` is deprecated, use `qux`\n  warnings.warn(",
                        // a warning that says how it goes on is a fallback, whatever it says is not supported
                        "foo.py:35 WARNING -> Quux is not supported on this device; using the reference path instead",
                        "WARNING 02-06 00:09:43 config.py:380] Frobbing is only supported for X, Y. Disabling it for other platforms.",
                        // no level marker, but the line calls itself a warning one may silence
                        "[TP3] FastFrob is disabled because it's not supported on this topology. To silence this warning, set frob=False.",
                        // a C/C++ tool's own warning, and Go's logrus levels
                        "main: warning: base model only supports context sizes no greater than 2048 tokens (4096 specified)",
                        "time=\"2024-05-01T10:00:00Z\" level=info msg=\"frob service started\" port=5555",
                        // a warning that says how it goes on ("Ignoring ...", "will proceed ...")
                        "srun: Warning: can't honor --frobs-per-node set to 1 which doesn't match 4. Ignoring --frobs-per-node.",
                        "[2021-01-31 23:07:46,345] [WARNING] [runner.py:117] Unable to find hostfile, will proceed with local resources only.",
                        // a configuration printout between info lines: the setting's name is no failure
                        "I0719 10:50:33.485718 219407 pg.cpp:482] [Rank 3] Frob group initialized with following options:\n"
                        "FROB_ASYNC_ERROR_HANDLING: 0\nFROB_BLOCKING_WAIT: 0\nTIMEOUT(ms): 1800000",
                        "srun: warning: can't run 1 processes on 8 nodes, setting nnodes to 1",
                        // a warning naming what it uses instead: vLLM's CPU back-end
                        "WARNING 02-20 18:36:00 _logger.py:72] Frob graph is not supported on CPU, fallback to the eager mode.",
                        // no level marker, but the line says how to quiet it
                        "Emulate Frob CLI using podman. Create /etc/containers/nofrob to quiet msg.",
                        // a glog line behind what collected it: a container runtime's log, journald
                        "2023-10-19T14:25:03.801644662+08:00 stderr F I1019 06:25:03.801595       1 main.go:161] Starting frob watcher.",
                        "Apr 22 18:10:16 host frobd[602]: W0422 18:10:16.123456     602 frob.go:55] frob cache is cold",
                        // an input the program does not use and says it ignores
                        "frob_kwargs ['scale', 'bias'] are not expected by FrobProcessor and will be ignored."}) {
    const auto m = ex().explain(t);
    ASSERT_EQ(m.size(), 1u) << t << ": " << roots(m);
    EXPECT_EQ(m.front().code, "log.notice") << t;
    EXPECT_TRUE(m.front().harmless) << t;
  }
  for (const char* t : {"W0821 08:49:41.251296 104802 server.cc:208] failed to load foo",
                        "2024-01-01 10:00:00.123456: I tensorflow/core/foo.cc:12] Error in bar",
                        "something happened in the model", "WARNING: it works\nTraceback (most recent call last):",
                        // without a way on, "not supported" at warning level still counts; "instead" does not excuse an error
                        "WARNING 02-06 00:09:43 config.py:380] Frobbing is not supported on this device",
                        "W0821 08:49:41.251296 104802 server.cc:208] Error: frob failed, using nothing instead",
                        "main: warning: could not load the frob: giving up",
                        // an error-level glog line behind a container runtime's prefix; a "W1000" inside a message is no header
                        "2023-10-19T14:25:03.801644662+08:00 stderr F E1019 06:25:03.801595       1 main.go:161] frob failed",
                        "2023-10-19 stderr F code W1000 frob failed",
                        "time=\"2024-05-01T10:00:00Z\" level=error msg=\"frob failed to start\"",
                        // a setting line with a sentence for a value is a statement again
                        "I0719 10:50:33.485718 219407 pg.cpp:482] options:\nFROB_STATUS: the frob failed to open its device",
                        "I0719 10:50:33.485718 219407 pg.cpp:482] options:\nERROR: 3"})
    EXPECT_TRUE(ex().explain(t).empty()) << t << ": " << roots(ex().explain(t));
}

// The ls -l decoder of a device node: root-only /dev/kfd is the permission problem; the usual
// group-readable mode is not.
TEST(ExplainStory, ARootOnlyKfdNodeIsThePermissionProblem) {
  const auto m = ex().explain("$ ls -la /dev | grep kfd\ncrw-------   1 root    root    234,   0 Mai 21 05:13 kfd");
  EXPECT_TRUE(names(root_of(m), "rocm-permission")) << roots(m);
  EXPECT_FALSE(claims_failure(ex().explain("crw-rw----   1 root    render  234,   0 May 21 05:13 /dev/kfd")));
  EXPECT_FALSE(claims_failure(ex().explain("-rw-------   1 root    root    234 May 21 05:13 kfd")));
}

TEST(ExplainStory, RootCauseFirstConsequencesAfterHarmlessLast) {
  const std::string log =
      "2024-01-01 I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use "
      "available CPU instructions in performance-critical operations.\n"
      "2024-01-01 I external/local_xla/xla/stream_executor/cuda/cuda_executor.cc:901] successful NUMA node read from "
      "SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero.\n"
      "Epoch 1/10\r  1/469 [..............................] - ETA: 1:02 - loss: 2.31\r"
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 3.82 GiB total capacity)\n"
      "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 3.82 GiB total capacity)\n";
  const auto m = ex().explain(log);
  ASSERT_GE(m.size(), 3u) << roots(m);
  EXPECT_TRUE(m.front().root_cause);
  EXPECT_TRUE(names(&m.front(), "out-of-memory")) << roots(m);
  EXPECT_EQ(m.front().line, 3u) << "the \\r segments share their line's number";
  EXPECT_EQ(m.front().count, 2u) << "the second OOM is the same failure";
  EXPECT_TRUE(m.back().harmless);
  EXPECT_EQ(std::count_if(m.begin(), m.end(), [](const auto& x) { return x.root_cause; }), 1);
  // Only harmless lines: recognised, no failure, and the CLI exits 1 ("nothing to fix").
  const auto h = ex().explain(log.substr(0, log.find("Epoch")));
  EXPECT_FALSE(h.empty());
  EXPECT_FALSE(claims_failure(h)) << roots(h);
}

TEST(ExplainTables, ConditionsAreTheVocabularysWords) {
  // A condition word in a table that VOCAB.md does not define would score nothing and mean nothing.
  std::ifstream f(std::string(GPUREADY_FIXTURES) + "/explain_corpus/VOCAB.md");
  const std::string vocab((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(vocab.empty());
  const auto& k = knowledge::Compat::embedded();
  std::set<std::string> code_names;
  for (const auto& r : k.error_codes) code_names.insert(r.name);
  auto defined = [&](const std::string& t) { return vocab.find("| " + t + " |") != std::string::npos; };
  for (const auto& r : k.error_codes)
    if (!r.condition.empty()) EXPECT_TRUE(defined(r.condition)) << r.name << ": " << r.condition;
  for (const auto& r : k.error_signatures)
    for (const auto& t : r.root) {
      const bool library = t.find(".so") != std::string::npos || t.find(".dll") != std::string::npos || t.find(".bc") != std::string::npos;
      if (t[0] == '$' || library || code_names.count(t)) continue;
      EXPECT_TRUE(defined(t)) << r.code << ": root " << t << " is neither a code of error_codes.csv nor a VOCAB.md word";
    }
  EXPECT_GE(k.error_codes.size(), 500u);
  std::set<std::string> families;
  for (const auto& r : k.error_codes) families.insert(r.family);
  for (const char* fam : {"cuda-runtime", "cuda-driver", "cudnn", "cublas", "cusolver", "cufft", "cusparse", "curand", "nvrtc",
                          "nccl", "hip", "hsa", "rocblas", "miopen"})
    EXPECT_TRUE(families.count(fam)) << fam;
}

TEST(ExplainVersions, PairsAreJudgedWithTheTables) {
  auto evidence = [](const std::vector<ExplainMatch>& m) {
    std::string s;
    for (const auto& x : m)
      for (const auto& e : x.evidence) s += e + "\n";
    for (const auto& x : m)
      for (const auto& f : x.fix) s += f + "\n";
    return s;
  };
  const auto d = ex().explain("RuntimeError: The NVIDIA driver on your system is too old (found version 11060).");
  const std::string de = evidence(d);
  EXPECT_NE(de.find("11060 is CUDA 11.6"), std::string::npos) << de;
  EXPECT_NE(de.find("CUDA 12."), std::string::npos) << "which driver the newer CUDA lines need:\n" << de;
  const auto a = ex().explain(
      "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.");
  const std::string ae = evidence(a);
  EXPECT_NE(ae.find("sm_120 is compute capability 12.0"), std::string::npos) << ae;
  const auto n = ex().explain("nvcc fatal   : Unsupported gpu architecture 'compute_89'");
  const std::string ne = evidence(n);
  EXPECT_NE(ne.find("CUDA 11.8 is the first release that builds for compute_89"), std::string::npos) << ne;
  EXPECT_TRUE(names(root_of(n), "nvcc-arch-unsupported")) << roots(n);
  // An architecture older than every current release's, which an older one built for, was dropped:
  // the compiler is too new for it, and the fix is the other way round.
  const auto o = ex().explain("nvcc fatal   : Value 'sm_30' is not defined for option 'gpu-architecture'");
  EXPECT_TRUE(names(root_of(o), "nvcc-arch-dropped")) << roots(o);
  EXPECT_FALSE(names(root_of(o), "nvcc-arch-unsupported")) << roots(o);
  EXPECT_NE(evidence(o).find("CUDA 10.2 is the last release that builds for sm_30"), std::string::npos) << evidence(o);
  const auto c = ex().explain("E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.");
  EXPECT_TRUE(names(root_of(c), "cudnn-version-mismatch")) << roots(c);
}

// Two versions of one component on a line that says they disagree: the component picks the
// condition, whatever the wording. Silent without a disagreement word, without two different
// versions, or without a component it knows.
TEST(ExplainVersions, ADisagreementBetweenTwoVersionsOfOneComponent) {
  struct Case {
    const char* text;
    const char* root;
  };
  // Wordings of DeepSpeed, torch_sparse, TF-TRT and JAX (tests/fixtures/explain_corpus), then
  // made-up ones the decoder has never seen.
  const Case fires[] = {
      {"deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does "
       "not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions",
       "cuda-version-mismatch"},
      {"RuntimeError: Detected that PyTorch and torch_sparse were compiled with different CUDA versions. PyTorch has CUDA "
       "version 10.2 and torch_sparse has CUDA version 11.2.",
       "cuda-version-mismatch"},
      {"RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions. PyTorch has CUDA "
       "version 11.8 and torch_scatter has CUDA version 0.0.",
       "cuda-ext-not-built"},
      {"WARNING:tensorflow:TensorRT mismatch. Compiled against version 5.0.2, but loaded 5.1.2. Things may not work.",
       "tensorrt-version-mismatch"},
      {"RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version (0.54) "
       "and framework PJRT API version 0.51).",
       "jax-jaxlib-mismatch"},
      {"mylib: cuDNN 9.1.0 is incompatible with this build (needs 9.3.0)", "cudnn-version-mismatch"},
      {"NCCL version 2.18.1 of rank 3 does not match NCCL 2.21.5 of rank 0", "nccl-lib-mismatch"},
  };
  for (const auto& c : fires) {
    const auto m = ex().explain(c.text);
    EXPECT_TRUE(names(root_of(m), c.root)) << c.text << ": " << roots(m);
  }
  for (const char* t : {"CUDA version 12.2 and torch 2.4.1 installed",                    // no disagreement word
                        "CUDA version mismatch: 12.2 and 12.2",                             // one version only
                        "shape mismatch: value tensor of shape [1.5, 2.5] cannot be broadcast",  // no component
                        "2020-10-05 16:30:40.039587: I cuda mismatch at 0000:01:00.0"})     // times and PCI addresses
    EXPECT_FALSE(claims_failure(ex().explain(t))) << t << ": " << roots(ex().explain(t));
}

// Xid 45 is the clean-up after an earlier Xid; the line names it, and that one is the cause.
// NVML's return codes as its bindings print them: pynvml's exception classes (CamelCase, acronyms
// too) and go-nvml's enum names without NVML_ (only where the line says NVML).
TEST(ExplainCodes, NvmlCodesAsTheBindingsPrintThem) {
  const struct {
    const char* text;
    const char* code;
  } fires[] = {
      {"pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
       "NVML_ERROR_LIB_RM_VERSION_MISMATCH"},
      {"pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded", "NVML_ERROR_DRIVER_NOT_LOADED"},
      {"pynvml.NVMLError_IRQIssue: Interrupt Request Issue", "NVML_ERROR_IRQ_ISSUE"},
      {"level=ERROR msg=\"Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND\"", "NVML_ERROR_LIBRARY_NOT_FOUND"},
      {"nvml.Init() failed: ERROR_GPU_IS_LOST", "NVML_ERROR_GPU_IS_LOST"},
      // A VkResult as Rust's Vulkan bindings print it (hecrj/coffee#120).
      {"thread 'main' panicked at 'Unable to create Vulkan instance: VkError(ERROR_INCOMPATIBLE_DRIVER)', "
       "src/libcore/result.rs:1165:5",
       "VK_ERROR_INCOMPATIBLE_DRIVER"},
  };
  for (const auto& c : fires) {
    const auto m = ex().explain(c.text);
    EXPECT_TRUE(names(root_of(m), c.code)) << c.text << ": " << roots(m);
  }
  // Win32's ERROR_NOT_FOUND is not NVML's; a class named like pynvml's with no such code is nothing.
  for (const char* t : {"SetupDiGetClassDevs failed: ERROR_NOT_FOUND", "raise NVMLError_NoSuchThing()",
                        "CreateFile failed: ERROR_INCOMPATIBLE_DRIVER"})
    EXPECT_TRUE(ex().explain(t).empty()) << t << ": " << roots(ex().explain(t));
}

// Vulkan-Hpp's exceptions print a VkResult as "vk::<call>: Error<Name>"; pyopencl prints an OpenCL
// status without its CL_. Each only where the line is Vulkan-Hpp's or OpenCL's.
TEST(ExplainCodes, VulkanHppAndPyopenclNames) {
  const struct {
    const char* text;
    const char* code;
  } fires[] = {
      {"RuntimeError: vk::createInstanceUnique: ErrorIncompatibleDriver", "VK_ERROR_INCOMPATIBLE_DRIVER"},
      {"E llama_model_load: error loading model: vk::PhysicalDevice::createDevice: ErrorExtensionNotPresent",
       "VK_ERROR_EXTENSION_NOT_PRESENT"},
      {"vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
      {"pyopencl._cl.LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR", "CL_PLATFORM_NOT_FOUND_KHR"},
      {"pyopencl._cl.MemoryError: clEnqueueNDRangeKernel failed: OUT_OF_RESOURCES", "CL_OUT_OF_RESOURCES"},
  };
  for (const auto& c : fires) {
    const auto m = ex().explain(c.text);
    EXPECT_TRUE(names(root_of(m), c.code)) << c.text << ": " << roots(m);
  }
  // The same words without Vulkan-Hpp or OpenCL on the line are no such codes.
  for (const char* t : {"FooError: ErrorIncompatibleDriver", "ValueError: PLATFORM_NOT_FOUND_KHR",
                        "vk::createInstance: ErrorNoSuchThing", "clFoo failed: NO_SUCH_STATUS"})
    EXPECT_FALSE(claims_failure(ex().explain(t))) << t << ": " << roots(ex().explain(t));
}

// TensorFlow's ROCm stream executor prints a hipError_t as "HIP_ERROR_" and its name
// (ROCmSoftwarePlatform/tensorflow#14); a shouted constant of the same prefix is no HIP code.
TEST(ExplainCodes, HipCodesAsTensorFlowsRocmPrintsThem) {
  const auto m = ex().explain("E tensorflow/stream_executor/rocm/rocm_driver.cc:1098] could not retrieve ROCM device count: "
                              "HIP_ERROR_NoDevice");
  EXPECT_TRUE(names(root_of(m), "hipErrorNoDevice")) << roots(m);
  for (const char* t : {"HIP_ERROR_NODEVICE = 100", "HIP_ERROR_NoSuchThing"})
    EXPECT_FALSE(claims_failure(ex().explain(t))) << t << ": " << roots(ex().explain(t));
}

// Intel's GPU stack (Level Zero, SYCL's plugin interface and Unified Runtime) prints its result names;
// they carry the condition the result means.
TEST(ExplainCodes, IntelGpuRuntimeResultsByName) {
  const struct {
    const char* text;
    const char* code;
    const char* condition;
  } fires[] = {
      {"RuntimeError: Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES) -5 (PI_ERROR_OUT_OF_RESOURCES)",
       "PI_ERROR_OUT_OF_RESOURCES", "out-of-memory"},
      {"terminate called after throwing an instance of 'sycl::_V1::exception' what(): No device of requested type available. "
       "-1 (PI_ERROR_DEVICE_NOT_FOUND)", "PI_ERROR_DEVICE_NOT_FOUND", "no-gpu-visible"},
      {"zeInit failed: ZE_RESULT_ERROR_UNINITIALIZED", "ZE_RESULT_ERROR_UNINITIALIZED", "driver-not-loaded"},
      {"UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", "out-of-memory"},
  };
  for (const auto& c : fires) {
    const auto m = ex().explain(c.text);
    EXPECT_TRUE(names(root_of(m), c.code)) << c.text << ": " << roots(m);
    EXPECT_TRUE(names(root_of(m), c.condition)) << c.text << ": " << roots(m);
  }
  // A name of the family that is not a result is nothing.
  EXPECT_TRUE(ex().explain("ZE_RESULT_ERROR_FOO_BAR").empty());
}

TEST(ExplainCodes, AnXidCausedByAPreviousXidIsThePrevious) {
  const auto m = ex().explain("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by "
                              "previous Xid 149");
  EXPECT_TRUE(names(root_of(m), "nvlink-error")) << roots(m);
  const auto alone = ex().explain("NVRM: Xid (PCI:0000:3b:00): 45, pid=1234, name=python, Ch 00000010");
  EXPECT_FALSE(names(root_of(alone), "nvlink-error")) << roots(alone);
}

// Where the paste ran (a container, WSL 2, WSL 1) sharpens the root cause's condition; other conditions stay.
TEST(ExplainStory, WhereThePasteRanSharpensTheCondition) {
  const std::string no_driver =
      "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
      "from http://www.nvidia.com/Download/index.aspx";
  // Alone: the driver is not loaded, and nothing more is claimed.
  const auto plain_m = ex().explain(no_driver);
  const ExplainMatch* plain = root_of(plain_m);
  EXPECT_TRUE(names(plain, "driver-not-loaded")) << roots(plain_m);
  EXPECT_FALSE(names(plain, "container-no-gpu"));
  EXPECT_FALSE(names(plain, "wsl-gpu-blocked"));
  // In a container: the container did not get the GPU, said first, with the words that showed it and the fix.
  const auto docker_m = ex().explain("$ docker run --rm -it pytorch/pytorch python train.py\n" + no_driver);
  const ExplainMatch* docker = root_of(docker_m);
  ASSERT_TRUE(docker && !docker->root.empty()) << roots(docker_m);
  EXPECT_EQ(docker->root.front(), "container-no-gpu");
  EXPECT_TRUE(names(docker, "driver-not-loaded"));
  std::string ev;
  for (const auto& e : docker->evidence) ev += e + "\n";
  EXPECT_NE(ev.find("your text says \"docker run\""), std::string::npos) << ev;
  ASSERT_FALSE(docker->fix.empty());
  EXPECT_NE(docker->fix.front().find("--gpus all"), std::string::npos);
  // Compose files and the older wrappers say the same.
  for (const char* setting : {"$ docker-compose up trainer\n", "$ nvidia-docker run -it img bash\n", "    runtime: nvidia\n"}) {
    const auto m = ex().explain(setting + no_driver);
    ASSERT_TRUE(root_of(m) && !root_of(m)->root.empty()) << setting;
    EXPECT_EQ(root_of(m)->root.front(), "container-no-gpu") << setting << roots(m);
  }
  // Under WSL 2: WSL is not exposing the GPU.
  const auto wsl_m = ex().explain("Linux pc 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n" + no_driver);
  const ExplainMatch* wsl = root_of(wsl_m);
  ASSERT_TRUE(wsl && !wsl->root.empty()) << roots(wsl_m);
  EXPECT_EQ(wsl->root.front(), "wsl-gpu-blocked");
  // A condition the setting does not change stays as it is.
  const auto oom = ex().explain("$ docker run --gpus all img\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB");
  EXPECT_TRUE(names(root_of(oom), "out-of-memory")) << roots(oom);
  EXPECT_FALSE(names(root_of(oom), "container-no-gpu"));
  // A prompt inside a Docker container (its host is the container id's 12 hex digits); for the AMD GPU, its devices.
  const auto in_container = ex().explain("root@3f2a1b4c5d6e:/workspace# python t.py\n" + no_driver);
  ASSERT_TRUE(root_of(in_container) && !root_of(in_container)->root.empty()) << roots(in_container);
  EXPECT_EQ(root_of(in_container)->root.front(), "container-no-gpu") << roots(in_container);
  const auto amd = ex().explain("root@c0cb9814a02b:/audio# rocminfo\nROCk module is NOT loaded, possibly no GPU devices");
  ASSERT_TRUE(root_of(amd) && !root_of(amd)->root.empty()) << roots(amd);
  EXPECT_EQ(root_of(amd)->root.front(), "container-no-gpu") << roots(amd);
  EXPECT_NE(root_of(amd)->fix.front().find("/dev/kfd"), std::string::npos);
  for (const std::string& host : {std::string("root@gpu-node-0123:/workspace# python t.py\n"),
                                  std::string("root@3f2a1b4c5d6e7:/workspace# python t.py\n"),
                                  std::string("commit 3f2a1b4c5d6e: python t.py\n")})
    EXPECT_FALSE(names(root_of(ex().explain(host + no_driver)), "container-no-gpu")) << host;
  // CUDA through ZLUDA: a CUDA library or feature failing there is ZLUDA's setup or coverage.
  const auto zluda = ex().explain("CUDA error: the function requires an architectural feature absent from the device\n"
                                  "  current device: 0, in function ggml_cuda_op_mul_mat_cublas at C:\\llamaZLUDA\\ggml-cuda.cu:1333");
  ASSERT_TRUE(root_of(zluda) && !root_of(zluda)->root.empty()) << roots(zluda);
  EXPECT_EQ(root_of(zluda)->root.front(), "zluda-setup") << roots(zluda);
  EXPECT_FALSE(names(root_of(ex().explain("CUDA error: the function requires an architectural feature absent from the device\n"
                                          "  current device: 0, in function ggml_cuda_op_mul_mat_cublas at C:\\llama\\ggml-cuda.cu:1333")),
                     "zluda-setup"));
  // A word that only contains a clue ("dockerfile", "awsl") is not a setting.
  const auto near = ex().explain("Step 3/9 : RUN make -f Dockerfile.gpu awsl\n" + no_driver);
  EXPECT_FALSE(names(root_of(near), "container-no-gpu"));
  EXPECT_FALSE(names(root_of(near), "wsl-gpu-blocked"));
  // A Linux prompt on a host with a Windows computer's default name is WSL (it takes the machine's name).
  const auto host_m = ex().explain("anurag@DESKTOP-5A67SBM:~$ python -c 'import torch; torch.cuda.init()'\n" + no_driver);
  const ExplainMatch* host = root_of(host_m);
  ASSERT_TRUE(host && !host->root.empty()) << roots(host_m);
  EXPECT_EQ(host->root.front(), "wsl-gpu-blocked");
  std::string host_ev;
  for (const auto& e : host->evidence) host_ev += e + "\n";
  EXPECT_NE(host_ev.find("your text says \"desktop-5a67sbm\""), std::string::npos) << host_ev;
  const auto libcuda_m = ex().explain("me@LAPTOP-9QK2LM3T:/mnt/c/work$ python t.py\n"
                                      "OSError: libcuda.so.1: cannot open shared object file: No such file or directory");
  EXPECT_TRUE(names(root_of(libcuda_m), "wsl-libcuda")) << roots(libcuda_m);
  // A container under WSL 2 that got no GPU: WSL's side is said first.
  const auto wsl_docker = ex().explain(
      "root@DESKTOP-5A67SBM:/home/me# docker run --rm --gpus all nvidia/cuda:11.0-base nvidia-smi\n"
      "docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container process "
      "caused: process_linux.go:459: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , "
      "stderr: nvidia-container-cli: initialization error: driver error: failed to process request: unknown.");
  ASSERT_TRUE(root_of(wsl_docker) && !root_of(wsl_docker)->root.empty()) << roots(wsl_docker);
  EXPECT_EQ(root_of(wsl_docker)->root.front(), "wsl-gpu-blocked") << roots(wsl_docker);
  EXPECT_TRUE(names(root_of(wsl_docker), "container-no-gpu"));
  // Not a Windows program naming its host, nor a host merely called desktop-something.
  for (const std::string& other : {std::string("[W socket.cpp:663] [c10d] The client socket has failed to connect to "
                                               "[DESKTOP-5A67SBM]:29500\n"),
                                   std::string("me@desktop-pc:~$ python t.py\n")}) {
    const auto m = ex().explain(other + no_driver);
    EXPECT_FALSE(names(root_of(m), "wsl-gpu-blocked")) << other << roots(m);
  }
  // WSL 1, told by its kernel release (4.4.0-<Windows build>-Microsoft): no GPU there at all, convert to WSL 2.
  const auto wsl1_m =
      ex().explain("Linux pc 4.4.0-22621-Microsoft #2506-Microsoft Fri Jan 01 08:00:00 PST 2016 x86_64\n" + no_driver);
  const ExplainMatch* wsl1 = root_of(wsl1_m);
  ASSERT_TRUE(wsl1 && !wsl1->root.empty()) << roots(wsl1_m);
  EXPECT_EQ(wsl1->root.front(), "wsl-gpu-blocked");
  ASSERT_FALSE(wsl1->fix.empty());
  EXPECT_NE(wsl1->fix.front().find("wsl --set-version"), std::string::npos) << wsl1->fix.front();
  // Not a WSL 2 kernel, an ordinary 4.4.0 kernel, or WSL 1 with a condition it does not change.
  for (const char* kernel : {"Linux pc 5.10.16.3-microsoft-standard-WSL2 #1 SMP x86_64\n", "Linux pc 4.4.0-210-generic #242-Ubuntu SMP\n"}) {
    const auto other_m = ex().explain(kernel + no_driver);
    const ExplainMatch* other = root_of(other_m);
    EXPECT_TRUE(!other || other->fix.empty() || other->fix.front().find("wsl --set-version") == std::string::npos) << kernel;
  }
  const auto wsl1_oom =
      ex().explain("Linux pc 4.4.0-19041-Microsoft\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB");
  EXPECT_TRUE(names(root_of(wsl1_oom), "out-of-memory")) << roots(wsl1_oom);
  EXPECT_FALSE(names(root_of(wsl1_oom), "wsl-gpu-blocked"));
}

// The machine settles what the text cannot: "Found no NVIDIA driver" where every GPU on the PCI bus is
// AMD's is a CUDA build on the wrong vendor's GPU; with an NVIDIA GPU there (or no machine) it stays a driver question.
TEST(ExplainStory, TheMachineTellsAWrongVendorBuild) {
  const std::string no_driver =
      "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
      "from http://www.nvidia.com/Download/index.aspx";
  Snapshot amd = test::fixture_snapshot("h200.json");  // the H200 machine, its GPUs taken for AMD ones
  ASSERT_FALSE(amd.pci_gpus.empty());
  for (auto& g : amd.pci_gpus) {
    g.vendor = "amd";
    g.vendor_id = 0x1002;
  }
  const auto on_amd_m = ex().explain(no_driver, &amd);
  const ExplainMatch* on_amd = root_of(on_amd_m);
  ASSERT_TRUE(on_amd && !on_amd->root.empty()) << roots(on_amd_m);
  EXPECT_EQ(on_amd->root.front(), "wrong-vendor-build");
  EXPECT_TRUE(names(on_amd, "driver-not-loaded"));
  ASSERT_FALSE(on_amd->fix.empty());
  EXPECT_NE(on_amd->fix.front().find("ROCm"), std::string::npos) << on_amd->fix.front();
  const Snapshot nvidia = test::fixture_snapshot("h200.json");
  EXPECT_FALSE(names(root_of(ex().explain(no_driver, &nvidia)), "wrong-vendor-build"));
  EXPECT_FALSE(names(root_of(ex().explain(no_driver)), "wrong-vendor-build"));
  // A cause the vendor does not change (out of memory) stays as it is.
  const auto oom = ex().explain("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", &amd);
  EXPECT_FALSE(names(root_of(oom), "wrong-vendor-build"));
}

// The paste can say it too: an AMD GPU named (a gfx target, a Radeon, ROCm) and no NVIDIA product.
TEST(ExplainStory, ThePasteTellsAWrongVendorBuild) {
  const std::string no_driver =
      "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
      "from http://www.nvidia.com/Download/index.aspx\n";
  // "AMD Radeon GTX 6750": a user's slip for an RX card; an NVIDIA word right after "Radeon"/"AMD" names no NVIDIA GPU.
  for (const char* amd : {"I run the rocm7 image on an AMD APU (gfx1150, Radeon 890M)\n", "GPU: AMD Radeon RX 7900 XTX\n",
                          "I'm on Ubuntu 22.04 and using an  AMD Radeon GTX 6750 GPU.\n"}) {
    const auto m = ex().explain(amd + no_driver);
    const ExplainMatch* r = root_of(m);
    ASSERT_TRUE(r && !r->root.empty()) << amd << roots(m);
    EXPECT_EQ(r->root.front(), "wrong-vendor-build") << amd;
    EXPECT_NE(r->fix.front().find("ROCm"), std::string::npos) << r->fix.front();
  }
  // An NVIDIA product in the paste, or no GPU named at all: the driver stays the question.
  EXPECT_FALSE(names(root_of(ex().explain("GPU: NVIDIA GeForce RTX 3090 (Radeon drivers removed)\n" + no_driver)),
                     "wrong-vendor-build"));
  EXPECT_FALSE(names(root_of(ex().explain("Radeon 780M iGPU beside a GeForce GTX 1650 laptop GPU\n" + no_driver)),
                     "wrong-vendor-build"));
  EXPECT_FALSE(names(root_of(ex().explain(no_driver)), "wrong-vendor-build"));
  // The AMD stack's own "no device" is about the AMD GPU, not a CUDA build on it.
  for (const char* amd_line : {"ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected",
                               "rocm_smi_lib: ERROR: No AMD GPU found"}) {
    const auto m = ex().explain(std::string(amd_line) + "\nDevice: AMD Radeon RX 6700 XT (gfx1031)\n");
    EXPECT_TRUE(names(root_of(m), "no-gpu-visible")) << amd_line << ": " << roots(m);
    EXPECT_FALSE(names(root_of(m), "wrong-vendor-build")) << amd_line << ": " << roots(m);
  }
}

TEST(ExplainStory, AnUncataloguedFailureLineNamesItsConditionByItsWords) {
  const std::vector<std::pair<const char*, const char*>> fires = {
      {"FooLibError: Your GPU (compute capability 3.5) is not supported by this build of FooLib", "arch-unsupported"},
      {"FooLib: the NVIDIA driver installed on this machine is too old for this release", "driver-too-old"},
      {"FooError: failed to allocate 2.00 GiB of GPU memory for the frob buffer", "out-of-memory"},
      {"FooError: cannot allocate memory for the 4 GiB staging buffer in host memory", "host-out-of-memory"},
      {"FooError: foo.xpu() is unavailable: torch was built without XPU support", "cpu-only-build"},
      {"fooctl: open /dev/nvidiactl: permission denied", "nvidia-device-permission"},
      {"fooctl: cannot open /dev/kfd: Permission denied", "rocm-permission"},
      {"FooRuntimeError: no GPU found on this host", "no-gpu-visible"},
      {"rocm_smi_lib: ERROR: No AMD GPU found", "no-gpu-visible"},
      {"fooloader: worker 3 died with a bus error: /dev/shm is too small", "dataloader-shm"},
      {"FooError: no CUDA support in this torch package (a CPU-only build)", "cpu-only-build"},
      {"FooError: frob_kernel: foolib has no CUDA support compiled in", "cuda-ext-not-built"},
      {"RuntimeError: foo: the allreduce on rank 3 timed out after 1800 s", "nccl-timeout"},
      {"foo: c10d rendezvous: connection refused by 10.0.0.1:29500", "nccl-network"},
      {"fooctl: error: the NVIDIA kernel module is not loaded", "driver-not-loaded"},
      {"Illegal instruction (core dumped)", "illegal-instruction"},
      {"FooError: bf16 is not supported on this GPU (compute capability 7.5)", "dtype-unsupported"},
      {"error: frob extension: nvcc not found; set CUDA_HOME to the CUDA toolkit", "cuda-toolkit-not-found"},
      // Real lines no row names (Launchpad/apport titles of DKMS failures, LightGBM's and Paddle's CPU-only
      // builds, YOLOv5's select_device assertion).
      {"PermissionDenied: Cannot use CUDAPlace in CPU only version, Please recompile or reinstall Paddle with CUDA support.",
       "cpu-only-build"},
      {"Title: nvidia-dkms-580 580.126.09-0ubuntu3: nvidia kernel module failed to build", "driver-build-failed"},
      {"Title: rock-dkms 2.10-14: amdgpu kernel module failed to build", "driver-build-failed"},
      {"[LightGBM] [Fatal] GPU Tree Learner was not enabled in this build.", "cpu-only-build"},
      {"AssertionError: CUDA unavailable, invalid device 0 requested", "no-gpu-visible"},
      // Fedora's akmods (negativo17/nvidia-driver#188, fedora-silverblue/issue-tracker#356), Paddle's older wording.
      {"Building and installing nvidia-kmod [FAILED]", "driver-build-failed"},
      {"Building rpms failed; see /var/cache/akmods/nvidia/590.44.01-1-for-6.17.10-300.fc43.aarch64.failed.log for details",
       "driver-build-failed"},
      {"Cannot use GPU because you have installed CPU version PaddlePaddle.", "cpu-only-build"},
      {"TypeError: BFloat16 is not supported on MPS", "dtype-unsupported"},
      // "does not support" says it too; Apple's MPS memory is GPU memory.
      {"RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.", "dtype-unsupported"},
      {"RuntimeError: MPS backend out of memory (MPS allocated: 9.01 GB, other allocations: 0 bytes, max allowed: 9.07 GB).",
       "out-of-memory"},
      // RMM's and Thrust's spelling (XGBoost, cuDF): "std::bad_alloc: out_of_memory: CUDA error at: ..."
      {"FooError: Memory allocation error on worker 0: std::bad_alloc: out_of_memory: CUDA error at: /opt/rmm/foo.hpp",
       "out-of-memory"}};
  for (const auto& [text, condition] : fires) {
    const auto m = ex().explain(text);
    ASSERT_FALSE(m.empty()) << text;
    EXPECT_TRUE(m.front().root_cause) << text;
    EXPECT_EQ(m.front().code, std::string("words.") + condition) << text;
    ASSERT_FALSE(m.front().root.empty());
    EXPECT_EQ(m.front().root.front(), condition) << text;
    EXPECT_FALSE(m.front().fix.empty()) << text;
  }
  // A generic row's line ("NCCL WARN <anything>") takes the condition its words name.
  const auto nccl = ex().explain("foo.cc:12 NCCL WARN could not grow /dev/shm/foo: No space left on device");
  ASSERT_FALSE(nccl.empty());
  ASSERT_FALSE(nccl.front().root.empty());
  EXPECT_EQ(nccl.front().root.front(), "nccl-shm") << roots(nccl);
  // The same words about something else, or on a line that does not say something failed, claim nothing.
  for (const char* text : {"ValueError: model architecture llama4 is not supported", "ERROR: the ODBC driver is too old",
                           "INFO: compute capability 8.6 is supported", "MemoryError: failed to allocate 2 GiB for the array",
                           "open /home/me/data.csv: permission denied", "WARNING: no GPU found, using the CPU instead",
                           "OSError: [Errno 28] No space left on device: '/home/me/ckpt'",
                           "requests.exceptions.ConnectionError: connection refused by api.example.com",
                           "ERROR: the download timed out", "ERROR: package foo was built without docs",
                           "ERROR: cannot allocate memory for the image cache (raise cache_mb)",
                           // a kernel module that is no GPU driver's (Wi-Fi, a file system), and a setting not enabled
                           "Title: bcmwl-kernel-source 6.30.223.271+bdcom-0ubuntu5: bcmwl kernel module failed to build",
                           "BeeGFS client kernel module failed to build due to kernel version mismatch",
                           "ERROR: telemetry is not enabled in this build of foo",
                           // another service's [FAILED], a CPU version of something that is no framework
                           "Starting nvidia-persistenced.service [FAILED]", "Building and installing v4l2loopback [FAILED]",
                           "ERROR: this CPU version of the installer cannot use the GPU driver",
                           "ValueError: bf16 timestamps are not supported by this file format",
                           "ValueError: this file format does not support bfloat16 timestamps",
                           "ERROR: the metal detector driver is out of memory"}) {
    const auto m = ex().explain(text);
    EXPECT_TRUE(std::none_of(m.begin(), m.end(), [](const explain::Match& x) { return !x.harmless; }))
        << text << ": " << roots(m);
  }
}

// Pasted through chat or a web page, ' and " become typographic quotes; the signatures still match.
TEST(ExplainStory, TypographicQuotesAreReadAsTheProgramsOwn) {
  const auto m = ex().explain(
      "Specified provider \xe2\x80\x98" "CUDAExecutionProvider\xe2\x80\x99 is not in available provider names. Available "
      "providers: \xe2\x80\x98" "AzureExecutionProvider, CPUExecutionProvider\xe2\x80\x99");
  EXPECT_TRUE(names(root_of(m), "cpu-only-build")) << roots(m);
}

// A record a terminal wrapped at its width, mid-word (nvidia/nvidia-docker#543: 136 columns, "unsatisfied condi" /
// "tion: cuda >= 9.0"), is read as one line; records of one log that happen to be as wide are not joined.
TEST(ExplainStory, ATerminalsFixedWidthWrapIsOneLineAgain) {
  const auto m = ex().explain(
      "container_linux.go:265: starting container process caused \"process_linux.go:368: container init caused \\\"process_linux.go:351: running p\n"
      "restart hook 1 caused \\\\\\\"error running hook: exit status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods\n"
      " configure --ldconfig=@/sbin/ldconfig --device=all --compute --utility --require=cuda>=9.0 --pid=36229 /data/dockerdata/devicemapper/mnt\n"
      "/ab7fe7a46710e331a8dacffa0f1f3831244d383abf819014adf6a2ba950ee189/rootfs]\\\\\\\\nnvidia-container-cli: requirement error: unsatisfied condi\n"
      "tion: cuda >= 9.0\\\\\\\\n\\\\\\\"\\\"\"");
  EXPECT_TRUE(names(root_of(m), "driver-too-old")) << roots(m);
  ASSERT_NE(root_of(m), nullptr);
  EXPECT_EQ(root_of(m)->line, 1u);
  const std::string record = "2023-01-01 10:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] "
                             "Created device /job:localhost/replica:0/task:0/device:GPU:0";
  const auto n = ex().explain(record + "\n" + record + "\n" +
                              "2023-01-01 10:00:01.1: E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Could not create "
                              "cudnn handle: CUDNN_STATUS_INTERNAL_ERROR");
  EXPECT_TRUE(names(root_of(n), "CUDNN_STATUS_INTERNAL_ERROR")) << roots(n);
  ASSERT_NE(root_of(n), nullptr);
  EXPECT_EQ(root_of(n)->line, 3u);
}

// A JSON or Go log escapes the program's quotes ("device \"/dev/nvidia0\""); they are read as plain quotes.
// And a paste hard-wrapped at a fixed width is read across the break when the next line continues it.
TEST(ExplainStory, EscapedQuotesAndHardWrappedLinesAreReadAsPrinted) {
  const auto escaped = ex().explain(
      "level=error msg=\"error gathering device information while adding custom device \\\"/dev/nvidia0\\\": lstat "
      "/dev/nvidia0: no such file or directory\"");
  EXPECT_TRUE(names(root_of(escaped), "driver-not-loaded")) << roots(escaped);
  // A backslash before anything else stays: a Windows path is not changed into something that matches.
  const auto path = ex().explain("C:\\Users\\me\\train.py: error: unrecognized arguments: --foo");
  EXPECT_FALSE(claims_failure(path)) << roots(path);
  const auto wrapped = ex().explain(
      "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n"
      "error. It is possible that dataloader's workers are out of shared\n"
      "memory. Please try to raise your shared memory limit.");
  EXPECT_TRUE(names(root_of(wrapped), "dataloader-shm")) << roots(wrapped);
  // Not across a line that starts a new statement (a capital, an indented traceback line).
  const auto split = ex().explain(
      "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n"
      "    error = compute()\n");
  EXPECT_FALSE(names(root_of(split), "dataloader-shm")) << roots(split);
}

// A line that says the program goes on without something is a notice, not a failure.
TEST(ExplainStory, GoingOnWithoutSomethingIsANotice) {
  for (const char* t : {"No module 'xformers'. Proceeding without it.",
                        "Attention mode 'softmax-xformers' is not available. Falling back to native attention.",
                        "tf.nn.fused_batch_norm is deprecated. Please use tf.compat.v1.nn.fused_batch_norm instead",
                        "[foo.py:80] Your GPU does not have native support for FP4. Emulation will be used. This may degrade "
                        "performance.",
                        "UserWarning: frob strides do not match. This is not an error, but may impair performance.",
                        "UserWarning: the frob layout changed since the module was built",  // "hang" is not in "changed"
                        // no level marker; the message says it may be ignored
                        "Frob cache not found, rebuilding it; if you did not set FROB_HOME you can ignore this message.",
                        // Warnings that say they can be ignored or turned off (vLLM, with its own spelling; ONNX
                        // Runtime's "[W:onnxruntime:" level).
                        "(VllmWorkerProcess pid=528) WARNING 04-12 07:54:01 [triton_decode_attention.py:44] The "
                        "following error message 'operation scheduled before its operands' can be ignored.",
                        "WARNING 01-30 21:39:03 custom_all_reduce.py:33] Custom allreduce is disabled due to an "
                        "unsupported world size: 1. Supported world sizes: [2, 4, 6, 8]. To slience this warning, "
                        "specifydisable_custom_all_reduce=True explicitly.",
                        "2021-03-10 19:03:59.3618026 [W:onnxruntime:, inference_session.cc:411 "
                        "onnxruntime::InferenceSession::RegisterExecutionProvider] Having memory pattern enabled is not "
                        "supported while using the DML Execution Provider. So disabling it for this session since it "
                        "uses the DML Execution Provider."}) {
    const auto m = ex().explain(t);
    ASSERT_FALSE(m.empty()) << t;
    EXPECT_FALSE(claims_failure(m)) << t << ": " << roots(m);
  }
  EXPECT_TRUE(ex().explain("Falling back to CPU: Traceback (most recent call last):").empty());
  // An error line, not a warning, that says something "can be ignored" is still an error line.
  EXPECT_TRUE(claims_failure(ex().explain("RuntimeError: CUDA error: out of memory (the first attempt can be ignored)")));
}

// What to do if something fails is not a failure, and a command the user typed or a shell traced
// is not output: neither keeps warning-level lines from being a notice.
TEST(ExplainStory, ConditionalsAndTypedCommandsDoNotSayAFailure) {
  for (const char* t :
       {"WARNING: the installer had to guess the module path. If X fails to find the module, install pkg-config.",
        "+ curl -fsSL --retry-connrefused --retry 10 https://example.com/x.run -o x.run\n"
        "WARNING: foo is deprecated and will be removed in 2.0",
        "root@gpu-node:~# modprobe foo --fail-on-error\nWARNING: foo is deprecated",
        "PS C:\\Users\\me> python missing_check.py\nUserWarning: foo is deprecated",
        "C:\\work>python train.py --no-fail\nWARNING: foo is deprecated",
        // an environment's name before the prompt
        "(base) C:\\Users\\me>python missing_check.py\nUserWarning: foo is deprecated",
        "(my-env) me@host:~$ python fail_fast.py\nWARNING: foo is deprecated"}) {
    const auto m = ex().explain(t);
    ASSERT_FALSE(m.empty()) << t;
    EXPECT_FALSE(claims_failure(m)) << t << ": " << roots(m);
  }
  // A failure said outright, or a program's own line that merely starts like a path, still counts.
  for (const char* t : {"WARNING: the frob plugin failed to load; if needed, reinstall it",
                        "C:\\work\\run.py: foo failed with exit code 3",
                        "user@host: connection to the frob service failed",
                        "(note) the frob service failed to start"})
    EXPECT_TRUE(ex().explain(t).empty()) << t << ": " << roots(ex().explain(t));
}

// The literal automaton behind the prefilter: every occurrence, overlapping ones and a literal
// inside another included, in the small (16-bit) table and the large one alike.
TEST(LiteralSet, FindsEveryOccurrenceInSmallAndLargeTables) {
  auto check = [](size_t filler_literals, size_t dense_rows) {
    explain::LiteralSet set;
    set.add("cudnn", 1);
    set.add("libcudnn.so", 2);
    set.add("nn.s", 3);  // inside "libcudnn.so": found through the suffix (dictionary) links
    set.add("aaa", 4);
    std::mt19937 rng(7);
    for (size_t i = 0; i < filler_literals; ++i) {  // random 24-letter literals over 'q'..'z' grow the trie
      std::string lit;
      for (int c = 0; c < 24; ++c) lit += static_cast<char>('q' + rng() % 10);
      set.add(lit, 100);
    }
    set.build(dense_rows);
    const std::string text = "could not load libcudnn.so.9: aaaa";
    std::multiset<std::pair<uint32_t, size_t>> got;
    for (const auto& h : set.find_all(text)) got.insert({h.id, h.end});
    const std::multiset<std::pair<uint32_t, size_t>> want = {{1, 23}, {2, 26}, {3, 25}, {4, 33}, {4, 34}};
    EXPECT_EQ(got, want) << filler_literals << " filler literals, " << dense_rows << " dense rows";
    EXPECT_TRUE(set.contains_any("xx libcudnn"));
    EXPECT_FALSE(set.contains_any("cudn aa nn."));
    std::vector<explain::LiteralSet::Hit> buffer(3, {9, 9, 9});
    set.find_all("nothing here", buffer);  // the buffer is emptied first
    EXPECT_TRUE(buffer.empty());
  };
  check(0, explain::LiteralSet::kDenseRows);      // a few dozen nodes: every node has a full row
  check(20000, explain::LiteralSet::kDenseRows);  // ~480,000 nodes: most only children and fail links
  check(0, 1);                                    // only the root's row: every other move by fail links
  check(20000, 1);
}

// The automaton against the plain definition (every start position, every literal), on literals and
// texts over a small alphabet where they overlap, nest and share suffixes all the time, at every
// split between full rows and fail links.
TEST(LiteralSet, AgreesWithSearchingEveryLiteralEverywhere) {
  std::mt19937 rng(11);
  auto word = [&](size_t max_len) {
    std::string w(1 + rng() % max_len, 'a');
    for (auto& ch : w) ch = "abcab-."[rng() % 7];
    return w;
  };
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> lits;
    const size_t n = 1 + rng() % 40;
    for (size_t i = 0; i < n; ++i) lits.push_back(word(6));
    std::string text;
    for (int i = 0; i < 20; ++i) text += word(8) + (rng() % 3 ? "" : "xyz ");  // x, y, z: bytes no literal holds
    std::multiset<std::pair<uint32_t, size_t>> want;
    for (uint32_t id = 0; id < lits.size(); ++id)
      for (size_t at = text.find(lits[id]); at != std::string::npos; at = text.find(lits[id], at + 1))
        want.insert({id, at + lits[id].size()});
    for (size_t dense_rows : {size_t{1}, size_t{2}, size_t{5}, size_t{30}, explain::LiteralSet::kDenseRows}) {
      explain::LiteralSet set;
      for (uint32_t id = 0; id < lits.size(); ++id) set.add(lits[id], id);
      set.build(dense_rows);
      std::multiset<std::pair<uint32_t, size_t>> got;
      for (const auto& h : set.find_all(text)) {
        got.insert({h.id, h.end});
        EXPECT_EQ(h.length, lits[h.id].size());
      }
      EXPECT_EQ(got, want) << "round " << round << ", " << dense_rows << " dense rows, text " << text;
      EXPECT_EQ(set.contains_any(text), !want.empty());
    }
  }
}

// TensorFlow's start-up probe for TensorRT is harmless, unless TF-TRT then dies on it (a fatal-level
// line of tf2tensorrt).
TEST(ExplainLibraries, TensorrtIsOptionalUntilTfTrtDiesOnIt) {
  const std::string probe =
      "2020-12-01 15:51:57.000001: W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library "
      "'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open shared object file: No such file or directory\n";
  const auto quiet = ex().explain(probe);
  ASSERT_FALSE(quiet.empty());
  EXPECT_FALSE(claims_failure(quiet)) << roots(quiet);
  const auto dies = ex().explain(probe +
                                 "2020-12-01 15:51:57.871503: F tensorflow/compiler/tf2tensorrt/stub/nvinfer_stub.cc:49] "
                                 "getInferLibVersion symbol not found.\nAborted (core dumped)\n");
  EXPECT_TRUE(claims_failure(dies)) << roots(dies);
  EXPECT_TRUE(names(root_of(dies), "libnvinfer.so.6")) << roots(dies);
  // An info line that merely names tf2tensorrt does not make TensorRT required.
  const auto info = ex().explain(probe + "2020-12-01 15:51:58.000001: I tensorflow/compiler/tf2tensorrt/common/utils.cc:106] "
                                         "Linked TensorRT version: 0.0.0\n");
  EXPECT_FALSE(claims_failure(info)) << roots(info);
}

// "No GPU is seen" is a symptom: a later line that says why (the user may not open /dev/kfd) is the
// cause. Without such a line, or with a later failure that is no such reason, the symptom stays the root.
TEST(ExplainStory, ANoDeviceSymptomGivesWayToTheLaterLineThatSaysWhy) {
  const auto m = ex().explain(
      "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\nrocminfo\nROCk module is loaded\n"
      "Unable to open /dev/kfd read-write: Permission denied\n");
  EXPECT_TRUE(names(root_of(m), "rocm-permission")) << roots(m);
  const auto alone = ex().explain("ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n");
  EXPECT_TRUE(names(root_of(alone), "no-gpu-visible")) << roots(alone);
  // A later line that is another failure, not a reason for the missing device, does not take over.
  const auto other = ex().explain(
      "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  EXPECT_TRUE(names(root_of(other), "no-gpu-visible")) << roots(other);
}

// The NVIDIA installer's "Unable to load the kernel module" lists every possible reason; the kernel's line after it
// says which (NVIDIA/nvidia-docker#189: the drm symbols of a cloud kernel's extra modules are missing).
TEST(ExplainStory, TheInstallersLoadFailureGivesWayToTheKernelsReason) {
  const std::string installer =
      "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was built "
      "against the wrong or improperly configured kernel sources, with a version of gcc that differs from the one used to "
      "build the target kernel, or if a driver such as rivafb, nvidiafb, or nouveau is present and prevents the NVIDIA "
      "kernel module from obtaining ownership of the NVIDIA graphics device(s).\n";
  const auto m = ex().explain(installer + "[ 1291.199013] nvidia: Unknown symbol drm_gem_prime_handle_to_fd (err 0)\n");
  ASSERT_TRUE(root_of(m)) << roots(m);
  EXPECT_EQ(root_of(m)->code, "nvrm.unknown-symbol-kernel-deps") << roots(m);
  // Alone, the installer's line is still the answer; a later failure that is no reason does not take over.
  EXPECT_EQ(root_of(ex().explain(installer))->code, "nvidia-installer.module-load-failed");
  const auto other = ex().explain(installer + "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  EXPECT_EQ(root_of(other)->code, "nvidia-installer.module-load-failed") << roots(other);
}

// An NCCL result says only that NCCL failed; the NCCL warning PyTorch repeats after "Last error:" (without its
// "NCCL WARN ", behind srun --label's "10: " here: awslabs/awsome-distributed-ai#192) says why, and is the root.
TEST(ExplainStory, AnNcclResultGivesWayToTheReasonItsLastErrorNames) {
  const std::string result =
      "10: torch.distributed.DistBackendError: NCCL error in: /opt/conda/conda-bld/pytorch_1696588393313/work/torch/csrc/"
      "distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL "
      "version 2.18.5\n10: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
      "error.\n";
  const auto m = ex().explain(result + "10: Last error:\n10: socketStartConnect: Connect to 127.0.0.1<45069> failed : "
                                       "Software caused connection abort\n");
  ASSERT_NE(root_of(m), nullptr);
  EXPECT_TRUE(names(root_of(m), "nccl-network")) << roots(m);
  // The evidence is the line as pasted, without what explain read into it.
  EXPECT_EQ(root_of(m)->evidence.front(),
            "your text: 10: socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused connection abort");
  // Unprefixed, the same; and a reason printed before the result (the NCCL WARN line itself) too.
  const auto plain = ex().explain("NCCL error in: ProcessGroupNCCL.cpp:1970, internal error, NCCL version 2.14.3\n"
                                  "ncclInternalError: Internal check failed.\nLast error:\n"
                                  "Net : Connect to 10.1.1.5<44317> failed : No route to host\n");
  EXPECT_TRUE(names(root_of(plain), "nccl-network")) << roots(plain);
  // The result alone stays the result; a "Last error:" of something else is read as it is.
  EXPECT_TRUE(names(root_of(ex().explain(result)), "ncclSystemError"));
  const auto other = ex().explain("Windows Update: Last error:\nsocketStartConnect: Connect to x failed : timed out\n");
  EXPECT_FALSE(claims_failure(other)) << roots(other);
}

// NCCL quotes the CUDA error behind its own result ("Cuda failure '<CUDA's message>'"): that CUDA code, and the
// condition it carries (802 on an NVSwitch machine: the fabric manager), join the NCCL result's root.
TEST(ExplainCodes, TheCudaErrorNcclQuotesIsDecodedToo) {
  const auto m = ex().explain("ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'system not "
                              "yet initialized'\n");
  EXPECT_TRUE(names(root_of(m), "cudaErrorSystemNotReady")) << roots(m);
  EXPECT_TRUE(names(root_of(m), "fabric-manager")) << roots(m);
  const auto one_line = ex().explain(
      "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 'system not yet initialized'");
  EXPECT_TRUE(names(root_of(one_line), "fabric-manager")) << roots(one_line);
  EXPECT_TRUE(names(root_of(one_line), "ncclUnhandledCudaError")) << roots(one_line);
  // Without NCCL's "Cuda failure", a CUDA message on an NCCL result's line is not read into it.
  const auto other = ex().explain("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
                                  "device error. out of memory");
  EXPECT_FALSE(names(root_of(other), "cudaErrorMemoryAllocation")) << roots(other);
}

// A generic row (a fallback naming no cause) yields to a specific row that matches the same line further on:
// the prestart hook's "error running hook: exit status 1" holds nvidia-container-cli's own reason
// (NVIDIA/nvidia-docker#885, RKE bind-mounting the host's /run).
TEST(ExplainStory, AGenericRowYieldsToASpecificOneOnTheSameLine) {
  const auto m = ex().explain(
      "docker: Error response from daemon: oci runtime error: container_linux.go:247: starting container process caused "
      "\"process_linux.go:337: running prestart hook 1 caused \\\"error running hook: exit status 1, stdout: , stderr: exec "
      "command: [/usr/bin/nvidia-container-cli --load-kmods configure --ldconfig=@/sbin/ldconfig.real --device=all "
      "--utility --pid=22744 /var/lib/docker/overlay2/6e3fd9db295dc3b2e3021c713a797b69ae3ea9dfc8ae260f38d6e0e30386bc13/"
      "merged]\\\\nnvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
      "6e3fd9db295dc3b2e3021c713a797b69ae3ea9dfc8ae260f38d6e0e30386bc13/merged/run/nvidia-persistenced/socket: no such "
      "device or address\\\\n\\\"\".\n");
  EXPECT_TRUE(names(root_of(m), "container-run-bind-mount")) << roots(m);
  // Alone, the generic row still answers.
  const auto alone = ex().explain(
      "process_linux.go:337: running prestart hook 1 caused \"error running hook: exit status 1, stdout: , stderr: exec "
      "command: [/usr/bin/nvidia-container-cli --load-kmods configure --device=all --utility --pid=22744]\"\n");
  ASSERT_FALSE(alone.empty());
  EXPECT_EQ(alone.front().code, "container.prestart-hook-failed");
}

// A program that states the oldest GPU it runs on ("requires 5.0 capability", "only supports AMD MI200 GPUs or
// newer") names arch-unsupported, after the specific rows; a Python or CUDA version "or newer" is not a GPU.
TEST(ExplainStory, AStatedMinimumCapabilityIsTheArchitecture) {
  for (const char* t : {"RuntimeError: FlashAttention only supports AMD MI200 GPUs or newer.",
                        "GPU #0: FATAL: the 't' kernel requires 5.0 capability!",
                        "ValueError: this kernel needs compute capability >= 7.0",
                        "RuntimeError: fused_adam requires sm_80 or newer"}) {
    const auto m = ex().explain(t);
    EXPECT_TRUE(names(root_of(m), "arch-unsupported")) << t << ": " << roots(m);
  }
  // The specific row keeps its line.
  const auto fa = ex().explain("RuntimeError: FlashAttention only supports Ampere GPUs or newer.");
  ASSERT_FALSE(fa.empty());
  EXPECT_EQ(fa.front().code, "flashattn.needs-ampere");
  for (const char* t : {"ERROR: this package only supports Python 3.9 or newer", "vllm requires CUDA 12.1 or newer",
                        "The GPU has compute capability 8.6 and 24 GiB", "requires 2 GPUs or more"})
    EXPECT_FALSE(names(root_of(ex().explain(t)), "arch-unsupported")) << t;
}

// Optional accelerator packages that are missing are notices (xformers, TensorRT passes), and so is Open MPI
// taking another transport.
TEST(ExplainStory, OptionalPackagesAndFallbackTransportsAreNotices) {
  for (const char* t : {"Xformers is not installed correctly. If you want to use memory_efficient_attention to "
                        "accelerate training use the following command to install Xformers",
                        "WARNING  TensorRT pass is unavailable because the following dependencies are not installed: "
                        "tensorrt, pycuda.",
                        "[gpu004:10178] 4 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics"}) {
    const auto m = ex().explain(t);
    ASSERT_FALSE(m.empty()) << t;
    EXPECT_FALSE(claims_failure(m)) << t << ": " << roots(m);
  }
}

// A library the tables do not know, missed on a debug/info/warning line or its indented continuation, is the
// program going on without it (immich-app/immich#12789); a GPU library on a warning line is still the failure.
TEST(ExplainStory, AnUnknownLibraryOnANoticeLineIsNotAFailure) {
  const auto m = ex().explain(
      "DEBUG    Could not load ANN shared libraries, using ONNX:\n"
      "                                libmali.so: cannot open shared object file: No such\n"
      "                                file or directory\n");
  EXPECT_FALSE(claims_failure(m)) << roots(m);
  EXPECT_FALSE(ex().explain("libmali.so: cannot open shared object file: No such file or directory\n").empty());
  const auto cudart = ex().explain(
      "2021-03-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
      "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory\n");
  EXPECT_TRUE(claims_failure(cudart)) << roots(cudart);
}

// PyTorch's out-of-memory line carries the sizes that tell a request larger than the whole GPU, a fragmented
// cache, memory held outside PyTorch and a model too large apart; each gets its own fix first.
TEST(ExplainMemory, TheOutOfMemoryLineSaysWhereTheMemoryWent) {
  auto first_fix = [](const std::string& text) {
    const auto m = ex().explain(text);
    const auto* r = root_of(m);
    return r && !r->fix.empty() ? r->fix.front() : std::string();
  };
  auto decoded = [](const std::string& text, const std::string& what) {
    const auto m = ex().explain(text);
    const auto* r = root_of(m);
    return r && std::any_of(r->evidence.begin(), r->evidence.end(),
                            [&](const std::string& e) { return e.find(what) != std::string::npos; });
  };
  // ComfyUI#11264 (ROCm): 333 GiB asked of a 16 GiB GPU.
  const std::string huge =
      "HIP out of memory. Tried to allocate 333.38 GiB. GPU 0 has a total capacity of 15.92 GiB of which 7.28 GiB is free. "
      "Of the allocated memory 8.22 GiB is allocated by PyTorch, and 19.88 MiB is reserved by PyTorch but unallocated.";
  EXPECT_TRUE(decoded(huge, "more than the GPU's whole memory (15.92 GiB)")) << roots(ex().explain(huge));
  EXPECT_NE(first_fix(huge).find("single tensor larger than this GPU"), std::string::npos) << first_fix(huge);
  const std::string fragmented =
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 14.75 GiB "
      "of which 3.06 MiB is free. Of the allocated memory 12.60 GiB is allocated by PyTorch, and 1.53 GiB is reserved by "
      "PyTorch but unallocated.";
  EXPECT_NE(first_fix(fragmented).find("expandable_segments:True"), std::string::npos) << first_fix(fragmented);
  // The format before PyTorch 2.1: 3.2 GiB of 23.65 GiB is PyTorch's, 1 GiB free: the rest is someone else's.
  const std::string others =
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity; 3.10 GiB already "
      "allocated; 1.02 GiB free; 3.20 GiB reserved in total by PyTorch)";
  EXPECT_TRUE(decoded(others, "19.43 GiB is in use outside")) << roots(ex().explain(others));
  EXPECT_NE(first_fix(others).find("nvidia-smi"), std::string::npos) << first_fix(others);
  const std::string full =
      "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 7.79 GiB total capacity; 6.90 GiB already "
      "allocated; 100.00 MiB free; 6.95 GiB reserved in total by PyTorch)";
  EXPECT_TRUE(decoded(full, "PyTorch itself holds 6.90 GiB")) << roots(ex().explain(full));
  // Without the sizes nothing is decoded, and the usual fixes stay first.
  EXPECT_FALSE(decoded("RuntimeError: CUDA out of memory.", "decoded: one request"));
  EXPECT_FALSE(decoded("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", "decoded: one request"));
}

// An AMD failure on a gfx target no ROCm release lists is that target first, with the override as an
// unofficial workaround; an override set on a target ROCm lists from a later release says which ROCm
// has its own kernels; a supported target and a non-AMD failure are left as they are.
TEST(ExplainRocm, AGfxTargetNoRocmListsIsTheRootOfAnAmdFault) {
  const std::string fault =
      "Memory access fault by GPU node-1 (Agent handle: 0x55d0c6a0e1e0) on address 0x7f1c2c000000. Reason: Page not present "
      "or supervisor privilege.\n";
  const auto m = ex().explain(fault + "  Name:                    gfx1031\n");
  ASSERT_NE(root_of(m), nullptr);
  EXPECT_TRUE(names(root_of(m), "arch-unsupported")) << roots(m);
  ASSERT_FALSE(root_of(m)->fix.empty());
  EXPECT_NE(root_of(m)->fix.front().find("HSA_OVERRIDE_GFX_VERSION=10.3.0"), std::string::npos) << root_of(m)->fix.front();
  // By product name when no target is printed.
  EXPECT_TRUE(names(root_of(ex().explain(fault + "My card: Radeon RX 6700 XT\n")), "arch-unsupported"));
  // As people type it: no space after RX or before XT.
  for (const char* card : {"GPU: RX6700XT\n", "rx 6700xt 12GB\n", "Sapphire RX6600 8G\n"})
    EXPECT_TRUE(names(root_of(ex().explain(fault + card)), "arch-unsupported")) << card;
  // A number that only looks like one ("RX 67000 packets", "prx6700xt") is no card.
  for (const char* other : {"RX 67000 packets\n", "see prx6700xt.log\n"})
    EXPECT_FALSE(names(root_of(ex().explain(fault + other)), "arch-unsupported")) << other;
  // A list of the targets a library ships names supported ones; the GPU's own is the odd one out.
  const auto tensile = ex().explain(
      "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch : gfx1032\n"
      " List of available TensileLibrary Files : \n\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\n");
  ASSERT_NE(root_of(tensile), nullptr);
  EXPECT_TRUE(std::any_of(root_of(tensile)->evidence.begin(), root_of(tensile)->evidence.end(),
                          [](const std::string& e) { return e.find("gfx1032") != std::string::npos; }))
      << roots(tensile);
  // An override in play on a target ROCm lists from 7.12: drop it, use that ROCm.
  const auto apu = ex().explain("HSA_OVERRIDE_GFX_VERSION=11.0.0 python x.py\n" + fault + "GPU: Radeon 780M gfx1103\n");
  EXPECT_TRUE(names(root_of(apu), "arch-unsupported")) << roots(apu);
  ASSERT_NE(root_of(apu), nullptr);
  EXPECT_NE(root_of(apu)->fix.front().find("7.12"), std::string::npos) << root_of(apu)->fix.front();
  // Silent: a supported target, and a failure that is not a fault or a missing kernel.
  EXPECT_FALSE(names(root_of(ex().explain(fault + " AMD Radeon RX 7900 XTX gfx1100\n")), "arch-unsupported"));
  EXPECT_FALSE(names(root_of(ex().explain(
                         "torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 gfx1031\n")),
                     "arch-unsupported"));
  // "gfx" inside another word is no target.
  EXPECT_FALSE(names(root_of(ex().explain(fault + "see mygfx1031x.log\n")), "arch-unsupported"));
  // The GPU unnamed but an override set: the override is the first suspect of a fault, not of running out of memory.
  const auto forced = ex().explain("export HSA_OVERRIDE_GFX_VERSION=10.3.0\n" + fault);
  EXPECT_TRUE(names(root_of(forced), "rocm-gfx-override")) << roots(forced);
  EXPECT_NE(root_of(forced)->fix.front().find("rocminfo"), std::string::npos) << root_of(forced)->fix.front();
  EXPECT_FALSE(names(root_of(ex().explain(fault)), "rocm-gfx-override"));
  EXPECT_FALSE(names(root_of(ex().explain("HSA_OVERRIDE_GFX_VERSION=10.3.0\ntorch.cuda.OutOfMemoryError: HIP out of memory. "
                                          "Tried to allocate 2.00 GiB.\n")),
                     "rocm-gfx-override"));
  // A target ROCm never listed, forced to another: both the target and the override.
  const auto both = ex().explain("HSA_OVERRIDE_GFX_VERSION=10.3.0\n" + fault + "  Name: gfx1031\n");
  EXPECT_TRUE(names(root_of(both), "arch-unsupported")) << roots(both);
  EXPECT_TRUE(names(root_of(both), "rocm-gfx-override")) << roots(both);
}


// ---- environment reports: parse/env_report.h read, doctor/pasted_env.h judge ---------------------
// Real reports from public threads: what they state, and what the doctor's rules make of it.

namespace {

std::vector<ExplainMatch> paste(const std::string& text) {
  return explain_paste(ex(), knowledge::Compat::embedded(), text, nullptr);
}

bool root_has(const ExplainMatch& m, const std::string& condition) {
  return std::find(m.root.begin(), m.root.end(), condition) != m.root.end();
}

// pytorch/pytorch#43058: collect_env of torch 1.6.0 (CUDA 10.2) under driver 418.67 (CUDA <= 10.1).
const char* kCollectEnvOldDriver = R"(-torch.cuda.is_available() returns:
False

 -python -m torch.utils.collect_env returns:

Collecting environment information...
PyTorch version: 1.6.0
Is debug build: No
CUDA used to build PyTorch: 10.2

OS: Red Hat Enterprise Linux Server 7.6 (Maipo)
GCC version: (GCC) 4.8.5 20150623 (Red Hat 4.8.5-36)
CMake version: Could not collect

Python version: 3.7
Is CUDA available: No
CUDA runtime version: Could not collect
GPU models and configuration:
GPU 0: Tesla V100-PCIE-16GB
GPU 1: Tesla V100-PCIE-16GB

Nvidia driver version: 418.67
cuDNN version: Could not collect
)";

// A Hugging Face env list under a TensorFlow log that names the GPU (a public notes file): torch is
// the CPU wheel on a machine whose RTX 3070 TensorFlow uses.
const char* kHfEnvCpuTorch = R"(2023-07-10 02:48:31.226114: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /device:GPU:0 with 5471 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 3070 Laptop GPU, pci bus id: 0000:01:00.0, compute capability: 8.6

Copy-and-paste the text below in your GitHub issue and FILL OUT the two last points.

- `transformers` version: 4.31.0.dev0
- Platform: Windows-10-10.0.22621-SP0
- Python version: 3.8.5
- Huggingface_hub version: 0.15.1
- Safetensors version: 0.3.1
- PyTorch version (GPU?): 2.0.1+cpu (False)
- Tensorflow version (GPU?): 2.10.1 (True)
- Flax version (CPU?/GPU?/TPU?): not installed (NA)
- Jax version: not installed
- JaxLib version: not installed
- Using GPU in script?: <fill in>
)";

// pytorch/pytorch#51858 (a comment): everything works; the report is there because the issue asks for it.
const char* kCollectEnvWorking = R"(PyTorch version: 2.0.1+cu117
Is debug build: False
CUDA used to build PyTorch: 11.7
ROCM used to build PyTorch: N/A

OS: Microsoft Windows 11 Pro
GCC version: Could not collect
Clang version: Could not collect
CMake version: Could not collect
Libc version: N/A

Python version: 3.9.16 (main, May 17 2023, 17:49:16) [MSC v.1916 64 bit (AMD64)] (64-bit runtime)
Python platform: Windows-10-10.0.22621-SP0
Is CUDA available: True
CUDA runtime version: 11.7.64
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: NVIDIA GeForce GTX 1050 Ti
Nvidia driver version: 535.98
cuDNN version: C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.7\bin\cudnn_ops_train64_8.dll
HIP runtime version: N/A
)";

// A pytorch/pytorch bug report about torch.ldexp under Inductor (2026): a CPU-only machine, where no
// GPU is the machine as it is, not a failure.
const char* kCollectEnvCpuMachine = R"(PyTorch version: 2.14.0+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Microsoft Windows 11 Pro for Workstations (10.0.26200 64-bit)
GCC version: Could not collect
Clang version: Could not collect
CMake version: Could not collect
Libc version: N/A

Python version: 3.14.7 (tags/v3.14.7:823f032, Aug  5 2026, 10:51:32) [MSC v.1944 64 bit (AMD64)] (64-bit runtime)
Python platform: Windows-11-10.0.26200-SP0
Is CUDA available: False
CUDA runtime version: No CUDA
GPU models and configuration: No CUDA
Is XPU available: False
Is XNNPACK available: False
)";

// A project's status notes (public): the RTX 4090 machine's interpreter, asked by hand.
const char* kSessionCpuWheel = R"(>>> import torch
>>> torch.cuda.is_available()
False
>>> torch.__version__
'2.9.1+cpu'  # CPU-ONLY BUILD!
)";

}  // namespace

TEST(ExplainEnvReport, ReadsCollectEnv) {
  const auto r = parse::read_env_report(kCollectEnvOldDriver);
  EXPECT_EQ(r.os_family, "linux");
  EXPECT_EQ(r.driver_version, "418.67");
  EXPECT_EQ(r.python_version, "3.7");
  ASSERT_EQ(r.gpus.size(), 1u);  // the same product twice is one
  EXPECT_EQ(r.gpus[0], "Tesla V100-PCIE-16GB");
  ASSERT_EQ(r.frameworks.size(), 1u);
  const auto& f = r.frameworks[0];
  EXPECT_EQ(f.framework, "pytorch");
  EXPECT_EQ(f.version, "1.6.0");
  EXPECT_EQ(f.built_cuda.value_or("?"), "10.2");
  ASSERT_TRUE(f.sees_gpu.has_value());  // "No", the older collect_env's word
  EXPECT_FALSE(*f.sees_gpu);
  EXPECT_FALSE(r.no_nvidia_said);
}

TEST(ExplainEnvReport, ReadsHuggingFaceListsSessionsAndNvidiaSmi) {
  const auto hf = parse::read_env_report(kHfEnvCpuTorch);
  EXPECT_EQ(hf.os_family, "windows");
  ASSERT_EQ(hf.gpus.size(), 1u);
  EXPECT_EQ(hf.gpus[0], "NVIDIA GeForce RTX 3070 Laptop GPU");
  ASSERT_EQ(hf.frameworks.size(), 2u);
  EXPECT_EQ(hf.frameworks[0].version, "2.0.1+cpu");
  EXPECT_EQ(hf.frameworks[0].sees_gpu, std::optional<bool>(false));
  EXPECT_EQ(hf.frameworks[1].framework, "tensorflow");
  EXPECT_EQ(hf.frameworks[1].sees_gpu, std::optional<bool>(true));

  const auto s = parse::read_env_report(kSessionCpuWheel);
  ASSERT_EQ(s.frameworks.size(), 1u);
  EXPECT_EQ(s.frameworks[0].version, "2.9.1+cpu");
  EXPECT_EQ(s.frameworks[0].sees_gpu, std::optional<bool>(false));
  EXPECT_EQ(s.frameworks[0].line, 2u);

  // The machine facts a paste states: the driver and the one GPU model.
  auto expect_machine = [](const parse::EnvReport& r, const char* driver, const char* gpu) {
    EXPECT_EQ(r.driver_version, driver);
    ASSERT_EQ(r.gpus.size(), 1u);
    EXPECT_EQ(r.gpus[0], gpu);
  };
  // nvidia-smi's table (pytorch/pytorch#43058's reporter pasted it under the report).
  const auto smi = parse::read_env_report(
      "| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |\n"
      "|   0  Tesla V100-PCIE...  Off  | 00000000:3B:00.0 Off |                    0 |\n");
  expect_machine(smi, "418.67", "Tesla V100-PCIE...");
  EXPECT_TRUE(smi.empty());  // machine facts alone: nothing about a framework to judge
  // nvidia-smi --query-gpu=... --format=csv: the header names the columns (two real outputs).
  expect_machine(parse::read_env_report("name, driver_version, memory.total [MiB]\nNVIDIA L40, 580.126.09, 46068 MiB\n"
                                        "NVIDIA L40, 580.126.09, 46068 MiB\n"),
                 "580.126.09", "NVIDIA L40");
  expect_machine(parse::read_env_report(
                     "index, name, driver_version, memory.total [MiB], clocks.max.sm [MHz], clocks.max.memory [MHz]\n"
                     "0, NVIDIA L40S, 575.51.03, 46068 MiB, 2520 MHz, 9001 MHz\ntorch 2.6.0+cu124 cuda 12.4\n"),
                 "575.51.03", "NVIDIA L40S");
  // The check as a shell one-liner, and what it printed.
  const auto one = parse::read_env_report("$ python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n");
  ASSERT_EQ(one.frameworks.size(), 1u);
  EXPECT_EQ(one.frameworks[0].sees_gpu, std::optional<bool>(false));
  EXPECT_TRUE(one.frameworks[0].asked);
  const auto two = parse::read_env_report(
      "python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'\n2.1.0+cu121 12.1 True\n");
  ASSERT_EQ(two.frameworks.size(), 1u);
  EXPECT_EQ(two.frameworks[0].version, "2.1.0+cu121");
  EXPECT_EQ(two.frameworks[0].built_cuda.value_or("?"), "12.1");
  EXPECT_EQ(two.frameworks[0].sees_gpu, std::optional<bool>(true));
  const auto venv = parse::read_env_report("(venv) me@box:~/app$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n");
  ASSERT_EQ(venv.frameworks.size(), 1u);
  EXPECT_EQ(venv.frameworks[0].sees_gpu, std::optional<bool>(false));
  EXPECT_EQ(parse::read_env_report("me@box:~/app$ python -c 'import torch; print(torch.cuda.is_available())'\nTrue\n")
                .frameworks.size(),
            1u);
  // A one-liner that failed, or printed something else, says nothing.
  EXPECT_TRUE(parse::read_env_report("python -c \"import torch; print(torch.cuda.is_available())\"\n"
                                     "Traceback (most recent call last):\n").empty());
  EXPECT_TRUE(parse::read_env_report("python -c \"print(1 + 1)\"\n2\n").empty());
  // Prose with commas, or a header without a GPU's name or driver, is no table.
  EXPECT_TRUE(parse::read_env_report("alpha, beta, gamma\nNVIDIA L40, 580.126.09, 46068 MiB\n").gpus.empty());
}

TEST(ExplainEnvReport, ReadsPackageListsBesideNvidiaSmi) {
  // pytorch/pytorch#43058's reporter, after the report: the library list and nvidia-smi's header.
  const auto r = parse::read_env_report(
      "Versions of relevant libraries:\n[pip3] numpy==1.19.1\n[pip3] torch==1.6.0\n"
      "[conda] numpy                     1.19.1                    <pip>\n"
      "[conda] torch                     1.6.0                     <pip>\n\n"
      "So it know that my two GPUs exist but says CUDA is not available. \nHowever:\n \nnvidia-smi returns:\n\n"
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |\n");
  ASSERT_EQ(r.frameworks.size(), 1u);
  EXPECT_EQ(r.frameworks[0].version, "1.6.0");
  EXPECT_FALSE(r.frameworks[0].built_cuda.has_value());  // 1.6.0 alone does not say which CUDA
  EXPECT_EQ(r.driver_version, "418.67");
  // conda's build string names the CUDA; pip list's columns; a requirement typed in prose is neither.
  const auto c = parse::read_env_report("pytorch                   2.0.1           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n");
  ASSERT_EQ(c.frameworks.size(), 1u);
  EXPECT_EQ(c.frameworks[0].built_cuda.value_or("?"), "11.8");
  const auto l = parse::read_env_report("torch                    2.1.0+cu121\ntorchvision              0.16.0+cu121\n");
  ASSERT_EQ(l.frameworks.size(), 1u);
  EXPECT_EQ(l.frameworks[0].version, "2.1.0+cu121");
  EXPECT_TRUE(parse::read_env_report("pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121\n"
                                     "torch 2.1.0 works fine on my other machine with the same driver\n")
                  .empty());
}

TEST(ExplainEnvReport, OrdinaryTextIsNoReport) {
  for (const char* text : {"Epoch 3/10 1875/1875 - loss: 0.0412 - accuracy: 0.9871",
                           "ValueError: Expected input batch_size (64) to match target batch_size (32).",
                           "print(model)\nTrue", "OS: something\nPython version: 3.11.4", ""})
    EXPECT_TRUE(parse::read_env_report(text).empty()) << text;
}

TEST(ExplainEnvReport, DriverOlderThanTheBuildIsTheRootCause) {
  const auto m = paste(kCollectEnvOldDriver);
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m.front().code, "env.cuda.driver-too-old-for-framework");
  EXPECT_TRUE(m.front().root_cause);
  EXPECT_TRUE(root_has(m.front(), "driver-too-old"));
  EXPECT_NE(m.front().title.find("10.2"), std::string::npos) << m.front().title;
  EXPECT_NE(m.front().title.find("418.67"), std::string::npos) << m.front().title;
  // "Sees no GPU" is that finding's consequence, not a second entry.
  EXPECT_FALSE(has_code(m, "env.framework.sees-no-gpu"));
}

TEST(ExplainEnvReport, CpuWheelOnAGpuMachine) {
  const auto m = paste(kHfEnvCpuTorch);
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m.front().code, "env.torch.cpu-only");
  EXPECT_TRUE(root_has(m.front(), "cpu-only-build"));
  const std::string fixes = fmt::format("{}", fmt::join(m.front().fix, "\n"));
  EXPECT_NE(fixes.find("pip uninstall -y torch"), std::string::npos) << fixes;
  EXPECT_NE(fixes.find("download.pytorch.org/whl/cu"), std::string::npos) << fixes;  // a CUDA wheel, from the plan
  // TensorFlow lists the GPU: nothing to say about it.
  for (const auto& x : m) EXPECT_EQ(x.title.find("TensorFlow"), std::string::npos) << x.title;

  const auto s = paste(kSessionCpuWheel);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.front().code, "env.framework.sees-no-gpu");
  EXPECT_TRUE(root_has(s.front(), "cpu-only-build"));
  EXPECT_TRUE(root_has(s.front(), "no-gpu-visible"));
  EXPECT_EQ(s.front().line, 2u);
}

TEST(ExplainEnvReport, TensorFlowsBuildCudaComesFromTheTables) {
  // pip list's line and nvidia-smi's header: TensorFlow 2.15's Linux wheels are built with CUDA 12.2.
  const auto m = paste("tensorflow                   2.15.0\n"
                       "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m.front().code, "env.cuda.driver-too-old-for-framework");
  EXPECT_NE(m.front().title.find("12.2"), std::string::npos) << m.front().title;
  // tf.sysconfig.get_build_info() as printed in a public setup note (TF 2.13 in NVIDIA's container: CUDA 11.8) says it
  // directly.
  const auto b = parse::read_env_report(
      ">>> tf.sysconfig.get_build_info()\n#OrderedDict([('cpu_compiler', '/usr/lib/llvm-16/bin/clang'), "
      "('cuda_compute_capabilities', ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), #('cuda_version', "
      "'11.8'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])\n");
  ASSERT_EQ(b.frameworks.size(), 1u);
  EXPECT_EQ(b.frameworks[0].built_cuda.value_or("?"), "11.8");
  EXPECT_EQ(parse::read_env_report("OrderedDict([('cuda_version', '64_112'), ('is_cuda_build', True)])\n")
                .frameworks.at(0).built_cuda.value_or("?"),
            "11.2");  // the Windows wheels' spelling
  // On native Windows TensorFlow >= 2.11 has no GPU build at all: that is the finding, not the driver.
  const auto w = paste("- Platform: Windows-10-10.0.22621-SP0\n- Tensorflow version (GPU?): 2.12.0 (False)\n"
                       "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n");
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w.front().code, "env.tensorflow.windows-no-gpu");
  EXPECT_TRUE(root_has(w.front(), "cpu-only-build"));
}

TEST(ExplainEnvReport, NothingClaimedWhereTheReportShowsNoProblem) {
  EXPECT_FALSE(claims_failure(paste(kCollectEnvWorking)));   // CUDA available, driver new enough
  EXPECT_FALSE(claims_failure(paste(kCollectEnvCpuMachine))); // no NVIDIA GPU there: no GPU is expected
  // jax.print_environment_info() of a JAX performance report run on a laptop CPU (an issue template's printout):
  // JAX on the CPU is that machine, not a failure. The same printout beside an NVIDIA GPU is judged.
  const std::string jax_cpu =
      ">>> jax.print_environment_info()\njax:    0.10.0\njaxlib: 0.10.0\nnumpy:  2.4.4\n"
      "python: 3.12.13 (main, Apr 16 2026, 00:00:00) [GCC 15.2.1 20260123 (Red Hat 15.2.1-7)]\n"
      "jax.devices (1 total, 1 local): [CpuDevice(id=0)]\nprocess_count: 1\n"
      "platform: uname_result(system='Linux', node='xxx', release='6.19.13-100.fc42.x86_64', version='#1 SMP "
      "PREEMPT_DYNAMIC Sat Apr 18 21:32:46 UTC 2026', machine='x86_64')\n";
  EXPECT_FALSE(claims_failure(paste(jax_cpu)));
  const auto on_gpu = paste(jax_cpu + "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n");
  ASSERT_FALSE(on_gpu.empty());
  EXPECT_EQ(on_gpu.front().code, "env.framework.sees-no-gpu");
  EXPECT_TRUE(root_has(on_gpu.front(), "cpu-only-build"));  // jaxlib without its CUDA plugin, most often
  // The same CPU wheel on a Mac is how PyTorch runs there.
  EXPECT_FALSE(claims_failure(paste("PyTorch version: 2.2.0\nCUDA used to build PyTorch: None\nOS: macOS 14.2.1 (arm64)\n"
                                    "Is CUDA available: False\n")));
}

TEST(ExplainEnvReport, ALineThatNamesTheCauseStaysTheRootCause) {
  // The error line says why; the report adds its own finding after it.
  const std::string text =
      std::string("RuntimeError: The NVIDIA driver on your system is too old (found version 10010).\n") + kCollectEnvOldDriver;
  const auto m = paste(text);
  ASSERT_GE(m.size(), 2u);
  EXPECT_NE(m.front().code.rfind("env.", 0), 0u) << m.front().code;
  EXPECT_TRUE(m.front().root_cause);
  EXPECT_TRUE(has_code(m, "env.cuda.driver-too-old-for-framework"));
  // Where the line says only that no GPU is seen, the report says why.
  const auto n = paste(std::string("RuntimeError: No CUDA GPUs are available\n") + kCollectEnvOldDriver);
  ASSERT_FALSE(n.empty());
  EXPECT_EQ(n.front().code, "env.cuda.driver-too-old-for-framework");
}
