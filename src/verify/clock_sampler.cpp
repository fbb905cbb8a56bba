#include "verify/clock_sampler.h"

#include <algorithm>

namespace gpuready::verify {

void add_clock_sample(ClockWindow* w, const std::vector<std::string>& reasons, int sm_mhz, int temp_c, double power_w) {
  for (const auto& r : reasons)
    if (std::find(w->reasons.begin(), w->reasons.end(), r) == w->reasons.end()) w->reasons.push_back(r);
  std::sort(w->reasons.begin(), w->reasons.end());
  if (sm_mhz > 0) {
    w->sm_clock_min_mhz = w->sm_clock_min_mhz == 0 ? sm_mhz : std::min(w->sm_clock_min_mhz, sm_mhz);
    w->sm_clock_max_mhz = std::max(w->sm_clock_max_mhz, sm_mhz);
  }
  w->temperature_max_c = std::max(w->temperature_max_c, temp_c);
  w->power_max_w = std::max(w->power_max_w, power_w);
  ++w->samples;
}

bool ClockSampler::open(const Os& os, const std::vector<std::string>& candidates, const std::string& pci_bus_id,
                        std::string* why) {
  return nvml_.open(os, candidates, pci_bus_id, nullptr, "the queries needed", why);
}

void ClockSampler::sample(const nvml::Api& n, nvmlDevice_t device) {
  unsigned long long mask = 0;
  std::vector<std::string> reasons;
  if (n.nvmlDeviceGetCurrentClocksEventReasons &&
      n.nvmlDeviceGetCurrentClocksEventReasons(device, &mask) == NVML_SUCCESS)
    reasons = nvml::clock_reason_names(mask);
  unsigned mhz = 0, temp = 0, mw = 0;
  if (n.nvmlDeviceGetClockInfo) n.nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM, &mhz);
  if (n.nvmlDeviceGetTemperature) n.nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &temp);
  if (n.nvmlDeviceGetPowerUsage) n.nvmlDeviceGetPowerUsage(device, &mw);
  std::lock_guard<std::mutex> lock(mu_);
  if (current_.empty()) return;
  add_clock_sample(&windows_[current_], reasons, static_cast<int>(mhz), static_cast<int>(temp), mw / 1000.0);
}

void ClockSampler::start() {
  nvml_.start(std::chrono::milliseconds(20), [this](const nvml::Api& n, nvmlDevice_t d) { sample(n, d); });
}

void ClockSampler::enter(const std::string& check) {
  std::lock_guard<std::mutex> lock(mu_);
  current_ = check;
}

void ClockSampler::stop() { nvml_.close(); }

ClockWindow ClockSampler::window(const std::string& check) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = windows_.find(check);
  return it == windows_.end() ? ClockWindow{} : it->second;
}

}  // namespace gpuready::verify
