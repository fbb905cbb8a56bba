#include "verify/link_sampler.h"

#include <chrono>

namespace gpuready::verify {

bool LinkSampler::open(const Os& os, const std::vector<std::string>& candidates, const std::string& bus_id,
                       std::string* why) {
  return nvml_.open(
      os, candidates, bus_id,
      [](const nvml::Api& n) { return n.nvmlDeviceGetCurrPcieLinkGeneration && n.nvmlDeviceGetCurrPcieLinkWidth; },
      "the PCIe link queries", why);
}

void LinkSampler::sample(const nvml::Api& n, nvmlDevice_t device) {
  unsigned g = 0, w = 0;
  const bool g_ok = n.nvmlDeviceGetCurrPcieLinkGeneration(device, &g) == NVML_SUCCESS;
  const bool w_ok = n.nvmlDeviceGetCurrPcieLinkWidth(device, &w) == NVML_SUCCESS;
  std::lock_guard<std::mutex> lock(mu_);
  if (g_ok && g > 0) gens_.insert(static_cast<int>(g));
  if (w_ok && w > 0) widths_.insert(static_cast<int>(w));
}

void LinkSampler::start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    gens_.clear();
    widths_.clear();
  }
  nvml_.start(std::chrono::milliseconds(5), [this](const nvml::Api& n, nvmlDevice_t d) { sample(n, d); });
}

void LinkSampler::stop(std::vector<int>* gen, std::vector<int>* width) {
  nvml_.stop();
  std::lock_guard<std::mutex> lock(mu_);
  if (gen) gen->assign(gens_.begin(), gens_.end());
  if (width) width->assign(widths_.begin(), widths_.end());
}

void LinkSampler::close() { nvml_.close(); }

}  // namespace gpuready::verify
