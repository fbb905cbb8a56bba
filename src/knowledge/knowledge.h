// Knowledge: the compatibility tables (data/*.csv: CUDA driver floors, architectures, GPUs,
// cuDNN, library names, TensorFlow, PyTorch, JAX, error signatures, GPU matrix-multiply peaks
// and per-architecture throughput), loaded from the copy compiled into the binary or from a
// newer data folder. Every table must have a non-empty `source` in each row.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "knowledge/csv.h"
#include "platform/os.h"

namespace gpuready::knowledge {

// The tables gpuready needs; a data folder must provide each of them.
inline constexpr const char* kTableNames[] = {"cuda_driver", "cuda_minor_compat", "cuda_arch",  "gpus",
                                              "cudnn",       "library_names",     "tensorflow", "pytorch",
                                              "jax",         "error_signatures",  "gpu_peaks",  "arch_throughput",
                                              "error_codes", "library_stems",     "library_versions", "gpu_driver_branches", "freshness",
                                              "python_breaks", "rocm_gfx"};

class Knowledge {
 public:
  // The tables compiled into this binary. Throws std::logic_error if they do not parse (a build defect).
  static const Knowledge& embedded();
  // Tables from a folder (the --data flag); nullopt with *error naming the file and line.
  static std::optional<Knowledge> load_dir(const Fs& fs, const std::string& dir, std::string* error);

  // A table by name ("cuda_driver"); nullptr when absent.
  [[nodiscard]] const CsvTable* table(const std::string& name) const;
  [[nodiscard]] const std::map<std::string, CsvTable>& tables() const { return tables_; }
  [[nodiscard]] const std::string& origin() const { return origin_; }  // "embedded" or the folder

 private:
  // Parses and checks one table's text (header, a `source` column, a source in every row).
  bool add(const std::string& name, std::string_view text, std::string* error);
  std::map<std::string, CsvTable> tables_;
  std::string origin_;
};

}  // namespace gpuready::knowledge
