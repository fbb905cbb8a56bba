// explain: every signature in data/error_signatures.csv matches the real error texts it was
// taken from (the example and a second report's variant), with other version numbers too;
// ordinary output is not recognised; the machine's facts sharpen the answer; huge or hostile
// input stays bounded; and `gpuready explain` end to end.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <regex>

#include "doctor/explain.h"
#include "platform/os.h"

using namespace gpuready;
using namespace gpuready::doctor;

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

Snapshot fixture(const std::string& name) {
  std::ifstream f(std::string(GPUREADY_FIXTURES) + "/snapshots/" + name);
  return snapshot_from_json(nlohmann::json::parse(f));
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

TEST(Explain, EverySignatureMatchesItsRealReports) {
  for (const auto& r : knowledge::Compat::embedded().error_signatures) {
    // The generic TensorFlow rows count only in a TensorFlow paste, as a real traceback is.
    const std::string context = "Traceback: import tensorflow as tf\n";
    for (const std::string* text : {&r.example, &r.variant}) {
      if (text->empty()) continue;
      const auto m = ex().explain(context + *text);
      EXPECT_TRUE(has_code(m, r.code)) << r.code << " does not match its own report:\n" << *text << "\ngot: " << codes(m);
    }
  }
}

TEST(Explain, OtherVersionNumbersStillMatch) {
  for (const auto& r : knowledge::Compat::embedded().error_signatures) {
    const std::string text = other_numbers(r.example, r.pattern);
    const auto m = ex().explain("import tensorflow\n" + text);
    EXPECT_TRUE(has_code(m, r.code)) << r.code << " with other numbers:\n" << text << "\ngot: " << codes(m);
  }
}

TEST(Explain, OrdinaryOutputIsNotRecognised) {
  const char* texts[] = {
      "Epoch 1/10\n1875/1875 [==============================] - 10s 5ms/step - loss: 0.2981 - accuracy: 0.9134",
      "Successfully installed numpy-1.26.4 tensorflow-2.15.0",
      "Tue Nov 30 10:00:00 2026\n| NVIDIA-SMI 580.159.04  Driver Version: 580.159.04  CUDA Version: 13.0 |",
      "True\nNVIDIA GeForce RTX 4090",
      "",
  };
  for (const char* t : texts) EXPECT_TRUE(ex().explain(t).empty()) << t << "\ngot: " << codes(ex().explain(t));
}

TEST(Explain, GenericRowsCountOnlyInTheirContext) {
  // "Illegal instruction" alone is any program's crash; after a TensorFlow import it is the AVX one.
  EXPECT_FALSE(has_code(ex().explain("Illegal instruction (core dumped)"), "tf.illegal-instruction"));
  EXPECT_TRUE(has_code(ex().explain("$ python -c 'import tensorflow'\nIllegal instruction (core dumped)"),
                       "tf.illegal-instruction"));
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
  const Snapshot broken = fixture("h200-broken-tf210.json");  // libcudart.so.11.0 under /usr/local/cuda-11.2, unresolved
  const auto m = ex().explain(
      "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
      "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
      &broken);
  ASSERT_FALSE(m.empty());
  std::string ev;
  for (const auto& e : m.front().evidence) ev += e + "\n";
  EXPECT_NE(ev.find("is at /usr/local/cuda-11.2/lib64/libcudart.so.11.2.152"), std::string::npos) << ev;
  EXPECT_NE(ev.find("loader does not search"), std::string::npos) << ev;

  const Snapshot h200 = fixture("h200.json");  // cuDNN 9 only
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
  const auto start = std::chrono::steady_clock::now();
  const auto from_noise = ex().explain(noise);
  const auto from_line = ex().explain(one_line);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  // Random bytes name no known error.
  EXPECT_TRUE(from_noise.empty()) << codes(from_noise);
  // The words past the part of a line that is read are not seen: not found, and no crash.
  EXPECT_TRUE(from_line.empty()) << codes(from_line);
  // The same words within reach are found: the case above is about the cap, not the pattern.
  EXPECT_FALSE(ex().explain(one_line.substr(299000)).empty());
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
  const ProcResult none = run({"explain", "--no-probe", "everything is fine"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.out.find("Not recognised"), std::string::npos);
  const ProcResult missing = run({"explain", "--file", "/nonexistent/log.txt"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read /nonexistent/log.txt"), std::string::npos) << missing.err;
}
