// PEP 508 dependency specifications, as core metadata's Requires-Dist lines write them:
//   numpy~=1.19.2
//   numpy (<2.0.0,>=1.23.5)                                  (older setuptools spelling)
//   cuda-toolkit[cublas,cudart]==13.0.2; platform_system == "Linux"
//   jax-cuda12-plugin[with-cuda]<=0.11.2,>=0.11.2; extra == "cuda12"
//   typing-extensions>=4.8; python_version < "3.13" and sys_platform != "win32"
// with the environment markers evaluated against one Python environment. A marker that names
// something the environment does not know (no Python version probed) evaluates to Unknown,
// never to a guess.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/pep440.h"

namespace gpuready::parse {

struct Requirement {
  std::string name;                 // PEP 503-normalised: "typing-extensions"
  std::vector<std::string> extras;  // normalised: {"cublas", "cudart"}
  VersionSpecifier specifier;       // empty: any version
  std::string url;                  // "name @ url": a direct reference (any version)
  std::string marker;               // the text after ';', trimmed ("" when none)
};

// Parses one Requires-Dist value; nullopt when it is not a PEP 508 specification (the marker is
// only checked when evaluated).
std::optional<Requirement> parse_requirement(std::string_view text);

// The values markers compare against: "python_version" -> "3.12", "platform_system" -> "Linux",
// "sys_platform", "platform_machine", "os_name", "python_full_version", "implementation_name",
// "platform_python_implementation". A name missing here is unknown.
using MarkerEnvironment = std::map<std::string, std::string>;

enum class Truth { False, True, Unknown };

// Evaluates a marker; `extra` is the extra being asked about ("" for the requirements that hold
// without any extra; a marker `extra == "x"` is then False). A marker that does not parse is
// Unknown.
Truth evaluate_marker(std::string_view marker, const MarkerEnvironment& env, std::string_view extra);

// The extras a marker asks for (`extra == "cuda12"` anywhere in it), normalised; empty when none.
std::vector<std::string> marker_extras(std::string_view marker);

// The marker environment of a CPython of this version on this OS/machine ("linux"/"windows"/"darwin",
// "x86_64"/"aarch64"/"AMD64"); an empty version leaves the Python variables unknown.
MarkerEnvironment marker_environment(std::string_view python_version, std::string_view os, std::string_view machine);

}  // namespace gpuready::parse
