// measure_copies: copy bandwidth through the CUDA driver API loaded at run time, after nvbandwidth.
// Per copy kind: warm-up copies; then per sample a spin kernel (hand-written PTX below, JIT-compiled
// by the driver) holds the stream while a start event, N copies and an end event are queued behind
// it, so the events time the copies alone and no launch gap between them; then the data are read
// back and compared with the offset-dependent pattern the source holds. The host thread runs on the
// CPUs of the GPU's NUMA node (pinned and pageable buffers are first touched there). NVML samples the
// PCIe link while host<->device copies run.
#include "verify/copy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <set>

#include "core/step_log.h"
#include "verify/cu_call.h"
#include "verify/link_sampler.h"
#include "verify/numa_binding.h"

namespace gpuready::verify {

// ---------------------------------------------------------------- the measurement

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kSmallestHalved = 32 * kMiB;           // out of memory halves the buffers down to this
constexpr int kMaxPeerDevices = 16;                            // the peer matrix and p2p copies cover this many GPUs
constexpr std::uint64_t kPatternSeed = 0x6770757265616479ull;  // "gpuready"
constexpr double kSpinMs = 10;              // the spin kernel's first length: queueing ~20 calls takes well under 1 ms
constexpr double kSpinMaxMs = 1000;         // it doubles (up to this) when it ended before the queueing did
constexpr double kAssumedClockKhz = 2.0e6;  // when the driver does not say (a faster clock only shortens the spin)

// The spin kernel: one thread waits until `cycles` SM clocks (%clock64) have passed. PTX ISA 6.0 for
// sm_50: every driver since CUDA 9 accepts it and JIT-compiles it for its own (newer) GPU.
constexpr const char* kSpinPtx = R"(.version 6.0
.target sm_50
.address_size 64

.visible .entry gpuready_spin(
	.param .u64 gpuready_spin_cycles
)
{
	.reg .pred 	%p<2>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [gpuready_spin_cycles];
	mov.u64 	%rd2, %clock64;
$L_wait:
	mov.u64 	%rd3, %clock64;
	sub.s64 	%rd4, %rd3, %rd2;
	setp.lt.u64 	%p1, %rd4, %rd1;
	@%p1 bra 	$L_wait;
	ret;
}
)";
constexpr const char* kSpinName = "gpuready_spin";

std::string mib(std::uint64_t bytes) {
  if (bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{} bytes", bytes);
}

// ---------------------------------------------------------------- key selection

bool selects(const std::string& sel, const std::string& key) {
  if (sel == key) return true;
  if (sel == "bidir_pinned") return key == "bidir_h2d_pinned" || key == "bidir_d2h_pinned";
  return key.size() > sel.size() && key.compare(0, sel.size(), sel) == 0 && key[sel.size()] == '_';
}

bool wanted(const CopyOptions& o, const std::string& key) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return selects(s, key); });
}

std::string p2p_key(bool write, int a, int b) { return fmt::format("p2p_{}_{}_{}", write ? "write" : "read", a, b); }

// ---------------------------------------------------------------- one GPU's resources

struct Gpu {
  int ordinal = -1;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  bool retained = false;
  CUmodule module = nullptr;
  CUfunction spin = nullptr;
  std::string no_spin;  // why copies on this GPU are timed without the spin kernel
  double spin_ms = kSpinMs;
  double clock_khz = kAssumedClockKhz;
  CUstream stream[2] = {nullptr, nullptr};
  CUdeviceptr src = 0, dst = 0;  // `bytes` each; src holds the pattern
  std::string error;             // why this GPU could not be prepared
  bool ready = false;
};

// A queue of copies on one stream, timed by its own events (bidirectional runs two at once).
struct Lane {
  Gpu* gpu = nullptr;
  CUstream stream = nullptr;
  std::function<Call()> copy;  // queues one copy on `stream`
  std::vector<double> seconds;
};

struct Timing {
  std::string error;
  int samples_not_held = 0;  // samples where the spin kernel ended before the queueing did
  bool spin_used = false;
  std::string spin_dropped;  // why the spin kernel was given up part-way
};

class Session {
 public:
  Session(const Os& os, const CopyOptions& o, CopyReport& r, StepLog& steps, const Cu& cu)
      : os_(os), o_(o), r_(r), steps_(steps), cu_(cu) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { release(); }

  void run(int count);

 private:
  bool open_gpu(Gpu& g);
  void load_spin(Gpu& g);
  bool allocate_main();
  bool allocate_gpu_buffers(Gpu& g, std::uint64_t bytes, Call* failed);
  void free_gpu_buffers(Gpu& g);
  bool fill_device_src(Gpu& g, std::string* error);
  void find_numa(Gpu& g);
  void open_link_sampler();

  Call set(Gpu& g) const { return GPUREADY_CU(cu_, cuCtxSetCurrent, g.ctx); }
  Call clear_device(Gpu& g, CUdeviceptr p) const;
  Call read_back(Gpu& g, CUdeviceptr p) const;  // into pinned_dst_
  void check(CopyResult& res, std::uint8_t* got) const;
  Timing time_lanes(std::vector<Lane>& lanes, bool use_spin) const;

  CopyResult start_result(const std::string& key, int device, int peer, double factor) const;
  std::string describe(const std::string& what, const Timing& t, bool spin_possible, const Gpu& g) const;
  void finish(CopyResult& res, const Timing& t) const;

  void run_one_way(const std::string& key, bool h2d, bool pinned);
  void run_bidir();
  void run_d2d();
  void run_p2p(int count);

  std::span<const std::uint8_t> expected() const {
    return {static_cast<const std::uint8_t*>(pinned_src_), static_cast<size_t>(bytes_)};
  }
  std::uint8_t* pinned_dst() const { return static_cast<std::uint8_t*>(pinned_dst_); }
  void release();

  const Os& os_;
  const CopyOptions& o_;
  CopyReport& r_;
  StepLog& steps_;
  const Cu& cu_;
  std::vector<std::unique_ptr<Gpu>> gpus_;  // by ordinal; null where not opened
  Gpu* main_ = nullptr;
  std::uint64_t bytes_ = 0;
  std::string halved_;  // "halved from 1024 MiB: ..." when out of memory shrank the buffers
  void* pinned_src_ = nullptr;
  void* pinned_dst_ = nullptr;
  std::unique_ptr<std::uint8_t[]> pageable_;
  std::string placement_;  // where the host buffers live, for the methods
  LinkSampler link_;
  std::string no_link_;  // why the link is not sampled
  NodeBinding binding_;
};

bool Session::open_gpu(Gpu& g) {
  Call c = GPUREADY_CU(cu_, cuDevicePrimaryCtxRetain, &g.ctx, g.dev);
  if (!c.ok()) {
    g.error = c.error;
    return false;
  }
  g.retained = true;
  if (c = set(g); !c.ok()) {
    g.error = c.error;
    return false;
  }
  for (auto& s : g.stream) {
    // Blocking streams (flags 0): they wait for the cuMemsetD8 calls on the legacy default stream.
    if (c = GPUREADY_CU(cu_, cuStreamCreate, &s, static_cast<unsigned>(CU_STREAM_DEFAULT)); !c.ok()) {
      g.error = c.error;
      return false;
    }
  }
  int khz = 0;
  if (cu_.a.cuDeviceGetAttribute &&
      cu_.a.cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, g.dev) == CUDA_SUCCESS && khz > 0)
    g.clock_khz = khz;
  return true;
}

void Session::load_spin(Gpu& g) {
  Call c = GPUREADY_CU(cu_, cuModuleLoadData, &g.module, static_cast<const void*>(kSpinPtx));
  if (c.ok()) {
    c = GPUREADY_CU(cu_, cuModuleGetFunction, &g.spin, g.module, kSpinName);
    if (!c.ok()) g.spin = nullptr;
  } else {
    g.module = nullptr;
  }
  if (!c.ok()) g.no_spin = c.error;
}

void Session::find_numa(Gpu& g) {
  std::string how;
  int node = -1;
  int v = -1;
  if (cu_.a.cuDeviceGetAttribute &&
      cu_.a.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, g.dev) == CUDA_SUCCESS && v >= 0) {
    node = v;
    how = "CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID";
  }
#ifdef __linux__
  if (node < 0 && !r_.pci_bus_id.empty()) {
    // sysfs names the device "0000:18:00.0" in lower case (CUDA may answer "00000000:18:00.0").
    std::string id = r_.pci_bus_id;
    std::transform(id.begin(), id.end(), id.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (const auto colon = id.find(':'); colon != std::string::npos && colon > 4) id = id.substr(colon - 4);
    std::string err;
    const std::string path = "/sys/bus/pci/devices/" + id + "/numa_node";
    if (const auto text = os_.fs.read_file(path, 64, &err)) {
      int n = -1;
      if (std::sscanf(text->c_str(), "%d", &n) == 1 && n >= 0) {
        node = n;
        how = path;
      }
    }
  }
#endif
  r_.numa_node = node;
  if (node >= 0) placement_ = fmt::format("on the GPU's NUMA node {}, from {}", node, how);
}

bool Session::allocate_gpu_buffers(Gpu& g, std::uint64_t bytes, Call* failed) {
  if (Call c = set(g); !c.ok()) {
    *failed = c;
    return false;
  }
  for (CUdeviceptr* p : {&g.src, &g.dst}) {
    Call c = GPUREADY_CU(cu_, cuMemAlloc_v2, p, static_cast<size_t>(bytes));
    if (!c.ok()) {
      *p = 0;
      *failed = c;
      free_gpu_buffers(g);
      return false;
    }
  }
  return true;
}

void Session::free_gpu_buffers(Gpu& g) {
  for (CUdeviceptr* p : {&g.src, &g.dst}) {
    if (*p && cu_.a.cuMemFree_v2) cu_.a.cuMemFree_v2(*p);
    *p = 0;
  }
}

// Every copy needs two device buffers and the two pinned ones (the pattern, and where results are
// read back to); the pageable one only for the pageable keys. Out of memory halves them all.
bool Session::allocate_main() {
  const bool need_pageable = wanted(o_, "h2d_pageable") || wanted(o_, "d2h_pageable");
  const std::uint64_t floor = std::min(o_.bytes, kSmallestHalved);
  std::uint64_t bytes = o_.bytes;
  if (bytes > static_cast<std::uint64_t>(SIZE_MAX) / 2) bytes = static_cast<std::uint64_t>(SIZE_MAX) / 2;
  steps_.begin(fmt::format("allocate buffers ({} each)", mib(bytes)));
  std::string first_failure;
  while (true) {
    Call failed;
    bool ok = allocate_gpu_buffers(*main_, bytes, &failed);
    if (ok) {
      for (void** p : {&pinned_src_, &pinned_dst_}) {
        Call c = GPUREADY_CU(cu_, cuMemHostAlloc, p, static_cast<size_t>(bytes),
                             static_cast<unsigned>(CU_MEMHOSTALLOC_PORTABLE));
        if (!c.ok()) {
          *p = nullptr;
          failed = c;
          ok = false;
          break;
        }
      }
    }
    if (ok && need_pageable) {
      pageable_.reset(new (std::nothrow) std::uint8_t[static_cast<size_t>(bytes)]);
      if (!pageable_) {
        failed.rc = CUDA_ERROR_OUT_OF_MEMORY;
        failed.error = fmt::format("allocating {} of pageable host memory failed", mib(bytes));
        ok = false;
      }
    }
    if (ok) break;
    // Give back what this round got, then halve on out of memory; anything else is final.
    free_gpu_buffers(*main_);
    for (void** p : {&pinned_src_, &pinned_dst_}) {
      if (*p && cu_.a.cuMemFreeHost) cu_.a.cuMemFreeHost(*p);
      *p = nullptr;
    }
    pageable_.reset();
    if (first_failure.empty()) first_failure = failed.error;
    if (failed.rc != CUDA_ERROR_OUT_OF_MEMORY || bytes / 2 < floor) {
      steps_.end(false, failed.rc == CUDA_ERROR_OUT_OF_MEMORY ? "out_of_memory" : cu_.code(failed.rc),
                 bytes == o_.bytes ? failed.error
                                   : fmt::format("{} (halved from {} down to {} after: {})", failed.error,
                                                 mib(o_.bytes), mib(bytes), first_failure));
      return false;
    }
    bytes /= 2;
  }
  bytes_ = bytes;
  if (bytes != o_.bytes)
    halved_ = fmt::format("buffers halved from {} to {} ({})", mib(o_.bytes), mib(bytes), first_failure);
  // First touch (the pinned pages are already placed by cuMemHostAlloc; the pageable ones are placed now).
  fill_pattern({static_cast<std::uint8_t*>(pinned_src_), static_cast<size_t>(bytes)}, kPatternSeed);
  std::memset(pinned_dst_, 0, static_cast<size_t>(bytes));
  if (pageable_) std::memset(pageable_.get(), 0, static_cast<size_t>(bytes));
  std::string err;
  if (!fill_device_src(*main_, &err)) {
    steps_.end(false, "fill_failed", "putting the pattern into the GPU's source buffer failed: " + err);
    return false;
  }
  steps_.end(true, "",
             fmt::format("2 x {} on the GPU, 2 x {} pinned{}{}", mib(bytes), mib(bytes),
                         pageable_ ? fmt::format(", 1 x {} pageable", mib(bytes)) : "",
                         halved_.empty() ? "" : "; " + halved_));
  return true;
}

bool Session::fill_device_src(Gpu& g, std::string* error) {
  Call c = set(g);
  if (c.ok()) c = GPUREADY_CU(cu_, cuMemcpyHtoDAsync_v2, g.src, pinned_src_, static_cast<size_t>(bytes_), g.stream[0]);
  if (c.ok()) c = GPUREADY_CU(cu_, cuStreamSynchronize, g.stream[0]);
  if (!c.ok()) *error = c.error;
  return c.ok();
}

Call Session::clear_device(Gpu& g, CUdeviceptr p) const {
  Call c = set(g);
  if (c.ok()) c = GPUREADY_CU(cu_, cuMemsetD8_v2, p, static_cast<unsigned char>(0), static_cast<size_t>(bytes_));
  if (c.ok()) c = GPUREADY_CU(cu_, cuCtxSynchronize);
  return c;
}

Call Session::read_back(Gpu& g, CUdeviceptr p) const {
  std::memset(pinned_dst_, 0, static_cast<size_t>(bytes_));
  Call c = set(g);
  if (c.ok()) c = GPUREADY_CU(cu_, cuMemcpyDtoHAsync_v2, pinned_dst_, p, static_cast<size_t>(bytes_), g.stream[0]);
  if (c.ok()) c = GPUREADY_CU(cu_, cuStreamSynchronize, g.stream[0]);
  return c;
}

void Session::check(CopyResult& res, std::uint8_t* got) const {
  // The forced failure: one byte of the result flipped before the comparison.
  if (o_.plant_corruption) got[bytes_ / 3] = static_cast<std::uint8_t>(~got[bytes_ / 3]);
  const auto m = first_mismatch(expected(), {got, static_cast<size_t>(bytes_)});
  res.verified = !m;
  res.verify_detail = m ? mismatch_detail(*m, bytes_) : std::string();
  if (m && o_.plant_corruption) res.verify_detail += " (a byte flipped on purpose: --plant-corruption)";
}

// Warm-up copies, then per sample: [spin kernel] start event, N copies, end event on each lane.
Timing Session::time_lanes(std::vector<Lane>& lanes, bool use_spin) const {
  Timing t;
  for (Lane& l : lanes)
    if (!l.gpu->spin) use_spin = false;
  t.spin_used = use_spin;
  auto fail = [&](const Call& c) {
    t.error = c.error;
    return t;
  };
  for (Lane& l : lanes) {
    if (Call c = set(*l.gpu); !c.ok()) return fail(c);
    for (int i = 0; i < o_.warmup; ++i)
      if (Call c = l.copy(); !c.ok()) return fail(c);
  }
  for (Lane& l : lanes) {
    if (Call c = set(*l.gpu); !c.ok()) return fail(c);
    if (Call c = GPUREADY_CU(cu_, cuStreamSynchronize, l.stream); !c.ok()) return fail(c);
  }
  struct Events {
    CUevent start = nullptr, end = nullptr;
  };
  std::vector<Events> ev(lanes.size());
  auto destroy = [&] {
    for (size_t i = 0; i < lanes.size(); ++i) {
      set(*lanes[i].gpu);
      for (CUevent e : {ev[i].start, ev[i].end})
        if (e && cu_.a.cuEventDestroy_v2) cu_.a.cuEventDestroy_v2(e);
    }
  };
  for (size_t i = 0; i < lanes.size(); ++i) {
    Call c = set(*lanes[i].gpu);
    if (c.ok()) c = GPUREADY_CU(cu_, cuEventCreate, &ev[i].start, static_cast<unsigned>(CU_EVENT_DEFAULT));
    if (c.ok()) c = GPUREADY_CU(cu_, cuEventCreate, &ev[i].end, static_cast<unsigned>(CU_EVENT_DEFAULT));
    if (!c.ok()) {
      destroy();
      return fail(c);
    }
  }
  for (int s = 0; s < o_.samples; ++s) {
    Call c;
    bool spun = false;
    if (use_spin) {
      for (Lane& l : lanes) {
        Gpu& g = *l.gpu;
        unsigned long long cycles = static_cast<unsigned long long>(g.clock_khz * g.spin_ms);
        void* params[] = {&cycles};
        c = set(g);
        if (c.ok())
          c = GPUREADY_CU(cu_, cuLaunchKernel, g.spin, 1u, 1u, 1u, 1u, 1u, 1u, 0u, l.stream, params,
                          static_cast<void**>(nullptr));
        if (!c.ok()) break;
        spun = true;
      }
      if (!c.ok()) {
        // The kernel did not launch: time without it from here on (what was queued drains on its own).
        t.spin_dropped = c.error;
        use_spin = false;
        spun = false;
        c = Call{};
      }
    }
    for (size_t i = 0; i < lanes.size() && c.ok(); ++i) {
      c = set(*lanes[i].gpu);
      if (c.ok()) c = GPUREADY_CU(cu_, cuEventRecord, ev[i].start, lanes[i].stream);
    }
    for (size_t i = 0; i < lanes.size() && c.ok(); ++i) {
      c = set(*lanes[i].gpu);
      for (int k = 0; k < o_.copies_per_sample && c.ok(); ++k) c = lanes[i].copy();
      if (c.ok()) c = GPUREADY_CU(cu_, cuEventRecord, ev[i].end, lanes[i].stream);
    }
    if (c.ok() && spun && cu_.a.cuEventQuery) {
      // Still waiting on the start event once everything is queued: the spin kernel held the stream.
      bool held = true;
      for (size_t i = 0; i < lanes.size(); ++i) {
        set(*lanes[i].gpu);
        if (cu_.a.cuEventQuery(ev[i].start) != CUDA_ERROR_NOT_READY) held = false;
      }
      if (!held) {
        ++t.samples_not_held;
        for (Lane& l : lanes) l.gpu->spin_ms = std::min(l.gpu->spin_ms * 2, kSpinMaxMs);
      }
    }
    for (size_t i = 0; i < lanes.size() && c.ok(); ++i) {
      c = set(*lanes[i].gpu);
      if (c.ok()) c = GPUREADY_CU(cu_, cuEventSynchronize, ev[i].end);
      float ms = 0;
      if (c.ok()) c = GPUREADY_CU(cu_, cuEventElapsedTime, &ms, ev[i].start, ev[i].end);
      if (c.ok()) lanes[i].seconds.push_back(static_cast<double>(ms) / 1000.0);
    }
    if (!c.ok()) {
      // Let what was queued finish before the buffers are used again.
      for (Lane& l : lanes) {
        set(*l.gpu);
        if (cu_.a.cuStreamSynchronize) cu_.a.cuStreamSynchronize(l.stream);
      }
      destroy();
      return fail(c);
    }
  }
  destroy();
  return t;
}

CopyResult Session::start_result(const std::string& key, int device, int peer, double factor) const {
  CopyResult res;
  res.key = key;
  res.device = device;
  res.peer = peer;
  res.bytes = bytes_;
  res.copies_per_sample = o_.copies_per_sample;
  res.bytes_factor = factor;
  return res;
}

// The method line: what was copied, how it was held and timed, how it was checked.
std::string Session::describe(const std::string& what, const Timing& t, bool spin_possible, const Gpu& g) const {
  std::string m = fmt::format("{}; {} x {} per sample", what, o_.copies_per_sample, mib(bytes_));
  if (!spin_possible) {
    m += ", not held by the spin kernel (a pageable copy waits for the driver's staging, so it cannot be queued)";
  } else if (t.spin_used && t.spin_dropped.empty()) {
    m += ", queued behind a spin kernel";
    if (t.samples_not_held > 0)
      m += fmt::format(" (it ended before the queueing did in {} of {} samples: lengthened each time)",
                       t.samples_not_held, o_.samples);
  } else if (!t.spin_dropped.empty()) {
    m += ", spin kernel given up part-way (" + t.spin_dropped + ")";
  } else {
    m += ", without the spin kernel (" + (g.no_spin.empty() ? std::string("not loaded") : g.no_spin) +
         "): launch gaps between copies are timed too";
  }
  m += fmt::format("; CUDA events, {} samples after {} warm-up cop{}; data read back and compared", o_.samples,
                   o_.warmup, o_.warmup == 1 ? "y" : "ies");
  if (o_.plant_corruption) m += " (one byte flipped on purpose: --plant-corruption)";
  if (!halved_.empty()) m += "; " + halved_;
  return m;
}

void Session::finish(CopyResult& res, const Timing& t) const {
  if (!t.error.empty() && res.error.empty()) res.error = t.error;
  r_.results.push_back(std::move(res));
}

std::string link_note(bool sampled, const std::string& why) {
  return sampled ? "; PCIe link sampled by NVML every 5 ms" : "; PCIe link not sampled: " + why;
}

void Session::run_one_way(const std::string& key, bool h2d, bool pinned) {
  steps_.announce(key);
  Gpu& g = *main_;
  CopyResult res = start_result(key, g.ordinal, -1, 1);
  const size_t n = static_cast<size_t>(bytes_);
  std::uint8_t* host = pinned ? pinned_dst() : pageable_.get();
  // The destination starts unlike the pattern; a pageable source gets the pattern.
  Call c;
  if (h2d) {
    c = clear_device(g, g.dst);
    if (!pinned) std::memcpy(pageable_.get(), pinned_src_, n);
  } else {
    std::memset(host, 0, n);
  }
  const void* h2d_src = pinned ? pinned_src_ : pageable_.get();
  Lane lane;
  lane.gpu = &g;
  lane.stream = g.stream[0];
  if (h2d)
    lane.copy = [&] { return GPUREADY_CU(cu_, cuMemcpyHtoDAsync_v2, g.dst, h2d_src, n, g.stream[0]); };
  else
    lane.copy = [&] { return GPUREADY_CU(cu_, cuMemcpyDtoHAsync_v2, static_cast<void*>(host), g.src, n, g.stream[0]); };
  std::vector<Lane> lanes{lane};
  Timing t;
  if (c.ok()) {
    link_.start();
    t = time_lanes(lanes, pinned);
    link_.stop(&res.link_gen, &res.link_width);
  } else {
    t.error = c.error;
  }
  res.seconds = lanes[0].seconds;
  const std::string host_desc = fmt::format("{} host memory ({}, {})", pinned ? "pinned" : "pageable",
                                            pinned ? "cuMemHostAlloc" : "new[], first touched by this thread",
                                            placement_.empty() ? "NUMA node unknown" : placement_);
  const std::string what = h2d ? "cuMemcpyHtoDAsync from " + host_desc + " to device memory"
                               : "cuMemcpyDtoHAsync from device memory to " + host_desc;
  res.method = describe(what, t, pinned, g) + link_note(link_.ready(), no_link_);
  if (t.error.empty()) {
    if (h2d) {
      if (Call rb = read_back(g, g.dst); rb.ok())
        check(res, pinned_dst());
      else
        res.error = "reading the copy back failed: " + rb.error;
    } else {
      check(res, host);
    }
  }
  finish(res, t);
}

void Session::run_bidir() {
  steps_.announce("bidir_pinned");
  Gpu& g = *main_;
  const size_t n = static_cast<size_t>(bytes_);
  CopyResult up = start_result("bidir_h2d_pinned", g.ordinal, -1, 1);
  CopyResult down = start_result("bidir_d2h_pinned", g.ordinal, -1, 1);
  Call c = clear_device(g, g.dst);
  std::memset(pinned_dst_, 0, n);
  std::vector<Lane> lanes(2);
  lanes[0].gpu = lanes[1].gpu = &g;
  lanes[0].stream = g.stream[0];
  lanes[1].stream = g.stream[1];
  lanes[0].copy = [&] { return GPUREADY_CU(cu_, cuMemcpyHtoDAsync_v2, g.dst, pinned_src_, n, g.stream[0]); };
  lanes[1].copy = [&] { return GPUREADY_CU(cu_, cuMemcpyDtoHAsync_v2, pinned_dst_, g.src, n, g.stream[1]); };
  Timing t;
  if (c.ok()) {
    link_.start();
    t = time_lanes(lanes, true);
    link_.stop(&up.link_gen, &up.link_width);
    down.link_gen = up.link_gen;
    down.link_width = up.link_width;
  } else {
    t.error = c.error;
  }
  up.seconds = lanes[0].seconds;
  down.seconds = lanes[1].seconds;
  const std::string where = placement_.empty() ? "NUMA node unknown" : placement_;
  up.method = describe(fmt::format("cuMemcpyHtoDAsync from pinned host memory ({}) on one stream while "
                                   "cuMemcpyDtoHAsync runs on another, each timed by its own events",
                                   where),
                       t, true, g) +
              link_note(link_.ready(), no_link_);
  down.method = describe(fmt::format("cuMemcpyDtoHAsync to pinned host memory ({}) on one stream while "
                                     "cuMemcpyHtoDAsync runs on another, each timed by its own events",
                                     where),
                         t, true, g) +
                link_note(link_.ready(), no_link_);
  if (t.error.empty()) {
    check(down, pinned_dst());
    if (Call rb = read_back(g, g.dst); rb.ok())
      check(up, pinned_dst());
    else
      up.error = "reading the copy back failed: " + rb.error;
  }
  finish(up, t);
  finish(down, t);
}

void Session::run_d2d() {
  steps_.announce("d2d");
  Gpu& g = *main_;
  const size_t n = static_cast<size_t>(bytes_);
  CopyResult res = start_result("d2d", g.ordinal, -1, 2);
  Call c = clear_device(g, g.dst);
  std::vector<Lane> lanes(1);
  lanes[0].gpu = &g;
  lanes[0].stream = g.stream[0];
  lanes[0].copy = [&] { return GPUREADY_CU(cu_, cuMemcpyDtoDAsync_v2, g.dst, g.src, n, g.stream[0]); };
  Timing t;
  if (c.ok())
    t = time_lanes(lanes, true);
  else
    t.error = c.error;
  res.seconds = lanes[0].seconds;
  res.method =
      describe("cuMemcpyDtoDAsync within the GPU's memory (bytes moved = 2 x the copy: read + write)", t, true, g);
  if (t.error.empty()) {
    if (Call rb = read_back(g, g.dst); rb.ok())
      check(res, pinned_dst());
    else
      res.error = "reading the copy back failed: " + rb.error;
  }
  finish(res, t);
}

void Session::run_p2p(int count) {
  const int n_dev = std::min(count, kMaxPeerDevices);
  steps_.begin("peer access (cuDeviceCanAccessPeer)");
  r_.peer_access.assign(static_cast<size_t>(n_dev), std::vector<int>(static_cast<size_t>(n_dev), 0));
  std::string err;
  int pairs = 0;
  for (int a = 0; a < n_dev; ++a)
    for (int b = 0; b < n_dev; ++b) {
      if (a == b) continue;
      int can = 0;
      CUdevice da = 0, db = 0;
      Call c = GPUREADY_CU(cu_, cuDeviceGet, &da, a);
      if (c.ok()) c = GPUREADY_CU(cu_, cuDeviceGet, &db, b);
      if (c.ok()) c = GPUREADY_CU(cu_, cuDeviceCanAccessPeer, &can, da, db);
      if (!c.ok() && err.empty()) err = c.error;
      r_.peer_access[static_cast<size_t>(a)][static_cast<size_t>(b)] = c.ok() && can ? 1 : 0;
      pairs += c.ok() && can ? 1 : 0;
    }
  if (!err.empty()) {
    steps_.end(false, "peer_query_failed", err);
  } else {
    steps_.end(true, "",
               fmt::format("{} of {} ordered GPU pairs can access each other's memory{}", pairs, n_dev * (n_dev - 1),
                           count > n_dev ? fmt::format(" (the first {} GPUs)", n_dev) : ""));
  }
  // The GPUs that take part, each opened once (its context, streams, spin kernel, buffers).
  auto gpu = [&](int ord) -> Gpu* {
    auto& slot = gpus_[static_cast<size_t>(ord)];
    if (slot) return slot.get();
    slot = std::make_unique<Gpu>();
    Gpu& g = *slot;
    g.ordinal = ord;
    steps_.begin(fmt::format("CUDA device {} for peer copies (context, spin kernel, buffers)", ord));
    Call c = GPUREADY_CU(cu_, cuDeviceGet, &g.dev, ord);
    if (!c.ok()) g.error = c.error;
    if (g.error.empty() && open_gpu(g)) {
      load_spin(g);
      Call failed;
      if (!allocate_gpu_buffers(g, bytes_, &failed))
        g.error = failed.error;
      else if (std::string e; !fill_device_src(g, &e))
        g.error = e;
      else
        g.ready = true;
    }
    steps_.end(
        g.ready, g.ready ? "" : "setup_failed",
        g.ready ? fmt::format("2 x {}{}", mib(bytes_), g.spin ? "" : "; no spin kernel: " + g.no_spin) : g.error);
    return &g;
  };
  std::set<std::pair<int, int>> enabled;
  auto enable = [&](Gpu& from, Gpu& to) -> Call {
    if (enabled.count({from.ordinal, to.ordinal})) return {};
    Call c = set(from);
    if (c.ok()) c = GPUREADY_CU(cu_, cuCtxEnablePeerAccess, to.ctx, 0u);
    if (c.rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) c = Call{};
    if (c.ok()) enabled.insert({from.ordinal, to.ordinal});
    return c;
  };
  for (int a = 0; a < n_dev; ++a)
    for (int b = 0; b < n_dev; ++b) {
      if (a == b || !r_.peer_access[static_cast<size_t>(a)][static_cast<size_t>(b)]) continue;
      for (bool write : {false, true}) {
        const std::string key = p2p_key(write, a, b);
        if (!wanted(o_, key)) continue;
        steps_.announce(key);
        CopyResult res = start_result(key, a, b, 1);
        Gpu* ga = gpu(a);
        Gpu* gb = gpu(b);
        Timing t;
        if (!ga->ready || !gb->ready) {
          t.error = "GPU " + std::to_string(!ga->ready ? a : b) +
                    " could not be prepared: " + (!ga->ready ? ga->error : gb->error);
          res.method = "not run";
          finish(res, t);
          continue;
        }
        Call c = enable(*ga, *gb);
        if (c.ok() && r_.peer_access[static_cast<size_t>(b)][static_cast<size_t>(a)]) c = enable(*gb, *ga);
        // write: a's source -> b's destination; read: b's source -> a's destination; both on a's stream.
        Gpu& from = write ? *ga : *gb;
        Gpu& to = write ? *gb : *ga;
        if (c.ok()) c = clear_device(to, to.dst);
        std::vector<Lane> lanes(1);
        lanes[0].gpu = ga;
        lanes[0].stream = ga->stream[0];
        const size_t n = static_cast<size_t>(bytes_);
        lanes[0].copy = [&] {
          return GPUREADY_CU(cu_, cuMemcpyPeerAsync, to.dst, to.ctx, from.src, from.ctx, n, ga->stream[0]);
        };
        if (c.ok())
          t = time_lanes(lanes, true);
        else
          t.error = c.error;
        res.seconds = lanes[0].seconds;
        res.method = describe(fmt::format("cuMemcpyPeerAsync from GPU {} to GPU {} on GPU {}'s stream (peer access "
                                          "enabled: GPU {} {} GPU {}'s memory)",
                                          from.ordinal, to.ordinal, a, a, write ? "writes" : "reads", b),
                              t, true, *ga);
        if (t.error.empty()) {
          if (Call rb = read_back(to, to.dst); rb.ok())
            check(res, pinned_dst());
          else
            res.error = "reading the copy back failed: " + rb.error;
        }
        finish(res, t);
      }
    }
}

void Session::open_link_sampler() {
  steps_.begin("NVML (PCIe link sampling)");
  std::string why;
  if (link_.open(os_, o_.nvml_candidates, r_.pci_bus_id, &why)) {
    steps_.end(true, "", "the link's generation and width are read every 5 ms while host<->device copies run");
  } else {
    no_link_ = why;
    steps_.end(false, "not_sampled", why + ": the copies run without link samples");
  }
}

void Session::release() {
  link_.close();
  for (auto& slot : gpus_) {
    if (!slot || !slot->ctx) continue;
    Gpu& g = *slot;
    set(g);
    if (cu_.a.cuCtxSynchronize) cu_.a.cuCtxSynchronize();
    if (&g == main_)
      for (void** p : {&pinned_src_, &pinned_dst_}) {
        if (*p && cu_.a.cuMemFreeHost) cu_.a.cuMemFreeHost(*p);
        *p = nullptr;
      }
    free_gpu_buffers(g);
    for (auto& s : g.stream) {
      if (s && cu_.a.cuStreamDestroy_v2) cu_.a.cuStreamDestroy_v2(s);
      s = nullptr;
    }
    if (g.module && cu_.a.cuModuleUnload) cu_.a.cuModuleUnload(g.module);
    g.module = nullptr;
  }
  if (cu_.a.cuCtxSetCurrent) cu_.a.cuCtxSetCurrent(nullptr);
  for (auto& slot : gpus_)
    if (slot && slot->retained && cu_.a.cuDevicePrimaryCtxRelease_v2) {
      cu_.a.cuDevicePrimaryCtxRelease_v2(slot->dev);
      slot->retained = false;
    }
  gpus_.clear();
  pageable_.reset();
}

void Session::run(int count) {
  gpus_.resize(static_cast<size_t>(std::max(count, o_.device + 1)));
  gpus_[static_cast<size_t>(o_.device)] = std::make_unique<Gpu>();
  main_ = gpus_[static_cast<size_t>(o_.device)].get();
  Gpu& g = *main_;
  g.ordinal = o_.device;

  steps_.begin(fmt::format("CUDA device {} (name, PCI bus id, NUMA node)", o_.device));
  if (Call c = GPUREADY_CU(cu_, cuDeviceGet, &g.dev, o_.device); !c.ok()) {
    steps_.end(false, cu_.code(c.rc), c.error);
    return;
  }
  char name[256] = {};
  if (cu_.a.cuDeviceGetName && cu_.a.cuDeviceGetName(name, sizeof name, g.dev) == CUDA_SUCCESS) r_.device_name = name;
  char bus[64] = {};
  if (cu_.a.cuDeviceGetPCIBusId && cu_.a.cuDeviceGetPCIBusId(bus, sizeof bus, g.dev) == CUDA_SUCCESS)
    r_.pci_bus_id = bus;
  find_numa(g);
  steps_.end(true, "CUDA_SUCCESS",
             fmt::format("{} at {}; {}", r_.device_name.empty() ? "unnamed GPU" : r_.device_name,
                         r_.pci_bus_id.empty() ? "an unknown PCI address" : r_.pci_bus_id,
                         placement_.empty() ? "its NUMA node is unknown (a one-node machine?)" : placement_));

  steps_.begin(fmt::format("CUDA context on device {} (cuDevicePrimaryCtxRetain, streams)", o_.device));
  if (!open_gpu(g)) {
    steps_.end(false, "context_failed", g.error);
    return;
  }
  steps_.end(true, "CUDA_SUCCESS", "primary context current, two streams");

  steps_.begin("spin kernel (cuModuleLoadData of PTX 6.0, sm_50)");
  load_spin(g);
  if (g.spin)
    steps_.end(true, "CUDA_SUCCESS",
               fmt::format("loaded; it holds each stream ~{:g} ms at {:g} MHz while copies are queued", kSpinMs,
                           g.clock_khz / 1000));
  else
    steps_.end(false, "spin_kernel_unavailable", g.no_spin + ": the copies are timed without it (launch gaps count)");

  if (r_.numa_node >= 0) {
    steps_.begin(fmt::format("bind to NUMA node {}", r_.numa_node));
    std::string what, why;
    if (binding_.bind(os_.fs, r_.numa_node, &what, &why)) {
      steps_.end(true, "", what);
    } else {
      steps_.end(false, "not_bound", why + ": host buffers are placed wherever the OS puts them");
      placement_ = fmt::format("the GPU's NUMA node {} not used: {}", r_.numa_node, why);
    }
  } else {
    steps_.note("bind to NUMA node", true, "skipped",
                "the GPU's NUMA node is unknown (a one-node machine, or the firmware does not say): host buffers are "
                "placed wherever the OS puts them");
  }

  if (!allocate_main()) return;
  g.ready = true;

  const std::vector<std::string> keys = copy_keys();
  const bool host_copies =
      std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return k != "d2d" && wanted(o_, k); });
  if (host_copies) open_link_sampler();

  if (wanted(o_, "h2d_pinned")) run_one_way("h2d_pinned", true, true);
  if (wanted(o_, "d2h_pinned")) run_one_way("d2h_pinned", false, true);
  if (wanted(o_, "h2d_pageable")) run_one_way("h2d_pageable", true, false);
  if (wanted(o_, "d2h_pageable")) run_one_way("d2h_pageable", false, false);
  if (wanted(o_, "bidir_h2d_pinned") || wanted(o_, "bidir_d2h_pinned")) run_bidir();
  if (wanted(o_, "d2d")) run_d2d();
  if (count > 1) run_p2p(count);
}

}  // namespace

CopyReport measure_copies(const Os& os, const CopyOptions& o, const std::function<void(const std::string&)>& progress) {
  CopyReport r;
  StepLog steps(r.steps, progress);
  if (o.bytes == 0 || o.samples < 1 || o.copies_per_sample < 1 || o.warmup < 0 || o.device < 0) {
    steps.note(
        "options", false, "invalid",
        fmt::format("bytes {}, samples {}, copies {}, warm-up {}, device {}: each must be positive (warm-up may be 0)",
                    o.bytes, o.samples, o.copies_per_sample, o.warmup, o.device));
    return r;
  }

  const auto candidates = o.cuda_candidates.empty() ? cuda_driver::default_candidates(os.env) : o.cuda_candidates;
  const std::string lib_label = candidates.empty() ? std::string("libcuda") : path_file_name(candidates.front());
  steps.begin("load " + lib_label);
  std::string load_error;
  auto lib = cuda_driver::load(os, candidates, &load_error);
  if (!lib) {
    steps.end(false, "library_not_found", cuda_driver::library_not_found(lib_label, load_error));
    return r;
  }
  // libcuda is never unloaded: after cuInit it owns threads, and unmapping it under them crashes.
  const std::string file = path_file_name(lib->path.value_or(lib->candidate));
  steps.end(true, "", cuda_driver::library_loaded(lib->path.value_or(lib->candidate), lib->resolved_via));
  const Cu cu(lib->api, file);

  steps.begin("cuInit");
  if (Call c = GPUREADY_CU(cu, cuInit, 0u); !c.ok()) {
    steps.end(false, cu.code(c.rc),
              c.rc == CUDA_ERROR_NO_DEVICE
                  ? c.error + ": the CUDA driver sees no GPU (none present, or CUDA_VISIBLE_DEVICES hides them)"
                  : c.error);
    return r;
  }
  steps.end(true, "CUDA_SUCCESS", "the CUDA driver initialised");

  steps.begin("cuDeviceGetCount");
  int count = 0;
  if (Call c = GPUREADY_CU(cu, cuDeviceGetCount, &count); !c.ok()) {
    steps.end(false, cu.code(c.rc), c.error);
    return r;
  }
  r.device_count = count;
  if (o.device >= count) {
    steps.end(false, "CUDA_ERROR_INVALID_DEVICE",
              fmt::format("there is no CUDA device {}: CUDA sees {} (ordinals 0 to {})", o.device, count, count - 1));
    return r;
  }
  steps.end(true, "CUDA_SUCCESS", fmt::format("CUDA sees {} device{}", count, count == 1 ? "" : "s"));

  // Selectors that name nothing this machine could run.
  std::vector<std::string> all = copy_keys();
  for (int a = 0; a < std::min(count, kMaxPeerDevices); ++a)
    for (int b = 0; b < std::min(count, kMaxPeerDevices); ++b)
      if (a != b) all.insert(all.end(), {p2p_key(false, a, b), p2p_key(true, a, b)});
  for (const auto& sel : o.only)
    if (std::none_of(all.begin(), all.end(), [&](const std::string& k) { return selects(sel, k); }))
      steps.note("--only " + sel, false, "unknown_key",
                 fmt::format("no copy on this machine is named \"{}\" (the keys: {}{})", sel,
                             fmt::join(copy_keys(), ", "), count > 1 ? ", p2p_read_<a>_<b>, p2p_write_<a>_<b>" : ""));

  Session session(os, o, r, steps, cu);
  session.run(count);
  return r;
}

}  // namespace gpuready::verify
