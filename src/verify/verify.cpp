// Judging measurements against the hardware's limits, and the verify report's JSON.
#include "verify/verify.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpuready::verify {

std::string pci_bus_key(std::string id) {
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto colon = id.find(':');
  if (colon == std::string::npos) return id;
  std::string domain = id.substr(0, colon);
  if (domain.size() > 4) domain = domain.substr(domain.size() - 4);
  return domain + id.substr(colon);
}

namespace {

const NvidiaGpu* gpu_of(const CopyReport& r, const Snapshot& s, int device) {
  if (!r.pci_bus_id.empty() && device == 0)
    for (const auto& g : s.nvidia.gpus)
      if (g.pci_bus_id.has() && pci_bus_key(g.pci_bus_id.value()) == pci_bus_key(r.pci_bus_id)) return &g;
  for (const auto& g : s.nvidia.gpus)
    if (g.cuda_ordinal.has() && g.cuda_ordinal.value() == device) return &g;
  if (static_cast<size_t>(device) < s.nvidia.gpus.size() && s.nvidia.gpus.size() == static_cast<size_t>(r.device_count))
    return &s.nvidia.gpus[static_cast<size_t>(device)];
  return nullptr;
}

bool host_link(const std::string& key) { return key.find("h2d") != std::string::npos || key.find("d2h") != std::string::npos; }

Status grade(double ratio, const Thresholds& t) {
  return ratio >= t.pass ? Status::pass : ratio >= t.warn ? Status::warn : Status::fail;
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::pass: return "pass";
    case Status::warn: return "warn";
    case Status::fail: return "fail";
    case Status::skip: return "skip";
  }
  return "skip";
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> pcie_gbps(int gen, int width) {
  static const double kLane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  if (gen < 1 || gen > 6 || width <= 0) return std::nullopt;
  return kLane[gen] * width;
}

std::optional<double> memory_gbps(const NvidiaGpu& g) {
  if (!g.memory_clock_max_mhz.has() || !g.memory_bus_width_bits.has()) return std::nullopt;
  const double mhz = g.memory_clock_max_mhz.value(), bits = g.memory_bus_width_bits.value();
  if (mhz <= 0 || bits <= 0) return std::nullopt;
  return mhz * 1e6 * 2 * bits / 8 / 1e9;
}

Check skipped(const std::string& key, const std::string& why) {
  Check c;
  c.key = key;
  c.status = Status::skip;
  c.detail = why;
  return c;
}

Check failed(const std::string& key, const std::string& why) {
  Check c = skipped(key, why);
  c.status = Status::fail;
  return c;
}

std::vector<Check> judge_copies(const CopyReport& r, const Snapshot& s, const Thresholds& t) {
  std::vector<Check> out;
  for (const auto& x : r.results) {
    Check c;
    c.key = "copy." + x.key;
    c.unit = "GB/s";
    c.method = x.method;
    if (!x.error.empty()) {
      c.status = Status::fail;
      c.detail = x.error;
      out.push_back(std::move(c));
      continue;
    }
    const double moved = static_cast<double>(x.bytes) * x.copies_per_sample * x.bytes_factor;
    for (double sec : x.seconds)
      if (sec > 0) c.samples.push_back(moved / sec / 1e9);
    c.value = median(c.samples);
    if (!c.value) {
      c.status = Status::fail;
      c.detail = "no timed sample";
      out.push_back(std::move(c));
      continue;
    }
    const NvidiaGpu* g = gpu_of(r, s, x.device);
    std::string link_note;
    if (host_link(x.key) && g && g->pcie_gen_max.has() && g->pcie_width_max.has()) {
      c.limit = pcie_gbps(g->pcie_gen_max.value(), g->pcie_width_max.value());
      if (c.limit)
        link_note = fmt::format("PCIe Gen{} x{}: {:.1f} GB/s each way", g->pcie_gen_max.value(),
                                g->pcie_width_max.value(), *c.limit);
    } else if (x.key == "d2d" && g) {
      c.limit = memory_gbps(*g);
      if (c.limit)
        link_note = fmt::format("memory {:.0f} GB/s ({} MHz, {}-bit, double data rate)", *c.limit,
                                g->memory_clock_max_mhz.value(), g->memory_bus_width_bits.value());
    }
    if (c.limit && *c.limit > 0) c.ratio = *c.value / *c.limit;

    const bool pageable = x.key.find("pageable") != std::string::npos;
    if (!x.verified) {
      c.status = Status::fail;
      c.data_ok = false;
      c.detail = "the data arrived changed: " + (x.verify_detail.empty() ? std::string("mismatch") : x.verify_detail);
    } else if (pageable) {
      // The driver stages pageable memory through its own pinned buffers: a fraction of the link
      // is normal (8.9 of 63 GB/s on the H200 machine), so it is reported, not judged.
      c.status = Status::pass;
      c.detail = "pageable host memory goes through the driver's staging buffers; pinned memory (pin_memory=True) "
                 "is what the link can do";
    } else if (!c.ratio) {
      c.status = Status::pass;
      c.detail = "data verified; no limit known to judge the rate against";
    } else {
      c.status = grade(*c.ratio, t);
      c.detail = fmt::format("{:.2f} of {} (pass >= {:.2f}, warn >= {:.2f})", *c.ratio, link_note, t.pass, t.warn);
    }
    // A link that trained below its max while the copy ran (it only drops at idle).
    if (host_link(x.key) && g && g->pcie_gen_max.has() && !x.link_gen.empty()) {
      const int seen = *std::max_element(x.link_gen.begin(), x.link_gen.end());
      if (seen < g->pcie_gen_max.value()) {
        if (c.status == Status::pass) c.status = Status::warn;
        c.detail += fmt::format("; the link ran at Gen{} during the copy, not Gen{}", seen, g->pcie_gen_max.value());
      }
    }
    if (host_link(x.key) && g && g->pcie_width_max.has() && !x.link_width.empty()) {
      const int seen = *std::max_element(x.link_width.begin(), x.link_width.end());
      if (seen < g->pcie_width_max.value()) {
        if (c.status == Status::pass) c.status = Status::warn;
        c.detail += fmt::format("; the link ran at x{} during the copy, not x{}", seen, g->pcie_width_max.value());
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json verify_to_json(const std::vector<Check>& checks) {
  nlohmann::json j;
  j["schema"] = kVerifySchema;
  j["checks"] = nlohmann::json::array();
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  for (const auto& c : checks)
    j["checks"].push_back({{"key", c.key},
                           {"status", status_name(c.status)},
                           {"value", opt(c.value)},
                           {"unit", c.unit},
                           {"limit", opt(c.limit)},
                           {"ratio", opt(c.ratio)},
                           {"detail", c.detail},
                           {"method", c.method},
                           {"samples", c.samples},
                           {"data_ok", c.data_ok},
                           {"clock_events", c.clock_events}});
  return j;
}

std::vector<Measurement> to_measurements(const std::vector<Check>& checks) {
  std::vector<Measurement> out;
  for (const auto& c : checks) {
    Measurement m;
    m.key = c.key;
    m.status = status_name(c.status);
    m.value = c.value ? Fact<double>(*c.value) : Fact<double>::unknown(c.detail);
    m.unit = c.unit;
    m.limit = c.limit ? Fact<double>(*c.limit) : Fact<double>::unknown("no limit known");
    m.ratio = c.ratio ? Fact<double>(*c.ratio) : Fact<double>::unknown("no limit known");
    m.detail = c.detail;
    m.data_ok = c.data_ok;
    m.clock_events = c.clock_events;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace gpuready::verify
