// Golden files for the reports people read (tests/golden/*.txt): the doctor on real
// snapshots and the plan for the walkthrough's machine, compared line by line. A golden line
// may hold wildcards: {N} for a version or number (digits and dots), {*} for any text (paths,
// titles that quote data). GPUREADY_UPDATE_GOLDEN=1 rewrites a file from the output (then put
// the wildcards back by hand). Colour: escapes only when asked for.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "doctor/doctor.h"
#include "plan/plan.h"
#include "report/doctor_console.h"
#include "report/plan_console.h"
#include "support/test_os.h"

using namespace gpuready;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::regex golden_line(const std::string& g) {
  std::string re;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g.compare(i, 3, "{N}") == 0) {
      re += "[0-9]+(\\.[0-9]+)*";
      i += 2;
    } else if (g.compare(i, 3, "{*}") == 0) {
      re += ".*";
      i += 2;
    } else {
      if (std::string("\\^$.|?*+()[]{}").find(g[i]) != std::string::npos) re += '\\';
      re += g[i];
    }
  }
  return std::regex(re);
}

void expect_golden(const std::string& name, const std::string& output) {
  const std::string path = std::string(GPUREADY_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("GPUREADY_UPDATE_GOLDEN")) {
    std::ofstream(path) << output;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << "no golden file " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  const auto want = lines(ss.str()), got = lines(output);
  for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const std::string w = i < want.size() ? want[i] : "<end>", g = i < got.size() ? got[i] : "<end>";
    ASSERT_TRUE(i < want.size() && i < got.size() && std::regex_match(g, golden_line(w)))
        << name << " line " << i + 1 << "\n  golden: " << w << "\n  output: " << g << "\n--- whole output:\n"
        << output;
  }
}

}  // namespace

TEST(Golden, WildcardsMatchNumbersAndTextOnly) {
  EXPECT_TRUE(std::regex_match("driver 580.159.04 ok", golden_line("driver {N} ok")));
  EXPECT_FALSE(std::regex_match("driver abc ok", golden_line("driver {N} ok")));
  EXPECT_TRUE(std::regex_match("seen: /any/path (x)", golden_line("seen: {*} (x)")));
  EXPECT_FALSE(std::regex_match("seen: a (y)", golden_line("seen: {*} (x)")));
  EXPECT_TRUE(std::regex_match("a.b [c]", golden_line("a.b [c]")));
  EXPECT_FALSE(std::regex_match("axb [c]", golden_line("a.b [c]")));
}

TEST(Golden, DoctorOnTheHealthyH200IsShort) {
  const Snapshot s = test::fixture_snapshot("h200.json");
  expect_golden("doctor-h200.txt", render_doctor_console(doctor::diagnose(s, knowledge::Compat::embedded()), s));
}

TEST(Golden, DoctorOnABrokenTensorflowMachineSaysWhatToDoInOrder) {
  const Snapshot s = test::fixture_snapshot("h200-broken-tf210.json");
  expect_golden("doctor-broken-tf210.txt",
                render_doctor_console(doctor::diagnose(s, knowledge::Compat::embedded()), s));
}

TEST(Golden, DoctorWithoutAGpu) {
  const Snapshot s = test::fixture_snapshot("nogpu-debian12.json");
  expect_golden("doctor-nogpu.txt", render_doctor_console(doctor::diagnose(s, knowledge::Compat::embedded()), s));
}

TEST(Golden, PlanForTheWalkthroughMachine) {
  plan::PlanInputs in;
  in.os = "windows";
  in.gpu = "NVIDIA GeForce GTX 1650";
  in.cc = Version::of({7, 5});
  in.driver = Version::parse("546.33");
  in.python = Version::of({3, 8});
  in.framework = "tensorflow";
  for (const char* k : {"os", "gpu", "cc", "driver", "python", "framework"}) in.source[k] = "flag";
  expect_golden("plan-walkthrough.txt", render_plan_console(plan::make_plan(knowledge::Compat::embedded(), in)));
}

TEST(Golden, ColourOnlyWhenAskedFor) {
  const Snapshot s = test::fixture_snapshot("h200-broken-tf210.json");
  const auto r = doctor::diagnose(s, knowledge::Compat::embedded());
  const std::string plain = render_doctor_console(r, s);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  ConsoleStyle style;
  style.color = true;
  const std::string coloured = render_doctor_console(r, s, style);
  EXPECT_NE(coloured.find("\x1b[1;31mNOT READY\x1b[0m"), std::string::npos);
  EXPECT_NE(coloured.find("\x1b[1;33m"), std::string::npos);  // the PCIe warning's number
}
