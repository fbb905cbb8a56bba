// libFuzzer target for the PEP 440 / PEP 508 parsers behind doctor's dependency check: versions,
// specifier sets, Requires-Dist values and environment markers. Any bytes must parse or be
// refused, never crash or recurse without end; what parses must compare consistently.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parse/pep440.h"
#include "parse/requirement.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace p = gpuready::parse;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto half = in.substr(0, in.size() / 2), rest = in.substr(in.size() / 2);
  const auto a = p::Pep440Version::parse(half), b = p::Pep440Version::parse(rest);
  if (a) {
    // A version equals itself and its normalised spelling.
    if (!(*a == *a)) std::abort();
    const auto again = p::Pep440Version::parse(a->str());
    if (!again || !(*again == *a)) std::abort();
  }
  if (a && b && ((*a < *b) == (*b < *a)) && !(*a == *b)) std::abort();
  if (const auto spec = p::VersionSpecifier::parse(half)) (void)spec->contains(rest);
  if (const auto r = p::parse_requirement(in)) {
    const auto env = p::marker_environment("3.12.3", "linux", "x86_64");
    (void)p::evaluate_marker(r->marker, env, "cuda12");
    (void)p::marker_extras(r->marker);
  }
  (void)p::evaluate_marker(in, p::marker_environment("", "windows", "x86_64"), "");
  return 0;
}
