// `gpuready bench`: one CNN epoch on the CPU and the GPU, natively (train/bench.h). Flags are the
// issue's contract: --device cpu|gpu|all, --data PATH, --images N, --size HxWxC, --batch N,
// --epochs N, --precision, --seed N, --json.
//
// Each engine runs in the hidden child `gpuready __bench-engine --engine cpu|gpu` with a timeout (a
// hung driver costs the timeout, a crash costs the child), started through run_child: its search
// paths are cleaned, so the libraries the engine module needs (libdnnl, cuDNN, cuBLAS) are never
// looked for in the current folder, as they would be in this process when LD_LIBRARY_PATH has an
// empty entry (docs/security.md). The child loads (or renders) the same data from the same flags,
// trains, and prints the TrainReply as JSON; its progress comes back on stderr as kProgressPrefix
// lines, which drive the bar here.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "cli/commands.h"
#include "parse/child_reply.h"
#include "platform/child.h"
#include "probe/probe.h"
#include "train/bench.h"
#include "verify/gpu_checks.h"

namespace gpuready::cli {
namespace {

struct BenchCmdOptions {
  std::string device = "all";
  std::string data;
  int images = 4000;
  int classes = 10;  // synthetic only
  std::string size;  // HxWxC; default: the data's own (synthetic: 28x28x1)
  int batch = 128;
  std::vector<int> filters = {32, 64};  // the two convolutions' output channels
  int kernel = 3, dense = 128;
  double lr = 1e-3;
  int epochs = 3;
  std::string precision = "fp32";
  std::uint64_t seed = 1;
  double test_fraction = 0.2;
  int threads = 0;
  bool json = false;
  bool profile = false;
  double timeout_s = 1800;  // the GPU child's
  std::string algorithms = "auto";
  std::string gpu_data = "auto";
  std::string libs = "system";  // where the GPU engine takes cuBLAS and cuDNN from (verify::restrict_libraries)
};

constexpr const char* kProgressPrefix = "gpuready-bench-progress: ";

// After the split: *data holds the set's description again (its images are the split's now); false when no image
// is left to train on.
bool keep_description(train::Dataset* data, const train::Split& split, std::size_t total) {
  *data = train::description_of(split.train);
  if (split.train.size() == 0) {
    std::fprintf(stderr, "gpuready bench: no training images (%zu in the data)\n", total);
    return false;
  }
  return true;
}

// The data the flags describe, split; false with the message printed.
bool load_split(const Os& os, const BenchCmdOptions& o, train::Dataset* data, train::Split* split) {
  std::optional<train::Shape> shape;
  if (!o.size.empty()) {
    shape = train::parse_shape(o.size);
    if (!shape) {
      std::fprintf(stderr, "gpuready bench: --size '%s' is not HxWxC (e.g. 28x28x1, 128x128x3; channels 1 or 3)\n",
                   o.size.c_str());
      return false;
    }
  }
  if (o.data.empty()) {
    train::SyntheticOptions so;
    so.images = o.images;
    so.shape = shape.value_or(train::Shape{});
    so.seed = o.seed;
    so.classes = o.classes;
    *data = train::synthetic(so);
  } else {
    std::string err;
    auto loaded = train::load_data(os.fs, o.data, shape, &err);
    if (!loaded) {
      std::fprintf(stderr, "gpuready bench: %s\n", err.c_str());
      return false;
    }
    *data = std::move(*loaded);
    // MNIST's and Fashion-MNIST's own test split (t10k-*) is the held-out set when the folder has it.
    auto test = train::load_official_test(os.fs, o.data, shape, &err);
    if (!test && !err.empty()) {
      std::fprintf(stderr, "gpuready bench: %s\n", err.c_str());
      return false;
    }
    if (test && (test->shape != data->shape || test->classes > data->classes)) {
      std::fprintf(stderr, "gpuready bench: %s: the t10k files do not match the training files (%s, %d classes against %s, %d)\n",
                   o.data.c_str(), train::shape_to_string(test->shape).c_str(), test->classes,
                   train::shape_to_string(data->shape).c_str(), data->classes);
      return false;
    }
    if (test) {
      data->source += "; held out: the data's own test split, " + test->source;
      const std::size_t total = data->size();
      *split = train::split(std::move(*data), 0.0, o.seed);  // every training image, shuffled
      split->test = std::move(*test);
      return keep_description(data, *split, total);
    }
  }
  const std::size_t total = data->size();
  // Split in the data's own memory (the peak is the data and the held-out copy, not twice the data); *data keeps
  // only its description.
  *split = train::split(std::move(*data), o.test_fraction, o.seed);
  return keep_description(data, *split, total);
}

// The flags that make the child load the same data.
std::vector<std::string> data_flags(const BenchCmdOptions& o) {
  std::vector<std::string> a = {
      "--images", std::to_string(o.images), "--classes",       std::to_string(o.classes),
      "--seed",   std::to_string(o.seed),   "--test-fraction", fmt::format("{:.17g}", o.test_fraction)};
  if (!o.data.empty()) a.insert(a.end(), {"--data", o.data});
  if (!o.size.empty()) a.insert(a.end(), {"--size", o.size});
  return a;
}

// Runs one engine ("cpu" or "gpu") in `gpuready __bench-engine`; progress(epoch, step, steps) as the
// child reports it.
train::TrainReply run_engine_child(const Os& os, const BenchCmdOptions& o, const std::string& device,
                                   const train::TrainRequest& q,
                                   const std::function<bool(int, long long, long long)>& progress,
                                   std::uint64_t* peak_memory) {
  train::TrainReply failed;
  const std::string engine = device == "cpu" ? "the CPU engine" : "the GPU engine";
  const auto self = os.proc.self_path();
  if (!self) {
    failed.error = "cannot find this executable to run " + engine + " in a child process";
    return failed;
  }
  std::vector<std::string> argv = {*self, "__bench-engine", "--engine", device, "--request", nlohmann::json(q).dump()};
  for (auto& a : data_flags(o)) argv.push_back(std::move(a));
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_s * 1000));
  spec.max_output = 16u << 20;
  spec.progress_prefix = kProgressPrefix;
  spec.interrupt = [] { return interrupted(); };
  // The CPU engine's threads: oneDNN runs on OpenMP, whose runtime takes its thread count from here when it starts.
  if (device == "cpu" && q.threads > 0) spec.set_env["OMP_NUM_THREADS"] = std::to_string(q.threads);
  spec.on_progress = [&](std::string_view rest) {
    int epoch = 0;
    long long step = 0, steps = 0;
    const std::string line(rest);
    if (std::sscanf(line.c_str(), "%d %lld %lld", &epoch, &step, &steps) == 3 && progress) progress(epoch, step, steps);
  };
  const ChildRun run = run_child(os, spec);
  const ProcResult& r = run.proc;
  *peak_memory = r.peak_memory_bytes;
  const std::string said = run.stderr_tail(600);
  if (run.end == ChildRun::End::timed_out) {
    failed.error = fmt::format("{} did not finish in {:.0f} s and was stopped (--timeout){}", engine, o.timeout_s,
                               said.empty() ? "" : ": " + said);
    return failed;
  }
  if (run.end == ChildRun::End::not_started) {
    failed.error = engine + "'s process " + run.how;
    return failed;
  }
  try {
    // The reply is the child's last JSON line: oneDNN (ONEDNN_VERBOSE) or cuDNN logging may print beside it.
    if (auto reply = parse::child_reply(r.out)) return reply->get<train::TrainReply>();
    throw std::runtime_error("no reply");
  } catch (const std::exception&) {
    failed.error = fmt::format("{}'s process ({}) gave no result{}", engine, run.how, said.empty() ? "" : ": " + said);
    return failed;
  }
}

int run_bench_cmd(const BenchCmdOptions& o) {
  const Os& os = real_os();
  train::Dataset data;
  train::Split split;
  if (!load_split(os, o, &data, &split)) return kExitUsage;
  train::BenchReport report;
  train::TrainRequest& q = report.request;
  q.c = data.shape.c;
  q.h = data.shape.h;
  q.w = data.shape.w;
  q.classes = data.classes;
  q.batch = o.batch;
  q.conv1 = o.filters.at(0);
  q.conv2 = o.filters.at(1);
  q.kernel = o.kernel;
  q.dense = o.dense;
  q.lr = o.lr;
  {
    std::string why;
    if (train::layout_of(train::model_of(q), &why).total == 0) {
      std::fprintf(stderr, "gpuready bench: the model does not fit %dx%dx%d images: %s\n", q.h, q.w, q.c, why.c_str());
      return kExitUsage;
    }
  }
  q.epochs = o.epochs;
  q.seed = o.seed;
  q.precision = o.precision;
  q.threads = o.threads;
  q.algorithms = o.algorithms;
  q.data_placement = o.gpu_data;
  report.dataset = data.source;
  report.train_images = static_cast<long long>(split.train.size());
  report.test_images = static_cast<long long>(split.test.size());
  report.skipped = data.skipped;
  // Each engine's child loads the images itself: this process needs only their counts from here on.
  split.train.images = {};
  split.test.images = {};
  std::vector<std::string> devices;
  if (o.device == "all" || o.device == "cpu") devices.push_back("cpu");
  if (o.device == "all" || o.device == "gpu") devices.push_back("gpu");
  if (std::find(devices.begin(), devices.end(), "gpu") != devices.end()) {
    // The GPU engine loads cuBLAS and cuDNN where the probe finds them, as verify's checks do.
    ProbeOptions popts = isolated_probe_options(os, 10);
    popts.library_dirs = verify::library_folders(o.libs);
    const Snapshot snap = run_probe(os, popts);
    verify::GpuRequest libs;
    verify::fill_libraries(&libs, snap);
    if (std::string why; !verify::restrict_libraries(&libs, snap, o.libs, &why)) {
      std::fprintf(stderr, "gpuready bench: %s\n", why.c_str());
      return kExitUsage;
    }
    q.cuda_driver = libs.cuda_driver;
    q.cublas = libs.cublas;
    q.cudnn_dir = libs.cudnn_dir;
    q.cudnn_files = libs.cudnn_files;
    // What can explain a GPU that is not faster (the engine trains on CUDA device 0).
    for (const auto& g : snap.nvidia.gpus) {
      if (g.cuda_ordinal.has() ? g.cuda_ordinal.value() != q.device : g.index != q.device) continue;
      train::GpuFacts f;
      f.name = g.name.value_or("");
      f.pcie_gen = g.pcie_gen_current.value_or(0);
      f.pcie_gen_max = g.pcie_gen_max.value_or(0);
      f.pcie_width = g.pcie_width_current.value_or(0);
      f.pcie_width_max = g.pcie_width_max.value_or(0);
      f.clocks_event_reasons = g.clocks_event_reasons.value_or({});
      f.utilization_percent = g.utilization_percent.value_or(-1);
      report.gpu = f;
      break;
    }
  }
  const bool bar = !o.json && stderr_is_terminal();
  catch_interrupts();  // Ctrl-C stops the run in progress cleanly; the epochs done are reported
  for (const auto& dev : devices) {
    train::BenchRun run;
    run.device = dev;
    if (interrupted()) {
      run.reply.error = "not started: stopped by Ctrl-C";
      report.runs.push_back(std::move(run));
      continue;
    }
    const auto started = std::chrono::steady_clock::now();
    auto steady_from = started;  // the time the second epoch began: its pace is the steady one
    int steady_epoch = 0;
    auto progress = [&](int epoch, long long step, long long steps) {
      if (bar) {
        const auto now = std::chrono::steady_clock::now();
        if (epoch >= 1 && steady_epoch == 0) {
          steady_epoch = epoch;
          steady_from = now;
        }
        const int filled = static_cast<int>(30 * step / std::max(1LL, steps));
        std::fprintf(stderr, "\r  %s epoch %d/%d [%s%s] %lld/%lld%s   ", dev.c_str(), epoch + 1, q.epochs + 1,
                     std::string(static_cast<size_t>(filled), '#').c_str(),
                     std::string(static_cast<size_t>(30 - filled), '.').c_str(), step, steps,
                     train::eta_text(epoch, step, steps, q.epochs + 1, steady_epoch,
                                     std::chrono::duration<double>(now - steady_from).count())
                         .c_str());
        std::fflush(stderr);
      }
      return true;
    };
    run.reply = run_engine_child(os, o, dev, q, progress, &run.host_peak_bytes);
    if (bar) std::fprintf(stderr, "\r%100s\r", "");
    if (interrupted()) {
      run.stopped = true;
      if (run.reply.error == "stopped" || run.reply.error.empty()) run.reply.error.clear();
      if (run.reply.epochs.empty() && run.reply.error.empty())
        run.reply.error = "stopped by Ctrl-C before its first epoch ended";
    }
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
    std::fputs(train::render_bench_console(report, o.profile).c_str(), stdout);
  }
  bool any = false, all = true;
  for (const auto& r : report.runs) {
    any |= r.reply.error.empty();
    all &= r.reply.error.empty();
  }
  if (interrupted()) return kExitInterrupted;
  // --device all: a missing GPU engine is reported, not an error; a named device that did not run is.
  return (o.device == "all" ? any : all) ? kExitOk : kExitProblems;
}

// `gpuready __bench-engine`: one engine, in the child (see the top of the file).
int run_bench_engine(const BenchCmdOptions& o, const std::string& engine, const std::string& request) {
  train::TrainRequest q;
  try {
    q = nlohmann::json::parse(request).get<train::TrainRequest>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuready __bench-engine: the request is not valid JSON: %s\n", e.what());
    return kExitUsage;
  }
  const Os& os = real_os();
  train::Dataset data;
  train::Split split;
  if (!load_split(os, o, &data, &split)) return kExitUsage;
  // Ctrl-C (the parent passes it on): the engine stops after the step it is in and the epochs it finished
  // are the reply.
  catch_interrupts();
  const train::TrainReply reply = train::run_engine(
      os, train::engine_candidates(os, engine), q, split, [](int epoch, long long step, long long steps) {
        std::fprintf(stderr, "%s%d %lld %lld\n", kProgressPrefix, epoch, step, steps);
        std::fflush(stderr);
        return !interrupted();
      });
  std::fputs((nlohmann::json(reply).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(),
             stdout);
  std::fflush(stdout);
  return kExitOk;
}

void add_data_flags(CLI::App* sub, BenchCmdOptions* o) {
  sub->add_option("--data", o->data,
                  "A folder of class sub-folders of PNG/JPEG images, MNIST IDX files or CIFAR-10 binary batches "
                  "(default: the built-in synthetic shapes)")
      ->type_name("PATH");
  sub->add_option("--images", o->images, "How many synthetic images (default 4000)")->check(CLI::Range(10, 10000000));
  sub->add_option("--classes", o->classes, "How many synthetic classes, 2 to 10 (default 10)")->check(CLI::Range(2, 10));
  sub->add_option("--size", o->size, "Image size HxWxC, e.g. 28x28x1 or 128x128x3 (default: the data's)")
      ->type_name("HxWxC");
  sub->add_option("--seed", o->seed, "Seed of the data, the initial weights and the shuffling (default 1)");
  sub->add_option("--test-fraction", o->test_fraction,
                  "Share of the data held out for accuracy (default 0.2; MNIST-style data with its own t10k-* files "
                  "is held out by those instead)")
      ->check(CLI::Range(0.0, 0.9));
}

}  // namespace

void setup_bench_engine(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<BenchCmdOptions>();
  auto request = std::make_shared<std::string>();
  auto engine = std::make_shared<std::string>("gpu");
  CLI::App* sub = app.add_subcommand("__bench-engine", "");  // empty description: hidden from --help
  sub->group("");
  sub->add_option("--request", *request)->required();
  sub->add_option("--engine", *engine)->check(CLI::IsMember({"cpu", "gpu"}));
  add_data_flags(sub, o.get());
  sub->callback([o, request, engine, exit_code] { *exit_code = run_bench_engine(*o, *engine, *request); });
}

void setup_bench(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<BenchCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Train the walkthrough's CNN for a few epochs on the CPU and the GPU and compare: epoch time, images/s, "
      "held-out accuracy, the speedup");
  sub->add_option("--device", o->device, "cpu, gpu or all (default: all)")->check(CLI::IsMember({"cpu", "gpu", "all"}));
  add_data_flags(sub, o.get());
  sub->add_option("--batch", o->batch, "Batch size (default 128)")->check(CLI::Range(1, 65536));
  sub->add_option("--filters", o->filters, "Output channels of the two convolutions (default 32,64)")
      ->delimiter(',')
      ->expected(2)
      ->check(CLI::Range(1, 4096));
  sub->add_option("--kernel", o->kernel, "Convolution kernel size (default 3)")->check(CLI::Range(1, 15));
  sub->add_option("--dense", o->dense, "Units of the hidden dense layer (default 128)")->check(CLI::Range(1, 65536));
  sub->add_option("--lr", o->lr, "Adam's learning rate (default 0.001)")->check(CLI::Range(1e-8, 10.0));
  sub->add_option("--epochs", o->epochs, "Timed epochs after the first (default 3)")->check(CLI::Range(0, 1000));
  sub->add_option("--precision", o->precision, "fp32 (default), tf32 or bf16 (GPU)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}));
  sub->add_option("--threads", o->threads, "CPU threads (default: every core)")->check(CLI::Range(0, 4096));
  sub->add_option("--timeout", o->timeout_s, "Seconds the GPU run may take before it is stopped (default 1800)")
      ->check(CLI::Range(1.0, 1e6));
  sub->add_option("--algorithms", o->algorithms,
                  "GPU: how cuDNN's convolution algorithms are chosen: find (time them all), heuristic (its first "
                  "guess: a shorter first epoch) or auto (the default: find for fp32 and tf32, heuristic for bf16)")
      ->check(CLI::IsMember({"auto", "find", "heuristic"}));
  sub->add_option("--gpu-data", o->gpu_data,
                  "GPU: where the images live: device (uploaded once), stream (each batch copied from pinned host "
                  "memory) or auto (the default: device when they fit)")
      ->check(CLI::IsMember({"auto", "device", "stream"}));
  sub->add_option("--libs", o->libs,
                  "Where the GPU engine takes cuBLAS and cuDNN from: system (default), torch, tensorflow or jax (the "
                  "files that framework's environment loads), or an absolute folder; several, comma-separated, take each "
                  "library from the first that has it (/opt/cublas11,system)");
  sub->add_flag("--json", o->json, "Print the result as JSON (schema gpuready.bench/1)");
  sub->add_flag("--profile", o->profile,
                "Also say how each engine ran (libraries, algorithms, CUDA graphs) and time one step operation by "
                "operation");
  sub->callback([o, exit_code] { *exit_code = run_bench_cmd(*o); });
}

}  // namespace gpuready::cli
