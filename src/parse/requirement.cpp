#include "parse/requirement.h"

#include <algorithm>
#include <cctype>

#include "parse/python_metadata.h"

namespace gpuready::parse {
namespace {

constexpr size_t kMaxRequirementText = 4096;
constexpr int kMaxMarkerDepth = 32;

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// --- markers: tokens, then a recursive-descent evaluation with three-valued logic -----------

struct Token {
  enum Kind { Open, Close, String, Word, Op } kind;
  std::string text;
};

std::optional<std::vector<Token>> tokenize(std::string_view m) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < m.size()) {
    const char c = m[i];
    if (space(c)) {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back({c == '(' ? Token::Open : Token::Close, {}});
      ++i;
    } else if (c == '"' || c == '\'') {
      const size_t end = m.find(c, i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      out.push_back({Token::String, std::string(m.substr(i + 1, end - i - 1))});
      i = end + 1;
    } else if (c == '<' || c == '>' || c == '=' || c == '!' || c == '~') {
      size_t j = i;
      while (j < m.size() && (m[j] == '<' || m[j] == '>' || m[j] == '=' || m[j] == '!' || m[j] == '~')) ++j;
      out.push_back({Token::Op, std::string(m.substr(i, j - i))});
      i = j;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
      size_t j = i;
      while (j < m.size() && (std::isalnum(static_cast<unsigned char>(m[j])) || m[j] == '_' || m[j] == '.')) ++j;
      out.push_back({Token::Word, std::string(m.substr(i, j - i))});
      i = j;
    } else {
      return std::nullopt;
    }
    if (out.size() > 512) return std::nullopt;
  }
  return out;
}

Truth and3(Truth a, Truth b) {
  if (a == Truth::False || b == Truth::False) return Truth::False;
  if (a == Truth::Unknown || b == Truth::Unknown) return Truth::Unknown;
  return Truth::True;
}
Truth or3(Truth a, Truth b) {
  if (a == Truth::True || b == Truth::True) return Truth::True;
  if (a == Truth::Unknown || b == Truth::Unknown) return Truth::Unknown;
  return Truth::False;
}
Truth of(bool b) { return b ? Truth::True : Truth::False; }

std::string canonical_variable(const std::string& w) {
  // The legacy dotted spellings PEP 345 used.
  if (w == "os.name") return "os_name";
  if (w == "sys.platform") return "sys_platform";
  if (w == "platform.version") return "platform_version";
  if (w == "platform.machine") return "platform_machine";
  if (w == "platform.python_implementation" || w == "python_implementation") return "platform_python_implementation";
  return w;
}

bool known_variable(const std::string& w) {
  static const char* const names[] = {"python_version",   "python_full_version", "os_name",
                                      "sys_platform",     "platform_release",    "platform_system",
                                      "platform_version", "platform_machine",    "platform_python_implementation",
                                      "implementation_name", "implementation_version", "extra"};
  for (const char* n : names)
    if (w == n) return true;
  return false;
}

struct MarkerEval {
  const std::vector<Token>& t;
  const MarkerEnvironment& env;
  std::string extra;  // normalised
  size_t i = 0;
  bool bad = false;

  bool at(Token::Kind k) const { return i < t.size() && t[i].kind == k; }
  bool word(const char* w) const { return at(Token::Word) && t[i].text == w; }

  // A value: a quoted string or a variable. `known` false for a variable without a value.
  bool value(std::string& out, bool& is_var, bool& known, std::string& var) {
    if (at(Token::String)) {
      out = t[i++].text;
      is_var = false;
      known = true;
      return true;
    }
    if (at(Token::Word)) {
      var = canonical_variable(t[i].text);
      if (!known_variable(var)) return false;
      ++i;
      is_var = true;
      if (var == "extra") {
        out = extra;
        known = true;
      } else if (auto it = env.find(var); it != env.end()) {
        out = it->second;
        known = true;
      } else {
        known = false;
      }
      return true;
    }
    return false;
  }

  Truth compare() {
    std::string l, r, lvar, rvar;
    bool lv = false, rv = false, lk = false, rk = false;
    if (!value(l, lv, lk, lvar)) return bad = true, Truth::Unknown;
    std::string op;
    if (at(Token::Op)) {
      op = t[i++].text;
    } else if (word("in")) {
      op = "in";
      ++i;
    } else if (word("not") && i + 1 < t.size() && t[i + 1].kind == Token::Word && t[i + 1].text == "in") {
      op = "not in";
      i += 2;
    } else {
      return bad = true, Truth::Unknown;
    }
    if (!value(r, rv, rk, rvar)) return bad = true, Truth::Unknown;
    if (!lk || !rk) return Truth::Unknown;
    if (lvar == "extra" || rvar == "extra") {
      // PEP 685: extras compare by their normalised names.
      l = normalize_package_name(l);
      r = normalize_package_name(r);
    }
    if (op == "in") return of(r.find(l) != std::string::npos);
    if (op == "not in") return of(r.find(l) == std::string::npos);
    static const char* const ops[] = {"===", "~=", "==", "!=", "<=", ">=", "<", ">"};
    bool valid = false;
    for (const char* o : ops) valid = valid || op == o;
    if (!valid) return bad = true, Truth::Unknown;
    // A version comparison where both sides read as versions; else a string comparison.
    if (op != "===" && Pep440Version::parse(l)) {
      if (auto spec = VersionSpecifier::parse(op + r)) return of(spec->contains(l));
    }
    if (op == "==" || op == "===") return of(l == r);
    if (op == "!=") return of(l != r);
    if (op == "<") return of(l < r);
    if (op == "<=") return of(l <= r);
    if (op == ">") return of(l > r);
    if (op == ">=") return of(l >= r);
    return Truth::Unknown;  // "~=" between strings that are not versions
  }

  Truth atom(int depth) {
    if (depth > kMaxMarkerDepth) return bad = true, Truth::Unknown;
    if (at(Token::Open)) {
      ++i;
      const Truth v = any(depth + 1);
      if (!at(Token::Close)) return bad = true, Truth::Unknown;
      ++i;
      return v;
    }
    return compare();
  }
  Truth all(int depth) {
    Truth v = atom(depth);
    while (!bad && word("and")) {
      ++i;
      v = and3(v, atom(depth));
    }
    return v;
  }
  Truth any(int depth) {
    Truth v = all(depth);
    while (!bad && word("or")) {
      ++i;
      v = or3(v, all(depth));
    }
    return v;
  }
};

}  // namespace

std::optional<Requirement> parse_requirement(std::string_view text) {
  if (text.size() > kMaxRequirementText) return std::nullopt;
  Requirement r;
  std::string_view body = text;
  // The marker starts at the first ';' outside a URL (a URL has no ';' before its own marker
  // separator "; " in practice, and PEP 508 requires whitespace before ';' after a URL).
  if (const size_t semi = body.find(';'); semi != std::string_view::npos) {
    r.marker = std::string(trim(body.substr(semi + 1)));
    body = body.substr(0, semi);
  }
  body = trim(body);
  size_t i = 0;
  while (i < body.size() && name_char(body[i])) ++i;
  if (i == 0) return std::nullopt;
  const std::string_view raw_name = body.substr(0, i);
  if (!std::isalnum(static_cast<unsigned char>(raw_name.front())) ||
      !std::isalnum(static_cast<unsigned char>(raw_name.back())))
    return std::nullopt;
  r.name = normalize_package_name(raw_name);
  std::string_view rest = trim(body.substr(i));
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view list = rest.substr(1, close - 1);
    while (!list.empty()) {
      const size_t comma = list.find(',');
      const std::string_view e = trim(list.substr(0, comma));
      if (!e.empty()) {
        for (char c : e)
          if (!name_char(c)) return std::nullopt;
        r.extras.push_back(normalize_package_name(e));
      }
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    rest = trim(rest.substr(close + 1));
  }
  if (!rest.empty() && rest.front() == '@') {
    r.url = std::string(trim(rest.substr(1)));
    if (r.url.empty()) return std::nullopt;
    return r;
  }
  auto spec = VersionSpecifier::parse(rest);
  if (!spec) return std::nullopt;
  r.specifier = std::move(*spec);
  return r;
}

Truth evaluate_marker(std::string_view marker, const MarkerEnvironment& env, std::string_view extra) {
  if (trim(marker).empty()) return Truth::True;
  if (marker.size() > kMaxRequirementText) return Truth::Unknown;
  const auto tokens = tokenize(marker);
  if (!tokens || tokens->empty()) return Truth::Unknown;
  MarkerEval e{*tokens, env, normalize_package_name(extra)};
  const Truth v = e.any(0);
  if (e.bad || e.i != tokens->size()) return Truth::Unknown;
  return v;
}

std::vector<std::string> marker_extras(std::string_view marker) {
  std::vector<std::string> out;
  const auto tokens = tokenize(marker);
  if (!tokens) return out;
  const auto& t = *tokens;
  for (size_t k = 0; k + 2 < t.size(); ++k) {
    const bool var_first = t[k].kind == Token::Word && t[k].text == "extra" && t[k + 1].kind == Token::Op &&
                           t[k + 1].text == "==" && t[k + 2].kind == Token::String;
    const bool str_first = t[k].kind == Token::String && t[k + 1].kind == Token::Op && t[k + 1].text == "==" &&
                           t[k + 2].kind == Token::Word && t[k + 2].text == "extra";
    if (var_first || str_first) {
      std::string e = normalize_package_name(var_first ? t[k + 2].text : t[k].text);
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(std::move(e));
    }
  }
  return out;
}

MarkerEnvironment marker_environment(std::string_view python_version, std::string_view os, std::string_view machine) {
  MarkerEnvironment env;
  if (os == "linux") {
    env = {{"platform_system", "Linux"}, {"sys_platform", "linux"}, {"os_name", "posix"}};
  } else if (os == "windows") {
    env = {{"platform_system", "Windows"}, {"sys_platform", "win32"}, {"os_name", "nt"}};
  } else if (os == "darwin" || os == "macos") {
    env = {{"platform_system", "Darwin"}, {"sys_platform", "darwin"}, {"os_name", "posix"}};
  }
  if (!machine.empty()) {
    // Windows' Python reports AMD64/ARM64 (platform.machine()); Linux reports the kernel's name.
    if (os == "windows") env["platform_machine"] = machine == "x86_64" ? "AMD64" : machine == "aarch64" ? "ARM64" : std::string(machine);
    else env["platform_machine"] = std::string(machine);
  }
  if (auto v = Pep440Version::parse(python_version); v && v->release.size() >= 2) {
    env["python_version"] = std::to_string(v->release[0]) + "." + std::to_string(v->release[1]);
    env["python_full_version"] = std::string(trim(python_version));
    env["implementation_version"] = std::string(trim(python_version));
    env["implementation_name"] = "cpython";
    env["platform_python_implementation"] = "CPython";
  }
  return env;
}

}  // namespace gpuready::parse
