// Finding Python interpreters (--python, $VIRTUAL_ENV, $CONDA_PREFIX, PATH, pyenv, conda
// roots and environments.txt, Windows install folders) and what their files say without
// running them (pyvenv.cfg, conda-meta, pyenv folder names, site-packages layout).
#include <algorithm>
#include <cctype>
#include <set>

#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "parse/python_metadata.h"
#include "parse/pyvenv_cfg.h"
#include "probe/python_internal.h"

namespace gpuready::python {
namespace {

// Bounds against hostile input: a PATH of thousands of entries, a huge envs/ folder.
constexpr size_t kMaxPathDirs = 64;
constexpr size_t kMaxDirEntries = 20000;
constexpr size_t kMaxEnvsPerRoot = 64;
constexpr size_t kMaxCandidates = 48;

std::optional<std::string> env_get(const Env& env, const char* name) {
  auto v = env.get(name);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

std::string home_dir(const Env& env, bool windows) {
  if (windows) {
    if (auto u = env_get(env, "USERPROFILE")) return *u;
  }
  return env_get(env, "HOME").value_or("");
}

// "X.Y" of a version text ("3.12.3" -> "3.12"), "" when it has no minor.
std::string major_minor(const std::string& v) {
  const size_t a = v.find('.');
  if (a == std::string::npos) return {};
  const size_t b = v.find('.', a + 1);
  return v.substr(0, b);
}

// An interpreter inside an environment folder (venv, conda env, install root).
std::string interpreter_in(const Fs& fs, const std::string& prefix) {
  const std::vector<std::string> names =
      is_windows_path(prefix)
          ? std::vector<std::string>{"python.exe", "Scripts\\python.exe"}
          : std::vector<std::string>{"bin/python3", "bin/python", "python.exe", "Scripts/python.exe"};
  for (const auto& n : names) {
    const std::string p = join(prefix, n);
    if (fs.exists(p) && !fs.is_dir(p)) return p;
  }
  // A dangling link (a venv whose base Python was removed) is still that environment's interpreter.
  for (const auto& n : names) {
    const std::string p = join(prefix, n);
    if (fs.read_link(p)) return p;
  }
  return {};
}

// The names an interpreter has in a PATH folder, best first: python3, python, python3.N.
int interpreter_rank(const std::string& name, bool windows) {
  if (windows) {
    const std::string l = parse::ascii_lower(name);
    if (l == "python.exe") return 1;
    if (l == "python3.exe") return 0;
    return -1;
  }
  if (name == "python3") return 0;
  if (name == "python") return 1;
  if (name.rfind("python3.", 0) == 0 && parse::all_digits(name.substr(8)) && name.size() <= 11) return 2;
  return -1;
}

// A pyenv shim is a small bash script that runs "pyenv exec": running it costs a bash and
// pyenv start-up (~0.3 s) and it only picks one of the versions we read directly anyway.
bool is_pyenv_shim(const Fs& fs, const std::string& path) {
  std::string err;
  auto head = fs.read_file(path, 512, &err);
  return head && head->rfind("#!", 0) == 0 && head->find("pyenv") != std::string::npos;
}

struct Collector {
  const Os& os;
  bool windows;
  std::vector<Candidate> list;
  std::vector<std::string> keys;
  std::vector<std::string>* notes;
  bool full_noted = false;

  std::string key_of(const std::string& path) const {
    // The folder counts as much as the file: a venv's bin/python is a link to /usr/bin/python3.12
    // but is another environment (its pyvenv.cfg decides sys.prefix).
    const std::string dir = parent(path);
    std::string k = os.fs.canonical(dir).value_or(dir) + "|" + os.fs.canonical(path).value_or(path);
    return is_windows_path(path) ? parse::ascii_lower(k) : k;
  }

  // On Windows only a Windows path names a folder: under Wine (or MSYS2, Cygwin) the environment
  // also carries Unix paths (PYENV_ROOT=/root/.pyenv) that no Windows program can run from.
  // An absolute path of this OS: a relative one ("", ".", "venv/bin") names the current folder,
  // which gpuready never runs anything from.
  bool usable(const std::string& path) const { return windows ? is_windows_path(path) : !path.empty() && path[0] == '/'; }

  void add(const std::string& path, const std::string& found_by, const std::string& problem = {}) {
    if (path.empty()) return;
    const std::string k = problem.empty() ? key_of(path) : "problem|" + path;
    for (size_t i = 0; i < list.size(); ++i) {
      if (keys[i] != k) continue;
      auto& fb = list[i].found_by;
      if (std::find(fb.begin(), fb.end(), found_by) == fb.end()) fb.push_back(found_by);
      return;
    }
    if (list.size() >= kMaxCandidates) {
      if (!full_noted && notes)
        notes->push_back("python: more than " + std::to_string(kMaxCandidates) +
                         " interpreters; the rest were skipped");
      full_noted = true;
      return;
    }
    list.push_back(Candidate{path, {found_by}, problem});
    keys.push_back(k);
  }

  // Adds an interpreter path, or why it cannot be used (a dangling link or a link loop).
  void add_checked(const std::string& path, const std::string& found_by, const std::string& label) {
    if (os.fs.exists(path)) {
      add(path, found_by);
    } else if (auto target = os.fs.read_link(path)) {
      add(path, found_by, label + path + " is a link to " + *target + ", which does not exist or loops");
    } else {
      add(path, found_by, label + path + ": no such file");
    }
  }

  void add_prefix(const std::string& prefix, const std::string& found_by) {
    if (!os.fs.is_dir(prefix)) return;
    const std::string p = interpreter_in(os.fs, prefix);
    if (!p.empty()) add_checked(p, found_by, "");
  }

  // A path the user named: an interpreter, or an environment folder holding one.
  void add_argument(const std::string& arg) {
    if (arg.empty()) return;
    if (os.fs.is_dir(arg)) {
      const std::string inside = interpreter_in(os.fs, arg);
      if (inside.empty())
        add(arg, "--python",
            "--python " + arg +
                ": a folder with no Python interpreter in it (looked for bin/python3, bin/python, python.exe, "
                "Scripts\\python.exe)");
      else
        add_checked(inside, "--python", "--python: ");
      return;
    }
    add_checked(arg, "--python", "--python: ");
  }

  void scan_path(bool* saw_shim) {
    auto path_var = env_get(os.env, "PATH");
    if (!path_var) path_var = env_get(os.env, "Path");  // a Windows environment block keeps its own spelling
    if (!path_var) return;
    std::vector<std::string> dirs = split_search_path(*path_var, windows);
    if (dirs.size() > kMaxPathDirs) {
      if (notes)
        notes->push_back("python: PATH has " + std::to_string(dirs.size()) + " entries; only the first " +
                         std::to_string(kMaxPathDirs) + " were searched");
      dirs.resize(kMaxPathDirs);
    }
    std::set<std::string> seen;
    size_t relative = 0;
    for (const auto& dir : dirs) {
      if (!usable(dir)) {
        ++relative;
        continue;
      }
      if (!seen.insert(dir).second) continue;
      // Windows' App Execution Aliases (…\Microsoft\WindowsApps\python.exe) open the Store
      // when no Store Python is installed; running one would not answer.
      if (windows && parse::ascii_lower(dir).find("windowsapps") != std::string::npos) continue;
      std::string err;
      auto entries = os.fs.list_dir(dir, &err);
      if (!entries) continue;
      std::vector<std::pair<int, std::string>> found;
      for (size_t i = 0; i < entries->size() && i < kMaxDirEntries; ++i) {
        const auto& e = (*entries)[i];
        const int r = interpreter_rank(e.name, windows);
        if (r >= 0 && !e.is_dir) found.emplace_back(r, e.name);
      }
      std::sort(found.begin(), found.end());
      for (const auto& [rank, name] : found) {
        const std::string full = join(dir, name);
        if (!os.fs.exists(full)) {
          add_checked(full, "PATH", "");
          continue;
        }
        if (!windows && is_pyenv_shim(os.fs, full)) {
          *saw_shim = true;
          continue;
        }
        add(full, "PATH");
      }
    }
    if (relative && notes)
      notes->push_back("python: " + std::to_string(relative) +
                       " relative PATH entr" + (relative == 1 ? "y" : "ies") + " not searched (they name the current folder)");
  }

  void scan_pyenv(bool saw_shim) {
    const std::string home = home_dir(os.env, windows);
    std::string root = env_get(os.env, "PYENV_ROOT").value_or(home.empty() ? "" : join(home, ".pyenv"));
    if (root.empty() || !usable(root)) return;
    // pyenv-win keeps its versions one level deeper.
    std::string versions = join(root, "versions");
    if (!os.fs.is_dir(versions) && os.fs.is_dir(join(join(root, "pyenv-win"), "versions")))
      versions = join(join(root, "pyenv-win"), "versions");
    std::string err;
    auto entries = os.fs.list_dir(versions, &err);
    if (!entries) return;
    std::vector<std::string> names;
    for (const auto& e : *entries)
      if (e.is_dir) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    if (names.size() > kMaxEnvsPerRoot) names.resize(kMaxEnvsPerRoot);
    // The version a shim on PATH would run: $PYENV_VERSION, else the global "version" file
    // (a project's .python-version depends on the current folder, which a probe ignores).
    std::string selected;
    if (saw_shim) {
      if (auto v = env_get(os.env, "PYENV_VERSION")) {
        selected = v->substr(0, v->find(':'));
      } else if (auto f = os.fs.read_file(join(root, "version"), 4096, &err)) {
        selected = std::string(parse::first_line(*f));
      }
    }
    for (const auto& n : names) {
      const std::string prefix = join(versions, n);
      add_prefix(prefix, "pyenv");
      if (!selected.empty() && n == selected) add_prefix(prefix, "PATH (pyenv shim)");
    }
  }

  void scan_conda() {
    const std::string home = home_dir(os.env, windows);
    std::vector<std::string> roots;
    for (const char* r : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", "Miniconda3", "Anaconda3"})
      if (!home.empty()) roots.push_back(join(home, r));
    if (windows) {
      const std::string pd = env_get(os.env, "ProgramData").value_or("C:\\ProgramData");
      for (const char* r : {"miniconda3", "Anaconda3", "miniforge3"}) roots.push_back(join(pd, r));
      if (auto la = env_get(os.env, "LOCALAPPDATA"))
        for (const char* r : {"miniconda3", "anaconda3"}) roots.push_back(join(*la, r));
    } else {
      roots.push_back("/opt/conda");
    }
    // environments.txt: every env conda created, one prefix a line (also envs outside the roots).
    std::string err;
    if (!home.empty()) {
      if (auto txt = os.fs.read_file(join(join(home, ".conda"), "environments.txt"), 64 * 1024, &err)) {
        size_t pos = 0, n = 0;
        while (pos < txt->size() && n++ < kMaxEnvsPerRoot) {
          size_t eol = txt->find('\n', pos);
          if (eol == std::string::npos) eol = txt->size();
          std::string line = txt->substr(pos, eol - pos);
          pos = eol + 1;
          while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
          if (!line.empty()) add_prefix(line, "conda");
        }
      }
    }
    for (const auto& root : roots) {
      if (!os.fs.is_dir(root)) continue;
      add_prefix(root, "conda");
      auto envs = os.fs.list_dir(join(root, "envs"), &err);
      if (!envs) continue;
      std::vector<std::string> names;
      for (const auto& e : *envs)
        if (e.is_dir) names.push_back(e.name);
      std::sort(names.begin(), names.end());
      if (names.size() > kMaxEnvsPerRoot) names.resize(kMaxEnvsPerRoot);
      for (const auto& n : names) add_prefix(join(join(root, "envs"), n), "conda");
    }
  }

  // Where python.org's installer puts Python (what the `py` launcher lists from the registry).
  void scan_windows_installs() {
    std::vector<std::string> bases;
    if (auto la = env_get(os.env, "LOCALAPPDATA")) bases.push_back(join(join(*la, "Programs"), "Python"));
    bases.push_back(env_get(os.env, "ProgramFiles").value_or("C:\\Program Files"));
    for (const auto& base : bases) {
      std::string err;
      auto entries = os.fs.list_dir(base, &err);
      if (!entries) continue;
      std::vector<std::string> names;
      for (const auto& e : *entries)
        if (e.is_dir && parse::ascii_lower(e.name).rfind("python3", 0) == 0) names.push_back(e.name);
      std::sort(names.begin(), names.end());
      for (const auto& n : names) add_prefix(join(base, n), "windows install");
    }
  }

  // PEP 514: every installer (python.org's, the Store's, conda's when asked) registers its Python
  // under Software\Python\<company>\<tag>\InstallPath in HKCU or HKLM; the `py` launcher lists
  // exactly these (`py -0p`). ExecutablePath names the interpreter, else InstallPath's default
  // value is its folder. PyLauncher is the launcher itself, not an interpreter.
  void scan_pep514() {
    for (const char* hive : {"HKCU", "HKLM"}) {
      const std::string root = std::string(hive) + "\\Software\\Python";
      const auto companies = os.reg.subkeys(root, nullptr);
      if (!companies) continue;
      for (const auto& company : *companies) {
        if (parse::ascii_lower(company) == "pylauncher") continue;
        const std::string ck = root + "\\" + company;
        const auto tags = os.reg.subkeys(ck, nullptr);
        if (!tags) continue;
        for (const auto& tag : *tags) {
          const std::string ip = ck + "\\" + tag + "\\InstallPath";
          const std::string how = "py launcher (" + std::string(hive) + "\\Software\\Python\\" + company + "\\" + tag + ")";
          if (auto exe = os.reg.text(ip, "ExecutablePath"); exe && is_windows_path(*exe)) {
            add_checked(*exe, how, "");
          } else if (auto dir = os.reg.text(ip, ""); dir && is_windows_path(*dir)) {
            std::string d = *dir;
            while (d.size() > 3 && (d.back() == '\\' || d.back() == '/')) d.pop_back();
            add_checked(join(d, "python.exe"), how, "");
          }
        }
      }
    }
  }
};

}  // namespace

bool is_windows_path(const std::string& p) {
  if (p.size() >= 2 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':') return true;
  return p.rfind("\\\\", 0) == 0;
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  const bool win = is_windows_path(dir);
  std::string n = name;
  if (win) std::replace(n.begin(), n.end(), '/', '\\');
  const char last = dir.back();
  if (last == '/' || (win && last == '\\')) return dir + n;
  return dir + (win ? '\\' : '/') + n;
}

std::string parent(const std::string& p) {
  const bool win = is_windows_path(p);
  std::string s = p;
  auto is_sep = [&](char c) { return c == '/' || (win && c == '\\'); };
  while (s.size() > 1 && is_sep(s.back()) && !(win && s.size() == 3)) s.pop_back();
  size_t i = s.size();
  while (i > 0 && !is_sep(s[i - 1])) --i;
  if (i == 0) return {};
  std::string out = s.substr(0, i - 1);
  if (out.empty()) return s.substr(0, 1);  // "/usr" -> "/"
  if (win && out.size() == 2 && out[1] == ':') return out + "\\";
  return out;
}

std::string base_name(const std::string& p) {
  const bool win = is_windows_path(p);
  size_t end = p.size();
  while (end > 1 && (p[end - 1] == '/' || (win && p[end - 1] == '\\'))) --end;
  size_t i = end;
  while (i > 0 && p[i - 1] != '/' && !(win && p[i - 1] == '\\')) --i;
  return p.substr(i, end - i);
}

bool windows_mode(const Env& env) {
#ifdef _WIN32
  (void)env;
  return true;
#else
  auto root = env.get("SystemRoot");
  return root && is_windows_path(*root);
#endif
}

std::vector<std::string> split_search_path(const std::string& list, bool windows) {
  const bool semicolons = windows || list.find(';') != std::string::npos || is_windows_path(list);
  if (!semicolons) return split_path_list(list);
  std::vector<std::string> out;
  std::string cur;
  for (char c : list + ";") {
    if (c == ';') {
      // Windows PATH entries may be quoted.
      if (cur.size() >= 2 && cur.front() == '"' && cur.back() == '"') cur = cur.substr(1, cur.size() - 2);
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

std::optional<std::string> own_environment(const Os& os) {
  const auto self = os.proc.self_path();
  if (!self) return std::nullopt;
  const std::string prefix = parent(parent(*self));
  if (prefix.empty()) return std::nullopt;
  // A venv (pyvenv.cfg) or a conda environment (conda-meta/); /usr of /usr/bin/gpuready is neither.
  if (os.fs.exists(join(prefix, "pyvenv.cfg")) || os.fs.is_dir(join(prefix, "conda-meta"))) return prefix;
  return std::nullopt;
}

std::vector<Candidate> discover(const Os& os, const std::vector<std::string>& python_args,
                                std::vector<std::string>* notes) {
  Collector c{os, windows_mode(os.env), {}, {}, notes};
  for (const auto& a : python_args) c.add_argument(a);
  if (auto v = env_get(os.env, "VIRTUAL_ENV"); v && c.usable(*v)) c.add_prefix(*v, "venv");
  if (auto p = env_get(os.env, "CONDA_PREFIX"); p && c.usable(*p)) c.add_prefix(*p, "conda");
  // The environment gpuready itself is installed in (`pip install gpuready` puts it in <env>/bin or <env>\Scripts):
  // the one being diagnosed, whether or not it is activated.
  if (auto env = own_environment(os)) c.add_prefix(*env, "gpuready's own environment");
  bool saw_shim = false;
  c.scan_path(&saw_shim);
  c.scan_pyenv(saw_shim);
  c.scan_conda();
  if (c.windows) {
    c.scan_pep514();
    c.scan_windows_installs();
  }
  return std::move(c.list);
}

std::vector<std::string> layout_site_packages(const Os& os, const std::string& prefix, const std::string& xy) {
  std::vector<std::string> cands;
  if (is_windows_path(prefix)) {
    cands.push_back(join(join(prefix, "Lib"), "site-packages"));
  } else if (!xy.empty()) {
    const std::string py = "python" + xy;
    cands.push_back(join(prefix, "lib/" + py + "/site-packages"));
    cands.push_back(join(prefix, "lib64/" + py + "/site-packages"));  // Fedora, openSUSE
    if (prefix == "/usr") {
      // Debian and Ubuntu patch site.py: pip installs into /usr/local/…/dist-packages, apt into
      // /usr/lib/python3/dist-packages.
      cands.push_back("/usr/local/lib/" + py + "/dist-packages");
      cands.push_back("/usr/lib/python3/dist-packages");
      cands.push_back("/usr/lib/" + py + "/dist-packages");
    }
  }
  std::vector<std::string> out, seen;
  for (const auto& c : cands) {
    if (!os.fs.is_dir(c)) continue;
    const std::string k = os.fs.canonical(c).value_or(c);
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;  // lib64 -> lib in venvs
    seen.push_back(k);
    out.push_back(c);
  }
  return out;
}

std::string user_site_packages(const Os& os, const std::string& xy, bool windows) {
  if (xy.empty()) return {};
  std::string dir;
  if (windows) {
    auto appdata = env_get(os.env, "APPDATA");
    if (!appdata) return {};
    std::string digits = xy;
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    dir = join(join(join(*appdata, "Python"), "Python" + digits), "site-packages");
  } else {
    std::string base = env_get(os.env, "PYTHONUSERBASE").value_or("");
    if (base.empty()) {
      const std::string home = home_dir(os.env, false);
      if (home.empty()) return {};
      base = join(home, ".local");
    }
    dir = join(base, "lib/python" + xy + "/site-packages");
  }
  return os.fs.is_dir(dir) ? dir : std::string();
}

FileFacts file_facts(const Os& os, const std::string& interpreter) {
  FileFacts f;
  const bool win = is_windows_path(interpreter);
  const std::string dir = parent(interpreter);
  std::string err;

  // A venv: pyvenv.cfg next to the interpreter or one folder up (CPython's own rule).
  for (const std::string& cfg_dir : {dir, parent(dir)}) {
    if (cfg_dir.empty()) continue;
    auto text = os.fs.read_file(join(cfg_dir, "pyvenv.cfg"), 64 * 1024, &err);
    if (!text) continue;
    const auto cfg = parse::pyvenv_cfg(*text);
    f.is_venv = true;
    f.prefix = cfg_dir;
    f.include_system_site = cfg.include_system_site_packages.value_or(true);
    if (!cfg.version.empty()) {
      f.version = cfg.version;
      f.version_source = "pyvenv.cfg";
    }
    if (!cfg.home.empty()) {
      const std::string h = cfg.home;
      f.base_prefix = (!is_windows_path(h) && base_name(h) == "bin") ? parent(h) : h;
    }
    break;
  }
  if (f.prefix.empty()) {
    f.prefix = (!win && base_name(dir) == "bin") ? parent(dir) : dir;
    if (win && parse::iequals(base_name(dir), "Scripts")) f.prefix = parent(dir);
  }

  // conda: conda-meta/python-3.8.5-h5fd99cc_1.json names the exact version.
  if (f.version.empty()) {
    if (auto entries = os.fs.list_dir(join(f.prefix, "conda-meta"), &err)) {
      for (size_t i = 0; i < entries->size() && i < kMaxDirEntries; ++i) {
        const auto& e = (*entries)[i];
        if (e.name.rfind("python-", 0) != 0) continue;
        auto c = parse::conda_meta_name(e.name);
        if (c && c->name == "python" && !parse::python_version_prefix(c->version).empty()) {
          f.version = parse::python_version_prefix(c->version);
          f.version_source = "conda-meta";
          break;
        }
      }
    }
  }
  // pyenv (…/versions/3.11.7) and asdf (…/installs/python/3.11.7) name the folder after the version.
  if (f.version.empty()) {
    const std::string b = base_name(f.prefix);
    const std::string pb = base_name(parent(f.prefix));
    if ((pb == "versions" || pb == "python") && parse::python_version_prefix(b) == b &&
        std::count(b.begin(), b.end(), '.') == 2) {
      f.version = b;
      f.version_source = "pyenv folder";
    }
  }
  // Windows: python311.dll beside python.exe, else the "Python311" folder name.
  if (f.version.empty() && win) {
    if (auto entries = os.fs.list_dir(f.prefix, &err)) {
      for (const auto& e : *entries) {
        const std::string l = parse::ascii_lower(e.name);
        if (l.size() > 12 && l.rfind("python3", 0) == 0 && l.substr(l.size() - 4) == ".dll" &&
            parse::all_digits(l.substr(7, l.size() - 11))) {
          f.version = "3." + l.substr(7, l.size() - 11);
          f.version_source = "file name";
          break;
        }
      }
    }
    const std::string b = parse::ascii_lower(base_name(f.prefix));
    if (f.version.empty() && b.rfind("python3", 0) == 0 && parse::all_digits(b.substr(7)) && b.size() > 7) {
      f.version = "3." + b.substr(7);
      f.version_source = "folder name";
    }
  }
  // POSIX: python3.11 (the name used, or the file a python3 link ends at).
  if (f.version.empty() && !win) {
    for (const std::string& name : {base_name(interpreter), base_name(os.fs.canonical(interpreter).value_or(""))}) {
      if (name.rfind("python", 0) == 0 && !parse::python_version_prefix(name.substr(6)).empty()) {
        f.version = parse::python_version_prefix(name.substr(6));
        f.version_source = "file name";
        break;
      }
    }
  }
  // Last resort: the one lib/python3.X folder of the prefix.
  if (f.version.empty() && !win) {
    if (auto entries = os.fs.list_dir(join(f.prefix, "lib"), &err)) {
      std::vector<std::string> found;
      for (const auto& e : *entries)
        if (e.is_dir && e.name.rfind("python", 0) == 0 &&
            parse::python_version_prefix(e.name.substr(6)) == e.name.substr(6))
          found.push_back(e.name.substr(6));
      if (found.size() == 1) {
        f.version = found[0];
        f.version_source = "lib folder";
      }
    }
  }

  const std::string xy = major_minor(f.version);
  f.site_packages = layout_site_packages(os, f.prefix, xy);
  std::vector<std::string> user_and_base;
  // sys.path order: the venv's own site, the user site, then the base's (or the system's) sites.
  if (!(f.is_venv && !f.include_system_site)) {
    const std::string u = user_site_packages(os, xy, win);
    if (!u.empty()) user_and_base.push_back(u);
  }
  if (f.is_venv && f.include_system_site && !f.base_prefix.empty())
    for (const auto& s : layout_site_packages(os, f.base_prefix, xy)) user_and_base.push_back(s);
  if (!f.is_venv) {
    // Non-venv: the user site comes first.
    user_and_base.insert(user_and_base.end(), f.site_packages.begin(), f.site_packages.end());
    f.site_packages = std::move(user_and_base);
  } else {
    f.site_packages.insert(f.site_packages.end(), user_and_base.begin(), user_and_base.end());
  }
  const bool full_version = std::count(f.version.begin(), f.version.end(), '.') >= 2;
  f.complete = full_version && !f.site_packages.empty();
  return f;
}

}  // namespace gpuready::python
