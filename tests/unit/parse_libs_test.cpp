// Tests of the library/toolkit parsers: ld.so.cache (real caches made by ldconfig, caches built
// here in the old, compat and big-endian layouts, and cut or corrupted ones) and the version files.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "parse/cuda_headers.h"
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
  EXPECT_EQ(c->entries.size(), 9u);
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

}  // namespace
}  // namespace gpuready::parse
