/* The C entry points of gpuready's optional CUDA module (libgpuready-cuda.so / gpuready-cuda.dll).
 * gpuready loads the module at run time (it links no vendor library); the module links the CUDA
 * runtime statically and loads cuBLAS and cuDNN at run time itself. Requests and replies are JSON
 * text (gpu_protocol.h), so the boundary carries no C++ object and no allocator crosses it. */
#ifndef GPUREADY_VERIFY_GPU_ABI_H
#define GPUREADY_VERIFY_GPU_ABI_H

/* Bumped whenever the request or reply changes meaning; gpuready refuses a module of another ABI. */
#define GPUREADY_CUDA_ABI 1

#if defined(_WIN32)
#define GPUREADY_CUDA_EXPORT __declspec(dllexport)
#else
#define GPUREADY_CUDA_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Told the name of each step and check just before it runs (for a parent to say where a hang happened). */
typedef void (*gpuready_cuda_progress)(const char* step, void* ctx);

typedef int (*gpuready_cuda_abi_fn)(void);
typedef char* (*gpuready_cuda_run_fn)(const char* request_json, gpuready_cuda_progress progress, void* ctx);
typedef void (*gpuready_cuda_free_fn)(char* reply);

/* GPUREADY_CUDA_ABI of the module. */
GPUREADY_CUDA_EXPORT int gpuready_cuda_abi(void);
/* Runs the checks of a GpuRequest; returns a GpuReply as JSON text (never NULL), freed with gpuready_cuda_free. */
GPUREADY_CUDA_EXPORT char* gpuready_cuda_run(const char* request_json, gpuready_cuda_progress progress, void* ctx);
GPUREADY_CUDA_EXPORT void gpuready_cuda_free(char* reply);

#ifdef __cplusplus
}
#endif

#endif
