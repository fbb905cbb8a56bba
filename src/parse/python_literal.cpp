// Minimal Python literal reader for generated version files (see python_literal.h).
#include "parse/python_literal.h"

#include <cctype>
#include <cstring>

namespace gpuready::parse {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

size_t skip_blanks(std::string_view t, size_t pos) {
  while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\t')) ++pos;
  return pos;
}

}  // namespace

std::optional<std::string> py_string_at(std::string_view t, size_t pos, size_t* end) {
  // Up to two prefix letters (r, u, b, f in any case), then the quote.
  size_t p = pos;
  for (int i = 0; i < 2 && p < t.size() && std::strchr("rRuUbB", t[p]) != nullptr && t[p] != '\0'; ++i) ++p;
  if (p >= t.size() || (t[p] != '\'' && t[p] != '"')) return std::nullopt;
  const char q = t[p];
  // Triple quotes are not used by the generators; treat them as not-a-literal.
  if (p + 2 < t.size() && t[p + 1] == q && t[p + 2] == q) return std::nullopt;
  std::string out;
  for (size_t i = p + 1; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\n') return std::nullopt;  // unterminated on this line
    if (c == '\\' && i + 1 < t.size()) {
      const char n = t[++i];
      out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
      continue;
    }
    if (c == q) {
      if (end) *end = i + 1;
      return out;
    }
    out += c;
  }
  return std::nullopt;
}

PyValue py_value_at(std::string_view t, size_t pos, size_t* end) {
  PyValue v;
  pos = skip_blanks(t, pos);
  size_t e = pos;
  if (auto s = py_string_at(t, pos, &e)) {
    v.kind = PyValue::Kind::string;
    v.text = std::move(*s);
    if (end) *end = e;
    return v;
  }
  e = pos;
  while (e < t.size() && t[e] != ',' && t[e] != ')' && t[e] != ']' && t[e] != '}' && t[e] != '\n' && t[e] != '\r' &&
         t[e] != '#')
    ++e;
  std::string_view tok = t.substr(pos, e - pos);
  while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\t')) tok.remove_suffix(1);
  v.text = std::string(tok);
  if (tok == "True" || tok == "False") {
    v.kind = PyValue::Kind::boolean;
    v.flag = tok == "True";
  } else if (tok == "None") {
    v.kind = PyValue::Kind::none;
  }
  if (end) *end = e;
  return v;
}

std::vector<PyAssignment> py_assignments(std::string_view t) {
  std::vector<PyAssignment> out;
  size_t line_start = 0;
  while (line_start < t.size()) {
    size_t line_end = t.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = t.size();
    const std::string_view line = t.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    // Module level only: an indented line belongs to a function or a class.
    if (line.empty() || !is_ident_start(line[0])) continue;
    size_t p = 0;
    while (p < line.size() && is_ident(line[p])) ++p;
    PyAssignment a;
    a.name = std::string(line.substr(0, p));
    p = skip_blanks(line, p);
    if (p < line.size() && line[p] == ':') {  // annotation: skip to the '='
      const size_t eq = line.find('=', p);
      if (eq == std::string_view::npos) continue;
      p = eq;
    }
    if (p >= line.size() || line[p] != '=' || (p + 1 < line.size() && line[p + 1] == '=')) continue;
    a.value = py_value_at(line, p + 1, nullptr);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace gpuready::parse
