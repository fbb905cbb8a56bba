// Installed-package facts from text a package manager keeps or prints: dpkg's status database
// (/var/lib/dpkg/status, RFC 822 stanzas) and `nvidia-ctk --version`. Pure functions over bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

// The Version of `package` when its Status says "install ok installed" ("1.17.4-1"); nullopt when
// it is absent, removed, or only configured files remain. Stanzas are separated by blank lines;
// continuation lines (leading space) are skipped.
std::optional<std::string> dpkg_installed_version(std::string_view status, std::string_view package);

// "NVIDIA Container Toolkit CLI version 1.17.8\ncommit: ..." -> "1.17.8"; nullopt when no
// "version X.Y.Z" is in the first lines.
std::optional<std::string> nvidia_ctk_version(std::string_view output);

// The upstream part of a Debian version: "1.17.4-1" -> "1.17.4", "1:1.2.3-0ubuntu1" -> "1.2.3",
// "1.18.0~rc.1-1" -> "1.18.0".
std::string debian_upstream_version(std::string_view version);

}  // namespace gpuready::parse
