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
  CUDA_ERROR_OPERATING_SYSTEM = 304,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_NOT_READY = 802,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_UNKNOWN = 999
} CUresult;

typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,  // kHz
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
} CUdevice_attribute;

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
// CUDA 11.3-11.8 (cuda.h of 12+ keeps it under #undef cuGetProcAddress).
CUresult GPUREADY_CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);
// CUDA 12.0+.
CUresult GPUREADY_CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                              CUdriverProcAddressQueryResult* symbolStatus);

}  // extern "C"

// Entry points resolved through cuGetProcAddress: X(member, name cuGetProcAddress knows, name for dlsym).
// cuGetProcAddress takes the base name and returns the ABI of the requested CUDA version;
// plain dlsym needs the suffixed export where the ABI changed (cuDeviceTotalMem -> _v2).
#define GPUREADY_CUDA_SYMBOLS(X)                                  \
  X(cuGetErrorString, "cuGetErrorString", "cuGetErrorString")     \
  X(cuGetErrorName, "cuGetErrorName", "cuGetErrorName")           \
  X(cuInit, "cuInit", "cuInit")                                   \
  X(cuDriverGetVersion, "cuDriverGetVersion", "cuDriverGetVersion") \
  X(cuDeviceGet, "cuDeviceGet", "cuDeviceGet")                    \
  X(cuDeviceGetCount, "cuDeviceGetCount", "cuDeviceGetCount")     \
  X(cuDeviceGetName, "cuDeviceGetName", "cuDeviceGetName")        \
  X(cuDeviceTotalMem_v2, "cuDeviceTotalMem", "cuDeviceTotalMem_v2") \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", "cuDeviceGetAttribute")
