#include "verify/clock_sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

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
  os_ = &os;
  std::string err;
  lib_ = nvml::load(os, candidates.empty() ? nvml::default_candidates(os.env) : candidates, &err);
  if (!lib_) {
    *why = "NVML did not load (" + err + ")";
    return false;
  }
  const nvml::Api& n = lib_->api;
  if (!n.nvmlInit_v2 || !n.nvmlDeviceGetCount_v2 || !n.nvmlDeviceGetHandleByIndex_v2 ||
      (!n.nvmlDeviceGetPciInfo_v3 && !n.nvmlDeviceGetPciInfo_v2)) {
    *why = "this NVML lacks the queries needed";
    return false;
  }
  if (const nvmlReturn_t rc = n.nvmlInit_v2(); rc != NVML_SUCCESS) {
    *why = "nvmlInit_v2 failed: " + nvml::return_name(rc);
    return false;
  }
  initialised_ = true;
  device_ = nvml::device_at_bus_id(n, pci_bus_id, why);
  return device_ != nullptr;
}

void ClockSampler::sample() {
  if (!device_) return;
  const nvml::Api& n = lib_->api;
  unsigned long long mask = 0;
  std::vector<std::string> reasons;
  if (n.nvmlDeviceGetCurrentClocksEventReasons &&
      n.nvmlDeviceGetCurrentClocksEventReasons(device_, &mask) == NVML_SUCCESS)
    reasons = nvml::clock_reason_names(mask);
  unsigned mhz = 0, temp = 0, mw = 0;
  if (n.nvmlDeviceGetClockInfo) n.nvmlDeviceGetClockInfo(device_, NVML_CLOCK_SM, &mhz);
  if (n.nvmlDeviceGetTemperature) n.nvmlDeviceGetTemperature(device_, NVML_TEMPERATURE_GPU, &temp);
  if (n.nvmlDeviceGetPowerUsage) n.nvmlDeviceGetPowerUsage(device_, &mw);
  std::lock_guard<std::mutex> lock(mu_);
  if (current_.empty()) return;
  add_clock_sample(&windows_[current_], reasons, static_cast<int>(mhz), static_cast<int>(temp), mw / 1000.0);
}

void ClockSampler::start() {
  if (!device_ || worker_.joinable()) return;
  stopping_ = false;
  worker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return stopping_; })) {
      lock.unlock();
      sample();
      lock.lock();
    }
  });
}

void ClockSampler::enter(const std::string& check) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = check;
  }
}

void ClockSampler::stop() {
  if (worker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  if (initialised_ && lib_ && lib_->api.nvmlShutdown) lib_->api.nvmlShutdown();
  initialised_ = false;
  device_ = nullptr;
}

ClockWindow ClockSampler::window(const std::string& check) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = windows_.find(check);
  return it == windows_.end() ? ClockWindow{} : it->second;
}

}  // namespace gpuready::verify
