// The CUDA module's entry points (verify/gpu_abi.h) and what its checks share: the driver, the
// device, the stream, timing by events, reading sampled results back. Nothing escapes the C
// boundary: every failure becomes a step or a result's error in the reply.
#include "module.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <exception>

#include "verify/gpu_abi.h"

namespace gpuready::gpu {

bool Run::wants(const std::string& key) const {
  if (req.checks.empty()) return true;
  for (const auto& k : req.checks)
    if (k == key) return true;
  return false;
}
bool Run::wants_prefix(const std::string& prefix) const {
  if (req.checks.empty()) return true;
  for (const auto& k : req.checks)
    if (k.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string DevBuf::alloc(std::size_t bytes) {
  reset();
  CUdeviceptr d = 0;
  const CUresult rc = cu().cuMemAlloc_v2(&d, bytes);
  if (rc != CUDA_SUCCESS) return cu_error("cuMemAlloc", rc) + fmt::format(" ({} MiB)", bytes >> 20);
  p_ = reinterpret_cast<void*>(static_cast<std::uintptr_t>(d));
  bytes_ = bytes;
  return "";
}
void DevBuf::reset() {
  if (p_) cu().cuMemFree_v2(dptr(p_));
  p_ = nullptr;
  bytes_ = 0;
}

namespace {
struct Events {
  CUevent a = nullptr, b = nullptr;
  ~Events() {
    if (a) cu().cuEventDestroy_v2(a);
    if (b) cu().cuEventDestroy_v2(b);
  }
};
}  // namespace

std::string time_calls(CUstream s, int warmup, int samples, double target_ms, const std::function<std::string()>& call,
                       std::vector<double>* seconds, int* calls_per_sample) {
  Events ev;
  if (CUresult rc = cu().cuEventCreate(&ev.a, CU_EVENT_DEFAULT); rc != CUDA_SUCCESS) return cu_error("cuEventCreate", rc);
  if (CUresult rc = cu().cuEventCreate(&ev.b, CU_EVENT_DEFAULT); rc != CUDA_SUCCESS) return cu_error("cuEventCreate", rc);
  for (int i = 0; i < warmup; ++i)
    if (std::string e = call(); !e.empty()) return e;
  auto timed = [&](int calls, float* ms) -> std::string {
    cu().cuEventRecord(ev.a, s);
    for (int i = 0; i < calls; ++i)
      if (std::string e = call(); !e.empty()) return e;
    cu().cuEventRecord(ev.b, s);
    if (CUresult rc = cu().cuEventSynchronize(ev.b); rc != CUDA_SUCCESS) return cu_error("cuEventSynchronize", rc);
    if (CUresult rc = cu().cuEventElapsedTime(ms, ev.a, ev.b); rc != CUDA_SUCCESS)
      return cu_error("cuEventElapsedTime", rc);
    return "";
  };
  float one = 0;
  if (std::string e = timed(1, &one); !e.empty()) return e;
  int calls = one > 0 ? static_cast<int>(target_ms / one) : 1;
  calls = calls < 1 ? 1 : (calls > 1000 ? 1000 : calls);
  *calls_per_sample = calls;
  for (int i = 0; i < samples; ++i) {
    float ms = 0;
    if (std::string e = timed(calls, &ms); !e.empty()) return e;
    seconds->push_back(ms / 1e3 / calls);
  }
  return "";
}

std::string sample_result(Run& run, void* p, Elem t, std::uint64_t size, std::uint64_t seed,
                          std::vector<verify::SampledValue>* out) {
  const int n = run.req.points < 1 ? 1 : run.req.points;
  std::vector<std::uint64_t> idx(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = verify::sample_index(seed, i, size);
  if (run.req.plant_corruption)
    if (CUresult rc = poke_value(p, t, idx[0], 1000.0f, run.stream); rc != CUDA_SUCCESS)
      return cu_error("planting the corruption", rc);
  DevBuf d_idx, d_out;
  if (std::string e = d_idx.alloc(idx.size() * sizeof(std::uint64_t)); !e.empty()) return e;
  if (std::string e = d_out.alloc(idx.size() * sizeof(double)); !e.empty()) return e;
  std::vector<double> vals(idx.size());
  CUresult rc =
      cu().cuMemcpyHtoDAsync_v2(dptr(d_idx.get()), idx.data(), idx.size() * sizeof(std::uint64_t), run.stream);
  if (rc == CUDA_SUCCESS) rc = gather_values(p, t, d_idx.as<std::uint64_t>(), d_out.as<double>(), n, run.stream);
  if (rc == CUDA_SUCCESS)
    rc = cu().cuMemcpyDtoHAsync_v2(vals.data(), dptr(d_out.get()), vals.size() * sizeof(double), run.stream);
  if (rc == CUDA_SUCCESS) rc = cu().cuStreamSynchronize(run.stream);
  if (rc != CUDA_SUCCESS) return cu_error("reading the sampled results back", rc);
  for (size_t i = 0; i < idx.size(); ++i) out->push_back({idx[i], vals[i]});
  return "";
}

namespace {

// The driver, the device, its facts, the kernels and a stream; false when the driver cannot reach
// them (the steps say why).
bool open_device(Run& run) {
  StepLog& log = run.log;
  verify::GpuReply& r = run.reply;
  log.begin("load the CUDA driver");
  DriverInfo info;
  std::string why;
  const bool loaded = open_driver(run.req.cuda_driver, &info, &why);
  r.driver_path = info.path;
  r.device.driver_version = info.version;
  if (!loaded) {
    log.end(false, "driver_not_loaded", why);
    return false;
  }
  if (info.version > 0 && info.version < 11000) {
    // The kernels are an 11.x toolkit's: minor-version compatibility starts with CUDA 11 drivers.
    log.end(false, "driver_too_old",
            fmt::format("{} supports CUDA {}.{}; the module's kernels (compiled with CUDA {}) need a driver of CUDA 11 "
                        "or newer",
                        info.path, info.version / 1000, info.version % 1000 / 10, fatbin_toolkit()));
    return false;
  }
  log.end(true, "",
          fmt::format("{}; CUDA {}.{}", cuda_driver::library_loaded(info.path, info.resolved_via), info.version / 1000,
                      info.version % 1000 / 10));
  log.begin("open the device");
  CUdevice dev = 0;
  if (!use_device(run.req.device, &dev, &why)) {
    log.end(false, "device", why);
    return false;
  }
  char name[256] = {};
  if (cu().cuDeviceGetName) cu().cuDeviceGetName(name, sizeof name - 1, dev);
  r.device.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    return cu().cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
  };
  r.device.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  r.device.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  r.device.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  r.device.clock_mhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  CUuuid uuid{};
  if (cu().cuDeviceGetUuid && cu().cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
    static const char* hex = "0123456789abcdef";
    std::string u = "GPU-";
    for (int i = 0; i < 16; ++i) {
      const auto b = static_cast<unsigned char>(uuid.bytes[i]);
      u += hex[b >> 4];
      u += hex[b & 15];
      if (i == 3 || i == 5 || i == 7 || i == 9) u += '-';
    }
    r.device.uuid = u;
  }
  char bus[64] = {};
  if (cu().cuDeviceGetPCIBusId && cu().cuDeviceGetPCIBusId(bus, sizeof bus, dev) == CUDA_SUCCESS) r.device.pci_bus_id = bus;
  size_t free_b = 0, total_b = 0;
  if (cu().cuMemGetInfo_v2(&free_b, &total_b) == CUDA_SUCCESS) {
    r.device.memory_free = free_b;
    r.device.memory_total = total_b;
  }
  log.end(true, "",
          fmt::format("{} ({}), compute capability {}.{}, {} SMs", r.device.name, r.device.pci_bus_id,
                      r.device.cc_major, r.device.cc_minor, r.device.sm_count));
  log.begin("load the kernels");
  r.device.kernel_image = kernel_image_for(r.device.cc_major, r.device.cc_minor);
  if (!load_kernels(&why)) {
    if (r.device.kernel_image.empty())
      why += fmt::format("; the module carries code for sm_50 and newer, this GPU is {}.{}", r.device.cc_major,
                         r.device.cc_minor);
    log.end(false, "kernels_not_loaded", why);
    return false;
  }
  // Last, so that no failure above leaves a stream behind (run_all destroys this one).
  if (CUresult rc = cu().cuStreamCreate(&run.stream, CU_STREAM_NON_BLOCKING); rc != CUDA_SUCCESS) {
    run.stream = nullptr;
    log.end(false, result_code(rc), cu_error("cuStreamCreate", rc));
    return false;
  }
  log.end(true, "", r.device.kernel_image);
  return true;
}

void run_all(const char* request_json, gpuready_cuda_progress progress, void* ctx, verify::GpuReply& reply) {
  reply.abi = GPUREADY_CUDA_ABI;
  reply.module_cuda = fatbin_toolkit();
  StepLog log(reply.steps, [progress, ctx](const std::string& s) {
    if (progress) progress(s.c_str(), ctx);
  });
  verify::GpuRequest req;
  log.begin("read the request");
  try {
    req = nlohmann::json::parse(request_json ? request_json : "").get<verify::GpuRequest>();
  } catch (const std::exception& e) {
    log.end(false, "bad_request", e.what());
    return;
  }
  log.end(true, "", "");
  Run run{req, reply, log};
  if (!open_device(run)) return;

  if (run.wants_prefix("gemm.")) {
    Cublas cublas;
    std::string why;
    log.begin("load cuBLAS");
    const bool ok = load_cublas(req.cublas, &cublas, &why);
    if (ok) {
      reply.cublas_path = cublas.lib.path;
      log.end(true, "", reply.cublas_path);
    } else {
      log.end(false, "cublas_not_loaded", why);
    }
    run_gemm(run, ok ? &cublas : nullptr, why);
  }
  if (run.wants_prefix("cudnn.")) {
    Cudnn cudnn;
    std::string why;
    log.begin("load cuDNN");
    const bool ok = load_cudnn(req.cudnn_dir, req.cudnn_files, &cudnn, &why);
    if (ok) {
      reply.cudnn_path = cudnn.lib.path;
      reply.cudnn_version = static_cast<long long>(cudnn.cudnnGetVersion());
      reply.cudnn_cudart_version = static_cast<long long>(cudnn.cudnnGetCudartVersion());
      log.end(true, why.empty() ? "" : "partial", why.empty() ? reply.cudnn_path : reply.cudnn_path + "; " + why);
    } else {
      log.end(false, "cudnn_not_loaded", why);
    }
    run_conv(run, ok ? &cudnn : nullptr, why);
  }
  if (run.wants("memory.pattern")) run_memory(run);
  reply.loaded = loaded_files({"cublas", "cudnn"});
  if (run.stream) cu().cuStreamDestroy_v2(run.stream);
}

}  // namespace

char* to_c_string(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

}  // namespace gpuready::gpu

extern "C" {

int gpuready_cuda_abi(void) { return GPUREADY_CUDA_ABI; }

char* gpuready_cuda_run(const char* request_json, gpuready_cuda_progress progress, void* ctx) {
  using namespace gpuready;
  verify::GpuReply reply;
  try {
    gpu::run_all(request_json, progress, ctx, reply);
  } catch (const std::exception& e) {
    reply.steps.push_back({"the module", false, "exception", e.what(), 0});
  } catch (...) {
    reply.steps.push_back({"the module", false, "exception", "unknown exception", 0});
  }
  try {
    return gpu::to_c_string(nlohmann::json(reply).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } catch (...) {
    return gpu::to_c_string("{}");
  }
}

void gpuready_cuda_free(char* reply) { std::free(reply); }

}  // extern "C"
