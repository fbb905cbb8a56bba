// verify: measurements judged against what this hardware should reach. Each check ends pass /
// warn / fail / skip with the reason, its number with the unit, the limit it was judged against
// and how it was measured. The measurements run in child processes (copy.h: `__verify-copy`);
// this file holds what needs no GPU: statistics, the limits (PCIe link rate, memory bandwidth),
// the judging, and the report's JSON ("gpuready.verify/1", docs/verify.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "verify/copy.h"

namespace gpuready::verify {

inline constexpr const char* kVerifySchema = "gpuready.verify/1";

enum class Status { pass, warn, fail, skip };
const char* status_name(Status s);

struct Check {
  std::string key;               // "copy.h2d_pinned"
  Status status = Status::skip;
  std::optional<double> value;   // the median of the samples
  std::string unit;              // "GB/s"
  std::optional<double> limit;   // what the hardware should reach, same unit
  std::optional<double> ratio;   // value / limit
  std::string detail;            // why this status, in words
  std::string method;            // how it was measured
  std::vector<double> samples;   // every sample, same unit
  bool data_ok = true;           // false: the result was checked and was wrong
  std::vector<std::string> clock_events;  // clocks-event reasons that held the GPU back while it ran (NVML)
};

// "00000000:01:00.0" (NVML) and "0000:01:00.0" (CUDA) name the same device: the last four domain
// digits, bus, device and function, lower-case, so equal keys mean the same GPU.
std::string pci_bus_key(std::string id);

// Median of the samples (the mean of the middle two for an even count); nullopt when empty.
std::optional<double> median(std::vector<double> v);

// One direction of a PCIe link in GB/s (1e9 B/s) after line coding: per-lane 0.25 (Gen1),
// 0.5 (Gen2), 0.985 (Gen3, 128b/130b), 1.969 (Gen4), 3.938 (Gen5), 7.563 (Gen6, FLIT) times
// the width. nullopt for an unknown generation or a width <= 0.
std::optional<double> pcie_gbps(int gen, int width);

// Peak DRAM bandwidth in GB/s from NVML's max memory clock (MHz) and bus width (bits), double
// data rate: clock * 2 * width / 8. nullopt when either is unknown.
std::optional<double> memory_gbps(const NvidiaGpu& g);

// How copies are judged: a ratio to the limit at or above `pass` passes, at or above `warn`
// warns, below fails. NVIDIA's nvbandwidth reaches 0.88 of a Gen5 x16 link and PyTorch 0.89 of
// the H200's HBM on the test machine (shared/reference/h200-anchors.md).
struct Thresholds {
  double pass = 0.70;
  double warn = 0.50;
};

// The copy checks from a child's report, judged against the link and the memory of the GPU in
// `s` that the report names (by PCI bus id, else the CUDA ordinal; nullptr facts: no limits).
std::vector<Check> judge_copies(const CopyReport& r, const Snapshot& s, const Thresholds& t = {});

// A check that could not run, with the reason (no GPU, no driver, the child timed out).
Check skipped(const std::string& key, const std::string& why);
// A check that ran and failed without a number (a child that timed out or died), with the reason.
Check failed(const std::string& key, const std::string& why);

nlohmann::json verify_to_json(const std::vector<Check>& checks);

// The checks as snapshot facts (Snapshot::measurements), for the doctor's rules.
std::vector<Measurement> to_measurements(const std::vector<Check>& checks);

}  // namespace gpuready::verify
