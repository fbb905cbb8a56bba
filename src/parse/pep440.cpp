#include "parse/pep440.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace gpuready::parse {
namespace {

constexpr size_t kMaxVersionText = 256;
constexpr size_t kMaxDigits = 18;  // fits a long; longer numbers are not versions anyone writes

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return digit(c) || (c >= 'a' && c <= 'z'); }
bool sep(char c) { return c == '-' || c == '_' || c == '.'; }

struct Cursor {
  std::string s;  // lower-cased
  size_t i = 0;
  [[nodiscard]] bool done() const { return i >= s.size(); }
  [[nodiscard]] char peek(size_t k = 0) const { return i + k < s.size() ? s[i + k] : '\0'; }
  bool number(long& out) {
    size_t j = i;
    while (j < s.size() && digit(s[j])) ++j;
    if (j == i || j - i > kMaxDigits) return false;
    out = std::stol(s.substr(i, j - i));
    i = j;
    return true;
  }
  // Consumes one of the words (longest first as listed) at the cursor; "" when none.
  std::string word(std::initializer_list<std::string_view> words) {
    for (auto w : words)
      if (s.compare(i, w.size(), w) == 0) {
        i += w.size();
        return std::string(w);
      }
    return {};
  }
};

// [sep] word [sep] [number]: the pre, post and dev segments. Restores the cursor when absent.
bool tagged(Cursor& c, std::initializer_list<std::string_view> words, std::string& tag, long& n, bool& had_n) {
  const size_t start = c.i;
  if (sep(c.peek())) ++c.i;
  tag = c.word(words);
  if (tag.empty()) {
    c.i = start;
    return false;
  }
  const size_t after_tag = c.i;
  if (sep(c.peek()) && digit(c.peek(1))) ++c.i;
  had_n = digit(c.peek()) && c.number(n);
  if (!had_n) {
    c.i = after_tag;
    n = 0;
  }
  return true;
}

// Trailing zeros do not count: 1.0 == 1.0.0.
std::vector<long> trimmed(const std::vector<long>& r) {
  std::vector<long> t = r;
  while (t.size() > 1 && t.back() == 0) t.pop_back();
  return t;
}

bool is_number(const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), digit); }

std::strong_ordering compare_local(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  // No label sorts first; numeric segments sort after alphanumeric ones, numbers by value.
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    const bool na = is_number(a[k]), nb = is_number(b[k]);
    if (na != nb) return na ? std::strong_ordering::greater : std::strong_ordering::less;
    if (na) {
      const auto x = a[k].find_first_not_of('0'), y = b[k].find_first_not_of('0');
      const std::string da = x == std::string::npos ? "" : a[k].substr(x), db = y == std::string::npos ? "" : b[k].substr(y);
      if (da.size() != db.size()) return da.size() <=> db.size();
      if (auto c = da.compare(db); c != 0) return c <=> 0;
    } else if (auto c = a[k].compare(b[k]); c != 0) {
      return c <=> 0;
    }
  }
  return a.size() <=> b.size();
}

Pep440Version base_of(const Pep440Version& v) {
  Pep440Version b;
  b.epoch = v.epoch;
  b.release = v.release;
  return b;
}

bool equal_public(const Pep440Version& a, const Pep440Version& b) { return a.public_part() == b.public_part(); }

bool prefix_match(const Pep440Version& candidate, const Pep440Version& prefix) {
  if (candidate.epoch != prefix.epoch) return false;
  for (size_t k = 0; k < prefix.release.size(); ++k) {
    const long have = k < candidate.release.size() ? candidate.release[k] : 0;
    if (have != prefix.release[k]) return false;
  }
  return true;
}

bool clause_contains(const VersionClause& c, const Pep440Version& v) {
  if (c.op == "==" || c.op == "!=") {
    bool eq = false;
    if (c.version.size() > 2 && c.version.ends_with(".*")) {
      const auto prefix = Pep440Version::parse(std::string_view(c.version).substr(0, c.version.size() - 2));
      eq = prefix && prefix_match(v, *prefix);
    } else {
      const auto want = Pep440Version::parse(c.version);
      eq = want && (want->local.empty() ? equal_public(v, *want) : v == *want);
    }
    return c.op == "==" ? eq : !eq;
  }
  if (c.op == "~=") {
    const auto want = Pep440Version::parse(c.version);
    if (!want || want->release.size() < 2) return false;
    Pep440Version prefix;
    prefix.epoch = want->epoch;
    prefix.release.assign(want->release.begin(), want->release.end() - 1);
    return v.public_part() >= *want && prefix_match(v, prefix);
  }
  const auto want = Pep440Version::parse(c.version);
  if (!want) return false;
  if (c.op == "<=") return v.public_part() <= *want;
  if (c.op == ">=") return v.public_part() >= *want;
  if (c.op == "<") {
    if (!(v < *want)) return false;
    // "<2.0" does not take 2.0rc1 unless the clause itself names a pre-release.
    return want->is_prerelease() || !v.is_prerelease() || !(base_of(v) == base_of(*want));
  }
  if (c.op == ">") {
    if (!(v > *want)) return false;
    if (!want->is_postrelease() && v.is_postrelease() && base_of(v) == base_of(*want)) return false;
    return !(!v.local.empty() && base_of(v) == base_of(*want));
  }
  return false;
}

}  // namespace

std::optional<Pep440Version> Pep440Version::parse(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty() || text.size() > kMaxVersionText) return std::nullopt;
  Cursor c;
  c.s.reserve(text.size());
  for (char ch : text) c.s.push_back(lower(ch));
  Pep440Version v;
  if (c.peek() == 'v') ++c.i;
  long n = 0;
  if (!c.number(n)) return std::nullopt;
  if (c.peek() == '!') {
    v.epoch = n;
    ++c.i;
    if (!c.number(n)) return std::nullopt;
  }
  v.release.push_back(n);
  while (c.peek() == '.' && digit(c.peek(1))) {
    ++c.i;
    if (!c.number(n)) return std::nullopt;
    v.release.push_back(n);
    if (v.release.size() > 64) return std::nullopt;
  }
  std::string tag;
  bool had_n = false;
  if (tagged(c, {"alpha", "a", "beta", "b", "preview", "pre", "rc", "c"}, tag, v.pre, had_n)) {
    v.pre_phase = (tag == "alpha" || tag == "a") ? 0 : (tag == "beta" || tag == "b") ? 1 : 2;
  }
  if (c.peek() == '-' && digit(c.peek(1))) {
    ++c.i;
    if (!c.number(v.post)) return std::nullopt;
  } else if (tagged(c, {"post", "rev", "r"}, tag, n, had_n)) {
    v.post = n;
  }
  if (tagged(c, {"dev"}, tag, n, had_n)) v.dev = n;
  if (c.peek() == '+') {
    ++c.i;
    std::string seg;
    while (!c.done()) {
      const char ch = c.peek();
      if (alnum(ch)) {
        seg.push_back(ch);
      } else if (sep(ch) && !seg.empty()) {
        v.local.push_back(seg);
        seg.clear();
      } else {
        return std::nullopt;
      }
      ++c.i;
    }
    if (seg.empty()) return std::nullopt;
    v.local.push_back(seg);
  }
  if (!c.done()) return std::nullopt;
  return v;
}

Pep440Version Pep440Version::public_part() const {
  Pep440Version p = *this;
  p.local.clear();
  return p;
}

std::string Pep440Version::str() const {
  std::string s;
  if (epoch) s += std::to_string(epoch) + "!";
  for (size_t k = 0; k < release.size(); ++k) s += (k ? "." : "") + std::to_string(release[k]);
  if (pre_phase >= 0) s += std::string(pre_phase == 0 ? "a" : pre_phase == 1 ? "b" : "rc") + std::to_string(pre);
  if (post >= 0) s += ".post" + std::to_string(post);
  if (dev >= 0) s += ".dev" + std::to_string(dev);
  for (size_t k = 0; k < local.size(); ++k) s += (k ? "." : "+") + local[k];
  return s;
}

std::strong_ordering operator<=>(const Pep440Version& a, const Pep440Version& b) {
  if (auto c = a.epoch <=> b.epoch; c != 0) return c;
  if (auto c = trimmed(a.release) <=> trimmed(b.release); c != 0) return c;
  // The pre-release key: a dev-only release sorts before any pre-release; no pre-release sorts last.
  auto pre_key = [](const Pep440Version& v) -> std::pair<long, long> {
    if (v.pre_phase < 0 && v.post < 0 && v.dev >= 0) return {-2, 0};
    if (v.pre_phase < 0) return {3, 0};
    return {v.pre_phase, v.pre};
  };
  if (auto c = pre_key(a) <=> pre_key(b); c != 0) return c;
  if (auto c = a.post <=> b.post; c != 0) return c;  // -1 (none) sorts first
  auto dev_key = [](const Pep440Version& v) { return v.dev < 0 ? std::numeric_limits<long>::max() : v.dev; };
  if (auto c = dev_key(a) <=> dev_key(b); c != 0) return c;
  return compare_local(a.local, b.local);
}

std::optional<VersionSpecifier> VersionSpecifier::parse(std::string_view text) {
  std::string t;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) t.push_back(ch);
  if (t.size() >= 2 && t.front() == '(' && t.back() == ')') t = t.substr(1, t.size() - 2);
  VersionSpecifier spec;
  if (t.empty()) return spec;
  size_t pos = 0;
  while (pos <= t.size()) {
    size_t comma = t.find(',', pos);
    if (comma == std::string::npos) comma = t.size();
    const std::string clause = t.substr(pos, comma - pos);
    pos = comma + 1;
    VersionClause c;
    for (std::string_view op : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"})
      if (clause.starts_with(op)) {
        c.op = std::string(op);
        break;
      }
    if (c.op.empty()) return std::nullopt;
    c.version = clause.substr(c.op.size());
    if (c.version.empty()) return std::nullopt;
    if (c.op != "===") {
      const bool wildcard = c.version.ends_with(".*");
      if (wildcard && c.op != "==" && c.op != "!=") return std::nullopt;
      const auto v = Pep440Version::parse(wildcard ? std::string_view(c.version).substr(0, c.version.size() - 2)
                                                   : std::string_view(c.version));
      if (!v) return std::nullopt;
      if (c.op == "~=" && v->release.size() < 2) return std::nullopt;
    }
    spec.clauses.push_back(std::move(c));
    if (spec.clauses.size() > 64) return std::nullopt;
    if (comma == t.size()) break;
  }
  return spec;
}

bool VersionSpecifier::contains(std::string_view version) const {
  const auto v = Pep440Version::parse(version);
  for (const auto& c : clauses) {
    if (c.op == "===") {
      std::string a(version), b(c.version);
      std::transform(a.begin(), a.end(), a.begin(), lower);
      std::transform(b.begin(), b.end(), b.begin(), lower);
      if (a != b) return false;
      continue;
    }
    if (!v || !clause_contains(c, *v)) return false;
  }
  return true;
}

std::string VersionSpecifier::str() const {
  std::string s;
  for (const auto& c : clauses) s += (s.empty() ? "" : ",") + c.op + c.version;
  return s;
}

}  // namespace gpuready::parse
