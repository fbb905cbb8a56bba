#include "train/bench.h"

#include <fmt/format.h>

#include <algorithm>

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
                         {"error", run.reply.error}});
  }
  j["speedup"] = opt(r.speedup);
  return j;
}

std::string render_bench_console(const BenchReport& r) {
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
        "{:.1f}%  loss {:.3f}   ({})\n",
        run.device, run.epoch_seconds.value_or(0), run.images_per_second.value_or(0),
        run.first_epoch_seconds.value_or(0), 100 * run.accuracy.value_or(0), run.final_loss.value_or(0),
        run.reply.engine);
  }
  if (r.speedup) o += fmt::format("\nThe GPU trains {:.1f}x as fast as the CPU.\n", *r.speedup);
  return o;
}

}  // namespace gpuready::train
