// ELF dynamic-section reader (layouts from the System V gABI, elf(5)): e_ident, e_phoff/e_phentsize/
// e_phnum, then the PT_LOAD and PT_DYNAMIC program headers, the Elf{32,64}_Dyn entries up to DT_NULL,
// and the NUL-terminated names in the DT_STRTAB string table. Reads at most: 4 KiB for the header and
// program headers (more only when they are elsewhere), 64 KiB of dynamic entries, and one 64 KiB
// window of strings (or one 4 KiB read per name when the names lie far apart).
#include "parse/elf.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace gpuready::parse {
namespace {

constexpr std::uint32_t kPtLoad = 1;
constexpr std::uint32_t kPtDynamic = 2;
constexpr std::uint64_t kDtNull = 0;
constexpr std::uint64_t kDtNeeded = 1;
constexpr std::uint64_t kDtStrtab = 5;
constexpr std::uint64_t kDtStrsz = 10;
constexpr std::uint64_t kDtSoname = 14;
constexpr std::uint64_t kDtRpath = 15;
constexpr std::uint64_t kDtRunpath = 29;
constexpr std::size_t kFirstRead = 4096;          // the ELF header and, nearly always, the program headers
constexpr std::size_t kMaxPhentsize = 1024;       // 56 / 32 bytes in practice
constexpr std::size_t kStringWindow = 64 * 1024;  // names this close together are read at once
constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// An unsigned field of n bytes at `at` (the caller checked that it lies inside d).
std::uint64_t field(std::string_view d, std::size_t at, std::size_t n, bool big) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | static_cast<unsigned char>(d[at + (big ? i : n - 1 - i)]);
  return v;
}

struct Segment {
  std::uint64_t offset = 0, vaddr = 0, filesz = 0;
};

// read_at that never hands back more than was asked for.
std::optional<std::string> read_exact(const ElfReadAt& read_at, std::uint64_t offset, std::size_t length) {
  auto r = read_at(offset, length);
  if (r && r->size() > length) r->resize(length);
  return r;
}

// The string table: `base` is its file offset, `limit` how many of its bytes the file holds.
class StringTable {
 public:
  StringTable(const ElfReadAt& read_at, std::uint64_t base, std::uint64_t limit)
      : read_at_(read_at), base_(base), limit_(limit) {}

  // One read for every wanted offset when they lie close together (they do in real files).
  void prefetch(const std::vector<std::uint64_t>& offsets) {
    std::uint64_t lo = kMax64, hi = 0;
    for (auto o : offsets) {
      if (o >= limit_) continue;
      lo = std::min(lo, o);
      hi = std::max(hi, o);
    }
    if (lo == kMax64 || hi - lo > kStringWindow) return;
    const std::uint64_t len = std::min<std::uint64_t>(hi - lo + kElfMaxString, limit_ - lo);
    if (auto w = read_exact(read_at_, base_ + lo, static_cast<std::size_t>(len))) {
      window_ = std::move(*w);
      window_at_ = lo;
      have_window_ = true;
    }
  }

  std::optional<std::string> at(std::uint64_t off, std::string* error) const {
    if (off >= limit_) {
      if (error)
        *error = "a name at offset " + std::to_string(off) + " lies outside the string table (" +
                 std::to_string(limit_) + " bytes in the file)";
      return std::nullopt;
    }
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kElfMaxString, limit_ - off));
    if (have_window_ && off >= window_at_ && off - window_at_ < window_.size()) {
      const std::string_view rest = std::string_view(window_).substr(static_cast<std::size_t>(off - window_at_));
      const std::size_t nul = rest.substr(0, want).find('\0');
      if (nul != std::string_view::npos) return std::string(rest.substr(0, nul));
    }
    auto r = read_exact(read_at_, base_ + off, want);
    if (!r) {
      if (error) *error = "could not read the string table at offset " + hex(base_ + off);
      return std::nullopt;
    }
    const std::size_t nul = r->find('\0');
    if (nul == std::string::npos) {
      if (error)
        *error = r->size() < want ? "truncated string table"
                                  : "a name at offset " + std::to_string(off) +
                                        " of the string table is not ended within " + std::to_string(want) + " bytes";
      return std::nullopt;
    }
    r->resize(nul);
    return r;
  }

 private:
  const ElfReadAt& read_at_;
  std::uint64_t base_, limit_;
  std::string window_;
  std::uint64_t window_at_ = 0;
  bool have_window_ = false;
};

}  // namespace

std::optional<ElfDynamic> parse_elf_dynamic(const ElfReadAt& read_at, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<ElfDynamic> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const auto head = read_exact(read_at, 0, kFirstRead);
  if (!head) return fail("could not read the ELF header");
  const std::string_view h = *head;
  if (h.size() < 4 || h.substr(0, 4) != std::string_view("\177ELF", 4)) return fail("not an ELF file");
  if (h.size() < 6) return fail("truncated ELF header");
  const unsigned cls = static_cast<unsigned char>(h[4]), data = static_cast<unsigned char>(h[5]);
  if (cls != 1 && cls != 2) return fail("unknown ELF class " + std::to_string(cls) + " (neither 32- nor 64-bit)");
  if (data != 1 && data != 2) return fail("unknown ELF byte order " + std::to_string(data));

  ElfDynamic out;
  out.is_64bit = cls == 2;
  out.big_endian = data == 2;
  const bool w = out.is_64bit, big = out.big_endian;
  const std::size_t word = w ? 8 : 4;  // Elf_Off, Elf_Addr, Elf_Xword / Elf_Sword fields
  if (h.size() < (w ? 64u : 52u)) return fail("truncated ELF header");
  out.type = static_cast<std::uint16_t>(field(h, 16, 2, big));
  out.machine = static_cast<std::uint16_t>(field(h, 18, 2, big));

  // ---- program headers ----
  const std::uint64_t phoff = field(h, w ? 32 : 28, word, big);
  const std::size_t phentsize = static_cast<std::size_t>(field(h, w ? 54 : 42, 2, big));
  const std::size_t phnum = static_cast<std::size_t>(field(h, w ? 56 : 44, 2, big));
  const std::size_t min_entry = w ? 56 : 32;
  if (phnum == 0 || phoff == 0) return fail("no program headers (not a loadable object)");
  if (phnum > kElfMaxProgramHeaders)
    return fail("too many program headers (" + std::to_string(phnum) + ", at most " +
                std::to_string(kElfMaxProgramHeaders) + " are read)");
  if (phentsize < min_entry || phentsize > kMaxPhentsize)
    return fail("program header entries of " + std::to_string(phentsize) + " bytes (expected " +
                std::to_string(min_entry) + ")");
  const std::size_t phsize = phnum * phentsize;
  std::string ph_owned;
  std::string_view ph;
  if (phoff <= h.size() && phsize <= h.size() - phoff) {
    ph = h.substr(static_cast<std::size_t>(phoff), phsize);
  } else {
    auto r = read_exact(read_at, phoff, phsize);
    if (!r) return fail("could not read the program headers at offset " + hex(phoff));
    ph_owned = std::move(*r);
    ph = ph_owned;
  }
  if (ph.size() < phsize) return fail("truncated program header");

  std::vector<Segment> loads;
  std::optional<Segment> dynamic;
  for (std::size_t i = 0; i < phnum; ++i) {
    const std::size_t at = i * phentsize;
    const auto type = static_cast<std::uint32_t>(field(ph, at, 4, big));
    if (type != kPtLoad && type != kPtDynamic) continue;
    Segment s;
    // Elf64_Phdr: type flags offset vaddr paddr filesz ...; Elf32_Phdr: type offset vaddr paddr filesz ...
    s.offset = field(ph, at + (w ? 8 : 4), word, big);
    s.vaddr = field(ph, at + (w ? 16 : 8), word, big);
    s.filesz = field(ph, at + (w ? 32 : 16), word, big);
    if (type == kPtLoad) {
      loads.push_back(s);
    } else if (!dynamic) {
      dynamic = s;  // the first one, as the loader takes it
    }
  }
  if (!dynamic) return fail("no PT_DYNAMIC segment (a static executable, or not a loadable object)");

  // ---- dynamic entries ----
  const std::size_t entsize = 2 * word;
  const std::uint64_t declared = dynamic->filesz / entsize;
  if (declared == 0) return fail("empty dynamic section");
  const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(declared, kElfMaxDynamicEntries));
  const auto dyn = read_exact(read_at, dynamic->offset, count * entsize);
  if (!dyn) return fail("could not read the dynamic section at offset " + hex(dynamic->offset));
  const std::size_t got = dyn->size() / entsize;
  bool ended = false, has_strtab = false, has_strsz = false;
  std::uint64_t strtab = 0, strsz = 0;
  std::vector<std::uint64_t> needed;
  std::optional<std::uint64_t> soname, rpath, runpath;
  for (std::size_t i = 0; i < got; ++i) {
    const std::uint64_t tag = field(*dyn, i * entsize, word, big);
    const std::uint64_t val = field(*dyn, i * entsize + word, word, big);
    if (tag == kDtNull) {
      ended = true;
      break;
    }
    // A later duplicate wins, as in glibc's l_info[] (DT_NEEDED entries are all kept).
    switch (tag) {
      case kDtNeeded:
        if (needed.size() < kElfMaxNeeded) needed.push_back(val);
        break;
      case kDtStrtab:
        has_strtab = true;
        strtab = val;
        break;
      case kDtStrsz:
        has_strsz = true;
        strsz = val;
        break;
      case kDtSoname:
        soname = val;
        break;
      case kDtRpath:
        rpath = val;
        break;
      case kDtRunpath:
        runpath = val;
        break;
      default:
        break;
    }
  }
  if (!ended) {
    if (got < count) return fail("truncated dynamic section");
    if (count < declared)
      return fail("no DT_NULL within the first " + std::to_string(kElfMaxDynamicEntries) + " dynamic entries");
    // Otherwise the segment simply ends without DT_NULL: what it holds is all there is.
  }
  if (needed.empty() && !soname && !rpath && !runpath) return out;
  if (!has_strtab) return fail("the dynamic section names libraries but has no DT_STRTAB");

  // ---- the string table: DT_STRTAB is an address; the PT_LOAD that maps it gives the file offset ----
  std::optional<std::uint64_t> base;
  std::uint64_t limit = 0;
  for (const auto& s : loads) {
    if (strtab < s.vaddr || strtab - s.vaddr >= s.filesz) continue;
    const std::uint64_t delta = strtab - s.vaddr;
    if (s.offset > kMax64 - delta) continue;
    base = s.offset + delta;
    limit = s.filesz - delta;
    break;
  }
  if (!base) return fail("DT_STRTAB address " + hex(strtab) + " lies in no PT_LOAD segment");
  if (has_strsz) limit = std::min(limit, strsz);
  limit = std::min(limit, kMax64 - *base);

  StringTable strings(read_at, *base, limit);
  std::vector<std::uint64_t> wanted = needed;
  for (const auto& o : {soname, rpath, runpath})
    if (o) wanted.push_back(*o);
  strings.prefetch(wanted);
  std::string why;
  for (auto off : needed) {
    auto s = strings.at(off, &why);
    if (!s) return fail("DT_NEEDED: " + why);
    out.needed.push_back(std::move(*s));
  }
  struct Named {
    const std::optional<std::uint64_t>& off;
    std::optional<std::string>& to;
    const char* tag;
  };
  for (const Named& n : {Named{soname, out.soname, "DT_SONAME"}, Named{rpath, out.rpath, "DT_RPATH"},
                         Named{runpath, out.runpath, "DT_RUNPATH"}}) {
    if (!n.off) continue;
    auto s = strings.at(*n.off, &why);
    if (!s) return fail(std::string(n.tag) + ": " + why);
    n.to = std::move(*s);
  }
  return out;
}

std::optional<ElfDynamic> parse_elf_dynamic(std::string_view file, std::string* error) {
  const ElfReadAt read_at = [file](std::uint64_t offset, std::size_t length) -> std::optional<std::string> {
    if (offset >= file.size()) return std::string();
    return std::string(file.substr(static_cast<std::size_t>(offset), length));
  };
  return parse_elf_dynamic(read_at, error);
}

}  // namespace gpuready::parse
