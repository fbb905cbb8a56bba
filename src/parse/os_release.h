// Parser for os-release(5) (/etc/os-release, /usr/lib/os-release): KEY=value lines with
// shell-style quoting. Pure and non-throwing; the OS collector (probe/os.cpp) reads the file.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace gpuready::parse {

// KEY -> unquoted value. Blank lines, comments, and lines that are not KEY=value are skipped
// (os-release(5) says readers must ignore them); a later duplicate KEY wins, as in the shell.
std::map<std::string, std::string> os_release(std::string_view text);

}  // namespace gpuready::parse
