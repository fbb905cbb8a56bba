// Doctor: rules judge a Snapshot with the knowledge tables and produce Findings, each with a
// stable code, a severity, a one-line title, the evidence and the exact fix for this OS; the
// report ends with a verdict per framework. Rules are pure functions (Snapshot, Compat) ->
// Findings, so `gpuready doctor --replay snapshot.json` diagnoses another machine.
// JSON schema "gpuready.doctor/1" (docs/doctor.md lists every code).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "knowledge/compat.h"

namespace gpuready::doctor {

inline constexpr const char* kDoctorSchema = "gpuready.doctor/1";

enum class Severity { error, warn, info };
const char* severity_name(Severity s);

struct Finding {
  std::string code;                    // stable: "driver.mismatch"
  Severity severity = Severity::error;
  std::string title;                   // one line: what is wrong
  std::vector<std::string> evidence;   // paths, versions, the loader's own message
  std::vector<std::string> fix;        // exact commands or lines for this OS ('#' lines explain)
  std::vector<std::string> frameworks; // the frameworks it stops ("pytorch"); empty: every framework
  std::string python;                  // the interpreter it is about; empty: the whole machine
};

// A framework installed in one environment.
struct InstalledFramework {
  const PythonEnv* env;
  const PythonPackage* package;
  std::string framework;  // "pytorch" | "tensorflow" | "jax"
};

// What a rule sees: the machine's facts, the tables, the OS the fixes are written for, and the
// frameworks installed (computed once).
struct Context {
  const Snapshot& s;
  const knowledge::Compat& k;
  std::string os;  // "linux" | "wsl2" | "windows" | "macos"
  std::vector<InstalledFramework> frameworks;
};

// A rule: its stable code and severity, what it checks (docs), and the check itself, which
// returns its findings with title, evidence and fix (the runner fills code and severity).
struct Rule {
  const char* code;
  Severity severity;
  const char* checks;  // one line for docs/doctor.md and `gpuready doctor --list-rules`
  std::vector<Finding> (*run)(const Context&);
};

// Every rule, in the order a user must act on them (driver before CUDA before frameworks).
const std::vector<Rule>& all_rules();
// True for the codes of the rules that judge the deep framework checks (Snapshot::frameworks):
// `verify` shows their findings next to its own.
bool is_deep_rule(const std::string& code);

struct FrameworkVerdict {
  std::string name;     // "pytorch" | "tensorflow" | "jax"
  std::string version;  // "2.11.0+cu130"; "" when asked for but not installed
  std::string python;   // interpreter
  bool ready = false;
  std::vector<std::string> blocking;  // codes of the errors that stop it
  std::string check_status;           // FrameworkCheck::status when it was imported (--deep), else ""
  std::string check_summary;          // "imported in 1.9 s; sees 1 GPU: NVIDIA H200 (sm 9.0); ..."
};

// One line on what importing a framework showed.
std::string check_summary(const FrameworkCheck& k);

// The three CUDA versions people confuse, side by side.
struct CudaVersions {
  std::string driver_newest;               // what nvidia-smi calls "CUDA Version": the newest the driver runs
  std::vector<std::string> toolkits;       // "13.0 (/usr/local/cuda-13.0, PATH nvcc)"
  std::vector<std::string> frameworks;     // "torch 2.11.0+cu130: CUDA 13.0 (bundled)"
};

struct Report {
  bool ready = false;  // an NVIDIA GPU works and every framework checked is ready
  std::string os;
  std::vector<FrameworkVerdict> frameworks;
  std::vector<Finding> findings;  // errors first, then warnings, then info; rule order within
  CudaVersions cuda;
};

struct Options {
  std::vector<std::string> frameworks;  // --framework: verdicts for these even when not installed
};

// The OS the fixes are written for: "wsl2" for WSL (1 or 2), else the family.
std::string target_os(const Snapshot& s);

Report diagnose(const Snapshot& s, const knowledge::Compat& k, const Options& o = {});

nlohmann::json report_to_json(const Report& r);

}  // namespace gpuready::doctor
