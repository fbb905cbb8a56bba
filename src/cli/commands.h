// The subcommands: each has an options struct, a setup_x(CLI::App&) that registers its
// flags and a run_x() that does the work and returns the exit code (CLI11's
// subcom_in_files pattern). main.cpp lists them explicitly.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "core/snapshot.h"
#include "probe/probe.h"

namespace gpuready::cli {

// Exit codes (docs/cli.md): 0 success, 1 problems found (later commands), 2 usage or internal error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitInterrupted = 130;  // stopped by Ctrl-C (128 + SIGINT, as shells report it)
inline constexpr int kExitUsage = 2;
// The most a file the user names is read: a snapshot (doctor --replay, plan --snapshot) and an
// error text or log (explain --file, explain's stdin). A bigger one is refused with words.
inline constexpr size_t kMaxSnapshotBytes = 64u << 20;
inline constexpr size_t kMaxExplainBytes = 64u << 20;

// Probe options for a subcommand: the driver probe in an isolated child (`gpuready
// __probe-driver`) and this timeout for every child process (common.cpp).
ProbeOptions isolated_probe_options(const Os& os, double timeout_s);
// --deep and --framework-timeout (probe, doctor): import every framework in a child. Returns --deep's option.
CLI::Option* add_deep_flags(CLI::App* sub, bool* deep, double* framework_timeout_s);
void set_deep_options(ProbeOptions& opts, bool deep, double framework_timeout_s);
// A snapshot saved by `gpuready probe --save`; nullopt with *error ("cannot read F",
// "F is not a gpuready snapshot: ...").
std::optional<Snapshot> read_snapshot_file(const std::string& path, std::string* error);
// The snapshot a judging command works on: the file --replay names (a saved snapshot or a report page), else this
// machine probed with the driver in a child, these interpreters too and --deep's imports. nullopt when the file
// cannot be read, said on stderr as "gpuready <command>: ...".
std::optional<Snapshot> replay_or_probe(const Os& os, const std::string& command, const std::string& replay,
                                        const std::vector<std::string>& python, double timeout_s, bool deep,
                                        double framework_timeout_s);
// Writes a snapshot as `gpuready probe --save` does; false with *error ("cannot write the snapshot to F").
bool save_snapshot_file(const std::string& path, const Snapshot& s, std::string* error);
// A --framework value as the plan and doctor name frameworks ("torch" -> "pytorch", "tf" -> "tensorflow").
std::string framework_flag(const std::string& value);
// The --framework values accepted (the names and their aliases).
inline const std::vector<std::string> kFrameworkFlagValues = {"tensorflow", "pytorch", "jax", "torch", "tf"};

// Registers `probe`; the callback stores the exit code in *exit_code.
void setup_probe(CLI::App& app, int* exit_code);
// `gpuready` with no subcommand: the doctor with its default options.
int run_doctor_defaults();
// Registers `doctor` (exit 0: ready, 1: problems found, 2: bad flags or input).
void setup_doctor(CLI::App& app, int* exit_code);
// Registers `plan` (exit 0: a stack fits, 1: none fits, 2: bad flags or input).
void setup_plan(CLI::App& app, int* exit_code);
// Registers `explain` (exit 0: recognised, 1: not recognised, 2: unreadable input).
void setup_explain(CLI::App& app, int* exit_code);
// Registers `verify` (exit 0: every check that ran passed or warned, 1: a check failed or none could run, 2: bad
// flags).
void setup_verify(CLI::App& app, int* exit_code);
// Registers the hidden `__probe-driver` used to talk to the driver in an isolated child.
void setup_probe_driver(CLI::App& app, int* exit_code);
// Registers the hidden `__verify-copy`: copy bandwidth measured in an isolated child (verify/copy.h).
void setup_verify_copy(CLI::App& app, int* exit_code);
// Registers `report` (exit 0: the page was written, 2: bad flags, an unreadable snapshot or an unwritable file).
void setup_report(CLI::App& app, int* exit_code);
// `gpuready bench`: the CNN epoch on CPU and GPU (bench_cmd.cpp).
void setup_bench(CLI::App& app, int* exit_code);
void setup_bench_engine(CLI::App& app, int* exit_code);  // hidden: bench's GPU child
// Registers `completion bash|zsh`: a shell completion script made from the registered subcommands and options.
void setup_completion(CLI::App& app, int* exit_code);
// Hidden: `gpuready __verify-gpu`, the child that loads the CUDA module and runs its checks (verify_gpu_cmd.cpp).
void setup_verify_gpu(CLI::App& app, int* exit_code);

}  // namespace gpuready::cli
