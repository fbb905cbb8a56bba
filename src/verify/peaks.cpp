// GEMM peaks: a datasheet row for the exact NVML name, else SMs x clock x the capability's rate.
#include "verify/peaks.h"

#include <fmt/format.h>

#include "core/version.h"
#include "parse/ascii.h"

namespace gpuready::verify {
namespace {

constexpr Precision kAll[] = {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16};

// The row's figure for one precision.
template <class Row>
auto cell(const Row& r, Precision p) {
  switch (p) {
    case Precision::fp32:
      return r.fp32;
    case Precision::tf32:
      return r.tf32;
    case Precision::fp16:
      return r.fp16;
    case Precision::bf16:
      break;
  }
  return r.bf16;
}

// The precision as a reader writes it in a sentence: "TF32", "FP16 (fp32 accumulate)".
std::string spoken(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "FP32";
    case Precision::tf32:
      return "TF32";
    case Precision::fp16:
      return "FP16 (fp32 accumulate)";
    case Precision::bf16:
      break;
  }
  return "BF16";
}

std::optional<Peak> fail(std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return std::nullopt;
}

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      break;
  }
  return "bf16";
}

std::optional<Precision> precision_from_name(std::string_view name) {
  for (Precision p : kAll)
    if (parse::iequals(name, precision_name(p))) return p;
  return std::nullopt;
}

std::optional<Peak> gemm_peak(const NvidiaGpu& g, Precision p, const knowledge::Compat& k, std::string* why) {
  // 1. The datasheet row for the exact name is the whole answer for that GPU, empty cells too:
  // they mean "no such math" or "not published" (its notes say which), never "compute it".
  if (g.name.has()) {
    if (const knowledge::GpuPeakRow* row = k.gpu_peak(g.name.value())) {
      if (const auto tflops = cell(*row, p))
        return Peak{*tflops, fmt::format("datasheet: {} ({})", row->name, row->document)};
      return fail(why, fmt::format("{} has no {} peak in the datasheet table: {}", row->name, spoken(p), row->notes));
    }
  }
  // 2. Computed from the compute capability's per-SM rate.
  const std::string prefix = g.name.has() ? fmt::format("\"{}\" has no datasheet row, and ", g.name.value())
                                          : "the GPU's name is unknown, and ";
  if (!g.compute_capability.has())
    return fail(why, prefix + "its compute capability is unknown (" + g.compute_capability.why() + ")");
  const auto cc = Version::parse(g.compute_capability.value());
  if (!cc || !cc->suffix.empty() || cc->parts.size() > 2)
    return fail(why, prefix + "its compute capability \"" + g.compute_capability.value() + "\" does not parse");
  const std::string cc_text = cc->major_minor().str();
  const knowledge::ArchThroughputRow* arch = k.arch_throughput_row(*cc);
  if (!arch) return fail(why, prefix + "no per-SM rate is known for compute capability " + cc_text);
  const std::optional<int> rate = cell(*arch, p);
  if (!rate) {
    return fail(why, fmt::format("{}the {} rate of compute capability {} is not computed: {}", prefix, spoken(p),
                                 cc_text, arch->notes));
  }
  if (*rate == 0)
    return fail(why,
                fmt::format("compute capability {} has no {} tensor-core math: {}", cc_text, spoken(p), arch->notes));
  // A fact that is missing, or known but not positive, and what it said.
  auto unusable = [](const Fact<int>& f) -> std::optional<std::string> {
    if (!f.has()) return f.why();
    if (f.value() <= 0) return "reported as " + std::to_string(f.value());
    return std::nullopt;
  };
  if (auto bad = unusable(g.sm_count)) return fail(why, prefix + "the SM count is unknown (" + *bad + ")");
  if (auto bad = unusable(g.sm_clock_max_mhz)) return fail(why, prefix + "the max SM clock is unknown (" + *bad + ")");
  const int sms = g.sm_count.value(), mhz = g.sm_clock_max_mhz.value();
  // SMs x (MHz x 1e6 clock/s) x FLOP/clock/SM, in units of 1e12 FLOP/s.
  const double tflops = static_cast<double>(sms) * mhz * *rate / 1e6;
  return Peak{tflops, fmt::format("computed: {} SMs x {} MHz x {} FLOP/clock/SM (compute capability {})", sms, mhz,
                                  *rate, cc_text)};
}

}  // namespace gpuready::verify
