// Explain: a pasted error becomes the known failure(s) it matches, the real cause and the fix
// (data/error_signatures.csv, each row from real reports), sharpened with this machine's facts
// where a snapshot is given (which copy of the DLL it asks for exists, and where; the driver's
// newest CUDA). JSON schema "gpuready.explain/1" (docs/explain.md).
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "knowledge/compat.h"

namespace gpuready::doctor {

inline constexpr const char* kExplainSchema = "gpuready.explain/1";

struct ExplainMatch {
  std::string code, title, cause;
  std::vector<std::string> fix;
  std::vector<std::string> evidence;  // the line that matched, then this machine's facts
  std::vector<std::string> groups;    // the pattern's captures (library names, versions)
  bool harmless = false;              // a scary line that needs no action
};

class Explainer {
 public:
  // Compiles every signature; throws std::logic_error naming the code of a pattern that does not compile.
  explicit Explainer(const knowledge::Compat& k);
  static const Explainer& embedded();

  // Known failures in `text` (a paste: any size, any bytes), problems first, harmless last.
  // Each line is attributed to the first signature (in table order) that matches it.
  [[nodiscard]] std::vector<ExplainMatch> explain(std::string_view text, const Snapshot* machine = nullptr) const;

  // Pasted text beyond these limits is not read (a log can be huge; errors are in single lines).
  static constexpr size_t kMaxBytes = 1u << 20;
  static constexpr size_t kMaxLine = 2000;

 private:
  struct Compiled {
    const knowledge::ErrorSignatureRow* row;
    std::regex re;
    bool multiline;  // the pattern allows whitespace, so a wrapped message can match over lines
    std::vector<std::string> literals;  // required_literals(pattern): one must be in the text for a match
  };
  std::vector<Compiled> sigs_;
};

// Literal texts (lower case) of which every match of `pattern` contains at least one: the
// longest literal run of each top-level alternative. Empty when some alternative has none of
// three or more characters (then the pattern must always run). A prefilter for std::regex.
std::vector<std::string> required_literals(const std::string& pattern);

nlohmann::json explain_to_json(const std::vector<ExplainMatch>& matches);

}  // namespace gpuready::doctor
