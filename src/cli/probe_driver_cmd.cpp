// `gpuready __probe-driver` (hidden): talks to NVML and the CUDA driver and prints the
// NvidiaDriverFacts as JSON. `probe` runs it as a child with a timeout, so a driver
// that hangs or crashes on first contact costs a finding, not the whole probe.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
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
    collect_nvidia(real_os(), opts, facts);  // driver_probe_argv empty: in this process
    nlohmann::json j = facts;
    std::fputs((j.dump() + "\n").c_str(), stdout);
    *exit_code = kExitOk;
  });
}

}  // namespace gpuready::cli
