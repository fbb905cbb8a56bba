#include "train/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "platform/module_loader.h"
#include "train/engine_abi.h"

namespace gpuready::train {

std::string engine_file_name(const std::string& device) {
#if defined(_WIN32)
  return device == "cpu" ? "gpuready-cpu.dll" : "gpuready-cuda.dll";
#else
  return device == "cpu" ? "libgpuready-cpu.so" : "libgpuready-cuda.so";
#endif
}

std::vector<std::string> engine_candidates(const Os& os, const std::string& device) {
  std::vector<std::string> out;
  if (auto env = os.env.get(device == "cpu" ? "GPUREADY_CPU_MODULE" : "GPUREADY_CUDA_MODULE"); env && !env->empty())
    out.push_back(*env);
  if (auto self = os.proc.self_path()) {
    const std::string dir = path_folder(*self);
    out.push_back(join_path(dir, engine_file_name(device)));
    out.push_back(join_path(join_path(join_path(dir, ".."), "lib/gpuready"), engine_file_name(device)));
  }
  return out;
}

TrainReply run_engine(const Os& os, const std::vector<std::string>& candidates, const TrainRequest& request,
                      const Split& data,
                      const std::function<bool(int epoch, long long step, long long steps)>& progress) {
  TrainReply failed;
  const LoadedModule mod =
      load_module(os, candidates, {"gpuready_train_abi", "gpuready_train_run", "gpuready_train_free"},
                  GPUREADY_TRAIN_ABI, candidates.empty() ? "the engine" : path_file_name(candidates.back()));
  if (!mod.ok()) {
    failed.error = mod.problem == ModuleProblem::lacks_entry_points
                       ? mod.path + " has no training engine (it lacks gpuready_train_run)"
                       : mod.why;
    return failed;
  }
  auto run = reinterpret_cast<gpuready_train_run_fn>(mod.run);
  auto release = reinterpret_cast<gpuready_train_free_fn>(mod.release);
  gpuready_train_data d{data.train.images.data(), data.train.labels.data(), static_cast<long long>(data.train.size()),
                        data.test.images.data(),  data.test.labels.data(),  static_cast<long long>(data.test.size())};
  struct Ctx {
    const std::function<bool(int, long long, long long)>* progress;
  } ctx{&progress};
  char* text = run(
      nlohmann::json(request).dump().c_str(), &d,
      [](int epoch, long long step, long long steps, void* p) {
        auto* cx = static_cast<Ctx*>(p);
        return (*cx->progress && !(*cx->progress)(epoch, step, steps)) ? 1 : 0;
      },
      &ctx);
  TrainReply reply;
  try {
    reply = nlohmann::json::parse(text ? text : "").get<TrainReply>();
  } catch (const std::exception& e) {
    reply.error = std::string("the engine's reply did not read: ") + e.what();
  }
  release(text);
  return reply;  // the module stays loaded until the process ends
}

std::string eta_text(int epoch, long long step, long long steps, int epochs, int steady_epoch, double seconds) {
  if (steady_epoch < 1 || epoch < steady_epoch || steps <= 0 || seconds <= 0) return "";
  const long long done = static_cast<long long>(epoch - steady_epoch) * steps + step;
  const long long left = static_cast<long long>(epochs - 1 - epoch) * steps + (steps - step);
  if (done <= 0 || left < 0) return "";
  const long long s = std::llround(seconds * static_cast<double>(left) / static_cast<double>(done));
  if (s >= 3600) return fmt::format(" ETA {}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format(" ETA {}m{:02}s", s / 60, s % 60);
  return fmt::format(" ETA {}s", s);
}

void summarise(BenchRun* run, long long train_n) {
  const auto& e = run->reply.epochs;
  if (e.empty() || !run->reply.error.empty()) return;
  run->first_epoch_seconds = e.front().seconds;
  std::vector<double> timed;
  for (size_t i = 1; i < e.size(); ++i) timed.push_back(e[i].seconds);
  if (timed.empty()) timed.push_back(e.front().seconds);  // --epochs 0: only the first
  std::sort(timed.begin(), timed.end());
  const size_t n = timed.size();
  run->epoch_seconds = n % 2 ? timed[n / 2] : (timed[n / 2 - 1] + timed[n / 2]) / 2;
  if (*run->epoch_seconds > 0) run->images_per_second = static_cast<double>(train_n) / *run->epoch_seconds;
  run->final_loss = e.back().test_loss;
  run->accuracy = e.back().test_accuracy;
}

std::vector<std::string> why_gpu_not_faster(const BenchReport& r) {
  std::vector<std::string> out;
  if (!r.speedup || *r.speedup >= 1.0) return out;
  const BenchRun* gpu = nullptr;
  for (const auto& run : r.runs)
    if (run.device == "gpu") gpu = &run;
  if (!gpu || !gpu->epoch_seconds) return out;
  const auto& q = r.request;
  const double step_ms =
      gpu->reply.steps_per_epoch > 0 ? 1e3 * *gpu->epoch_seconds / static_cast<double>(gpu->reply.steps_per_epoch) : 0;
  if (q.batch < 32)
    out.push_back(
        fmt::format("the batch is {} image(s): each step's kernels are too small to fill the GPU, and every "
                    "step pays its launches and the update ({:.2f} ms per step here); try --batch 128",
                    q.batch, step_ms));
  else if (step_ms > 0 && step_ms < 0.5)
    out.push_back(
        fmt::format("a step takes {:.2f} ms: the GPU finishes each step's kernels faster than they can be "
                    "issued, so the model or the images are too small to keep it busy ({}x{}x{})",
                    step_ms, q.h, q.w, q.c));
  for (const auto& d : gpu->reply.details)
    if (d.rfind("data: streamed", 0) == 0)
      out.push_back("the images did not fit in GPU memory: each batch was gathered on the host and crossed the link (" +
                    d.substr(6) + ")");
  if (r.gpu) {
    const GpuFacts& f = *r.gpu;
    if (f.pcie_width > 0 && f.pcie_width_max > 0 &&
        (f.pcie_width < f.pcie_width_max || (f.pcie_gen > 0 && f.pcie_gen < f.pcie_gen_max)))
      out.push_back(
          fmt::format("the GPU's link runs at PCIe Gen {} x{} of Gen {} x{} (an idle GPU may lower it; "
                      "`gpuready verify` measures the copies)",
                      f.pcie_gen, f.pcie_width, f.pcie_gen_max, f.pcie_width_max));
    std::string throttled;
    for (const auto& reason : f.clocks_event_reasons)
      if (reason.find("thermal") != std::string::npos || reason.find("power_brake") != std::string::npos ||
          reason == "hw_slowdown" || reason == "sw_power_cap")
        throttled += (throttled.empty() ? "" : ", ") + reason;
    if (!throttled.empty()) out.push_back("before training the GPU's clocks were held back (" + throttled + ")");
    if (f.utilization_percent >= 10)
      out.push_back(fmt::format("another process was using the GPU ({}% busy before training)", f.utilization_percent));
  }
  if (out.empty())
    out.push_back(
        "no fact at hand explains it: `gpuready verify` measures the GPU's copies and matrix products "
        "against what it should reach");
  return out;
}

nlohmann::json bench_to_json(const BenchReport& r) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json j;
  j["schema"] = kBenchSchema;
  const auto& q = r.request;
  j["model"] = {{"layers", fmt::format("Conv2D {0} {2}x{2} + ReLU, MaxPool 2, Conv2D {1} {2}x{2} + ReLU, MaxPool 2, "
                                       "Flatten, Dense {3} + ReLU, Dense {4}, softmax cross-entropy, Adam lr {5}",
                                       q.conv1, q.conv2, q.kernel, q.dense, q.classes, q.lr)},
                {"input", fmt::format("{}x{}x{}", q.h, q.w, q.c)},
                {"batch", q.batch},
                {"epochs", q.epochs},
                {"seed", q.seed}};
  j["dataset"] = {{"source", r.dataset}, {"train", r.train_images}, {"test", r.test_images}, {"skipped", r.skipped}};
  j["runs"] = nlohmann::json::array();
  for (const auto& run : r.runs) {
    nlohmann::json e = nlohmann::json::array();
    for (const auto& x : run.reply.epochs) e.push_back(x);
    j["runs"].push_back({{"device", run.device},
                         {"engine", run.reply.engine},
                         {"precision", run.reply.precision.empty() ? q.precision : run.reply.precision},
                         {"epoch_seconds", opt(run.epoch_seconds)},
                         {"images_per_second", opt(run.images_per_second)},
                         {"first_epoch_seconds", opt(run.first_epoch_seconds)},
                         {"final_loss", opt(run.final_loss)},
                         {"accuracy", opt(run.accuracy)},
                         {"epochs", e},
                         {"setup_seconds", run.reply.setup_seconds},
                         {"steps_per_epoch", run.reply.steps_per_epoch},
                         {"details", run.reply.details},
                         {"profile", run.reply.profile},
                         {"stopped", run.stopped},
                         {"host_peak_bytes", run.host_peak_bytes ? nlohmann::json(run.host_peak_bytes) : nlohmann::json(nullptr)},
                         {"gpu_peak_bytes", run.reply.gpu_peak_bytes ? nlohmann::json(run.reply.gpu_peak_bytes) : nlohmann::json(nullptr)},
                         {"gpu_context_bytes", run.reply.gpu_context_bytes ? nlohmann::json(run.reply.gpu_context_bytes) : nlohmann::json(nullptr)},
                         {"error", run.reply.error}});
  }
  j["speedup"] = opt(r.speedup);
  if (const auto why = why_gpu_not_faster(r); !why.empty()) j["gpu_not_faster_because"] = why;
  return j;
}

std::string render_bench_console(const BenchReport& r, bool profile) {
  const auto& q = r.request;
  std::string o = fmt::format(
      "gpuready bench: {} ({} training, {} held out{}), {}x{}x{}, batch {}, {} timed epoch(s) "
      "after a first\n\n",
      r.dataset, r.train_images, r.test_images, r.skipped ? fmt::format(", {} unreadable skipped", r.skipped) : "", q.h,
      q.w, q.c, q.batch, q.epochs);
  for (const auto& run : r.runs) {
    if (!run.reply.error.empty()) {
      o += fmt::format("  {:<4} not run: {}\n", run.device, run.reply.error);
      continue;
    }
    o += fmt::format(
        "  {:<4} {:>8.2f} s per epoch  {:>9.0f} images/s   first epoch {:.2f} s   held-out accuracy "
        "{:.1f}%  loss {:.3f}   ({}){}{}{}\n",
        run.device, run.epoch_seconds.value_or(0), run.images_per_second.value_or(0),
        run.first_epoch_seconds.value_or(0), 100 * run.accuracy.value_or(0), run.final_loss.value_or(0),
        run.reply.engine,
        run.host_peak_bytes ? fmt::format("   peak host memory {:.0f} MiB", static_cast<double>(run.host_peak_bytes) / (1 << 20))
                            : std::string(),
        run.reply.gpu_peak_bytes
            ? fmt::format("   peak GPU memory {:.0f} MiB ({:.0f} MiB with the context alone)",
                          static_cast<double>(run.reply.gpu_peak_bytes) / (1 << 20),
                          static_cast<double>(run.reply.gpu_context_bytes) / (1 << 20))
            : std::string(),
        run.stopped ? fmt::format("   stopped by Ctrl-C after {} epoch(s)", run.reply.epochs.size()) : "");
  }
  if (r.speedup && *r.speedup >= 1.0) o += fmt::format("\nThe GPU trains {:.1f}x as fast as the CPU.\n", *r.speedup);
  if (const auto why = why_gpu_not_faster(r); !why.empty()) {
    o += fmt::format("\nThe GPU is not faster than the CPU here ({:.2f}x):\n", *r.speedup);
    for (const auto& w : why) o += "  - " + w + "\n";
  }
  if (profile)
    for (const auto& run : r.runs) {
      if (!run.reply.error.empty() || (run.reply.details.empty() && run.reply.profile.empty())) continue;
      o += fmt::format("\n{} ({}):\n", run.device, run.reply.device);
      for (const auto& d : run.reply.details) o += "  " + d + "\n";
      if (run.reply.profile.empty()) continue;
      double total = 0;
      for (const auto& p : run.reply.profile) total += p.seconds;
      o += fmt::format("  one step of {} images, operation by operation (eager, timed by events):\n", q.batch);
      o += fmt::format("    {:<34} {:>9} {:>6} {:>10} {:>9}\n", "operation", "ms", "share", "TFLOP/s", "GB/s");
      for (const auto& p : run.reply.profile)
        o += fmt::format("    {:<34} {:>9.3f} {:>5.1f}% {:>10} {:>9}\n", p.op, p.seconds * 1e3,
                         total > 0 ? 100 * p.seconds / total : 0,
                         p.flop > 0 && p.seconds > 0 ? fmt::format("{:.1f}", p.flop / p.seconds / 1e12) : "",
                         p.bytes > 0 && p.seconds > 0 ? fmt::format("{:.0f}", p.bytes / p.seconds / 1e9) : "");
      const double epoch_step = run.epoch_seconds && run.reply.steps_per_epoch
                                    ? *run.epoch_seconds / static_cast<double>(run.reply.steps_per_epoch)
                                    : 0;
      o += fmt::format("    {:<34} {:>9.3f}   (an epoch's step, replayed: {:.3f} ms)\n", "sum", total * 1e3,
                       epoch_step * 1e3);
    }
  return o;
}

}  // namespace gpuready::train
