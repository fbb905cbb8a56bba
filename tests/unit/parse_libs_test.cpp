// Tests of the library/toolkit parsers: ld.so.cache (real caches made by ldconfig, caches built
// here in the old, compat and big-endian layouts, and cut or corrupted ones), the version files, and
// the ELF dynamic-section reader (real stand-ins made by gcc/clang, files built here in the four
// class/byte-order layouts, hostile and cut ones, and a cross-check with readelf on real files) with
// the Fs::read_file_at it reads through.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "parse/cuda_headers.h"
#include "parse/elf.h"
#include "parse/ld_so_cache.h"
#include "support/test_os.h"

namespace gpuready::parse {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// ---- a cache writer for the layouts ldconfig here no longer writes -----------------------------
void put32(std::string& s, size_t at, std::uint32_t v, bool big = false) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>(big ? (v >> (24 - 8 * i)) & 0xff : (v >> (8 * i)) & 0xff);
}
struct E {
  std::string key, value;
  std::int32_t flags = 0x0303;
  std::uint64_t hwcap = 0;
};
std::string new_format(const std::vector<E>& entries, bool big = false) {
  std::string s(48 + 24 * entries.size(), '\0');
  s.replace(0, 20, "glibc-ld.so.cache1.1");
  put32(s, 20, static_cast<std::uint32_t>(entries.size()), big);
  s[28] = big ? 3 : 2;
  for (size_t i = 0; i < entries.size(); ++i) {
    const size_t at = 48 + 24 * i;
    put32(s, at, static_cast<std::uint32_t>(entries[i].flags), big);
    put32(s, at + 4, static_cast<std::uint32_t>(s.size()), big);
    s += entries[i].key + '\0';
    put32(s, at + 8, static_cast<std::uint32_t>(s.size()), big);
    s += entries[i].value + '\0';
    const auto lo = static_cast<std::uint32_t>(entries[i].hwcap), hi = static_cast<std::uint32_t>(entries[i].hwcap >> 32);
    put32(s, at + 16, big ? hi : lo, big);
    put32(s, at + 20, big ? lo : hi, big);
  }
  return s;
}
std::string old_format(const std::vector<E>& entries, bool append_new) {
  std::string s(16 + 12 * entries.size(), '\0');
  s.replace(0, 11, "ld.so-1.7.0");
  put32(s, 12, static_cast<std::uint32_t>(entries.size()));
  std::string strings;
  for (size_t i = 0; i < entries.size(); ++i) {
    const size_t at = 16 + 12 * i;
    put32(s, at, static_cast<std::uint32_t>(entries[i].flags));
    put32(s, at + 4, static_cast<std::uint32_t>(strings.size()));
    strings += entries[i].key + '\0';
    put32(s, at + 8, static_cast<std::uint32_t>(strings.size()));
    strings += entries[i].value + '\0';
  }
  if (!append_new) return s + strings;
  // compat: the new table follows the old entries, 8-byte aligned (the old strings come after it in
  // glibc's writer, which the loader never reads when the new table is there).
  while (s.size() % 8) s += '\0';
  std::vector<E> renamed = entries;
  for (auto& e : renamed) e.value += ".new";
  return s + new_format(renamed);
}

TEST(LdSoCache, ParsesCacheWrittenByLdconfig) {
  const std::string data = slurp(test::fixture("libs/linux_cuda12/etc/ld.so.cache"));
  ASSERT_FALSE(data.empty());
  std::string err;
  auto c = parse_ld_so_cache(data, &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->format, "new");
  EXPECT_FALSE(c->big_endian);
  EXPECT_EQ(c->entries.size(), 10u);  // cuDNN 8, the driver's libraries and zlib
  bool found = false;
  for (const auto& e : c->entries) {
    if (e.key == "libcudnn.so.8") {
      found = true;
      EXPECT_EQ(e.value, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
      EXPECT_EQ(e.flags, 0x0303);
      EXPECT_EQ(ld_cache_flags_text(e.flags), "libc6,x86-64");
      EXPECT_EQ(e.hwcap, 0u);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_NE(c->generator.find("ldconfig"), std::string::npos) << c->generator;
}

TEST(LdSoCache, WslCacheHasOnlyTheSonameNotTheCopies) {
  auto c = parse_ld_so_cache(slurp(test::fixture("libs/wsl/etc/ld.so.cache")), nullptr);
  ASSERT_TRUE(c);
  std::vector<std::string> keys;
  for (const auto& e : c->entries) keys.push_back(e.key);
  EXPECT_NE(std::find(keys.begin(), keys.end(), "libcuda.so.1"), keys.end());
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "libcuda.so"), keys.end());
}

TEST(LdSoCache, ParsesThisMachinesCache) {
  const std::string data = slurp("/etc/ld.so.cache");
  if (data.empty()) GTEST_SKIP() << "no /etc/ld.so.cache on this machine";
  std::string err;
  auto c = parse_ld_so_cache(data, &err);
  ASSERT_TRUE(c) << err;
  bool libc = false;
  for (const auto& e : c->entries) libc = libc || e.key == "libc.so.6";
  EXPECT_TRUE(libc);
}

TEST(LdSoCache, OldFormatAlone) {
  auto c = parse_ld_so_cache(old_format({{"libcudart.so.10.1", "/usr/lib/libcudart.so.10.1", 0x0303}}, false), nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->format, "old");
  ASSERT_EQ(c->entries.size(), 1u);
  EXPECT_EQ(c->entries[0].key, "libcudart.so.10.1");
  EXPECT_EQ(c->entries[0].value, "/usr/lib/libcudart.so.10.1");
}

TEST(LdSoCache, CompatFormatPrefersTheNewTable) {
  auto c = parse_ld_so_cache(old_format({{"libnccl.so.2", "/usr/lib/libnccl.so.2"}}, true), nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->format, "old+new");
  ASSERT_EQ(c->entries.size(), 1u);
  EXPECT_EQ(c->entries[0].value, "/usr/lib/libnccl.so.2.new");
}

TEST(LdSoCache, BigEndianAndHwcapEntries) {
  auto c = parse_ld_so_cache(
      new_format({{"libcudnn.so.9", "/usr/lib64/glibc-hwcaps/x86-64-v3/libcudnn.so.9", 0x0303, (1ull << 62) | 1},
                  {"libcudnn.so.9", "/usr/lib64/libcudnn.so.9", 0x0303, 0}},
                 true),
      nullptr);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->big_endian);
  ASSERT_EQ(c->entries.size(), 2u);
  EXPECT_EQ(c->entries[0].hwcap, (1ull << 62) | 1);
  EXPECT_EQ(c->entries[1].value, "/usr/lib64/libcudnn.so.9");
}

TEST(LdSoCache, RejectsGarbageAndTruncation) {
  std::string err;
  EXPECT_FALSE(parse_ld_so_cache("", &err));
  EXPECT_FALSE(parse_ld_so_cache("hello world, not a cache", &err));
  EXPECT_NE(err.find("magic"), std::string::npos);
  std::string good = new_format({{"libcuda.so.1", "/usr/lib/libcuda.so.1"}, {"libnvidia-ml.so.1", "/usr/lib/x"}});
  // Cut inside the entry table: the claimed count no longer fits.
  EXPECT_FALSE(parse_ld_so_cache(good.substr(0, 60), &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  // Cut inside the strings: the table is whole, the entries whose strings are gone are dropped.
  auto cut = parse_ld_so_cache(good.substr(0, good.size() - 5), &err);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->entries.size(), 1u);
  // A huge entry count must not allocate or read past the end.
  std::string huge = good;
  put32(huge, 20, 0xffffffffu);
  EXPECT_FALSE(parse_ld_so_cache(huge, &err));
  // String offsets pointing outside the data.
  std::string wild = good;
  put32(wild, 48 + 4, 0x7fffffffu);
  auto w = parse_ld_so_cache(wild, &err);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->entries.size(), 1u);
  // Every prefix of a real cache either parses or says why; none crashes.
  const std::string real = slurp(test::fixture("libs/wsl/etc/ld.so.cache"));
  for (size_t n = 0; n <= real.size(); n += 7) {
    std::string e2;
    auto r = parse_ld_so_cache(std::string_view(real).substr(0, n), &e2);
    if (!r) {
      EXPECT_FALSE(e2.empty());
    }
  }
}

// ---- version files -----------------------------------------------------------------------------
TEST(CudaHeaders, VersionJson) {
  auto j = parse_cuda_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"},
      "libcublas": {"name": "CUDA cuBLAS", "version": "12.4.5.8"}, "odd": 5})");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->cuda.value_or(""), "12.4.1");
  EXPECT_EQ(j->components.at("libcublas"), "12.4.5.8");
  EXPECT_FALSE(j->components.count("odd"));
  EXPECT_FALSE(parse_cuda_version_json("{\"cuda\": {\"version\": \"12.4"));  // truncated
  EXPECT_FALSE(parse_cuda_version_json("\x7f" "ELF garbage"));
  EXPECT_FALSE(parse_cuda_version_json("[1,2]"));
  EXPECT_FALSE(parse_cuda_version_json(std::string(100000, '[')));
  auto nov = parse_cuda_version_json(R"({"cuda": {"version": "banana"}})");
  ASSERT_TRUE(nov);
  EXPECT_FALSE(nov->cuda);
}

TEST(CudaHeaders, VersionTxtAndCudaH) {
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 11.0.228\n").value_or(""), "11.0.228");
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 10.2.89").value_or(""), "10.2.89");
  EXPECT_FALSE(parse_cuda_version_txt("CUDA Version \n"));
  EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 12040\n").value_or(""), "12.4");
  EXPECT_EQ(parse_cuda_h_version("  #  define CUDA_VERSION 13000 /* API */\n").value_or(""), "13.0");
  EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 11080").value_or(""), "11.8");
  EXPECT_FALSE(parse_cuda_h_version("#define CUDA_VERS"));  // truncated
  EXPECT_FALSE(parse_cuda_h_version("#define CUDA_VERSION(x) x\n"));
  EXPECT_FALSE(parse_cuda_h_version("#define CUDA_VERSION 99999999999999\n"));
}

TEST(CudaHeaders, LibraryHeaders) {
  // cuDNN 9/8: cudnn_version.h; cuDNN 7: the same macros in cudnn.h.
  EXPECT_EQ(parse_cudnn_header_version(slurp(test::fixture(
                "libs/linux_cuda12/usr/local/cuda-12.4/targets/x86_64-linux/include/cudnn_version.h")))
                .value_or(""),
            "9.1.0");
  EXPECT_EQ(parse_cudnn_header_version("#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n"
                                       "#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n")
                .value_or(""),
            "7.6.5");
  EXPECT_FALSE(parse_cudnn_header_version("#define CUDNN_MAJOR 9\n#define CUDNN_MIN"));  // truncated
  EXPECT_EQ(parse_nccl_header_version(slurp(test::fixture(
                "libs/pip_wheels/home/u/venv/lib/python3.12/site-packages/nvidia/nccl/include/nccl.h")))
                .value_or(""),
            "2.20.5");
  // TensorRT 8 defines the numbers directly, TensorRT >= 10.11 through TRT_*_ENTERPRISE.
  EXPECT_EQ(parse_tensorrt_header_version("#define NV_TENSORRT_MAJOR 8 //!< major\n#define NV_TENSORRT_MINOR 6\n"
                                          "#define NV_TENSORRT_PATCH 1\n#define NV_TENSORRT_BUILD 6\n")
                .value_or(""),
            "8.6.1.6");
  EXPECT_EQ(parse_tensorrt_header_version(
                "#define TRT_MAJOR_ENTERPRISE 10\n#define TRT_MINOR_ENTERPRISE 14\n#define TRT_PATCH_ENTERPRISE 1\n"
                "#define TRT_BUILD_ENTERPRISE 48\n#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE //!< major\n"
                "#define NV_TENSORRT_MINOR TRT_MINOR_ENTERPRISE\n#define NV_TENSORRT_PATCH TRT_PATCH_ENTERPRISE\n"
                "#define NV_TENSORRT_BUILD TRT_BUILD_ENTERPRISE\n")
                .value_or(""),
            "10.14.1.48");
  // Self-referencing aliases end.
  EXPECT_FALSE(parse_tensorrt_header_version("#define NV_TENSORRT_MAJOR A\n#define A B\n#define B A\n"
                                             "#define NV_TENSORRT_MINOR 1\n"));
  EXPECT_EQ(parse_cublas_header_version("#define CUBLAS_VER_MAJOR 13\n#define CUBLAS_VER_MINOR 1\n"
                                        "#define CUBLAS_VER_PATCH 0\n#define CUBLAS_VER_BUILD 3\n")
                .value_or(""),
            "13.1.0.3");
}

TEST(CudaHeaders, NvccOutput) {
  EXPECT_EQ(parse_nvcc_version_output("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2024 NVIDIA Corporation\n"
                                      "Built on Thu_Mar_28_02:18:24_PDT_2024\n"
                                      "Cuda compilation tools, release 12.4, V12.4.131\nBuild cuda_12.4.r12.4/compiler.34097967_0\n")
                .value_or(""),
            "12.4.131");
  EXPECT_EQ(parse_nvcc_version_output("Cuda compilation tools, release 10.2, V10.2.89").value_or(""), "10.2.89");
  EXPECT_EQ(parse_nvcc_version_output("Cuda compilation tools, release 9.0").value_or(""), "9.0");
  EXPECT_FALSE(parse_nvcc_version_output("bash: nvcc: command not found"));
}

TEST(CudaHeaders, LibraryFileNames) {
  auto f = parse_library_file_name("libcudnn.so.9.1.0");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->stem, "libcudnn");
  EXPECT_EQ(f->version, "9.1.0");
  EXPECT_FALSE(f->windows);
  EXPECT_EQ(parse_library_file_name("libcuda.so")->version, "");
  EXPECT_EQ(parse_library_file_name("libnvrtc-builtins.alt.so.13.0")->stem, "libnvrtc-builtins.alt");
  EXPECT_EQ(parse_library_file_name("libcudnn_ops_infer.so.8")->stem, "libcudnn_ops_infer");
  EXPECT_FALSE(parse_library_file_name("libcudart_static.a"));
  EXPECT_FALSE(parse_library_file_name("libfoo.so.1.debug"));
  EXPECT_FALSE(parse_library_file_name(".so.1"));

  struct W {
    const char* name;
    const char* stem;
    const char* version;
  };
  for (const W& w : {W{"cudnn64_8.dll", "cudnn", "8"}, W{"cudart64_110.dll", "cudart", "11.0"},
                     W{"cudart64_101.dll", "cudart", "10.1"}, W{"cudart64_12.dll", "cudart", "12"},
                     W{"cublasLt64_11.dll", "cublasLt", "11"}, W{"nvJitLink_120_0.dll", "nvJitLink", "12.0"},
                     W{"nvrtc64_112_0.dll", "nvrtc", "11.2"}, W{"cudnn_ops_infer64_8.dll", "cudnn_ops_infer", "8"},
                     W{"cudnn_graph64_9.dll", "cudnn_graph", "9"}, W{"nvinfer_10.dll", "nvinfer", "10"},
                     W{"NVCUDA.DLL", "NVCUDA", ""}}) {
    auto p = parse_library_file_name(w.name);
    ASSERT_TRUE(p) << w.name;
    EXPECT_TRUE(p->windows) << w.name;
    EXPECT_EQ(p->stem, w.stem) << w.name;
    EXPECT_EQ(p->version, w.version) << w.name;
  }
}

// ---- ELF dynamic sections ------------------------------------------------------------------------
const std::string kCusolver = "libs/linux_cuda12/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcusolver.so.11";
const std::string kWheelOps =
    "libs/pip_wheels/home/u/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn_ops.so.9";
const std::string kCudnn9Runpath =
    "$ORIGIN:$ORIGIN/../../cublas/lib:$ORIGIN/../../cuda_nvrtc/lib:$ORIGIN/../../cu13/lib";

// An ELF file built here: header, PT_LOAD (the whole file) and PT_DYNAMIC, the string table, then
// the dynamic entries. Addresses start at 0x12345000 so that a reader that confuses addresses with
// offsets, or gets the byte order wrong, fails.
struct ElfSpec {
  bool w = true;  // 64-bit
  bool big = false;
  std::vector<std::string> needed;
  std::optional<std::string> soname, rpath, runpath;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> extra;  // more dynamic entries, before DT_NULL
  bool null_end = true;
};
struct BuiltElf {
  std::string bytes;
  size_t ph_at = 0, str_at = 0, dyn_at = 0;
};
constexpr std::uint64_t kBase = 0x12345000;

void put(std::string& s, size_t at, std::uint64_t v, size_t n, bool big) {
  if (s.size() < at + n) s.resize(at + n, '\0');
  for (size_t i = 0; i < n; ++i) s[at + i] = static_cast<char>(v >> (8 * (big ? n - 1 - i : i)));
}

BuiltElf build_elf(const ElfSpec& e) {
  const size_t word = e.w ? 8 : 4, ehsize = e.w ? 64 : 52, phent = e.w ? 56 : 32;
  BuiltElf b;
  std::string strtab(1, '\0');
  auto add = [&](const std::string& str) {
    const size_t off = strtab.size();
    strtab += str + '\0';
    return off;
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dyn;
  for (const auto& n : e.needed) dyn.push_back({1, add(n)});
  if (e.soname) dyn.push_back({14, add(*e.soname)});
  if (e.rpath) dyn.push_back({15, add(*e.rpath)});
  if (e.runpath) dyn.push_back({29, add(*e.runpath)});
  b.ph_at = ehsize;
  b.str_at = ehsize + 2 * phent;
  b.dyn_at = (b.str_at + strtab.size() + 7) / 8 * 8;
  dyn.push_back({5, kBase + b.str_at});
  dyn.push_back({10, strtab.size()});
  for (const auto& x : e.extra) dyn.push_back(x);
  if (e.null_end) dyn.push_back({0, 0});
  const size_t dyn_size = dyn.size() * 2 * word;
  std::string& s = b.bytes;
  s.assign(b.dyn_at + dyn_size, '\0');
  s.replace(0, 4, "\177ELF");
  s[4] = e.w ? 2 : 1;
  s[5] = e.big ? 2 : 1;
  s[6] = 1;
  put(s, 16, 3, 2, e.big);   // ET_DYN
  put(s, 18, 62, 2, e.big);  // EM_X86_64
  put(s, e.w ? 32 : 28, b.ph_at, word, e.big);
  put(s, e.w ? 54 : 42, phent, 2, e.big);
  put(s, e.w ? 56 : 44, 2, 2, e.big);
  auto ph = [&](size_t i, std::uint32_t type, std::uint64_t off, std::uint64_t size) {
    const size_t at = b.ph_at + i * phent;
    put(s, at, type, 4, e.big);
    put(s, at + (e.w ? 8 : 4), off, word, e.big);
    put(s, at + (e.w ? 16 : 8), kBase + off, word, e.big);
    put(s, at + (e.w ? 24 : 12), kBase + off, word, e.big);
    put(s, at + (e.w ? 32 : 16), size, word, e.big);
    put(s, at + (e.w ? 40 : 20), size, word, e.big);
  };
  ph(0, 1, 0, s.size());
  ph(1, 2, b.dyn_at, dyn_size);
  s.replace(b.str_at, strtab.size(), strtab);
  for (size_t i = 0; i < dyn.size(); ++i) {
    put(s, b.dyn_at + i * 2 * word, dyn[i].first, word, e.big);
    put(s, b.dyn_at + i * 2 * word + word, dyn[i].second, word, e.big);
  }
  return b;
}

std::string elf_error(std::string_view data) {
  std::string err;
  auto d = parse_elf_dynamic(data, &err);
  return d ? std::string("(parsed)") : err;
}

TEST(ElfDynamic, ReadsRealStandIns) {
  std::string err;
  auto d = parse_elf_dynamic(slurp(test::fixture(kCusolver)), &err);
  ASSERT_TRUE(d) << err;
  EXPECT_TRUE(d->is_64bit);
  EXPECT_FALSE(d->big_endian);
  EXPECT_EQ(d->type, 3);
  EXPECT_EQ(d->machine, 62);
  EXPECT_EQ(d->needed,
            (std::vector<std::string>{"libdl.so.2", "libnvJitLink.so.12", "libcusparse.so.12", "libcublas.so.12",
                                      "libcublasLt.so.12", "librt.so.1", "libpthread.so.0", "libm.so.6",
                                      "libgcc_s.so.1", "libc.so.6", "ld-linux-x86-64.so.2"}));
  EXPECT_EQ(d->soname.value_or(""), "libcusolver.so.11");
  EXPECT_EQ(d->runpath.value_or(""), "$ORIGIN");
  EXPECT_FALSE(d->rpath);

  auto ops = parse_elf_dynamic(slurp(test::fixture(kWheelOps)), &err);
  ASSERT_TRUE(ops) << err;
  ASSERT_GE(ops->needed.size(), 2u);
  EXPECT_EQ(ops->needed[0], "libcudnn_graph.so.9");
  EXPECT_EQ(ops->needed[1], "libz.so.1");
  EXPECT_EQ(ops->runpath.value_or(""), kCudnn9Runpath);
  EXPECT_EQ(ops->soname.value_or(""), "libcudnn_ops.so.9");

  // The old stand-ins made by tiny_elf name nothing but their soname.
  auto drv =
      parse_elf_dynamic(slurp(test::fixture("libs/linux_cuda12/usr/lib/x86_64-linux-gnu/libcuda.so.535.161.07")), &err);
  ASSERT_TRUE(drv) << err;
  EXPECT_TRUE(drv->needed.empty());
  EXPECT_EQ(drv->soname.value_or(""), "libcuda.so.1");
  EXPECT_FALSE(drv->runpath);
}

TEST(ElfDynamic, ReadsThirtyTwoBitAndBigEndianFiles) {
  struct Case {
    const char* file;
    bool w, big;
    std::uint16_t machine;
    const char* rpath;
    const char* runpath;
  };
  // Made by clang/lld for i386, ppc64 (big endian) and mips (32-bit big endian).
  for (const Case& c : {Case{"i386_rpath.so", false, false, 3, "$ORIGIN/../lib", nullptr},
                        Case{"ppc64_be.so", true, true, 21, nullptr, "$ORIGIN"},
                        Case{"mips_be.so", false, true, 8, nullptr, "$ORIGIN"}}) {
    std::string err;
    auto d = parse_elf_dynamic(slurp(test::fixture(std::string("libs/elf/") + c.file)), &err);
    ASSERT_TRUE(d) << c.file << ": " << err;
    EXPECT_EQ(d->is_64bit, c.w) << c.file;
    EXPECT_EQ(d->big_endian, c.big) << c.file;
    EXPECT_EQ(d->machine, c.machine) << c.file;
    EXPECT_EQ(d->needed, (std::vector<std::string>{"libcudnn_graph.so.9", "libz.so.1"})) << c.file;
    EXPECT_EQ(d->soname.value_or(""), "libcudnn_ops.so.9") << c.file;
    EXPECT_EQ(d->rpath.value_or("(none)"), c.rpath ? c.rpath : "(none)") << c.file;
    EXPECT_EQ(d->runpath.value_or("(none)"), c.runpath ? c.runpath : "(none)") << c.file;
  }
  // The same content in all four layouts, built here.
  for (bool w : {false, true}) {
    for (bool big : {false, true}) {
      ElfSpec spec;
      spec.w = w;
      spec.big = big;
      spec.needed = {"libnvJitLink.so.12", "libz.so.1", "libcublas.so.12"};
      spec.soname = "libcusolver.so.11";
      spec.rpath = "/opt/old";
      spec.runpath = "$ORIGIN";
      std::string err;
      auto d = parse_elf_dynamic(build_elf(spec).bytes, &err);
      ASSERT_TRUE(d) << w << big << ": " << err;
      EXPECT_EQ(d->is_64bit, w);
      EXPECT_EQ(d->big_endian, big);
      EXPECT_EQ(d->machine, 62);
      EXPECT_EQ(d->needed, spec.needed);
      EXPECT_EQ(d->soname, spec.soname);
      EXPECT_EQ(d->rpath, spec.rpath);
      EXPECT_EQ(d->runpath, spec.runpath);
    }
  }
}

TEST(ElfDynamic, NeedsNoSectionHeaders) {
  // Section headers zeroed and cut off: only the program headers lead to the names.
  std::string data = slurp(test::fixture(kCusolver));
  ASSERT_GT(data.size(), 64u);
  std::uint64_t shoff = 0;
  for (int i = 7; i >= 0; --i) shoff = shoff << 8 | static_cast<unsigned char>(data[40 + i]);
  ASSERT_GT(shoff, 0u);
  ASSERT_LT(shoff, data.size());
  data.resize(static_cast<size_t>(shoff));
  put(data, 40, 0, 8, false);  // e_shoff
  put(data, 60, 0, 2, false);  // e_shnum
  put(data, 62, 0, 2, false);  // e_shstrndx
  std::string err;
  auto d = parse_elf_dynamic(data, &err);
  ASSERT_TRUE(d) << err;
  EXPECT_EQ(d->needed.size(), 11u);
  EXPECT_EQ(d->runpath.value_or(""), "$ORIGIN");
}

TEST(ElfDynamic, RefusesGarbageAndCutFilesWithAReason) {
  EXPECT_EQ(elf_error(""), "not an ELF file");
  EXPECT_EQ(elf_error("fixture stand-in for libcudart.so.12\n"), "not an ELF file");
  EXPECT_EQ(elf_error("\177ELF"), "truncated ELF header");
  const std::string zeros(58, '\0');
  EXPECT_NE(elf_error("\177ELF\3\1" + zeros).find("unknown ELF class"), std::string::npos);
  EXPECT_NE(elf_error("\177ELF\2\7" + zeros).find("unknown ELF byte order"), std::string::npos);
  const std::string real = slurp(test::fixture(kCusolver));
  EXPECT_EQ(elf_error(real.substr(0, 40)), "truncated ELF header");
  EXPECT_EQ(elf_error(real.substr(0, 100)), "truncated program header");
  // Every prefix parses to the whole file's answer or is refused with a reason; none crashes.
  std::string err;
  const auto whole = parse_elf_dynamic(real, &err);
  ASSERT_TRUE(whole);
  size_t refused = 0;
  for (size_t n = 0; n <= real.size(); ++n) {
    std::string e;
    auto d = parse_elf_dynamic(std::string_view(real).substr(0, n), &e);
    if (d) {
      EXPECT_EQ(d->needed, whole->needed) << n;
      EXPECT_EQ(d->runpath, whole->runpath) << n;
    } else {
      EXPECT_FALSE(e.empty()) << n;
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
  // Cut inside the dynamic entries (the last 8 bytes hold DT_NULL's value).
  ElfSpec cut;
  cut.needed = {"libz.so.1"};
  const BuiltElf b = build_elf(cut);
  EXPECT_EQ(elf_error(std::string_view(b.bytes).substr(0, b.dyn_at + 20)), "truncated dynamic section");
}

TEST(ElfDynamic, HostileFilesAreCapped) {
  ElfSpec base;
  base.needed = {"libz.so.1"};
  // A string offset outside the string table.
  BuiltElf b = build_elf(base);
  put(b.bytes, b.dyn_at + 8, 100000, 8, false);
  EXPECT_NE(elf_error(b.bytes).find("outside the string table"), std::string::npos) << elf_error(b.bytes);
  // A name longer than the cap.
  ElfSpec longname = base;
  longname.needed = {std::string(kElfMaxString + 10, 'a')};
  EXPECT_NE(elf_error(build_elf(longname).bytes).find("not ended within"), std::string::npos);
  // DT_STRTAB moved out of every PT_LOAD (a later duplicate wins).
  ElfSpec moved = base;
  moved.extra = {{5, 0x7fff0000}};
  EXPECT_NE(elf_error(build_elf(moved).bytes).find("in no PT_LOAD"), std::string::npos);
  // Names but no DT_STRTAB at all.
  b = build_elf(base);
  put(b.bytes, b.dyn_at + 16, 0x6ffffff0, 8, false);  // DT_STRTAB's tag -> DT_VERSYM
  EXPECT_NE(elf_error(b.bytes).find("no DT_STRTAB"), std::string::npos);
  // No DT_NULL: a short table simply ends; a huge one is refused after the cap.
  ElfSpec open = base;
  open.null_end = false;
  EXPECT_EQ(elf_error(build_elf(open).bytes), "(parsed)");
  open.extra.assign(kElfMaxDynamicEntries + 10, {0x6ffffff0, 0});
  EXPECT_NE(elf_error(build_elf(open).bytes).find("no DT_NULL within"), std::string::npos);
  // Program header counts and sizes.
  b = build_elf(base);
  put(b.bytes, 56, 0xffff, 2, false);
  EXPECT_NE(elf_error(b.bytes).find("too many program headers"), std::string::npos);
  b = build_elf(base);
  put(b.bytes, 54, 8, 2, false);
  EXPECT_NE(elf_error(b.bytes).find("program header entries of 8 bytes"), std::string::npos);
  b = build_elf(base);
  put(b.bytes, 56, 0, 2, false);
  EXPECT_NE(elf_error(b.bytes).find("no program headers"), std::string::npos);
  b = build_elf(base);
  put(b.bytes, b.ph_at + 56, 4, 4, false);  // PT_DYNAMIC -> PT_NOTE
  EXPECT_NE(elf_error(b.bytes).find("no PT_DYNAMIC"), std::string::npos);
  // More DT_NEEDED entries than the cap: the first kElfMaxNeeded are kept.
  ElfSpec many = base;
  many.needed.assign(kElfMaxNeeded + 50, "libx.so.1");
  auto d = parse_elf_dynamic(build_elf(many).bytes, nullptr);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->needed.size(), kElfMaxNeeded);

  // Claims of huge sizes and offsets are never read or allocated: no single read asks for more
  // than the dynamic-entry cap or the string window, whatever the file says.
  b = build_elf(base);
  put(b.bytes, b.ph_at + 56 + 32, std::uint64_t{1} << 40, 8, false);  // PT_DYNAMIC p_filesz: 1 TiB
  put(b.bytes, b.ph_at + 32, std::uint64_t{1} << 40, 8, false);       // PT_LOAD p_filesz: 1 TiB
  size_t largest = 0, calls = 0;
  const ElfReadAt spy = [&](std::uint64_t offset, std::size_t length) -> std::optional<std::string> {
    largest = std::max(largest, length);
    ++calls;
    if (offset >= b.bytes.size()) return std::string();
    return b.bytes.substr(static_cast<size_t>(offset), length);
  };
  std::string err;
  auto big = parse_elf_dynamic(spy, &err);
  ASSERT_TRUE(big) << err;
  EXPECT_EQ(big->needed, base.needed);
  EXPECT_LE(largest, kElfMaxDynamicEntries * 16);
  EXPECT_LE(calls, 4u);
  // A reader that cannot read says so.
  EXPECT_FALSE(
      parse_elf_dynamic(ElfReadAt([](std::uint64_t, std::size_t) { return std::optional<std::string>(); }), &err));
  EXPECT_EQ(err, "could not read the ELF header");
}

#ifndef _WIN32  // readelf and the Linux libraries it reads; Windows builds test the parser on the stand-ins above
// readelf -dW's NEEDED, SONAME and RUNPATH/RPATH lines; nullopt when readelf is missing.
struct ReadelfView {
  bool has_dynamic = true;
  std::vector<std::string> needed;
  std::string soname, rpath, runpath;
};
std::optional<ReadelfView> readelf(const std::string& path) {
  FILE* p = ::popen(("readelf -dW '" + path + "' 2>&1").c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = ::pclose(p);
  if (rc != 0 && out.find("There is no dynamic section") == std::string::npos) return std::nullopt;
  ReadelfView v;
  v.has_dynamic = out.find("There is no dynamic section") == std::string::npos;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t a = line.find('['), z = line.rfind(']');
    if (a == std::string::npos || z == std::string::npos || z < a) continue;
    const std::string val = line.substr(a + 1, z - a - 1);
    if (line.find("(NEEDED)") != std::string::npos)
      v.needed.push_back(val);
    else if (line.find("(SONAME)") != std::string::npos)
      v.soname = val;
    else if (line.find("(RUNPATH)") != std::string::npos)
      v.runpath = val;
    else if (line.find("(RPATH)") != std::string::npos)
      v.rpath = val;
  }
  return v;
}

TEST(ElfDynamic, AgreesWithReadelfOnRealFiles) {
  if (std::system("readelf --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "readelf is not installed";
  std::vector<std::string> files = {std::filesystem::read_symlink("/proc/self/exe").string()};
  // This machine's C library (from its loader cache) and, where CUDA is installed, the big cuSOLVER
  // whose dynamic section lies about 140 MB into the file.
  if (auto c = parse_ld_so_cache(slurp("/etc/ld.so.cache"), nullptr)) {
    for (const auto& e : c->entries) {
      if (e.key == "libc.so.6" || e.key == "libz.so.1") {
        files.push_back(e.value);
      }
    }
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/local/cuda/lib64", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libcusolver.so.", 0) == 0 || name.rfind("libcudnn_ops.so.", 0) == 0)
      files.push_back(e.path().string());
  }
  const Os& os = real_os();
  for (const auto& f : files) {
    auto want = readelf(f);
    ASSERT_TRUE(want) << "readelf failed on " << f;
    size_t read_bytes = 0;
    const ElfReadAt read_at = [&](std::uint64_t offset, std::size_t length) {
      auto r = os.fs.read_file_at(f, offset, length, nullptr);
      if (r) read_bytes += r->size();
      return r;
    };
    std::string err;
    auto got = parse_elf_dynamic(read_at, &err);
    if (!want->has_dynamic) {
      EXPECT_FALSE(got) << f << " has no dynamic section";
      continue;
    }
    ASSERT_TRUE(got) << f << ": " << err;
    EXPECT_EQ(got->needed, want->needed) << f;
    EXPECT_EQ(got->soname.value_or(""), want->soname) << f;
    EXPECT_EQ(got->runpath.value_or(""), want->runpath) << f;
    EXPECT_EQ(got->rpath.value_or(""), want->rpath) << f;
    EXPECT_LT(read_bytes, 256u * 1024) << f << ": the reader must not read whole files";
    std::cout << "[readelf] " << f << ": " << got->needed.size() << " NEEDED, " << read_bytes << " bytes read\n";
  }
}
#endif  // _WIN32

// ---- Fs::read_file_at (what the ELF reader reads through) ----------------------------------------
// An Fs with only read_file of its own: read_file_at is the default, built on read_file.
class ReadFileOnlyFs final : public Fs {
 public:
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes, std::string* error) const override {
    return real_os().fs.read_file(path, max_bytes, error);
  }
  std::optional<std::vector<DirEntry>> list_dir(const std::string&, std::string*) const override { return {}; }
  bool exists(const std::string&) const override { return false; }
  bool is_dir(const std::string&) const override { return false; }
  std::optional<std::string> read_link(const std::string&) const override { return {}; }
  std::optional<std::string> canonical(const std::string&) const override { return {}; }
};

TEST(ReadFileAt, RealAndDefaultAgree) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpuready_read_at";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "data").string();
  std::string content;
  for (int i = 0; i < 70000; ++i) content += static_cast<char>('a' + i % 26);
  std::ofstream(file, std::ios::binary) << content;
  const Fs& real = real_os().fs;
  const ReadFileOnlyFs fallback;
  struct Case {
    std::uint64_t offset;
    size_t len;
  };
  for (const Case& c : {Case{0, 10}, Case{65530, 100}, Case{69990, 100}, Case{70000, 5}, Case{1ull << 40, 5},
                        Case{5, 0}, Case{3, size_t{1} << 40}}) {
    const std::string want = c.offset >= content.size() ? "" : content.substr(static_cast<size_t>(c.offset), c.len);
    std::string e1, e2;
    auto a = real.read_file_at(file, c.offset, c.len, &e1);
    ASSERT_TRUE(a) << c.offset << ": " << e1;
    EXPECT_EQ(*a, want) << "offset " << c.offset << " length " << c.len;
    if (c.len < (size_t{1} << 30)) {  // the default reads from the start: only for sane sizes
      auto b = fallback.read_file_at(file, c.offset, c.len, &e2);
      ASSERT_TRUE(b) << c.offset << ": " << e2;
      EXPECT_EQ(*b, want) << "default, offset " << c.offset;
    }
  }
  std::string err;
  EXPECT_FALSE(real.read_file_at((dir / "missing").string(), 0, 10, &err));
  EXPECT_NE(err.find("missing"), std::string::npos);
  EXPECT_FALSE(real.read_file_at(dir.string(), 0, 10, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
#ifndef _WIN32  // a FIFO must not block the read (Windows devices: seams_smoke)
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(real.read_file_at(fifo, 0, 10, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
#endif
  // RootedFs reads inside its fixture root and names the path as the probe sees it.
  test::RootedFs rooted(dir.string());
  auto r = rooted.read_file_at("/data", 26, 3, &err);
  ASSERT_TRUE(r) << err;
  EXPECT_EQ(*r, "abc");
  EXPECT_FALSE(rooted.read_file_at("/nope", 0, 3, &err));
  EXPECT_EQ(err.rfind("/nope:", 0), 0u) << err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuready::parse
