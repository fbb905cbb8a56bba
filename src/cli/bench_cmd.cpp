// `gpuready bench`: one CNN epoch on the CPU and the GPU, natively (train/bench.h). Flags are the
// issue's contract: --device cpu|gpu|all, --data PATH, --images N, --size HxWxC, --batch N,
// --epochs N, --precision, --seed N, --json.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#if !defined(_WIN32)
#include <unistd.h>
#endif

#include "cli/commands.h"
#include "train/bench.h"

namespace gpuready::cli {
namespace {

struct BenchCmdOptions {
  std::string device = "all";
  std::string data;
  int images = 4000;
  int classes = 10;  // synthetic only
  std::string size;  // HxWxC; default: the data's own (synthetic: 28x28x1)
  int batch = 128;
  int epochs = 3;
  std::string precision = "fp32";
  std::uint64_t seed = 1;
  double test_fraction = 0.2;
  int threads = 0;
  bool json = false;
};

bool stderr_is_terminal() {
#if defined(_WIN32)
  return false;
#else
  return isatty(2) == 1;
#endif
}

int run_bench_cmd(const BenchCmdOptions& o) {
  std::optional<train::Shape> shape;
  if (!o.size.empty()) {
    shape = train::parse_shape(o.size);
    if (!shape) {
      std::fprintf(stderr, "gpuready bench: --size '%s' is not HxWxC (e.g. 28x28x1, 128x128x3; channels 1 or 3)\n",
                   o.size.c_str());
      return kExitUsage;
    }
  }
  const Os& os = real_os();
  train::Dataset data;
  if (o.data.empty()) {
    train::SyntheticOptions so;
    so.images = o.images;
    so.shape = shape.value_or(train::Shape{});
    so.seed = o.seed;
    so.classes = o.classes;
    data = train::synthetic(so);
  } else {
    std::string err;
    auto loaded = train::load_data(os.fs, o.data, shape, &err);
    if (!loaded) {
      std::fprintf(stderr, "gpuready bench: %s\n", err.c_str());
      return kExitUsage;
    }
    data = std::move(*loaded);
  }
  const train::Split split = train::split(data, o.test_fraction, o.seed);
  if (split.train.size() == 0) {
    std::fprintf(stderr, "gpuready bench: no training images (%zu in the data)\n", data.size());
    return kExitUsage;
  }
  train::BenchReport report;
  train::TrainRequest& q = report.request;
  q.c = data.shape.c;
  q.h = data.shape.h;
  q.w = data.shape.w;
  q.classes = data.classes;
  q.batch = o.batch;
  q.epochs = o.epochs;
  q.seed = o.seed;
  q.precision = o.precision;
  q.threads = o.threads;
  report.dataset = data.source;
  report.train_images = static_cast<long long>(split.train.size());
  report.test_images = static_cast<long long>(split.test.size());
  report.skipped = data.skipped;
  std::vector<std::string> devices;
  if (o.device == "all" || o.device == "cpu") devices.push_back("cpu");
  if (o.device == "all" || o.device == "gpu") devices.push_back("gpu");
  const bool bar = !o.json && stderr_is_terminal();
  for (const auto& dev : devices) {
    train::BenchRun run;
    run.device = dev;
    run.reply = train::run_engine(
        os, train::engine_candidates(os, dev), q, split, [&](int epoch, long long step, long long steps) {
          if (bar) {
            const int filled = static_cast<int>(30 * step / std::max(1LL, steps));
            std::fprintf(stderr, "\r  %s epoch %d/%d [%s%s] %lld/%lld", dev.c_str(), epoch + 1, q.epochs + 1,
                         std::string(static_cast<size_t>(filled), '#').c_str(),
                         std::string(static_cast<size_t>(30 - filled), '.').c_str(), step, steps);
            std::fflush(stderr);
          }
          return true;
        });
    if (bar) std::fprintf(stderr, "\r%80s\r", "");
    train::summarise(&run, report.train_images);
    report.runs.push_back(std::move(run));
  }
  const train::BenchRun *cpu = nullptr, *gpu = nullptr;
  for (const auto& r : report.runs) (r.device == "cpu" ? cpu : gpu) = &r;
  if (cpu && gpu && cpu->epoch_seconds && gpu->epoch_seconds && *gpu->epoch_seconds > 0)
    report.speedup = *cpu->epoch_seconds / *gpu->epoch_seconds;
  if (o.json) {
    const std::string text =
        train::bench_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::fputs(train::render_bench_console(report).c_str(), stdout);
  }
  bool any = false, all = true;
  for (const auto& r : report.runs) {
    any |= r.reply.error.empty();
    all &= r.reply.error.empty();
  }
  // --device all: a missing GPU engine is reported, not an error; a named device that did not run is.
  return (o.device == "all" ? any : all) ? kExitOk : kExitProblems;
}

}  // namespace

void setup_bench(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<BenchCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Train the walkthrough's CNN for a few epochs on the CPU and the GPU and compare: epoch time, images/s, "
      "held-out accuracy, the speedup");
  sub->add_option("--device", o->device, "cpu, gpu or all (default: all)")->check(CLI::IsMember({"cpu", "gpu", "all"}));
  sub->add_option("--data", o->data,
                  "A folder of class sub-folders of PNG/JPEG images, MNIST IDX files or CIFAR-10 binary batches "
                  "(default: the built-in synthetic shapes)")
      ->type_name("PATH");
  sub->add_option("--images", o->images, "How many synthetic images (default 4000)")->check(CLI::Range(10, 10000000));
  sub->add_option("--classes", o->classes, "How many synthetic classes, 2 to 10 (default 10)")->check(CLI::Range(2, 10));
  sub->add_option("--size", o->size, "Image size HxWxC, e.g. 28x28x1 or 128x128x3 (default: the data's)")
      ->type_name("HxWxC");
  sub->add_option("--batch", o->batch, "Batch size (default 128)")->check(CLI::Range(1, 65536));
  sub->add_option("--epochs", o->epochs, "Timed epochs after the first (default 3)")->check(CLI::Range(0, 1000));
  sub->add_option("--precision", o->precision, "fp32 (default), tf32 or bf16 (GPU)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
  sub->add_option("--seed", o->seed, "Seed of the data, the initial weights and the shuffling (default 1)");
  sub->add_option("--test-fraction", o->test_fraction, "Share of the data held out for accuracy (default 0.2)")
      ->check(CLI::Range(0.0, 0.9));
  sub->add_option("--threads", o->threads, "CPU threads (default: every core)")->check(CLI::Range(0, 4096));
  sub->add_flag("--json", o->json, "Print the result as JSON (schema gpuready.bench/1)");
  sub->callback([o, exit_code] { *exit_code = run_bench_cmd(*o); });
}

}  // namespace gpuready::cli
