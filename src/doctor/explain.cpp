// Matching pasted errors against the signature table, line by line, and adding what this
// machine's snapshot says about the libraries and versions the error names.
#include "doctor/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "parse/ascii.h"
#include "platform/os.h"

namespace gpuready::doctor {
namespace {

// What the machine says about a library file name the error mentions.
void library_facts(const Snapshot& s, const std::string& name, std::vector<std::string>& out) {
  const std::string want = parse::ascii_lower(path_file_name(name));
  std::vector<std::string> where;
  for (const auto& c : s.libraries.copies)
    if (parse::ascii_lower(c.file_name) == want || parse::ascii_lower(c.soname) == want) where.push_back(c.path);
  bool resolved = false;
  for (const auto& r : s.libraries.resolutions)
    if (parse::ascii_lower(r.soname) == want && r.path.has()) {
      out.push_back(fmt::format("this machine: the loader finds {} at {} (via {})", r.soname, r.path.value(), r.via));
      resolved = true;
    }
  if (where.empty()) {
    out.push_back(fmt::format("this machine: no copy of {} was found", path_file_name(name)));
    return;
  }
  for (const auto& w : where) out.push_back("this machine: " + path_file_name(name) + " is at " + w);
  if (!resolved) out.push_back("this machine: but the loader does not search that folder (see the fix)");
}

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

Explainer::Explainer(const knowledge::Compat& k) {
  for (const auto& row : k.error_signatures) {
    try {
      sigs_.push_back({&row, std::regex(row.pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize),
                       row.pattern.find("\\s") != std::string::npos, required_literals(row.pattern)});
    } catch (const std::regex_error& e) {
      throw std::logic_error("error signature " + row.code + ": the pattern does not compile: " + e.what());
    }
  }
}

const Explainer& Explainer::embedded() {
  static const Explainer e(knowledge::Compat::embedded());
  return e;
}

std::vector<ExplainMatch> Explainer::explain(std::string_view text, const Snapshot* machine) const {
  if (text.size() > kMaxBytes) text = text.substr(0, kMaxBytes);
  const std::string lower = parse::ascii_lower(text);
  std::vector<std::string> lines;
  for (size_t pos = 0; pos <= text.size();) {
    const size_t nl = text.find('\n', pos);
    std::string line(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > kMaxLine) line.resize(kMaxLine);  // std::regex recurses per character
    lines.push_back(std::move(line));
  }
  std::vector<ExplainMatch> out;
  std::vector<std::string> seen_codes;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (parse::trim(line).empty()) continue;
    // Some messages wrap over lines (NumPy's, JAX's cuDNN list): patterns that allow
    // whitespace also try this line with the next four, when the match starts on this line.
    std::string window = line;
    for (size_t j = i + 1; j < lines.size() && j < i + 5; ++j) window += "\n" + lines[j];
    const std::string line_lower = parse::ascii_lower(line);
    std::string window_lower;
    for (const auto& sig : sigs_) {
      // std::regex is slow: a pattern runs only where one of its required literals is present.
      if (!sig.literals.empty()) {
        const std::string* hay = &line_lower;
        if (sig.multiline && window.size() > line.size()) {
          if (window_lower.empty()) window_lower = parse::ascii_lower(window);
          hay = &window_lower;
        }
        if (std::none_of(sig.literals.begin(), sig.literals.end(),
                         [&](const std::string& l) { return hay->find(l) != std::string::npos; }))
          continue;
      }
      std::smatch m;
      bool hit = std::regex_search(line, m, sig.re);
      if (!hit && sig.multiline && window.size() > line.size()) {
        hit = std::regex_search(window, m, sig.re) && static_cast<size_t>(m.position(0)) < line.size();
      }
      if (!hit) continue;
      // A generic row counts only when the paste is about what its `context` names.
      if (!sig.row->context.empty() && lower.find(parse::ascii_lower(sig.row->context)) == std::string::npos) continue;
      if (std::find(seen_codes.begin(), seen_codes.end(), sig.row->code) != seen_codes.end()) break;
      seen_codes.push_back(sig.row->code);
      ExplainMatch x;
      x.code = sig.row->code;
      x.title = sig.row->title;
      x.cause = sig.row->cause;
      x.fix = sig.row->fix;
      x.harmless = parse::ascii_lower(sig.row->cause).rfind("harmless", 0) == 0;
      const std::string shown(parse::trim(line));
      x.evidence.push_back("your text: " + (shown.size() > 300 ? shown.substr(0, 300) + "..." : shown));
      for (size_t g = 1; g < m.size(); ++g) x.groups.push_back(m[g].matched ? m[g].str() : "");
      if (machine) {
        // Library file names in the matched text: "libcudnn.so.8", "cudart64_110.dll".
        static const std::regex lib_name(R"([A-Za-z0-9_+-]+(\.so(\.[0-9]+)*|\.dll)\b)", std::regex::icase);
        std::vector<std::string> libs;
        const std::string matched = m[0].str();
        for (auto it = std::sregex_iterator(matched.begin(), matched.end(), lib_name); it != std::sregex_iterator(); ++it)
          if (std::find(libs.begin(), libs.end(), it->str()) == libs.end()) libs.push_back(it->str());
        for (const auto& l : libs) library_facts(*machine, l, x.evidence);
        const bool about_driver = x.code.find("driver") != std::string::npos || x.code == "cuda.unsupported-ptx";
        if (about_driver && machine->nvidia.driver_version.has())
          x.evidence.push_back(fmt::format("this machine: driver {}, which runs CUDA up to {}",
                                           machine->nvidia.driver_version.value(),
                                           machine->nvidia.cuda_driver_version.has()
                                               ? machine->nvidia.cuda_driver_version.value()
                                               : std::string("?")));
      }
      out.push_back(std::move(x));
      break;  // one signature per line: the first (most specific) in table order
    }
  }
  std::stable_partition(out.begin(), out.end(), [](const ExplainMatch& m) { return !m.harmless; });
  return out;
}

nlohmann::json explain_to_json(const std::vector<ExplainMatch>& matches) {
  nlohmann::json j;
  j["schema"] = kExplainSchema;
  j["recognised"] = !matches.empty();
  j["matches"] = nlohmann::json::array();
  for (const auto& m : matches)
    j["matches"].push_back({{"code", m.code},
                            {"title", m.title},
                            {"cause", m.cause},
                            {"fix", m.fix},
                            {"evidence", m.evidence},
                            {"groups", m.groups},
                            {"harmless", m.harmless}});
  return j;
}

}  // namespace gpuready::doctor
