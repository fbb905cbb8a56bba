// gpuready's entry point: parses the command line and dispatches to one subcommand.
#include <cstdio>
#include <exception>

#include "cli/build_info.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace gpuready::cli;
  gpuready::harden_process();
  gpuready::prepare_heap();
  CLI::App app{"gpuready: is this machine ready for GPU deep learning, and if not, exactly what to do"};
  app.set_version_flag("--version", version_text, "Print the version, commit, build day, the knowledge tables' date and the optional parts, and exit");
  app.require_subcommand(0, 1);
  int exit_code = kExitOk;
  setup_probe(app, &exit_code);
  setup_plan(app, &exit_code);
  setup_doctor(app, &exit_code);
  setup_explain(app, &exit_code);
  setup_report(app, &exit_code);
  setup_verify(app, &exit_code);
  setup_probe_driver(app, &exit_code);
  setup_verify_copy(app, &exit_code);
  setup_verify_gpu(app, &exit_code);
  setup_bench(app, &exit_code);
  setup_bench_engine(app, &exit_code);
  setup_completion(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuready: internal error: %s\n", e.what());
    return kExitUsage;
  }
  if (app.get_subcommands().empty()) {
    // `gpuready` alone is the main job: the doctor.
    return run_doctor_defaults();
  }
  return exit_code;
}
