// Copy bandwidth through the CUDA driver API loaded at run time (libcuda only: no toolkit, no
// cudart), after nvbandwidth's method: warm-up; a spin kernel (hand-written PTX, JIT-compiled by
// the driver) holds the stream while N copies are queued behind it, so launch gaps are not
// timed; CUDA events around the N copies; several samples, the median reported; buffers large
// enough to leave the caches; pinned memory on the GPU's NUMA node; the data checked after the
// copy. Runs in the hidden child `gpuready __verify-copy` (a hung driver costs a timeout, not
// the run); the parent (verify.h) judges the numbers against the link and the memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "platform/os.h"

namespace gpuready::verify {

// The copies, by key (the keys of `gpuready verify -t`):
//   h2d_pinned, d2h_pinned        one direction, page-locked host memory (cuMemHostAlloc)
//   h2d_pageable, d2h_pageable    one direction, ordinary host memory (the driver stages it)
//   bidir_h2d_pinned, bidir_d2h_pinned  host->device and device->host at once, each on its own stream
//                                 and timed by its own events (measured together: selecting one runs both)
//   d2d                           device->device within one GPU (bytes moved = 2x the copy size: read + write)
//   p2p_read_<a>_<b>, p2p_write_<a>_<b>  between GPUs with peer access (several GPUs only), as nvbandwidth's
//                                 device_to_device_memcpy_{read,write}_ce: both queued on GPU a's stream;
//                                 write copies a -> b (a pushes), read copies b -> a (a pulls)
// copy_keys() lists the single-GPU keys in the order they run; the p2p keys follow for each ordered pair.
// CopyOptions::only takes keys or their leading words up to a '_' ("h2d", "p2p", "p2p_read", "bidir");
// "bidir_pinned" selects both bidirectional results; an entry that selects nothing is a failed step.
std::vector<std::string> copy_keys();

struct CopyOptions {
  std::uint64_t bytes = 256ull << 20;        // per copy; >= 256 MiB leaves every cache
  int samples = 5;                           // timed samples; the median is reported
  int copies_per_sample = 8;                 // queued behind the spin kernel and timed together
  int warmup = 2;                            // untimed copies first
  int device = 0;                            // CUDA ordinal
  std::vector<std::string> only;             // keys to run; empty = all that apply
  std::vector<std::string> cuda_candidates;  // libcuda names/paths to try (tests); empty = the default
  std::vector<std::string> nvml_candidates;  // NVML names/paths for the link sampling (tests); empty = the default
  bool plant_corruption = false;             // flip one byte after the copy (the forced failure the checker must catch)
};

struct CopyResult {
  std::string key;
  int device = 0, peer = -1;
  std::uint64_t bytes = 0;  // per copy
  int copies_per_sample = 0;
  std::vector<double> seconds;  // per sample: elapsed time of copies_per_sample copies (cuEventElapsedTime)
  double bytes_factor = 1;      // bytes moved per copied byte: 2 for d2d (read + write), else 1
  bool verified = false;        // the destination holds what the source held
  std::string verify_detail;    // first mismatch: "offset 123456: expected 0x5a, got 0xa5"
  std::string error;            // the call that failed, in the driver's words; empty when it ran
  std::string method;           // one line: which calls, pinned or not, stream held by the spin kernel
  // PCIe generation / width sampled through NVML every ~5 ms while the timed copies ran (host<->device
  // keys only): each distinct value seen, ascending, so back() is the best the link reached under load
  // and more than one value means the link changed speed during the run. Empty: not sampled (see method).
  std::vector<int> link_gen, link_width;
};

struct CopyReport {
  // In order: load libcuda, cuInit, cuDeviceGetCount, the device, its context, the spin kernel, the NUMA
  // binding, the buffers, NVML, then (several GPUs) peer access and each peer GPU. With no results, the
  // first step that failed says why nothing ran. Some steps can fail while the copies still run, each
  // result's method saying what that changed: the spin kernel, the NUMA binding, NVML (no link samples)
  // and an --only entry that names nothing ("--only KEY", code unknown_key).
  std::vector<DriverStep> steps;
  int device_count = 0;
  std::string device_name;
  std::string pci_bus_id;
  // The GPU's host NUMA node (CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, else sysfs), -1 unknown; the host buffers
  // were placed there when the "bind to NUMA node N" step is ok.
  int numa_node = -1;
  std::vector<std::vector<int>> peer_access;  // [a][b] = 1 when a can access b's memory (several GPUs)
  std::vector<CopyResult> results;
};

// Runs the copies in this process (the child's body). `progress` is told each step's name (as it is
// recorded in CopyReport::steps) and each copy's key just before it runs; `__verify-copy` writes them
// to stderr after kDriverStepPrefix (probe/nvidia_driver.h), as `__probe-driver` does. Never throws
// for what the driver answers: a missing entry point or a failed call is a step or a result's error.
CopyReport measure_copies(const Os& os, const CopyOptions& o, const std::function<void(const std::string&)>& progress);

// The data check, pure (tests): a pattern that depends on each byte's offset and on `seed`, so a
// shifted, partial or repeated copy differs from it, and the first byte where two buffers differ.
void fill_pattern(std::span<std::uint8_t> buf, std::uint64_t seed);
struct Mismatch {
  std::uint64_t offset = 0;
  int expected = 0;  // the byte expected there
  int got = -1;      // the byte found there; -1 when `got` ended first (a short copy)
};
std::optional<Mismatch> first_mismatch(std::span<const std::uint8_t> expected, std::span<const std::uint8_t> got);
// "offset 123456: expected 0x5a, got 0xa5" / "offset 4096: expected 0x5a, got nothing (the copy is 4096 bytes short)"
std::string mismatch_detail(const Mismatch& m, std::uint64_t expected_size);

// JSON: what `gpuready __verify-copy` prints on one line and the parent reads back. Absent keys
// keep their defaults, so an older or a partial child's answer still reads.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CopyResult, key, device, peer, bytes, copies_per_sample, seconds,
                                                bytes_factor, verified, verify_detail, error, method, link_gen,
                                                link_width)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CopyReport, steps, device_count, device_name, pci_bus_id, numa_node,
                                                peer_access, results)

}  // namespace gpuready::verify
