// Doctor rules: each one fires on a machine that has its problem and stays silent on one that
// does not. The machines are real snapshots (tests/fixtures/snapshots: the H200 test machine,
// healthy; a Debian 12 machine without GPU) with the one fact changed that the rule is about.
// Then the verdicts, the report's JSON contract, and `gpuready doctor` end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>

#include "doctor/doctor.h"
#include "platform/os.h"

using namespace gpuready;
using namespace gpuready::doctor;

namespace {

Snapshot fixture(const char* name) {
  std::ifstream f(std::string(GPUREADY_FIXTURES) + "/snapshots/" + name);
  return snapshot_from_json(nlohmann::json::parse(f));
}
const Snapshot& h200() {
  static const Snapshot s = fixture("h200.json");
  return s;
}

Report run(const Snapshot& s, Options o = {}) { return diagnose(s, knowledge::Compat::embedded(), o); }

std::vector<const Finding*> with_code(const Report& r, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.code == code) out.push_back(&f);
  return out;
}

std::string codes(const Report& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.code + " ";
  return s;
}

PythonEnv& venv(Snapshot& s) { return s.python.front(); }  // /opt/torch/.venv: torch, jax, numpy
PythonPackage& package(Snapshot& s, const std::string& name) {
  for (auto& p : venv(s).packages)
    if (p.name == name) return p;
  throw std::runtime_error("no package " + name);
}
void add_package(Snapshot& s, const std::string& name, const std::string& version) {
  PythonPackage p;
  p.name = name;
  p.version = version;
  p.location = "/opt/torch/.venv/lib/python3.12/site-packages/" + name + "-" + version + ".dist-info";
  venv(s).packages.push_back(p);
}
DriverStep& step(Snapshot& s, const std::string& name) {
  for (auto& st : s.nvidia.steps)
    if (st.name == name) return st;
  throw std::runtime_error("no step " + name);
}

struct Case {
  const char* code;
  std::function<void(Snapshot&)> fire;    // makes the H200 machine have the problem
  std::function<void(Snapshot&)> silent;  // a near miss that must stay silent (nullptr: the healthy machine)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"gpu.none", [](Snapshot& s) { s = fixture("nogpu-debian12.json"); }, nullptr},
      {"wsl.wsl1", [](Snapshot& s) { s.os.wsl = std::string("wsl1"); },
       [](Snapshot& s) { s.os.wsl = std::string("wsl2"); s.nvidia.nvml_library = std::string("/usr/lib/wsl/lib/libnvidia-ml.so.1");
                         s.nvidia.kernel_module_version = Fact<std::string>::unknown("no /proc/driver/nvidia/version");
                         for (auto& r : s.libraries.resolutions) if (r.soname == "libcuda.so.1") r.path = std::string("/usr/lib/wsl/lib/libcuda.so.1"); }},
      {"driver.nouveau", [](Snapshot& s) { s.pci_gpus[0].kernel_driver = std::string("nouveau"); },
       [](Snapshot& s) { s.pci_gpus[0].kernel_driver = std::string("nvidia"); }},
      {"driver.not-installed",
       [](Snapshot& s) {
         s.pci_gpus[0].kernel_driver = std::string("none");
         s.nvidia.steps = {{"load libnvidia-ml.so.1", false, "", "libnvidia-ml.so.1: cannot open shared object file", 1}};
         s.nvidia.gpus.clear();
         s.nvidia.driver_version = Fact<std::string>::unknown("no NVML");
       },
       [](Snapshot& s) { s.pci_gpus[0].kernel_driver = std::string("vfio-pci"); }},  // the library loads: not this rule
      {"driver.mismatch",
       [](Snapshot& s) { auto& st = step(s, "nvmlInit_v2"); st.ok = false; st.code = "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
                         st.message = "Driver/library version mismatch"; s.nvidia.gpus.clear(); },
       [](Snapshot& s) { auto& st = step(s, "nvmlInit_v2"); st.ok = false; st.code = "NVML_ERROR_DRIVER_NOT_LOADED"; }},
      {"driver.module-not-loaded",
       [](Snapshot& s) { auto& st = step(s, "nvmlInit_v2"); st.ok = false; st.code = "NVML_ERROR_DRIVER_NOT_LOADED";
                         st.message = "NVIDIA driver is not loaded"; s.nvidia.gpus.clear(); },
       [](Snapshot& s) { s.os.family = std::string("windows"); s.os.wsl = std::string("none");
                         auto& st = step(s, "nvmlInit_v2"); st.ok = false; st.code = "NVML_ERROR_UNKNOWN"; }},
      {"wsl.linux-driver",
       [](Snapshot& s) { s.os.wsl = std::string("wsl2"); s.nvidia.nvml_library = std::string("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"); },
       [](Snapshot& s) { s.os.wsl = std::string("wsl2"); s.nvidia.nvml_library = std::string("/usr/lib/wsl/lib/libnvidia-ml.so.1");
                         s.nvidia.kernel_module_version = Fact<std::string>::unknown("no /proc/driver/nvidia/version"); }},
      {"wsl.libcuda",
       [](Snapshot& s) { s.os.wsl = std::string("wsl2");
                         for (auto& r : s.libraries.resolutions) if (r.soname == "libcuda.so.1") r.path = Fact<std::string>::unknown("not found by the loader"); },
       [](Snapshot& s) { s.os.wsl = std::string("wsl2");
                         for (auto& r : s.libraries.resolutions) if (r.soname == "libcuda.so.1") r.path = std::string("/usr/lib/wsl/lib/libcuda.so.1"); }},
      {"cuda.visible-devices", [](Snapshot& s) { s.nvidia.cuda_visible_devices = std::string("-1"); },
       [](Snapshot& s) { s.nvidia.cuda_visible_devices = std::string("0"); }},
      {"cuda.driver-too-old-for-framework", [](Snapshot& s) { s.nvidia.driver_version = std::string("550.54.14"); },
       [](Snapshot& s) { s.nvidia.driver_version = std::string("580.65.06"); }},  // exactly CUDA 13's floor
      {"cuda.driver-too-old-for-toolkit", [](Snapshot& s) { s.nvidia.driver_version = std::string("550.54.14"); },
       [](Snapshot& s) { s.toolkits[0].version = std::string("12.8"); s.nvidia.driver_version = std::string("550.54.14"); }},
      {"cuda.toolkits-disagree",
       [](Snapshot& s) {
         Toolkit t;
         t.root = t.canonical_root = "/usr/local/cuda-12.4";
         t.found_by = {"CUDA_HOME"};
         t.version = std::string("12.4");
         s.toolkits[0].found_by = {"PATH nvcc"};
         s.toolkits.push_back(t);
       },
       [](Snapshot& s) { s.toolkits[0].found_by = {"CUDA_HOME", "PATH nvcc"}; }},
      {"cudnn.partial",
       [](Snapshot& s) { s.libraries.cudnn_sets[1].missing = {"cudnn_cnn"}; },  // /usr/lib/x86_64-linux-gnu: the loader's
       [](Snapshot& s) { s.libraries.cudnn_sets[0].missing = {"cudnn_cnn"}; }},  // the venv's copy: not what the loader picks
      {"cudnn.mixed-versions",
       [](Snapshot& s) { s.libraries.cudnn_sets[1].consistent = false; s.libraries.cudnn_sets[1].versions["cudnn_ops"] = "9.1.0"; },
       [](Snapshot& s) { s.libraries.cudnn_sets[0].consistent = false; }},
      {"library.not-found",
       [](Snapshot& s) {
         add_package(s, "tensorflow", "2.10.0");
         venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}};
         LibraryCopy cp;
         cp.library = "cudart";
         cp.soname = "libcudart.so.11.0";
         cp.file_name = "libcudart.so.11.2.152";
         cp.path = "/usr/local/cuda-11.2/lib64/libcudart.so.11.2.152";
         s.libraries.copies.push_back(cp);
         for (auto& r : s.libraries.resolutions)
           if (r.soname == "libcudart.so.11.0") r.path = Fact<std::string>::unknown("not found by the loader");
       },
       [](Snapshot& s) {  // the same copy, found by the loader
         add_package(s, "tensorflow", "2.10.0");
         venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}};
         for (auto& r : s.libraries.resolutions)
           if (r.soname == "libcudart.so.11.0") r.path = std::string("/usr/local/cuda-11.2/lib64/libcudart.so.11.0");
       }},
      {"library.not-installed",
       [](Snapshot& s) { add_package(s, "tensorflow", "2.10.0");
                         venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}}; },
       [](Snapshot& s) { add_package(s, "tensorflow", "2.10.0");  // the pip CUDA 11 wheels bring them
                         venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}};
                         add_package(s, "nvidia-cuda-runtime-cu11", "11.8.89"); }},
      {"cudnn.older-than-built",
       [](Snapshot& s) { add_package(s, "tensorflow", "2.18.0");
                         venv(s).packages.back().details = {{"cuda_version", "12.5.1"}, {"cudnn_version", "9.3"}};
                         add_package(s, "nvidia-cudnn-cu12", "9.1.0.70"); },
       [](Snapshot& s) { add_package(s, "tensorflow", "2.18.0");
                         venv(s).packages.back().details = {{"cuda_version", "12.5.1"}, {"cudnn_version", "9.3"}};
                         add_package(s, "nvidia-cudnn-cu12", "9.3.0.75"); }},
      {"torch.cpu-only",
       [](Snapshot& s) { auto& t = package(s, "torch"); t.version = "2.11.0+cpu"; t.details = {{"cuda", "none"}, {"variant", "cpu"}}; },
       [](Snapshot& s) { auto& t = package(s, "torch"); t.version = "2.11.0+cu128"; t.details = {{"cuda", "12.8"}, {"variant", "cu128"}}; }},
      {"tensorflow.both-packages",
       [](Snapshot& s) { add_package(s, "tensorflow", "2.20.0"); add_package(s, "tensorflow-gpu", "2.10.0"); },
       [](Snapshot& s) { add_package(s, "tensorflow", "2.20.0"); }},
      {"tensorflow.windows-no-gpu",
       [](Snapshot& s) { s.os.family = std::string("windows"); s.os.wsl = std::string("none"); add_package(s, "tensorflow", "2.15.0"); },
       [](Snapshot& s) { s.os.wsl = std::string("wsl2"); add_package(s, "tensorflow", "2.15.0"); }},
      {"framework.python-unsupported", [](Snapshot& s) { venv(s).version = std::string("3.9.18"); },  // torch 2.11: 3.10-3.14
       [](Snapshot& s) { venv(s).version = std::string("3.14.0"); }},
      {"framework.no-kernels", [](Snapshot& s) { s.nvidia.gpus[0].compute_capability = std::string("6.1"); },  // cu130: sm_75+
       [](Snapshot& s) { s.nvidia.gpus[0].compute_capability = std::string("8.9"); }},  // sm_86 cubin runs on 8.9
      {"cpu.no-avx",
       [](Snapshot& s) { auto isa = s.cpu.isa.value(); isa["avx"] = false; s.cpu.isa = isa; add_package(s, "tensorflow", "2.20.0"); },
       [](Snapshot& s) { auto isa = s.cpu.isa.value(); isa["avx"] = false; s.cpu.isa = isa; }},  // no TensorFlow
      {"tensorflow.numpy-too-new", [](Snapshot& s) { add_package(s, "tensorflow", "2.15.0"); },  // numpy 2.5.2 is installed
       [](Snapshot& s) { add_package(s, "tensorflow", "2.18.0"); }},
      {"health.pcie-width", [](Snapshot& s) { s.nvidia.gpus[0].pcie_width_current = 8; },
       [](Snapshot& s) { s.nvidia.gpus[0].pcie_gen_current = 1; }},  // generation drops at idle: not a finding
      {"health.throttling", [](Snapshot& s) { s.nvidia.gpus[0].clocks_event_reasons = std::vector<std::string>{"hw_thermal_slowdown"}; },
       [](Snapshot& s) { s.nvidia.gpus[0].clocks_event_reasons = std::vector<std::string>{"gpu_idle", "sw_power_cap"}; }},
      {"health.memory-in-use", [](Snapshot& s) { s.nvidia.gpus[0].memory_used_bytes = std::uint64_t{100} << 30; },
       [](Snapshot& s) { s.nvidia.gpus[0].memory_used_bytes = std::uint64_t{40} << 30; }},
      {"health.persistence-off", [](Snapshot& s) { s.nvidia.gpus[0].persistence_mode = false; },
       [](Snapshot& s) { s.nvidia.gpus[0].persistence_mode = false; s.nvidia.gpus[0].name = std::string("NVIDIA GeForce RTX 4090"); }},
  };
  return all;
}

}  // namespace

TEST(Doctor, TheHealthyH200MachineHasNoFindingsAndIsReady) {
  const Report r = run(h200());
  EXPECT_TRUE(r.findings.empty()) << codes(r);
  EXPECT_TRUE(r.ready);
  ASSERT_EQ(r.frameworks.size(), 2u);  // torch and jax in /opt/torch/.venv
  for (const auto& v : r.frameworks) EXPECT_TRUE(v.ready) << v.name;
  EXPECT_EQ(r.cuda.driver_newest, "13.0");
}

TEST(Doctor, EveryRuleHasACaseAndTheCasesCoverEveryRule) {
  std::set<std::string> rules, tested;
  for (const auto& r : all_rules()) EXPECT_TRUE(rules.insert(r.code).second) << "duplicate code " << r.code;
  for (const auto& c : cases()) tested.insert(c.code);
  EXPECT_EQ(rules, tested);
}

TEST(Doctor, EachRuleFiresOnItsProblem) {
  for (const auto& c : cases()) {
    Snapshot s = h200();
    c.fire(s);
    const Report r = run(s);
    const auto found = with_code(r, c.code);
    ASSERT_FALSE(found.empty()) << c.code << " did not fire; findings: " << codes(r);
    for (const Finding* f : found) {
      EXPECT_FALSE(f->title.empty()) << c.code;
      EXPECT_FALSE(f->evidence.empty()) << c.code;
      EXPECT_FALSE(f->fix.empty()) << c.code;
    }
  }
}

TEST(Doctor, EachRuleStaysSilentOnANearMiss) {
  for (const auto& c : cases()) {
    Snapshot s = h200();
    if (c.silent) c.silent(s);
    const Report r = run(s);
    EXPECT_TRUE(with_code(r, c.code).empty()) << c.code << " fired on its near miss: " << codes(r);
  }
}

TEST(Doctor, ErrorsComeFirstAndBlockOnlyWhatTheyConcern) {
  Snapshot s = h200();
  auto& t = package(s, "torch");
  t.version = "2.11.0+cpu";
  t.details = {{"cuda", "none"}, {"variant", "cpu"}};
  s.nvidia.gpus[0].pcie_width_current = 8;  // a warning
  const Report r = run(s);
  ASSERT_GE(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].code, "torch.cpu-only");
  EXPECT_EQ(r.findings[1].code, "health.pcie-width");
  EXPECT_FALSE(r.ready);
  for (const auto& v : r.frameworks) {
    if (v.name == "pytorch") {
      EXPECT_FALSE(v.ready);
      EXPECT_EQ(v.blocking, std::vector<std::string>{"torch.cpu-only"});
    } else {
      EXPECT_TRUE(v.ready) << v.name;  // jax is fine; a warning blocks nothing
    }
  }
  // The fix is the plan's exact reinstall command for this environment.
  const auto& fix = r.findings[0].fix;
  EXPECT_TRUE(std::any_of(fix.begin(), fix.end(), [](const std::string& l) {
    return l.find("/opt/torch/.venv/bin/python3 -m pip install torch==") == 0 &&
           l.find("--index-url https://download.pytorch.org/whl/cu130") != std::string::npos;
  }));
}

TEST(Doctor, AFrameworkAskedForButNotInstalledIsNotReady) {
  Options o;
  o.frameworks = {"tensorflow"};
  const Report r = run(h200(), o);
  EXPECT_FALSE(r.ready);
  const auto it = std::find_if(r.frameworks.begin(), r.frameworks.end(), [](const auto& v) { return v.name == "tensorflow"; });
  ASSERT_NE(it, r.frameworks.end());
  EXPECT_FALSE(it->ready);
  EXPECT_EQ(it->blocking.front(), "framework.not-installed");
}

TEST(Doctor, MachineWideErrorsBlockEveryFramework) {
  Snapshot s = h200();
  s.nvidia.driver_version = std::string("550.54.14");  // too old for torch cu130 and the jax cuda13 plugin
  const Report r = run(s);
  EXPECT_FALSE(r.ready);
  for (const auto& v : r.frameworks) EXPECT_FALSE(v.ready) << v.name;
  const auto f = with_code(r, "cuda.driver-too-old-for-framework");
  EXPECT_GE(f.size(), 2u);  // torch, jax (and the pip CUDA runtime wheel)
  EXPECT_NE(f[0]->title.find("needs driver >= 580.65.06"), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->title.find("driver 550.54.14 runs CUDA <= 12.4"), std::string::npos) << f[0]->title;
}

TEST(Doctor, JsonContract) {
  Snapshot s = h200();
  s.nvidia.gpus[0].pcie_width_current = 8;
  const auto j = report_to_json(run(s));
  EXPECT_EQ(j.at("schema"), "gpuready.doctor/1");
  EXPECT_TRUE(j.at("ready").is_boolean());
  for (const auto& fw : j.at("frameworks"))
    for (const char* k : {"name", "version", "python", "ready"}) EXPECT_TRUE(fw.contains(k)) << k;
  ASSERT_FALSE(j.at("findings").empty());
  for (const auto& f : j.at("findings"))
    for (const char* k : {"code", "severity", "title", "evidence", "fix"}) EXPECT_TRUE(f.contains(k)) << k;
  EXPECT_EQ(j.at("findings")[0].at("severity"), "warn");
}

TEST(DoctorCli, ReplayJsonAndExitCodes) {
  auto run_exe = [](std::vector<std::string> args) {
    args.insert(args.begin(), GPUREADY_EXE);
    ProcOptions o;
    o.timeout = std::chrono::seconds(60);
    return real_os().proc.run(args, o);
  };
  const std::string fx = std::string(GPUREADY_FIXTURES) + "/snapshots/";
  const ProcResult ok = run_exe({"doctor", "--replay", fx + "h200.json", "--json"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out).at("ready"), true);
  const ProcResult bad = run_exe({"doctor", "--replay", fx + "nogpu-debian12.json"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("NOT READY"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("[gpu.none]"), std::string::npos) << bad.out;
  const ProcResult missing = run_exe({"doctor", "--replay", "/nonexistent.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read /nonexistent.json"), std::string::npos) << missing.err;
  const ProcResult list = run_exe({"doctor", "--list-rules"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("driver.mismatch"), std::string::npos);
}
