// Reading the few Python literals that generated version files hold (torch/version.py,
// tensorflow/python/platform/build_info.py) without running Python: quoted strings,
// True/False/None, and "name = value" lines. Pure and non-throwing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

// One Python value, as far as these files need it.
struct PyValue {
  enum class Kind { string, boolean, none, other };
  Kind kind = Kind::other;
  std::string text;   // the string's contents; "True"/"False"/"None"; raw text for other
  bool flag = false;  // for boolean
};

// A quoted string literal ('..', "..", with an optional r/u/b prefix) starting at text[pos];
// on success *end is set past the closing quote. Escapes are kept minimal (\' \" \\ \n).
std::optional<std::string> py_string_at(std::string_view text, size_t pos, size_t* end);

// The value starting at text[pos] (after skipping spaces): a string, True/False/None, or
// "other" holding the rest of the token up to ',', ')', ']', '}' or the end of the line.
PyValue py_value_at(std::string_view text, size_t pos, size_t* end);

// Module-level assignments "name = value" and "name: Annotation = value", one per line,
// in file order. Lines that are not such assignments are skipped.
struct PyAssignment {
  std::string name;
  PyValue value;
};
std::vector<PyAssignment> py_assignments(std::string_view text);

}  // namespace gpuready::parse
