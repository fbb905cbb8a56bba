// Parser for a virtual environment's pyvenv.cfg ("home = /usr/bin", "version = 3.12.3",
// uv/virtualenv's "version_info = 3.12.3[.final.0]", "include-system-site-packages = false").
// Pure and non-throwing; the Python collector (probe/python*.cpp) reads the file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

struct PyvenvCfg {
  std::map<std::string, std::string> values;  // every key (lowercased, as CPython's reader does)
  std::string home;                           // folder of the base interpreter
  std::string version;                        // "3.12.3" (from version, else version_info), "" if absent
  std::optional<bool> include_system_site_packages;
  std::string executable;  // newer venv writes the base interpreter's path
};

PyvenvCfg pyvenv_cfg(std::string_view text);

// The leading "X.Y[.Z]" of a Python version text: "3.12.3.final.0" -> "3.12.3"; "" when none.
std::string python_version_prefix(std::string_view text);

}  // namespace gpuready::parse
