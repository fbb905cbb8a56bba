// Version: dotted numeric versions as the GPU stack writes them ("580.159.04", "12.4",
// "9.1.0", "2.11.0+cu130", "13000" from cuDriverGetVersion), parsed and compared.
#pragma once

#include <compare>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready {

struct Version {
  std::vector<long> parts;   // numeric components, e.g. {12, 4, 1}
  std::string suffix;        // whatever followed the numbers: "+cu130", "rc1", ".post1"
  std::vector<int> widths;   // digits each part was written with, so str() keeps "580.65.06" (empty: no padding)

  // Parses a leading dotted-number version; nullopt when the text does not start with one.
  static std::optional<Version> parse(std::string_view text);
  // A version from its numbers: Version::of({2, 16}).
  static Version of(std::initializer_list<long> numbers) { return Version{numbers, {}, {}}; }
  // cuDriverGetVersion / CUDA_VERSION style integer: 12040 -> 12.4, 13000 -> 13.0.
  static Version from_cuda_int(long v);

  [[nodiscard]] long major() const { return parts.empty() ? 0 : parts[0]; }
  [[nodiscard]] long minor() const { return parts.size() > 1 ? parts[1] : 0; }
  [[nodiscard]] long patch() const { return parts.size() > 2 ? parts[2] : 0; }
  // The first two numbers only: 12.4.1 -> 12.4, 546.33 -> 546.33, "9" -> 9.0 (str() gives "12.4").
  [[nodiscard]] Version major_minor() const { return of({major(), minor()}); }
  [[nodiscard]] std::string str() const;  // numbers joined by '.' as written (leading zeros kept), suffix appended

  // Compares the numeric parts only; missing parts count as 0 ("12.4" == "12.4.0").
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }
};

}  // namespace gpuready
