// Parser for the environment reports people paste next to an error (or instead of one): PyTorch's
// `python -m torch.utils.collect_env` (vLLM's collect_env prints the same keys), the Hugging Face
// `transformers-cli env` / `accelerate env` / `diffusers-cli env` lists ("- PyTorch version (GPU?):
// 2.0.1+cu118 (True)"), nvidia-smi's table (driver version, GPU names) and its --query-gpu CSV, and a Python session's
// answers to the usual checks (`torch.cuda.is_available()` then `False`, `torch.__version__`,
// `tf.config.list_physical_devices('GPU')` then `[]`, TensorFlow's "Num GPUs Available: 0",
// device_lib's list, `jax.devices()`, `jax.print_environment_info()`, `tf.sysconfig.get_build_info()`). Only facts, as the paste states them; the doctor's rules judge
// them (doctor/pasted_env.h). Pure and non-throwing: any text in, at worst an empty report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

struct ReportedFramework {
  std::string framework;                 // "pytorch" | "tensorflow" | "jax"
  std::string version;                   // "2.1.0+cu121", "" unknown
  std::optional<std::string> built_cuda; // "12.1"; "none": a build without CUDA; nullopt: not said
  std::string built_rocm;                // "6.0.32830" (collect_env's "ROCM used to build PyTorch")
  std::optional<bool> sees_gpu;          // what its own check answered; nullopt: not said
  bool asked = false;                    // sees_gpu answers a check the user ran (typed, or a script's print),
                                         // not a line of an environment printout an issue template asks for
  size_t line = 0;                       // 1-based line of the first fact about it
  std::vector<std::string> evidence;     // the paste's lines that said it
};

struct EnvReport {
  std::string os_family;        // "linux" | "windows" | "macos" | "" not said
  bool wsl = false;             // a WSL kernel ("microsoft-standard-WSL2")
  std::string os_name;          // "Ubuntu 22.04.3 LTS (x86_64)"
  std::string python_version;   // "3.10.13"
  std::string driver_version;   // "535.104.05"
  std::vector<std::string> gpus;  // product names as written ("NVIDIA GeForce RTX 3090")
  bool no_nvidia_said = false;    // the report looked and found none: collect_env's GPU models "No CUDA"
  std::vector<ReportedFramework> frameworks;
  std::vector<std::string> evidence;  // the lines the machine facts came from
  [[nodiscard]] bool empty() const { return frameworks.empty(); }
};

// The report in `text` (any bytes; lines split at \n, \r\n and \r). A fact stated twice keeps the
// first statement. Frameworks appear only when the paste says something about one.
EnvReport read_env_report(std::string_view text);

}  // namespace gpuready::parse
