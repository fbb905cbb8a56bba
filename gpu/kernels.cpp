// gpu/kernels.h: grid sizes and launches of verify's kernels. Grid-stride loops: one launch per
// buffer, sized for any GPU.
#include "kernels.h"

namespace gpuready::gpu {
namespace {

using u64 = unsigned long long;

unsigned blocks_for(std::uint64_t n) {
  // Enough blocks to fill any GPU (the loops stride over the rest); at least one.
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

// The kernel of this element type, by its name in device/gpuready.cu.
const char* by_type(Elem t, const char* f32, const char* f16, const char* bf16) {
  return t == Elem::f32 ? f32 : t == Elem::f16 ? f16 : bf16;
}

}  // namespace

CUresult fill_values(void* p, Elem t, std::uint64_t n, std::uint64_t seed, CUstream s) {
  return launch(by_type(t, "gr_fill_f32", "gr_fill_f16", "gr_fill_bf16"), {blocks_for(n)}, {kThreads}, s, p,
                static_cast<u64>(n), static_cast<u64>(seed));
}

CUresult gather_values(const void* p, Elem t, const std::uint64_t* idx, double* out, int n, CUstream s) {
  return launch(by_type(t, "gr_gather_f32", "gr_gather_f16", "gr_gather_bf16"),
                {static_cast<unsigned>((n + kThreads - 1) / kThreads)}, {kThreads}, s, p, idx, out, n);
}

CUresult poke_value(void* p, Elem t, std::uint64_t index, float v, CUstream s) {
  return launch(by_type(t, "gr_poke_f32", "gr_poke_f16", "gr_poke_bf16"), {1}, {1}, s, p, static_cast<u64>(index), v);
}

CUresult mem_write(std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern, std::uint32_t param,
                   CUstream s) {
  return launch("gr_mem_write", {blocks_for(words)}, {kThreads}, s, p, static_cast<u64>(words),
                static_cast<u64>(first_word), pattern, static_cast<unsigned>(param));
}

CUresult mem_check(const std::uint32_t* p, std::uint64_t words, std::uint64_t first_word, int pattern,
                   std::uint32_t param, unsigned long long* count, DeviceFault* faults, int max_faults, CUstream s) {
  return launch("gr_mem_check", {blocks_for(words)}, {kThreads}, s, p, static_cast<u64>(words),
                static_cast<u64>(first_word), pattern, static_cast<unsigned>(param), count, faults, max_faults);
}

}  // namespace gpuready::gpu
