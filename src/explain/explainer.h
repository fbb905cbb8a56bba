// Explain: a pasted error or a whole log becomes what went wrong, its root cause first, and the
// fix (docs/explain.md). Four recognisers read each line, all driven by data/ tables:
//   signatures   error_signatures.csv: a known failure or a harmless line, by its wording
//   vendor codes error_codes.csv: every CUDA runtime/driver, cuDNN, cuBLAS, cuSOLVER, cuFFT,
//                cuSPARSE, cuRAND, NVRTC, NCCL, HIP, HSA, rocBLAS, MIOpen status, by name,
//                by number where the line says whose number it is, and by its own message text
//   libraries    library_stems.csv: any library file name in a "cannot open / could not load /
//                undefined symbol / version not found / cannot find -l" line, decoded into the
//                component and version it is, with the install step for this OS
//   (the machine) with a snapshot: where this machine has the library, what its driver runs
// Then the story: one entry per distinct thing (repeats counted), the root cause (the earliest
// line of the most specific kind) first, the rest in log order, harmless lines last.
// JSON schema "gpuready.explain/1" (additive fields: root, line, count, root_cause).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "explain/literal_set.h"
#include "explain/pattern.h"
#include "knowledge/compat.h"

namespace gpuready::explain {

inline constexpr const char* kExplainSchema = "gpuready.explain/1";

struct Match {
  std::string code, title, cause;
  std::vector<std::string> fix;
  std::vector<std::string> evidence;  // the line that matched, what was decoded, then this machine's facts
  std::vector<std::string> groups;    // a signature's captures (library names, versions)
  std::vector<std::string> root;      // what it stands for: vendor codes, conditions (VOCAB), library file names
  bool harmless = false;              // a scary line that needs no action
  bool root_cause = false;            // the story's first failure
  size_t line = 0;                    // first line of the paste that said it (1-based)
  size_t count = 1;                   // lines that said it
  int tier = 0;                       // how specific: 3 a named failure, 2 a decoded code with a known cause, 1 a bare code, 0 generic
};

class Explainer {
 public:
  // Compiles every signature and indexes the code and library tables; throws std::logic_error
  // naming the row whose pattern does not compile.
  explicit Explainer(const knowledge::Compat& k);
  ~Explainer();
  Explainer(const Explainer&) = delete;
  Explainer& operator=(const Explainer&) = delete;
  static const Explainer& embedded();

  // What `text` (a paste: any size, any bytes) shows: root cause first, then the other failures
  // in log order, harmless lines last. Empty: nothing recognised.
  [[nodiscard]] std::vector<Match> explain(std::string_view text, const Snapshot* machine = nullptr) const;

  // Beyond this, only the first and the last kMaxBytes / 2 of a paste are read.
  static constexpr size_t kMaxBytes = 8u << 20;

  struct Impl;

 private:
  Explainer(const knowledge::Compat& k, bool compile_now);  // false: each pattern at its first use
  std::unique_ptr<Impl> impl_;
};

nlohmann::json explain_to_json(const std::vector<Match>& matches);

// Literal texts (lower case) of which every match of `pattern` contains at least one: the
// longest literal run of each top-level alternative. Empty when some alternative has none of
// three or more characters (then the pattern must always run). The signatures' prefilter.
std::vector<std::string> required_literals(const std::string& pattern);

// A library file name decoded: "cudart64_110.dll" -> cudart, CUDA runtime, "11.0".
struct LibraryName {
  std::string file;       // as the text wrote it (base name)
  std::string stem;       // "cudart"
  std::string component;  // "CUDA runtime"
  std::string kind;       // library_stems.csv kind: cuda, cudnn, nccl, tensorrt, rocm, runtime, zlib ...
  std::string version;    // the version part of the name ("11.0", "8", "12"), "" if none
  std::string release;    // what that version means ("CUDA 11.x", "cuDNN 8"), "" if unknown
  bool windows = false;
  const knowledge::LibraryStemRow* row = nullptr;
};
std::optional<LibraryName> decode_library_name(const knowledge::Compat& k, std::string_view file);

// The same with library_stems.csv's file-name shapes read once (an Explainer decodes many names).
class LibraryNameDecoder {
 public:
  explicit LibraryNameDecoder(const knowledge::Compat& k);
  [[nodiscard]] std::optional<LibraryName> decode(std::string_view file) const;

 private:
  struct Shape {
    const knowledge::LibraryStemRow* row;
    bool windows, versioned;
    std::string pre, post;  // the lower-case name around "{v}" (all of it in pre when unversioned)
  };
  const knowledge::Compat& k_;
  std::vector<Shape> shapes_;  // in table order, Linux before Windows: the first longest match wins
  std::vector<std::pair<std::string, const knowledge::LibraryStemRow*>> unversioned_;
};

}  // namespace gpuready::explain
