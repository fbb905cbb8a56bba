// Parsers for the kernel's module bookkeeping: /lib/modules/<release>/modules.dep, where depmod(8)
// writes one line per module ("updates/dkms/nvidia.ko.zst: ", "kernel/drivers/gpu/drm/drm_kms_helper.ko:
// kernel/drivers/gpu/drm/drm.ko"; paths relative to that folder, absolute from old module-init-tools),
// and the trailer the kernel's sign-file appends to a signed module. Pure, bounded, never throw.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

struct KernelModuleFile {
  std::string path;         // as written in modules.dep: "updates/dkms/nvidia.ko.zst"
  std::string compression;  // "" (plain .ko), "xz", "zst" or "gz"
};

// The NVIDIA kernel module's line: the first module file named nvidia.ko, nvidia.ko.xz, nvidia.ko.zst
// or nvidia.ko.gz (or nvidia-current.ko*, as Debian's driver packages name it). nvidia-uvm, nvidia-drm,
// nvidia-modeset, nvidia-peermem and the in-kernel nvidiafb are other modules. nullopt when none.
std::optional<KernelModuleFile> nvidia_module_in_modules_dep(std::string_view text);

// What scripts/sign-file writes after the signature (include/linux/module_signature.h, MODULE_SIG_STRING).
inline constexpr std::string_view kModuleSignatureMarker = "~Module signature appended~\n";

// Whether a module file's last bytes (any tail of at least the marker's length) end with the marker.
bool module_signature_appended(std::string_view file_tail);

// Orders kernel releases as people read them: digit runs compare as numbers ("6.1.0-9" < "6.1.0-17").
bool kernel_release_less(std::string_view a, std::string_view b);

}  // namespace gpuready::parse
