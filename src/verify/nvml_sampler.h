// NvmlSampler: one GPU seen through NVML on a thread of its own, every `period`, while a
// measurement runs. The one sampling loop behind ClockSampler (clocks, temperature and power per
// verify check) and LinkSampler (the PCIe link during copies): open NVML and find the GPU by its
// PCI bus id, start a thread that calls the caller's `sample` each period, stop it (one last
// sample after the thread ends, so a short run is seen at least twice), close NVML.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "platform/os.h"
#include "vendors/nvml/nvml_loader.h"

namespace gpuready::verify {

class NvmlSampler {
 public:
  // Called on the sampling thread (and once more on the caller's at stop()).
  using Sample = std::function<void(const nvml::Api&, nvmlDevice_t)>;

  NvmlSampler() = default;
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;
  ~NvmlSampler() { close(); }

  // Loads NVML (`candidates`, or the default names), checks that it has what `needs` asks for
  // (besides init, count, handles and PCI info, which finding the GPU takes), initialises it and
  // finds the GPU at `pci_bus_id` ("0000:01:00.0" or NVML's 8-digit domain form). false with *why
  // when it cannot sample; `what` names the queries in that message ("the PCIe link queries").
  bool open(const Os& os, const std::vector<std::string>& candidates, const std::string& pci_bus_id,
            const std::function<bool(const nvml::Api&)>& needs, const std::string& what, std::string* why);
  bool ready() const { return device_ != nullptr; }

  // Samples at once, then every `period` until stop(). No-op when not ready or already running.
  void start(std::chrono::milliseconds period, Sample sample);
  // Ends the thread and takes one last sample.
  void stop();
  // stop(), then nvmlShutdown.
  void close();

 private:
  std::optional<nvml::Library> lib_;
  bool initialised_ = false;
  nvmlDevice_t device_ = nullptr;
  Sample sample_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace gpuready::verify
