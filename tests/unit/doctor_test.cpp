// Doctor rules: each one fires on a machine that has its problem and stays silent on one that
// does not. The machines are real snapshots (tests/fixtures/snapshots: the H200 test machine,
// healthy; a Debian 12 machine without GPU) with the one fact changed that the rule is about.
// Then the verdicts, the report's JSON contract, and `gpuready doctor` end to end.
#include "doctor/doctor.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>

#include "platform/os.h"
#include "report/doctor_console.h"
#include "support/test_os.h"

using namespace gpuready;
using namespace gpuready::doctor;

namespace {

const Snapshot& h200() {
  static const Snapshot s = test::fixture_snapshot("h200.json");
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

LibraryCopy copy(const std::string& library, const std::string& soname, const std::string& path,
                 const std::string& version, const std::string& origin, const std::string& detail = "") {
  LibraryCopy c;
  c.library = library;
  c.soname = soname;
  c.path = path;
  c.file_name = path_file_name(path);
  c.version = version;
  c.origin = origin;
  c.origin_detail = detail;
  return c;
}
// The walkthrough on Windows: TensorFlow 2.4 (CUDA 11.0, cuDNN 8) whose cudart64_110.dll the loader
// finds in CUDA 11.0's bin folder through PATH, in a Python of the given version.
std::function<void(Snapshot&)> windows_tensorflow_24_on_path(const std::string& python) {
  return [python](Snapshot& s) {
    s.os.family = std::string("windows");
    s.os.wsl = std::string("none");
    venv(s).version = python;
    add_package(s, "tensorflow", "2.4.0");
    venv(s).packages.back().details = {{"cuda_version", "11.0"}, {"cudnn_version", "8"}};
    LoaderResolution r;
    r.soname = "cudart64_110.dll";
    r.path = std::string("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\bin\\cudart64_110.dll");
    r.via = "PATH";
    s.libraries.resolutions.push_back(r);
  };
}

LoaderResolution& resolution(Snapshot& s, const std::string& soname) {
  for (auto& r : s.libraries.resolutions)
    if (r.soname == soname) return r;
  throw std::runtime_error("no resolution " + soname);
}
LibraryCopy& copy_at(Snapshot& s, const std::string& path) {
  for (auto& c : s.libraries.copies)
    if (c.path == path) return c;
  throw std::runtime_error("no copy " + path);
}
Dependency dep(const std::string& name, const std::string& by, const std::string& path = "") {
  Dependency d;
  d.name = name;
  d.needed_by = by;
  if (path.empty()) {
    d.path = Fact<std::string>::unknown("not found: not in its RUNPATH ($ORIGIN), LD_LIBRARY_PATH, the loader cache or "
                                        "the default folders");
  } else {
    d.path = path;
    d.via = "RUNPATH";
  }
  return d;
}
void module_not_loaded(Snapshot& s) {
  auto& st = step(s, "nvmlInit_v2");
  st.ok = false;
  st.code = "NVML_ERROR_DRIVER_NOT_LOADED";
  st.message = "NVIDIA driver is not loaded";
  s.nvidia.gpus.clear();
}
void tensorflow_212_with_cudnn_824(Snapshot& s) {  // TF 2.12 (CUDA 11.8, cuDNN 8.6) and the loader's cuDNN 8.2.4
  add_package(s, "tensorflow", "2.12.0");
  venv(s).packages.back().details = {{"cuda_version", "11.8"}, {"cudnn_version", "8"}};
  s.libraries.copies.push_back(copy("cudnn", "libcudnn.so.8", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.2.4", "8.2.4", "ld.so.cache"));
  s.libraries.copies.push_back(copy("cudnn", "libcudnn.so.8", "/usr/local/cuda-11.8/lib64/libcudnn.so.8.9.7", "8.9.7", "toolkit", "/usr/local/cuda-11.8"));
  auto& r = resolution(s, "libcudnn.so.8");
  r.path = std::string("/lib/x86_64-linux-gnu/libcudnn.so.8");
  r.via = "ld.so.cache";
  r.canonical = "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.2.4";
}
Measurement measured(const std::string& key, const std::string& status, double value, double ratio,
                     bool data_ok = true) {
  Measurement m;
  m.key = key;
  m.status = status;
  m.value = value;
  m.unit = "GB/s";
  m.limit = 63.0;
  m.ratio = ratio;
  m.detail = fmt::format("{:.2f} of PCIe Gen5 x16: 63.0 GB/s each way", ratio);
  m.data_ok = data_ok;
  return m;
}
const char* kVenvLib = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/";

// What `doctor --deep` finds for torch in the H200's venv when all is well (probe/framework_checks.cpp).
FrameworkCheck torch_check() {
  FrameworkCheck k;
  k.framework = "pytorch";
  k.package = "torch";
  k.python = "/opt/torch/.venv/bin/python3";
  k.status = "ready";
  k.stage = "done";
  k.version = std::string("2.11.0+cu130");
  k.built_cuda = std::string("13.0");
  k.built_cudnn = std::string("9.13.0");
  k.runtime_cudnn = std::string("9.13.0");
  k.arch_list = {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
  FrameworkDevice d;
  d.name = "NVIDIA H200";
  d.compute_capability = std::string("9.0");
  d.memory_bytes = std::uint64_t{150754820096};
  k.devices = {d};
  FrameworkOp mm, conv;
  mm.name = "matmul";
  mm.max_error = 0.0;
  mm.gpu_ms = 61.0;
  conv.name = "conv2d";
  conv.max_error = 0.0;
  conv.gpu_ms = 410.0;
  k.ops = {mm, conv};
  const std::string lib = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/";
  k.libraries = {
      {lib + "libcudnn.so.9", "cudnn", std::string("9.13.0"), "cudnnGetVersion"},
      {lib + "libcudnn_graph.so.9", "cudnn_graph", std::string("9.13.0"), "probe (the cuDNN set in its folder)"},
      {std::string(kVenvLib) + "libcublas.so.13", "cublas", std::string("13.1.0"), "cublasGetProperty"}};
  k.import_seconds = 1.9;
  k.seconds = 4.2;
  return k;
}
// The torch check of the H200 snapshot, changed by `change`.
void deep(Snapshot& s, const std::function<void(FrameworkCheck&)>& change) {
  FrameworkCheck k = torch_check();
  change(k);
  s.frameworks = {k};
}
void deep_ready(Snapshot& s) { s.frameworks = {torch_check()}; }

struct Case {
  const char* code;
  std::function<void(Snapshot&)> fire;    // makes the H200 machine have the problem
  std::function<void(Snapshot&)> silent;  // a near miss that must stay silent (nullptr: the healthy machine)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"gpu.none", [](Snapshot& s) { s = test::fixture_snapshot("nogpu-debian12.json"); }, nullptr},
      {"wsl.wsl1", [](Snapshot& s) { s.os.wsl = std::string("wsl1"); },
       [](Snapshot& s) {
         s.os.wsl = std::string("wsl2");
         s.nvidia.nvml_library = std::string("/usr/lib/wsl/lib/libnvidia-ml.so.1");
         s.nvidia.kernel_module_version = Fact<std::string>::unknown("no /proc/driver/nvidia/version");
         for (auto& r : s.libraries.resolutions)
           if (r.soname == "libcuda.so.1") r.path = std::string("/usr/lib/wsl/lib/libcuda.so.1");
       }},
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
      {"driver.module-not-built",
       [](Snapshot& s) {
         module_not_loaded(s);
         s.os.kernel = std::string("6.1.0-18-amd64");
         s.nvidia.kernel_module_file = Fact<std::string>::unknown(
             "no nvidia module for kernel 6.1.0-18-amd64 in /lib/modules/6.1.0-18-amd64/modules.dep");
         s.nvidia.kernel_module_kernels = {"6.1.0-17-amd64"};
       },
       [](Snapshot& s) {
         module_not_loaded(s);  // a module for this kernel exists: driver.module-not-loaded speaks
         s.nvidia.kernel_module_file = std::string("/lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko");
         s.nvidia.kernel_module_kernels = {"6.1.0-17-amd64", "6.1.0-18-amd64"};
       }},
      {"driver.secure-boot-unsigned",
       [](Snapshot& s) {
         module_not_loaded(s);
         s.os.secure_boot = true;
         s.nvidia.kernel_module_file = std::string("/lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko");
         s.nvidia.kernel_module_kernels = {"6.1.0-18-amd64"};
         s.nvidia.kernel_module_signed = false;
       },
       [](Snapshot& s) {
         module_not_loaded(s);
         s.os.secure_boot = true;
         s.nvidia.kernel_module_file = std::string("/lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko");
         s.nvidia.kernel_module_kernels = {"6.1.0-18-amd64"};
         s.nvidia.kernel_module_signed = true;
       }},
      {"driver.mismatch",
       [](Snapshot& s) {
         auto& st = step(s, "nvmlInit_v2");
         st.ok = false;
         st.code = "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
         st.message = "Driver/library version mismatch";
         s.nvidia.gpus.clear();
       },
       [](Snapshot& s) {
         auto& st = step(s, "nvmlInit_v2");
         st.ok = false;
         st.code = "NVML_ERROR_DRIVER_NOT_LOADED";
       }},
      {"driver.module-not-loaded",
       [](Snapshot& s) {
         auto& st = step(s, "nvmlInit_v2");
         st.ok = false;
         st.code = "NVML_ERROR_DRIVER_NOT_LOADED";
         st.message = "NVIDIA driver is not loaded";
         s.nvidia.gpus.clear();
       },
       [](Snapshot& s) {
         s.os.family = std::string("windows");
         s.os.wsl = std::string("none");
         auto& st = step(s, "nvmlInit_v2");
         st.ok = false;
         st.code = "NVML_ERROR_UNKNOWN";
       }},
      {"wsl.linux-driver",
       [](Snapshot& s) {
         s.os.wsl = std::string("wsl2");
         s.nvidia.nvml_library = std::string("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
       },
       [](Snapshot& s) {
         s.os.wsl = std::string("wsl2");
         s.nvidia.nvml_library = std::string("/usr/lib/wsl/lib/libnvidia-ml.so.1");
         s.nvidia.kernel_module_version = Fact<std::string>::unknown("no /proc/driver/nvidia/version");
       }},
      {"wsl.libcuda",
       [](Snapshot& s) {
         s.os.wsl = std::string("wsl2");
         for (auto& r : s.libraries.resolutions)
           if (r.soname == "libcuda.so.1") r.path = Fact<std::string>::unknown("not found by the loader");
       },
       [](Snapshot& s) {
         s.os.wsl = std::string("wsl2");
         for (auto& r : s.libraries.resolutions)
           if (r.soname == "libcuda.so.1") r.path = std::string("/usr/lib/wsl/lib/libcuda.so.1");
       }},
      {"cuda.visible-devices", [](Snapshot& s) { s.nvidia.cuda_visible_devices = std::string("-1"); },
       [](Snapshot& s) { s.nvidia.cuda_visible_devices = std::string("0"); }},
      {"cuda.driver-too-old-for-framework", [](Snapshot& s) { s.nvidia.driver_version = std::string("550.54.14"); },
       [](Snapshot& s) { s.nvidia.driver_version = std::string("580.65.06"); }},  // exactly CUDA 13's floor
      {"cuda.driver-too-old-for-toolkit", [](Snapshot& s) { s.nvidia.driver_version = std::string("550.54.14"); },
       [](Snapshot& s) {
         s.toolkits[0].version = std::string("12.8");
         s.nvidia.driver_version = std::string("550.54.14");
       }},
      {"cuda.toolkits-disagree",
       [](Snapshot& s) {
         Toolkit t;
         t.root = t.canonical_root = "/usr/local/cuda-12.4";
         t.found_by = {"CUDA_HOME"};
         t.version = std::string("12.4");
         s.toolkits[0].found_by = {"PATH nvcc"};
         s.toolkits.push_back(t);
       },
       [](Snapshot& s) {
         s.toolkits[0].found_by = {"CUDA_HOME", "PATH nvcc"};
       }},
      {"cuda.loader-toolkit-mismatch",
       [](Snapshot& s) {  // LD_LIBRARY_PATH gives programs CUDA 13.1's cuBLAS while nvcc is 13.0
         s.libraries.copies.push_back(copy("cublas", "libcublas.so.13", "/usr/local/cuda-13.1/targets/x86_64-linux/lib/libcublas.so.13.2.0.9", "13.2.0.9", "toolkit", "/usr/local/cuda-13.1"));
         auto& r = resolution(s, "libcublas.so.13");
         r.path = std::string("/usr/local/cuda-13.1/lib64/libcublas.so.13");
         r.via = "LD_LIBRARY_PATH";
         r.canonical = "/usr/local/cuda-13.1/targets/x86_64-linux/lib/libcublas.so.13.2.0.9";
       },
       [](Snapshot& s) {
         resolution(s, "libcublas.so.13").canonical =
             "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13.1.0.3";
       }},
      {"cuda.home-missing",
       [](Snapshot& s) {  // CUDA_HOME left behind after the toolkit was removed (seen on a fresh Debian 12)
         Toolkit t;
         t.root = t.canonical_root = "/usr/local/cuda-12.4";
         t.found_by = {"CUDA_HOME"};
         t.version = Fact<std::string>::unknown("/usr/local/cuda-12.4 is not a folder (CUDA_HOME points at it)");
         s.toolkits[0].found_by = {"PATH nvcc"};
         s.toolkits.push_back(t);
       },
       [](Snapshot& s) {  // an install whose version could not be read is another matter
         s.toolkits[0].version = Fact<std::string>::unknown("no version.json, version.txt or cuda.h");
       }},
      {"cudnn.partial",
       [](Snapshot& s) {
         s.libraries.cudnn_sets[1].missing = {"cudnn_cnn"};
       },  // /usr/lib/x86_64-linux-gnu: the loader's
       [](Snapshot& s) {
         s.libraries.cudnn_sets[0].missing = {"cudnn_cnn"};
       }},  // the venv's copy: not what the loader picks
      {"cudnn.mixed-versions",
       [](Snapshot& s) {
         s.libraries.cudnn_sets[1].consistent = false;
         s.libraries.cudnn_sets[1].versions["cudnn_ops"] = "9.1.0";
       },
       [](Snapshot& s) { s.libraries.cudnn_sets[0].consistent = false; }},
      {"cudnn.header-only",
       [](Snapshot& s) {
         s.libraries.copies.push_back(copy("cudnn", "", "/usr/local/cuda-13.0/include/cudnn_version.h", "9.19.0",
                                           "toolkit", "/usr/local/cuda-13.0"));
       },
       [](Snapshot& s) {
         s.libraries.copies.push_back(copy("cudnn", "libcudnn.so.9", "/usr/local/cuda-13.0/lib64/libcudnn.so.9.19.0",
                                           "9.19.0", "toolkit", "/usr/local/cuda-13.0"));
       }},
      {"cudnn.dll-not-in-bin",
       [](Snapshot& s) {
         s.os.family = std::string("windows");
         s.os.wsl = std::string("none");
         s.libraries.copies.push_back(
             copy("cudnn", "cudnn64_8.dll",
                  "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\lib\\x64\\cudnn64_8.dll", "8.1.0",
                  "toolkit"));
       },
       [](Snapshot& s) {
         s.os.family = std::string("windows");
         s.os.wsl = std::string("none");
         s.libraries.copies.push_back(copy(
             "cudnn", "cudnn64_8.dll",
             "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin\\cudnn64_8.dll", "8.1.0", "toolkit"));
       }},
      {"cudnn.cuda-major",
       [](Snapshot& s) {
         auto& p = package(s, "nvidia-cudnn-cu13");
         p.name = "nvidia-cudnn-cu12";
         p.version = "9.10.2.21";
       },
       [](Snapshot& s) { add_package(s, "nvidia-cudnn-cu12", "9.10.2.21"); }},  // the cu13 wheel is still there
      {"cudnn.loader-picks-older", tensorflow_212_with_cudnn_824,
       [](Snapshot& s) {
         tensorflow_212_with_cudnn_824(s);
         resolution(s, "libcudnn.so.8").canonical = "/usr/local/cuda-11.8/lib64/libcudnn.so.8.9.7";
       }},
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
      {"library.path-only", windows_tensorflow_24_on_path("3.8.10"),
       windows_tensorflow_24_on_path("3.7.9")},  // Python 3.7 still searches PATH
      {"library.not-installed",
       [](Snapshot& s) {
         add_package(s, "tensorflow", "2.10.0");
         venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}};
       },
       [](Snapshot& s) {
         add_package(s, "tensorflow", "2.10.0");  // the pip CUDA 11 wheels bring them
         venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}};
         add_package(s, "nvidia-cuda-runtime-cu11", "11.8.89");
       }},
      {"library.dependency-missing",
       [](Snapshot& s) {
         copy_at(s, std::string(kVenvLib) + "libcusolver.so.12").needs = {
             dep("libnvJitLink.so.13", "libcusolver.so.12")};
       },
       [](Snapshot& s) {
         copy_at(s, std::string(kVenvLib) + "libcusolver.so.12").needs = {
             dep("libnvJitLink.so.13", "libcusolver.so.12", std::string(kVenvLib) + "libnvJitLink.so.13")};
       }},
      {"library.shadowed",
       [](Snapshot& s) {
         resolution(s, "libnccl.so.2").canonical = "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3";
         s.libraries.copies.push_back(copy("nccl", "libnccl.so.2", "/usr/local/cuda-13.0/lib64/libnccl.so.2.29.2",
                                           "2.29.2", "toolkit", "/usr/local/cuda-13.0"));
       },
       [](Snapshot& s) {
         resolution(s, "libnccl.so.2").canonical = "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3";
       }},  // newer only in the venv (pip)
      {"cudnn.older-than-built",
       [](Snapshot& s) {
         add_package(s, "tensorflow", "2.18.0");
         venv(s).packages.back().details = {{"cuda_version", "12.5.1"}, {"cudnn_version", "9.3"}};
         add_package(s, "nvidia-cudnn-cu12", "9.1.0.70");
       },
       [](Snapshot& s) {
         add_package(s, "tensorflow", "2.18.0");
         venv(s).packages.back().details = {{"cuda_version", "12.5.1"}, {"cudnn_version", "9.3"}};
         add_package(s, "nvidia-cudnn-cu12", "9.3.0.75");
       }},
      {"torch.cpu-only",
       [](Snapshot& s) {
         auto& t = package(s, "torch");
         t.version = "2.11.0+cpu";
         t.details = {{"cuda", "none"}, {"variant", "cpu"}};
       },
       [](Snapshot& s) {
         auto& t = package(s, "torch");
         t.version = "2.11.0+cu128";
         t.details = {{"cuda", "12.8"}, {"variant", "cu128"}};
       }},
      {"tensorflow.both-packages",
       [](Snapshot& s) {
         add_package(s, "tensorflow", "2.20.0");
         add_package(s, "tensorflow-gpu", "2.10.0");
       },
       [](Snapshot& s) { add_package(s, "tensorflow", "2.20.0"); }},
      {"tensorflow.windows-no-gpu",
       [](Snapshot& s) {
         s.os.family = std::string("windows");
         s.os.wsl = std::string("none");
         add_package(s, "tensorflow", "2.15.0");
       },
       [](Snapshot& s) {
         s.os.wsl = std::string("wsl2");
         add_package(s, "tensorflow", "2.15.0");
       }},
      {"framework.python-unsupported",
       [](Snapshot& s) { venv(s).version = std::string("3.9.18"); },  // torch 2.11: 3.10-3.14
       [](Snapshot& s) { venv(s).version = std::string("3.14.0"); }},
      {"framework.newer-than-tables",
       [](Snapshot& s) { package(s, "torch").version = "9.0.0+cu130"; },  // past freshness.csv's newest PyTorch
       [](Snapshot& s) { package(s, "torch").version = "2.14.1+cu130"; }},
      {"framework.no-kernels",
       [](Snapshot& s) { s.nvidia.gpus[0].compute_capability = std::string("6.1"); },   // cu130: sm_75+
       [](Snapshot& s) { s.nvidia.gpus[0].compute_capability = std::string("8.9"); }},  // sm_86 cubin runs on 8.9
      {"cuda.newer-than-tables",
       [](Snapshot& s) { s.toolkits.front().version = std::string("13.9.20"); },  // past cuda_driver.csv's newest
       [](Snapshot& s) { s.toolkits.front().version = std::string("13.0.88"); }},
      {"framework.cudnn-no-kernels",
       // A GTX 1080: torch cu130 has no sm_61 (framework.no-kernels says so); jax 0.11.2's list is not in the
       // tables, but its nvidia-cudnn-cu13 9.19 starts at cc 7.5.
       [](Snapshot& s) { s.nvidia.gpus[0].compute_capability = std::string("6.1"); },
       [](Snapshot& s) { s.nvidia.gpus[0].compute_capability = std::string("7.5"); }},
      {"cpu.no-avx",
       [](Snapshot& s) {
         auto isa = s.cpu.isa.value();
         isa["avx"] = false;
         s.cpu.isa = isa;
         add_package(s, "tensorflow", "2.20.0");
       },
       [](Snapshot& s) {
         auto isa = s.cpu.isa.value();
         isa["avx"] = false;
         s.cpu.isa = isa;
       }},  // no TensorFlow
      {"tensorflow.numpy-too-new",
       [](Snapshot& s) { add_package(s, "tensorflow", "2.15.0"); },  // numpy 2.5.2 is installed
       [](Snapshot& s) { add_package(s, "tensorflow", "2.18.0"); }},
      {"framework.dependency-broken",
       [](Snapshot& s) { venv(s).requirements.push_back({"jax", "0.11.2", "jaxlib", "<=0.11.2,>=0.11.2", "", "0.11.1"}); },
       [](Snapshot& s) { venv(s).requirements.push_back({"jax", "0.11.2", "jaxlib", "<=0.11.2,>=0.11.2", "", "0.11.2"}); }},
      {"python.dependency-broken",
       [](Snapshot& s) { venv(s).requirements.push_back({"sympy", "1.14.0", "mpmath", "<1.4,>=1.1.0", "", ""}); },
       [](Snapshot& s) { venv(s).requirements.push_back({"sympy", "1.14.0", "mpmath", "<1.4,>=1.1.0", "", "1.3.0"}); }},
      {"framework.binary-break", [](Snapshot& s) { package(s, "torch").version = "2.2.2+cu121"; },  // numpy 2.5.2
       [](Snapshot& s) { package(s, "torch").version = "2.3.0+cu121"; }},
      {"health.pcie-width", [](Snapshot& s) { s.nvidia.gpus[0].pcie_width_current = 8; },
       [](Snapshot& s) { s.nvidia.gpus[0].pcie_gen_current = 1; }},  // generation drops at idle: not a finding
      {"health.pcie-gen",
       [](Snapshot& s) {
         s.nvidia.gpus[0].pcie_gen_gpu_max = 5;
         s.nvidia.gpus[0].pcie_gen_max = 4;
       },
       [](Snapshot& s) {
         s.nvidia.gpus[0].pcie_gen_gpu_max = 5;
         s.nvidia.gpus[0].pcie_gen_current = 1;
         s.nvidia.gpus[0].utilization_percent = 0;
       }},
      {"health.throttling",
       [](Snapshot& s) { s.nvidia.gpus[0].clocks_event_reasons = std::vector<std::string>{"hw_thermal_slowdown"}; },
       [](Snapshot& s) {
         s.nvidia.gpus[0].clocks_event_reasons = std::vector<std::string>{"gpu_idle", "sw_power_cap"};
       }},
      {"health.memory-in-use", [](Snapshot& s) { s.nvidia.gpus[0].memory_used_bytes = std::uint64_t{100} << 30; },
       [](Snapshot& s) { s.nvidia.gpus[0].memory_used_bytes = std::uint64_t{40} << 30; }},
      {"health.persistence-off", [](Snapshot& s) { s.nvidia.gpus[0].persistence_mode = false; },
       [](Snapshot& s) {
         s.nvidia.gpus[0].persistence_mode = false;
         s.nvidia.gpus[0].name = std::string("NVIDIA GeForce RTX 4090");
       }},
      {"health.ecc-uncorrected", [](Snapshot& s) { s.nvidia.gpus[0].ecc_uncorrected_volatile = std::uint64_t{2}; },
       [](Snapshot& s) {
         s.nvidia.gpus[0].ecc_uncorrected_volatile = std::uint64_t{0};
         s.nvidia.gpus[0].ecc_uncorrected_aggregate = std::uint64_t{5};
       }},
      {"health.reset-pending",
       [](Snapshot& s) {
         s.nvidia.gpus[0].row_remap_pending = true;
         s.nvidia.gpus[0].remapped_rows_uncorrectable = 1;
       },
       [](Snapshot& s) {
         s.nvidia.gpus[0].row_remap_pending = false;
         s.nvidia.gpus[0].remapped_rows_correctable = 1;
       }},
      {"health.memory-needs-service", [](Snapshot& s) { s.nvidia.gpus[0].row_remap_failed = true; },
       [](Snapshot& s) {
         s.nvidia.gpus[0].retired_pages_sbe = 10;
         s.nvidia.gpus[0].retired_pages_dbe = 2;
       }},
      {"measured.data-corrupt",
       [](Snapshot& s) { s.measurements = {measured("copy.d2h_pinned", "fail", 55.2, 0.88, false)}; },
       [](Snapshot& s) { s.measurements = {measured("copy.d2h_pinned", "pass", 55.2, 0.88)}; }},
      {"measured.copy-slow",
       [](Snapshot& s) {
         s.measurements = {measured("copy.h2d_pinned", "warn", 27.0, 0.43)};
         s.nvidia.gpus[0].pcie_width_current = 8;
       },
       [](Snapshot& s) {
         s.measurements = {measured("copy.h2d_pageable", "pass", 8.9, 0.14)};
       }},  // pageable: not judged
      {"measured.gemm-slow", [](Snapshot& s) { s.measurements = {measured("gemm.bf16", "warn", 450, 0.45)}; },
       [](Snapshot& s) {
         s.measurements = {measured("gemm.bf16", "fail", 450, 0.45, false)};  // wrong data: data-corrupt says it
       }},
      {"measured.throttled",
       [](Snapshot& s) {
         s.measurements = {measured("gemm.tf32", "warn", 410, 0.83)};
         s.measurements[0].clock_events = {"sw_thermal_slowdown"};
       },
       [](Snapshot& s) {
         s.measurements = {measured("gemm.tf32", "pass", 410, 0.83)};
         s.measurements[0].clock_events = {"sw_power_cap"};  // the power cap alone is not a slowdown
       }},
      {"driver.hung",
       [](Snapshot& s) {
         s.nvidia.steps.insert(s.nvidia.steps.begin(),
                               DriverStep{"isolated driver probe (gpuready __probe-driver)", false, "timeout",
                                          "the driver did not answer within 10 s: a hung driver or GPU; check dmesg for "
                                          "Xid errors (it was in nvmlInit_v2)",
                                          10000});
       },
       [](Snapshot& s) {  // a crash is not a hang
         s.nvidia.steps.insert(s.nvidia.steps.begin(),
                               DriverStep{"isolated driver probe (gpuready __probe-driver)", false, "crashed",
                                          "the driver probe was killed by SIGSEGV", 10});
       }},
      {"security.search-path-cwd",
       [](Snapshot& s) {
         s.security.search_paths["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64:";
         s.security.unsafe_entries = {{"LD_LIBRARY_PATH", 1, "", "empty"}};
       },
       [](Snapshot& s) {  // the same variable written without the empty entry
         s.security.search_paths["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64";
       }},
      {"security.writable-library",
       [](Snapshot& s) {
         s.security.writable = {{"/usr/local/cuda-13.0/lib64/libcudart.so.13",
                                 "its folder /usr/local/cuda-13.0/lib64 is world-writable (mode 0777)"}};
       },
       [](Snapshot& s) {  // a relative entry is the other rule's, not this one's
         s.security.unsafe_entries = {{"PATH", 0, ".", "relative"}};
       }},
      {"security.container-toolkit",
       [](Snapshot& s) {
         s.security.container_toolkit_version = std::string("1.17.7");
         s.security.container_toolkit_source = "dpkg: nvidia-container-toolkit 1.17.7-1";
       },
       [](Snapshot& s) {
         s.security.container_toolkit_version = std::string("1.17.8");
         s.security.container_toolkit_source = "dpkg: nvidia-container-toolkit 1.17.8-1";
       }},
      {"measured.power-capped",
       [](Snapshot& s) {
         s.measurements = {measured("gemm.bf16", "pass", 783, 0.79)};
         s.measurements[0].clock_events = {"sw_power_cap"};
       },
       [](Snapshot& s) { s.measurements = {measured("gemm.bf16", "pass", 783, 0.79)}; }},
      {"framework.import-failed",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "import-failed";
           k.stage = "import";
           k.version = Fact<std::string>::unknown("the import did not get that far");
           k.error = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory";
           k.output = "Traceback (most recent call last):\nFile \"<stdin>\", line 167, in check_pytorch\n" + k.error;
           k.devices.clear();
           k.ops.clear();
         });
       },
       deep_ready},
      {"framework.crashed",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "crashed";
           k.stage = "gpu-op conv2d";
           k.error = "the interpreter was killed by SIGSEGV, a segmentation fault while running conv2d on the GPU";
           k.output =
               "Fatal Python error: Segmentation fault\nCurrent thread 0x00007f (most recent call first):\n"
               "File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py\", line 1 in conv2d";
         });
       },
       deep_ready},
      {"framework.check-timeout",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "timeout";
           k.stage = "devices";
           k.error = "did not finish within 60 s: stopped while listing its GPUs";
         });
       },
       deep_ready},
      {"framework.sees-no-gpu",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "no-gpu";
           k.stage = "done";
           k.gpu_error =
               "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
               "and installed a driver from http://www.nvidia.com/Download/index.aspx";
           k.output = k.gpu_error;
           k.devices.clear();
           k.ops.clear();
         });
       },
       [](Snapshot& s) {  // a CPU-only wheel on this GPU machine: torch.cpu-only says it, once
         auto& t = package(s, "torch");
         t.version = "2.11.0+cpu";
         t.details = {{"cuda", "none"}, {"variant", "cpu"}};
         deep(s, [](FrameworkCheck& k) {
           k.status = "no-gpu";
           k.built_cuda = Fact<std::string>::unknown("a CPU-only build (torch.version.cuda is None)");
           k.devices.clear();
           k.ops.clear();
         });
       }},
      {"framework.gpu-op-failed",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "op-failed";
           k.stage = "gpu-op matmul";
           k.ops[0].error = "RuntimeError: CUDA error: no kernel image is available for execution on the device";
           k.ops[0].max_error = Fact<double>::unknown("it failed");
           k.output = k.ops[0].error;
         });
       },
       deep_ready},
      {"framework.gpu-wrong-result",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "wrong-result";
           k.ops[1].max_error = 0.031;
         });
       },
       [](Snapshot& s) { deep(s, [](FrameworkCheck& k) { k.ops[1].max_error = 3e-7; }); }},  // rounding
      {"framework.library-mix",
       [](Snapshot& s) {  // the cuDNN dispatcher from the wheel, an engine from another install
         deep(s, [](FrameworkCheck& k) {
           k.libraries.push_back({"/opt/conda/lib/libcudnn_engines_precompiled.so.9.14.0", "cudnn_engines_precompiled",
                                  std::string("9.14.0"), "file name"});
         });
       },
       deep_ready},
      {"framework.printed-problem",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.output =
               "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.2.3 as it may crash. To "
               "support both 1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0.";
         });
       },
       [](Snapshot& s) {  // a harmless line only
         deep(s, [](FrameworkCheck& k) {
           k.output =
               "I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to use "
               "available CPU instructions in performance-critical operations.";
         });
       }},
      {"framework.check-not-run",
       [](Snapshot& s) {
         deep(s, [](FrameworkCheck& k) {
           k.status = "error";
           k.error = "could not run /opt/torch/.venv/bin/python3: No such file or directory";
           k.devices.clear();
           k.ops.clear();
         });
       },
       deep_ready},
  };
  return all;
}

}  // namespace

TEST(Doctor, ADeepCheckThatPassesKeepsTheMachineReadyAndSaysWhatItSaw) {
  Snapshot s = h200();
  deep_ready(s);
  const Report r = run(s);
  EXPECT_TRUE(r.findings.empty()) << codes(r);
  EXPECT_TRUE(r.ready);
  const auto torch =
      std::find_if(r.frameworks.begin(), r.frameworks.end(), [](const auto& v) { return v.name == "pytorch"; });
  ASSERT_NE(torch, r.frameworks.end());
  EXPECT_EQ(torch->check_status, "ready");
  EXPECT_NE(torch->check_summary.find("sees 1 GPU: NVIDIA H200 (sm 9.0)"), std::string::npos) << torch->check_summary;
  EXPECT_NE(torch->check_summary.find("cudnn 9.13.0"), std::string::npos) << torch->check_summary;
  // JAX was not imported: no check to report.
  const auto jax =
      std::find_if(r.frameworks.begin(), r.frameworks.end(), [](const auto& v) { return v.name == "jax"; });
  ASSERT_NE(jax, r.frameworks.end());
  EXPECT_TRUE(jax->check_status.empty());
  const auto report = report_to_json(r);  // kept: a range-for over a temporary's member dangles
  for (const auto& v : report["frameworks"]) {
    if (v["name"] == "pytorch")
      EXPECT_EQ(v["check"]["status"], "ready");
    else
      EXPECT_TRUE(v["check"].is_null()) << v.dump();
  }
}

TEST(Doctor, ADeepFailureBlocksOnlyThatFrameworkInThatEnvironmentAndExplainsItsWords) {
  Snapshot s = h200();
  deep(s, [](FrameworkCheck& k) {
    k.status = "op-failed";
    k.stage = "gpu-op matmul";
    k.ops[0].error = "RuntimeError: CUDA error: no kernel image is available for execution on the device";
    k.output = "Traceback (most recent call last):\n" + k.ops[0].error;
  });
  const Report r = run(s);
  EXPECT_FALSE(r.ready);
  for (const auto& v : r.frameworks) {
    if (v.name == "pytorch")
      EXPECT_EQ(v.blocking, std::vector<std::string>{"framework.gpu-op-failed"});
    else
      EXPECT_TRUE(v.ready) << v.name;
  }
  const auto found = with_code(r, "framework.gpu-op-failed");
  ASSERT_EQ(found.size(), 1u);
  std::string evidence;
  for (const auto& e : found[0]->evidence) evidence += e + "\n";
  EXPECT_NE(evidence.find("known failure torch.no-kernel-image"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("GPU 0: NVIDIA H200 (compute capability 9.0)"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("sm_90"), std::string::npos) << evidence;
}

TEST(Doctor, AHungDriverIsTheTopFindingEvenWithOthers) {
  Snapshot s = h200();
  s.security.search_paths["PATH"] = ".:/usr/bin";
  s.security.unsafe_entries = {{"PATH", 0, ".", "relative"}};
  s.pci_gpus[0].kernel_driver = std::string("nouveau");
  s.nvidia.steps.insert(s.nvidia.steps.begin(), DriverStep{"isolated driver probe (gpuready __probe-driver)", false,
                                                           "timeout", "the driver did not answer within 10 s", 10000});
  const Report r = run(s);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].code, "driver.hung") << codes(r);
  EXPECT_EQ(with_code(r, "security.search-path-cwd").size(), 1u) << codes(r);
}

TEST(Doctor, ASearchPathFindingGivesTheLineToFixIt) {
  Snapshot s = h200();
  s.security.search_paths["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64::.";
  s.security.unsafe_entries = {{"LD_LIBRARY_PATH", 1, "", "empty"}, {"LD_LIBRARY_PATH", 2, ".", "relative"}};
  const Report r = run(s);
  const auto f = with_code(r, "security.search-path-cwd");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->title.find("libcuda.so.1"), std::string::npos) << f[0]->title;
  ASSERT_FALSE(f[0]->fix.empty());
  EXPECT_EQ(f[0]->fix[0], "export LD_LIBRARY_PATH=/usr/local/cuda/lib64");
  EXPECT_NE(f[0]->fix[1].find("${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"), std::string::npos) << f[0]->fix[1];
}

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

TEST(Doctor, TheDeepRulesAreTheRulesThatSayDeep) {
  int deep = 0;
  for (const auto& r : all_rules()) {
    const bool says = std::string(r.checks).rfind("--deep:", 0) == 0;
    EXPECT_EQ(is_deep_rule(r.code), says) << r.code;
    deep += says;
  }
  EXPECT_EQ(deep, 9);
  EXPECT_FALSE(is_deep_rule("framework.no-kernels"));
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

TEST(Doctor, TheReinstallFixRunsTheEnvironmentsInterpreterQuotedForTheShell) {
  Snapshot s = h200();
  auto& t = package(s, "torch");
  t.version = "2.11.0+cpu";
  t.details = {{"cuda", "none"}, {"variant", "cpu"}};
  s.python[0].interpreter = "/home/a user/my env/bin/python3";
  const Report r = run(s);
  const auto f = with_code(r, "torch.cpu-only");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(std::any_of(f[0]->fix.begin(), f[0]->fix.end(), [](const std::string& l) {
    return l.rfind("'/home/a user/my env/bin/python3' -m pip install torch==", 0) == 0;
  })) << testing::PrintToString(f[0]->fix);
  // Every line that runs the interpreter (the uninstall before the install too) quotes it.
  for (const auto& l : f[0]->fix)
    if (l.find("my env") != std::string::npos)
      EXPECT_NE(l.find("'/home/a user/my env/bin/python3'"), std::string::npos) << l;
}

// JAX's CUDA plugins carry precompiled kernels only for their .bazelrc list (jax.csv sm_list): a
// Thor (sm_110) has none in the CUDA 12 plugin of 0.10.1, and has them in the CUDA 13 plugin of 0.10.2.
TEST(Doctor, JaxWithoutKernelsForTheGpuIsFoundFromItsPluginsArchitectureList) {
  auto with_jax = [](const std::string& version, const std::string& cuda_major) {
    Snapshot s = h200();
    auto& pk = venv(s).packages;
    pk.erase(std::remove_if(pk.begin(), pk.end(), [](const PythonPackage& p) { return p.name == "torch"; }), pk.end());
    for (auto& p : pk)
      if (p.name.rfind("jax", 0) == 0) {
        p.version = version;
        if (p.details.count("cuda_major")) p.details["cuda_major"] = cuda_major;
      }
    s.nvidia.gpus[0].compute_capability = std::string("11.0");
    return s;
  };
  const Report fires = run(with_jax("0.10.1", "12"));
  const auto f = with_code(fires, "framework.no-kernels");
  ASSERT_EQ(f.size(), 1u) << codes(fires);
  EXPECT_EQ(f[0]->frameworks, std::vector<std::string>{"jax"});
  EXPECT_EQ(f[0]->evidence.front(), "jax 0.10.1's CUDA 12 wheels ship sm_50 sm_60 sm_70 sm_80 sm_90 sm_100 sm_120 + PTX");
  EXPECT_TRUE(with_code(run(with_jax("0.10.2", "13")), "framework.no-kernels").empty());  // sm_110 in the list
  EXPECT_TRUE(with_code(run(with_jax("0.11.2", "12")), "framework.no-kernels").empty());  // list not read: no claim
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
  // ... and the first thing to do is what the plan says.
  const auto f = with_code(r, "framework.not-installed");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->frameworks, std::vector<std::string>{"tensorflow"});
  EXPECT_EQ(f[0]->fix[0].rfind("gpuready plan --framework tensorflow ", 0), 0u) << f[0]->fix[0];
  EXPECT_EQ(f[0]->evidence[0], "searched /opt/torch/.venv/bin/python3 (Python 3.12.3)");
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

// Windows: NVIDIA's driver holds the GPU but nvml.dll does not load (here a damaged copy, error 193):
// not ready, and not "no driver installed" either.
TEST(Doctor, AWindowsDriverWhoseNvmlDoesNotLoadIsABrokenInstall) {
  Snapshot s = h200();
  s.os.family = std::string("windows");
  s.os.wsl = std::string("none");
  s.pci_gpus[0].kernel_driver = std::string("nvlddmkm");
  s.nvidia.steps = {
      {"load nvml.dll", false, "library_not_found", "nvml.dll: Bad EXE format for nvml.dll. (error 193)", 1}};
  s.nvidia.gpus.clear();
  s.nvidia.driver_version = Fact<std::string>::unknown("no NVIDIA driver library (nvml.dll not found)");
  const Report r = run(s);
  const auto f = with_code(r, "driver.not-installed");
  ASSERT_EQ(f.size(), 1u) << codes(r);
  EXPECT_NE(f[0]->title.find("nvlddmkm"), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->title.find("cannot be loaded"), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->evidence.front().find("error 193"), std::string::npos);
  EXPECT_NE(f[0]->fix.front().find("clean installation"), std::string::npos);
  EXPECT_FALSE(r.ready) << "a driver NVML cannot reach is no GPU to train on";
  // The summary line names the GPU the bus shows, not "no NVIDIA GPU".
  const std::string console = render_doctor_console(r, s);
  EXPECT_NE(console.find("NVIDIA GPU 10de:2335 on the PCI bus"), std::string::npos) << console.substr(0, 200);
  // The same machine with nvml.dll loading: this rule is silent.
  s.nvidia.steps[0].ok = true;
  EXPECT_TRUE(with_code(run(s), "driver.not-installed").empty());
}

TEST(Doctor, ADependencyOfADependencyIsFollowedAndNamedWithItsChain) {
  // libcusolver.so.12 finds libcublas.so.12 through its RUNPATH, and libcublas cannot find
  // libcublasLt: loading cuSOLVER fails on a library two steps away.
  Snapshot s = h200();
  const std::string lib = kVenvLib;
  copy_at(s, lib + "libcusolver.so.12").needs = {dep("libcublas.so.13", "libcusolver.so.12", lib + "libcublas.so.13")};
  copy_at(s, lib + "libcublas.so.13").needs = {dep("libcublasLt.so.13", "libcublas.so.13")};
  const Report r = run(s);
  const auto f = with_code(r, "library.dependency-missing");
  ASSERT_EQ(f.size(), 1u) << codes(r);  // one finding for the one missing library, not one per copy
  EXPECT_NE(std::find(f[0]->evidence.begin(), f[0]->evidence.end(),
                      "needs: libcusolver.so.12 -> libcublas.so.13 -> libcublasLt.so.13"),
            f[0]->evidence.end())
      << f[0]->evidence.front();
  // The venv's frameworks are the ones it stops, and a copy elsewhere on disk is the fix.
  EXPECT_EQ(f[0]->python, "/opt/torch/.venv/bin/python3");
  EXPECT_EQ(f[0]->frameworks, (std::vector<std::string>{"jax", "pytorch"}));
  EXPECT_NE(f[0]->fix[0].find("/usr/local/cuda-13.0/targets/x86_64-linux/lib"), std::string::npos) << f[0]->fix[0];
  EXPECT_FALSE(r.ready);
}

TEST(Doctor, ACudnnSetMissingZlibIsAFindingWithTheInstallLine) {
  Snapshot s = h200();
  s.libraries.cudnn_sets[1].needs = {dep("libz.so.1", "libcudnn_graph.so.9")};  // the loader's cuDNN
  const Report rep = run(s);
  const auto f = with_code(rep, "library.dependency-missing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->frameworks, std::vector<std::string>{"tensorflow"});
  EXPECT_NE(f[0]->fix[0].find("apt-get install zlib1g"), std::string::npos) << f[0]->fix[0];
}

TEST(Doctor, ASystemCudnnBuiltForAnotherCudaMajorIsNamedByTheCublasItNeeds) {
  Snapshot s = h200();
  add_package(s, "tensorflow", "2.10.0");
  venv(s).packages.back().details = {{"cuda_version", "11.2"}, {"cudnn_version", "8"}};
  s.libraries.cudnn_sets[1].needs = {dep("libcublas.so.12", "libcudnn_ops_infer.so.8", "/usr/lib/x86_64-linux-gnu/libcublas.so.12")};
  const Report rep = run(s);
  const auto f = with_code(rep, "cudnn.cuda-major");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->title.find("built for CUDA 12"), std::string::npos) << f[0]->title;
  EXPECT_EQ(f[0]->evidence, std::vector<std::string>{"libcudnn_ops_infer.so.8 needs libcublas.so.12"});
  s.libraries.cudnn_sets[1].needs = {dep("libcublas.so.11", "libcudnn_ops_infer.so.8", "/usr/lib/x86_64-linux-gnu/libcublas.so.11")};
  EXPECT_TRUE(with_code(run(s), "cudnn.cuda-major").empty());
}

TEST(Doctor, APcieLinkLowWhileBusyIsAFindingButNotAtIdle) {
  Snapshot s = h200();
  auto& g = s.nvidia.gpus[0];
  g.pcie_gen_current = 3;
  g.utilization_percent = 90;
  const Report rep = run(s);
  auto f = with_code(rep, "health.pcie-gen");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->title.find("busy (90%) but its PCIe link runs at Gen3 of Gen5"), std::string::npos) << f[0]->title;
  g.utilization_percent = 0;
  EXPECT_TRUE(with_code(run(s), "health.pcie-gen").empty());
}

TEST(Doctor, AMissingModuleForTheRunningKernelReplacesTheGenericModuleFinding) {
  Snapshot s = h200();
  module_not_loaded(s);
  s.os.kernel = std::string("6.1.0-18-amd64");
  s.nvidia.kernel_module_file = Fact<std::string>::unknown("no nvidia module for kernel 6.1.0-18-amd64");
  s.nvidia.kernel_module_kernels = {"6.1.0-17-amd64"};
  const Report r = run(s);
  EXPECT_TRUE(with_code(r, "driver.module-not-loaded").empty()) << codes(r);
  const auto f = with_code(r, "driver.module-not-built");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->fix[0], "sudo apt-get install linux-headers-6.1.0-18-amd64   # the headers DKMS builds against");
  EXPECT_EQ(f[0]->fix[1], "sudo dkms autoinstall -k 6.1.0-18-amd64");
}

TEST(Doctor, ACopyKnownOnlyByItsMajorIsNotCalledOlderOrAnotherCuda) {
  // Seen on the H200: a lone copy of the toolkit's own libcusolver.so.12 on LD_LIBRARY_PATH has
  // no version but its soname's "12"; it may be the very same release, so no finding.
  Snapshot s = h200();
  s.libraries.copies.push_back(
      copy("cusolver", "libcusolver.so.12", "/tmp/lonely/libcusolver.so.12", "12", "LD_LIBRARY_PATH"));
  auto& r = resolution(s, "libcusolver.so.12");
  r.path = std::string("/tmp/lonely/libcusolver.so.12");
  r.via = "LD_LIBRARY_PATH";
  r.canonical = "/tmp/lonely/libcusolver.so.12";
  const Report rep = run(s);
  EXPECT_TRUE(with_code(rep, "library.shadowed").empty()) << codes(rep);
  EXPECT_TRUE(with_code(rep, "cuda.loader-toolkit-mismatch").empty()) << codes(rep);
  // With its full version known to be older, both speak.
  s.libraries.copies.back().version = std::string("11.7.5.82");
  const Report older = run(s);
  EXPECT_EQ(with_code(older, "library.shadowed").size(), 1u) << codes(older);
  EXPECT_EQ(with_code(older, "cuda.loader-toolkit-mismatch").size(), 1u) << codes(older);
}

TEST(Doctor, ASlowCopyNamesTheNarrowSlotAsTheLikelyCause) {
  Snapshot s = h200();
  s.measurements = {measured("copy.h2d_pinned", "warn", 27.0, 0.43)};
  s.nvidia.gpus[0].pcie_width_current = 8;
  const Report rep = run(s);
  const auto f = with_code(rep, "measured.copy-slow");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->title, "Copies between host and GPU reach 27.0 GB/s, 43% of what the PCIe link carries");
  EXPECT_EQ(f[0]->evidence.back(), "likely cause: GPU 0 is in an x8 slot (it can use x16)");
  // A plain probe's snapshot has no measurements, and its JSON has no such key.
  EXPECT_FALSE(snapshot_to_json(h200()).contains("measurements"));
  EXPECT_EQ(snapshot_from_json(snapshot_to_json(s)).measurements.size(), 1u);
}

TEST(Doctor, AMissingCudaHomeIsOneFindingNotAlsoADisagreement) {
  Snapshot s = h200();
  Toolkit t;
  t.root = t.canonical_root = "/usr/local/cuda-12.4";
  t.found_by = {"CUDA_HOME"};
  t.version = Fact<std::string>::unknown("/usr/local/cuda-12.4 is not a folder (CUDA_HOME points at it)");
  s.toolkits[0].found_by = {"PATH nvcc"};
  s.toolkits.push_back(t);
  const Report rep = run(s);
  EXPECT_TRUE(with_code(rep, "cuda.toolkits-disagree").empty()) << codes(rep);
  const auto f = with_code(rep, "cuda.home-missing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->fix[0], "export CUDA_HOME=/usr/local/cuda-13.0   # the toolkit that is installed (and in ~/.bashrc)");
  EXPECT_EQ(rep.cuda.toolkits.back(), "none at /usr/local/cuda-12.4 (named by CUDA_HOME)");
}

// ---- what the frameworks declare they need, against what is installed (issue 19, item 4) ----

namespace {
void add_requirement(Snapshot& s, const std::string& by, const std::string& by_version, const std::string& name,
                     const std::string& spec, const std::string& installed, const std::string& extra = "") {
  venv(s).requirements.push_back({by, by_version, name, spec, extra, installed});
}
}  // namespace

TEST(DoctorDependencies, TensorFlow24WithNumpy126IsNotReadyAndGetsThePipLine) {
  // The case: TF 2.4 declares numpy ~= 1.19.2 and fails to import with 1.26.
  Snapshot s = h200();
  add_package(s, "tensorflow", "2.4.0");
  package(s, "numpy").version = "1.26.4";
  add_requirement(s, "tensorflow", "2.4.0", "numpy", "~=1.19.2", "1.26.4");
  add_requirement(s, "tensorflow", "2.4.0", "wheel", "~=0.35", "0.48.0");  // unmet too, reported apart
  add_requirement(s, "jax", "0.11.2", "numpy", ">=2.0", "1.26.4");          // both unmet: one finding, both named
  const Report r = run(s);
  const auto f = with_code(r, "framework.dependency-broken");
  const Finding* np = nullptr;
  for (const auto* x : f)
    if (x->title.find("numpy 1.26.4 is installed") == 0) np = x;
  ASSERT_NE(np, nullptr) << codes(r);
  EXPECT_NE(np->title.find("tensorflow 2.4.0 needs numpy~=1.19.2"), std::string::npos) << np->title;
  EXPECT_EQ(np->evidence.size(), 3u);  // both requirers, then where it was read
  // One pip line with the range every requirer states (here no version can satisfy both: pip says so).
  EXPECT_EQ(np->fix.front(), "/opt/torch/.venv/bin/python3 -m pip install \"numpy~=1.19.2,>=2.0\"");
  EXPECT_EQ(np->frameworks, (std::vector<std::string>{"jax", "tensorflow"}));
  for (const auto& v : r.frameworks)
    if (v.name == "tensorflow") EXPECT_FALSE(v.ready);
}

TEST(DoctorDependencies, MissingAndDeeperRequirementsAndWhatIsMet) {
  Snapshot s = h200();
  add_requirement(s, "jax", "0.11.2", "jaxlib", "<=0.11.2,>=0.11.2", "");    // missing
  add_requirement(s, "sympy", "1.14.0", "mpmath", "<1.4,>=1.1.0", "1.4.0");  // deeper in the closure
  add_requirement(s, "torch", "2.11.0", "filelock", "", "3.29.0");           // met
  add_requirement(s, "torch", "2.11.0", "typing-extensions", ">=4.10.0", "4.16.0");
  const Report r = run(s);
  const auto missing = with_code(r, "framework.dependency-broken");
  ASSERT_EQ(missing.size(), 1u) << codes(r);
  EXPECT_EQ(missing[0]->title, "jax 0.11.2 needs jaxlib<=0.11.2,>=0.11.2, which is not installed in this environment");
  EXPECT_EQ(missing[0]->fix.front(), "/opt/torch/.venv/bin/python3 -m pip install \"jaxlib<=0.11.2,>=0.11.2\"");
  const auto deeper = with_code(r, "python.dependency-broken");
  ASSERT_EQ(deeper.size(), 1u) << codes(r);
  EXPECT_TRUE(deeper[0]->frameworks.empty());
  EXPECT_EQ(deeper[0]->fix.front(), "/opt/torch/.venv/bin/python3 -m pip install \"mpmath<1.4,>=1.1.0\"");
  for (const auto& v : r.frameworks)
    if (v.name == "pytorch") EXPECT_TRUE(v.ready) << "a warning deeper in the closure blocks nothing";
}

TEST(DoctorDependencies, KnownBreaksTheRequirementsDoNotPrevent) {
  {
    Snapshot s = h200();  // torch < 2.3 declares no numpy at all
    package(s, "torch").version = "2.1.0+cu121";
    package(s, "numpy").version = "2.0.1";
    const Report r = run(s);
    const auto f = with_code(r, "framework.binary-break");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0]->fix.front(), "/opt/torch/.venv/bin/python3 -m pip install \"numpy<2\"");
    EXPECT_EQ(f[0]->frameworks, std::vector<std::string>{"pytorch"});
  }
  {
    Snapshot s = h200();  // 2.3.1 broke with NumPy 2 only on Windows
    package(s, "torch").version = "2.3.1+cu121";
    package(s, "numpy").version = "2.0.1";
    const Report r = run(s);
    EXPECT_TRUE(with_code(r, "framework.binary-break").empty()) << codes(r);
  }
  {
    Snapshot s = h200();  // TF 2.9.0 declared protobuf >= 3.9.2 only; protobuf 4.21 breaks its import
    add_package(s, "tensorflow", "2.9.0");
    add_requirement(s, "tensorflow", "2.9.0", "protobuf", ">=3.9.2", "4.21.12");
    const Report r = run(s);
    const auto f = with_code(r, "framework.binary-break");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0]->evidence[1].find("Descriptors cannot not be created directly"), std::string::npos);
  }
  {
    Snapshot s = h200();  // declared against it: the dependency finding says it, once
    add_package(s, "tensorflow", "2.6.4");
    add_requirement(s, "tensorflow", "2.6.4", "protobuf", ">=3.9.2,<3.20", "4.21.12");
    const Report r = run(s);
    EXPECT_TRUE(with_code(r, "framework.binary-break").empty()) << codes(r);
    EXPECT_EQ(with_code(r, "framework.dependency-broken").size(), 1u) << codes(r);
  }
}

// The audit's worst case: a Tesla K80 (cc 3.7, last driver R470) with torch 2.7.1+cu118, whose bundled
// cuDNN 9.1 has no Kepler kernels although the wheel's CUDA 11.8 builds sm_37. Not ready; the fix is the
// plan's older build, never a driver upgrade the K80 cannot take.
Snapshot kepler_k80(const std::string& torch_version, const std::string& variant, const std::string& cuda) {
  Snapshot s = h200();
  s.nvidia.gpus[0].compute_capability = std::string("3.7");
  s.nvidia.gpus[0].name = std::string("Tesla K80");
  s.nvidia.driver_version = std::string("470.82.01");
  s.nvidia.cuda_driver_version = std::string("11.4");
  auto& t = package(s, "torch");
  t.version = torch_version + "+" + variant;
  t.details = {{"cuda", cuda}, {"variant", variant}, {"metadata_version", torch_version}};
  return s;
}

std::vector<const Finding*> for_framework(const Report& r, const std::string& code, const std::string& framework) {
  std::vector<const Finding*> out;
  for (const auto* x : with_code(r, code))
    if (x->frameworks == std::vector<std::string>{framework}) out.push_back(x);
  return out;
}

TEST(DoctorFrameworks, TheCudnnATorchWheelBundlesDecidesOnAKepler) {
  const Report r = run(kepler_k80("2.7.1", "cu118", "11.8"));
  const auto f = for_framework(r, "framework.cudnn-no-kernels", "pytorch");
  ASSERT_EQ(f.size(), 1u) << codes(r);
  EXPECT_FALSE(r.ready);
  EXPECT_NE(f[0]->title.find("cuDNN 9.1.0.70"), std::string::npos) << f[0]->title;
  EXPECT_EQ(f[0]->evidence[0], "torch 2.7.1+cu118 bundles cuDNN 9.1.0.70");
  EXPECT_NE(f[0]->evidence[1].find("compute capability >= 5.0"), std::string::npos) << f[0]->evidence[1];
  ASSERT_GE(f[0]->fix.size(), 2u);
  EXPECT_NE(f[0]->fix[0].find("pip uninstall -y torch"), std::string::npos) << f[0]->fix[0];
  // torch 2.0.1+cu117 bundles cuDNN 8.5, which still has Kepler kernels (cc >= 3.5).
  const Report ok = run(kepler_k80("2.0.1", "cu117", "11.7"));
  EXPECT_TRUE(for_framework(ok, "framework.cudnn-no-kernels", "pytorch").empty()) << codes(ok);
  EXPECT_TRUE(for_framework(ok, "framework.no-kernels", "pytorch").empty()) << codes(ok);
}

// The GPU's last driver branch bounds the advice: the jax cuda13 plugin needs a 580 driver, which a K80
// (R470 at most) never gets, so the doctor names the ceiling and offers an older build, not an upgrade.
TEST(DoctorFrameworks, ADriverUpgradePastTheGpusLastBranchIsNeverTheFix) {
  const Report r = run(kepler_k80("2.0.1", "cu117", "11.7"));
  const auto f = for_framework(r, "cuda.driver-too-old-for-framework", "jax");
  ASSERT_EQ(f.size(), 1u) << codes(r);
  EXPECT_NE(f[0]->title.find("the Tesla K80 (Kepler) is supported only up to the R470 drivers, which run CUDA <= 11.4"),
            std::string::npos)
      << f[0]->title;
  for (const auto& l : f[0]->fix) EXPECT_EQ(l.find("upgrade the driver"), std::string::npos) << l;
  EXPECT_NE(f[0]->fix[0].find("CUDA <= 11.4"), std::string::npos) << f[0]->fix[0];
  // The toolkit rule says the same of a CUDA 13 toolkit on this machine.
  Snapshot with_toolkit = kepler_k80("2.0.1", "cu117", "11.7");
  Toolkit t;
  t.root = "/usr/local/cuda-13.0";
  t.version = std::string("13.0.88");
  t.version_source = "nvcc --version";
  with_toolkit.toolkits = {t};
  const Report rt = run(with_toolkit);
  const auto tk = with_code(rt, "cuda.driver-too-old-for-toolkit");
  ASSERT_EQ(tk.size(), 1u);
  EXPECT_NE(tk[0]->title.find("supported only up to the R470 drivers"), std::string::npos) << tk[0]->title;
  EXPECT_EQ(tk[0]->fix[0], "# no driver upgrade helps this GPU: use a CUDA toolkit <= 11.4 for it");
  // A GPU current drivers support keeps the upgrade advice.
  Snapshot h = h200();
  h.nvidia.driver_version = std::string("550.54.14");
  const Report rh = run(h);
  const auto up = for_framework(rh, "cuda.driver-too-old-for-framework", "jax");
  ASSERT_EQ(up.size(), 1u);
  EXPECT_NE(up[0]->fix[0].find("upgrade the driver to >= 580.65.06"), std::string::npos) << up[0]->fix[0];
}

// Nor a floor below what the GPU itself needs: torch 2.10.0+cu128 asks CUDA 12's 525.60.13, but an RTX 5090
// (sm_120) has drivers only from R570 (CUDA 12.8's 570.26).
TEST(DoctorFrameworks, ADriverFloorIsNeverBelowTheGpusFirstBranch) {
  Snapshot s = h200();
  s.nvidia.gpus[0].compute_capability = std::string("12.0");
  s.nvidia.gpus[0].name = std::string("NVIDIA GeForce RTX 5090");
  s.nvidia.driver_version = std::string("520.61.05");
  auto& t = package(s, "torch");
  t.version = "2.10.0+cu128";
  t.details = {{"cuda", "12.8"}, {"variant", "cu128"}, {"metadata_version", "2.10.0"}};
  const Report r = run(s);
  const auto f = for_framework(r, "cuda.driver-too-old-for-framework", "pytorch");
  ASSERT_EQ(f.size(), 1u) << codes(r);
  EXPECT_NE(f[0]->title.find("needs driver >= 525.60.13"), std::string::npos) << f[0]->title;
  EXPECT_EQ(f[0]->fix[0].rfind("# upgrade the driver to >= 570.26 (this GPU's first driver branch, R570)", 0), 0u)
      << f[0]->fix[0];
  // On the H200 (first branch R525, CUDA 12.0's driver: below the need) the build's floor stands.
  Snapshot h = h200();
  h.nvidia.driver_version = std::string("520.61.05");
  auto& th = package(h, "torch");
  th.version = "2.10.0+cu128";
  th.details = t.details;
  const Report rh = run(h);
  const auto fh = for_framework(rh, "cuda.driver-too-old-for-framework", "pytorch");
  ASSERT_EQ(fh.size(), 1u) << codes(rh);
  EXPECT_EQ(fh[0]->fix[0].rfind("# upgrade the driver to >= 525.60.13,", 0), 0u) << fh[0]->fix[0];
}

// JAX takes any cuDNN 9 from its floor: on a GTX 1080 pip's newest nvidia-cudnn-cu12 (>= 9.11: cc 7.5 and
// newer) has no kernels, and the fix pins the line below the release that dropped Pascal.
TEST(DoctorFrameworks, JaxWithAPipCudnnThatDroppedPascalGetsThePin) {
  auto pascal = [](const std::string& cudnn) {
    Snapshot s = h200();
    s.nvidia.gpus[0].compute_capability = std::string("6.1");
    auto& pk = venv(s).packages;
    pk.erase(std::remove_if(pk.begin(), pk.end(),
                            [](const PythonPackage& p) { return p.name == "torch" || p.name == "nvidia-cudnn-cu13"; }),
             pk.end());
    for (auto& p : pk)
      if (p.name.rfind("jax", 0) == 0) {
        p.version = "0.10.2";
        if (p.details.count("cuda_major")) p.details["cuda_major"] = "12";
        if (p.name == "jax-cuda13-plugin") p.name = "jax-cuda12-plugin";
        if (p.name == "jax-cuda13-pjrt") p.name = "jax-cuda12-pjrt";
      }
    add_package(s, "nvidia-cudnn-cu12", cudnn);
    return s;
  };
  const Report r = run(pascal("9.17.1.4"));
  const auto f = for_framework(r, "framework.cudnn-no-kernels", "jax");
  ASSERT_EQ(f.size(), 1u) << codes(r);
  ASSERT_EQ(f[0]->fix.size(), 1u);
  EXPECT_EQ(f[0]->fix[0].rfind("/opt/torch/.venv/bin/python3 -m pip install \"nvidia-cudnn-cu12<9.11\"", 0), 0u)
      << f[0]->fix[0];
  const Report ok = run(pascal("9.10.2.21"));
  EXPECT_TRUE(with_code(ok, "framework.cudnn-no-kernels").empty()) << codes(ok);
}

TEST(DoctorFrameworks, TensorFlowWithoutKernelsForAMaxwellGpu) {
  Snapshot s = h200();
  s.nvidia.gpus[0].compute_capability = std::string("5.2");  // a GTX 970 in the H200's place
  add_package(s, "tensorflow", "2.17.0");
  package(s, "numpy").version = "1.26.4";
  const Report r = run(s);
  auto tf_findings = [](const Report& rep) {
    std::vector<const Finding*> out;
    for (const auto* x : with_code(rep, "framework.no-kernels"))  // torch 2.11+cu130 (sm_75+) has none either
      if (x->frameworks == std::vector<std::string>{"tensorflow"}) out.push_back(x);
    return out;
  };
  const auto f = tf_findings(r);
  ASSERT_EQ(f.size(), 1u) << codes(r);
  EXPECT_NE(f[0]->evidence[0].find("sm_60 sm_70 sm_80 sm_89 sm_90 + PTX"), std::string::npos) << f[0]->evidence[0];
  Snapshot ok = s;
  package(ok, "tensorflow").version = "2.16.1";  // sm_50 SASS runs on 5.2
  const Report r2 = run(ok);
  EXPECT_TRUE(tf_findings(r2).empty()) << codes(r2);
}
