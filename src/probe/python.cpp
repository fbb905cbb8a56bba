// collect_python: every Python interpreter worth knowing about, its version, prefix and
// site folders, and the GPU-relevant packages installed in it. Files answer first; an
// interpreter is run (once, isolated, all of them concurrently, with a timeout) only when
// its files leave the version or the site folders open.
//
// Why not always run it: a venv's pyvenv.cfg, a conda env's conda-meta/python-*.json and a
// pyenv folder name give the exact version, and their layout gives the site folders, so
// running would only cost time (10-60 ms each, ~0.3 s through a pyenv shim; a machine with
// nine pyenv versions would spend most of the probe budget). A system /usr/bin/python3 says
// only "3.11" in its name, so it is run.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <future>
#include <nlohmann/json.hpp>
#include <system_error>

#include "parse/clean_text.h"
#include "probe/probe.h"
#include "probe/python_internal.h"

namespace gpuready {
namespace {

// -I: isolated (no PYTHON* variables, no user site, no script folder on sys.path);
// -S: no site.main(), so no .pth files run (they can import anything, even hang) —
// site.getsitepackages() still computes the folders.
constexpr const char* kScript =
    "import sys,json,site\n"
    "v=sys.version_info\n"
    "r={'final':''}.get(v[3],{'alpha':'a','beta':'b','candidate':'rc'}.get(v[3],v[3])+str(v[4]))\n"
    "bp=getattr(sys,'base_prefix',sys.prefix)\n"
    "def g(p):\n"
    " try:return list(site.getsitepackages([p]))\n"
    " except Exception:return []\n"
    "try:u=site.getusersitepackages()\n"
    "except Exception:u=None\n"
    "print(json.dumps({'version':'%d.%d.%d'%tuple(v[:3])+r,'prefix':sys.prefix,'base_prefix':bp,"
    "'site':g(sys.prefix),'base_site':g(bp),'user_site':u,'platform':sys.platform}))\n";

std::string first_line_of(const std::string& s) {
  std::string l(parse::first_line(s));
  return parse::clean_text(l, 200);
}

struct RunAnswer {
  bool ok = false;
  std::string error;
  std::string version, prefix, base_prefix, user_site;
  std::vector<std::string> site, base_site;
};

RunAnswer ask_interpreter(const Os& os, const std::string& interpreter, std::chrono::milliseconds timeout) {
  RunAnswer a;
  ProcOptions po;
  po.timeout = timeout;
  po.max_output = 64 * 1024;
  const ProcResult r = os.proc.run({interpreter, "-I", "-S", "-c", kScript}, po);
  const std::string name = python::base_name(interpreter);
  if (!r.started) {
    a.error = "could not run " + interpreter + ": " + (r.error.empty() ? "it did not start" : r.error);
    return a;
  }
  if (r.timed_out) {
    a.error = name + " did not answer within " + python::seconds_text(timeout) + ": killed";
    return a;
  }
  if (r.signal != 0) {
    a.error = name + " crashed (signal " + std::to_string(r.signal) + ")" +
              (r.err.empty() ? std::string() : ": " + first_line_of(r.err));
    return a;
  }
  if (r.exit_code != 0) {
    a.error = name + " exited with code " + std::to_string(r.exit_code) +
              (r.err.empty() ? std::string() : ": " + first_line_of(r.err));
    return a;
  }
  // The answer is the last non-empty line (anything printed before it is noise).
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  const size_t nl = out.rfind('\n');
  const std::string last = nl == std::string::npos ? out : out.substr(nl + 1);
  const auto j = nlohmann::json::parse(last, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("version") || !j["version"].is_string()) {
    a.error = name + " answered something other than the expected JSON: " + parse::clean_text(last, 100);
    return a;
  }
  auto str = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? parse::clean_text(j[k].get<std::string>(), 1024) : std::string();
  };
  auto list = [&](const char* k) {
    std::vector<std::string> v;
    if (j.contains(k) && j[k].is_array())
      for (const auto& e : j[k])
        if (e.is_string() && v.size() < 32) v.push_back(parse::clean_text(e.get<std::string>(), 1024));
    return v;
  };
  a.ok = true;
  a.version = str("version");
  a.prefix = str("prefix");
  a.base_prefix = str("base_prefix");
  a.user_site = str("user_site");
  a.site = list("site");
  a.base_site = list("base_site");
  return a;
}

// Site folders the interpreter named that exist and hold packages (Windows lists the prefix too).
void add_sites(const Os& os, const std::vector<std::string>& from, std::vector<std::string>& to,
               std::vector<std::string>& keys) {
  for (const auto& s : from) {
    const std::string b = python::base_name(s);
    if (b != "site-packages" && b != "dist-packages") continue;
    if (!os.fs.is_dir(s)) continue;
    const std::string k = os.fs.canonical(s).value_or(s);
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    keys.push_back(k);
    to.push_back(s);
  }
}

// File names are bytes; the Snapshot is JSON and must be valid UTF-8 (nlohmann throws otherwise).
void sanitize(PythonEnv& env) {
  auto fix = [](std::string& s) { s = parse::clean_text(s, 4096); };
  fix(env.interpreter);
  fix(env.error);
  for (auto& s : env.site_packages) fix(s);
  if (env.prefix.has()) fix(env.prefix.value());
  for (auto& r : env.requirements)
    for (std::string* f : {&r.by, &r.by_version, &r.name, &r.specifier, &r.extra, &r.installed}) fix(*f);
  for (auto& p : env.packages) {
    fix(p.name);
    fix(p.version);
    fix(p.location);
    for (auto& [k, v] : p.details) fix(v);
  }
}

PythonEnv probe_one(const Os& os, const ProbeOptions& opts, const python::Candidate& c) {
  PythonEnv env;
  env.interpreter = c.path;
  env.found_by = c.found_by;
  if (!c.problem.empty()) {
    env.error = parse::clean_text(c.problem, 4096);
    env.version = Fact<std::string>::unknown(env.error);
    env.prefix = Fact<std::string>::unknown(env.error);
    // A venv whose interpreter link broke (its base Python was removed or upgraded) still
    // has its pyvenv.cfg and packages: report them. A path that is not even a link has nothing to read.
    if (!os.fs.read_link(c.path)) {
      sanitize(env);
      return env;
    }
  }
  const python::FileFacts f = python::file_facts(os, c.path);
  std::string version = f.version;
  std::string prefix = f.prefix;
  std::vector<std::string> sites = f.site_packages;

  if (c.problem.empty() && !f.complete) {
    const RunAnswer a = ask_interpreter(os, c.path, opts.child_timeout);
    if (a.ok) {
      version = a.version;
      prefix = a.prefix.empty() ? prefix : a.prefix;
      std::vector<std::string> keys;
      sites.clear();
      // sys.path order; a venv without system site packages sees neither the user site nor the base's.
      const bool isolated_venv = f.is_venv && !f.include_system_site;
      add_sites(os, a.site, sites, keys);
      if (!isolated_venv && !a.user_site.empty()) add_sites(os, {a.user_site}, sites, keys);
      if (f.is_venv && f.include_system_site) add_sites(os, a.base_site, sites, keys);
    } else {
      env.error = a.error;
    }
  }

  if (!version.empty()) {
    env.version = version;
  } else if (env.version.why() == "not collected") {
    env.version = Fact<std::string>::unknown(
        env.error.empty()
            ? "no pyvenv.cfg, conda-meta or versioned file name says which Python this is"
            : "no file says which Python this is, and asking it failed: " + parse::clean_text(env.error, 4096));
  }
  if (c.problem.empty() || !prefix.empty()) env.prefix = prefix;
  env.site_packages = sites;

  for (const auto& s : sites) {
    std::string err;
    auto pkgs = python::scan_site_packages(os, s, &err);
    if (!err.empty()) {
      env.error += (env.error.empty() ? "" : "; ") + ("cannot list " + s + ": " + err);
      continue;
    }
    for (auto& p : pkgs) env.packages.push_back(std::move(p));
  }
  // What the site packages' GPU-relevant packages declare they need (conda-meta entries have no Requires-Dist).
  env.requirements = python::requirement_closure(
      os, sites, env.packages, python::marker_environment_of(os, env.version.has() ? env.version.value() : ""));
  for (auto& p : python::scan_conda_meta(os, prefix)) env.packages.push_back(std::move(p));
  sanitize(env);
  return env;
}

}  // namespace

std::string python::seconds_text(std::chrono::milliseconds ms) {
  const auto n = ms.count();
  if (n % 1000 == 0) return std::to_string(n / 1000) + " s";
  if (n < 1000) return std::to_string(n) + " ms";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(n) / 1000.0);
  return buf;
}

void collect_python(const Os& os, const ProbeOptions& opts, std::vector<PythonEnv>& out,
                    std::vector<std::string>* notes) {
  const auto candidates = python::discover(os, opts.python_paths, notes);
  std::vector<std::future<PythonEnv>> jobs;
  jobs.reserve(candidates.size());
  for (const auto& c : candidates) {
    auto work = [&os, &opts, c] { return probe_one(os, opts, c); };
    try {
      jobs.push_back(std::async(std::launch::async, work));
    } catch (const std::system_error&) {  // no thread to be had: do it on this one, later
      jobs.push_back(std::async(std::launch::deferred, work));
    }
  }
  for (auto& j : jobs) out.push_back(j.get());
}

}  // namespace gpuready
