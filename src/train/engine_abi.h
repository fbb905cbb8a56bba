/* The C entry points of gpuready's training engines: the CPU module (cpu/, libgpuready-cpu.so,
 * oneDNN) and, later, the CUDA module (gpu/). gpuready loads an engine at run time, so the
 * executable starts where neither oneDNN nor CUDA is installed. The request and the reply are
 * JSON text (train/bench_protocol.h); the data cross as plain arrays. */
#ifndef GPUREADY_TRAIN_ENGINE_ABI_H
#define GPUREADY_TRAIN_ENGINE_ABI_H

/* Bumped whenever the request, the reply or the data's layout change meaning. */
#define GPUREADY_TRAIN_ABI 1

#if defined(_WIN32)
#define GPUREADY_TRAIN_EXPORT __declspec(dllexport)
#else
#define GPUREADY_TRAIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Images: n x C x H x W floats in [0, 1] (NCHW, contiguous); labels: n ints in [0, classes). */
typedef struct {
  const float* train_images;
  const int* train_labels;
  long long train_n;
  const float* test_images;
  const int* test_labels;
  long long test_n;
} gpuready_train_data;

/* Told each finished step (step, steps in the epoch, epoch) for a progress bar; return nonzero to stop. */
typedef int (*gpuready_train_progress)(int epoch, long long step, long long steps, void* ctx);

typedef int (*gpuready_train_abi_fn)(void);
typedef char* (*gpuready_train_run_fn)(const char* request_json, const gpuready_train_data* data,
                                       gpuready_train_progress progress, void* ctx);
typedef void (*gpuready_train_free_fn)(char* reply);

GPUREADY_TRAIN_EXPORT int gpuready_train_abi(void);
/* Trains as the request says; returns the reply as JSON text (never NULL), freed with gpuready_train_free. */
GPUREADY_TRAIN_EXPORT char* gpuready_train_run(const char* request_json, const gpuready_train_data* data,
                                               gpuready_train_progress progress, void* ctx);
GPUREADY_TRAIN_EXPORT void gpuready_train_free(char* reply);

#ifdef __cplusplus
}
#endif

#endif
