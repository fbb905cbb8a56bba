// The nvcc check of `gpuready verify` (docs/verify.md): is the installed CUDA toolkit usable for
// building? A tiny CUDA program (a kernel writes i*3+1 to 1024 ints, copied back and checked on the
// host) is written into a fresh temporary folder, compiled by the toolkit's nvcc for this GPU's
// architecture, and run. Each step runs as a child process with a timeout; nvcc's own words are
// kept, and the usual failures are said in words: an architecture the toolkit does not build for
// (with the CUDA versions that do, from the knowledge tables), no host compiler, a toolkit newer
// than the driver.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "platform/os.h"
#include "verify/verify.h"

namespace gpuready::verify {

// The keys, in the order they run: "nvcc.compile" (value: seconds nvcc took), "nvcc.run" (value:
// seconds the program took).
std::vector<std::string> nvcc_keys();

struct NvccOptions {
  std::chrono::milliseconds compile_timeout{120000};  // nvcc can be slow (a cold disk, a big toolkit)
  std::chrono::milliseconds run_timeout{30000};       // the first CUDA call initialises the driver
  std::vector<std::string> only;                      // keys to report; empty = both. nvcc.run alone still compiles
  std::string temp_parent;                            // where the fresh folder goes; empty = the OS's temp folder
};

// The nvcc of the snapshot's toolkit on PATH (Toolkit::is_path_nvcc), else of the first toolkit
// with one; the first GPU's compute capability as -arch (none: nvcc's default, and nvcc.run skips).
// Never throws; the temporary folder is removed before it returns.
std::vector<Check> nvcc_checks(const Os& os, const Snapshot& s, const NvccOptions& o = {});

// What the compiled program prints on success: "gpuready-nvcc-ok 1572352" (the sum of i*3+1, i < 1024).
std::string nvcc_expected_line();

// The knowledge tables' answer for an architecture a toolkit does not build for, e.g.
// "CUDA 13.0 builds for sm_75 to sm_121; this GPU is sm_61: use CUDA 12.x (12.9 is the newest that
// builds for sm_61)"; "" when the tables do not know the toolkit's version.
std::string arch_support_hint(const std::string& toolkit_version, int sm);

}  // namespace gpuready::verify
