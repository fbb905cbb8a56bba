// NVIDIA's fat binary ("fatbin"): the container nvcc writes with -fatbin, that cuModuleLoadData
// takes, and that every CUDA library carries in its .nv_fatbin section. One or more blobs, each a
// 16-byte header (magic 0xBA55ED50, version 1, header size, size of what follows) and entries: a
// header per entry (kind, the image's version, the architecture, flags) then its image, a cubin
// (an ELF of the CUDA machine) or PTX text. The layout is NVIDIA's and undocumented; the fields
// read here are the ones cuobjdump prints (checked against nvcc 11.8's and 13.0's output by
// tests/unit/fatbin_test.cpp). Every offset and size is bounds-checked and the entry count
// capped, so a hostile file can neither make it loop nor read outside the bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

struct FatbinEntry {
  enum class Kind { ptx, cubin, other };
  Kind kind = Kind::other;
  std::uint16_t raw_kind = 0;   // 1 PTX, 2 ELF, others (LTO IR) as found
  int arch = 0;                 // 90: sm_90 for a cubin, compute_90 for PTX
  int version_major = 0;        // PTX: the ISA version (7.8); cubin: the ELF ABI (1.7)
  int version_minor = 0;
  std::uint64_t flags = 0;      // 0x1 64-bit, 0x10 Linux host, 0x40 Windows host, 0x2000/0x8000 compressed
  bool compressed = false;      // the image is compressed (its bytes here are not the ELF or PTX itself)
  std::uint64_t offset = 0;     // of the image, from the start of the data
  std::uint64_t size = 0;       // of the image as stored (padded)
};

struct Fatbin {
  std::vector<FatbinEntry> entries;
};

inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50u;
inline constexpr std::size_t kFatbinMaxEntries = 4096;

// Every blob of `data` (blobs follow each other, 8-byte aligned, as in a library's .nv_fatbin).
// nullopt with *error in words ("not a fatbin", "entry 3 runs past the end") when the data is not one.
std::optional<Fatbin> parse_fatbin(std::string_view data, std::string* error);

// The header of a cubin (an uncompressed image of kind cubin): the toolkit that made it
// (e_version: 118 for CUDA 11.8, 130 for 13.0), its ABI version (EI_ABIVERSION) and the machine
// (EM_CUDA = 190).
struct CubinHeader {
  int toolkit = 0;
  int abi_version = 0;
  int machine = 0;
};
std::optional<CubinHeader> parse_cubin_header(std::string_view image, std::string* error);

// PTX text's ".version X.Y" and ".target sm_NN" lines (the first of each, before any code).
struct PtxHeader {
  int isa_major = 0, isa_minor = 0;
  std::string target;  // "sm_90"
};
std::optional<PtxHeader> parse_ptx_header(std::string_view text, std::string* error);

}  // namespace gpuready::parse
