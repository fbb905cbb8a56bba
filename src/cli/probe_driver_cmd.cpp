// `gpuready __probe-driver` (hidden): talks to NVML and the CUDA driver and prints the
// NvidiaDriverFacts as JSON. `probe` runs it as a child with a timeout, so a driver
// that hangs or crashes on first contact costs a finding, not the whole probe. Before each
// driver call it names the call on stderr, so the parent can say where a hang or crash happened.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "probe/nvidia_driver.h"
#include "probe/probe.h"

namespace gpuready::cli {

void setup_probe_driver(CLI::App& app, int* exit_code) {
  struct Opts {
    bool cuda = false;
    bool no_cuda = false;
    std::vector<std::string> nvml, cuda_libs;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("__probe-driver", "");  // empty description: hidden from --help
  sub->group("");
  sub->add_flag("--cuda", o->cuda);
  sub->add_flag("--no-cuda", o->no_cuda);
  sub->add_option("--nvml", o->nvml);
  sub->add_option("--libcuda", o->cuda_libs);
  sub->callback([o, exit_code] {
    ProbeOptions opts;
    opts.cuda_init = o->cuda ? CudaInitPolicy::always : o->no_cuda ? CudaInitPolicy::never : CudaInitPolicy::automatic;
    opts.nvml_candidates = o->nvml;
    opts.cuda_candidates = o->cuda_libs;
    NvidiaDriverFacts facts;
    collect_nvidia_in_process(real_os(), opts, facts, [](const std::string& step) {
      std::fprintf(stderr, "%s%s\n", kDriverStepPrefix, step.c_str());
      std::fflush(stderr);
    });
    nlohmann::json j = facts;
    std::fputs((j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    std::fflush(stdout);
    *exit_code = kExitOk;
  });
}

}  // namespace gpuready::cli
