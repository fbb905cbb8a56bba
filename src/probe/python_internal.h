// Internals of the Python collector (probe/python*.cpp): path helpers that work for both
// the POSIX and the Windows layout (so a Windows fixture can be probed on Linux), finding
// interpreters, the facts their files give, and the GPU-relevant packages of a site folder.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "parse/requirement.h"
#include "platform/os.h"

namespace gpuready::python {

// --- paths: the style is decided by the path itself ("C:\\x" or "\\\\server" = Windows) ---
bool is_windows_path(const std::string& p);
std::string join(const std::string& dir, const std::string& name);
std::string parent(const std::string& p);  // "" when there is none
std::string base_name(const std::string& p);

// True on Windows, or when the environment is a Windows one (tests probe Windows
// fixtures on Linux with SystemRoot set): then the Windows locations are searched.
bool windows_mode(const Env& env);
// PATH-style list: ';'-separated when it looks like a Windows list, else the OS separator.
std::vector<std::string> split_search_path(const std::string& list, bool windows);

// A child's timeout in words: "10 s", "500 ms", "2.5 s" (python.cpp; the framework checks say it too).
std::string seconds_text(std::chrono::milliseconds ms);

// --- discovery ---
struct Candidate {
  std::string path;                   // the interpreter as found (not resolved)
  std::vector<std::string> found_by;  // "--python", "venv", "conda", "PATH", "pyenv", ...
  std::string problem;                // set when the candidate cannot be used as given
};
// The Python environment gpuready's executable is installed in (a venv or conda environment whose bin/ or Scripts
// holds it: `pip install gpuready`), or nullopt.
std::optional<std::string> own_environment(const Os& os);
// Every interpreter worth looking at, deduplicated, in order of preference.
std::vector<Candidate> discover(const Os& os, const std::vector<std::string>& python_args,
                                std::vector<std::string>* notes);

// --- facts from files alone ---
struct FileFacts {
  std::string prefix;          // sys.prefix as the layout says
  std::string version;         // "3.12.3" or "3.12" ("" unknown)
  std::string version_source;  // "pyvenv.cfg", "conda-meta", "pyenv folder", "file name"
  bool is_venv = false;
  bool include_system_site = true;         // venv's include-system-site-packages
  std::string base_prefix;                 // a venv's base (from "home")
  std::vector<std::string> site_packages;  // existing folders, in sys.path order
  bool complete = false;                   // files answer everything running it would
};
FileFacts file_facts(const Os& os, const std::string& interpreter);

// Site folders of a prefix for one "X.Y" (existing ones only; Debian's dist-packages for /usr).
std::vector<std::string> layout_site_packages(const Os& os, const std::string& prefix, const std::string& xy);
// The user site folder (~/.local/lib/pythonX.Y/site-packages, %APPDATA%\Python\PythonXY\site-packages), "" if absent.
std::string user_site_packages(const Os& os, const std::string& xy, bool windows);

// --- packages ---
// True for the names gpuready reports (normalised names).
bool is_relevant_package(const std::string& normalized_name);
// The GPU-relevant packages installed in one site folder, with framework details.
// *error is set when the folder cannot be listed.
std::vector<PythonPackage> scan_site_packages(const Os& os, const std::string& site_dir, std::string* error);
// CUDA libraries and frameworks conda itself installed into a prefix (conda-meta/*.json).
std::vector<PythonPackage> scan_conda_meta(const Os& os, const std::string& prefix);

// What `roots` (and what they need, transitively) declare in Requires-Dist and applies in this
// environment, with what is installed (python_requirements.cpp).
std::vector<PythonRequirement> requirement_closure(const Os& os, const std::vector<std::string>& sites,
                                                   const std::vector<PythonPackage>& roots,
                                                   const parse::MarkerEnvironment& env);
// The marker environment of the interpreter probed: its version, this OS and this machine.
parse::MarkerEnvironment marker_environment_of(const Os& os, const std::string& python_version);

}  // namespace gpuready::python
