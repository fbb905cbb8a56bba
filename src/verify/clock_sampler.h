// ClockSampler: NVML's view of one GPU while the module's checks run (clocks-event reasons, SM
// clock, temperature, power), every ~20 ms on its own thread, gathered per check: the check that
// is running when a sample is taken gets it (`enter` switches). Used by `__verify-gpu`, so a GEMM
// that ran throttled says so, and why.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "platform/os.h"
#include "verify/gpu_protocol.h"
#include "verify/nvml_sampler.h"

namespace gpuready::verify {

class ClockSampler {
 public:
  // Opens NVML and finds the GPU at `pci_bus_id` ("0000:01:00.0" or NVML's 8-digit domain form).
  // false with *why when it cannot sample (no NVML, no such GPU).
  bool open(const Os& os, const std::vector<std::string>& candidates, const std::string& pci_bus_id, std::string* why);
  void start();
  // From now on samples belong to `check` ("gemm.bf16"); "" = to none.
  void enter(const std::string& check);
  void stop();
  // The window of `check` (zero samples when none was taken while it ran).
  ClockWindow window(const std::string& check) const;

 private:
  void sample(const nvml::Api& n, nvmlDevice_t device);
  mutable std::mutex mu_;
  std::string current_;
  std::map<std::string, ClockWindow> windows_;
  NvmlSampler nvml_;  // last: its thread ends before the members it writes go
};

// Adds one sample to a window: the reasons (as names) merged, clocks min/max, temperature and power max.
void add_clock_sample(ClockWindow* w, const std::vector<std::string>& reasons, int sm_mhz, int temp_c, double power_w);

}  // namespace gpuready::verify
