// Plan: the newest framework stack (framework version, CUDA build, cuDNN, Python, driver)
// that fits one machine, with the alternatives, the reason behind every exclusion, what to
// change when nothing fits, and the install steps for that OS. A pure function of the
// inputs and the knowledge tables (knowledge/compat.h); `gpuready plan` fills the inputs
// from the probe and from flags. JSON schema "gpuready.plan/1" (docs/plan.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "core/version.h"
#include "knowledge/compat.h"

namespace gpuready::plan {

inline constexpr const char* kPlanSchema = "gpuready.plan/1";

// What the plan is for. Every field may be unknown: an unknown fact constrains nothing and
// the plan says what it assumed. `source` says where each known one came from.
struct PlanInputs {
  std::optional<std::string> os;         // "linux" | "windows" | "wsl2" | "macos"
  std::optional<std::string> gpu;        // product name, for display and the cc lookup
  std::optional<Version> cc;             // compute capability, 7.5
  std::optional<Version> driver;         // 546.33 (in WSL2: the Windows driver's number)
  std::optional<Version> python;         // 3.8 (major.minor are used)
  std::optional<std::string> framework;  // "tensorflow" | "pytorch" | "jax"
  std::optional<std::string> framework_version;  // pin: "2.4", "2.4.0"
  std::optional<Version> cuda;           // pin: "11.8", or a major "12"
  bool no_nvidia_gpu = false;            // the probe saw none (and no --gpu/--cc was given)
  std::optional<Version> installed_cuda;  // the newest CUDA toolkit the probe found (only for the freshness note)
  std::map<std::string, std::string> source;  // field -> "flag" | "probe" | "snapshot" | "default"
};

// One installable stack. The first eight fields are the JSON contract; the rest explain it.
struct Stack {
  std::string framework;          // "tensorflow"
  std::string framework_version;  // "2.10.0"
  std::string package;            // pip name: "tensorflow-gpu", "torch", "jax"
  std::string python;             // the given Python, or the newest the build supports
  std::string cuda;               // CUDA the build needs: TF's build CUDA, PyTorch's wheel variant ("12.6"), JAX's plugin floor
  std::string cudnn;              // "8.1"; PyTorch: bundled "9.17.1.4"; JAX: minimum "9.8"
  std::string min_driver;         // "452.39"
  std::string os;                 // "windows"
  std::string variant;            // "cu126" (PyTorch), "cuda12" (JAX pip extra), "" (TensorFlow)
  std::string python_range;       // "3.7-3.10"
  std::string numpy;              // pip constraint the plan adds: "~=1.19.2", "<2"
  std::string index_url;          // PyTorch's wheel index
  std::string find_links;         // old JAX releases' wheel page
  std::string torchvision, torchaudio;
  bool bundles_cuda = false;      // wheels bring CUDA and cuDNN (no toolkit to install)
  std::string support;            // "full" | "minor-version compatibility" | "driver unknown"
  std::string why;                // for alternatives: "newest for CUDA 11", "the pinned version"
  std::vector<std::string> notes; // caveats: PTX JIT, inferred architecture list, ...
};

struct Exclusion {
  std::string what;  // "tensorflow 2.11.0+", "torch 2.0.0-2.6.0 (cu118)"
  std::string why;   // "TensorFlow >= 2.11 has no GPU support on native Windows: ..."
};

// A change to the machine (driver, Python, OS) and the stack it would make possible.
struct Change {
  std::vector<std::string> changes;  // "upgrade the driver to >= 580.65.06", "use Python 3.9-3.12", "use WSL2"
  std::optional<Stack> gives;
};

// What a step does, so that other commands (doctor's fixes) pick a step by its kind, never by
// its display title.
enum class StepKind { python, driver, toolkit, cudnn, environment, prerequisite, install_framework, check };
const char* step_kind_name(StepKind k);  // "python", "driver", ..., "prerequisite", "install-framework", "check"

struct Step {
  StepKind kind = StepKind::check;
  std::string title;
  std::string package;                // install_framework: the pip package ("torch", "tensorflow", "jax")
  // Shell lines for that OS; lines starting with '#' are comments. A line starting with
  // "python " runs the environment's interpreter (doctor puts the interpreter's path there).
  std::vector<std::string> commands;
};

struct Plan {
  bool ok = false;
  PlanInputs inputs;
  std::optional<Stack> recommended;   // null when ok is false
  std::vector<Stack> alternatives;
  std::vector<Exclusion> excluded;
  std::vector<Change> changes;        // newer stacks a change would allow (what to change when !ok)
  std::vector<Step> steps;            // install steps for `recommended`
  std::vector<std::string> notes;     // what was assumed (unknown facts) and why nothing fits
};

// The frameworks plan knows, in the order `gpuready plan` lists them.
inline constexpr const char* kFrameworks[] = {"pytorch", "tensorflow", "jax"};
inline constexpr const char* kOses[] = {"linux", "windows", "wsl2", "macos"};

// The facts of a probed machine as plan inputs (source `label`: "probe" or "snapshot"):
// OS (WSL2 as its own target), the first NVIDIA GPU (by NVML, else by its PCI id), driver,
// the first Python environment (preferring one that has `framework` when given) and the
// framework installed there. Notes about what was chosen go to *notes.
PlanInputs inputs_from_snapshot(const knowledge::Compat& k, const Snapshot& s, const std::string& label,
                                const std::optional<std::string>& framework, std::vector<std::string>* notes);

// Resolves the plan. `inputs.framework` must be set (one of kFrameworks); an unknown
// `os` is taken as linux (and said in notes).
Plan make_plan(const knowledge::Compat& k, const PlanInputs& inputs);

// The install steps for one stack on the inputs' OS (plan_steps.cpp).
std::vector<Step> install_steps(const knowledge::Compat& k, const PlanInputs& inputs, const Stack& stack);

nlohmann::json plan_to_json(const Plan& p);

}  // namespace gpuready::plan
