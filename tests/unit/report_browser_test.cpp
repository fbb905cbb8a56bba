// `gpuready report`'s pages in a real browser (label "browser"; CI installs Debian's chromium-headless-shell): pages
// made by the gpuready executable from the fixture snapshots of real machines are loaded under their own
// Content-Security-Policy, which forbids every load; the DOM the browser built is checked (the verdict, every finding
// code, one SVG per chart with one bar per value) and so is the browser's log: a blocked request or a script error
// appears there as a console message, and none may. A control page with an external image and an inline script shows
// the log does catch both. Screenshots land in the build folder (docs/report.md shows one).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/snapshot.h"
#include "support/test_os.h"
#include "doctor/doctor.h"
#include "knowledge/compat.h"
#include "platform/os.h"

using namespace gpuready;

namespace {

std::optional<std::string> browser() {
  for (const char* p : {"/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell",
                        "/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(p)) return std::string(p);
  return std::nullopt;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Loaded {
  std::string dom;      // the DOM after loading, serialised (--dump-dom)
  std::string console;  // the console messages the browser logged (CSP violations, script errors, console.*)
};

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    exe_ = browser();
    if (!exe_) GTEST_SKIP() << "no Chromium here (apt install chromium-headless-shell)";
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuready-browser-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(dir_ / "profile");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  ProcResult run(std::vector<std::string> args) const {
    ProcOptions o;
    o.timeout = std::chrono::seconds(120);
    o.max_output = 32u << 20;
    return real_os().proc.run(args, o);
  }

  std::vector<std::string> browser_args(const std::string& page) const {
    std::vector<std::string> a = {*exe_, "--no-sandbox", "--disable-gpu", "--no-first-run",
                                  "--user-data-dir=" + (dir_ / "profile").string(), "--enable-logging=stderr", "--v=0"};
    if (exe_->find("headless-shell") == std::string::npos) a.push_back("--headless");
    a.push_back("file://" + page);
    return a;
  }

  Loaded load(const std::string& page) const {
    auto args = browser_args(page);
    args.insert(args.end() - 1, "--dump-dom");
    const ProcResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Loaded l;
    l.dom = r.out;
    std::istringstream err(r.err);
    for (std::string line; std::getline(err, line);)
      if (line.find(":CONSOLE") != std::string::npos) l.console += line + "\n";
    return l;
  }

  // gpuready report --replay <fixture> -o <dir>/<name>.html, as a user makes the page.
  std::string make_page(const std::string& fixture) const {
    const std::string page = (dir_ / (fixture + ".html")).string();
    const ProcResult r = run({GPUREADY_EXE, "report", "--replay",
                              std::string(GPUREADY_FIXTURES) + "/snapshots/" + fixture, "-o", page});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return page;
  }

  void screenshot(const std::string& page, const std::string& png) const {
    auto args = browser_args(page);
    args.insert(args.end() - 1, {"--hide-scrollbars", "--window-size=1100,2600", "--screenshot=" + png});
    const ProcResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(png)) << r.err;
  }

  std::optional<std::string> exe_;
  std::filesystem::path dir_;
};

}  // namespace

TEST_F(BrowserTest, TheLogCatchesBlockedLoadsAndScripts) {
  const std::string page = (dir_ / "control.html").string();
  std::ofstream(page) << "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                         "content=\"default-src 'none'\"></head><body><p>control</p>"
                         "<img src=\"https://example.invalid/x.png\"><script>document.title = 'ran';</script>"
                         "</body></html>";
  const Loaded l = load(page);
  EXPECT_NE(l.dom.find("<p>control</p>"), std::string::npos) << l.dom;
  EXPECT_NE(l.console.find("example.invalid"), std::string::npos) << l.console;
  EXPECT_NE(l.console.find("inline script"), std::string::npos) << l.console;
}

TEST_F(BrowserTest, EveryFixturePageLoadsCleanWithItsVerdictFindingsAndCharts) {
  struct Case {
    const char* fixture;
    std::vector<size_t> bars;  // per chart, in order
  };
  for (const Case& c : {Case{"nogpu-debian12.json", {}}, Case{"h200.json", {}}, Case{"h200-broken-tf210.json", {}},
                        Case{"h200-verified.json", {6, 1, 4, 3}}, Case{"walkthrough-windows.json", {}}}) {
    SCOPED_TRACE(c.fixture);
    const std::string page = make_page(c.fixture);
    const Loaded l = load(page);
    EXPECT_EQ(l.console, "") << "the browser logged a blocked load or a script error";
    const Snapshot s = test::fixture_snapshot(c.fixture);
    const doctor::Report r = doctor::diagnose(s, knowledge::Compat::embedded());
    EXPECT_NE(l.dom.find(r.ready ? "data-ready=\"true\"" : "data-ready=\"false\""), std::string::npos);
    EXPECT_EQ(count(l.dom, "<li class=\"finding "), r.findings.size());
    for (const auto& f : r.findings) EXPECT_NE(l.dom.find("data-code=\"" + f.code + "\""), std::string::npos) << f.code;
    // One SVG per chart, one bar per value: counted chart by chart in the DOM the browser built.
    std::vector<size_t> bars;
    for (size_t at = l.dom.find("<svg"); at != std::string::npos; at = l.dom.find("<svg", at + 1)) {
      const size_t end = l.dom.find("</svg>", at);
      ASSERT_NE(end, std::string::npos);
      bars.push_back(count(l.dom.substr(at, end - at), "<rect class=\"bar"));
    }
    EXPECT_EQ(bars, c.bars);
    // The snapshot block is in the DOM, not run.
    EXPECT_EQ(count(l.dom, "<script"), 1u);
    EXPECT_NE(l.dom.find("id=\"gpuready-snapshot\""), std::string::npos);
  }
}

// A page with bench's report, made on this machine (the CPU engine runs; a GPU where there is one).
TEST_F(BrowserTest, APageWithBenchLoadsCleanWithItsCharts) {
  if (!std::filesystem::exists(std::filesystem::path(GPUREADY_EXE).parent_path() / "libgpuready-cpu.so"))
    GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  const std::string page = (dir_ / "bench.html").string();
  const ProcResult made = run({GPUREADY_EXE, "report", "--bench", "--bench-images", "300", "-o", page});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const Loaded l = load(page);
  EXPECT_EQ(l.console, "");
  const size_t at = l.dom.find("<section id=\"bench\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = l.dom.substr(at, l.dom.find("</section>", at) - at);
  EXPECT_EQ(count(section, "<svg"), 2u);
  EXPECT_GE(count(section, "<rect class=\"bar"), 2u);
  EXPECT_EQ(count(l.dom, "<script"), 2u);
}

TEST_F(BrowserTest, ScreenshotsOfTheH200Page) {
  const std::string page = make_page("h200-verified.json");
  const auto out = std::filesystem::path(GPUREADY_BINARY_DIR) / "report-screenshots";
  std::filesystem::create_directories(out);
  screenshot(page, (out / "report-h200-verified.png").string());
  screenshot(make_page("nogpu-debian12.json"), (out / "report-nogpu.png").string());
  screenshot(make_page("walkthrough-windows.json"), (out / "report-walkthrough-windows.png").string());
}
