// `gpuready doctor` (and `gpuready` alone): probe this machine (or --replay a saved snapshot),
// run every rule, print the verdict, the three CUDA versions and what to do in order.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "doctor/doctor.h"
#include "doctor/rules.h"
#include "probe/probe.h"
#include "report/doctor_console.h"

namespace gpuready::cli {
namespace {

struct DoctorCmdOptions {
  bool json = false;
  std::string replay;
  std::vector<std::string> frameworks;
  std::vector<std::string> python;
  bool list_rules = false;
  double timeout_s = 10;
  bool deep = false;
  double framework_timeout_s = 60;
};

// The shell the user types the next command into (a replayed snapshot's OS is another machine's).
#ifdef _WIN32
constexpr const char* kShell = "windows";
#else
constexpr const char* kShell = "linux";
#endif

int run_doctor_cmd(const DoctorCmdOptions& o) {
  if (o.list_rules) {
    for (const auto& r : doctor::all_rules())
      std::printf("%-36s %-5s %s\n", r.code, doctor::severity_name(r.severity), r.checks);
    return kExitOk;
  }
  auto found = replay_or_probe(real_os(), "doctor", o.replay, o.python, o.timeout_s, o.deep, o.framework_timeout_s);
  if (!found) return kExitUsage;
  const Snapshot& snap = *found;
  doctor::Options dopts;
  for (const auto& fw : o.frameworks) dopts.frameworks.push_back(framework_flag(fw));
  const doctor::Report r = doctor::diagnose(snap, knowledge::Compat::embedded(), dopts);
  if (o.json) {
    const std::string text =
        doctor::report_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    ConsoleStyle style;
    style.color = stdout_wants_color();
    std::fputs(render_doctor_console(r, snap, style).c_str(), stdout);
    // The one line that turns this answer into a page to share.
    if (!r.findings.empty())
      std::printf("\nTo share this with whoever helps you: gpuready report%s  (one HTML page: these findings and the "
                  "facts behind them)\n",
                  o.replay.empty() ? "" : (" --replay " + doctor::shell_word(kShell, o.replay)).c_str());
  }
  return r.ready ? kExitOk : kExitProblems;
}

}  // namespace

int run_doctor_defaults() { return run_doctor_cmd(DoctorCmdOptions{}); }

void setup_doctor(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DoctorCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "doctor", "Is this machine ready for GPU deep learning? Findings with evidence and exact fixes, in order "
                "(the default command)");
  sub->add_flag("--json", o->json, "Print the report as JSON (schema gpuready.doctor/1)");
  auto* replay = sub->add_option("--replay", o->replay,
                                 "Diagnose a saved snapshot (gpuready probe --save FILE) instead of this machine")
                     ->type_name("FILE");
  sub->add_option("--framework", o->frameworks, "Also give a verdict for this framework (repeatable)")
      ->check(CLI::IsMember(kFrameworkFlagValues));
  sub->add_option("--python", o->python, "Also inspect this Python interpreter (repeatable)")->type_name("PATH");
  sub->add_flag("--list-rules", o->list_rules, "List every rule's code, severity and what it checks");
  sub->add_option("--timeout", o->timeout_s, "Seconds any child process (driver probe, interpreter) may take")
      ->check(CLI::Range(0.1, 600.0));
  add_deep_flags(sub, &o->deep, &o->framework_timeout_s)->excludes(replay);
  sub->callback([o, exit_code] { *exit_code = run_doctor_cmd(*o); });
}

}  // namespace gpuready::cli
