// Rules about the packages an environment's frameworks depend on: what their installed metadata
// declares (Requires-Dist, probe/python_requirements.cpp) against what is installed, judged as
// `pip check` judges it; and the known breaks no declaration prevents (python_breaks.csv). Each
// finding's fix is the pip line, for this environment's interpreter, that satisfies every
// package of the closure that asks for that dependency.
#include <fmt/format.h>

#include <map>
#include <set>

#include "doctor/rules.h"
#include "parse/pep440.h"

namespace gpuready::doctor {
namespace {

// The framework a requiring package belongs to ("" for a package of the wider closure).
std::string framework_of_requirer(const std::string& name) {
  if (const std::string f = framework_of_package(name); !f.empty()) return f;
  if (name == "jaxlib" || name.rfind("jax-cuda", 0) == 0 || name.rfind("jax-rocm", 0) == 0) return "jax";
  if (name == "torchvision" || name == "torchaudio") return "pytorch";
  if (name == "keras" || name == "tf-keras") return "tensorflow";
  return "";
}

bool unmet(const PythonRequirement& r) {
  if (r.installed.empty()) return true;
  const auto spec = parse::VersionSpecifier::parse(r.specifier);
  return spec && !spec->contains(r.installed);
}

// The version of `name` in the environment: a reported package, else what the closure found installed.
std::string installed_version(const PythonEnv& env, const std::string& name) {
  if (const PythonPackage* p = find_package(env, name)) return p->version;
  for (const auto& r : env.requirements)
    if (r.name == name && !r.installed.empty()) return r.installed;
  return {};
}

std::string requirement_text(const PythonRequirement& r) {
  return fmt::format("{} {} requires {}{}{}", r.by, r.by_version, r.name, r.specifier,
                     r.extra.empty() ? "" : " (for its extra [" + r.extra + "])");
}

// Every clause any package of the closure puts on `name`, once each: the range pip must land in.
std::string combined_specifier(const PythonEnv& env, const std::string& name) {
  std::vector<std::string> clauses;
  for (const auto& r : env.requirements) {
    if (r.name != name) continue;
    const auto spec = parse::VersionSpecifier::parse(r.specifier);
    if (!spec) continue;
    for (const auto& c : spec->clauses) {
      const std::string t = c.op + c.version;
      if (std::find(clauses.begin(), clauses.end(), t) == clauses.end()) clauses.push_back(t);
    }
  }
  std::string s;
  for (const auto& c : clauses) s += (s.empty() ? "" : ",") + c;
  return s;
}

std::vector<Finding> dependency_findings(const Context& c, bool of_frameworks) {
  std::vector<Finding> out;
  for (const auto& env : c.s.python) {
    std::map<std::string, std::vector<const PythonRequirement*>> broken;  // dependency -> unmet requirements
    for (const auto& r : env.requirements)
      if (unmet(r) && !framework_of_requirer(r.by).empty() == of_frameworks) broken[r.name].push_back(&r);
    for (const auto& [name, reqs] : broken) {
      const PythonRequirement& first = *reqs.front();
      Finding x;
      const std::string others = reqs.size() > 1 ? fmt::format(" (and {} more)", reqs.size() - 1) : "";
      x.title = first.installed.empty()
                    ? fmt::format("{} {} needs {}{}, which is not installed in this environment{}", first.by,
                                  first.by_version, name, first.specifier, others)
                    : fmt::format("{} {} is installed, but {} {} needs {}{}{}", name, first.installed, first.by,
                                  first.by_version, name, first.specifier, others);
      for (const auto* r : reqs)
        x.evidence.push_back(fmt::format("{}: {}; installed: {}", env.interpreter, requirement_text(*r),
                                         r->installed.empty() ? "none" : r->installed));
      x.evidence.push_back("read from each package's installed METADATA (Requires-Dist), as pip check reads it");
      const std::string range = combined_specifier(env, name);
      x.fix.push_back(fmt::format("{} -m pip install \"{}{}\"", shell_word(c.os, env.interpreter), name, range));
      x.fix.push_back(fmt::format("# the range every package of this environment that needs {} accepts; then: {} -m pip check",
                                  name, shell_word(c.os, env.interpreter)));
      std::set<std::string> fws;
      for (const auto* r : reqs)
        if (const std::string f = framework_of_requirer(r->by); !f.empty()) fws.insert(f);
      x.frameworks.assign(fws.begin(), fws.end());
      x.python = env.interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

}  // namespace

std::vector<Finding> rule_framework_dependency_broken(const Context& c) { return dependency_findings(c, true); }
std::vector<Finding> rule_python_dependency_broken(const Context& c) { return dependency_findings(c, false); }

std::vector<Finding> rule_framework_binary_break(const Context& c) {
  std::vector<Finding> out;
  const std::string os = c.os == "wsl2" ? "linux" : c.os;
  for (const auto& env : c.s.python) {
    for (const auto& b : c.k.python_breaks) {
      if (!b.os.empty() && b.os != os) continue;
      const PythonPackage* pkg = nullptr;
      for (const auto& name : b.packages)
        if ((pkg = find_package(env, name))) break;
      if (!pkg) continue;
      const std::string dep = installed_version(env, b.dependency);
      const auto pv = parse::VersionSpecifier::parse(b.package_versions);
      const auto dv = parse::VersionSpecifier::parse(b.dependency_versions);
      if (dep.empty() || !pv || !dv || !pv->contains(pkg->version) || !dv->contains(dep)) continue;
      // A package that declares against it already has its finding (framework.dependency-broken).
      const bool declared = std::any_of(env.requirements.begin(), env.requirements.end(), [&](const PythonRequirement& r) {
        return r.by == pkg->name && r.name == b.dependency && unmet(r);
      });
      if (declared) continue;
      Finding x;
      x.title = fmt::format("{} {} with {} {}: a known break ({}{} with {}{}) that {}'s own requirements do not prevent",
                            pkg->name, pkg->version, b.dependency, dep, pkg->name, b.package_versions, b.dependency,
                            b.dependency_versions, pkg->name);
      x.evidence = {fmt::format("{}: {} {}, {} {}", env.interpreter, pkg->name, pkg->version, b.dependency, dep),
                    "what happens: " + b.symptom, "source: " + b.source};
      for (const auto& line : knowledge::split_fix(b.fix)) {
        std::string l = line;
        if (l.rfind("pip install ", 0) == 0) l = shell_word(c.os, env.interpreter) + " -m " + l;
        x.fix.push_back(l.rfind("or ", 0) == 0 ? "# " + l : l);
      }
      if (const std::string f = framework_of_requirer(pkg->name); !f.empty()) x.frameworks = {f};
      x.python = env.interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

}  // namespace gpuready::doctor
