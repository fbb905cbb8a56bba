// The environment a paste reports (parse/env_report.h: PyTorch's collect_env, a Hugging Face env
// list, nvidia-smi's table, a Python session's checks), judged by the doctor's own rules as a
// partial Snapshot of the machine that printed it, and told as explain entries: "torch 2.1.0+cpu is a
// CPU-only build" where the paste also shows an NVIDIA GPU, a build for CUDA 12.1 under driver 470, a
// GPU the build has no kernels for, a framework that lists no GPU. `gpuready explain` answers with
// explain_paste(): the recognisers' story, then these where the paste has a report.
#pragma once

#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "doctor/explain.h"
#include "knowledge/compat.h"
#include "parse/env_report.h"

namespace gpuready::doctor {

// The machine facts a report states, as a Snapshot the rules can read (the GPUs' compute
// capabilities looked up by name; the frameworks as a Python environment "python" and as the
// checks that the report's answers are).
Snapshot snapshot_of_report(const parse::EnvReport& r, const knowledge::Compat& k);

// The doctor's findings on that snapshot, from the rules a report can feed (the framework's build
// against the driver, the GPU and the OS; a framework that sees no GPU), as explain entries with
// their root conditions. Empty when the report states too little to judge.
std::vector<ExplainMatch> judge_env_report(const parse::EnvReport& r, const knowledge::Compat& k);

// What `gpuready explain` answers: the explainer's story, with the report's findings placed in it
// (the root cause when no line of the paste names a cause, or only the symptom "no GPU visible").
std::vector<ExplainMatch> explain_paste(const Explainer& e, const knowledge::Compat& k, std::string_view text,
                                        const Snapshot* machine);

}  // namespace gpuready::doctor
