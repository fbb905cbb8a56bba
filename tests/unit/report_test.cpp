// `gpuready report`: the HTML/SVG writer (escaping, the snapshot block, charts), the page made from the fixture
// snapshots of real machines, and the command (the page written, read back by doctor --replay, bad outputs refused).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/redact.h"
#include "core/snapshot.h"
#include "support/test_os.h"
#include "doctor/doctor.h"
#include "knowledge/compat.h"
#include "parse/report_html.h"
#include "platform/os.h"
#include "report/html.h"
#include "report/html_report.h"

using namespace gpuready;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string page_of(const Snapshot& s) {
  return render_html_report(doctor::diagnose(s, knowledge::Compat::embedded()), s, "2026-12-07T21:30:00Z");
}

ProcResult run_exe(std::vector<std::string> args) {
  args.insert(args.begin(), GPUREADY_EXE);
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  return real_os().proc.run(args, o);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST(Html, EscapesEveryCharacterThatMakesMarkup) {
  EXPECT_EQ(html::escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(html::escape("plain text, é and ✓"), "plain text, é and ✓");  // valid UTF-8 stays
  EXPECT_EQ(html::escape("tab\tand\nnewline"), "tab\tand\nnewline");
}

TEST(Html, ReplacesBytesThatAreNotText) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(html::escape("a\xFF"
                         "b"),
            "a" + r + "b");                                  // not UTF-8
  EXPECT_EQ(html::escape("\xC0\xAF"), r + r);               // an overlong '/'
  EXPECT_EQ(html::escape("\xED\xA0\x80"), r + r + r);       // a UTF-16 surrogate
  EXPECT_EQ(html::escape("\xE2\x9C"), r + r);               // cut short
  EXPECT_EQ(html::escape("\x1b[31mred\x1b[0m"), r + "[31mred" + r + "[0m");  // a terminal's colours
  EXPECT_EQ(html::escape(std::string("nul\0x", 5)), "nul" + r + "x");
}

TEST(Html, ScriptJsonCannotEndItsBlock) {
  const nlohmann::json j = {{"path", "</script><script>alert(1)</script><!-- & -->"}, {"n", 3}};
  const std::string text = html::script_json(j);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(text.find('>'), std::string::npos) << text;
  EXPECT_EQ(text.find('&'), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text), j);
  // Invalid UTF-8 from the machine does not stop the page.
  EXPECT_NO_THROW(html::script_json(nlohmann::json{{"name", "GPU \xFF"}}));
}

TEST(Html, ChartDrawsOneBarPerValueAndOneMarkPerLimit) {
  html::BarChart c;
  c.title = "Copies <against> the link";
  c.unit = "GB/s";
  c.bars = {{"h2d <pinned>", 50, 64, "50 GB/s", "pass"}, {"d2h", 30, 64, "30 GB/s", "warn"}, {"d2d", 4000, 0, "", ""}};
  const std::string svg = html::svg_bar_chart(c);
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "<rect class=\"bar"), 3u);
  EXPECT_EQ(count(svg, "<line class=\"limit\""), 2u);
  EXPECT_NE(svg.find("<rect class=\"bar warn\""), std::string::npos);
  EXPECT_EQ(svg.find("<pinned>"), std::string::npos);
  EXPECT_NE(svg.find("h2d &lt;pinned&gt;"), std::string::npos);
  EXPECT_NE(svg.find("role=\"img\""), std::string::npos);
  // The largest bar spans the whole bar area (400 units), the others in proportion.
  EXPECT_NE(svg.find("width=\"400.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("width=\"5.0\""), std::string::npos) << svg;  // 50 of 4000
}

TEST(Report, StringsFromTheMachineNeverBecomeMarkup) {
  Snapshot s = test::fixture_snapshot("h200.json");
  s.hostname = Fact<std::string>("<img src=x onerror=alert(1)>");
  LibraryCopy hostile;
  hostile.library = "cudnn";
  hostile.path = "/opt/<script>alert(1)</script>/libcudnn.so.9";
  hostile.file_name = "libcudnn.so.9";
  hostile.origin = "LD_LIBRARY_PATH";
  s.libraries.copies.push_back(hostile);
  s.notes.push_back("a note with </section><script>alert(2)</script>");
  const std::string page = page_of(s);
  EXPECT_EQ(count(page, "<script"), 1u) << "only the snapshot's data block";
  EXPECT_NE(page.find("<script type=\"application/json\" id=\"gpuready-snapshot\">"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("/opt/&lt;script&gt;alert(1)&lt;/script&gt;/libcudnn.so.9"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  // The snapshot comes back whole, hostile strings included.
  const auto inside = parse::embedded_snapshot_json(page);
  ASSERT_TRUE(inside.has_value());
  EXPECT_EQ(snapshot_to_json(snapshot_from_json(nlohmann::json::parse(*inside))), snapshot_to_json(s));
}

TEST(Report, EveryFixtureMachineGetsItsVerdictAndFindings) {
  for (const char* name :
       {"h200.json", "nogpu-debian12.json", "h200-broken-tf210.json", "h200-cuda.json", "walkthrough-windows.json"}) {
    const Snapshot s = test::fixture_snapshot(name);
    const doctor::Report r = doctor::diagnose(s, knowledge::Compat::embedded());
    const std::string page = render_html_report(r, s, "2026-12-07T21:30:00Z");
    EXPECT_NE(page.find(r.ready ? "data-ready=\"true\"" : "data-ready=\"false\""), std::string::npos) << name;
    EXPECT_EQ(count(page, "<li class=\"finding "), r.findings.size()) << name;
    for (const auto& f : r.findings) EXPECT_NE(page.find("data-code=\"" + f.code + "\""), std::string::npos) << name;
    for (const auto& g : s.nvidia.gpus) {
      if (g.name.has()) {
        EXPECT_NE(page.find(html::escape(g.name.value())), std::string::npos) << name;
      }
    }
    // Self-contained: nothing to load from anywhere, and a policy that forbids it.
    EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
    for (const char* load : {"src=", "href=", "url(", "@import"}) EXPECT_EQ(page.find(load), std::string::npos) << load;
    EXPECT_EQ(count(page, "<svg"), 0u) << name << ": no measurements, no chart";
  }
  EXPECT_NE(page_of(test::fixture_snapshot("nogpu-debian12.json")).find("data-code=\"gpu.none\""), std::string::npos);
}

TEST(Report, WhatVerifyMeasuredIsDrawnAgainstItsLimits) {
  Snapshot s = test::fixture_snapshot("h200.json");
  auto m = [](std::string key, double v, double limit, std::string unit, std::string status) {
    Measurement x;
    x.key = std::move(key);
    x.value = v;
    if (limit > 0) {
      x.limit = limit;
      x.ratio = v / limit;
    }
    x.unit = std::move(unit);
    x.status = std::move(status);
    return x;
  };
  s.measurements = {m("copy.h2d_pinned", 52.1, 63.0, "GB/s", "pass"), m("copy.d2h_pinned", 30.2, 63.0, "GB/s", "warn"),
                    m("copy.d2d", 4200, 4800, "GB/s", "pass"), m("gemm.fp32", 50.8, 67, "TFLOP/s", "pass"),
                    m("gemm.bf16", 718.6, 989, "TFLOP/s", "pass"), m("cudnn.load", 0, 0, "", "pass")};
  const std::string page = page_of(s);
  EXPECT_EQ(count(page, "<svg"), 3u);  // copies over the link, the copy in the GPU's memory, products
  EXPECT_EQ(count(page, "<rect class=\"bar"), 5u);
  EXPECT_EQ(count(page, "<line class=\"limit\""), 5u);
  EXPECT_NE(page.find("Matrix products against the datasheet peak (TFLOP/s)"), std::string::npos);
  EXPECT_NE(page.find("cudnn.load"), std::string::npos);  // in the table, not charted
}

TEST(Report, DefaultNameIsAPlainFileName) {
  Snapshot s;
  s.hostname = Fact<std::string>("../../etc/x y;z");
  EXPECT_EQ(default_report_name(s, "2026-12-07T21:30:00Z"), "gpuready-report-etcxyz-2026-12-07.html");
  s.hostname = Fact<std::string>::unknown("not reported");
  EXPECT_EQ(default_report_name(s, "2026-12-07T21:30:00Z"), "gpuready-report-host-2026-12-07.html");
}

TEST(ReportHtml, FindsTheSnapshotBlockOnly) {
  EXPECT_TRUE(parse::looks_like_html("\xEF\xBB\xBF  <!DOCTYPE html>"));
  EXPECT_FALSE(parse::looks_like_html(" {\"schema\": 1}"));
  EXPECT_FALSE(parse::looks_like_html(""));
  EXPECT_EQ(parse::embedded_snapshot_json("<p><script type=\"application/json\" id=\"gpuready-snapshot\">{\"a\":1}"
                                          "</script>"),
            std::optional<std::string_view>("{\"a\":1}"));
  EXPECT_FALSE(parse::embedded_snapshot_json("<p>id=\"gpuready-snapshot\"</p>").has_value());  // not in a script tag
  EXPECT_FALSE(parse::embedded_snapshot_json("<script id=\"gpuready-snapshot\">{").has_value());  // not closed
  EXPECT_FALSE(parse::embedded_snapshot_json("<html><body>a page</body></html>").has_value());
}

TEST(ReportCli, WritesThePageThatDoctorReplays) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuready-report-test-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(dir);
  const std::string fx = std::string(GPUREADY_FIXTURES) + "/snapshots/";
  const std::string page = (dir / "nogpu.html").string();
  const ProcResult made = run_exe({"report", "--replay", fx + "nogpu-debian12.json", "-o", page});
  ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
  EXPECT_NE(made.out.find("wrote " + page), std::string::npos) << made.out;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("data-code=\"gpu.none\""), std::string::npos);
  // doctor --replay reads the page as it reads the snapshot: the same answer.
  const ProcResult from_page = run_exe({"doctor", "--replay", page, "--json"});
  const ProcResult from_json = run_exe({"doctor", "--replay", fx + "nogpu-debian12.json", "--json"});
  EXPECT_EQ(from_page.exit_code, 1) << from_page.err;
  EXPECT_EQ(from_page.out, from_json.out);
  // The doctor's console ends with the line that makes the page.
  const ProcResult console = run_exe({"doctor", "--replay", page});
  EXPECT_NE(console.out.find("gpuready report --replay " + page), std::string::npos) << console.out;
  // Refused in words: a folder to write to, a page without a snapshot, a snapshot that is not there.
  const ProcResult folder = run_exe({"report", "--replay", fx + "h200.json", "-o", dir.string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("is a folder"), std::string::npos) << folder.err;
  {
    std::ofstream other(dir / "other.html");
    other << "<!DOCTYPE html><html><body>not ours</body></html>";
  }
  const ProcResult other = run_exe({"doctor", "--replay", (dir / "other.html").string()});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("without a gpuready snapshot"), std::string::npos) << other.err;
  const ProcResult missing = run_exe({"report", "--replay", (dir / "missing.json").string(), "-o", page});
  EXPECT_EQ(missing.exit_code, 2);
  std::filesystem::remove_all(dir);
}

TEST(Redact, ReplacesNamesConsistentlyAndKeepsVersions) {
  Snapshot s;
  s.hostname = Fact<std::string>("alice-laptop");
  s.nvidia.driver_version = Fact<std::string>("580.159.04");
  NvidiaGpu g;
  g.name = Fact<std::string>("NVIDIA GeForce GTX 1650");
  g.uuid = Fact<std::string>("GPU-5f3a0d2e-8c1b-4e6f-9a7d-1b2c3d4e5f60");
  s.nvidia.gpus.push_back(g);
  PythonEnv env;
  env.interpreter = "/home/alice/venv/bin/python";
  env.version = Fact<std::string>("3.12.3");
  s.python.push_back(env);
  Toolkit t;
  t.root = "C:\\Users\\Bob Smith\\miniconda3\\Library";
  t.version = Fact<std::string>("11.2.0.152");  // four numbers, a version: not an address
  s.toolkits.push_back(t);
  s.notes = {"ran /home/alice/venv/bin/python on alice-laptop (ALICE-LAPTOP.local)",
             "NCCL: connect to 10.0.0.12:29500 refused; localhost 127.0.0.1 is fine",
             "pip (nvidia_cublas-13.1.0.3.dist-info), cuda-11.2.0.152; MASTER_ADDR=10.0.0.12 and tcp://192.168.1.7:29500.",
             "GPU-5F3A0D2E-8C1B-4E6F-9A7D-1B2C3D4E5F60 fell off the bus", "/home/Public and /home/user-1 stay"};
  Redaction what;
  const Snapshot r = redact(s, &what);
  EXPECT_EQ(r.hostname.value(), "host-1");
  EXPECT_EQ(r.python[0].interpreter, "/home/user-1/venv/bin/python");
  EXPECT_EQ(r.toolkits[0].root, "C:\\Users\\user-2\\miniconda3\\Library");
  EXPECT_EQ(r.nvidia.gpus[0].uuid.value(), "GPU-uuid-1");
  EXPECT_EQ(r.notes[0], "ran /home/user-1/venv/bin/python on host-1 (host-1.local)");
  EXPECT_EQ(r.notes[1], "NCCL: connect to ip-1:29500 refused; localhost 127.0.0.1 is fine");
  EXPECT_EQ(r.notes[2], "pip (nvidia_cublas-13.1.0.3.dist-info), cuda-11.2.0.152; MASTER_ADDR=ip-1 and tcp://ip-2:29500.");
  EXPECT_EQ(r.notes[3], "GPU-uuid-1 fell off the bus");  // the same GPU, whatever the case
  EXPECT_EQ(r.notes[4], "/home/Public and /home/user-1 stay");
  EXPECT_EQ(r.nvidia.driver_version.value(), "580.159.04");
  EXPECT_EQ(r.toolkits[0].version.value(), "11.2.0.152");
  EXPECT_EQ(r.nvidia.gpus[0].name.value(), "NVIDIA GeForce GTX 1650");
  EXPECT_EQ(what.summary(), "the host name, 2 user names, 1 UUID and 2 IP addresses");
  // Nothing of the kind left in a real machine's snapshot, and it still diagnoses the same.
  const Snapshot h = test::fixture_snapshot("h200.json");
  const Snapshot hr = redact(h);
  const std::string text = snapshot_to_json(hr).dump();
  for (const auto& gpu : h.nvidia.gpus) {
    if (gpu.uuid.has()) {
      EXPECT_EQ(text.find(gpu.uuid.value()), std::string::npos);
    }
  }
  // The same diagnosis, finding for finding: versions (pip's "13.1.0.3", "==13.1.0.3") are not addresses.
  for (const char* name : {"h200.json", "walkthrough-windows.json", "h200-verified.json"}) {
    const Snapshot before = test::fixture_snapshot(name);
    Redaction seen;
    const Snapshot after = redact(before, &seen);
    auto codes = [](const Snapshot& x) {
      std::vector<std::string> c;
      for (const auto& f : doctor::diagnose(x, knowledge::Compat::embedded()).findings) c.push_back(f.code);
      return c;
    };
    EXPECT_EQ(codes(after), codes(before)) << name;
    EXPECT_EQ(seen.addresses, 0) << name << ": " << seen.summary();
  }
  Snapshot versions;
  versions.notes = {"pip: nvidia-cublas==13.1.0.3; torch>=2.11.0.1, nvidia_cublas-13.1.0.3.dist-info", "13.1.0.3"};
  EXPECT_EQ(redact(versions).notes, versions.notes);
}

TEST(ReportCli, RedactSaysWhatItReplaced) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpuready-redact-test-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(dir);
  const std::string page = (dir / "p.html").string();
  const ProcResult r = run_exe({"report", "--redact", "--replay",
                                std::string(GPUREADY_FIXTURES) + "/snapshots/h200.json", "-o", page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("redacted the host name"), std::string::npos) << r.err;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("gpuready report: host-1"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// bench's report on the page: the numbers of the H200 machine's run of 2026-12-01 (docs/bench.md: 4.21 s on the 16
// CPU cores, 0.17 s on the GPU, 24.7x), with an engine name that tries to be markup.
TEST(Report, BenchIsDrawnAndEmbedded) {
  const nlohmann::json bench = {
      {"schema", "gpuready.bench/1"},
      {"model", {{"layers", "Conv2D 32 3x3 + ReLU, ..."}, {"input", "28x28x1"}}},
      {"dataset", {{"source", "synthetic"}, {"train", 60000}}},
      {"runs",
       {{{"device", "cpu"}, {"engine", "oneDNN 2.6.3 (16 threads)<b>"}, {"precision", "fp32"}, {"epoch_seconds", 4.21},
         {"first_epoch_seconds", 4.5}, {"images_per_second", 14252.0}, {"accuracy", 0.99}, {"error", ""}},
        {{"device", "gpu"}, {"engine", "cuDNN 9.14.0 + cuBLAS 13.1.0"}, {"precision", "fp32"}, {"epoch_seconds", 0.17},
         {"first_epoch_seconds", 0.6}, {"images_per_second", 352941.0}, {"accuracy", 0.99}, {"error", ""}},
        {{"device", "gpu"}, {"engine", ""}, {"error", "no GPU"}}}},
      {"speedup", 24.7}};
  const Snapshot s = test::fixture_snapshot("h200.json");
  const std::string page =
      render_html_report(doctor::diagnose(s, knowledge::Compat::embedded()), s, "2026-12-07T21:30:00Z", &bench);
  EXPECT_NE(page.find("The GPU trains 24.7x as fast as the CPU."), std::string::npos);
  EXPECT_EQ(count(page, "<svg"), 2u);  // seconds per epoch, images per second
  EXPECT_EQ(count(page, "<rect class=\"bar"), 4u);  // two devices ran, each in both
  EXPECT_EQ(page.find("(16 threads)<b>"), std::string::npos);
  EXPECT_NE(page.find("(16 threads)&lt;b&gt;"), std::string::npos);
  EXPECT_NE(page.find(">no GPU<"), std::string::npos);  // the run that failed, in the table
  EXPECT_EQ(count(page, "<script"), 2u);  // the snapshot's block and bench's
  const std::string open = "<script type=\"application/json\" id=\"gpuready-bench\">";
  const size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const size_t end = page.find("</script>", at);
  EXPECT_EQ(nlohmann::json::parse(page.substr(at + open.size(), end - at - open.size())), bench);
}

TEST(ReportCli, BenchRunsHereAndIsOnThePage) {
  if (!std::filesystem::exists(std::filesystem::path(GPUREADY_EXE).parent_path() / "libgpuready-cpu.so"))
    GTEST_SKIP() << "the CPU module was not built (oneDNN: apt install libdnnl-dev)";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpuready-bench-report-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(dir);
  const std::string page = (dir / "b.html").string();
  const ProcResult r = run_exe({"report", "--bench", "--bench-images", "300", "-o", page});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("id=\"gpuready-bench\""), std::string::npos);
  EXPECT_NE(html.find("oneDNN"), std::string::npos);  // the CPU's run, drawn
  EXPECT_GE(count(html, "<rect class=\"bar"), 2u);
  // bench measures this machine: not with another machine's snapshot.
  EXPECT_EQ(run_exe({"report", "--bench", "--replay", std::string(GPUREADY_FIXTURES) + "/snapshots/h200.json"}).exit_code,
            2);
  std::filesystem::remove_all(dir);
}
