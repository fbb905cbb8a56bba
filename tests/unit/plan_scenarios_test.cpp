// Plan scenarios: `make_plan` on the embedded knowledge tables, one machine per TEST. Every
// expectation was derived by hand from data/*.csv and the rules in docs/plan.md (platform,
// Python, GPU architecture, driver, pins; newest framework version, then full driver support,
// then the newest CUDA); the
// comment above each TEST names the rows and floors that decide it. A loop at the end checks
// the structural invariants and the gpuready.plan/1 JSON contract for every scenario.
//
// Floors used throughout (data/cuda_minor_compat.csv, minor-version compatibility):
//   CUDA 11.x: Linux 450.80.02, Windows 452.39
//   CUDA 12.x: Linux 525.60.13, Windows 527.41
//   CUDA 13.x: Linux 580.65.06, Windows N/A -> the 580 branch stands in
// Before CUDA 11 a build needs its toolkit's own floor (data/cuda_driver.csv). WSL2 compares
// the Windows driver with the Windows floors. `support` is "full" when the driver also meets
// the build's CUDA minor's own floor (cuda_driver.csv), else "minor-version compatibility".
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/version.h"
#include "knowledge/compat.h"
#include "plan/plan.h"

using namespace gpuready;
using gpuready::plan::Exclusion;
using gpuready::plan::Plan;
using gpuready::plan::PlanInputs;
using gpuready::plan::Stack;

namespace {

Version ver(const std::string& s) {
  auto v = Version::parse(s);
  if (!v) throw std::runtime_error("not a version: " + s);
  return *v;
}

// One machine as `gpuready plan` flags would give it; nullptr = not given (unknown).
struct Machine {
  const char* os = nullptr;
  const char* gpu = nullptr;
  const char* cc = nullptr;
  const char* driver = nullptr;
  const char* python = nullptr;
  const char* framework = nullptr;
  const char* framework_version = nullptr;  // pin
  const char* cuda = nullptr;               // pin
};

PlanInputs inputs_of(const Machine& m) {
  PlanInputs in;
  if (m.os) in.os = m.os, in.source["os"] = "flag";
  if (m.gpu) in.gpu = m.gpu, in.source["gpu"] = "flag";
  if (m.cc) in.cc = ver(m.cc), in.source["cc"] = "flag";
  if (m.driver) in.driver = ver(m.driver), in.source["driver"] = "flag";
  if (m.python) in.python = ver(m.python), in.source["python"] = "flag";
  if (m.framework) in.framework = m.framework, in.source["framework"] = "flag";
  if (m.framework_version) in.framework_version = m.framework_version, in.source["framework_version"] = "flag";
  if (m.cuda) in.cuda = ver(m.cuda), in.source["cuda"] = "flag";
  return in;
}

// Every scenario's machine, by name (the TESTs below and the invariant loop share them).
const std::vector<std::pair<std::string, Machine>>& scenarios() {
  //                                 os        gpu                          cc     driver       python  framework     version  cuda
  static const std::vector<std::pair<std::string, Machine>> all = {
      // TensorFlow
      {"tf_walkthrough", {"windows", "GeForce GTX 1650", "7.5", "546.33", "3.8", "tensorflow"}},
      {"tf_walkthrough_pin_2_4_0", {"windows", "GeForce GTX 1650", "7.5", "546.33", "3.8", "tensorflow", "2.4.0"}},
      {"tf_windows_pin_2_1_prefix", {"windows", "GeForce GTX 1650", "7.5", "546.33", "3.7", "tensorflow", "2.1"}},
      {"tf_windows_python_3_11", {"windows", "NVIDIA GeForce RTX 3090", "8.6", "546.33", "3.11", "tensorflow"}},
      {"tf_linux_rtx4090_py312", {"linux", "NVIDIA GeForce RTX 4090", "8.9", "550.54.14", "3.12", "tensorflow"}},
      {"tf_linux_old_driver_470", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "470.57.02", "3.10", "tensorflow"}},
      {"tf_linux_kepler_k80", {"linux", "Tesla K80", "3.7", "470.57.02", "3.9", "tensorflow"}},
      {"tf_wsl2_driver_528_49", {"wsl2", "NVIDIA GeForce RTX 3090", "8.6", "528.49", "3.11", "tensorflow"}},
      {"tf_wsl2_driver_526_98", {"wsl2", "NVIDIA GeForce RTX 3090", "8.6", "526.98", "3.11", "tensorflow"}},
      {"tf_wsl2_pin_2_10", {"wsl2", "GeForce GTX 1650", "7.5", "546.33", "3.10", "tensorflow", "2.10"}},
      {"tf_python_3_14", {"linux", "NVIDIA GeForce RTX 4090", "8.9", "580.82.07", "3.14", "tensorflow"}},
      {"tf_linux_python_3_8", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "550.54.14", "3.8", "tensorflow"}},
      {"tf_linux_pin_cuda_11_2", {"linux", "GeForce GTX 1650", "7.5", "535.54.03", "3.9", "tensorflow", nullptr, "11.2"}},
      {"tf_linux_pin_cuda_12_3", {"linux", "NVIDIA GeForce RTX 4090", "8.9", "550.54.14", "3.12", "tensorflow", nullptr, "12.3"}},
      {"tf_linux_unknown_driver_cc", {"linux", nullptr, nullptr, nullptr, "3.12", "tensorflow"}},
      {"tf_linux_nothing_known", {"linux", nullptr, nullptr, nullptr, nullptr, "tensorflow"}},
      // PyTorch
      {"torch_linux_old_driver_470", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "470.57.02", "3.10", "pytorch"}},
      {"torch_rtx5090_linux", {"linux", "NVIDIA GeForce RTX 5090", "12.0", "580.82.07", "3.12", "pytorch"}},
      {"torch_rtx5090_pin_cuda_12_6", {"linux", "NVIDIA GeForce RTX 5090", "12.0", "580.82.07", "3.12", "pytorch", nullptr, "12.6"}},
      {"torch_rtx5090_windows_572", {"windows", "NVIDIA GeForce RTX 5090", "12.0", "572.16", "3.12", "pytorch"}},
      {"torch_gtx1080ti_driver_580", {"linux", "NVIDIA GeForce GTX 1080 Ti", "6.1", "580.82.07", "3.12", "pytorch"}},
      {"torch_titanv_pin_cuda_12_8", {"linux", "NVIDIA TITAN V", "7.0", "580.82.07", "3.12", "pytorch", nullptr, "12.8"}},
      {"torch_gtx980_maxwell", {"linux", "NVIDIA GeForce GTX 980", "5.2", "580.82.07", "3.12", "pytorch"}},
      {"torch_linux_python_3_8", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "550.54.14", "3.8", "pytorch"}},
      {"torch_python_3_7", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "550.54.14", "3.7", "pytorch"}},
      {"torch_windows_gtx1650_py38", {"windows", "GeForce GTX 1650", "7.5", "546.33", "3.8", "pytorch"}},
      {"torch_wsl2_driver_528_49", {"wsl2", "NVIDIA GeForce RTX 4090", "8.9", "528.49", "3.11", "pytorch"}},
      {"torch_wsl2_driver_526_98", {"wsl2", "NVIDIA GeForce RTX 4090", "8.9", "526.98", "3.11", "pytorch"}},
      {"torch_linux_unknown_driver_cc", {"linux", nullptr, nullptr, nullptr, "3.12", "pytorch"}},
      {"torch_macos", {"macos", nullptr, nullptr, nullptr, "3.12", "pytorch"}},
      {"torch_pin_2_5", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "535.54.03", "3.11", "pytorch", "2.5"}},
      {"torch_pin_cuda_11_8", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "535.54.03", "3.10", "pytorch", nullptr, "11.8"}},
      // JAX
      {"jax_windows_native", {"windows", "NVIDIA GeForce RTX 3090", "8.6", "546.33", "3.11", "jax"}},
      {"jax_linux_driver_535_py311", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "535.54.03", "3.11", "jax"}},
      {"jax_titanv_driver_580", {"linux", "NVIDIA TITAN V", "7.0", "580.82.07", "3.12", "jax"}},
      {"jax_gtx1080ti_driver_580", {"linux", "NVIDIA GeForce GTX 1080 Ti", "6.1", "580.82.07", "3.12", "jax"}},
      {"jax_rtx5090_driver_580", {"linux", "NVIDIA GeForce RTX 5090", "12.0", "580.82.07", "3.13", "jax"}},
      {"jax_rtx5090_driver_610", {"linux", "NVIDIA GeForce RTX 5090", "12.0", "610.43.02", "3.13", "jax"}},
      {"jax_rtx5090_driver_615", {"linux", "NVIDIA GeForce RTX 5090", "12.0", "615.71.09", "3.13", "jax"}},
      {"jax_python_3_7", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "535.54.03", "3.7", "jax"}},
      {"jax_pin_cuda_11_8", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "535.54.03", "3.10", "jax", nullptr, "11.8"}},
      {"jax_linux_old_driver_470", {"linux", "NVIDIA GeForce RTX 3090", "8.6", "470.57.02", "3.10", "jax"}},
      {"jax_wsl2_driver_560", {"wsl2", "NVIDIA GeForce RTX 4090", "8.9", "560.94", "3.12", "jax"}},
      {"jax_linux_unknown_driver_cc", {"linux", nullptr, nullptr, nullptr, "3.12", "jax"}},
  };
  return all;
}

const Machine& machine(const std::string& name) {
  for (const auto& [n, m] : scenarios())
    if (n == name) return m;
  throw std::runtime_error("no scenario " + name);
}

const Plan& plan_for(const std::string& name) {
  static std::map<std::string, Plan> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, plan::make_plan(knowledge::Compat::embedded(), inputs_of(machine(name)))).first;
  return it->second;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool has(const std::string& hay, const std::string& needle) { return lower(hay).find(lower(needle)) != std::string::npos; }
bool has_any(const std::string& hay, std::initializer_list<const char*> needles) {
  for (const char* n : needles)
    if (has(hay, n)) return true;
  return false;
}

// Words that say "the GPU architecture is the reason".
bool names_architecture(const std::string& why) {
  return has_any(why, {"architecture", "compute capability", "sm_", "kernel", "Kepler", "Maxwell", "Pascal", "Volta",
                       "Blackwell"});
}

// Does the exclusion's `what` ("tensorflow 2.11.0+", "torch 2.0.0-2.6.0 (cu118)", "jax 0.8.0") cover
// `version` (and mention `variant` when one is given)?
// `word` in `text` as a whole word ("cuda12" is not in "cuda12_pip").
bool has_word(const std::string& text, const std::string& word) {
  const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !is_word(text[at - 1]);
    const bool right = at + word.size() == text.size() || !is_word(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

bool covers(const Exclusion& e, const std::string& version, const std::string& variant = "") {
  if (!variant.empty() && !has_word(e.what, variant)) return false;
  std::istringstream in(e.what);
  std::string tok;
  while (in >> tok)
    if (!tok.empty() && std::isdigit(static_cast<unsigned char>(tok[0]))) break;
  if (tok.empty() || !std::isdigit(static_cast<unsigned char>(tok[0]))) return false;
  while (!tok.empty() && (tok.back() == ',' || tok.back() == ':' || tok.back() == ')')) tok.pop_back();
  const Version v = ver(version);
  if (tok.back() == '+') {
    auto lo = Version::parse(tok.substr(0, tok.size() - 1));
    return lo && v >= *lo;
  }
  const auto dash = tok.find('-');
  if (dash != std::string::npos) {
    auto lo = Version::parse(tok.substr(0, dash));
    auto hi = Version::parse(tok.substr(dash + 1));
    return lo && hi && v >= *lo && v <= *hi;
  }
  auto one = Version::parse(tok);
  return one && v == *one;
}

const Exclusion* exclusion_for(const Plan& p, const std::string& version, const std::string& variant = "") {
  for (const auto& e : p.excluded)
    if (covers(e, version, variant)) return &e;
  return nullptr;
}

std::string dump_exclusions(const Plan& p) {
  std::string s;
  for (const auto& e : p.excluded) s += "  [" + e.what + "] " + e.why + "\n";
  return s;
}

std::string dump(const Plan& p) {
  std::string s = std::string("ok=") + (p.ok ? "true" : "false");
  if (p.recommended) {
    const Stack& r = *p.recommended;
    s += " recommended: " + r.framework + " " + r.framework_version + " " + r.variant + " cuda " + r.cuda + " cudnn " +
         r.cudnn + " python " + r.python + " min_driver " + r.min_driver + " support " + r.support;
  }
  s += "\nalternatives:";
  for (const auto& a : p.alternatives) s += " [" + a.framework_version + " " + a.variant + " cuda " + a.cuda + "]";
  s += "\nexcluded:\n" + dump_exclusions(p) + "changes:";
  for (const auto& c : p.changes) {
    s += " [";
    for (const auto& w : c.changes) s += w + "; ";
    if (c.gives) s += "-> " + c.gives->framework_version + " " + c.gives->variant + " cuda " + c.gives->cuda;
    s += "]";
  }
  return s;
}

bool change_mentions(const Plan& p, const char* word) {
  for (const auto& c : p.changes)
    for (const auto& w : c.changes)
      if (has(w, word)) return true;
  return false;
}

const Stack* alternative(const Plan& p, const std::string& version, const std::string& cuda_or_variant) {
  for (const auto& a : p.alternatives)
    if (a.framework_version == version && (a.cuda == cuda_or_variant || a.variant == cuda_or_variant)) return &a;
  return nullptr;
}

bool any_command_has(const Plan& p, const std::string& needle) {
  for (const auto& s : p.steps)
    for (const auto& c : s.commands)
      if (has(c, needle)) return true;
  return false;
}

const knowledge::PytorchRow* torch_row(const std::string& version, const std::string& variant) {
  for (const auto& r : knowledge::Compat::embedded().pytorch)
    if (r.version.str() == version && r.variant == variant) return &r;
  return nullptr;
}

// numpy_constraint of a TensorFlow GPU row (another helper is filling these cells).
std::string tf_numpy(const std::string& version, const std::string& os) {
  for (const auto& r : knowledge::Compat::embedded().tensorflow)
    if (r.version.str() == version && r.os == os && r.device == "gpu") return r.numpy;
  throw std::runtime_error("no tensorflow row " + version + " " + os);
}

// The CUDA wheel variants / plugins the tables list for one framework version.
std::vector<std::string> variants_of(const std::string& framework, const std::string& version) {
  std::vector<std::string> out;
  const auto& k = knowledge::Compat::embedded();
  if (framework == "pytorch")
    for (const auto& r : k.pytorch)
      if (r.version.str() == version && r.cuda && r.variant.rfind("cu", 0) == 0) out.push_back(r.variant);
  if (framework == "jax")
    for (const auto& r : k.jax)
      if (r.version.str() == version) out.push_back(r.pip_extra);
  return out;
}

// Checks the recommended stack's headline fields in one go.
void expect_stack(const Plan& p, const char* framework_version, const char* cuda, const char* cudnn, const char* python,
                  const char* min_driver) {
  ASSERT_TRUE(p.ok) << dump(p);
  ASSERT_TRUE(p.recommended.has_value()) << dump(p);
  const Stack& r = *p.recommended;
  EXPECT_EQ(r.framework_version, framework_version) << dump(p);
  EXPECT_EQ(r.cuda, cuda) << dump(p);
  if (cudnn) {
    EXPECT_EQ(r.cudnn, cudnn) << dump(p);
  }
  EXPECT_EQ(r.python, python) << dump(p);
  if (min_driver) {
    EXPECT_EQ(r.min_driver, min_driver) << dump(p);
  }
}

}  // namespace

// ============================================================================ TensorFlow

// The walkthrough. Windows GPU rows (tensorflow.csv) stop at 2.10.1; 2.11.0+ exist only as
// Linux rows and fail check 1 (no native-Windows GPU build: use WSL2).
// 2.10.1,windows,gpu,tensorflow,3.7,3.10,11.2,8.1 -> Python 3.8 in range; sm_75 is in
// cuda_arch 11.2 (min 35); driver 546.33 >= 452.39 (CUDA 11 Windows compat floor) and >= 460.82
// (11.2's own Windows floor) -> support full. numpy cell empty, TF < 2.16 -> "<2".
// Alternatives (other CUDA majors): CUDA 10 -> 2.3.0 windows (3.5-3.8, 10.1; driver >= 418.96).
// CUDA 9/8 rows (1.x) stop at Python 3.6 -> none.
TEST(PlanTensorflow, WalkthroughWindowsGtx1650) {
  const Plan& p = plan_for("tf_walkthrough");
  expect_stack(p, "2.10.1", "11.2", "8.1", "3.8", "452.39");
  if (!p.recommended) return;
  const Stack& r = *p.recommended;
  EXPECT_EQ(r.framework, "tensorflow");
  // The plain package (GPU support on Windows since 2.1; tensorflow-gpu is a deprecated alias that PyPI
  // now answers with an error), at its last release with native-Windows GPU support.
  EXPECT_EQ(r.package, "tensorflow");
  EXPECT_EQ(r.os, "windows");
  EXPECT_EQ(r.python_range, "3.7-3.10");
  EXPECT_EQ(r.support, "full");
  // 2.10.1's numpy cell is empty at the time of writing -> the plan adds "<2" (TF < 2.16 was built
  // against NumPy 1.x). Should the cell get a pin, the plan carries that pin.
  const std::string pin = tf_numpy("2.10.1", "windows");
  if (pin.empty()) {
    EXPECT_EQ(r.numpy, "<2");
    EXPECT_TRUE(any_command_has(p, "numpy<2"));
  } else {
    EXPECT_TRUE(has(r.numpy, pin)) << r.numpy;
  }
  EXPECT_FALSE(r.bundles_cuda);

  bool tf211 = false;
  for (const auto& e : p.excluded)
    if (e.what.rfind("tensorflow 2.11", 0) == 0) {
      tf211 = true;
      EXPECT_TRUE(has(e.why, "WSL2")) << e.why;
    }
  EXPECT_TRUE(tf211) << dump(p);
  // 2.21.0 (the newest Linux row) is inside that platform exclusion too.
  const Exclusion* newest = exclusion_for(p, "2.21.0");
  ASSERT_NE(newest, nullptr) << dump(p);
  EXPECT_TRUE(has(newest->why, "WSL2")) << newest->why;

  EXPECT_NE(alternative(p, "2.3.0", "10.1"), nullptr) << dump(p);
  // "use WSL2" would give a newer TensorFlow (Linux rows: 2.13.0 is the newest with Python 3.8).
  bool wsl_change = false;
  for (const auto& c : p.changes)
    for (const auto& w : c.changes)
      if (has(w, "WSL2") && c.gives && ver(c.gives->framework_version) > ver("2.10.1")) wsl_change = true;
  EXPECT_TRUE(wsl_change) << dump(p);
  EXPECT_TRUE(any_command_has(p, "\"tensorflow==2.10.1\"")) << "steps should pin the package";
}

// The walkthrough pinned to 2.4.0: 2.4.0,windows,gpu,tensorflow,3.6,3.8,11.0,8.0,~=1.19.2.
// Driver: CUDA 11 compat floor 452.39 (11.0's own 451.48 is lower; 546.33 meets both -> full).
// With a pin the alternatives also hold the newest stack without it: 2.10.1.
TEST(PlanTensorflow, WalkthroughPinned240) {
  const Plan& p = plan_for("tf_walkthrough_pin_2_4_0");
  expect_stack(p, "2.4.0", "11.0", "8.0", "3.8", "452.39");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->numpy, "~=1.19.2");
  EXPECT_EQ(p.recommended->package, "tensorflow");
  EXPECT_EQ(p.recommended->support, "full");
  EXPECT_NE(alternative(p, "2.10.1", "11.2"), nullptr) << dump(p);
  EXPECT_TRUE(any_command_has(p, "\"tensorflow==2.4.0\""));
}

// Pin "2.1" is a version prefix: 2.1.x, never 2.10.0 (which would also fit Python 3.7).
// 2.1.0,windows,gpu,tensorflow,3.5,3.7,10.1,7.6 -> CUDA 10.1 predates minor-version
// compatibility: its own Windows floor 418.96 (cuda_driver.csv 10.1) -> 546.33 full.
TEST(PlanTensorflow, WindowsPinPrefixIsComponentWise) {
  const Plan& p = plan_for("tf_windows_pin_2_1_prefix");
  expect_stack(p, "2.1.0", "10.1", "7.6", "3.7", "418.96");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "full");
  if (tf_numpy("2.1.0", "windows").empty()) {
    EXPECT_EQ(p.recommended->numpy, "<2");
  }
}

// Windows + Python 3.11: Windows GPU rows max out at 3.10 (2.8-2.10), 2.11.0+ is Linux only.
// Nothing fits natively -> ok false. Changes: use WSL2 (Linux 2.21.0: 3.10-3.13, CUDA 12.5;
// 546.33 >= 527.41) or a Python in a Windows row's range (3.7-3.10 -> 2.10.1).
TEST(PlanTensorflow, WindowsPython311NothingFitsNatively) {
  const Plan& p = plan_for("tf_windows_python_3_11");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_TRUE(change_mentions(p, "WSL2")) << dump(p);
  EXPECT_TRUE(change_mentions(p, "Python")) << dump(p);
  const Exclusion* e = exclusion_for(p, "2.10.1");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has_any(e->why, {"Python", "3.11"})) << e->why;
}

// Linux, RTX 4090 (8.9), driver 550.54.14, Python 3.12: newest Linux row 2.21.0 (3.10-3.13,
// CUDA 12.5, cuDNN 9.3). sm_89 in cuda_arch 12.5. 550.54.14 >= 525.60.13 (12.x compat floor) but
// < 555.42.02 (12.5's own floor) -> minor-version compatibility. No CUDA 11 build takes 3.12
// (2.14.0 stops at 3.11) -> no CUDA 11 alternative.
TEST(PlanTensorflow, LinuxRtx4090Python312) {
  const Plan& p = plan_for("tf_linux_rtx4090_py312");
  expect_stack(p, "2.21.0", "12.5", "9.3", "3.12", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->package, "tensorflow");
  EXPECT_EQ(p.recommended->os, "linux");
  EXPECT_EQ(p.recommended->support, "minor-version compatibility");
  for (const auto& a : p.alternatives) EXPECT_NE(ver(a.cuda).major(), 11) << dump(p);
}

// Linux driver 470.57.02 (full support up to CUDA 11.4): every CUDA 12 build (2.15.0-2.21.0)
// fails the 525.60.13 floor. 2.14.0 (3.9-3.11, CUDA 11.8, cuDNN 8.7) runs through minor-version
// compatibility (>= 450.80.02; 11.8's own floor 520.61.05 is not met). The floor shown is the
// GPU's (cc 8.6): its first driver is CUDA 11.1's 455.23, above the CUDA 11 floor.
TEST(PlanTensorflow, LinuxOldDriverPicksCuda11Build) {
  const Plan& p = plan_for("tf_linux_old_driver_470");
  expect_stack(p, "2.14.0", "11.8", "8.7", "3.10", "455.23");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "minor-version compatibility");
  for (const char* v : {"2.15.0", "2.16.1", "2.17.0", "2.18.0", "2.19.0", "2.20.0", "2.21.0"}) {
    const Exclusion* e = exclusion_for(p, v);
    ASSERT_NE(e, nullptr) << v << "\n" << dump(p);
    EXPECT_TRUE(has(e->why, "driver")) << v << ": " << e->why;
  }
  EXPECT_TRUE(change_mentions(p, "driver")) << dump(p);
}

// Tesla K80 (cc 3.7, Kepler), Linux driver 470.57.02, Python 3.9. cuda_arch min_sm is 50 for
// every 12.x: 2.15.0-2.20.0 fail the architecture check (it comes before the driver check);
// 2.21.0 fails Python first (3.10+). 2.14.0 is CUDA 11.8 (sm_37 listed) -> recommended,
// through minor-version compatibility (470.57.02 < 520.61.05).
TEST(PlanTensorflow, KeplerK80PicksCuda11Build) {
  const Plan& p = plan_for("tf_linux_kepler_k80");
  expect_stack(p, "2.14.0", "11.8", "8.7", "3.9", "450.80.02");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "minor-version compatibility");
  EXPECT_EQ(ver(p.recommended->cuda).major(), 11);
  for (const char* v : {"2.15.0", "2.17.0", "2.20.0"}) {
    const Exclusion* e = exclusion_for(p, v);
    ASSERT_NE(e, nullptr) << v << "\n" << dump(p);
    EXPECT_TRUE(names_architecture(e->why) || has_any(e->why, {"3.7", "K80"})) << v << ": " << e->why;
  }
}

// WSL2 with Windows driver 528.49, Python 3.11: Linux rows, so TF >= 2.11 is allowed.
// 2.21.0 (3.10-3.13, CUDA 12.5): 528.49 >= 527.41 (Windows 12.x compat floor) but < 555.85
// (12.5's own Windows floor) -> minor-version compatibility. min_driver is the Windows floor.
TEST(PlanTensorflow, Wsl2AllowsNewTensorflowWithWindowsFloors) {
  const Plan& p = plan_for("tf_wsl2_driver_528_49");
  expect_stack(p, "2.21.0", "12.5", "9.3", "3.11", "527.41");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->os, "wsl2");
  EXPECT_EQ(p.recommended->package, "tensorflow");
  EXPECT_EQ(p.recommended->support, "minor-version compatibility");
  // 2.11.0 is not out for the platform on WSL2, only for Python (3.7-3.10); 2.12.0-2.21.0 all fit.
  const Exclusion* e211 = exclusion_for(p, "2.11.0");
  ASSERT_NE(e211, nullptr) << dump(p);
  EXPECT_TRUE(has(e211->why, "Python")) << e211->why;
  EXPECT_FALSE(has_any(e211->why, {"WSL2", "Windows"})) << e211->why;
  for (const char* v : {"2.12.0", "2.13.0", "2.14.0", "2.15.0", "2.18.0", "2.21.0"})
    EXPECT_EQ(exclusion_for(p, v), nullptr) << v << "\n" << dump(p);
  // On WSL2 the driver is the Windows one: no Linux driver package inside WSL2.
  EXPECT_FALSE(any_command_has(p, "apt install nvidia-driver")) << "no Linux driver in WSL2";
  EXPECT_FALSE(any_command_has(p, "apt-get install nvidia-driver")) << "no Linux driver in WSL2";
}

// WSL2 with Windows driver 526.98: the Linux floor (525.60.13) would pass, the Windows floor
// 527.41 does not -> every CUDA 12 build (2.15.0+) is out. 2.14.0 (CUDA 11.8): 526.98 >= 452.39
// and >= 520.06 (11.8's own Windows floor) -> full. The floor shown is the GPU's (cc 8.6):
// CUDA 11.1's Windows driver 456.38.
TEST(PlanTensorflow, Wsl2ComparesWithWindowsFloorNotLinux) {
  const Plan& p = plan_for("tf_wsl2_driver_526_98");
  expect_stack(p, "2.14.0", "11.8", "8.7", "3.11", "456.38");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "full");
  const Exclusion* e = exclusion_for(p, "2.15.0");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has(e->why, "driver")) << e->why;
}

// WSL2 pinned to "2.10": the Linux 2.10.0 row (package tensorflow, 3.7-3.10, 11.2, 8.1),
// Windows CUDA 11 floor 452.39; 546.33 >= 460.82 (11.2 Windows) -> full.
TEST(PlanTensorflow, Wsl2PinnedUsesLinuxRow) {
  const Plan& p = plan_for("tf_wsl2_pin_2_10");
  expect_stack(p, "2.10.0", "11.2", "8.1", "3.10", "452.39");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->package, "tensorflow");
  EXPECT_EQ(p.recommended->os, "wsl2");
  EXPECT_EQ(p.recommended->support, "full");
}

// Python 3.14: the highest python_max of any TensorFlow GPU row is 3.13 (2.20.0, 2.21.0) ->
// ok false, and a change names a Python range.
TEST(PlanTensorflow, PythonTooNew) {
  const Plan& p = plan_for("tf_python_3_14");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_TRUE(change_mentions(p, "Python")) << dump(p);
  const Exclusion* e = exclusion_for(p, "2.21.0");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has_any(e->why, {"Python", "3.14"})) << e->why;
}

// Python 3.8 on Linux: newest row with 3.8 is 2.13.0 (3.8-3.11, CUDA 11.8, cuDNN 8.6,
// numpy ">=1.22,<=1.24.3"). 550.54.14 >= 520.61.05 (11.8 Linux) -> full.
TEST(PlanTensorflow, LinuxPython38PicksNewestThatSupportsIt) {
  const Plan& p = plan_for("tf_linux_python_3_8");
  expect_stack(p, "2.13.0", "11.8", "8.6", "3.8", "455.23");  // the GPU's (cc 8.6) first driver
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "full");
  EXPECT_EQ(p.recommended->numpy, tf_numpy("2.13.0", "linux"));  // ">=1.22,<=1.24.3"
  const Exclusion* e = exclusion_for(p, "2.14.0");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has_any(e->why, {"Python", "3.8"})) << e->why;
}

// --cuda 11.2 on Linux, Python 3.9: Linux rows with CUDA 11.2 are 2.5.0-2.11.0; newest with 3.9
// is 2.11.0 (3.7-3.10). Without the pin: 2.20.0 (3.9-3.13, CUDA 12.5; 535.54.03 >= 525.60.13)
// is the newest (2.21.0 needs 3.10) -> among the alternatives.
TEST(PlanTensorflow, LinuxPinCuda112) {
  const Plan& p = plan_for("tf_linux_pin_cuda_11_2");
  expect_stack(p, "2.11.0", "11.2", "8.1", "3.9", "450.80.02");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "full");  // 535.54.03 >= 460.27.03 (11.2 Linux)
  EXPECT_NE(alternative(p, "2.20.0", "12.5"), nullptr) << dump(p);
}

// --cuda 12.3: 2.17.0 and 2.16.1 are built with 12.3; newest 2.17.0 (3.9-3.12, cuDNN 8.9).
// 550.54.14 >= 545.23.06 (12.3 Linux) -> full.
TEST(PlanTensorflow, LinuxPinCuda123) {
  const Plan& p = plan_for("tf_linux_pin_cuda_12_3");
  expect_stack(p, "2.17.0", "12.3", "8.9", "3.12", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "full");
}

// No driver and no GPU: nothing is excluded for them. Python 3.12 fits 2.16.1-2.21.0, so the
// newest Linux row 2.21.0 is recommended and only <= 2.15.0 rows are excluded (Python).
TEST(PlanTensorflow, UnknownDriverAndGpuConstrainNothing) {
  const Plan& p = plan_for("tf_linux_unknown_driver_cc");
  expect_stack(p, "2.21.0", "12.5", "9.3", "3.12", nullptr);
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->support, "driver unknown");
  for (const char* v : {"2.16.1", "2.17.0", "2.18.0", "2.19.0", "2.20.0", "2.21.0"})
    EXPECT_EQ(exclusion_for(p, v), nullptr) << v << "\n" << dump(p);
  for (const auto& e : p.excluded) {
    EXPECT_FALSE(has(e.why, "driver")) << e.what << ": " << e.why;
    EXPECT_FALSE(names_architecture(e.why)) << e.what << ": " << e.why;
  }
}

// Only the OS known: every Linux GPU row passes; the newest, 2.21.0, with the newest Python
// it supports (3.13). Nothing is excluded.
// (Candidates are the target OS's rows: 1.13.0 is a Windows-only row -- Linux lists 1.13.1 -- so it
// is not a Linux candidate and has nothing to be excluded for.)
TEST(PlanTensorflow, NothingKnownGivesNewestRow) {
  const Plan& p = plan_for("tf_linux_nothing_known");
  expect_stack(p, "2.21.0", "12.5", "9.3", "3.13", nullptr);
  for (const auto& e : p.excluded)
    EXPECT_FALSE(has_any(e.why, {"driver", "Python"}) || names_architecture(e.why)) << e.what << ": " << e.why;
  EXPECT_TRUE(p.excluded.empty()) << dump(p);
}

// ============================================================================ PyTorch

// Linux driver 470.57.02 (full support to CUDA 11.4), RTX 3090 (8.6), Python 3.10.
// cu12x need >= 525.60.13, cu13x >= 580.65.06 -> all excluded for the driver (Python 3.10 is in
// every row's range, sm_86 in every list, so the driver is the first failing check).
// Newest cu11x wheel: 2.7.1 cu118 (cuDNN 9.1.0.70; 2.8+ have no cu118) through minor-version
// compatibility (>= 450.80.02, < 520.61.05). The floor shown is the RTX 3090's own: CUDA 11.1's
// 455.23, the first driver for sm_86.
TEST(PlanPytorch, OldDriverPicksNewestCu11xWheel) {
  const Plan& p = plan_for("torch_linux_old_driver_470");
  expect_stack(p, "2.7.1", "11.8", "9.1.0.70", "3.10", "455.23");
  if (!p.recommended) return;
  const Stack& r = *p.recommended;
  EXPECT_EQ(r.framework, "pytorch");
  EXPECT_EQ(r.package, "torch");
  EXPECT_EQ(r.variant, "cu118");
  EXPECT_EQ(r.index_url, "https://download.pytorch.org/whl/cu118");
  EXPECT_EQ(r.support, "minor-version compatibility");
  EXPECT_TRUE(r.bundles_cuda);
  int checked = 0;
  for (const auto& row : knowledge::Compat::embedded().pytorch) {
    if (!row.cuda || row.cuda->major() < 12 || row.variant.rfind("cu", 0) != 0) continue;
    const Exclusion* e = exclusion_for(p, row.version.str(), row.variant);
    ++checked;
    ASSERT_NE(e, nullptr) << row.version.str() << " " << row.variant << "\n" << dump(p);
    EXPECT_TRUE(has(e->why, "driver")) << e->what << ": " << e->why;
  }
  EXPECT_GT(checked, 40);
  EXPECT_TRUE(change_mentions(p, "driver")) << dump(p);
  EXPECT_TRUE(any_command_has(p, "download.pytorch.org/whl/cu118"));
}

// RTX 5090 (sm_120), Linux driver 580.82.07, Python 3.12. Newest release 2.14.1 (the candidate
// row in pytorch.csv): cu132 (13.2) and cu130 (13.0) both list 120 and pass 580.65.06 (13.x
// compat floor). Within a release a fully supported build comes first (docs/plan.md):
// cu130's own floor 580.65.06 is met (full), cu132's 595.45.04 is not -> 2.14.1 cu130.
// Every cu126 wheel (2.6.0-2.14.1; lists stop at 90, no PTX) cannot run sm_120.
TEST(PlanPytorch, Rtx5090NeedsCuda128OrNewer) {
  const Plan& p = plan_for("torch_rtx5090_linux");
  expect_stack(p, "2.14.1", "13.0", "9.24.0.43", "3.12", "580.65.06");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu130");
  EXPECT_GE(ver(p.recommended->cuda), ver("12.8"));
  EXPECT_EQ(p.recommended->support, "full");
  EXPECT_EQ(exclusion_for(p, "2.14.0", "cu132"), nullptr) << "cu132 fits (minor-version compatibility)";
  for (const char* v : {"2.6.0", "2.7.1", "2.9.0", "2.11.0", "2.14.0"}) {
    const Exclusion* e = exclusion_for(p, v, "cu126");
    ASSERT_NE(e, nullptr) << v << " cu126\n" << dump(p);
    EXPECT_TRUE(names_architecture(e->why) || has(e->why, "12.0")) << e->what << ": " << e->why;
  }
}

// Same machine, --cuda 12.6: every cu126 wheel fails the architecture -> ok false; the
// alternatives hold the newest stack without the pin (2.14.1 cu130, as above).
TEST(PlanPytorch, Rtx5090PinnedToCuda126Fails) {
  const Plan& p = plan_for("torch_rtx5090_pin_cuda_12_6");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_FALSE(p.alternatives.empty()) << dump(p);
  EXPECT_NE(alternative(p, "2.14.1", "cu130"), nullptr) << dump(p);
  for (const auto& a : p.alternatives) EXPECT_GE(ver(a.cuda), ver("12.8")) << dump(p);
  const Exclusion* e = exclusion_for(p, "2.14.0", "cu126");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(names_architecture(e->why) || has(e->why, "12.0")) << e->why;
}

// RTX 5090 on Windows, driver 572.16, Python 3.12. cu13x: Windows 13.x floor is N/A, the 580
// branch stands in -> 572.16 fails. cu126 lacks sm_120. Newest cu128: 2.11.0 (70-120,
// cuDNN 9.17.1.4); 572.16 >= 527.41 and >= 570.65 (12.8 Windows) -> full. The floor shown is the
// GPU's: sm_120 arrived with CUDA 12.8, whose Windows driver is 570.65 (the R570 branch).
TEST(PlanPytorch, Rtx5090WindowsDriver572PicksCu128) {
  const Plan& p = plan_for("torch_rtx5090_windows_572");
  expect_stack(p, "2.11.0", "12.8", "9.17.1.4", "3.12", "570.65");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu128");
  EXPECT_EQ(p.recommended->os, "windows");
  EXPECT_EQ(p.recommended->support, "full");
  const Exclusion* e = exclusion_for(p, "2.14.0", "cu130");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has(e->why, "driver")) << e->why;
}

// GTX 1080 Ti (sm_61), driver 580.82.07, Python 3.12: cu130/cu132 lists start at 75 -> out
// (architecture) even though the driver would do. 2.14.1 cu126 lists 60 (sm_60 SASS runs on
// 6.1) -> recommended; 580.82.07 >= 560.28.03 (12.6) -> full.
TEST(PlanPytorch, PascalAvoidsCuda13Wheels) {
  const Plan& p = plan_for("torch_gtx1080ti_driver_580");
  expect_stack(p, "2.14.1", "12.6", "9.10.2.21", "3.12", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu126");
  EXPECT_EQ(p.recommended->support, "full");
  for (const char* variant : {"cu130", "cu132"}) {
    const Exclusion* e = exclusion_for(p, "2.14.0", variant);
    ASSERT_NE(e, nullptr) << variant << "\n" << dump(p);
    EXPECT_TRUE(names_architecture(e->why) || has(e->why, "6.1")) << e->what << ": " << e->why;
  }
}

// Titan V (sm_70), --cuda 12.8: cu128 rows are 2.7.0-2.11.0; 2.11.0 cu128 has no sm_70 (PyTorch
// dropped Volta from cu128 in 2.11; knowledge-audit sections 1 and 12) -> 2.10.0 cu128
// (cuDNN 9.10.2.21, before cuDNN 9.11 dropped Volta). 580.82.07 >= 570.26 (12.8 Linux) -> full.
TEST(PlanPytorch, VoltaPinnedCuda128) {
  const Plan& p = plan_for("torch_titanv_pin_cuda_12_8");
  expect_stack(p, "2.10.0", "12.8", "9.10.2.21", "3.12", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu128");
  EXPECT_EQ(p.recommended->support, "full");
  const Exclusion* e = exclusion_for(p, "2.11.0", "cu128");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(names_architecture(e->why) || has(e->why, "7.0")) << e->why;
}

// GTX 980 (sm_52, Maxwell): cu128 lists start at 70, cu13x at 75 -> out; 2.14.1 cu126 lists 50
// (same major, lower minor: runs on 5.2) -> recommended.
TEST(PlanPytorch, MaxwellRunsSm50Kernels) {
  const Plan& p = plan_for("torch_gtx980_maxwell");
  expect_stack(p, "2.14.1", "12.6", "9.10.2.21", "3.12", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu126");
  const Exclusion* e = exclusion_for(p, "2.11.0", "cu128");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(names_architecture(e->why) || has(e->why, "5.2")) << e->why;
}

// Python 3.8: newest release with 3.8 is 2.4.1 (3.8-3.12; 2.5.0+ start at 3.9). Its newest CUDA
// is cu124 (cuDNN 9.1.0.70). 550.54.14 == 550.54.14 (12.4 Linux) -> full. If the table has no
// sm_list for 2.4.1 (2.0-2.7 were left empty), the list is inferred from CUDA 12.4 and the stack
// says so.
TEST(PlanPytorch, Python38PicksNewestThatSupportsIt) {
  const Plan& p = plan_for("torch_linux_python_3_8");
  expect_stack(p, "2.4.1", "12.4", "9.1.0.70", "3.8", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu124");
  EXPECT_EQ(p.recommended->support, "full");
  const knowledge::PytorchRow* row = torch_row("2.4.1", "cu124");
  ASSERT_NE(row, nullptr);
  if (row->sm.empty()) {
    bool says = false;
    for (const auto& n : p.recommended->notes) says = says || has(n, "infer");
    EXPECT_TRUE(says) << "inferred architecture list should be noted";
  }
  const Exclusion* e = exclusion_for(p, "2.5.0", "cu124");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has_any(e->why, {"Python", "3.8"})) << e->why;
}

// Python 3.7: every PyTorch row starts at 3.8 or later -> ok false, change names a Python range.
TEST(PlanPytorch, PythonTooOld) {
  const Plan& p = plan_for("torch_python_3_7");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_TRUE(change_mentions(p, "Python")) << dump(p);
}

// The walkthrough machine with PyTorch: Windows, GTX 1650 (7.5), 546.33, Python 3.8 -> newest
// release with 3.8 is 2.4.1 (cu124, cu121, cu118; all list sm_75). Windows 12.x compat floor
// 527.41 is met by both cu12x; cu124's own Windows floor 551.61 is not (minor-version compat),
// cu121's 531.14 is (full) -> full before newer CUDA: 2.4.1 cu121.
TEST(PlanPytorch, WindowsGtx1650Python38) {
  const Plan& p = plan_for("torch_windows_gtx1650_py38");
  expect_stack(p, "2.4.1", "12.1", "9.1.0.70", "3.8", "527.41");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu121");
  EXPECT_EQ(p.recommended->os, "windows");
  EXPECT_EQ(p.recommended->support, "full");
  EXPECT_EQ(exclusion_for(p, "2.4.1", "cu124"), nullptr) << "cu124 fits (minor-version compatibility)";
}

// WSL2, Windows driver 528.49, RTX 4090 (8.9), Python 3.11: cu13x need the 580 branch -> out
// (driver). 2.14.1 cu126 (sm_86 SASS runs on 8.9): 528.49 >= 527.41, < 560.76 (12.6 Windows) ->
// minor-version compatibility.
TEST(PlanPytorch, Wsl2Driver52849) {
  const Plan& p = plan_for("torch_wsl2_driver_528_49");
  expect_stack(p, "2.14.1", "12.6", "9.10.2.21", "3.11", "527.41");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu126");
  EXPECT_EQ(p.recommended->os, "wsl2");
  EXPECT_EQ(p.recommended->support, "minor-version compatibility");
  const Exclusion* e = exclusion_for(p, "2.14.0", "cu130");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has(e->why, "driver")) << e->why;
}

// WSL2, Windows driver 526.98: below the Windows 12.x floor 527.41 (the Linux one, 525.60.13,
// would pass) -> every cu12x out; newest cu11x 2.7.1 cu118 (sm_89 in CUDA 11.8), Windows floor
// 452.39; 526.98 >= 520.06 (11.8 Windows) -> full. The floor shown is the GPU's (sm_89): CUDA
// 11.8's Windows driver 520.06, the first for Ada.
TEST(PlanPytorch, Wsl2Driver52698UsesWindowsFloor) {
  const Plan& p = plan_for("torch_wsl2_driver_526_98");
  expect_stack(p, "2.7.1", "11.8", "9.1.0.70", "3.11", "520.06");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu118");
  EXPECT_EQ(p.recommended->support, "full");
  const Exclusion* e = exclusion_for(p, "2.14.0", "cu126");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has(e->why, "driver")) << e->why;
}

// No driver, no GPU, Python 3.12: newest 2.14.1, newest CUDA cu132. Only 2.0.x/2.1.x (max 3.11)
// are excluded, for Python.
TEST(PlanPytorch, UnknownDriverAndGpuConstrainNothing) {
  const Plan& p = plan_for("torch_linux_unknown_driver_cc");
  expect_stack(p, "2.14.1", "13.2", "9.24.0.43", "3.12", nullptr);
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu132");
  EXPECT_EQ(p.recommended->support, "driver unknown");
  for (const auto& e : p.excluded) {
    EXPECT_FALSE(has(e.why, "driver")) << e.what << ": " << e.why;
    EXPECT_FALSE(names_architecture(e.why)) << e.what << ": " << e.why;
  }
  for (const char* v : {"2.2.0", "2.5.1", "2.8.0", "2.11.0", "2.14.0"})
    for (const auto& variant : variants_of("pytorch", v))
      EXPECT_EQ(exclusion_for(p, v, variant), nullptr) << v << " " << variant << "\n" << dump(p);
}

// macOS: no CUDA there (pytorch.csv's macOS builds are `cpu` only) -> ok false.
TEST(PlanPytorch, MacosHasNoCuda) {
  const Plan& p = plan_for("torch_macos");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_FALSE(p.excluded.empty()) << dump(p);
  bool says_macos = false;
  for (const auto& e : p.excluded) says_macos = says_macos || has(e.why, "macOS");
  EXPECT_TRUE(says_macos) << dump(p);
}

// --framework-version 2.5 (matches 2.5.0 and 2.5.1): newest 2.5.1 (cu124, cu121, cu118).
// 535.54.03 >= 525.60.13, but < 550.54.14 (12.4's own) -> cu124 is minor-version compat;
// cu121's own floor 530.30.02 is met -> full first: 2.5.1 cu121. Newest without the pin: cu13x
// need 580 -> 2.14.1 cu126 (sm_86 listed, Python 3.11 in 3.10-3.15).
TEST(PlanPytorch, PinnedMinorVersion) {
  const Plan& p = plan_for("torch_pin_2_5");
  expect_stack(p, "2.5.1", "12.1", "9.1.0.70", "3.11", "525.60.13");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu121");
  EXPECT_EQ(p.recommended->support, "full");
  EXPECT_NE(alternative(p, "2.14.1", "cu126"), nullptr) << dump(p);
}

// --cuda 11.8: cu118 rows are 2.0.0-2.7.1; newest 2.7.1 cu118. 535.54.03 >= 520.61.05 -> full.
TEST(PlanPytorch, PinnedCuda118) {
  const Plan& p = plan_for("torch_pin_cuda_11_8");
  expect_stack(p, "2.7.1", "11.8", "9.1.0.70", "3.10", "455.23");  // the GPU's (cc 8.6) first driver
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cu118");
  EXPECT_EQ(p.recommended->support, "full");
}

// ============================================================================ JAX

// JAX has no CUDA wheels for native Windows (jax.csv platforms: linux) -> ok false, "use WSL2".
TEST(PlanJax, NativeWindowsNeedsWsl2) {
  const Plan& p = plan_for("jax_windows_native");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_TRUE(change_mentions(p, "WSL2")) << dump(p);
}

// Linux driver 535.54.03, Python 3.11, RTX 3090: cuda13 plugins need 580 -> out. 0.11.2 needs
// Python 3.12. Newest cuda12 plugin with 3.11: 0.10.2 (3.11-3.14; cuda_min 12.1, cudnn_min 9.8,
// docs floor 525).
TEST(PlanJax, LinuxDriver535PicksCuda12PluginForPython) {
  const Plan& p = plan_for("jax_linux_driver_535_py311");
  expect_stack(p, "0.10.2", "12.1", "9.8", "3.11", "525");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->framework, "jax");
  EXPECT_EQ(p.recommended->package, "jax");
  EXPECT_EQ(p.recommended->variant, "cuda12");
  const Exclusion* py = exclusion_for(p, "0.11.2", "cuda12");
  ASSERT_NE(py, nullptr) << dump(p);
  EXPECT_TRUE(has_any(py->why, {"Python", "3.11"})) << py->why;
  const Exclusion* drv = exclusion_for(p, "0.10.2", "cuda13");
  ASSERT_NE(drv, nullptr) << dump(p);
  EXPECT_TRUE(has(drv->why, "driver")) << drv->why;
  EXPECT_TRUE(any_command_has(p, "cuda12"));
}

// Titan V (7.0), driver 580.82.07: cuda13 min_sm 7.5 -> out (architecture); 0.11.2 cuda12
// (min_sm 5.2; sm_70 in CUDA 12.9) -> recommended.
TEST(PlanJax, VoltaGetsCuda12NotCuda13) {
  const Plan& p = plan_for("jax_titanv_driver_580");
  expect_stack(p, "0.11.2", "12.1", "9.8", "3.12", "525");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cuda12");
  const Exclusion* e = exclusion_for(p, "0.11.2", "cuda13");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(names_architecture(e->why) || has_any(e->why, {"7.0", "7.5"})) << e->why;
}

// GTX 1080 Ti (6.1): same as Volta -> 0.11.2 cuda12.
TEST(PlanJax, PascalGetsCuda12NotCuda13) {
  const Plan& p = plan_for("jax_gtx1080ti_driver_580");
  expect_stack(p, "0.11.2", "12.1", "9.8", "3.12", "525");
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cuda12");
}

// RTX 5090 (12.0), Python 3.13. pip installs the newest CUDA wheels of a plugin's major, so the
// driver is judged against those: with 580.82.07, jax[cuda12] gets CUDA 12.9 (575.51.03: full)
// and jax[cuda13] CUDA 13.4 (615.71.09: minor-version compatibility only) -> 0.11.2 cuda12, with
// cuda13 the alternative; the same with 610.43.02 (13.3's floor, below 13.4's). With 615.71.09 both
// are full -> cuda13 (the newer CUDA).
TEST(PlanJax, BlackwellGetsCuda13WhereTheDriverRunsItFully) {
  for (const char* scenario : {"jax_rtx5090_driver_580", "jax_rtx5090_driver_610"}) {
    const Plan& p = plan_for(scenario);
    ASSERT_TRUE(p.recommended) << dump(p);
    EXPECT_EQ(p.recommended->variant, "cuda12") << scenario << dump(p);
    EXPECT_EQ(p.recommended->support, "full") << dump(p);
    EXPECT_NE(alternative(p, "0.11.2", "cuda13"), nullptr) << dump(p);
  }
  const Plan& q = plan_for("jax_rtx5090_driver_615");
  expect_stack(q, "0.11.2", "13.0", "9.12", "3.13", "580");  // cuDNN: the pip pin (>= 9.12.0.46), the first with a CUDA 13 build
  if (!q.recommended) return;
  EXPECT_EQ(q.recommended->variant, "cuda13");
  EXPECT_EQ(q.recommended->support, "full");
}

// Python 3.7: jax.csv python_min is 3.8 at the oldest (0.4.0) -> ok false, change names Python.
TEST(PlanJax, PythonTooOld) {
  const Plan& p = plan_for("jax_python_3_7");
  EXPECT_FALSE(p.ok) << dump(p);
  EXPECT_FALSE(p.recommended.has_value());
  EXPECT_TRUE(change_mentions(p, "Python")) << dump(p);
}

// --cuda 11.8 (JAX: a plugin whose CUDA floor is <= 11.8): cuda11_pip 0.4.7-0.4.25 (floor 11.8)
// and cuda11_cudnn86/82; cuda12* floors are >= 12.0. Newest with Python 3.10: 0.4.25 cuda11_pip
// (3.9-3.11, cudnn_min 8.6).
TEST(PlanJax, PinnedCuda118) {
  const Plan& p = plan_for("jax_pin_cuda_11_8");
  expect_stack(p, "0.4.25", "11.8", "8.6", "3.10", nullptr);
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cuda11_pip");
}

// Linux driver 470.57.02: cuda12 plugins need 525 (docs floor; 0.4.7-0.4.25 cuda12_pip have no
// docs floor, so the CUDA 12 compat floor 525.60.13 applies) and cuda13 580 -> out. Newest CUDA 11
// plugin with Python 3.10: 0.4.25 cuda11_pip (470.57.02 >= 450.80.02).
TEST(PlanJax, OldDriverFallsBackToCuda11Plugin) {
  const Plan& p = plan_for("jax_linux_old_driver_470");
  expect_stack(p, "0.4.25", "11.8", "8.6", "3.10", nullptr);
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cuda11_pip");
  const Exclusion* e = exclusion_for(p, "0.4.26", "cuda12");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has(e->why, "driver")) << e->why;
  EXPECT_TRUE(change_mentions(p, "driver")) << dump(p);
}

// WSL2 (Linux wheels), Windows driver 560.94, Python 3.12, RTX 4090: cuda13 needs the 580
// branch -> out; 0.11.2 cuda12 (560.94 >= 525 and >= 527.41) -> recommended, os wsl2.
TEST(PlanJax, Wsl2UsesLinuxPlugins) {
  const Plan& p = plan_for("jax_wsl2_driver_560");
  ASSERT_TRUE(p.ok) << dump(p);
  ASSERT_TRUE(p.recommended.has_value());
  EXPECT_EQ(p.recommended->framework_version, "0.11.2");
  EXPECT_EQ(p.recommended->variant, "cuda12");
  EXPECT_EQ(p.recommended->cuda, "12.1");
  EXPECT_EQ(p.recommended->os, "wsl2");
  const Exclusion* e = exclusion_for(p, "0.11.2", "cuda13");
  ASSERT_NE(e, nullptr) << dump(p);
  EXPECT_TRUE(has(e->why, "driver")) << e->why;
}

// Nothing known but Python 3.12: newest 0.11.2, newest CUDA: cuda13. Nothing excluded for
// driver or architecture.
TEST(PlanJax, UnknownDriverAndGpuConstrainNothing) {
  const Plan& p = plan_for("jax_linux_unknown_driver_cc");
  expect_stack(p, "0.11.2", "13.0", "9.12", "3.12", nullptr);
  if (!p.recommended) return;
  EXPECT_EQ(p.recommended->variant, "cuda13");
  EXPECT_EQ(p.recommended->support, "driver unknown");
  for (const auto& e : p.excluded) {
    EXPECT_FALSE(has(e.why, "driver")) << e.what << ": " << e.why;
    EXPECT_FALSE(names_architecture(e.why)) << e.what << ": " << e.why;
  }
  for (const char* v : {"0.8.0", "0.10.0", "0.11.0"})
    for (const auto& variant : variants_of("jax", v))
      EXPECT_EQ(exclusion_for(p, v, variant), nullptr) << v << " " << variant << "\n" << dump(p);
}

// ============================================================================ invariants

namespace {

std::string major_minor(const Version& v) { return std::to_string(v.major()) + "." + std::to_string(v.minor()); }

// Newest framework version in the tables.
Version newest_row(const std::string& framework) {
  const auto& k = knowledge::Compat::embedded();
  Version best = ver("0");
  if (framework == "tensorflow")
    for (const auto& r : k.tensorflow) best = std::max(best, r.version);
  if (framework == "pytorch")
    for (const auto& r : k.pytorch) best = std::max(best, r.version);
  if (framework == "jax")
    for (const auto& r : k.jax) best = std::max(best, r.version);
  return best;
}

// sm runnable from a wheel list: exact, a lower minor of the same major, or PTX for a newer GPU.
bool runnable(const std::set<int>& list, bool ptx, int sm) {
  for (int s : list)
    if (s == sm || (s / 10 == sm / 10 && s < sm)) return true;
  return ptx && !list.empty() && *list.rbegin() < sm;
}

void check_invariants(const std::string& name, const Machine& m, const Plan& p) {
  SCOPED_TRACE(name);
  const auto& k = knowledge::Compat::embedded();
  EXPECT_EQ(p.ok, p.recommended.has_value());
  for (const auto& e : p.excluded) {
    EXPECT_FALSE(e.what.empty());
    EXPECT_FALSE(e.why.empty()) << e.what;
  }
  if (p.ok) {
    EXPECT_FALSE(p.steps.empty());
    for (const auto& s : p.steps) EXPECT_FALSE(s.title.empty());
  }
  for (const auto& c : p.changes) EXPECT_FALSE(c.changes.empty());
  if (!p.recommended) return;
  const Stack& r = *p.recommended;
  EXPECT_EQ(r.framework, m.framework);
  if (m.os) {
    EXPECT_EQ(r.os, m.os);
  }
  EXPECT_LE(ver(r.framework_version), newest_row(m.framework));
  // Python within the stack's range.
  const auto dash = r.python_range.find('-');
  ASSERT_NE(dash, std::string::npos) << r.python_range;
  const Version lo = ver(r.python_range.substr(0, dash)), hi = ver(r.python_range.substr(dash + 1));
  const Version py = ver(r.python);
  EXPECT_GE(py, lo) << r.python_range;
  EXPECT_LE(py, hi) << r.python_range;
  if (m.python) {
    EXPECT_EQ(r.python, major_minor(ver(m.python)));
  }
  // Driver meets the stack's floor.
  if (m.driver && !r.min_driver.empty()) {
    EXPECT_GE(ver(m.driver), ver(r.min_driver));
  }
  if (m.driver) {
    EXPECT_NE(r.support, "driver unknown");
  }
  if (!m.driver) {
    EXPECT_EQ(r.support, "driver unknown");
  }
  // Pins.
  if (m.framework_version) {
    const std::string pin = m.framework_version;
    EXPECT_TRUE(r.framework_version == pin || r.framework_version.rfind(pin + ".", 0) == 0) << r.framework_version;
  }
  if (m.cuda && std::string(m.framework) != "jax") {
    EXPECT_EQ(major_minor(ver(r.cuda)), major_minor(ver(m.cuda)));
  }
  if (m.cuda && std::string(m.framework) == "jax") {
    EXPECT_LE(ver(r.cuda), ver(m.cuda));
  }
  // Platform.
  if (std::string(m.framework) == "tensorflow" && m.os && std::string(m.os) == "windows") {
    EXPECT_LE(ver(r.framework_version), ver("2.10.1"));
  }
  if (std::string(m.framework) == "jax") {
    EXPECT_TRUE(r.os == "linux" || r.os == "wsl2") << r.os;
  }
  // Architecture.
  if (m.cc) {
    const int sm = knowledge::sm_of(ver(m.cc));
    if (std::string(m.framework) == "tensorflow") {
      const auto* a = k.arch_row(ver(r.cuda));
      if (a) {
        EXPECT_GE(sm, a->min_sm) << "CUDA " << r.cuda;
      }
    }
    if (std::string(m.framework) == "pytorch") {
      const auto* row = torch_row(r.framework_version, r.variant);
      ASSERT_NE(row, nullptr) << r.framework_version << " " << r.variant;
      std::set<int> list = row->sm;
      bool ptx = row->ptx;
      if (list.empty() && row->cuda)
        if (const auto* a = k.arch_row(*row->cuda)) list = a->sm, ptx = false;
      EXPECT_TRUE(runnable(list, ptx, sm)) << r.framework_version << " " << r.variant << " sm_" << sm;
    }
    if (std::string(m.framework) == "jax") {
      for (const auto& row : k.jax) {
        if (row.version.str() == r.framework_version && row.pip_extra == r.variant && row.min_sm) {
          EXPECT_GE(ver(m.cc), *row.min_sm);
        }
      }
    }
  }
}

void check_json(const std::string& name, const Machine& m, const Plan& p) {
  SCOPED_TRACE(name);
  const nlohmann::json j = plan::plan_to_json(p);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.value("schema", ""), "gpuready.plan/1");
  ASSERT_TRUE(j.contains("ok") && j["ok"].is_boolean());
  EXPECT_EQ(j["ok"].get<bool>(), p.ok);
  ASSERT_TRUE(j.contains("inputs") && j["inputs"].is_object());
  const auto& in = j["inputs"];
  const std::pair<const char*, const char*> given[] = {{"os", m.os},         {"gpu", m.gpu},         {"cc", m.cc},
                                                       {"driver", m.driver}, {"python", m.python}, {"framework", m.framework}};
  for (const auto& [key, value] : given) {
    ASSERT_TRUE(in.contains(key)) << key;
    if (value) {
      ASSERT_TRUE(in[key].is_string()) << key << ": " << in[key].dump();
      if (std::string(key) == "python" || std::string(key) == "cc" || std::string(key) == "driver")
        EXPECT_EQ(in[key].get<std::string>(), ver(value).str()) << key;
      else
        EXPECT_EQ(in[key].get<std::string>(), value) << key;
    } else {
      EXPECT_TRUE(in[key].is_null()) << key << ": " << in[key].dump();
    }
  }
  ASSERT_TRUE(j.contains("recommended"));
  if (!p.ok) {
    EXPECT_TRUE(j["recommended"].is_null());
  } else {
    const auto& r = j["recommended"];
    ASSERT_TRUE(r.is_object());
    const Stack& s = *p.recommended;
    const std::pair<const char*, const std::string*> fields[] = {
        {"framework", &s.framework}, {"framework_version", &s.framework_version}, {"package", &s.package},
        {"python", &s.python},       {"cuda", &s.cuda},                           {"cudnn", &s.cudnn},
        {"min_driver", &s.min_driver}, {"os", &s.os}};
    for (const auto& [key, value] : fields) {
      ASSERT_TRUE(r.contains(key) && r[key].is_string()) << key;
      EXPECT_EQ(r[key].get<std::string>(), *value) << key;
    }
  }
  ASSERT_TRUE(j.contains("alternatives") && j["alternatives"].is_array());
  EXPECT_EQ(j["alternatives"].size(), p.alternatives.size());
  for (const auto& a : j["alternatives"]) {
    EXPECT_TRUE(a.is_object());
    for (const char* key : {"framework", "framework_version", "package", "python", "cuda", "cudnn", "min_driver", "os"})
      EXPECT_TRUE(a.contains(key) && a[key].is_string()) << "alternative." << key;
  }
  ASSERT_TRUE(j.contains("excluded") && j["excluded"].is_array());
  EXPECT_EQ(j["excluded"].size(), p.excluded.size());
  for (const auto& e : j["excluded"]) {
    ASSERT_TRUE(e.is_object());
    EXPECT_TRUE(e.contains("what") && e["what"].is_string());
    EXPECT_TRUE(e.contains("why") && e["why"].is_string());
  }
  ASSERT_TRUE(j.contains("steps") && j["steps"].is_array());
  EXPECT_EQ(j["steps"].size(), p.steps.size());
  for (const auto& s : j["steps"]) {
    ASSERT_TRUE(s.is_object());
    EXPECT_TRUE(s.contains("title") && s["title"].is_string());
    ASSERT_TRUE(s.contains("commands") && s["commands"].is_array());
    for (const auto& c : s["commands"]) EXPECT_TRUE(c.is_string());
  }
  if (j.contains("changes")) {
    EXPECT_TRUE(j["changes"].is_array());
  }
}

}  // namespace

TEST(PlanInvariants, EveryScenario) {
  EXPECT_GE(scenarios().size(), 30u);
  for (const auto& [name, m] : scenarios()) check_invariants(name, m, plan_for(name));
}

TEST(PlanJson, EveryScenarioFollowsTheContract) {
  for (const auto& [name, m] : scenarios()) check_json(name, m, plan_for(name));
}

// The walkthrough's JSON, field by field (docs/plan.md's example).
TEST(PlanJson, WalkthroughDocument) {
  const nlohmann::json j = plan::plan_to_json(plan_for("tf_walkthrough"));
  EXPECT_EQ(j["schema"], "gpuready.plan/1");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["inputs"]["os"], "windows");
  EXPECT_EQ(j["inputs"]["gpu"], "GeForce GTX 1650");
  EXPECT_EQ(j["inputs"]["cc"], "7.5");
  EXPECT_EQ(j["inputs"]["driver"], "546.33");
  EXPECT_EQ(j["inputs"]["python"], "3.8");
  EXPECT_EQ(j["inputs"]["framework"], "tensorflow");
  const auto& r = j["recommended"];
  EXPECT_EQ(r["framework"], "tensorflow");
  EXPECT_EQ(r["framework_version"], "2.10.1");
  EXPECT_EQ(r["package"], "tensorflow");
  EXPECT_EQ(r["python"], "3.8");
  EXPECT_EQ(r["cuda"], "11.2");
  EXPECT_EQ(r["cudnn"], "8.1");
  EXPECT_EQ(r["min_driver"], "452.39");
  EXPECT_EQ(r["os"], "windows");
  bool tf211 = false;
  for (const auto& e : j["excluded"])
    if (e["what"].get<std::string>().rfind("tensorflow 2.11", 0) == 0) tf211 = has(e["why"].get<std::string>(), "WSL2");
  EXPECT_TRUE(tf211) << j["excluded"].dump(2);
}

// Unknown inputs are null in the JSON; a failed plan has recommended: null.
TEST(PlanJson, UnknownInputsAndNoFitAreNull) {
  const nlohmann::json u = plan::plan_to_json(plan_for("torch_linux_unknown_driver_cc"));
  EXPECT_TRUE(u["inputs"]["driver"].is_null());
  EXPECT_TRUE(u["inputs"]["cc"].is_null());
  EXPECT_TRUE(u["inputs"]["gpu"].is_null());
  const nlohmann::json m = plan::plan_to_json(plan_for("torch_macos"));
  EXPECT_EQ(m["ok"], false);
  EXPECT_TRUE(m["recommended"].is_null());
}
