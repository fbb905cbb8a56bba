// LinkSampler: the PCIe link (generation and width) of one GPU read through NVML every 5 ms while
// host<->device copies run, on NvmlSampler's thread: each distinct value seen, so a link that
// trains up under load, or drops during the run, shows.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "platform/os.h"
#include "verify/nvml_sampler.h"

namespace gpuready::verify {

class LinkSampler {
 public:
  // Opens NVML and finds the GPU at `bus_id`; false with *why when it cannot sample.
  bool open(const Os& os, const std::vector<std::string>& candidates, const std::string& bus_id, std::string* why);
  bool ready() const { return nvml_.ready(); }
  // Forgets earlier values and samples until stop().
  void start();
  // The distinct values seen since start(), ascending (either may be null).
  void stop(std::vector<int>* gen, std::vector<int>* width);
  void close();

 private:
  void sample(const nvml::Api& n, nvmlDevice_t device);
  std::mutex mu_;
  std::set<int> gens_, widths_;
  NvmlSampler nvml_;  // last: its thread ends before the members it writes go
};

}  // namespace gpuready::verify
