// Rules about cuDNN copies: a set copied only in part (sub-libraries missing, a header without
// its libraries, DLLs put in lib\x64 instead of bin), sub-libraries of mixed versions, and a
// cuDNN built for another CUDA major than the framework that loads it.
#include <fmt/format.h>

#include <algorithm>

#include "doctor/rules.h"
#include "platform/os.h"

namespace gpuready::doctor {
namespace {

// The cuDNN folder the loader would use (for libcudnn.so.N / cudnn64_N.dll), if any.
bool loader_uses_dir(const Snapshot& s, const std::string& dir) {
  for (const auto& r : s.libraries.resolutions)
    if ((r.soname.rfind("libcudnn", 0) == 0 || r.soname.rfind("cudnn64", 0) == 0) && r.path.has() &&
        folder_key(path_folder(r.path.value())) == folder_key(dir))
      return true;
  return false;
}

// "C:\...\CUDA\v11.0\lib\x64" (any separator, any case) -> true.
bool in_lib_x64(const std::string& dir) {
  std::string d = dir;
  std::replace(d.begin(), d.end(), '/', '\\');
  std::transform(d.begin(), d.end(), d.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return d.size() >= 8 && d.compare(d.size() - 8, 8, "\\lib\\x64") == 0;
}

// The CUDA major a cuDNN copy was built for, from what its files name: cuDNN 8's sub-libraries
// need libcublas.so.N / libcublasLt.so.N of their CUDA major.
std::optional<long> cudnn_cuda_major(const std::vector<Dependency>& needs) {
  for (const auto& d : needs)
    for (const char* stem : {"libcublasLt.so.", "libcublas.so."})
      if (d.name.rfind(stem, 0) == 0)
        if (const auto v = Version::parse(d.name.substr(std::string(stem).size()))) return v->major();
  return std::nullopt;
}

}  // namespace

std::vector<Finding> rule_cudnn_partial(const Context& c) {
  std::vector<Finding> out;
  for (const auto& set : c.s.libraries.cudnn_sets) {
    if (set.missing.empty() || !loader_uses_dir(c.s, set.dir)) continue;
    Finding f;
    std::string missing;
    for (const auto& m : set.missing) missing += (missing.empty() ? "" : ", ") + m;
    f.title = fmt::format("cuDNN {} in {} is incomplete: {} missing", set.version.has() ? set.version.value() : "",
                          set.dir, missing);
    std::string present;
    for (const auto& p : set.present) present += (present.empty() ? "" : ", ") + p;
    f.evidence = {"present: " + (present.empty() ? std::string("only the main library") : present),
                  "missing: " + missing};
    f.fix = for_os(c,
                   {"# copy every library of the cuDNN archive, not only libcudnn.so.*:",
                    fmt::format("sudo cp -P <cuDNN archive>/lib/libcudnn* {}/", set.dir), "sudo ldconfig"},
                   {"# copy every DLL of the cuDNN archive's bin folder, not only cudnn64_*.dll:",
                    fmt::format("copy \"<cuDNN folder>\\bin\\cudnn*.dll\" \"{}\"", set.dir)});
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_cudnn_mixed(const Context& c) {
  std::vector<Finding> out;
  for (const auto& set : c.s.libraries.cudnn_sets) {
    if (set.consistent || !loader_uses_dir(c.s, set.dir)) continue;
    Finding f;
    f.title = "The cuDNN sub-libraries in " + set.dir + " are of different versions";
    for (const auto& [lib, v] : set.versions) f.evidence.push_back(lib + ": " + v);
    f.fix = for_os(c,
                   {"# remove the old copies and copy one cuDNN release's libraries together:",
                    fmt::format("ls -l {}/libcudnn*", set.dir)},
                   {"# remove the old copies and copy one cuDNN release's DLLs together:",
                    fmt::format("dir \"{}\\cudnn*.dll\"", set.dir)});
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_cudnn_header_only(const Context& c) {
  std::vector<Finding> out;
  for (const auto& h : c.s.libraries.copies) {
    // The probe records a cudnn_version.h in a toolkit's include folder as a copy without a
    // soname when that toolkit holds no cuDNN library of its major.
    if (h.library != "cudnn" || !h.soname.empty() || h.origin != "toolkit") continue;
    const std::string& root = h.origin_detail;
    const bool win = c.os == "windows";
    Finding f;
    f.title = fmt::format("cuDNN {}'s header is in the CUDA toolkit at {}, but none of its libraries are: it was "
                          "copied only in part",
                          version_or(h), root);
    f.evidence = {"header: " + h.path, fmt::format("no {} in {}", win ? "cudnn64_*.dll" : "libcudnn.so.*",
                                                   win ? root + "\\bin" : root + "/lib64")};
    f.fix = for_os(c,
                   {"# copy the libraries from the same cuDNN archive as the header:",
                    fmt::format("sudo cp -P <cuDNN archive>/lib/libcudnn* {}/lib64/", root), "sudo ldconfig"},
                   {"# copy the DLLs from the same cuDNN archive as the header:",
                    fmt::format("copy \"<cuDNN folder>\\bin\\cudnn*.dll\" \"{}\\bin\"", root)});
    f.frameworks = {"tensorflow"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_cudnn_dll_not_in_bin(const Context& c) {
  std::vector<Finding> out;
  std::vector<std::string> done;
  for (const auto& cp : c.s.libraries.copies) {
    if (cp.library != "cudnn" || cp.soname.empty()) continue;
    const std::string dir = path_folder(cp.path);
    if (!in_lib_x64(dir) || std::find(done.begin(), done.end(), dir) != done.end()) continue;
    done.push_back(dir);
    const std::string bin = path_folder(path_folder(dir)) + "\\bin";
    Finding f;
    f.title = fmt::format("{} is in {}, where only .lib files belong: Windows loads DLLs from bin, so it is never found",
                          cp.file_name, dir);
    f.evidence = {"found: " + cp.path};
    if (const auto* r = resolution_of(c.s, cp.soname))
      f.evidence.push_back(cp.soname + ": " + (r->path.has() ? r->path.value() : r->path.why()));
    f.fix = {fmt::format("move \"{}\\cudnn*.dll\" \"{}\"", dir, bin),
             "# cuDNN's archive: bin\\*.dll -> CUDA's bin, include\\*.h -> include, lib\\x64\\*.lib -> lib\\x64"};
    f.frameworks = {"tensorflow"};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> rule_cudnn_cuda_major(const Context& c) {
  std::vector<Finding> out;
  // 1. pip: a framework built for CUDA N with only nvidia-cudnn-cuM (M != N) in its environment.
  //    Both wheels install into the same nvidia/cudnn folder, so the one installed last is loaded.
  for (const auto& f : c.frameworks) {
    const auto b = build_cuda(f);
    if (!b || b->value == "none") continue;
    const auto cuda = Version::parse(b->value);
    if (!cuda) continue;
    const std::string right = fmt::format("nvidia-cudnn-cu{}", cuda->major());
    if (find_package(*f.env, right)) continue;
    // A TensorFlow without tensorflow[and-cuda]'s wheels loads the system's cuDNN (part 2).
    const long major = cuda->major();
    if (f.framework == "tensorflow" &&
        std::none_of(f.env->packages.begin(), f.env->packages.end(), [major](const PythonPackage& p) {
          return p.name == fmt::format("nvidia-cuda-runtime-cu{}", major) ||
                 (major >= 13 && p.name == "nvidia-cuda-runtime");
        }))
      continue;
    for (const auto& p : f.env->packages) {
      if (p.name.rfind("nvidia-cudnn-cu", 0) != 0 || p.name == right) continue;
      Finding x;
      x.title = fmt::format("{} {} is built for CUDA {}, but its environment's cuDNN is {} {}, built for CUDA {}",
                            f.package->name, f.package->version, cuda->major(), p.name, p.version,
                            p.name.substr(std::string("nvidia-cudnn-cu").size()));
      x.evidence = {fmt::format("{}: {} {} (CUDA {}), {} {}", f.env->interpreter, f.package->name, f.package->version,
                                b->value, p.name, p.version)};
      x.fix = {fmt::format("{} -m pip uninstall -y {}", shell_word(c.os, f.env->interpreter), p.name),
               fmt::format("{} -m pip install --force-reinstall \"{}=={}.*\"   # the cuDNN major the build uses",
                           shell_word(c.os, f.env->interpreter), right, Version::parse(p.version) ? Version::parse(p.version)->major() : 9)};
      x.frameworks = {f.framework};
      x.python = f.env->interpreter;
      out.push_back(std::move(x));
    }
  }
  // 2. System cuDNN (what TensorFlow without pip CUDA loads): its sub-libraries name the cuBLAS
  //    of the CUDA they were built for.
  for (const auto& set : c.s.libraries.cudnn_sets) {
    if (!loader_uses_dir(c.s, set.dir)) continue;
    const auto built = cudnn_cuda_major(set.needs);
    if (!built) continue;
    for (const auto& f : c.frameworks) {
      if (f.framework != "tensorflow") continue;
      const auto cv = f.package->details.find("cuda_version");
      if (cv == f.package->details.end()) continue;
      const auto cuda = Version::parse(cv->second);
      if (!cuda || cuda->major() == *built) continue;
      bool pip_cuda = false;
      for (const auto& p : f.env->packages)
        if (p.name == fmt::format("nvidia-cudnn-cu{}", cuda->major())) pip_cuda = true;
      if (pip_cuda) continue;
      Finding x;
      x.title = fmt::format("{} {} is built for CUDA {}, but the cuDNN the loader gives it ({} in {}) is built for "
                            "CUDA {}",
                            f.package->name, f.package->version, cv->second,
                            set.version.has() ? set.version.value() : std::string("?"), set.dir, *built);
      for (const auto& d : set.needs)
        if (d.name.rfind("libcublas", 0) == 0) x.evidence.push_back(d.needed_by + " needs " + d.name);
      x.fix = {fmt::format("# install the cuDNN build for CUDA {} (the archive or package name says cuda{}):", cuda->major(),
                           cuda->major()),
               fmt::format("gpuready plan --framework tensorflow --framework-version {}   # which cuDNN, and where its "
                           "files go",
                           f.package->version)};
      x.frameworks = {"tensorflow"};
      x.python = f.env->interpreter;
      out.push_back(std::move(x));
    }
  }
  return out;
}

}  // namespace gpuready::doctor
