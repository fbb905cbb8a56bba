// The subset of the CUDA driver API (cuda.h) that gpuready uses, declared with cuda.h's exact
// types and signatures (CUDA 13.0 header) because a fresh machine has no toolkit to include it from.
// Nothing is linked: the names only give decltype() a type; symbols come from cuGetProcAddress.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef _WIN32
#define GPUREADY_CUDAAPI __stdcall
#else
#define GPUREADY_CUDAAPI
#endif

extern "C" {

typedef std::uint64_t cuuint64_t;
typedef int CUdevice;
#if defined(_WIN64) || defined(__LP64__)
typedef unsigned long long CUdeviceptr_v2;
#else
typedef unsigned int CUdeviceptr_v2;
#endif
typedef CUdeviceptr_v2 CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;
typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;

// The CUresult values gpuready names (the rest print as their number via cuGetErrorName).
typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
  CUDA_ERROR_OPERATING_SYSTEM = 304,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_NOT_READY = 802,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_UNKNOWN = 999
} CUresult;

typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,  // kHz (the SM clock %clock64 counts)
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,  // kHz
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134  // CUDA 12.2+: the host NUMA node nearest the GPU, -1 without NUMA
} CUdevice_attribute;

#define CU_MEMHOSTALLOC_PORTABLE 0x01
typedef enum CUstream_flags_enum { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 } CUstream_flags;
typedef enum CUevent_flags_enum {
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_EVENT_DISABLE_TIMING = 0x2
} CUevent_flags;

typedef enum CUstreamCaptureMode_enum {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2
} CUstreamCaptureMode;

// The options of cuModuleLoadDataEx gpuready passes (the JIT's messages when PTX is compiled).
typedef enum CUjit_option_enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
} CUjit_option;

typedef enum CUdriverProcAddress_flags_enum { CU_GET_PROC_ADDRESS_DEFAULT = 0 } CUdriverProcAddress_flags;

typedef enum CUdriverProcAddressQueryResult_enum {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
} CUdriverProcAddressQueryResult;

CUresult GPUREADY_CUDAAPI cuGetErrorString(CUresult error, const char** pStr);
CUresult GPUREADY_CUDAAPI cuGetErrorName(CUresult error, const char** pStr);
CUresult GPUREADY_CUDAAPI cuInit(unsigned int Flags);
CUresult GPUREADY_CUDAAPI cuDriverGetVersion(int* driverVersion);
CUresult GPUREADY_CUDAAPI cuDeviceGet(CUdevice* device, int ordinal);
CUresult GPUREADY_CUDAAPI cuDeviceGetCount(int* count);
CUresult GPUREADY_CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev);
// cuda.h maps cuDeviceTotalMem to this since CUDA 3.2; the unsuffixed export takes unsigned int*.
CUresult GPUREADY_CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev);
CUresult GPUREADY_CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev);
CUresult GPUREADY_CUDAAPI cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev);
CUresult GPUREADY_CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice dev);
CUresult GPUREADY_CUDAAPI cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev);
CUresult GPUREADY_CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev);
CUresult GPUREADY_CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult GPUREADY_CUDAAPI cuCtxSetCurrent(CUcontext ctx);
CUresult GPUREADY_CUDAAPI cuCtxSynchronize(void);
CUresult GPUREADY_CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags);
CUresult GPUREADY_CUDAAPI cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize);
CUresult GPUREADY_CUDAAPI cuMemFree_v2(CUdeviceptr dptr);
CUresult GPUREADY_CUDAAPI cuMemGetInfo_v2(size_t* free, size_t* total);
CUresult GPUREADY_CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags);
CUresult GPUREADY_CUDAAPI cuMemFreeHost(void* p);
CUresult GPUREADY_CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult GPUREADY_CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
CUresult GPUREADY_CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount);
CUresult GPUREADY_CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                               CUstream hStream);
CUresult GPUREADY_CUDAAPI cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                               CUstream hStream);
CUresult GPUREADY_CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                               CUstream hStream);
CUresult GPUREADY_CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                            CUcontext srcContext, size_t ByteCount, CUstream hStream);
CUresult GPUREADY_CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags);
CUresult GPUREADY_CUDAAPI cuStreamDestroy_v2(CUstream hStream);
CUresult GPUREADY_CUDAAPI cuStreamSynchronize(CUstream hStream);
CUresult GPUREADY_CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode);
CUresult GPUREADY_CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph* phGraph);
CUresult GPUREADY_CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                      unsigned long long flags);
CUresult GPUREADY_CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream);
CUresult GPUREADY_CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec);
CUresult GPUREADY_CUDAAPI cuGraphDestroy(CUgraph hGraph);
CUresult GPUREADY_CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags);
CUresult GPUREADY_CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult GPUREADY_CUDAAPI cuEventQuery(CUevent hEvent);
CUresult GPUREADY_CUDAAPI cuEventSynchronize(CUevent hEvent);
// The base ABI (cuda.h of 12.8+ maps the name to cuEventElapsedTime_v2, same arguments).
CUresult GPUREADY_CUDAAPI cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult GPUREADY_CUDAAPI cuEventDestroy_v2(CUevent hEvent);
CUresult GPUREADY_CUDAAPI cuModuleLoadData(CUmodule* module, const void* image);
CUresult GPUREADY_CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                             CUjit_option* options, void** optionValues);
CUresult GPUREADY_CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name);
CUresult GPUREADY_CUDAAPI cuModuleUnload(CUmodule hmod);
CUresult GPUREADY_CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                         unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                         void** kernelParams, void** extra);
// CUDA 11.3-11.8 (cuda.h of 12+ keeps it under #undef cuGetProcAddress).
CUresult GPUREADY_CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);
// CUDA 12.0+.
CUresult GPUREADY_CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                              CUdriverProcAddressQueryResult* symbolStatus);

}  // extern "C"

// Entry points resolved through cuGetProcAddress: X(member, name cuGetProcAddress knows, name for dlsym).
// cuGetProcAddress takes the base name and returns the ABI of the requested CUDA version;
// plain dlsym needs the suffixed export where the ABI changed (cuDeviceTotalMem -> _v2).
// With the default flags cuGetProcAddress returns the legacy-stream variants (not _ptsz/_ptds);
// gpuready passes explicit streams everywhere, so the two behave alike. Every entry may be
// missing from an old or odd driver: each caller checks for nullptr and says which one.
#define GPUREADY_CUDA_SYMBOLS(X)                                                               \
  X(cuGetErrorString, "cuGetErrorString", "cuGetErrorString")                                  \
  X(cuGetErrorName, "cuGetErrorName", "cuGetErrorName")                                        \
  X(cuInit, "cuInit", "cuInit")                                                                \
  X(cuDriverGetVersion, "cuDriverGetVersion", "cuDriverGetVersion")                            \
  X(cuDeviceGet, "cuDeviceGet", "cuDeviceGet")                                                 \
  X(cuDeviceGetCount, "cuDeviceGetCount", "cuDeviceGetCount")                                  \
  X(cuDeviceGetName, "cuDeviceGetName", "cuDeviceGetName")                                     \
  X(cuDeviceTotalMem_v2, "cuDeviceTotalMem", "cuDeviceTotalMem_v2")                            \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", "cuDeviceGetAttribute")                      \
  X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", "cuDeviceGetPCIBusId")                         \
  X(cuDeviceGetUuid, "cuDeviceGetUuid", "cuDeviceGetUuid")                                     \
  X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", "cuDeviceCanAccessPeer")                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain")          \
  X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2") \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", "cuCtxSetCurrent")                                     \
  X(cuCtxSynchronize, "cuCtxSynchronize", "cuCtxSynchronize")                                  \
  X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", "cuCtxEnablePeerAccess")                   \
  X(cuMemAlloc_v2, "cuMemAlloc", "cuMemAlloc_v2")                                              \
  X(cuMemFree_v2, "cuMemFree", "cuMemFree_v2")                                                 \
  X(cuMemGetInfo_v2, "cuMemGetInfo", "cuMemGetInfo_v2")                                        \
  X(cuMemHostAlloc, "cuMemHostAlloc", "cuMemHostAlloc")                                        \
  X(cuMemFreeHost, "cuMemFreeHost", "cuMemFreeHost")                                           \
  X(cuMemsetD8_v2, "cuMemsetD8", "cuMemsetD8_v2")                                              \
  X(cuMemsetD8Async, "cuMemsetD8Async", "cuMemsetD8Async")                                     \
  X(cuMemcpyHtoD_v2, "cuMemcpyHtoD", "cuMemcpyHtoD_v2")                                        \
  X(cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2")                         \
  X(cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2")                         \
  X(cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2")                         \
  X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", "cuMemcpyPeerAsync")                               \
  X(cuStreamCreate, "cuStreamCreate", "cuStreamCreate")                                        \
  X(cuStreamDestroy_v2, "cuStreamDestroy", "cuStreamDestroy_v2")                               \
  X(cuStreamSynchronize, "cuStreamSynchronize", "cuStreamSynchronize")                         \
  X(cuStreamBeginCapture_v2, "cuStreamBeginCapture", "cuStreamBeginCapture_v2")               \
  X(cuStreamEndCapture, "cuStreamEndCapture", "cuStreamEndCapture")                            \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", "cuGraphInstantiateWithFlags") \
  X(cuGraphLaunch, "cuGraphLaunch", "cuGraphLaunch")                                           \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", "cuGraphExecDestroy")                            \
  X(cuGraphDestroy, "cuGraphDestroy", "cuGraphDestroy")                                        \
  X(cuEventCreate, "cuEventCreate", "cuEventCreate")                                           \
  X(cuEventRecord, "cuEventRecord", "cuEventRecord")                                           \
  X(cuEventQuery, "cuEventQuery", "cuEventQuery")                                              \
  X(cuEventSynchronize, "cuEventSynchronize", "cuEventSynchronize")                            \
  X(cuEventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime")                            \
  X(cuEventDestroy_v2, "cuEventDestroy", "cuEventDestroy_v2")                                  \
  X(cuModuleLoadData, "cuModuleLoadData", "cuModuleLoadData")                                  \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", "cuModuleLoadDataEx")                            \
  X(cuModuleGetFunction, "cuModuleGetFunction", "cuModuleGetFunction")                         \
  X(cuModuleUnload, "cuModuleUnload", "cuModuleUnload")                                        \
  X(cuLaunchKernel, "cuLaunchKernel", "cuLaunchKernel")
