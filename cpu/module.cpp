// The CPU module's entry points (train/engine_abi.h): trains the CNN with the oneDNN engine on the
// data gpuready hands over. An epoch: the training images in a new order (deterministic by seed and
// epoch), batches of req.batch (the last, partial batch kept), forward + backward + Adam each; its
// time covers exactly that. The held-out split is evaluated after each epoch, untimed.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "engine.h"
#include "train/bench_protocol.h"
#include "train/dataset.h"
#include "train/engine_abi.h"
#include "train/engine_entry.h"

namespace gpuready::cpu {
namespace {

train::TrainReply run(const train::TrainRequest& q, const gpuready_train_data& d, gpuready_train_progress progress,
                      void* ctx) {
  train::TrainReply r;
  r.abi = GPUREADY_TRAIN_ABI;
  r.precision = q.precision;
  if (q.precision != "fp32") {
    r.error = "the CPU engine trains in fp32 only (asked: " + q.precision + ")";
    return r;
  }
#if defined(_OPENMP)
  if (q.threads > 0) omp_set_num_threads(q.threads);
#endif
  const train::ModelSpec m = train::model_of(q);
  Engine e(m, train::init_params(m, q.seed));
  e.adam().lr = q.lr;
  r.engine = Engine::describe();
  r.device = "CPU";
  const size_t image = static_cast<size_t>(m.c) * m.h * m.w;
  const int batch = std::max(1, q.batch);
  r.steps_per_epoch = (d.train_n + batch - 1) / batch;
  std::vector<float> xb(image * static_cast<size_t>(batch));
  std::vector<int> yb(static_cast<size_t>(batch));
  for (int epoch = 0; epoch <= q.epochs; ++epoch) {
    train::EpochResult er;
    const auto t0 = std::chrono::steady_clock::now();
    const auto order = train::epoch_order(d.train_n, q.seed, epoch);
    double loss_sum = 0;
    long long hits = 0;
    for (long long step = 0; step < r.steps_per_epoch; ++step) {
      const long long from = step * batch, n = std::min<long long>(batch, d.train_n - from);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
      for (long long i = 0; i < n; ++i) {
        const long long src = order[static_cast<size_t>(from + i)];
        std::memcpy(xb.data() + static_cast<size_t>(i) * image, d.train_images + static_cast<size_t>(src) * image,
                    image * sizeof(float));
        yb[static_cast<size_t>(i)] = d.train_labels[src];
      }
      const Stats s = e.train_step(xb.data(), yb.data(), static_cast<int>(n));
      loss_sum += s.loss * static_cast<double>(n);
      hits += s.correct;
      if (progress && progress(epoch, step + 1, r.steps_per_epoch, ctx) != 0) {
        r.error = "stopped";
        return r;
      }
    }
    er.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    er.train_loss = d.train_n ? loss_sum / static_cast<double>(d.train_n) : 0;
    er.train_accuracy = d.train_n ? static_cast<double>(hits) / static_cast<double>(d.train_n) : 0;
    double test_loss = 0;
    long long test_hits = 0;
    for (long long from = 0; from < d.test_n; from += batch) {
      const long long n = std::min<long long>(batch, d.test_n - from);
      const Stats s =
          e.evaluate(d.test_images + static_cast<size_t>(from) * image, d.test_labels + from, static_cast<int>(n));
      test_loss += s.loss * static_cast<double>(n);
      test_hits += s.correct;
    }
    er.test_loss = d.test_n ? test_loss / static_cast<double>(d.test_n) : 0;
    er.test_accuracy = d.test_n ? static_cast<double>(test_hits) / static_cast<double>(d.test_n) : 0;
    r.epochs.push_back(er);
    if (epoch == 0 && !e.implementations().empty()) r.details.push_back("oneDNN: " + e.implementations());
  }
  return r;
}

}  // namespace
}  // namespace gpuready::cpu

extern "C" {

int gpuready_train_abi(void) { return GPUREADY_TRAIN_ABI; }

char* gpuready_train_run(const char* request_json, const gpuready_train_data* data, gpuready_train_progress progress,
                         void* ctx) {
  return gpuready::train::run_train_entry(request_json, data, progress, ctx, gpuready::cpu::run);
}

void gpuready_train_free(char* reply) { std::free(reply); }

}  // extern "C"
