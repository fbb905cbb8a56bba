// /etc/ld.so.cache, the dynamic loader's index of sonames, parsed from glibc's binary format:
// the "glibc-ld.so.cache1.1" table (default since glibc 2.32), optionally preceded by the
// old "ld.so-1.7.0" table (the "compat" format). Every offset is bounds-checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::parse {

struct LdCacheEntry {
  std::string key;          // the soname: "libcudnn.so.9"
  std::string value;        // the file: "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"
  std::int32_t flags = 0;   // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 = 0x0303 ...
  std::uint32_t osversion = 0;
  std::uint64_t hwcap = 0;  // bit 62 set: a glibc-hwcaps subdirectory entry
};

struct LdCache {
  std::string format;       // "new", "old", "old+new"
  bool big_endian = false;
  std::vector<LdCacheEntry> entries;  // in file order (glibc keeps them sorted, best first)
  std::string generator;    // the extension's generator string, e.g. "ldconfig (GNU libc) stable release version 2.36"
};

// nullopt with *error set when the data is not a loader cache or is cut short.
std::optional<LdCache> parse_ld_so_cache(std::string_view data, std::string* error);

// glibc flag words.
inline constexpr std::int32_t kLdFlagTypeMask = 0x00ff;
inline constexpr std::int32_t kLdFlagElfLibc6 = 0x0003;
inline constexpr std::int32_t kLdFlagRequiredMask = 0xff00;
// "libc6,x86-64", "libc6,AArch64", "libc6" ... as `ldconfig -p` prints the flags.
std::string ld_cache_flags_text(std::int32_t flags);
// The flags word of the entries the loader of this build's architecture accepts, nullopt when any.
std::optional<std::int32_t> ld_cache_native_flags();

}  // namespace gpuready::parse
