// `gpuready __verify-copy` (hidden): measures copy bandwidth through the CUDA driver in this
// process (verify/copy.h) and prints the CopyReport as one JSON line on stdout. `verify` runs it
// as a child with a timeout, so a driver or GPU that hangs costs a timeout, not the run. Before each
// step and each copy it writes kDriverStepPrefix + the name on stderr, so the parent can say where
// a hang or crash happened. Exits 0 whenever it printed a report, as `__probe-driver` does: what
// failed is in the report's steps and results.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "probe/nvidia_driver.h"
#include "verify/copy.h"

namespace gpuready::cli {

void setup_verify_copy(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<verify::CopyOptions>();
  CLI::App* sub = app.add_subcommand("__verify-copy", "");  // empty description: hidden from --help
  sub->group("");
  sub->add_option("--bytes", o->bytes)->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  sub->add_option("--samples", o->samples)->check(CLI::Range(1, 1000));
  sub->add_option("--copies", o->copies_per_sample)->check(CLI::Range(1, 10000));
  sub->add_option("--warmup", o->warmup)->check(CLI::Range(0, 1000));
  sub->add_option("--device", o->device)->check(CLI::Range(0, 1023));
  sub->add_option("--only", o->only);
  sub->add_option("--libcuda", o->cuda_candidates);
  sub->add_option("--nvml", o->nvml_candidates);
  sub->add_flag("--plant-corruption", o->plant_corruption);
  sub->callback([o, exit_code] {
    const verify::CopyReport report = verify::measure_copies(real_os(), *o, [](const std::string& step) {
      std::fprintf(stderr, "%s%s\n", kDriverStepPrefix, step.c_str());
      std::fflush(stderr);
    });
    nlohmann::json j = report;
    std::fputs((j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    std::fflush(stdout);
    *exit_code = kExitOk;
  });
}

}  // namespace gpuready::cli
