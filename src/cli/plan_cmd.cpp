// `gpuready plan`: the newest compatible stack for this machine (probed) or one described by
// flags, with alternatives, exclusions, changes and install steps (docs/plan.md).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "knowledge/compat.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "report/plan_console.h"

namespace gpuready::cli {
namespace {

struct PlanCmdOptions {
  std::string os, gpu, cc, driver, python, framework, framework_version, cuda;
  std::string data, snapshot;
  bool no_probe = false;
  bool json = false;
  double timeout_s = 10;
};

int usage(const std::string& msg) {
  std::fprintf(stderr, "gpuready plan: %s\n", msg.c_str());
  return kExitUsage;
}

// "3.8", "3.8.10" -> 3.8; a compute capability "7.5"; a driver "546.33".
std::optional<Version> parse_flag_version(const std::string& text, size_t min_parts) {
  auto v = Version::parse(text);
  if (!v || !v->suffix.empty() || v->parts.size() < min_parts) return std::nullopt;
  return v;
}

int run_plan_cmd(const PlanCmdOptions& o) {
  const Os& os = real_os();

  // The knowledge: compiled in, or a newer folder.
  std::optional<knowledge::Compat> from_dir;
  const knowledge::Compat* k = &knowledge::Compat::embedded();
  if (!o.data.empty()) {
    std::string err;
    auto kn = knowledge::Knowledge::load_dir(os.fs, o.data, &err);
    if (!kn) return usage("--data " + o.data + ": " + err);
    from_dir = knowledge::Compat::from(*kn, &err);
    if (!from_dir) return usage("--data " + o.data + ": " + err);
    k = &*from_dir;
  }

  // Flags, checked before any probing.
  plan::PlanInputs flags;
  if (!o.os.empty()) flags.os = o.os;
  if (!o.framework.empty()) flags.framework = framework_flag(o.framework);
  if (!o.cc.empty()) {
    flags.cc = parse_flag_version(o.cc, 2);
    if (!flags.cc || flags.cc->major() < 1 || flags.cc->major() > 20 || flags.cc->minor() > 9)
      return usage("--cc \"" + o.cc + "\" is not a compute capability like 7.5");
  }
  if (!o.gpu.empty()) {
    flags.gpu = o.gpu;
    std::vector<const knowledge::GpuRow*> rows;
    const auto cc = k->gpu_cc(o.gpu, &rows);
    if (rows.size() == 1) flags.gpu = rows.front()->name;
    if (cc) {
      if (!flags.cc) flags.cc = cc;
    } else if (!flags.cc) {
      std::string msg;
      if (!rows.empty()) {  // "Tesla": boards of several compute capabilities
        msg = "GPU \"" + o.gpu + "\" is " + std::to_string(rows.size()) +
              " GPUs of different compute capabilities; give the full name or --cc:";
        for (size_t i = 0; i < rows.size() && i < 12; ++i)
          msg += "\n  " + rows[i]->name + " (compute capability " + rows[i]->cc.major_minor().str() + ")";
      } else {
        msg = "GPU \"" + o.gpu + "\" is not in gpuready's GPU table; give its compute capability with --cc";
        const auto like = k->gpu_names_like(o.gpu, 8);
        if (!like.empty()) {
          msg += ". Names that match:";
          for (const auto& n : like) msg += "\n  " + n;
        }
      }
      return usage(msg);
    }
  }
  if (!o.driver.empty()) {
    if (!(flags.driver = parse_flag_version(o.driver, 1)))
      return usage("--driver \"" + o.driver + "\" is not a driver version like 546.33");
    flags.driver = k->driver_release(*flags.driver);  // "450.80" is the 450.80.02 release
  }
  if (!o.python.empty()) {
    auto v = parse_flag_version(o.python, 2);
    if (!v || v->major() != 3) return usage("--python \"" + o.python + "\" is not a Python 3 version like 3.10");
    flags.python = v->major_minor();
  }
  if (!o.cuda.empty() && !(flags.cuda = parse_flag_version(o.cuda, 1)))
    return usage("--cuda \"" + o.cuda + "\" is not a CUDA version like 12.4");
  if (!o.framework_version.empty()) {
    if (!parse_flag_version(o.framework_version, 1))
      return usage("--framework-version \"" + o.framework_version + "\" is not a version like 2.10");
    flags.framework_version = o.framework_version;
  }

  // Facts of the machine: a saved snapshot, or this machine's probe.
  plan::PlanInputs in;
  std::vector<std::string> notes;
  std::optional<Snapshot> snap;
  std::string label;
  if (!o.snapshot.empty()) {
    std::string err;
    snap = read_snapshot_file(o.snapshot, &err);
    if (!snap) return usage(err);
    label = "snapshot";
  } else if (!o.no_probe) {
    ProbeOptions opts = isolated_probe_options(os, o.timeout_s);
    opts.cuda_init = CudaInitPolicy::never;  // the plan needs NVML's facts only
    snap = run_probe(os, opts);
    label = "probe";
  }
  if (snap) {
    in = plan::inputs_from_snapshot(*k, *snap, label, flags.framework, &notes);
    if (flags.os && in.os && *flags.os != *in.os) {
      notes = {fmt::format("planning for another machine (--os {}): nothing was taken from this machine's {}",
                           *flags.os, label)};
      in = {};
    }
  }
  // A flag overrides the machine's fact.
  auto take = [&](auto& dst, const auto& src, const char* field) {
    if (src) {
      dst = src;
      in.source[field] = "flag";
    }
  };
  take(in.os, flags.os, "os");
  take(in.gpu, flags.gpu, "gpu");
  take(in.cc, flags.cc, "cc");
  if (flags.cc && !flags.gpu && in.gpu) {
    in.gpu.reset();  // a probed name would not match the given compute capability
    in.source.erase("gpu");
  }
  take(in.driver, flags.driver, "driver");
  take(in.python, flags.python, "python");
  take(in.framework, flags.framework, "framework");
  take(in.framework_version, flags.framework_version, "framework_version");
  take(in.cuda, flags.cuda, "cuda");
  if (flags.cc) in.no_nvidia_gpu = false;
  if (!in.framework) {
    in.framework = "pytorch";
    in.source["framework"] = "default";
    notes.push_back("no framework given or found in a Python environment: planned for PyTorch (give --framework)");
  }

  plan::Plan p = plan::make_plan(*k, in);
  p.notes.insert(p.notes.begin(), notes.begin(), notes.end());
  if (o.json) {
    const std::string text =
        plan::plan_to_json(p).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::fputs(render_plan_console(p).c_str(), stdout);
  }
  return p.ok ? kExitOk : kExitProblems;
}

}  // namespace

void setup_plan(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<PlanCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan", "The newest framework stack (framework, CUDA, cuDNN, Python, driver) that fits this machine, or one "
              "described by flags, and how to install it");
  sub->add_option("--os", o->os, "Target OS")->check(CLI::IsMember({"linux", "windows", "wsl2", "macos"}));
  sub->add_option("--gpu", o->gpu, "GPU product name, e.g. \"GeForce GTX 1650\"")->type_name("NAME");
  sub->add_option("--cc", o->cc, "GPU compute capability, e.g. 7.5")->type_name("X.Y");
  sub->add_option("--driver", o->driver, "NVIDIA driver version, e.g. 546.33")->type_name("VERSION");
  sub->add_option("--python", o->python, "Python version, e.g. 3.10")->type_name("X.Y");
  sub->add_option("--framework", o->framework, "Framework to plan for")->check(CLI::IsMember(kFrameworkFlagValues));
  sub->add_option("--framework-version", o->framework_version, "Pin a framework release: 2.4 or 2.4.0")
      ->type_name("V");
  sub->add_option("--cuda", o->cuda, "Pin the CUDA of the build: 11.8, or a major: 12")->type_name("X.Y");
  sub->add_option("--data", o->data, "Read the knowledge tables from DIR instead of the compiled-in copy")
      ->type_name("DIR");
  auto* snapshot =
      sub->add_option("--snapshot", o->snapshot, "Plan for a machine probed elsewhere (gpuready probe --save FILE)")
          ->type_name("FILE");
  sub->add_flag("--no-probe", o->no_probe, "Use the flags only; do not probe this machine")->excludes(snapshot);
  sub->add_flag("--json", o->json, "Print the plan as JSON (schema gpuready.plan/1)");
  sub->add_option("--timeout", o->timeout_s, "Seconds the probe's child processes may take")
      ->check(CLI::Range(0.1, 600.0));
  sub->callback([o, exit_code] { *exit_code = run_plan_cmd(*o); });
}

}  // namespace gpuready::cli
