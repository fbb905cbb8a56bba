// The reply of one of gpuready's own child processes (the driver probe, verify's copy and GPU children, bench's
// engines): one line of JSON on its standard output. The libraries a child loads may print there too (oneDNN with
// ONEDNN_VERBOSE set, cuDNN or cuBLAS with their logging sent to stdout, a driver's warnings), before or after it,
// so the reply is the last line that is a JSON object, not the first line or the whole output.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace gpuready::parse {

// The last line of `out` that parses as a JSON object (nesting at most `max_depth`); nullopt when none does.
std::optional<nlohmann::json> child_reply(std::string_view out, int max_depth = 64);

}  // namespace gpuready::parse
