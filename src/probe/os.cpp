// collect_os: OS family, distribution (os-release), kernel, architecture, and whether we run
// inside WSL or a container. Linux facts come from files through the Fs seam; Windows and
// macOS reads are a later issue and say so in the facts' reasons.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "parse/linux_hints.h"
#include "parse/os_release.h"
#include "probe/os_detect.h"
#include "probe/probe.h"

namespace gpuready {
namespace detail {
namespace {

constexpr size_t kSmallFile = 64 * 1024;  // os-release, osrelease, /proc/version, cgroup

struct Read {
  std::optional<std::string> text;
  std::string error;  // "path: reason" from the Fs when text is empty
};

Read read_small(const Fs& fs, const std::string& path) {
  Read r;
  r.text = fs.read_file(path, kSmallFile, &r.error);
  if (!r.text && r.error.empty()) r.error = path + ": could not be read";
  return r;
}

void fill_os_release(const Fs& fs, OsFacts& out) {
  // os-release(5): /etc/os-release first, /usr/lib/os-release when the first is absent.
  std::string errors;
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    Read r = read_small(fs, path);
    if (!r.text) {
      errors += (errors.empty() ? "" : "; ") + r.error;
      continue;
    }
    const auto kv = parse::os_release(*r.text);
    auto get = [&](const char* key) -> std::string {
      auto it = kv.find(key);
      return it == kv.end() ? std::string() : it->second;
    };
    const std::string pretty = get("PRETTY_NAME"), name = get("NAME"), ver = get("VERSION");
    if (!pretty.empty()) {
      out.name = pretty;
    } else if (!name.empty()) {
      out.name = ver.empty() ? name : name + " " + ver;
    } else {
      out.name = Fact<std::string>::unknown(fmt::format("{} has no PRETTY_NAME or NAME line", path));
    }
    const std::string id = get("ID");
    out.id = id.empty() ? Fact<std::string>::unknown(fmt::format("{} has no ID line", path)) : Fact<std::string>(id);
    const std::string version_id = get("VERSION_ID");
    out.version = version_id.empty()
                      ? Fact<std::string>::unknown(fmt::format(
                            "{} has no VERSION_ID line (rolling releases such as Arch or Debian testing have none)",
                            path))
                      : Fact<std::string>(version_id);
    return;
  }
  const std::string why = "no os-release file could be read (" + errors + ")";
  out.name = Fact<std::string>::unknown(why);
  out.id = Fact<std::string>::unknown(why);
  out.version = Fact<std::string>::unknown(why);
}

// First line of a small kernel file, cleaned; nullopt (with *error) when unreadable or empty.
std::optional<std::string> kernel_word(const Fs& fs, const std::string& path, std::string* error) {
  Read r = read_small(fs, path);
  if (!r.text) {
    *error = r.error;
    return std::nullopt;
  }
  std::string w = parse::clean_text(parse::first_line(*r.text));
  if (w.empty()) {
    *error = path + ": empty";
    return std::nullopt;
  }
  return w;
}

void fill_wsl(const Os& os, const std::optional<std::string>& osrelease, OsFacts& out) {
  Read version = read_small(os.fs, "/proc/version");
  const std::string from_kernel =
      parse::wsl_from_kernel(osrelease.value_or(""), version.text ? std::string_view(*version.text) : "");
  if (!from_kernel.empty()) {
    out.wsl = from_kernel;
    return;
  }
  // Other signs of WSL (custom WSL2 kernels need not say "microsoft"): the variables WSL
  // sets in every shell, its interop binfmt entry, and its runtime folder.
  std::string sign;
  for (const char* var : {"WSL_DISTRO_NAME", "WSL_INTEROP"})
    if (sign.empty() && os.env.get(var)) sign = std::string("the ") + var + " variable";
  for (const char* path : {"/proc/sys/fs/binfmt_misc/WSLInterop", "/run/WSL"})
    if (sign.empty() && os.fs.exists(path)) sign = path;
  const bool have_kernel_text = osrelease.has_value() || version.text.has_value();
  if (!sign.empty()) {
    if (have_kernel_text) {
      // WSL1's emulated kernel always names Microsoft, so a kernel that does not is WSL2's
      // (a custom kernel built for it).
      out.wsl = "wsl2";
    } else {
      out.wsl = Fact<std::string>::unknown(
          fmt::format("{} says this is WSL, but neither the kernel release nor /proc/version could be read "
                      "to tell WSL1 from WSL2 ({})",
                      sign, version.error));
    }
    return;
  }
  if (!have_kernel_text) {
    out.wsl = Fact<std::string>::unknown(fmt::format(
        "neither /proc/sys/kernel/osrelease nor /proc/version could be read ({}), and no WSL variable is set",
        version.error));
    return;
  }
  out.wsl = "none";
}

void fill_container(const Os& os, OsFacts& out) {
  // Most specific first: Kubernetes also runs docker/containerd underneath.
  if (os.env.get("KUBERNETES_SERVICE_HOST")) {
    out.container = "kubernetes";
    return;
  }
  Read cgroup = read_small(os.fs, "/proc/1/cgroup");
  const std::string from_cgroup = cgroup.text ? parse::container_from_cgroup(*cgroup.text) : std::string();
  if (from_cgroup == "kubernetes") {
    out.container = from_cgroup;
    return;
  }
  if (os.fs.exists("/run/.containerenv")) {
    out.container = "podman";
    return;
  }
  if (os.fs.exists("/.dockerenv")) {
    out.container = "docker";
    return;
  }
  // systemd-nspawn, lxc and podman set $container in the container's init environment.
  if (auto v = os.env.get("container")) {
    std::string name = parse::ascii_lower(parse::clean_text(*v, 64));
    if (!name.empty()) {
      out.container = name;
      return;
    }
  }
  if (!from_cgroup.empty()) {
    out.container = from_cgroup;
    return;
  }
  out.container = "none";
}

std::string windows_arch(const Env& env) {
  // A 32-bit process on 64-bit Windows sees x86 in PROCESSOR_ARCHITECTURE; W6432 has the OS's.
  auto v = env.get("PROCESSOR_ARCHITEW6432");
  if (!v) v = env.get("PROCESSOR_ARCHITECTURE");
  if (!v) return {};
  const std::string a = parse::ascii_lower(parse::clean_text(*v, 32));
  if (a == "amd64") return "x86_64";
  if (a == "arm64") return "aarch64";
  return a;
}

}  // namespace

OsFamily build_os_family() {
#if defined(_WIN32)
  return OsFamily::kWindows;
#elif defined(__APPLE__)
  return OsFamily::kMacos;
#else
  return OsFamily::kLinux;
#endif
}

void collect_os_as(const Os& os, OsFamily family, const HostInfo* host, OsFacts& out) {
  out = OsFacts{};
  if (family == OsFamily::kWindows || family == OsFamily::kMacos) {
    const bool win = family == OsFamily::kWindows;
    const std::string later =
        win ? "reading the Windows edition and version is not implemented yet (planned: registry CurrentVersion)"
            : "reading the macOS version is not implemented yet";
    out.family = win ? "windows" : "macos";
    out.name = Fact<std::string>::unknown(later);
    out.id = win ? Fact<std::string>("windows") : Fact<std::string>("macos");
    out.version = Fact<std::string>::unknown(later);
    if (host && !host->kernel_release.empty()) {
      out.kernel = parse::clean_text(host->kernel_release);
    } else {
      out.kernel = Fact<std::string>::unknown(later);
    }
    std::string arch = win ? windows_arch(os.env) : std::string();
    if (arch.empty() && host) arch = parse::clean_text(host->machine);
    out.arch = arch.empty() ? Fact<std::string>::unknown("the OS did not report the processor architecture")
                            : Fact<std::string>(arch);
    out.wsl = "none";  // WSL is a question asked from inside Linux; here we are the host
    out.container = Fact<std::string>::unknown(
        win ? "container detection on Windows is not implemented yet" : "container detection on macOS is not implemented yet");
    return;
  }

  out.family = "linux";
  fill_os_release(os.fs, out);

  std::string kernel_error;
  const std::optional<std::string> osrelease = kernel_word(os.fs, "/proc/sys/kernel/osrelease", &kernel_error);
  if (osrelease) {
    out.kernel = *osrelease;
  } else if (host && !host->kernel_release.empty()) {
    out.kernel = parse::clean_text(host->kernel_release);
  } else {
    out.kernel = Fact<std::string>::unknown("could not read the kernel release (" + kernel_error + ")");
  }

  // /proc/sys/kernel/arch exists since Linux 6.1; before that uname's machine says the same.
  std::string arch_error;
  if (auto arch = kernel_word(os.fs, "/proc/sys/kernel/arch", &arch_error)) {
    out.arch = *arch;
  } else if (host && !host->machine.empty()) {
    out.arch = parse::clean_text(host->machine);
  } else {
    out.arch = Fact<std::string>::unknown("could not read the architecture (" + arch_error +
                                          ") and uname gave none");
  }

  // The WSL test reads the kernel release wherever it came from (file or uname).
  fill_wsl(os, out.kernel.has() ? std::optional<std::string>(out.kernel.value()) : std::nullopt, out);
  fill_container(os, out);
}

}  // namespace detail

void collect_os(const Os& os, OsFacts& out) {
  const HostInfo host = host_info();
  detail::collect_os_as(os, detail::build_os_family(), &host, out);
}

}  // namespace gpuready
