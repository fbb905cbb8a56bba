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
#include "probe/windows_registry.h"

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

constexpr const char* kEfiDir = "/sys/firmware/efi";
// EFI_GLOBAL_VARIABLE's GUID: the SecureBoot variable the firmware sets (UEFI spec 3.3).
constexpr const char* kSecureBootVar = "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

// The SecureBoot EFI variable's value byte: efivarfs files start with 4 attribute bytes; the old
// sysfs interface (before Linux 6.0) had the value alone in vars/<name>/data.
Fact<bool> secure_boot_value(const std::string& path, const std::string& bytes, size_t value_at) {
  if (bytes.size() != value_at + 1)
    return Fact<bool>::unknown(
        fmt::format("{} holds {} bytes, not the {} of a one-byte EFI variable", path, bytes.size(), value_at + 1));
  const auto v = static_cast<unsigned char>(bytes[value_at]);
  if (v > 1) return Fact<bool>::unknown(fmt::format("{} holds the value {}, neither 0 nor 1", path, v));
  return Fact<bool>(v == 1);
}

// Whether UEFI Secure Boot is on: then the kernel loads only signed modules (an unsigned DKMS nvidia.ko
// is refused). No /sys/firmware/efi at all means a legacy BIOS boot: Secure Boot is off.
void fill_secure_boot(const Os& os, OsFacts& out) {
  if (out.wsl && out.wsl.value() != "none") {
    out.secure_boot = Fact<bool>::unknown("WSL has no EFI variables: Secure Boot is the Windows host's setting");
    return;
  }
  const std::string efivars = std::string(kEfiDir) + "/efivars";
  std::string err;
  const std::string var = efivars + "/" + kSecureBootVar;
  if (auto bytes = os.fs.read_file(var, 64, &err)) {
    out.secure_boot = secure_boot_value(var, *bytes, 4);
    return;
  }
  const std::string legacy = std::string(kEfiDir) + "/vars/" + kSecureBootVar + "/data";
  if (auto bytes = os.fs.read_file(legacy, 64, nullptr)) {
    out.secure_boot = secure_boot_value(legacy, *bytes, 0);
    return;
  }
  if (!os.fs.is_dir(kEfiDir)) {
    // Container runtimes may hide /sys/firmware (docker and podman mask it with an empty folder by
    // default; the H200 test machine's does not), so only a populated /sys/firmware without efi/
    // says the machine booted through a BIOS.
    std::string list_err;
    const auto firmware = os.fs.list_dir("/sys/firmware", &list_err);
    if (firmware && !firmware->empty()) {
      out.secure_boot = Fact<bool>(false);  // legacy BIOS boot: there is no Secure Boot
      return;
    }
    const bool contained = out.container && out.container.value() != "none";
    out.secure_boot = Fact<bool>::unknown(
        firmware ? std::string("/sys/firmware is empty") + (contained ? " (the container runtime hides it)" : "") +
                       ": the boot mode is not visible"
                 : "/sys/firmware is not readable (" + list_err + "): the boot mode is not visible");
    return;
  }
  std::string list_err;
  const auto vars = os.fs.list_dir(efivars, &list_err);
  if (!vars || vars->empty()) {
    out.secure_boot =
        Fact<bool>::unknown("booted through UEFI, but " + efivars + " is " +
                            (vars ? std::string("empty (efivarfs not mounted)") : "not readable (" + list_err + ")"));
    return;
  }
  for (const auto& e : *vars) {
    if (e.name == kSecureBootVar) {  // listed but not readable
      out.secure_boot = Fact<bool>::unknown("could not read " + err);
      return;
    }
  }
  // A UEFI firmware without Secure Boot support defines no SecureBoot variable (mokutil: "This system
  // doesn't support Secure Boot").
  out.secure_boot = Fact<bool>(false);
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

// Windows: the edition, build and Secure Boot from the registry (probe/windows_registry.h).
void fill_windows(const Os& os, const HostInfo* host, OsFacts& out) {
  std::string why;
  const std::string release = host ? host->kernel_release : std::string();
  if (const auto v = windows::read_version(os.reg, release, &why)) {
    std::string name = v->name;
    if (!v->display_version.empty()) name += " " + v->display_version;
    if (v->wine) name += " (Wine)";
    out.name = name;
    out.version = v->version.empty() ? Fact<std::string>::unknown("the registry has no build number")
                                     : Fact<std::string>(v->version);
  } else {
    out.name = Fact<std::string>::unknown(why);
    out.version = release.empty() ? Fact<std::string>::unknown(why) : Fact<std::string>(parse::clean_text(release));
  }
  std::string sb_why;
  if (const auto sb = windows::read_secure_boot(os.reg, &sb_why))
    out.secure_boot = *sb;
  else
    out.secure_boot = Fact<bool>::unknown(sb_why);
}

void collect_os_as(const Os& os, OsFamily family, const HostInfo* host, OsFacts& out) {
  out = OsFacts{};
  if (family == OsFamily::kWindows || family == OsFamily::kMacos) {
    const bool win = family == OsFamily::kWindows;
    const std::string later = "reading the macOS version is not implemented yet";
    out.family = win ? "windows" : "macos";
    out.name = Fact<std::string>::unknown(later);
    out.id = win ? Fact<std::string>("windows") : Fact<std::string>("macos");
    out.version = Fact<std::string>::unknown(later);
    if (host && !host->kernel_release.empty()) {
      out.kernel = parse::clean_text(host->kernel_release);
    } else {
      out.kernel = Fact<std::string>::unknown(win ? "Windows did not report its version (RtlGetVersion)" : later);
    }
    std::string arch = win ? windows_arch(os.env) : std::string();
    if (arch.empty() && host) arch = parse::clean_text(host->machine);
    out.arch = arch.empty() ? Fact<std::string>::unknown("the OS did not report the processor architecture")
                            : Fact<std::string>(arch);
    out.wsl = "none";  // WSL is a question asked from inside Linux; here we are the host
    out.container = Fact<std::string>::unknown(
        win ? "container detection on Windows is not implemented yet" : "container detection on macOS is not implemented yet");
    out.secure_boot = Fact<bool>::unknown("not read on macOS (Apple's secure boot is not UEFI Secure Boot)");
    if (win) fill_windows(os, host, out);
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
  fill_secure_boot(os, out);
}

}  // namespace detail

void collect_os(const Os& os, OsFacts& out) {
  const HostInfo host = host_info();
  detail::collect_os_as(os, detail::build_os_family(), &host, out);
}

}  // namespace gpuready
