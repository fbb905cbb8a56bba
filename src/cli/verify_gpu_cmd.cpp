// `gpuready __verify-gpu` (hidden): loads the optional CUDA module (verify/gpu_checks.h), runs the
// GpuRequest given as JSON on the command line, samples NVML's clocks and their event reasons per
// check while it runs, and prints the GpuReply as one JSON line. `verify` runs it as a child with
// a timeout: a hung GPU or library costs a timeout, a crash costs this process, never the run.
// Before each step and check it writes kDriverStepPrefix + the name on stderr, as `__verify-copy`.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "probe/nvidia_driver.h"
#include "verify/clock_sampler.h"
#include "verify/gpu_checks.h"

namespace gpuready::cli {
namespace {

struct VerifyGpuOptions {
  std::string request;               // GpuRequest as JSON
  std::string bus_id;                // the GPU's PCI bus id, for NVML's sampling ("" = no sampling)
  std::vector<std::string> modules;  // module paths to try (tests); empty = module_candidates()
  std::vector<std::string> nvml;     // NVML names/paths (tests); empty = the default
};

int run(const VerifyGpuOptions& o) {
  const Os& os = real_os();
  verify::GpuRequest req;
  try {
    req = nlohmann::json::parse(o.request).get<verify::GpuRequest>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuready __verify-gpu: the request is not valid JSON: %s\n", e.what());
    return kExitUsage;
  }
  verify::ClockSampler sampler;
  std::string no_sampling;
  const bool sampling = !o.bus_id.empty() && sampler.open(os, o.nvml, o.bus_id, &no_sampling);
  if (sampling) sampler.start();
  const auto keys = verify::gpu_check_keys();
  verify::GpuReply reply = verify::run_module(
      os, o.modules.empty() ? verify::module_candidates(os) : o.modules, req, [&](const std::string& step) {
        std::fprintf(stderr, "%s%s\n", kDriverStepPrefix, step.c_str());
        std::fflush(stderr);
        // Samples belong to the check that runs now; a step between checks ends the window.
        sampler.enter(std::find(keys.begin(), keys.end(), step) != keys.end() ? step : "");
      });
  sampler.stop();
  for (auto& g : reply.gemm) g.clocks = sampler.window(g.key);
  for (auto& c : reply.conv) c.clocks = sampler.window(c.key);
  for (auto& m : reply.memory) m.clocks = sampler.window(m.key);
  if (!sampling)
    reply.steps.push_back({"sample the clocks (NVML)", false, "no_sampling",
                           o.bus_id.empty() ? "the GPU's PCI bus id is unknown" : no_sampling, 0});
  const nlohmann::json j = reply;
  std::fputs((j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

void setup_verify_gpu(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<VerifyGpuOptions>();
  CLI::App* sub = app.add_subcommand("__verify-gpu", "");  // empty description: hidden from --help
  sub->group("");
  sub->add_option("--request", o->request)->required();
  sub->add_option("--bus-id", o->bus_id);
  sub->add_option("--module", o->modules);
  sub->add_option("--nvml", o->nvml);
  sub->callback([o, exit_code] { *exit_code = run(*o); });
}

}  // namespace gpuready::cli
