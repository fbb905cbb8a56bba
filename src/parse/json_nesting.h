// A guard for JSON read from the machine or a child: nlohmann's parser is iterative but the DOM it
// builds is destroyed recursively, so absurd nesting is refused before parsing.
#pragma once

#include <string_view>

namespace gpuready::parse {

// False when brackets outside strings nest deeper than `limit`.
bool json_nesting_ok(std::string_view text, int limit);

}  // namespace gpuready::parse
