// The end of a compressed file: a kernel module packed as .ko.zst (Ubuntu 24.04's DKMS default),
// .ko.xz (Fedora, openSUSE) or .ko.gz, where the module signature sits at the end of the
// uncompressed bytes. Streamed through libzstd / liblzma / zlib, keeping only the last bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

// Whether this build can decompress `format` ("zst", "xz", "gz").
bool can_decompress(std::string_view format);

// The last `tail_bytes` of the decompressed data (all of it when shorter). nullopt with *error
// when the data is not of that format, is cut short or corrupt, or would decompress to more than
// `max_output` bytes (a compression bomb stops there).
std::optional<std::string> decompressed_tail(std::string_view data, std::string_view format, size_t tail_bytes,
                                             size_t max_output, std::string* error);

// All of the decompressed data: decompressed_tail keeping everything, with the same refusals.
std::optional<std::string> decompressed(std::string_view data, std::string_view format, size_t max_output,
                                        std::string* error);

}  // namespace gpuready::parse
