// `gpuready probe`: collect the Snapshot of this machine and print it (console or
// --json), optionally saving it with --save.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "core/redact.h"
#include "core/snapshot.h"
#include "probe/probe.h"
#include "report/console.h"

namespace gpuready::cli {
namespace {

struct ProbeCmdOptions {
  bool json = false;
  std::string save;
  std::vector<std::string> python;
  bool cuda = false;
  bool no_cuda = false;
  bool in_process = false;
  double timeout_s = 10;
  bool deep = false;
  double framework_timeout_s = 60;
  bool redact = false;
};

int run_probe_cmd(const ProbeCmdOptions& o) {
  const Os& os = real_os();
  ProbeOptions opts = isolated_probe_options(os, o.timeout_s);
  if (o.in_process) opts.driver_probe_argv.clear();
  opts.python_paths = o.python;
  opts.cuda_init = o.cuda ? CudaInitPolicy::always : o.no_cuda ? CudaInitPolicy::never : CudaInitPolicy::automatic;
  set_deep_options(opts, o.deep, o.framework_timeout_s);
  Snapshot snap = run_probe(os, opts);
  if (o.redact) {
    Redaction what;
    snap = redact(snap, &what);
    std::fprintf(stderr, "gpuready probe: redacted %s (--redact)\n", what.summary().c_str());
  }
  const nlohmann::json j = snapshot_to_json(snap);
  // Invalid UTF-8 from a file name or a vendor string must not abort the report: replace it.
  const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string err;
  if (!o.save.empty() && !save_snapshot_file(o.save, snap, &err)) {
    std::fprintf(stderr, "gpuready: %s\n", err.c_str());
    return kExitUsage;
  }
  if (o.json) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::fputs(render_snapshot_console(snap).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace

void setup_probe(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ProbeCmdOptions>();
  CLI::App* sub = app.add_subcommand("probe", "Collect the facts of this machine: OS, CPU, GPUs, driver, toolkits, "
                                              "libraries, Python environments and frameworks");
  sub->add_flag("--json", o->json, "Print the snapshot as JSON (schema gpuready.snapshot/1)");
  sub->add_option("--save", o->save, "Also write the snapshot JSON to FILE")->type_name("FILE");
  sub->add_flag("--redact", o->redact,
                "Replace the host name, user names in paths, UUIDs and IP addresses (consistently) before showing or "
                "saving, to post the snapshot publicly");
  sub->add_option("--python", o->python, "Also inspect this Python interpreter (repeatable)")->type_name("PATH");
  auto* cuda = sub->add_flag("--cuda", o->cuda, "Always initialise the CUDA driver (cuInit, ~0.2 s) for device "
                                                "count, SMs and memory bus");
  sub->add_flag("--no-cuda", o->no_cuda, "Never call cuInit")->excludes(cuda);
  sub->add_flag("--in-process", o->in_process, "Talk to the driver inside this process instead of an isolated child");
  sub->add_option("--timeout", o->timeout_s, "Seconds any child process (driver probe, interpreter) may take")
      ->check(CLI::Range(0.1, 600.0));
  add_deep_flags(sub, &o->deep, &o->framework_timeout_s);
  sub->callback([o, exit_code] { *exit_code = run_probe_cmd(*o); });
}

}  // namespace gpuready::cli
