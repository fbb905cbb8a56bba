// collect_nvidia: the NVIDIA driver as NVML and the CUDA driver API see it (the parts:
// nvidia_kernel_module.cpp, nvidia_nvml.cpp, nvidia_cuda.cpp; nvidia_internal.h). Every call is a
// DriverStep in probe order (the order is the diagnosis: no library / no kernel module /
// library-module mismatch / no device). By default the talking happens in a child
// `gpuready __probe-driver` with a timeout, so a driver that hangs or crashes costs a step, not the probe.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>

#include "core/step_log.h"
#include "core/version.h"
#include "parse/child_reply.h"
#include "parse/clean_text.h"
#include "parse/driver_version.h"
#include "platform/child.h"
#include "probe/nvidia_driver.h"
#include "probe/nvidia_internal.h"
#include "probe/windows_registry.h"

namespace gpuready {
namespace {

using namespace nvidia_detail;

// ---------------------------------------------------------------- CUDA_VISIBLE_DEVICES

// How many GPUs CUDA will show given the variable and NVML's list (CUDA stops at the first
// entry that names no GPU: an out-of-range index or an unknown UUID).
int expected_visible(const parse::VisibleDevices& vis, const std::vector<NvidiaGpu>& gpus, int nvml_count) {
  std::vector<bool> taken(static_cast<size_t>(std::max(nvml_count, 0)), false);
  int n = 0;
  for (const auto& e : vis.entries) {
    int k = -1;
    if (e.is_index) {
      k = e.index < nvml_count ? e.index : -1;
    } else {
      for (size_t i = 0; i < gpus.size(); ++i)
        if (gpus[i].uuid && gpus[i].uuid.value().rfind(e.uuid, 0) == 0) k = gpus[i].index;
    }
    if (k < 0 || k >= nvml_count || taken[static_cast<size_t>(k)]) break;
    taken[static_cast<size_t>(k)] = true;
    ++n;
  }
  return n;
}

void note_visible_devices(NvidiaDriverFacts& out, const NvmlOutcome& nv, StepLog& steps) {
  if (!out.cuda_visible_devices) return;
  const std::string value = out.cuda_visible_devices.value();
  const parse::VisibleDevices vis = parse::cuda_visible_devices(value);
  const std::string var = "CUDA_VISIBLE_DEVICES=\"" + value + "\"";
  const std::string cut = vis.truncated ? " (CUDA ignores \"" + vis.stopped_at + "\" and every entry after it)" : "";
  if (out.cuda_device_count) {
    const int seen = out.cuda_device_count.value();
    if (nv.listed && seen < nv.count) {
      if (seen == 0)
        steps.note("CUDA_VISIBLE_DEVICES", false, "hides_all",
                   fmt::format("{} hides every GPU from CUDA: NVML lists {}, CUDA sees none{}", var, nv.count, cut));
      else
        steps.note("CUDA_VISIBLE_DEVICES", false, "hides_some",
                   fmt::format("{} hides {} of the {} GPUs NVML lists: CUDA sees {}{}", var, nv.count - seen, nv.count,
                               seen, cut));
    } else {
      steps.note("CUDA_VISIBLE_DEVICES", true, "", fmt::format("{}: CUDA sees {} GPU{}", var, seen, seen == 1 ? "" : "s"));
    }
    return;
  }
  // cuInit did not run: say what the variable will do to CUDA programs.
  if (vis.hides_all()) {
    steps.note("CUDA_VISIBLE_DEVICES", false, "hides_all",
               var + " hides every GPU from CUDA programs" + cut +
                   (nv.listed ? fmt::format(" (NVML lists {})", nv.count) : std::string()));
    return;
  }
  if (nv.listed) {
    const int n = expected_visible(vis, out.gpus, nv.count);
    if (n < nv.count) {
      steps.note("CUDA_VISIBLE_DEVICES", false, n == 0 ? "hides_all" : "hides_some",
                 fmt::format("{}: CUDA programs will see {} of the {} GPU{} NVML lists{}", var, n, nv.count,
                             nv.count == 1 ? "" : "s", cut));
      return;
    }
  }
  steps.note("CUDA_VISIBLE_DEVICES", true, "", var + ": hides no GPU NVML lists" + cut);
}

// ---------------------------------------------------------------- the isolated child

std::string tail(const std::string& s, size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

void mark_unknown(NvidiaDriverFacts& out, const std::string& why) {
  for (auto* f : {&out.nvml_library, &out.driver_version, &out.cuda_driver_version, &out.cuda_library, &out.cuda_init})
    *f = SFact::unknown(why);
  out.nvml_device_count = Fact<int>::unknown(why);
  out.cuda_device_count = Fact<int>::unknown(why);
}

void collect_via_child(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out) {
  std::vector<std::string> argv = opts.driver_probe_argv;
  if (opts.cuda_init == CudaInitPolicy::always) argv.push_back("--cuda");
  if (opts.cuda_init == CudaInitPolicy::never) argv.push_back("--no-cuda");
  for (const auto& c : opts.nvml_candidates) argv.insert(argv.end(), {"--nvml", c});
  for (const auto& c : opts.cuda_candidates) argv.insert(argv.end(), {"--libcuda", c});
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout = opts.child_timeout;
  spec.max_output = 4u << 20;
  spec.step_prefix = kDriverStepPrefix;
  // The child reads the variable itself; hand it the value this probe sees.
  if (auto v = os.env.get("CUDA_VISIBLE_DEVICES")) spec.set_env["CUDA_VISIBLE_DEVICES"] = *v;
  else spec.unset_env.push_back("CUDA_VISIBLE_DEVICES");

  const ChildRun run = run_child(os, spec);
  const ProcResult& r = run.proc;
  DriverStep step;
  step.name = "isolated driver probe (" + path_file_name(argv.front()) + (argv.size() > 1 ? " " + argv[1] : "") + ")";
  step.ms = run.seconds * 1000.0;

  const std::string where = run.where();
  const std::string err_tail = run.stderr_tail(400);
  auto fail = [&](std::string code, std::string msg) {
    step.ok = false;
    step.code = std::move(code);
    step.message = std::move(msg);
    mark_unknown(out, step.message);
    out.steps.insert(out.steps.begin(), step);
  };

  if (run.end == ChildRun::End::not_started) {
    // Could not even start ourselves again: talking to the driver here is better than knowing nothing.
    step.ok = false;
    step.code = "not_started";
    step.message = "could not start the isolated driver probe (" + r.error + "); asked the driver in-process instead";
    collect_nvidia_in_process(os, opts, out);
    out.steps.insert(out.steps.begin(), step);
    return;
  }
  if (run.end == ChildRun::End::timed_out) {
    return fail("timeout", fmt::format("the driver did not answer within {:g} s: a hung driver or GPU; check dmesg for "
                                       "Xid errors{}",
                                       static_cast<double>(opts.child_timeout.count()) / 1000.0, where));
  }
  if (run.end == ChildRun::End::crashed) {
    return fail("crashed", fmt::format("the driver probe {}{}: the NVIDIA user-space library crashed "
                                       "on first contact (a broken or mismatched driver install?){}",
                                       run.how, where, err_tail.empty() ? std::string() : "; stderr: " + err_tail));
  }
  NvidiaDriverFacts child;
  bool parsed = false;
  std::string parse_error;
  const nlohmann::json j = parse::child_reply(r.out).value_or(nlohmann::json());
  if (j.is_object()) {
    try {
      child = j.get<NvidiaDriverFacts>();
      parsed = true;
    } catch (const std::exception& e) {
      parse_error = e.what();
    }
  }
  if (r.exit_code != 0 || !parsed) {
    return fail("bad_output",
                fmt::format("the driver probe gave no usable answer (exit code {}{}){}{}", r.exit_code,
                            parse_error.empty() ? std::string() : ", " + parse_error,
                            r.out.empty() ? std::string() : "; output: " + tail(r.out, 200),
                            err_tail.empty() ? std::string() : "; stderr: " + err_tail));
  }
  out = std::move(child);
  step.ok = true;
  step.message = "answered in a child process";
  out.steps.insert(out.steps.begin(), step);
}

}  // namespace

std::optional<std::string> read_file_tail(const Fs& fs, const std::string& path, size_t max_bytes, std::string* error) {
  // Fs reads at an offset but does not say how long a file is: find its end with one-byte reads,
  // doubling then halving (~2*log2(size) reads: about 54 for a 100 MB module), then read the tail.
  std::string err;
  auto byte_at = [&](std::uint64_t offset) -> std::optional<bool> {
    auto b = fs.read_file_at(path, offset, 1, &err);
    if (!b) return std::nullopt;
    return !b->empty();
  };
  auto fail = [&]() -> std::optional<std::string> {
    if (error) *error = err.empty() ? path + ": could not be read" : err;
    return std::nullopt;
  };
  const auto first = byte_at(0);
  if (!first) return fail();
  std::uint64_t size = 0;
  if (*first) {
    std::uint64_t lo = 0, hi = 1;  // a byte at lo, none at hi once the doubling stops
    for (;;) {
      const auto more = byte_at(hi);
      if (!more) return fail();
      if (!*more) break;
      lo = hi;
      if (hi >= (std::uint64_t{1} << 40)) {
        err = path + ": larger than 1 TiB";
        return fail();
      }
      hi *= 2;
    }
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      const auto more = byte_at(mid);
      if (!more) return fail();
      (*more ? lo : hi) = mid;
    }
    size = hi;
  }
  const std::uint64_t from = size > max_bytes ? size - max_bytes : 0;
  auto tail = fs.read_file_at(path, from, max_bytes, &err);
  if (!tail) return fail();
  return tail;
}

void collect_nvidia_in_process(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out,
                               const DriverStepHook& before_step) {
  out = NvidiaDriverFacts{};
  StepLog steps(out.steps, before_step);
  const auto cvd = os.env.get("CUDA_VISIBLE_DEVICES");
  out.cuda_visible_devices = cvd ? SFact(*cvd) : SFact::unknown("not set: CUDA programs see every GPU");
  out.kernel_module_version = read_kernel_module_version(os);
  read_kernel_module_files(os.fs, out);
  const NvmlOutcome nv = probe_nvml(os, opts, out, steps);
  probe_cuda(os, opts, out, nv, steps);
  note_visible_devices(out, nv, steps);
}

void collect_nvidia(const Os& os, const ProbeOptions& opts, NvidiaDriverFacts& out) {
  if (opts.driver_probe_argv.empty()) return collect_nvidia_in_process(os, opts, out);
  out = NvidiaDriverFacts{};
  collect_via_child(os, opts, out);
  // Reading files and the environment cannot hang: this process states them through its own seams.
  const auto cvd = os.env.get("CUDA_VISIBLE_DEVICES");
  out.cuda_visible_devices = cvd ? SFact(*cvd) : SFact::unknown("not set: CUDA programs see every GPU");
  out.kernel_module_version = read_kernel_module_version(os);
  read_kernel_module_files(os.fs, out);
  for (auto& s : out.steps) {
    if (s.name == "nvmlInit_v2" && s.code == "NVML_ERROR_LIB_RM_VERSION_MISMATCH") {
      // Rebuild with this process's view of the kernel module, keeping the library version the child saw.
      const std::string marker = " but the user-space library is ";
      const size_t at = s.message.find(marker);
      std::optional<std::string> lib;
      if (at != std::string::npos) {
        const size_t from = at + marker.size();
        lib = s.message.substr(from, s.message.find(';', from) - from);
        if (*lib == "unknown") lib.reset();
      }
      s.message = mismatch_message(out.kernel_module_version, lib);
    }
  }
}

}  // namespace gpuready
