// `gpuready bench`: the walkthrough's experiment, natively. Loads (or renders) the data, splits it,
// hands it to each device's training engine (loaded at run time through train/engine_abi.h: the
// CPU module libgpuready-cpu with oneDNN; the GPU engine in the CUDA module), and reports epoch
// times, images per second, loss and accuracy on the held-out split, and the speedup.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/os.h"
#include "train/bench_protocol.h"
#include "train/dataset.h"

namespace gpuready::train {

inline constexpr const char* kBenchSchema = "gpuready.bench/1";

// The engine module's file name for a device ("cpu": libgpuready-cpu.so) and where to look, in
// order: $GPUREADY_CPU_MODULE / $GPUREADY_CUDA_MODULE, beside the executable, <exe dir>/../lib/gpuready/.
std::string engine_file_name(const std::string& device);
std::vector<std::string> engine_candidates(const Os& os, const std::string& device);

// Loads the first candidate that exists, checks its ABI and trains. Never throws: a missing module,
// one that does not load or speaks another ABI comes back as TrainReply::error, in words.
TrainReply run_engine(const Os& os, const std::vector<std::string>& candidates, const TrainRequest& request,
                      const Split& data,
                      const std::function<bool(int epoch, long long step, long long steps)>& progress);

struct BenchRun {
  std::string device;  // "cpu" | "gpu"
  TrainReply reply;
  // Derived: the median of the timed epochs (all but the first), images per second from it.
  std::optional<double> epoch_seconds, images_per_second, first_epoch_seconds, final_loss, accuracy;
  bool stopped = false;  // Ctrl-C ended it: the numbers are those of the epochs it finished
  // The most host memory the engine's process held (its child's peak resident set; Windows: committed); 0 unknown.
  std::uint64_t host_peak_bytes = 0;
};
// The progress bar's estimate of the time left: " ETA 1m05s" for `epochs` epochs of `steps` steps, now at `step` of
// `epoch` (0-based), from the pace since the start of `steady_epoch` (the second epoch: the first also searches
// algorithms and warms up) `seconds` ago; "" before the second epoch has begun or when nothing is known yet.
std::string eta_text(int epoch, long long step, long long steps, int epochs, int steady_epoch, double seconds);

// Fills the derived numbers from the reply (train_n: images per epoch).
void summarise(BenchRun* run, long long train_n);

// Facts about the GPU from gpuready's probe, taken before training: what can explain a GPU that
// is not faster than the CPU.
struct GpuFacts {
  std::string name;
  int pcie_gen = 0, pcie_gen_max = 0, pcie_width = 0, pcie_width_max = 0;  // 0: unknown
  std::vector<std::string> clocks_event_reasons;                           // NVML's words, at the probe
  int utilization_percent = -1;                                            // -1: unknown
};

struct BenchReport {
  TrainRequest request;
  std::optional<GpuFacts> gpu;  // when the GPU ran and the probe saw it
  std::string dataset;  // Dataset::source
  long long train_images = 0, test_images = 0;
  int skipped = 0;
  std::vector<BenchRun> runs;
  std::optional<double> speedup;  // cpu epoch / gpu epoch, when both ran
};
// When both devices ran and the GPU was not faster: the reasons the facts show (a tiny batch, a
// launch-bound step, data streamed over the link, a narrow or slow link, throttling, a busy GPU),
// each in words with its numbers; a pointer to `gpuready verify` when none does. Empty otherwise.
std::vector<std::string> why_gpu_not_faster(const BenchReport& r);

nlohmann::json bench_to_json(const BenchReport& r);
// profile: also each run's details (libraries, algorithms, graphs, where the data lived) and its
// step operation by operation.
std::string render_bench_console(const BenchReport& r, bool profile = false);

}  // namespace gpuready::train
