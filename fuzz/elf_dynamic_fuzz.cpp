// libFuzzer target for the ELF dynamic-section reader: any bytes must parse or be refused with a
// reason, never crash, and what parses must respect the caps. The bytes are read whole, through a
// callback that breaks its contract by answering at most 7 bytes per call (the reader must neither
// crash nor ask more than a bounded number of times), and through one that cannot read at all.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "parse/elf.h"

namespace {

void check(const std::optional<gpuready::parse::ElfDynamic>& d, const std::string& err) {
  using namespace gpuready::parse;
  if (!d) {
    if (err.empty()) std::abort();  // a refusal always says why
    return;
  }
  if (d->needed.size() > kElfMaxNeeded) std::abort();
  for (const auto& n : d->needed)
    if (n.size() >= kElfMaxString || n.find('\0') != std::string::npos) std::abort();
  for (const auto* s : {&d->soname, &d->rpath, &d->runpath})
    if (*s && (*s)->size() >= kElfMaxString) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready::parse;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string err;
  const auto whole = parse_elf_dynamic(in, &err);
  check(whole, err);

  // Short reads everywhere: bounded work, no crash.
  size_t calls = 0;
  const ElfReadAt dribble = [&](std::uint64_t offset, std::size_t length) -> std::optional<std::string> {
    ++calls;
    if (offset >= in.size()) return std::string();
    return std::string(in.substr(static_cast<size_t>(offset), std::min<std::size_t>(length, 7)));
  };
  std::string err2;
  const auto part = parse_elf_dynamic(dribble, &err2);
  check(part, err2);
  if (calls > 4 + kElfMaxNeeded + 3) std::abort();  // header, program headers, dynamic, strings

  // A reader that fails at once is refused with a reason.
  std::string err3;
  if (parse_elf_dynamic(ElfReadAt([](std::uint64_t, std::size_t) { return std::optional<std::string>(); }), &err3) ||
      err3.empty())
    std::abort();
  return 0;
}
