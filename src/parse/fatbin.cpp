// parse/fatbin.h: the fat binary container, its entries' headers, and the two image kinds' own
// headers. Little-endian throughout (CUDA runs on little-endian hosts only).
#include "parse/fatbin.h"

#include <fmt/format.h>

#include <cstring>

namespace gpuready::parse {
namespace {

template <class T>
T read_le(std::string_view d, std::size_t at) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<unsigned char>(d[at + i])) << (8 * i);
  return v;
}

constexpr std::size_t kBlobHeader = 16;
constexpr std::size_t kEntryHeaderMin = 64;  // PTX entries carry 8 more bytes (72)

}  // namespace

std::optional<Fatbin> parse_fatbin(std::string_view data, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Fatbin> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (data.size() < kBlobHeader) return fail("not a fatbin: shorter than its header");
  Fatbin out;
  std::size_t at = 0;
  int blob = 0;
  while (at < data.size()) {
    if (blob > 0) {
      // Between blobs: zero padding up to the next 8-byte boundary; anything else ends the data.
      while (at < data.size() && at % 8 != 0 && data[at] == 0) ++at;
      if (at >= data.size()) break;
    }
    if (data.size() - at < kBlobHeader) return fail(blob == 0 ? "not a fatbin: shorter than its header" : fmt::format("blob {} is cut short", blob + 1));
    if (read_le<std::uint32_t>(data, at) != kFatbinMagic) {
      if (blob == 0) return fail("not a fatbin: no 0xBA55ED50 magic at the start");
      break;  // trailing bytes after the last blob (section padding)
    }
    const auto header_size = read_le<std::uint16_t>(data, at + 6);
    const auto body_size = read_le<std::uint64_t>(data, at + 8);
    if (header_size < kBlobHeader || header_size > data.size() - at)
      return fail(fmt::format("blob {}: header size {} is impossible", blob + 1, header_size));
    if (body_size > data.size() - at - header_size)
      return fail(fmt::format("blob {}: its {} bytes run past the end of the data", blob + 1, body_size));
    std::size_t e = at + header_size;
    const std::size_t end = e + static_cast<std::size_t>(body_size);
    while (e < end) {
      if (out.entries.size() >= kFatbinMaxEntries) return fail(fmt::format("more than {} entries", kFatbinMaxEntries));
      if (end - e < kEntryHeaderMin) return fail(fmt::format("entry {} is cut short", out.entries.size() + 1));
      FatbinEntry en;
      en.raw_kind = read_le<std::uint16_t>(data, e);
      const auto eh = read_le<std::uint32_t>(data, e + 4);
      const auto payload = read_le<std::uint64_t>(data, e + 8);
      if (eh < kEntryHeaderMin || eh > end - e)
        return fail(fmt::format("entry {}: header size {} is impossible", out.entries.size() + 1, eh));
      if (payload > end - e - eh)
        return fail(fmt::format("entry {}: its {} bytes run past the end of the blob", out.entries.size() + 1, payload));
      en.kind = en.raw_kind == 1 ? FatbinEntry::Kind::ptx : en.raw_kind == 2 ? FatbinEntry::Kind::cubin : FatbinEntry::Kind::other;
      en.version_minor = read_le<std::uint16_t>(data, e + 24);
      en.version_major = read_le<std::uint16_t>(data, e + 26);
      en.arch = static_cast<int>(read_le<std::uint32_t>(data, e + 28));
      en.flags = read_le<std::uint64_t>(data, e + 40);
      en.compressed = (en.flags & 0x2000u) != 0 || (en.flags & 0x8000u) != 0;
      en.offset = e + eh;
      en.size = payload;
      out.entries.push_back(en);
      e += eh + static_cast<std::size_t>(payload);
    }
    at = end;
    ++blob;
  }
  return out;
}

std::optional<CubinHeader> parse_cubin_header(std::string_view image, std::string* error) {
  auto fail = [&](const char* why) -> std::optional<CubinHeader> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (image.size() < 64 || image.substr(0, 4) != std::string_view("\x7f" "ELF", 4)) return fail("not an ELF image");
  if (image[4] != 2 || image[5] != 1) return fail("not a 64-bit little-endian ELF");
  CubinHeader h;
  h.abi_version = static_cast<unsigned char>(image[8]);
  h.machine = read_le<std::uint16_t>(image, 18);
  h.toolkit = static_cast<int>(read_le<std::uint32_t>(image, 20));
  if (h.machine != 190) return fail("not a CUDA cubin (e_machine is not EM_CUDA)");
  return h;
}

std::optional<PtxHeader> parse_ptx_header(std::string_view text, std::string* error) {
  PtxHeader h;
  bool have_version = false, have_target = false;
  std::size_t at = 0;
  // The directives come first; stop at the first line that is code (or after 256 lines).
  for (int line = 0; line < 256 && at < text.size() && !(have_version && have_target); ++line) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(at, nl - at);
    at = nl + 1;
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    if (l.rfind(".version", 0) == 0) {
      l.remove_prefix(8);
      while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
      int major = 0, minor = 0;
      std::size_t i = 0;
      for (; i < l.size() && i < 3 && l[i] >= '0' && l[i] <= '9'; ++i) major = major * 10 + (l[i] - '0');
      if (i == 0 || i >= l.size() || l[i] != '.') break;
      std::size_t j = i + 1;
      for (; j < l.size() && j < i + 4 && l[j] >= '0' && l[j] <= '9'; ++j) minor = minor * 10 + (l[j] - '0');
      if (j == i + 1) break;
      h.isa_major = major;
      h.isa_minor = minor;
      have_version = true;
    } else if (l.rfind(".target", 0) == 0) {
      l.remove_prefix(7);
      while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
      std::size_t k = 0;
      while (k < l.size() && k < 32 && ((l[k] >= 'a' && l[k] <= 'z') || (l[k] >= '0' && l[k] <= '9') || l[k] == '_')) ++k;
      h.target = std::string(l.substr(0, k));
      have_target = !h.target.empty();
    } else if (!l.empty() && l.front() != '/' && l.front() != '.' && l.front() != '\r') {
      break;
    }
  }
  if (!have_version) {
    if (error) *error = "no .version directive at the start of the PTX";
    return std::nullopt;
  }
  return h;
}

}  // namespace gpuready::parse
