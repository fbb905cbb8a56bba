// The NVIDIA kernel module: the version loaded (/proc/driver/nvidia/version, or the registry's
// display driver on Windows), the module file the running kernel would load (modules.dep, its
// .ko / .ko.zst / .ko.xz / .ko.gz), its version and signature, and the library-module mismatch
// sentence.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/version.h"
#include "parse/clean_text.h"
#include "parse/decompress.h"
#include "parse/driver_version.h"
#include "parse/modules_dep.h"
#include "probe/nvidia_driver.h"
#include "probe/nvidia_internal.h"
#include "probe/windows_registry.h"

namespace gpuready::nvidia_detail {

namespace {
constexpr size_t kMaxProcVersionBytes = 64 * 1024;
constexpr const char* kProcVersionPath = "/proc/driver/nvidia/version";
}  // namespace

SFact read_kernel_module_version(const Os& os) {
#ifdef _WIN32
  // The display driver's own entry in the registry (nvlddmkm.sys), read without loading anything.
  std::string why;
  return windows::nvidia_driver_version(windows::read_display_adapters(os.reg, &why), why);
#else
  const Fs& fs = os.fs;
  std::string err;
  const auto text = fs.read_file(kProcVersionPath, kMaxProcVersionBytes, &err);
  if (!text)
    return SFact::unknown("the NVIDIA kernel module is not loaded (" + err +
                          "); under WSL2 this file never exists, the Windows driver serves the GPU");
  const auto v = parse::nvidia_module_version(*text);
  if (!v) return SFact::unknown(fmt::format("{} has no \"NVRM version\" line with a version", kProcVersionPath));
  return SFact(v->version);
#endif
}

// ---------------------------------------------------------------- kernel module files

constexpr size_t kMaxModulesDepBytes = 16u << 20;  // a distribution kernel's modules.dep is ~1 MB
constexpr size_t kMaxKernelDirs = 64;

#ifndef _WIN32  // Windows has no /lib/modules (read_kernel_module_files below)
// The running kernel's release, as collect_os finds it: /proc/sys/kernel/osrelease through the Fs
// (so a fixture tree fixes it), else uname's.
std::optional<std::string> running_kernel_release(const Fs& fs, std::string* why) {
  std::string err;
  if (auto text = fs.read_file("/proc/sys/kernel/osrelease", 4096, &err)) {
    std::string r = parse::clean_text(parse::first_line(*text));
    if (!r.empty() && r.find('/') == std::string::npos) return r;
    err = "/proc/sys/kernel/osrelease: empty";
  }
  const HostInfo host = host_info();
  if (!host.kernel_release.empty()) return host.kernel_release;
  *why = "the running kernel's release is unknown (" + err + "; uname gave none)";
  return std::nullopt;
}

struct KernelDep {
  std::optional<std::string> text_error;          // set when modules.dep could not be read
  std::optional<parse::KernelModuleFile> nvidia;  // the NVIDIA module's entry, if any
};

KernelDep read_modules_dep(const Fs& fs, const std::string& dir) {
  KernelDep d;
  std::string err;
  const auto text = fs.read_file(dir + "/modules.dep", kMaxModulesDepBytes, &err);
  if (!text) {
    d.text_error = err.empty() ? dir + "/modules.dep: could not be read" : err;
    return d;
  }
  d.nvidia = parse::nvidia_module_in_modules_dep(*text);
  return d;
}
#endif

#ifdef _WIN32
void read_kernel_module_files(const Fs& fs, NvidiaDriverFacts& out) {
  (void)fs;
  const std::string why = "Windows has no /lib/modules: its NVIDIA kernel driver is nvlddmkm.sys";
  out.kernel_module_file = SFact::unknown(why);
  out.kernel_module_kernels.clear();
  out.kernel_module_signed = Fact<bool>::unknown(why);
}
#else
// kernel_module_file, kernel_module_kernels and kernel_module_signed from /lib/modules: which
// kernels have an NVIDIA module (DKMS builds one per kernel; a kernel update it missed has none),
// and whether the running kernel's carries a signature (Secure Boot refuses an unsigned one).
void read_kernel_module_files(const Fs& fs, NvidiaDriverFacts& out) {
  out.kernel_module_kernels.clear();
  std::string root = "/lib/modules";
  std::string list_error;
  auto dirs = fs.list_dir(root, &list_error);
  if (!dirs) {
    // A merged-/usr system without the /lib link keeps them under /usr/lib/modules.
    std::string usr_error;
    if (auto usr = fs.list_dir("/usr/lib/modules", &usr_error)) {
      root = "/usr/lib/modules";
      dirs = std::move(usr);
    }
  }
  std::map<std::string, KernelDep> deps;
  if (dirs) {
    std::vector<std::string> names;
    for (const auto& e : *dirs)
      if (e.is_dir && names.size() < kMaxKernelDirs) names.push_back(e.name);
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return parse::kernel_release_less(a, b); });
    for (const auto& n : names) {
      KernelDep d = read_modules_dep(fs, root + "/" + n);
      if (d.nvidia) out.kernel_module_kernels.push_back(n);
      deps.emplace(n, std::move(d));
    }
  }

  std::string why;
  const auto release = running_kernel_release(fs, &why);
  if (release) {
    const std::string dir = root + "/" + *release;
    const auto seen = deps.find(*release);
    const KernelDep d = seen != deps.end() ? seen->second : read_modules_dep(fs, dir);
    if (d.text_error) {
      why = "the modules of the running kernel " + *release + " are not readable here (" + *d.text_error +
            "); a container sees the host's kernel but usually not its /lib/modules";
    } else if (!d.nvidia) {
      why = "no nvidia module for kernel " + *release + " in " + dir + "/modules.dep";
    } else {
      const std::string& p = d.nvidia->path;
      const std::string file = p.front() == '/' ? p : dir + "/" + p;
      if (!fs.exists(file)) {
        why = dir + "/modules.dep lists " + p + " but the file is missing (removed without running depmod?)";
        out.kernel_module_file = SFact::unknown(why);
        out.kernel_module_signed = Fact<bool>::unknown("no NVIDIA module file to check: " + why);
        return;
      }
      out.kernel_module_file = SFact(file);
      if (!d.nvidia->compression.empty()) {
        // The signature is appended before compression (DKMS and the kernel's own modules_install):
        // it is at the end of the decompressed bytes. The packed file is read whole (capped).
        const std::string& c = d.nvidia->compression;
        std::string err;
        const auto packed = parse::can_decompress(c) ? fs.read_file(file, 512u << 20, &err) : std::nullopt;
        const auto tail = packed ? parse::decompressed_tail(*packed, c, parse::kModuleSignatureMarker.size(), 2048u << 20, &err)
                                 : std::nullopt;
        if (!parse::can_decompress(c)) err = "this build cannot decompress ." + c;
        out.kernel_module_signed =
            tail ? Fact<bool>(parse::module_signature_appended(*tail))
                 : Fact<bool>::unknown("compressed module (." + c + "), signature not checked: " + err);
      } else {
        const size_t n = parse::kModuleSignatureMarker.size();
        std::string err;
        const auto tail = read_file_tail(fs, out.kernel_module_file.value(), n, &err);
        out.kernel_module_signed =
            tail
                ? Fact<bool>(parse::module_signature_appended(*tail))
                : Fact<bool>::unknown("could not read the end of " + out.kernel_module_file.value() + " (" + err + ")");
      }
      return;
    }
  }
  out.kernel_module_file = SFact::unknown(why);
  out.kernel_module_signed = Fact<bool>::unknown("no NVIDIA module file to check: " + why);
}
#endif

// The user-space library's driver version, from the file the loader mapped
// ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04" behind libnvidia-ml.so.1).
std::optional<std::string> library_file_version(const Fs& fs, const std::optional<std::string>& path) {
  if (!path) return std::nullopt;
  if (auto v = parse::driver_version_from_library_name(*path)) return v;
  if (auto real = fs.canonical(*path)) return parse::driver_version_from_library_name(*real);
  return std::nullopt;
}

std::string mismatch_message(const SFact& module, const std::optional<std::string>& library_version) {
  const std::string m = module ? module.value() : "unknown (" + module.why() + ")";
  const std::string l = library_version ? *library_version : "unknown";
  return "Driver/library version mismatch: the NVIDIA kernel module loaded is " + m +
         " but the user-space library is " + l +
         "; reboot, or reload the nvidia modules (the driver packages were updated while the old module kept "
         "running)";
}

}  // namespace gpuready::nvidia_detail
