// The literal texts a regular expression's every match must contain: what lets explain run a
// signature's pattern only on the lines that could match it (found in one pass by LiteralSet).
#include <string>
#include <string_view>
#include <vector>

#include "explain/explainer.h"
#include "parse/ascii.h"

namespace gpuready::explain {
namespace {

// The end of the group that opens at p[i] == '(' (the index of its ')'), or npos.
size_t group_end(const std::string& p, size_t i) {
  int depth = 0;
  for (; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '[') {
      i = p.find(']', i + (p.size() > i + 1 && p[i + 1] == ']' ? 2 : 1));  // "[]...]" keeps ']' literal
      if (i == std::string::npos) return std::string::npos;
    } else if (p[i] == '(') {
      ++depth;
    } else if (p[i] == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

// The branches of p split at its top-level '|'.
std::vector<std::string> top_branches(const std::string& p) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '[' || p[i] == '(') {
      const size_t e = p[i] == '[' ? p.find(']', i + (i + 1 < p.size() && p[i + 1] == ']' ? 2 : 1)) : group_end(p, i);
      if (e == std::string::npos) return {p};
      i = e;
    } else if (p[i] == '|') {
      out.push_back(p.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(p.substr(start));
  return out;
}

// The longest run of literal text every match of one branch contains (as written), or "".
std::string branch_literal(const std::string& b) {
  std::string best, run;
  auto flush = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (size_t i = 0; i < b.size(); ++i) {
    const char ch = b[i];
    if (ch == '\\' && i + 1 < b.size()) {
      const char e = b[++i];
      if (std::string_view(".()[]{}\\?*+|^$/'\"-").find(e) != std::string_view::npos) {
        run += e;
      } else {
        flush();  // a class (\d \w \s), an anchor (\b) or a back-reference
        continue;
      }
    } else if (ch == '[' || ch == '(') {
      flush();
      const size_t e = ch == '[' ? b.find(']', i + (i + 1 < b.size() && b[i + 1] == ']' ? 2 : 1)) : group_end(b, i);
      if (e == std::string::npos) return best;
      i = e;
      continue;
    } else if (ch == '?' || ch == '*' || ch == '{') {
      if (!run.empty()) run.pop_back();  // the atom before it is optional
      flush();
      if (ch == '{') {
        const size_t e = b.find('}', i);
        if (e == std::string::npos) return best;
        i = e;
      }
      continue;
    } else if (ch == '+') {
      flush();  // the atom before it is there at least once; what follows it may not be next to it
      continue;
    } else if (ch == '.' || ch == '^' || ch == '$' || ch == '|') {
      flush();
      continue;
    } else {
      run += ch;
    }
    // A quantifier after this literal makes it optional: look ahead.
    if (i + 1 < b.size() && (b[i + 1] == '?' || b[i + 1] == '*' || b[i + 1] == '{')) {
      run.pop_back();
      flush();
    }
  }
  flush();
  return best;
}

}  // namespace

std::vector<std::string> required_literals(const std::string& pattern) {
  std::vector<std::string> out;
  for (const auto& b : top_branches(pattern)) {
    // A branch that is one group, "(?:...)" or "(...)", has its content's literals.
    if (!b.empty() && b[0] == '(' && group_end(b, 0) == b.size() - 1) {
      const size_t open = b.compare(0, 3, "(?:") == 0 ? 3 : 1;
      const auto inner = required_literals(b.substr(open, b.size() - 1 - open));
      if (inner.empty()) return {};
      out.insert(out.end(), inner.begin(), inner.end());
      continue;
    }
    const std::string lit = parse::ascii_lower(branch_literal(b));
    if (lit.size() >= 3) {
      out.push_back(lit);
      continue;
    }
    // No literal outside groups: a leading group that is not optional has its own.
    const size_t e = b.empty() || b[0] != '(' ? std::string::npos : group_end(b, 0);
    if (e != std::string::npos &&
        (e + 1 >= b.size() || std::string_view("?*{").find(b[e + 1]) == std::string_view::npos)) {
      const size_t open = b.compare(0, 3, "(?:") == 0 ? 3 : 1;
      const auto inner = required_literals(b.substr(open, e - open));
      if (!inner.empty()) {
        out.insert(out.end(), inner.begin(), inner.end());
        continue;
      }
    }
    return {};  // one branch without a usable literal: always run the pattern
  }
  return out;
}


}  // namespace gpuready::explain
