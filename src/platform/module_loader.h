// Loading one of gpuready's own modules (the CUDA module gpu/, the CPU training engine cpu/): the
// first candidate file that exists is loaded, its three C entry points (ABI, run, free) are looked
// up and its ABI is compared with the one this build speaks. Every way it can fail is a problem
// with words, never a crash: the callers turn them into a skipped check or a device not run.
#pragma once

#include <string>
#include <vector>

#include "platform/os.h"

namespace gpuready {

struct ModuleSymbols {
  const char* abi;  // int (*)(void)
  const char* run;
  const char* release;  // void (*)(char*)
};

enum class ModuleProblem { none, missing, not_loaded, lacks_entry_points, wrong_abi };

struct LoadedModule {
  ModuleProblem problem = ModuleProblem::missing;
  std::string why;   // the problem in words, naming the file (or where it looked)
  std::string path;  // the file that loaded
  void* abi = nullptr;
  void* run = nullptr;
  void* release = nullptr;
  bool ok() const { return problem == ModuleProblem::none; }
};

// The file load_module tries: the first candidate that is an absolute path and exists; "" when none is, with *tried
// saying where it looked ("x (ignored: not an absolute path)", ...). `gpuready --version` shows the same file.
std::string find_module_file(const Os& os, const std::vector<std::string>& candidates, std::string* tried);

// `file_name` is what a missing module is called in the message ("libgpuready-cuda.so").
LoadedModule load_module(const Os& os, const std::vector<std::string>& candidates, const ModuleSymbols& symbols,
                         int expected_abi, const std::string& file_name);

}  // namespace gpuready
