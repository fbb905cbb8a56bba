// `gpuready report`: the doctor's answer and the facts behind it as one self-contained HTML page to look at and to
// share (report/html_report.h, docs/report.md). Probes this machine (or --replay a snapshot or an earlier page; or
// --verify: gpuready verify's snapshot with what it measured), optionally runs gpuready bench (--bench), diagnoses it
// and writes the page. verify and bench run as gpuready's own children, each with a timeout.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "core/redact.h"
#include "doctor/doctor.h"
#include "platform/child.h"
#include "probe/probe.h"
#include "report/html_report.h"

namespace gpuready::cli {
namespace {

struct ReportCmdOptions {
  std::string output;
  std::string replay;
  std::vector<std::string> frameworks;
  std::vector<std::string> python;
  double timeout_s = 10;
  bool deep = false;
  double framework_timeout_s = 60;
  bool redact = false;
  bool verify = false;      // run `gpuready verify` first: its snapshot, with what it measured
  bool bench = false;       // run `gpuready bench` too: the CPU against the GPU
  int bench_images = 4000;  // bench's --images
  double measure_timeout_s = 3600;
};

// gpuready itself with `args` in a child process (with a timeout; its own children keep theirs): its stdout, or
// nullopt with *why. Exit codes 0 and 1 are answers (1: verify found a failing check, bench a device that could not
// run); anything else is not.
std::optional<std::string> run_self(const Os& os, std::vector<std::string> args, const std::string& what,
                                    double timeout_s, std::string* why) {
  const auto self = os.proc.self_path();
  if (!self) {
    *why = "cannot find this executable to run " + what;
    return std::nullopt;
  }
  ChildSpec spec;
  spec.argv = {*self};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.what = what;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  spec.max_output = 16u << 20;
  spec.interrupt = [] { return interrupted(); };
  const ChildRun run = run_child(os, spec);
  if (run.end == ChildRun::End::exited || (run.end == ChildRun::End::failed && run.proc.exit_code == 1))
    return run.proc.out;
  *why = run.summary(what);
  return std::nullopt;
}

int run_report_cmd(const ReportCmdOptions& o) {
  const Os& os = real_os();
  Snapshot snap;
  std::optional<nlohmann::json> bench;
  if (o.verify) {
    // verify probes, imports the frameworks and measures; the snapshot it saves is the page's.
    std::string why;
    const auto dir = make_temp_dir("report", &why);
    if (!dir) {
      std::fprintf(stderr, "gpuready report: %s\n", why.c_str());
      return kExitUsage;
    }
    const std::string saved = *dir + "/verified.json";
    std::fputs("gpuready report: running gpuready verify (copies, GEMM, cuDNN, memory, nvcc, the frameworks)\n", stderr);
    const auto out = run_self(os, {"verify", "--json", "--save", saved}, "gpuready verify", o.measure_timeout_s, &why);
    std::optional<Snapshot> verified;
    if (out) verified = read_snapshot_file(saved, &why);
    remove_tree(*dir);
    if (!verified) {
      std::fprintf(stderr, "gpuready report: verify gave no result: %s\n", why.c_str());
      return kExitProblems;
    }
    snap = std::move(*verified);
  } else {
    auto found = replay_or_probe(os, "report", o.replay, o.python, o.timeout_s, o.deep, o.framework_timeout_s);
    if (!found) return kExitUsage;
    snap = std::move(*found);
  }
  if (o.bench) {
    std::string why;
    std::fputs("gpuready report: running gpuready bench (the walkthrough's CNN on the CPU and the GPU)\n", stderr);
    const auto out = run_self(os, {"bench", "--json", "--images", std::to_string(o.bench_images)}, "gpuready bench",
                              o.measure_timeout_s, &why);
    if (out) {
      auto j = nlohmann::json::parse(*out, nullptr, false);
      if (!j.is_discarded() && j.is_object() && j.contains("runs")) bench = std::move(j);
      else why = "gpuready bench printed no report";
    }
    if (!bench) {
      std::fprintf(stderr, "gpuready report: bench gave no result: %s\n", why.c_str());
      return kExitProblems;
    }
  }
  if (o.redact) {
    Redaction what;
    snap = redact(snap, &what);
    std::fprintf(stderr, "gpuready report: redacted %s (--redact)\n", what.summary().c_str());
  }
  doctor::Options dopts;
  for (const auto& fw : o.frameworks) dopts.frameworks.push_back(framework_flag(fw));
  const doctor::Report r = doctor::diagnose(snap, knowledge::Compat::embedded(), dopts);
  const std::string when = utc_now();
  const std::string path = o.output.empty() ? default_report_name(snap, when) : o.output;
  const std::string page = render_html_report(r, snap, when, bench ? &*bench : nullptr);
  // Only a regular file or a new one: opening a FIFO to write would wait for a reader without end.
  if (const auto st = os.fs.stat(path, nullptr); st && st->type != FileStat::Type::regular) {
    std::fprintf(stderr, "gpuready report: %s is %s, not a file to write the page to\n", path.c_str(),
                 st->type == FileStat::Type::directory ? "a folder" : "a device, pipe or socket");
    return kExitUsage;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(page.data(), static_cast<std::streamsize>(page.size()));
  f.close();
  if (!f) {
    std::fprintf(stderr, "gpuready report: cannot write %s\n", path.c_str());
    return kExitUsage;
  }
  std::fputs(fmt::format("gpuready report: wrote {} ({} KiB; {}, {} finding{}): open it in a browser, or attach it "
                         "where you ask for help; the snapshot is inside it (gpuready doctor --replay {})\n",
                         path, (page.size() + 1023) / 1024, r.ready ? "ready" : "not ready", r.findings.size(),
                         r.findings.size() == 1 ? "" : "s", path)
                 .c_str(),
             stdout);
  return kExitOk;
}

}  // namespace

void setup_report(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ReportCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "Write the doctor's answer and the facts behind it as one self-contained HTML page to share");
  sub->add_option("-o,--output", o->output, "The page to write (default: gpuready-report-<host>-<date>.html here)")
      ->type_name("FILE.html");
  auto* replay = sub->add_option("--replay", o->replay,
                                 "Report on a saved snapshot (gpuready probe --save FILE) or an earlier report page")
                     ->type_name("FILE");
  sub->add_option("--framework", o->frameworks, "Also give a verdict for this framework (repeatable)")
      ->check(CLI::IsMember(kFrameworkFlagValues));
  sub->add_option("--python", o->python, "Also inspect this Python interpreter (repeatable)")->type_name("PATH");
  sub->add_option("--timeout", o->timeout_s, "Seconds any child process (driver probe, interpreter) may take")
      ->check(CLI::Range(0.1, 600.0));
  sub->add_flag("--redact", o->redact,
                "Replace the host name, user names in paths, UUIDs and IP addresses (consistently), to post the page "
                "publicly");
  auto* verify = sub->add_flag("--verify", o->verify,
                               "Run gpuready verify first and draw what it measured (copies, GEMM, cuDNN, memory)")
                     ->excludes(replay);
  sub->add_flag("--bench", o->bench, "Also run gpuready bench (the CNN epoch on the CPU and the GPU) and draw it")
      ->excludes(replay);
  sub->add_option("--bench-images", o->bench_images, "bench's --images (default 4000)")->check(CLI::Range(10, 10000000));
  sub->add_option("--measure-timeout", o->measure_timeout_s, "Seconds verify and bench may take (default 3600)")
      ->check(CLI::Range(1.0, 86400.0));
  add_deep_flags(sub, &o->deep, &o->framework_timeout_s)->excludes(replay)->excludes(verify);
  sub->callback([o, exit_code] { *exit_code = run_report_cmd(*o); });
}

}  // namespace gpuready::cli
