// The device code's fatbin (gpuready.fatbin, checked in; scripts/build-fatbin.sh makes it),
// embedded into the CUDA module at build time by cmake/embed_text.cmake (KIND=binary).
#pragma once

#include <cstddef>

namespace gpuready::gpu {

const unsigned char* gpuready_fatbin_data();  // 64-byte aligned, as cuModuleLoadData wants an image
std::size_t gpuready_fatbin_size();

}  // namespace gpuready::gpu
