// PEP 440 versions and version specifiers, as pip reads them: "2.4.0", "1!2.0", "2.11.0+cu130",
// "0.4.26rc1", "1.19.2.post1", "2.0.0.dev20240101"; specifiers "~=1.19.2", ">=1.22,<1.24",
// "==0.11.*", "!=2.0.0", "===weird". Used to judge an installed package against what the
// packages that need it declare (Requires-Dist), the way `pip check` does.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

struct Pep440Version {
  long epoch = 0;
  std::vector<long> release;   // {1, 19, 2}
  int pre_phase = -1;          // -1 none, 0 a, 1 b, 2 rc
  long pre = 0;
  long post = -1;              // -1 none
  long dev = -1;               // -1 none
  std::vector<std::string> local;  // "cu130" -> {"cu130"}; "ubuntu.1" -> {"ubuntu", "1"}

  // Parses a version the way pip does (case-insensitive, a leading 'v', the alternative
  // spellings "alpha"/"c"/"pre"/"rev", separators '-', '_', '.'); nullopt for anything else.
  static std::optional<Pep440Version> parse(std::string_view text);

  [[nodiscard]] bool is_prerelease() const { return pre_phase >= 0 || dev >= 0; }
  [[nodiscard]] bool is_postrelease() const { return post >= 0; }
  [[nodiscard]] Pep440Version public_part() const;  // without the local label
  [[nodiscard]] std::string str() const;            // normalised: "1.0rc1.post2.dev3+cu130"

  friend std::strong_ordering operator<=>(const Pep440Version& a, const Pep440Version& b);
  friend bool operator==(const Pep440Version& a, const Pep440Version& b) { return (a <=> b) == 0; }
};

// One clause of a specifier set: "~=1.19.2".
struct VersionClause {
  std::string op;       // "~=", "==", "!=", "<=", ">=", "<", ">", "==="
  std::string version;  // as written, without spaces ("1.19.*" keeps its wildcard)
};

// A comma-separated specifier set; empty means "any version".
struct VersionSpecifier {
  std::vector<VersionClause> clauses;

  // Parses "~=1.19.2", ">= 1.22, < 1.24" (also inside parentheses, the older metadata form
  // "(>=1.0)"); nullopt when a clause is not a valid PEP 440 clause.
  static std::optional<VersionSpecifier> parse(std::string_view text);

  // Whether the version satisfies every clause. Pre-releases are accepted as pip check does.
  // A version that PEP 440 cannot read satisfies only "===" with its exact text.
  [[nodiscard]] bool contains(std::string_view version) const;
  [[nodiscard]] bool empty() const { return clauses.empty(); }
  [[nodiscard]] std::string str() const;  // ">=1.22,<1.24"
};

}  // namespace gpuready::parse
