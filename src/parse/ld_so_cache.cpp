// glibc's ld.so.cache reader (layout from glibc sysdeps/generic/dl-cache.h): a fixed header,
// a table of fixed-size entries, then NUL-terminated strings the entries point into.
#include "parse/ld_so_cache.h"

#include <cstring>

namespace gpuready::parse {
namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";                 // struct cache_file
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";        // magic + version of cache_file_new
constexpr size_t kOldHeader = 16;      // char magic[11]; (pad) uint32 nlibs
constexpr size_t kOldEntry = 12;       // int32 flags; uint32 key, value
constexpr size_t kNewHeader = 48;      // magic[17] version[3] nlibs len_strings flags pad[3] ext_offset unused[3]
constexpr size_t kNewEntry = 24;       // flags key value osversion hwcap(u64)
constexpr std::uint32_t kExtensionMagic = 0xeaa42174;
constexpr size_t kMaxString = 4096;

struct Reader {
  std::string_view d;
  bool big = false;
  bool u32(size_t at, std::uint32_t& out) const {
    if (at > d.size() || d.size() - at < 4) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(d.data() + at);
    out = big ? (std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3])
              : (std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0]);
    return true;
  }
  bool u64(size_t at, std::uint64_t& out) const {
    std::uint32_t a = 0, b = 0;
    if (!u32(at, a) || !u32(at + 4, b)) return false;
    out = big ? (std::uint64_t(a) << 32 | b) : (std::uint64_t(b) << 32 | a);
    return true;
  }
  // NUL-terminated string at base+off, inside the data and not absurdly long.
  bool str(size_t base, std::uint32_t off, std::string& out) const {
    const size_t at = base + off;
    if (at < base || at >= d.size()) return false;
    const size_t limit = std::min(d.size() - at, kMaxString);
    const void* nul = std::memchr(d.data() + at, '\0', limit);
    if (!nul) return false;
    out.assign(d.data() + at, static_cast<const char*>(nul) - (d.data() + at));
    return true;
  }
};

bool parse_new(std::string_view d, LdCache& out, std::string* error) {
  if (d.size() < kNewHeader || d.substr(0, kNewMagic.size()) != kNewMagic) {
    if (error) *error = "no glibc-ld.so.cache1.1 header";
    return false;
  }
  Reader r{d};
  const unsigned char endian = static_cast<unsigned char>(d[28]);
  if (endian == 3) r.big = true;
  else if (endian == 1) {
    if (error) *error = "the cache marks its byte order as invalid";
    return false;
  }
  out.big_endian = r.big;
  std::uint32_t nlibs = 0;
  r.u32(20, nlibs);
  if (static_cast<std::uint64_t>(nlibs) * kNewEntry > d.size() - kNewHeader) {
    if (error) *error = "the cache claims " + std::to_string(nlibs) + " entries but is only " +
                        std::to_string(d.size()) + " bytes long (truncated?)";
    return false;
  }
  out.entries.reserve(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const size_t at = kNewHeader + static_cast<size_t>(i) * kNewEntry;
    std::uint32_t flags = 0, key = 0, value = 0;
    LdCacheEntry e;
    r.u32(at, flags);
    r.u32(at + 4, key);
    r.u32(at + 8, value);
    r.u32(at + 12, e.osversion);
    r.u64(at + 16, e.hwcap);
    e.flags = static_cast<std::int32_t>(flags);
    // Strings of the new format are relative to the start of its header.
    if (!r.str(0, key, e.key) || !r.str(0, value, e.value)) continue;  // skip a bad entry, keep the rest
    out.entries.push_back(std::move(e));
  }
  std::uint32_t ext = 0;
  r.u32(32, ext);
  std::uint32_t magic = 0, count = 0;
  if (ext != 0 && r.u32(ext, magic) && magic == kExtensionMagic && r.u32(ext + 4, count)) {
    for (std::uint32_t i = 0; i < count && i < 64; ++i) {
      const size_t s = static_cast<size_t>(ext) + 8 + static_cast<size_t>(i) * 16;
      std::uint32_t tag = 0, off = 0, size = 0;
      if (!r.u32(s, tag) || !r.u32(s + 8, off) || !r.u32(s + 12, size)) break;
      if (tag == 0 && off < d.size() && size <= d.size() - off && size < kMaxString)
        out.generator.assign(d.data() + off, size);
    }
  }
  return true;
}

}  // namespace

std::optional<LdCache> parse_ld_so_cache(std::string_view d, std::string* error) {
  LdCache out;
  if (d.substr(0, kNewMagic.size()) == kNewMagic) {
    out.format = "new";
    if (!parse_new(d, out, error)) return std::nullopt;
    return out;
  }
  if (d.substr(0, kOldMagic.size()) != kOldMagic) {
    if (error) *error = "not a loader cache (unknown magic)";
    return std::nullopt;
  }
  if (d.size() < kOldHeader) {
    if (error) *error = "the cache is truncated inside its header";
    return std::nullopt;
  }
  Reader r{d};
  std::uint32_t nlibs = 0;
  r.u32(12, nlibs);
  if (static_cast<std::uint64_t>(nlibs) * kOldEntry > d.size() - kOldHeader) {
    if (error) *error = "the cache claims " + std::to_string(nlibs) + " entries but is only " +
                        std::to_string(d.size()) + " bytes long (truncated?)";
    return std::nullopt;
  }
  const size_t table_end = kOldHeader + static_cast<size_t>(nlibs) * kOldEntry;
  // The compat format puts a complete new-format cache after the old table (8-byte aligned);
  // glibc prefers it, and so do we.
  const size_t aligned = (table_end + 7) & ~size_t(7);
  if (aligned < d.size() && d.substr(aligned, kNewMagic.size()) == kNewMagic) {
    out.format = "old+new";
    std::string ignored;
    if (parse_new(d.substr(aligned), out, &ignored)) return out;
    out.entries.clear();
  }
  out.format = "old";
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const size_t at = kOldHeader + static_cast<size_t>(i) * kOldEntry;
    std::uint32_t flags = 0, key = 0, value = 0;
    r.u32(at, flags);
    r.u32(at + 4, key);
    r.u32(at + 8, value);
    LdCacheEntry e;
    e.flags = static_cast<std::int32_t>(flags);
    // Old-format strings are relative to the end of the entry table.
    if (!r.str(table_end, key, e.key) || !r.str(table_end, value, e.value)) continue;
    out.entries.push_back(std::move(e));
  }
  return out;
}

std::string ld_cache_flags_text(std::int32_t flags) {
  std::string out;
  switch (flags & kLdFlagTypeMask) {
    case 0x0000: out = "libc4"; break;
    case 0x0001: out = "ELF"; break;
    case 0x0002: out = "libc5"; break;
    case 0x0003: out = "libc6"; break;
    default: out = "unknown"; break;
  }
  switch (flags & kLdFlagRequiredMask) {
    case 0x0000: break;
    case 0x0100: out += ",64bit"; break;       // SPARC
    case 0x0200: out += ",IA-64"; break;
    case 0x0300: out += ",x86-64"; break;
    case 0x0400: out += ",64bit"; break;       // s390
    case 0x0500: out += ",64bit"; break;       // POWER
    case 0x0600: out += ",N32"; break;
    case 0x0700: out += ",64bit"; break;       // MIPS n64
    case 0x0800: out += ",x32"; break;
    case 0x0900: out += ",hard-float"; break;
    case 0x0a00: out += ",AArch64"; break;
    case 0x0b00: out += ",soft-float"; break;
    default: out += ",other"; break;
  }
  return out;
}

std::optional<std::int32_t> ld_cache_native_flags() {
#if defined(__x86_64__) || defined(_M_X64)
  return 0x0303;
#elif defined(__aarch64__) || defined(_M_ARM64)
  return 0x0a03;
#elif defined(__i386__)
  return 0x0003;
#else
  return std::nullopt;
#endif
}

}  // namespace gpuready::parse
