// The CUDA module's entry points (verify/gpu_abi.h) and what its checks share: the device, the
// stream, timing by events, reading sampled results back. Nothing escapes the C boundary: every
// failure becomes a step or a result's error in the reply.
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

std::string cuda_error(const char* call, cudaError_t rc) {
  return fmt::format("{} failed: {} ({})", call, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

std::string DevBuf::alloc(std::size_t bytes) {
  reset();
  const cudaError_t rc = cudaMalloc(&p_, bytes);
  if (rc != cudaSuccess) {
    p_ = nullptr;
    cudaGetLastError();  // clear the sticky-free error so later calls do not see it
    return cuda_error("cudaMalloc", rc) + fmt::format(" ({} MiB)", bytes >> 20);
  }
  bytes_ = bytes;
  return "";
}
void DevBuf::reset() {
  if (p_) cudaFree(p_);
  p_ = nullptr;
  bytes_ = 0;
}

namespace {
struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  ~Events() {
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
  }
};
}  // namespace

std::string time_calls(cudaStream_t s, int warmup, int samples, double target_ms,
                       const std::function<std::string()>& call, std::vector<double>* seconds, int* calls_per_sample) {
  Events ev;
  if (cudaError_t rc = cudaEventCreate(&ev.a); rc != cudaSuccess) return cuda_error("cudaEventCreate", rc);
  if (cudaError_t rc = cudaEventCreate(&ev.b); rc != cudaSuccess) return cuda_error("cudaEventCreate", rc);
  for (int i = 0; i < warmup; ++i)
    if (std::string e = call(); !e.empty()) return e;
  auto timed = [&](int calls, float* ms) -> std::string {
    cudaEventRecord(ev.a, s);
    for (int i = 0; i < calls; ++i)
      if (std::string e = call(); !e.empty()) return e;
    cudaEventRecord(ev.b, s);
    if (cudaError_t rc = cudaEventSynchronize(ev.b); rc != cudaSuccess) return cuda_error("cudaEventSynchronize", rc);
    if (cudaError_t rc = cudaEventElapsedTime(ms, ev.a, ev.b); rc != cudaSuccess)
      return cuda_error("cudaEventElapsedTime", rc);
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
    if (cudaError_t rc = poke_value(p, t, idx[0], 1000.0f, run.stream); rc != cudaSuccess)
      return cuda_error("planting the corruption", rc);
  DevBuf d_idx, d_out;
  if (std::string e = d_idx.alloc(idx.size() * sizeof(std::uint64_t)); !e.empty()) return e;
  if (std::string e = d_out.alloc(idx.size() * sizeof(double)); !e.empty()) return e;
  std::vector<double> vals(idx.size());
  cudaError_t rc =
      cudaMemcpyAsync(d_idx.get(), idx.data(), idx.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice, run.stream);
  if (rc == cudaSuccess) rc = gather_values(p, t, d_idx.as<std::uint64_t>(), d_out.as<double>(), n, run.stream);
  if (rc == cudaSuccess)
    rc = cudaMemcpyAsync(vals.data(), d_out.get(), vals.size() * sizeof(double), cudaMemcpyDeviceToHost, run.stream);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(run.stream);
  if (rc != cudaSuccess) return cuda_error("reading the sampled results back", rc);
  for (size_t i = 0; i < idx.size(); ++i) out->push_back({idx[i], vals[i]});
  return "";
}

namespace {

// The device, its facts and a stream; false when the runtime cannot reach it (the steps say why).
bool open_device(Run& run) {
  StepLog& log = run.log;
  verify::GpuReply& r = run.reply;
  log.begin("cudaGetDeviceCount");
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  cudaDriverGetVersion(&r.device.driver_version);
  cudaRuntimeGetVersion(&r.device.runtime_version);
  if (rc != cudaSuccess) {
    std::string words = cuda_error("cudaGetDeviceCount", rc);
    if (rc == cudaErrorInsufficientDriver && r.device.driver_version == 0)
      words += "; no CUDA driver answered (libcuda could not be loaded: is the NVIDIA driver installed?)";
    else if (rc == cudaErrorInsufficientDriver)
      words += fmt::format("; the driver supports CUDA {}.{}, this module was built with CUDA {}.{}: update the driver",
                           r.device.driver_version / 1000, r.device.driver_version % 1000 / 10, CUDART_VERSION / 1000,
                           CUDART_VERSION % 1000 / 10);
    log.end(false, cudaGetErrorName(rc), words);
    return false;
  }
  if (run.req.device >= count) {
    log.end(false, "cudaErrorInvalidDevice",
            fmt::format("CUDA device {} asked for; the runtime sees {}", run.req.device, count));
    return false;
  }
  log.end(true, "", fmt::format("{} device(s)", count));
  log.begin("cudaSetDevice");
  if (rc = cudaSetDevice(run.req.device); rc == cudaSuccess) rc = cudaFree(nullptr);  // creates the context
  if (rc != cudaSuccess) {
    log.end(false, cudaGetErrorName(rc), cuda_error("cudaSetDevice", rc));
    return false;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, run.req.device) == cudaSuccess) {
    r.device.name = p.name;
    r.device.cc_major = p.major;
    r.device.cc_minor = p.minor;
    r.device.sm_count = p.multiProcessorCount;
    static const char* hex = "0123456789abcdef";
    std::string u = "GPU-";
    for (int i = 0; i < 16; ++i) {
      const auto b = static_cast<unsigned char>(p.uuid.bytes[i]);
      u += hex[b >> 4];
      u += hex[b & 15];
      if (i == 3 || i == 5 || i == 7 || i == 9) u += '-';
    }
    r.device.uuid = u;
  }
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, run.req.device) == cudaSuccess)
    r.device.clock_mhz = khz / 1000;
  char bus[64] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, run.req.device) == cudaSuccess) r.device.pci_bus_id = bus;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
    r.device.memory_free = free_b;
    r.device.memory_total = total_b;
  }
  cudaGetLastError();
  rc = cudaStreamCreateWithFlags(&run.stream, cudaStreamNonBlocking);
  if (rc != cudaSuccess) {
    log.end(false, cudaGetErrorName(rc), cuda_error("cudaStreamCreate", rc));
    return false;
  }
  log.end(true, "",
          fmt::format("{} ({}), compute capability {}.{}, {} SMs", r.device.name, r.device.pci_bus_id,
                      r.device.cc_major, r.device.cc_minor, r.device.sm_count));
  return true;
}

void run_all(const char* request_json, gpuready_cuda_progress progress, void* ctx, verify::GpuReply& reply) {
  reply.abi = GPUREADY_CUDA_ABI;
  reply.module_cuda = fmt::format("{}.{}", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
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
  if (run.stream) cudaStreamDestroy(run.stream);
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
