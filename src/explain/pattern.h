// A regular expression as explain's signatures use it: matched case-insensitively, searched
// anywhere in a subject, with its capture groups. PCRE2 with its JIT where the build has it
// (Debian: libpcre2-dev), bounded by a match limit, so no pattern and no input can make a
// search recurse without end or run for long; std::regex otherwise (the MinGW build, which has
// no PCRE2 package), which reads a long subject in overlapping windows of kFallbackMaxSubject
// bytes (std::regex recurses once per character).
// The signature table keeps to the syntax both engines read (docs/explain.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::explain {

struct PatternMatch {
  size_t begin = 0, end = 0;                         // of the whole match in the subject
  std::vector<std::optional<std::string>> groups;    // capture groups 1..n (nullopt: did not take part)
};

class Pattern {
 public:
  // nullptr with *error (the engine's words and the offset) when `regex` does not compile.
  static std::unique_ptr<Pattern> compile(const std::string& regex, std::string* error);
  virtual ~Pattern() = default;
  // The first match in `subject`, or nullopt (also when the match limit was reached).
  [[nodiscard]] virtual std::optional<PatternMatch> search(std::string_view subject) const = 0;

  static const char* engine();  // "PCRE2 10.42 (JIT)" or "std::regex"
  static constexpr size_t kFallbackMaxSubject = 8192;
};

}  // namespace gpuready::explain
