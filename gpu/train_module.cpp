// The CUDA module's training entry points (train/engine_abi.h): `gpuready bench`'s GPU engine.
// Opens the device, loads cuBLAS and cuDNN where the request says, builds the engine
// (train_engine.h) and trains as the CPU module does: the same initial weights, the same order of
// images each epoch (train::epoch_order), the last partial batch kept; the held-out split is
// evaluated after each epoch, untimed.
//
// The training data live in GPU memory when they fit (uploaded once, before the first epoch; each step
// gathers its batch through the epoch's order on the device), else each batch is gathered on the
// host into pinned memory and copied while the previous step runs; the held-out split is always
// streamed that way. An epoch's time runs from
// before its first step is queued to after its last update has finished.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>

#include "train/bench_protocol.h"
#include "train/engine_abi.h"
#include "train/engine_entry.h"
#include "train_engine.h"

namespace gpuready::gpu {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct PinnedBuf {
  void* p = nullptr;
  ~PinnedBuf() {
    if (p) cu().cuMemFreeHost(p);
  }
};

struct Stream {
  CUstream s = nullptr;
  ~Stream() {
    if (s) cu().cuStreamDestroy_v2(s);
  }
};

struct Event {
  CUevent e = nullptr;
  ~Event() {
    if (e) cu().cuEventDestroy_v2(e);
  }
};

void must(CUresult rc, const char* what) {
  if (rc != CUDA_SUCCESS) throw std::runtime_error(cu_error(what, rc));
}

// The driver, the device and the kernels, or why not; *name gets "NVIDIA H200 (compute capability 9.0)".
std::string open_device(const std::string& driver_path, int device, Precision p, std::string* name) {
  DriverInfo info;
  std::string why;
  if (!open_driver(driver_path, &info, &why)) return why;
  CUdevice dev = 0;
  if (!use_device(device, &dev, &why)) return why;
  char gpu[256] = {};
  if (cu().cuDeviceGetName) cu().cuDeviceGetName(gpu, sizeof gpu - 1, dev);
  int major = 0, minor = 0;
  cu().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cu().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  *name = fmt::format("{} (compute capability {}.{})", gpu, major, minor);
  if (p != Precision::fp32 && major < 8)
    return fmt::format("{} needs compute capability 8.0 (Ampere) or newer; {} is {}.{}",
                       p == Precision::tf32 ? "TF32" : "bf16", gpu, major, minor);
  if (!load_kernels(&why)) return why;
  return "";
}

train::TrainReply run(const train::TrainRequest& q, const gpuready_train_data& d, gpuready_train_progress progress,
                      void* ctx) {
  const auto t_setup = Clock::now();
  train::TrainReply r;
  r.abi = GPUREADY_TRAIN_ABI;
  r.precision = q.precision;
  const auto precision = parse_precision(q.precision);
  if (!precision) {
    r.error = "unknown precision '" + q.precision + "' (fp32, tf32 or bf16)";
    return r;
  }
  if (d.train_n < 1) {
    r.error = "no training images";
    return r;
  }
  if (std::string e = open_device(q.cuda_driver, q.device, *precision, &r.device); !e.empty()) {
    r.error = e;
    return r;
  }
  // Device memory in use, the whole GPU's: with the context and the kernels only, then its most.
  auto gpu_used = [] {
    std::size_t free_now = 0, total_now = 0;
    return cu().cuMemGetInfo_v2(&free_now, &total_now) == CUDA_SUCCESS && total_now >= free_now
               ? static_cast<std::uint64_t>(total_now - free_now)
               : std::uint64_t{0};
  };
  r.gpu_context_bytes = gpu_used();
  auto sample_gpu_memory = [&] { r.gpu_peak_bytes = std::max(r.gpu_peak_bytes, gpu_used()); };
  Cublas blas;
  Cudnn dnn;
  std::string why;
  if (!load_cublas(q.cublas, &blas, &why)) {
    r.error = why;
    return r;
  }
  if (!load_cudnn(q.cudnn_dir, q.cudnn_files, &dnn, &why)) {
    r.error = why;
    return r;
  }
  Stream stream;
  must(cu().cuStreamCreate(&stream.s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  const train::ModelSpec m = train::model_of(q);
  EngineOptions eo;
  eo.precision = *precision;
  eo.max_batch = static_cast<int>(std::min<long long>(std::max(1, q.batch), d.train_n));
  eo.graphs = q.graphs;
  if (q.algorithms != "auto" && q.algorithms != "find" && q.algorithms != "heuristic") {
    r.error = "unknown algorithm choice '" + q.algorithms + "' (auto, find or heuristic)";
    return r;
  }
  // auto: cudnnFind for fp32 and tf32; in bf16 the heuristics' first choices replayed faster on the
  // H200 (0.20 against 0.24 s per 128x128x3 epoch) and the search costs seconds.
  eo.find_algorithms = q.algorithms == "find" || (q.algorithms == "auto" && *precision != Precision::bf16);
  eo.lr = q.lr;
  TrainEngine e(blas, dnn, m, eo, stream.s);
  e.set_params(train::init_params(m, q.seed));
  const int blas_version = e.blas_version();
  const std::size_t cudnn_v = dnn.cudnnGetVersion();
  DriverInfo drv;
  open_driver(q.cuda_driver, &drv, nullptr);
  r.engine = fmt::format("cuDNN {} + cuBLAS {}.{}.{}, driver CUDA {}.{}, {}", cudnn_version_words(cudnn_v),
                         blas_version / 10000, blas_version % 10000 / 100, blas_version % 100, drv.version / 1000,
                         drv.version % 1000 / 10, q.precision);
  r.details.push_back("CUDA driver: " + drv.path);
  r.details.push_back(fmt::format("kernels: compiled with CUDA {}, {}", fatbin_toolkit(), kernel_image_in_use()));
  r.details.push_back("cuBLAS: " + blas.lib.path);
  r.details.push_back("cuDNN: " + dnn.lib.path);

  const int batch = eo.max_batch;
  const std::size_t image = static_cast<std::size_t>(m.c) * m.h * m.w;
  r.steps_per_epoch = (d.train_n + batch - 1) / batch;

  // Where the images live. The held-out split never does in GPU memory: it is evaluated once per epoch, untimed,
  // streamed through the staging buffers, and keeping it there cost the GPU memory of 20 % more images (PyTorch's
  // scripts keep only what they train on).
  const std::size_t data_bytes = static_cast<std::size_t>(d.train_n) * (image * sizeof(float) + 2 * sizeof(int));
  std::size_t free_b = 0, total_b = 0;
  cu().cuMemGetInfo_v2(&free_b, &total_b);
  const std::size_t margin = std::size_t{512} << 20;  // cuDNN's workspaces and the partial batch's algorithms
  bool resident =
      q.data_placement == "device" || (q.data_placement != "stream" && free_b > margin && data_bytes < free_b - margin);
  DevBuf train_x, train_y, order_d;
  if (resident) {
    auto alloc = [&](DevBuf& b, std::size_t bytes) {
      if (std::string err = b.alloc(std::max<std::size_t>(bytes, 16)); !err.empty()) throw std::runtime_error(err);
    };
    alloc(train_x, static_cast<std::size_t>(d.train_n) * image * sizeof(float));
    alloc(train_y, static_cast<std::size_t>(d.train_n) * sizeof(int));
    alloc(order_d, static_cast<std::size_t>(d.train_n) * sizeof(int));
    must(cu().cuMemcpyHtoD_v2(dptr(train_x.get()), d.train_images, static_cast<std::size_t>(d.train_n) * image * sizeof(float)),
         "uploading the training images");
    must(cu().cuMemcpyHtoD_v2(dptr(train_y.get()), d.train_labels, static_cast<std::size_t>(d.train_n) * sizeof(int)),
         "uploading the labels");
    r.details.push_back(fmt::format("data: the training images in GPU memory ({:.0f} MiB uploaded once, before the "
                                    "first epoch); the held-out split streamed from the host to be evaluated",
                                    static_cast<double>(data_bytes) / (1 << 20)));
  } else {
    r.details.push_back("data: streamed, each batch gathered on the host into pinned memory and copied (" +
                        (q.data_placement == "stream" ? std::string("as asked: --gpu-data stream")
                                                      : fmt::format("{:.0f} MiB would not fit in {:.0f} MiB free",
                                                                    static_cast<double>(data_bytes) / (1 << 20),
                                                                    static_cast<double>(free_b) / (1 << 20))) +
                        ")");
  }
  // Streaming: two pinned host buffers and two device buffers, alternating (the held-out split takes the first).
  PinnedBuf host_x[2], host_y[2];
  DevBuf dev_x[2], dev_y[2];
  Event done[2];
  const int staging = !resident ? 2 : d.test_n > 0 ? 1 : 0;
  for (int b = 0; b < staging; ++b) {
    must(cu().cuMemHostAlloc(&host_x[b].p, static_cast<std::size_t>(batch) * image * sizeof(float), 0), "cuMemHostAlloc");
    must(cu().cuMemHostAlloc(&host_y[b].p, static_cast<std::size_t>(batch) * sizeof(int), 0), "cuMemHostAlloc");
    if (std::string err = dev_x[b].alloc(static_cast<std::size_t>(batch) * image * sizeof(float)); !err.empty())
      throw std::runtime_error(err);
    if (std::string err = dev_y[b].alloc(static_cast<std::size_t>(batch) * sizeof(int)); !err.empty())
      throw std::runtime_error(err);
    must(cu().cuEventCreate(&done[b].e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  }
  // Streaming: gathers rows row(0) .. row(n - 1) of images/labels into pinned buffer b and queues
  // their copy into device buffer b.
  auto stage = [&](int b, const float* images, const int* labels, int n, const auto& row) {
    auto* hx = static_cast<float*>(host_x[b].p);
    auto* hy = static_cast<int*>(host_y[b].p);
    for (int i = 0; i < n; ++i) {
      const long long src = row(i);
      std::memcpy(hx + static_cast<std::size_t>(i) * image, images + static_cast<std::size_t>(src) * image,
                  image * sizeof(float));
      hy[i] = labels[src];
    }
    must(cu().cuMemcpyHtoDAsync_v2(dptr(dev_x[b].get()), hx, static_cast<std::size_t>(n) * image * sizeof(float), stream.s),
         "cuMemcpyAsync");
    must(cu().cuMemcpyHtoDAsync_v2(dptr(dev_y[b].get()), hy, static_cast<std::size_t>(n) * sizeof(int), stream.s),
         "cuMemcpyAsync");
    return BatchSource{dev_x[b].as<float>(), dev_y[b].as<int>(), nullptr};
  };
  r.setup_seconds = since(t_setup);
  sample_gpu_memory();

  // Progress: an event every `chunk` steps; the host waits for the one two chunks back, so the
  // queue stays full and the bar follows the GPU, not the launches.
  const long long steps = r.steps_per_epoch;
  const long long chunk = std::max<long long>(1, steps / 50);
  std::vector<int> order_i(static_cast<std::size_t>(d.train_n));
  for (int epoch = 0; epoch <= q.epochs; ++epoch) {
    train::EpochResult er;
    const auto order = train::epoch_order(d.train_n, q.seed, epoch);
    const auto t0 = Clock::now();
    e.reset_epoch();
    if (resident) {
      for (std::size_t i = 0; i < order.size(); ++i) order_i[i] = static_cast<int>(order[i]);
      must(cu().cuMemcpyHtoDAsync_v2(dptr(order_d.get()), order_i.data(), order_i.size() * sizeof(int), stream.s),
           "uploading the epoch's order");
    }
    std::deque<std::pair<long long, std::unique_ptr<Event>>> marks;
    for (long long step = 0; step < steps; ++step) {
      const long long from = step * batch;
      const int n = static_cast<int>(std::min<long long>(batch, d.train_n - from));
      if (resident) {
        e.step({train_x.as<float>(), train_y.as<int>(), order_d.as<int>()}, n, true);
      } else {
        const int b = static_cast<int>(step % 2);
        must(cu().cuEventSynchronize(done[b].e), "cuEventSynchronize");
        e.step(stage(b, d.train_images, d.train_labels, n,
                     [&](int i) { return order[static_cast<std::size_t>(from + i)]; }),
               n, true);
        must(cu().cuEventRecord(done[b].e, stream.s), "cuEventRecord");
      }
      if ((step + 1) % chunk == 0 || step + 1 == steps) {
        auto ev = std::make_unique<Event>();
        must(cu().cuEventCreate(&ev->e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        must(cu().cuEventRecord(ev->e, stream.s), "cuEventRecord");
        marks.emplace_back(step + 1, std::move(ev));
      }
      while (marks.size() > 2 || (step + 1 == steps && !marks.empty())) {
        must(cu().cuEventSynchronize(marks.front().second->e), "cuEventSynchronize");
        const long long reached = marks.front().first;
        marks.pop_front();
        if (progress && progress(epoch, reached, steps, ctx) != 0) {
          r.error = "stopped";
          return r;
        }
      }
    }
    const EpochStats s = e.read_stats();
    er.seconds = since(t0);
    er.train_loss = s.loss_sum / static_cast<double>(d.train_n);
    er.train_accuracy = static_cast<double>(s.hits) / static_cast<double>(d.train_n);
    // The held-out split, untimed.
    if (d.test_n > 0) {
      e.reset_epoch();
      for (long long from = 0; from < d.test_n; from += batch) {
        const int n = static_cast<int>(std::min<long long>(batch, d.test_n - from));
        must(cu().cuStreamSynchronize(stream.s), "cuStreamSynchronize");
        e.evaluate(stage(0, d.test_images, d.test_labels, n, [&](int i) { return from + i; }), n);
      }
      const EpochStats t = e.read_stats();
      er.test_loss = t.loss_sum / static_cast<double>(d.test_n);
      er.test_accuracy = static_cast<double>(t.hits) / static_cast<double>(d.test_n);
    }
    r.epochs.push_back(er);
    sample_gpu_memory();
  }
  // A few eager full-batch steps, operation by operation (after training: it changes nothing reported).
  e.reset_epoch();
  BatchSource first{train_x.as<float>(), train_y.as<int>(), order_d.as<int>()};
  if (!resident) {
    must(cu().cuStreamSynchronize(stream.s), "cuStreamSynchronize");
    first = stage(0, d.train_images, d.train_labels, batch, [](int i) { return static_cast<long long>(i); });
  }
  for (const auto& op : e.profile(first, batch, 5)) r.profile.push_back({op.op, op.seconds, op.flop, op.bytes});
  sample_gpu_memory();
  for (auto& line : e.details()) r.details.push_back(std::move(line));
  return r;
}

}  // namespace
}  // namespace gpuready::gpu

extern "C" {

GPUREADY_TRAIN_EXPORT int gpuready_train_abi(void) { return GPUREADY_TRAIN_ABI; }

GPUREADY_TRAIN_EXPORT char* gpuready_train_run(const char* request_json, const gpuready_train_data* data,
                                               gpuready_train_progress progress, void* ctx) {
  return gpuready::train::run_train_entry(request_json, data, progress, ctx, gpuready::gpu::run);
}

GPUREADY_TRAIN_EXPORT void gpuready_train_free(char* reply) { std::free(reply); }

}  // extern "C"
