// Path helpers for both layouts and the conda environment search (see toolkits_layout.h).
#include "probe/toolkits_layout.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "parse/ascii.h"

namespace gpuready::probe_detail {

Layout host_layout() {
#ifdef _WIN32
  return Layout::windows;
#else
  return Layout::posix;
#endif
}

char sep(Layout l) { return l == Layout::windows ? '\\' : '/'; }
char list_sep(Layout l) { return l == Layout::windows ? ';' : ':'; }

static bool is_sep(Layout l, char c) { return c == '/' || (l == Layout::windows && c == '\\'); }

std::string normalize(Layout l, const std::string& p) {
  std::string out;
  out.reserve(p.size());
  for (char c : p) {
    if (is_sep(l, c)) {
      c = sep(l);
      // Keep a leading "\\\\server" pair on Windows; collapse doubles elsewhere.
      if (!out.empty() && out.back() == c && !(l == Layout::windows && out.size() == 1)) continue;
    }
    out += c;
  }
  while (out.size() > 1 && out.back() == sep(l) && !(l == Layout::windows && out.size() == 3 && out[1] == ':'))
    out.pop_back();
  return out;
}

std::string join(Layout l, const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (is_sep(l, a.back())) return a + b;
  return a + sep(l) + b;
}

std::string parent(Layout l, const std::string& p) {
  const std::string n = normalize(l, p);
  size_t pos = n.size();
  while (pos > 0 && !is_sep(l, n[pos - 1])) --pos;
  if (pos == 0) return "";
  if (pos == 1) return n.substr(0, 1);                                   // "/bin" -> "/"
  if (l == Layout::windows && pos == 3 && n[1] == ':') return n.substr(0, 3);  // "C:\\x" -> "C:\\"
  return n.substr(0, pos - 1);
}

std::string base_name(Layout l, const std::string& p) {
  const std::string n = normalize(l, p);
  size_t pos = n.size();
  while (pos > 0 && !is_sep(l, n[pos - 1])) --pos;
  return n.substr(pos);
}

bool is_absolute(Layout l, const std::string& p) {
  if (l == Layout::windows)
    return (p.size() >= 3 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':' && is_sep(l, p[2])) ||
           (p.size() >= 2 && is_sep(l, p[0]) && is_sep(l, p[1]));
  return !p.empty() && p[0] == '/';
}

bool same_name(Layout l, const std::string& a, const std::string& b) {
  return l == Layout::windows ? parse::iequals(a, b) : a == b;
}

std::string path_key(Layout l, const std::string& p) {
  const std::string n = normalize(l, p);
  return l == Layout::windows ? parse::ascii_lower(n) : n;
}

std::string canonical_or_self(const Os& os, Layout l, const std::string& p) {
  if (l == Layout::posix) {
    if (auto c = os.fs.canonical(p)) return *c;
  }
  return normalize(l, p);
}

std::vector<std::string> split_list(Layout l, const std::string& list, size_t cap, size_t* skipped) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  size_t dropped = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(list_sep(l), start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    start = end + 1;
    if (l == Layout::windows && item.size() >= 2 && item.front() == '"' && item.back() == '"')
      item = item.substr(1, item.size() - 2);
    if (item.empty() || !is_absolute(l, item) || out.size() >= cap) {
      ++dropped;
    } else if (!seen.insert(path_key(l, item)).second) {
      ++dropped;
    } else {
      out.push_back(normalize(l, item));
    }
    if (end == list.size()) break;
  }
  if (skipped) *skipped = dropped;
  return out;
}

std::string home_dir(const Os& os, Layout l) {
  auto h = os.env.get(l == Layout::windows ? "USERPROFILE" : "HOME");
  if (!h || h->empty() || !is_absolute(l, *h)) return "";
  return normalize(l, *h);
}

std::optional<std::string> read_small(const Os& os, const std::string& path, size_t max_bytes) {
  std::string err;
  return os.fs.read_file(path, max_bytes, &err);
}

std::vector<CondaEnv> find_conda_envs(const Os& os, Layout l) {
  std::vector<CondaEnv> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& prefix, const std::string& how) {
    if (prefix.empty() || !is_absolute(l, prefix) || out.size() >= 64) return;
    if (!os.fs.is_dir(join(l, prefix, "conda-meta"))) return;
    const std::string key = path_key(l, canonical_or_self(os, l, prefix));
    if (!seen.insert(key).second) return;
    out.push_back({normalize(l, prefix), how});
  };
  if (auto p = os.env.get("CONDA_PREFIX")) add(*p, "CONDA_PREFIX");

  const std::string home = home_dir(os, l);
  if (!home.empty()) {
    // conda records every env it created here, one prefix per line.
    const std::string txt = join(l, join(l, home, ".conda"), "environments.txt");
    if (auto t = read_small(os, txt)) {
      size_t pos = 0, lines = 0;
      while (pos < t->size() && ++lines <= 256) {
        size_t eol = t->find('\n', pos);
        if (eol == std::string::npos) eol = t->size();
        std::string line = t->substr(pos, eol - pos);
        pos = eol + 1;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        add(line, "environments.txt");
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> roots;  // (root, found_by)
  for (const char* name : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba"}) {
    if (!home.empty()) roots.emplace_back(join(l, home, name), std::string("~/") + name);
  }
  if (l == Layout::posix) {
    roots.emplace_back("/opt/conda", "/opt/conda");
    roots.emplace_back("/opt/miniconda3", "/opt/miniconda3");
  } else {
    roots.emplace_back("C:\\ProgramData\\miniconda3", "C:\\ProgramData\\miniconda3");
    roots.emplace_back("C:\\ProgramData\\anaconda3", "C:\\ProgramData\\anaconda3");
  }
  for (const auto& [root, how] : roots) {
    if (!os.fs.is_dir(root)) continue;
    add(root, how);
    std::string err;
    auto envs = os.fs.list_dir(join(l, root, "envs"), &err);
    if (!envs) continue;
    std::sort(envs->begin(), envs->end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    size_t n = 0;
    for (const auto& e : *envs) {
      if (!e.is_dir || ++n > 64) continue;
      add(join(l, join(l, root, "envs"), e.name), how);
    }
  }
  return out;
}

}  // namespace gpuready::probe_detail
