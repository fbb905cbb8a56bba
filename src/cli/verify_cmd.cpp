// `gpuready verify`: measure what the GPU stack does and judge it against what this hardware
// should reach. Copies run in the hidden child `gpuready __verify-copy` (copy.h) with a timeout;
// this process probes the machine (for the link and memory limits), judges and reports. The nvcc
// check (nvcc_check.h) compiles and runs a tiny kernel with the installed toolkit after the copies.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "doctor/doctor.h"
#include "parse/child_reply.h"
#include "platform/child.h"
#include "probe/nvidia_driver.h"
#include "report/verify_console.h"
#include "verify/gpu_checks.h"
#include "verify/nvcc_check.h"
#include "verify/verify.h"

namespace gpuready::cli {
namespace {

struct VerifyCmdOptions {
  bool json = false;
  bool quick = false;
  std::vector<std::string> tests;  // -t KEY
  double size_mib = 0;             // 0: the mode's default
  int samples = 0;
  double timeout_s = 120;
  bool plant_corruption = false;  // hidden: the forced failure the checkers must catch
  bool long_memory = false;       // --long: the thorough memory test
  double memory_share = 0;        // 0: the mode's default
  std::string libs = "system";    // where cuBLAS and cuDNN come from (verify::restrict_libraries)
  std::string save;               // --save FILE: the snapshot with the measurements
  double framework_timeout_s = 60;
};

// -t framework (every framework found) or -t framework.pytorch / .tensorflow / .jax.
bool is_framework_key(const std::string& t) {
  return t == "framework" || t == "framework.pytorch" || t == "framework.tensorflow" || t == "framework.jax";
}

// The deep framework checks (run by the probe, probe/framework_checks.cpp) as verify's checks.
std::vector<verify::Check> framework_results(const Snapshot& snap) {
  std::vector<verify::Check> out;
  for (const auto& k : snap.frameworks) {
    verify::Check c;
    c.key = "framework." + k.framework;
    c.status = k.status == "ready"   ? verify::Status::pass
               : k.status == "error" ? verify::Status::skip
                                     : verify::Status::fail;
    c.detail = doctor::check_summary(k) + " [" + k.python + "]";
    // Seeing no GPU where the driver lists none is no failure of the framework: gpuready doctor says why.
    if (k.status == "no-gpu" && snap.nvidia.gpus.empty()) {
      c.status = verify::Status::skip;
      c.detail += "; the driver lists no GPU either (gpuready doctor says why)";
    }
    c.method =
        "framework.*: imported in a child (python -u - <framework>); a 256x256x256 matrix product and an "
        "8x3x32x32 convolution on the GPU against the CPU, operands exact in fp32";
    out.push_back(std::move(c));
  }
  if (out.empty())
    out.push_back(verify::skipped("framework",
                                  "no TensorFlow, PyTorch or JAX in the Python environments gpuready "
                                  "found (--python PATH adds one)"));
  return out;
}

bool is_gpu_key(const std::string& t) {
  for (const auto& k : verify::gpu_check_keys())
    if (k == t) return true;
  return false;
}

bool is_nvcc_key(const std::string& t) {
  for (const auto& k : verify::nvcc_keys())
    if (k == t) return true;
  return false;
}

// "copy.h2d_pinned" -> "h2d_pinned"; "nvcc.compile" -> "nvcc.compile"; an unknown key is a usage error.
bool copy_key_of(const std::string& t, std::string* key) {
  if (is_nvcc_key(t) || is_gpu_key(t) || is_framework_key(t)) {
    *key = t;
    return true;
  }
  if (t.rfind("copy.", 0) != 0) return false;
  *key = t.substr(5);
  for (const auto& k : verify::copy_keys())
    if (k == *key) return true;
  return key->rfind("p2p_", 0) == 0;
}

std::vector<verify::Check> run_copies(const Os& os, const VerifyCmdOptions& o, const std::vector<std::string>& only,
                                      const Snapshot& snap) {
  const auto self = os.proc.self_path();
  if (!self) return {verify::skipped("copy", "cannot find the gpuready executable to run the copies in a child")};
  std::vector<std::string> argv = {*self, "__verify-copy"};
  const double mib = o.size_mib > 0 ? o.size_mib : (o.quick ? 64 : 256);
  argv.insert(argv.end(), {"--bytes", std::to_string(static_cast<std::uint64_t>(mib * (1 << 20)))});
  argv.insert(argv.end(), {"--samples", std::to_string(o.samples > 0 ? o.samples : (o.quick ? 3 : 7))});
  if (o.quick) argv.insert(argv.end(), {"--copies", "4"});
  for (const auto& k : only) argv.insert(argv.end(), {"--only", k});
  if (o.plant_corruption) argv.push_back("--plant-corruption");
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_s * 1000));
  spec.max_output = 4u << 20;
  spec.step_prefix = kDriverStepPrefix;
  const ChildRun run = run_child(os, spec);
  if (run.end == ChildRun::End::not_started) return {verify::skipped("copy", "the copy child " + run.how)};
  if (run.end == ChildRun::End::timed_out)
    return {verify::failed("copy", fmt::format("the copies did not finish in {:.0f} s{}", o.timeout_s, run.where()))};
  verify::CopyReport report;
  try {
    const std::string& out = run.proc.out;
    auto j = parse::child_reply(out);
    if (!j) throw std::runtime_error("no reply");
    report = j->get<verify::CopyReport>();
  } catch (const std::exception&) {
    return {verify::failed("copy", "no report: " + run.summary("the copy child", 300))};
  }
  if (report.results.empty()) {
    // The driver could not be reached: every copy check is skipped with the step that failed.
    std::string why = "no copy ran";
    for (const auto& st : report.steps)
      if (!st.ok) {
        why = st.name + ": " + (st.code.empty() ? "" : st.code + ": ") + st.message;
        break;
      }
    if (snap.nvidia.gpus.empty() && snap.nvidia.driver_version.has() == false)
      why += " (the probe found no working NVIDIA driver: gpuready doctor says why)";
    return {verify::skipped("copy", why)};
  }
  return verify::judge_copies(report, snap);
}

std::vector<verify::Check> run_gpu_request(const Os& os, const VerifyCmdOptions& o, const verify::GpuRequest& req,
                                           const std::vector<std::string>& want, const Snapshot& snap,
                                           const std::string& self);

// Each key skipped with the same reason.
std::vector<verify::Check> skipped_each(const std::vector<std::string>& keys, const std::string& why) {
  std::vector<verify::Check> out;
  for (const auto& k : keys) out.push_back(verify::skipped(k, why));
  return out;
}

// The CUDA module's checks (GEMM, cuDNN, memory) in the child `__verify-gpu`, judged here.
std::vector<verify::Check> run_gpu(const Os& os, const VerifyCmdOptions& o, std::vector<std::string> want,
                                   const Snapshot& snap) {
  if (want.empty()) want = verify::gpu_check_keys();
  const auto self = os.proc.self_path();
  if (!self) return skipped_each(want, "cannot find the gpuready executable to run the checks in a child");
  verify::GpuRequest req;
  req.checks = want;
  req.plant_corruption = o.plant_corruption;
  if (o.quick) {
    req.gemm_size = 4096;
    req.gemm_warmup = 2;
    req.gemm_samples = 5;
    req.gemm_sample_ms = 10;
    req.conv_n = 8;
    req.conv_samples = 5;
    req.memory_share = 0.25;
    req.memory_walking = false;
  }
  if (o.samples > 0) req.gemm_samples = req.conv_samples = o.samples;
  if (o.long_memory) {
    req.memory_share = 0.9;
    req.memory_walking = true;
    req.memory_rounds = 16;
  }
  if (o.memory_share > 0) req.memory_share = o.memory_share / 100.0;
  verify::fill_libraries(&req, snap);
  if (std::string why; !verify::restrict_libraries(&req, snap, o.libs, &why)) {
    // The driver-only check (memory) still runs; the library checks are skipped with the reason.
    std::vector<std::string> left;
    std::vector<verify::Check> skipped_ones;
    for (const auto& k : want)
      (k.rfind("gemm.", 0) == 0 || k.rfind("cudnn.", 0) == 0 ? skipped_ones.push_back(verify::skipped(k, why))
                                                              : left.push_back(k));
    if (left.empty()) return skipped_ones;
    req.checks = want = left;
    auto rest = run_gpu_request(os, o, req, want, snap, *self);
    rest.insert(rest.begin(), skipped_ones.begin(), skipped_ones.end());
    return rest;
  }
  return run_gpu_request(os, o, req, want, snap, *self);
}

// Runs one request in the child `__verify-gpu` and judges its reply.
std::vector<verify::Check> run_gpu_request(const Os& os, const VerifyCmdOptions& o, const verify::GpuRequest& req,
                                           const std::vector<std::string>& want, const Snapshot& snap,
                                           const std::string& self) {
  std::vector<std::string> argv = {self, "__verify-gpu", "--request", nlohmann::json(req).dump()};
  // NVML samples the clocks of the GPU the module uses: CUDA device 0 as the probe matched it.
  for (const auto& g : snap.nvidia.gpus)
    if (g.pci_bus_id.has() && (!g.cuda_ordinal.has() || g.cuda_ordinal.value() == req.device)) {
      argv.insert(argv.end(), {"--bus-id", g.pci_bus_id.value()});
      break;
    }
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_s * 1000));
  spec.max_output = 8u << 20;
  spec.step_prefix = kDriverStepPrefix;
  const ChildRun run = run_child(os, spec);
  if (run.end == ChildRun::End::not_started) return skipped_each(want, "the GPU child " + run.how);
  if (run.end == ChildRun::End::timed_out) {
    std::vector<verify::Check> out;
    for (const auto& k : want)
      out.push_back(
          verify::failed(k, fmt::format("the GPU checks did not finish in {:.0f} s{}", o.timeout_s, run.where())));
    return out;
  }
  verify::GpuReply reply;
  try {
    const std::string& out = run.proc.out;
    auto j = parse::child_reply(out);
    if (!j) throw std::runtime_error("no reply");
    reply = j->get<verify::GpuReply>();
  } catch (const std::exception&) {
    std::vector<verify::Check> out;
    for (const auto& k : want) out.push_back(verify::failed(k, "no report: " + run.summary("the GPU child", 300)));
    return out;
  }
  return verify::judge_gpu(reply, want, snap, knowledge::Compat::embedded());
}

int run_verify_cmd(const VerifyCmdOptions& o) {
  std::vector<std::string> only, only_nvcc, only_gpu, only_fw;  // -t keys: copies (without "copy."), nvcc, the
                                                                // module's, frameworks
  for (const auto& t : o.tests) {
    std::string key;
    if (!copy_key_of(t, &key)) {
      std::string valid;
      for (const auto& k : verify::copy_keys()) valid += " copy." + k;
      valid += " copy.p2p_read_A_B copy.p2p_write_A_B";
      for (const auto& k : verify::nvcc_keys()) valid += " " + k;
      for (const auto& k : verify::gpu_check_keys()) valid += " " + k;
      valid += " framework framework.pytorch framework.tensorflow framework.jax";
      std::fprintf(stderr, "gpuready verify: unknown check '%s'; the checks are:%s\n", t.c_str(), valid.c_str());
      return kExitUsage;
    }
    (is_nvcc_key(t) ? only_nvcc : is_gpu_key(t) ? only_gpu : is_framework_key(t) ? only_fw : only).push_back(key);
  }
  // No -t: every check. With -t, only the families named (nvcc keys alone run no copies, and vice versa).
  const bool copies = o.tests.empty() || !only.empty();
  const bool nvcc = o.tests.empty() || !only_nvcc.empty();
  const bool gpu = o.tests.empty() || !only_gpu.empty();
  const bool frameworks = o.tests.empty() || !only_fw.empty();
  const Os& os = real_os();
  ProbeOptions popts = isolated_probe_options(os, 10);
  popts.library_dirs = verify::library_folders(o.libs);
  // The frameworks are imported while the probe runs, before anything is measured on the GPU.
  set_deep_options(popts, frameworks, o.framework_timeout_s);
  for (const auto& k : only_fw)
    if (k != "framework") popts.deep_frameworks.push_back(k.substr(10));
  if (std::find(only_fw.begin(), only_fw.end(), "framework") != only_fw.end()) popts.deep_frameworks.clear();
  Snapshot snap = run_probe(os, popts);
  std::vector<verify::Check> checks;
  if (copies) checks = run_copies(os, o, only, snap);
  if (gpu)
    for (auto& c : run_gpu(os, o, only_gpu, snap)) checks.push_back(std::move(c));
  if (nvcc) {
    verify::NvccOptions no;
    no.only = only_nvcc;
    for (auto& c : verify::nvcc_checks(os, snap, no)) checks.push_back(std::move(c));
  }
  if (frameworks)
    for (auto& c : framework_results(snap)) checks.push_back(std::move(c));
  // The measurements are facts: the doctor's rules read them (measured.*) and say what they mean.
  snap.measurements = verify::to_measurements(checks);
  std::vector<doctor::Finding> findings;
  for (auto& f : doctor::diagnose(snap, knowledge::Compat::embedded()).findings)
    if (f.code.rfind("measured.", 0) == 0 || doctor::is_deep_rule(f.code)) findings.push_back(std::move(f));
  if (!o.save.empty()) {
    std::string err;
    if (!save_snapshot_file(o.save, snap, &err)) {
      std::fprintf(stderr, "gpuready verify: %s\n", err.c_str());
      return kExitUsage;
    }
  }
  if (o.json) {
    nlohmann::json j = verify::verify_to_json(checks);
    j["findings"] = nlohmann::json::array();
    for (const auto& f : findings)
      j["findings"].push_back({{"code", f.code},
                               {"severity", doctor::severity_name(f.severity)},
                               {"title", f.title},
                               {"evidence", f.evidence},
                               {"fix", f.fix}});
    const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    ConsoleStyle style;
    style.color = stdout_wants_color();
    std::fputs(render_verify_console(checks, findings, snap, style).c_str(), stdout);
  }
  bool failed = false, ran = false;
  for (const auto& c : checks) {
    failed |= c.status == verify::Status::fail;
    ran |= c.status == verify::Status::pass || c.status == verify::Status::warn;
  }
  return failed || !ran ? kExitProblems : kExitOk;
}

}  // namespace

void setup_verify(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<VerifyCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "verify",
      "Measure the GPU stack and judge each number against what this hardware should reach: copies over the PCIe "
      "link and in GPU memory, matrix products (cuBLAS), convolutions (cuDNN), a memory pattern test, each result "
      "checked for correctness; compile and run a tiny kernel with nvcc");
  sub->add_flag("--json", o->json, "Print the checks as JSON (schema gpuready.verify/1)");
  sub->add_flag("--quick", o->quick, "Smaller buffers, fewer samples, a short memory test (about 10 seconds)");
  sub->add_flag("--long", o->long_memory, "The thorough memory test: 90% of free GPU memory, 16 random patterns");
  sub->add_option("--memory-share", o->memory_share, "Percent of the free GPU memory the memory test covers")
      ->check(CLI::Range(1.0, 95.0));
  sub->add_option("-t,--test", o->tests,
                  "Run only this check (repeatable), e.g. copy.h2d_pinned, gemm.bf16, cudnn.conv_fwd, memory.pattern, "
                  "framework.pytorch")
      ->type_name("KEY");
  sub->add_option("--libs", o->libs,
                  "Where the GEMM and cuDNN checks take cuBLAS and cuDNN from: system (default: the loader's picks), "
                  "torch, tensorflow or jax (the files that framework's environment loads), or an absolute folder; "
                  "several, comma-separated, take each library from the first that has it (/opt/cublas11,system)");
  sub->add_option("--size", o->size_mib, "MiB per copy (default 256; --quick 64)")->check(CLI::Range(1.0, 65536.0));
  sub->add_option("--samples", o->samples, "Timed samples per check; the median is reported")->check(CLI::Range(1, 1000));
  sub->add_option("--timeout", o->timeout_s, "Seconds the measurements may take before they are stopped")
      ->check(CLI::Range(1.0, 3600.0));
  sub->add_option("--save", o->save, "Also write the snapshot with these measurements (gpuready doctor --replay FILE)")
      ->type_name("FILE");
  sub->add_option("--framework-timeout", o->framework_timeout_s,
                  "Seconds each framework check (import, one operation on GPU and CPU) may take (default 60)")
      ->check(CLI::Range(1.0, 3600.0));
  sub->add_flag("--plant-corruption", o->plant_corruption)->group("");  // hidden: tests the data check
  sub->callback([o, exit_code] { *exit_code = run_verify_cmd(*o); });
}

}  // namespace gpuready::cli
