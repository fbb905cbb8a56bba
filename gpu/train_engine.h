// The GPU engine of `gpuready bench`: the walkthrough's CNN (train/reference.h: ModelSpec,
// ParamLayout) trained with cuDNN (convolutions, pooling) and cuBLAS (the dense layers), and the
// module's own kernels where no library call fits (train_kernels.h: bias, ReLU, loss, Adam).
// Parameters and gradients live in one flat fp32 vector in the reference's layout, so a step can
// be checked against train::reference_step on the same batch.
//
// A step for a batch size is run once eagerly (cuDNN and cuBLAS load their kernels then) and from
// the second time on replayed from a CUDA graph captured from it: gather the batch through the
// epoch's order, forward, loss, backward, Adam, advance the cursor — no host work in the loop.
// Precision: fp32 (no tensor cores), tf32 (tensor cores on fp32 data), bf16 (activations,
// gradients and a weight copy in bf16; fp32 master weights and Adam moments).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "module.h"
#include "train/reference.h"
#include "train_kernels.h"

namespace gpuready::gpu {

enum class Precision { fp32, tf32, bf16 };
std::optional<Precision> parse_precision(const std::string& s);

struct EngineOptions {
  Precision precision = Precision::fp32;
  int max_batch = 128;
  bool graphs = true;           // replay steps from CUDA graphs
  bool find_algorithms = true;  // time cuDNN's algorithms for the full batch (cudnnFind*); else its heuristics
  std::size_t max_workspace = 512ull << 20;
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-7;
};

struct EpochStats {
  double loss_sum = 0;
  long long hits = 0;
};

// Where a step's batch comes from: images/labels on the device and, when `order` is set, rows
// order[cursor .. cursor + n) of them (the cursor lives in StepState); else rows 0 .. n.
struct BatchSource {
  const float* images = nullptr;
  const int* labels = nullptr;
  const int* order = nullptr;
  bool operator<(const BatchSource& o) const {
    return std::tie(images, labels, order) < std::tie(o.images, o.labels, o.order);
  }
};

// One operation of a step as profile() timed it: its median time, and what it computes and moves
// (the multiply-adds x 2 of a convolution or product; the bytes an ideal pass reads and writes).
struct OpTime {
  std::string op;
  double seconds = 0, flop = 0, bytes = 0;
};

class TrainEngine {
 public:
  // Throws std::runtime_error, in words, when a library call or an allocation fails.
  TrainEngine(const Cublas& blas, const Cudnn& dnn, const train::ModelSpec& m, const EngineOptions& o,
              CUstream stream);
  ~TrainEngine();
  TrainEngine(const TrainEngine&) = delete;
  TrainEngine& operator=(const TrainEngine&) = delete;

  void set_params(const std::vector<float>& p);  // also resets Adam
  std::vector<float> params();
  std::vector<float> grad();  // the last step's gradient, as fp32

  // Queues one step over n <= max_batch images of `src` (update: Adam too; else only the
  // gradient). Asynchronous: the stats accumulate on the device.
  void step(const BatchSource& src, int n, bool update);
  // Queues the forward pass and the loss only (the held-out split).
  void evaluate(const BatchSource& src, int n);
  // Zeroes the running sums and the cursor (the start of an epoch).
  void reset_epoch();
  // Waits for the stream and reads the running sums.
  EpochStats read_stats();

  // A synchronous step on host data (the tests): copies the batch in, runs, returns the stats.
  EpochStats step_host(const float* images, const int* labels, int n, bool update);

  // Times each operation of `repeats` eager steps (with updates) over src, by events between them;
  // the median per operation. Leaves the parameters updated.
  std::vector<OpTime> profile(const BatchSource& src, int n, int repeats);

  // What ran: the libraries' versions, the algorithms cuDNN chose, whether graphs replay.
  std::vector<std::string> details() const;
  const train::ParamLayout& layout() const { return l_; }
  int blas_version() const;  // cublasGetVersion: 130100 for 13.1.0
  int graphs_captured() const { return graphs_captured_; }

 private:
  struct Net;
  struct Mark {
    std::string op;
    double flop = 0, bytes = 0;
  };
  Net& net(int n);
  void run_step(Net& net, const BatchSource& src, int n, bool update, bool forward_only);
  void check(CUresult rc, const char* what) const;
  void record_event();  // profile(): an event on the stream, kept in *events_
  void check_dnn(cudnnStatus_t st, const char* what) const;
  void check_blas(cublasStatus_t st, const char* what) const;
  void gemm(int opa, int opb, int m, int n, int k, const void* a, int lda, const void* b, int ldb, void* c, int ldc,
            bool c_fp32);

  const Cublas& blas_;
  const Cudnn& dnn_;
  train::ModelSpec m_;
  train::ParamLayout l_;
  EngineOptions o_;
  CUstream stream_;
  Elem act_;  // f32 or bf16
  cublasHandle_t blas_h_ = nullptr;
  cudnnHandle_t dnn_h_ = nullptr;
  cudnnPoolingDescriptor_t pool_ = nullptr;
  cudnnFilterDescriptor_t w1d_ = nullptr, w2d_ = nullptr;
  // Sizes of one image's activations.
  int h1_ = 0, w1_ = 0, h1p_ = 0, w1p_ = 0, h2_ = 0, w2_ = 0, h2p_ = 0, w2p_ = 0;
  DevBuf params_, grad_, grad_act_, copy_, m_buf_, v_buf_, state_, partial_, blas_ws_;
  std::unique_ptr<DevBuf> workspace_;             // cuDNN's, the largest any batch size's algorithms need
  std::vector<std::unique_ptr<DevBuf>> retired_;  // smaller ones that captured graphs still use
  DevBuf x_, y_, a1_, p1_, p1raw_, a2_, p2_, p2raw_, h3_, logits_, dlogits_, dh3_, dp2_, da2_, dp1_, da1_;
  DevBuf stage_images_, stage_labels_;
  long long partial_per_layer_[4] = {};
  std::map<int, std::unique_ptr<Net>> nets_;
  int graphs_captured_ = 0;
  std::vector<std::string> algo_notes_;
  std::string graph_problem_;
  // Set while profile() runs: run_step names each operation and records an event after it.
  std::vector<Mark>* marks_ = nullptr;
  std::vector<CUevent>* events_ = nullptr;
};

}  // namespace gpuready::gpu
