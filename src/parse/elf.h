// The dynamic section of an ELF shared object (or executable), read the way the dynamic loader
// reads it: the ELF header, the program headers (PT_DYNAMIC, and the PT_LOAD segments that turn
// DT_STRTAB's address into a file offset; section headers are never used, they may be stripped or
// sit at the end of a 141 MB file), then DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH from the
// string table. 32/64-bit, little/big endian. The file is read through a read-at callback, so a huge
// CUDA library costs a few small reads; every offset is bounds-checked and every count and string
// length capped, so a hostile file can neither make it loop nor allocate much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

struct ElfDynamic {
  bool is_64bit = false;
  bool big_endian = false;
  std::uint16_t type = 0;              // e_type: 2 executable, 3 shared object (and PIE executables)
  std::uint16_t machine = 0;           // e_machine: 62 x86-64, 183 AArch64, 3 i386, 21 PowerPC64 ...
  std::vector<std::string> needed;     // DT_NEEDED names in file order: "libnvJitLink.so.12"
  std::optional<std::string> soname;   // DT_SONAME
  std::optional<std::string> rpath;    // DT_RPATH as written: "$ORIGIN/../lib"
  std::optional<std::string> runpath;  // DT_RUNPATH as written: "$ORIGIN:$ORIGIN/../../cublas/lib"
};

// Reads up to `length` bytes at `offset`: fewer (or none) at the end of the file; nullopt when the
// file cannot be read at all.
using ElfReadAt = std::function<std::optional<std::string>(std::uint64_t offset, std::size_t length)>;

inline constexpr std::size_t kElfMaxProgramHeaders = 512;
inline constexpr std::size_t kElfMaxDynamicEntries = 4096;  // real libraries have about 40
inline constexpr std::size_t kElfMaxNeeded = 256;           // DT_NEEDED entries kept
inline constexpr std::size_t kElfMaxString = 4096;          // bytes per name or path list

// nullopt with *error set in words ("not an ELF file", "truncated program header", ...).
std::optional<ElfDynamic> parse_elf_dynamic(const ElfReadAt& read_at, std::string* error);
// The same over a whole file in memory (tests, fuzzing).
std::optional<ElfDynamic> parse_elf_dynamic(std::string_view file, std::string* error);

}  // namespace gpuready::parse
