// The numbers the GPU checks compute with, defined once for the GPU (which fills its buffers with
// them) and the CPU (which recomputes sampled results from them): value i of a buffer seeded with
// `seed` is a multiple of 1/128 in [-1, 127/128]. Eight significant bits are exact in fp32, tf32,
// fp16 and bf16, so every precision multiplies the same numbers, and a product of two is exact in
// fp32: the CPU reference, summed in double, is exact, and what differs from it is the GPU's
// accumulation and output rounding alone. Header-only, plain C++ that nvcc also compiles for the GPU.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GPUREADY_HD __host__ __device__
#else
#define GPUREADY_HD
#endif

namespace gpuready::verify {

// splitmix64's finaliser: every input bit flips about half of the output bits.
GPUREADY_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Value `index` of the buffer seeded `seed`: (b - 128) / 128 with b the top byte of a hash, so
// -1 <= v < 1 and 128 * v is an integer. The seed is mixed first, so buffers with neighbouring
// seeds are unrelated (not the same sequence shifted by one).
GPUREADY_HD inline float test_value(std::uint64_t seed, std::uint64_t index) {
  const int b = static_cast<int>(mix64(index ^ mix64(seed)) >> 56);
  return static_cast<float>(b - 128) * (1.0f / 128.0f);
}

// The result elements a check reads back: `count` indices in [0, size), spread by a hash of the
// seed (repeats possible, harmless). The GPU gathers these; the CPU recomputes them.
GPUREADY_HD inline std::uint64_t sample_index(std::uint64_t seed, int i, std::uint64_t size) {
  return size == 0 ? 0 : mix64(mix64(seed ^ 0x73616d706c65ull) + static_cast<std::uint64_t>(i)) % size;
}

}  // namespace gpuready::verify
