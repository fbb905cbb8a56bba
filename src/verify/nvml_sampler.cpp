#include "verify/nvml_sampler.h"

#include <utility>

namespace gpuready::verify {

bool NvmlSampler::open(const Os& os, const std::vector<std::string>& candidates, const std::string& pci_bus_id,
                       const std::function<bool(const nvml::Api&)>& needs, const std::string& what,
                       std::string* why) {
  close();
  std::string err;
  lib_ = nvml::load(os, candidates.empty() ? nvml::default_candidates(os.env) : candidates, &err);
  if (!lib_) {
    *why = "NVML did not load (" + err + ")";
    return false;
  }
  const nvml::Api& n = lib_->api;
  if (!n.nvmlInit_v2 || !n.nvmlDeviceGetCount_v2 || !n.nvmlDeviceGetHandleByIndex_v2 ||
      (!n.nvmlDeviceGetPciInfo_v3 && !n.nvmlDeviceGetPciInfo_v2) || (needs && !needs(n))) {
    *why = "this NVML lacks " + what;
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

void NvmlSampler::start(std::chrono::milliseconds period, Sample sample) {
  if (!ready() || worker_.joinable() || !sample) return;
  sample_ = std::move(sample);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
  }
  sample_(lib_->api, device_);
  worker_ = std::thread([this, period] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, period, [this] { return stopping_; })) {
      lock.unlock();
      sample_(lib_->api, device_);
      lock.lock();
    }
  });
}

void NvmlSampler::stop() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
  sample_(lib_->api, device_);
}

void NvmlSampler::close() {
  stop();
  if (initialised_ && lib_ && lib_->api.nvmlShutdown) lib_->api.nvmlShutdown();
  initialised_ = false;
  device_ = nullptr;
  sample_ = nullptr;
}

}  // namespace gpuready::verify
