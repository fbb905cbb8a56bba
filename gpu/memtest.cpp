// memory.pattern: write a pattern over a share of the free GPU memory, then read it all back and
// compare on the GPU, for each pattern (kernels.h): 32 walking-one and 32 walking-zero passes,
// the words' own indices, and random words. Every chunk is written before any is read, so each
// word holds its value for the whole pass. Faults are reported with their device addresses.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <memory>

#include "module.h"

namespace gpuready::gpu {
namespace {

constexpr std::size_t kChunk = 1ull << 30;  // allocations of 1 GiB: fragmented free memory still fills
constexpr std::size_t kMinChunk = 64ull << 20;
constexpr int kMaxFaults = 16;

struct Pass {
  int pattern;
  std::uint32_t param;
  std::string name;
};

}  // namespace

void run_memory(Run& run) {
  run.log.announce("memory.pattern");
  verify::MemoryResult res;
  size_t free_b = 0, total_b = 0;
  if (CUresult rc = cu().cuMemGetInfo_v2(&free_b, &total_b); rc != CUDA_SUCCESS) {
    res.error = cu_error("cuMemGetInfo", rc);
    run.reply.memory.push_back(std::move(res));
    return;
  }
  res.free_before = free_b;
  const double share = run.req.memory_share <= 0 ? 0.5 : (run.req.memory_share > 0.95 ? 0.95 : run.req.memory_share);
  const std::size_t target = static_cast<std::size_t>(static_cast<double>(free_b) * share) & ~std::size_t{4095};
  std::vector<std::unique_ptr<DevBuf>> chunks;
  std::size_t got = 0;
  std::size_t want = kChunk;
  while (got < target && want >= kMinChunk) {
    const std::size_t n = std::min(want, target - got);
    auto b = std::make_unique<DevBuf>();
    if (!b->alloc(n).empty()) {
      want /= 2;  // fragmented or shared: smaller pieces
      continue;
    }
    got += n;
    chunks.push_back(std::move(b));
  }
  res.bytes = got;
  if (chunks.empty()) {
    res.skip = fmt::format("could not allocate even {} MiB of the {} MiB free", kMinChunk >> 20, free_b >> 20);
    run.reply.memory.push_back(std::move(res));
    return;
  }
  std::vector<Pass> passes;
  if (run.req.memory_walking) {
    for (std::uint32_t b = 0; b < 32; ++b) passes.push_back({kWalkingOnes, b, "walking ones"});
    for (std::uint32_t b = 0; b < 32; ++b) passes.push_back({kWalkingZeros, b, "walking zeros"});
  }
  passes.push_back({kAddress, 0, "own address"});
  passes.push_back({kAddress, 0xffffffffu, "own address inverted"});
  for (int r = 0; r < (run.req.memory_rounds < 1 ? 1 : run.req.memory_rounds); ++r)
    passes.push_back({kRandom, static_cast<std::uint32_t>(verify::mix64(run.req.seed + 7 * r) | 1), "random"});
  for (const auto& p : passes)
    if (res.patterns.empty() || res.patterns.back() != p.name) res.patterns.push_back(p.name);

  DevBuf counter, faults;
  if (std::string e = counter.alloc(sizeof(unsigned long long)); !e.empty()) res.error = e;
  if (res.error.empty()) res.error = faults.alloc(sizeof(DeviceFault) * kMaxFaults);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t pi = 0; pi < passes.size() && res.error.empty(); ++pi) {
    const Pass& p = passes[pi];
    std::uint64_t first = 0;
    CUresult rc = CUDA_SUCCESS;
    for (const auto& c : chunks) {
      if (rc == CUDA_SUCCESS)
        rc = mem_write(c->as<std::uint32_t>(), c->bytes() / 4, first, p.pattern, p.param, run.stream);
      first += c->bytes() / 4;
    }
    if (rc == CUDA_SUCCESS && pi == 0 && run.req.plant_corruption)
      rc = cu().cuMemsetD8Async(dptr(chunks[0]->as<char>() + 4096 * 3 + 4), 0xa5, 4, run.stream);  // one word, the forced failure
    if (rc == CUDA_SUCCESS) rc = cu().cuMemsetD8Async(dptr(counter.get()), 0, sizeof(unsigned long long), run.stream);
    first = 0;
    for (const auto& c : chunks) {
      if (rc == CUDA_SUCCESS)
        rc = mem_check(c->as<std::uint32_t>(), c->bytes() / 4, first, p.pattern, p.param,
                       counter.as<unsigned long long>(), faults.as<DeviceFault>(), kMaxFaults, run.stream);
      first += c->bytes() / 4;
    }
    unsigned long long count = 0;
    DeviceFault host_faults[kMaxFaults] = {};
    if (rc == CUDA_SUCCESS)
      rc = cu().cuMemcpyDtoHAsync_v2(&count, dptr(counter.get()), sizeof count, run.stream);
    if (rc == CUDA_SUCCESS)
      rc = cu().cuMemcpyDtoHAsync_v2(host_faults, dptr(faults.get()), sizeof host_faults, run.stream);
    if (rc == CUDA_SUCCESS) rc = cu().cuStreamSynchronize(run.stream);
    if (rc != CUDA_SUCCESS) {
      res.error = cu_error(fmt::format("the {} pass", p.name).c_str(), rc);
      break;
    }
    res.errors += count;
    for (unsigned long long i = 0; i < count && i < kMaxFaults && res.faults.size() < kMaxFaults; ++i) {
      verify::MemoryFault f;
      f.offset = host_faults[i].word * 4;
      std::uint64_t word = host_faults[i].word;
      for (const auto& c : chunks) {  // the chunk holding the word, for its device address
        if (word < c->bytes() / 4) {
          f.address = reinterpret_cast<std::uint64_t>(c->get()) + word * 4;
          break;
        }
        word -= c->bytes() / 4;
      }
      f.expected = host_faults[i].expected;
      f.got = host_faults[i].got;
      f.pattern = p.name;
      res.faults.push_back(f);
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (res.seconds > 0) res.write_read_gbps = 2.0 * static_cast<double>(got) * passes.size() / res.seconds / 1e9;
  res.method = fmt::format(
      "{:.1f} GiB ({:.0f}% of the {:.1f} GiB free) in {} allocations; {} passes ({}), each writing every word then "
      "reading every word back on the GPU",
      got / 1073741824.0, share * 100, free_b / 1073741824.0, chunks.size(), passes.size(),
      fmt::join(res.patterns, ", "));
  run.reply.memory.push_back(std::move(res));
}

}  // namespace gpuready::gpu
