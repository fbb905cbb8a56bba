// Parsers behind the Python collector: core metadata, PEP 503 names, dist-info and conda-meta
// names, PEP 440 versions and specifiers, PEP 508 requirements and markers, pyvenv.cfg, TensorFlow's build_info.py (all released formats), torch/version.py.
#include <gtest/gtest.h>

#include "parse/pep440.h"
#include "parse/python_literal.h"
#include "parse/python_metadata.h"
#include "parse/pyvenv_cfg.h"
#include "parse/requirement.h"
#include "parse/tf_build_info.h"
#include "parse/torch_version.h"

using namespace gpuready::parse;

TEST(CoreMetadata, ReadsNameAndVersionFromTheHeaderBlockOnly) {
  const auto m = core_metadata(
      "Metadata-Version: 2.4\r\nName: nvidia-cudnn-cu13\r\nVersion: 9.19.0.56\r\nSummary: cuDNN runtime libraries\r\n"
      "\r\nName: not-a-header\nVersion: 0\n");
  EXPECT_EQ(m.name, "nvidia-cudnn-cu13");
  EXPECT_EQ(m.version, "9.19.0.56");
  EXPECT_EQ(m.metadata_version, "2.4");
  EXPECT_TRUE(m.ok());
}

TEST(CoreMetadata, SkipsFoldedLongFieldsAndKeepsTheFirstValue) {
  const auto m = core_metadata(
      "Metadata-Version: 2.4\nLicense: MIT License\n        \n        Permission is hereby granted\nName: jaxtyping\n"
      "Version: 0.3.11\nVersion: 9.9\n");
  // The folded licence text has a blank-looking continuation line ("        "): it must not end the headers.
  EXPECT_EQ(m.name, "jaxtyping");
  EXPECT_EQ(m.version, "0.3.11");
}

TEST(CoreMetadata, NvidiaWheelWithCrLfLinesAndAVersionInTheDescription) {
  // The toolkit collector reads the METADATA of NVIDIA's CUDA wheels through this parser too.
  const auto m = core_metadata("Metadata-Version: 2.4\r\nName: nvidia-cuda-nvcc\r\nVersion: 13.0.88\r\n\r\nVersion: 1\n");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.name, "nvidia-cuda-nvcc");
  EXPECT_EQ(m.version, "13.0.88");
  // A Version only in the description (after the blank line) does not count.
  const auto late = core_metadata("Name: x\n\nVersion: 1.0\n");
  EXPECT_FALSE(late.ok());
  EXPECT_EQ(late.name, "x");
  EXPECT_EQ(late.version, "");
}

TEST(CoreMetadata, GarbageGivesNothing) {
  EXPECT_FALSE(core_metadata(std::string("\x89PNG\r\n\x1a\n\0\0\xff", 12)).ok());
  EXPECT_FALSE(core_metadata("").ok());
  EXPECT_FALSE(core_metadata("Name: two words\nVersion: 1.0\n").ok());
  EXPECT_FALSE(core_metadata(": \n:::\nName:\n").ok());
}

TEST(PackageNames, NormalisedAsPep503) {
  EXPECT_EQ(normalize_package_name("Tensorflow_GPU"), "tensorflow-gpu");
  EXPECT_EQ(normalize_package_name("nvidia_cuda_runtime_cu12"), "nvidia-cuda-runtime-cu12");
  EXPECT_EQ(normalize_package_name("zope.interface"), "zope-interface");
  EXPECT_EQ(normalize_package_name("a__-._b"), "a-b");
}

TEST(PackageNames, DistInfoAndEggInfoFolders) {
  auto d = dist_folder_name("torch-2.11.0.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "torch");
  EXPECT_EQ(d->version, "2.11.0");
  EXPECT_EQ(d->kind, "dist-info");
  d = dist_folder_name("torch-2.5.1+cpu.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->version, "2.5.1+cpu");
  d = dist_folder_name("tensorflow-gpu-2.4.0-py3.8.egg-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "tensorflow-gpu");
  EXPECT_EQ(d->version, "2.4.0");
  EXPECT_EQ(d->kind, "egg-info");
  d = dist_folder_name("cupy.egg-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "cupy");
  EXPECT_EQ(d->version, "");
  EXPECT_FALSE(dist_folder_name("torch"));
  EXPECT_FALSE(dist_folder_name(".dist-info"));
  EXPECT_FALSE(dist_folder_name("nvidia"));
}

TEST(PackageNames, NvidiaWheelDistInfoFolders) {
  // Wheels escape '-' in names to '_': the name ends at the first '-'.
  auto d = dist_folder_name("nvidia_cudnn_cu12-9.1.0.70.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "nvidia_cudnn_cu12");
  EXPECT_EQ(d->version, "9.1.0.70");
  EXPECT_EQ(d->kind, "dist-info");
  // No version in the folder name: the name alone, with an empty version (callers that need one refuse it).
  d = dist_folder_name("nvidia_cudnn_cu12.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "nvidia_cudnn_cu12");
  EXPECT_EQ(d->version, "");
}

TEST(PackageNames, CondaMetaFiles) {
  auto c = conda_meta_name("cudatoolkit-11.0.221-h74a9793_0.json");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "cudatoolkit");
  EXPECT_EQ(c->version, "11.0.221");
  EXPECT_EQ(c->build, "h74a9793_0");
  c = conda_meta_name("pytorch-cuda-12.1-ha16c6d3_5.json");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "pytorch-cuda");
  EXPECT_EQ(c->version, "12.1");
  EXPECT_FALSE(conda_meta_name("history"));
  EXPECT_FALSE(conda_meta_name("x-1.json"));
}

TEST(PackageNames, CondaMetaFilesOfCudaPackages) {
  auto c = conda_meta_name("cuda-nvcc-12.4.131-0.json");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "cuda-nvcc");
  EXPECT_EQ(c->version, "12.4.131");
  EXPECT_EQ(c->build, "0");
  // A longer package name that starts the same is another package.
  c = conda_meta_name("cuda-nvcc-impl-12.4.131-0.json");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "cuda-nvcc-impl");
  EXPECT_EQ(c->version, "12.4.131");
  EXPECT_FALSE(conda_meta_name("cuda-nvcc-12.4.131-0.txt"));
}

TEST(PackageNames, LocalVersionLabel) {
  EXPECT_EQ(local_version_label("2.11.0+cu130"), "cu130");
  EXPECT_EQ(local_version_label("2.5.1+rocm6.2"), "rocm6.2");
  EXPECT_EQ(local_version_label("2.11.0"), "");
}

TEST(PyvenvCfg, VenvModuleFormat) {
  const auto c = pyvenv_cfg(
      "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n"
      "executable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv /home/u/tf\n");
  EXPECT_EQ(c.home, "/usr/bin");
  EXPECT_EQ(c.version, "3.11.2");
  ASSERT_TRUE(c.include_system_site_packages);
  EXPECT_FALSE(*c.include_system_site_packages);
  EXPECT_EQ(c.executable, "/usr/bin/python3.11");
}

TEST(PyvenvCfg, UvAndVirtualenvWriteVersionInfo) {
  const auto uv = pyvenv_cfg(
      "home = /usr/bin\nimplementation = CPython\nuv = 0.11.15\nversion_info = 3.12.3\n"
      "include-system-site-packages = false\n");
  EXPECT_EQ(uv.version, "3.12.3");
  const auto venv =
      pyvenv_cfg("Home = C:\\Python38\r\nversion_info = 3.8.10.final.0\r\nInclude-System-Site-Packages = TRUE\r\n");
  EXPECT_EQ(venv.version, "3.8.10");
  EXPECT_EQ(venv.home, "C:\\Python38");
  ASSERT_TRUE(venv.include_system_site_packages);
  EXPECT_TRUE(*venv.include_system_site_packages);
}

TEST(PyvenvCfg, GarbageAndAbsentKeys) {
  const auto c = pyvenv_cfg("no equals here\n=\nversion = banana\n");
  EXPECT_EQ(c.version, "");
  EXPECT_FALSE(c.include_system_site_packages);
  EXPECT_EQ(python_version_prefix("3"), "");
  EXPECT_EQ(python_version_prefix("3.13.0rc1"), "3.13.0");
}

TEST(TfBuildInfo, Tf2LinuxOrderedDict) {
  const auto b = tf_build_info(
      "import collections\n\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), "
      "('cuda_compute_capabilities', ['sm_50', 'sm_60', 'compute_90']), ('cuda_version', '12.3'), ('cudnn_version', "
      "'8'), "
      "('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])\n");
  EXPECT_EQ(b.cuda_version.value_or("?"), "12.3");
  EXPECT_EQ(b.cudnn_version.value_or("?"), "8");
  EXPECT_EQ(b.is_cuda_build, std::optional<bool>(true));
  EXPECT_EQ(b.is_rocm_build, std::optional<bool>(false));
  EXPECT_EQ(b.is_tensorrt_build, std::optional<bool>(true));
}

TEST(TfBuildInfo, Tf23WindowsDictWithDllSuffixVersions) {
  const auto b = tf_build_info(
      "build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', 'cuda_compute_capabilities': ['sm_35', "
      "'compute_70'], 'cpu_compiler': 'C:/Program Files (x86)/cl.exe', 'is_rocm_build': False, 'is_cuda_build': True, "
      "'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', 'cudart_dll_name': 'cudart64_101.dll', 'cudnn_dll_name': "
      "'cudnn64_7.dll'}\n");
  EXPECT_EQ(b.cuda_version.value_or("?"), "10.1");
  EXPECT_EQ(b.cuda_version_raw.value_or("?"), "64_101");
  EXPECT_EQ(b.cudnn_version.value_or("?"), "7");
  EXPECT_EQ(b.cudart_dll_name.value_or("?"), "cudart64_101.dll");
  EXPECT_EQ(b.cudnn_dll_name.value_or("?"), "cudnn64_7.dll");
  EXPECT_EQ(b.is_cuda_build, std::optional<bool>(true));
}

TEST(TfBuildInfo, Tf1ModuleVariables) {
  const auto b =
      tf_build_info("cuda_version_number = '10.0'\ncudnn_version_number = '7'\nmsvcp_dll_name = 'msvcp140.dll'\n");
  EXPECT_EQ(b.cuda_version.value_or("?"), "10.0");
  EXPECT_EQ(b.cudnn_version.value_or("?"), "7");
  EXPECT_FALSE(b.is_cuda_build);
}

TEST(TfBuildInfo, CpuOnlyBuildHasNoVersions) {
  const auto b = tf_build_info(
      "build_info = collections.OrderedDict([('is_cuda_build', False), ('is_rocm_build', False), "
      "('is_tensorrt_build', False), ('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll')])\n");
  EXPECT_FALSE(b.cuda_version);
  EXPECT_EQ(b.is_cuda_build, std::optional<bool>(false));
  EXPECT_FALSE(b.empty());
  EXPECT_TRUE(tf_build_info("").empty());
  EXPECT_TRUE(tf_build_info("'cuda_version'").empty());
  EXPECT_TRUE(tf_build_info("('cuda_version', ").empty());
}

TEST(TfBuildInfo, NormalisesWindowsVersions) {
  EXPECT_EQ(normalize_tf_cuda_version("64_110"), "11.0");
  EXPECT_EQ(normalize_tf_cuda_version("64_112"), "11.2");
  EXPECT_EQ(normalize_tf_cuda_version("64_92"), "9.2");
  EXPECT_EQ(normalize_tf_cuda_version("64_8"), "8");
  EXPECT_EQ(normalize_tf_cuda_version(" 12.5.1 "), "12.5.1");
  EXPECT_EQ(normalize_tf_cuda_version("64_"), "64_");
}

TEST(TorchVersion, CudaBuild) {
  const auto t = torch_version(
      "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n__version__ = '2.11.0+cu130'\n"
      "debug = False\ncuda: Optional[str] = '13.0'\ngit_version = '70d99e998b4955e0049d13a98d77ae1b14db1f45'\n"
      "hip: Optional[str] = None\nrocm: Optional[str] = None\n");
  EXPECT_EQ(t.version.value_or("?"), "2.11.0+cu130");
  EXPECT_TRUE(t.cuda_present);
  EXPECT_EQ(t.cuda.value_or("?"), "13.0");
  EXPECT_FALSE(t.hip);
  EXPECT_EQ(t.git_version.value_or("?"), "70d99e998b4955e0049d13a98d77ae1b14db1f45");
}

TEST(TorchVersion, CpuAndOldStyleAndRocm) {
  const auto cpu = torch_version("__version__ = '2.5.1+cpu'\ncuda: Optional[str] = None\n");
  EXPECT_TRUE(cpu.cuda_present);
  EXPECT_FALSE(cpu.cuda);
  const auto old =
      torch_version("__version__ = '1.13.1+cu117'\ndebug = False\ncuda = '11.7'\ngit_version = 'abc'\nhip = None\n");
  EXPECT_EQ(old.cuda.value_or("?"), "11.7");
  const auto rocm = torch_version("__version__ = \"2.5.1+rocm6.2\"\ncuda = None\nhip = '6.2.41133-dd7f95766'\n");
  EXPECT_EQ(rocm.hip.value_or("?"), "6.2.41133-dd7f95766");
  EXPECT_TRUE(torch_version("def f():\n    cuda = '1'\n").empty());
}

TEST(PythonLiteral, StringsAndAssignments) {
  size_t end = 0;
  EXPECT_EQ(py_string_at("r'a\\'b' x", 0, &end).value_or("?"), "a'b");
  EXPECT_FALSE(py_string_at("'unterminated", 0, &end));
  EXPECT_FALSE(py_string_at("'''doc'''", 0, &end));
  const auto as = py_assignments("a = 1\nb: int = True\n  c = 'no'\nd == 2\ne='x' # c\n");
  ASSERT_EQ(as.size(), 3u);
  EXPECT_EQ(as[0].name, "a");
  EXPECT_EQ(as[1].value.kind, PyValue::Kind::boolean);
  EXPECT_EQ(as[2].value.text, "x");
}

// --- PEP 440 -------------------------------------------------------------------------------

TEST(Pep440, OrdersEveryKindOfReleaseAsPep440Lists) {
  // The order PEP 440's own summary example gives, then local labels.
  const char* const ordered[] = {"1.0.dev456",       "1.0a1",          "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
                                 "1.0b1.dev456",     "1.0b2",          "1.0b2.post345.dev456", "1.0b2.post345",
                                 "1.0b2-346",        "1.0c1.dev456",   "1.0c1",        "1.0rc2",        "1.0c3",
                                 "1.0",              "1.0+abc.5",      "1.0+abc.7",    "1.0+5",         "1.0.post456.dev34",
                                 "1.0.post456",      "1.1.dev1",       "1!0.1"};
  for (size_t k = 0; k + 1 < std::size(ordered); ++k) {
    const auto a = Pep440Version::parse(ordered[k]), b = Pep440Version::parse(ordered[k + 1]);
    ASSERT_TRUE(a && b) << ordered[k] << " / " << ordered[k + 1];
    EXPECT_LT(*a, *b) << ordered[k] << " < " << ordered[k + 1];
  }
  EXPECT_EQ(*Pep440Version::parse("1.0"), *Pep440Version::parse("1.0.0"));
  EXPECT_EQ(*Pep440Version::parse("V1.0-ALPHA_1"), *Pep440Version::parse("1.0a1"));
  EXPECT_EQ(Pep440Version::parse("1.0-r4")->str(), "1.0.post4");
  EXPECT_EQ(Pep440Version::parse("2.11.0+cu130")->str(), "2.11.0+cu130");
  EXPECT_EQ(Pep440Version::parse("2.0.0.dev20240101")->dev, 20240101);
  for (const char* bad : {"", "abc", "1.0+", "1.0+a..b", "1..0", "1.0 beta", "1.0-", "99999999999999999999", "1.0+a+b"})
    EXPECT_FALSE(Pep440Version::parse(bad)) << bad;
}

TEST(Pep440, SpecifiersMatchAsPipChecksThem) {
  struct Case {
    const char* spec;
    const char* version;
    bool in;
  };
  const Case cases[] = {
      {"~=1.19.2", "1.19.5", true},    {"~=1.19.2", "1.20.0", false},   {"~=1.19.2", "1.19.1", false},
      {"~=2.2", "2.9", true},          {"~=2.2", "3.0", false},         {"==0.11.*", "0.11.2", true},
      {"==0.11.*", "0.11", true},      {"==0.11.*", "0.12.0", false},   {"!=1.0.*", "1.0.5", false},
      {"<2.0", "1.9", true},           {"<2.0", "2.0rc1", false},       {"<2.0rc2", "2.0rc1", true},
      {">1.0", "1.0.post1", false},    {">1.0", "1.0.1", true},         {">1.0", "1.0+local", false},
      {"==2.11.0", "2.11.0+cu130", true}, {"==2.11.0+cu128", "2.11.0+cu130", false},
      {">=1.23.5,<2.0.0", "1.26.4", true}, {">=1.23.5, <2.0.0", "2.0.0", false}, {"(>=1.0)", "1.2", true},
      {"<=0.11.2,>=0.11.2", "0.11.2", true}, {"<=0.11.2,>=0.11.2", "0.11.1", false},
      {"===1.0.weird", "1.0.WEIRD", true}, {">=1.0", "not a version", false}, {"", "anything", true},
      {">=2.0", "2.1.0rc1", true},  // pre-releases count, as in pip check
  };
  for (const auto& c : cases) {
    const auto s = VersionSpecifier::parse(c.spec);
    ASSERT_TRUE(s) << c.spec;
    EXPECT_EQ(s->contains(c.version), c.in) << c.spec << " vs " << c.version;
  }
  for (const char* bad : {"=1.0", "~=1", ">=1.0.*", "1.0", ">=", "<=1.0,", "==1.0,foo"})
    EXPECT_FALSE(VersionSpecifier::parse(bad)) << bad;
  EXPECT_EQ(VersionSpecifier::parse(" >= 1.22 , < 1.24 ")->str(), ">=1.22,<1.24");
}

// --- PEP 508 -------------------------------------------------------------------------------

TEST(Requirement, ReadsRequiresDistAsWheelsWriteIt) {
  // Lines from the H200 test machine's venv (torch 2.11.0, jax 0.11.2) and TensorFlow 2.4's
  // older "name (spec)" spelling.
  auto r = parse_requirement(
      "cuda-toolkit[cublas,cudart,cufft]==13.0.2; platform_system == \"Linux\"");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "cuda-toolkit");
  EXPECT_EQ(r->extras, (std::vector<std::string>{"cublas", "cudart", "cufft"}));
  EXPECT_EQ(r->specifier.str(), "==13.0.2");
  EXPECT_EQ(r->marker, "platform_system == \"Linux\"");
  r = parse_requirement("numpy (~=1.19.2)");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->specifier.str(), "~=1.19.2");
  r = parse_requirement("Typing_Extensions>=4.10.0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "typing-extensions");
  r = parse_requirement("jax-cuda12-plugin[with-cuda]<=0.11.2,>=0.11.2; extra == \"cuda12\"");
  ASSERT_TRUE(r);
  EXPECT_EQ(marker_extras(r->marker), (std::vector<std::string>{"cuda12"}));
  r = parse_requirement("pip @ https://example.org/pip-1.0.zip ; python_version >= '3.8'");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->url, "https://example.org/pip-1.0.zip");
  EXPECT_TRUE(r->specifier.empty());
  for (const char* bad : {"", ";", "[x]", "-numpy", "numpy[", "numpy >> 1", "numpy ~= 1"})
    EXPECT_FALSE(parse_requirement(bad)) << bad;
}

TEST(Requirement, MarkersAreEvaluatedForOneEnvironmentWithUnknownForWhatItDoesNotKnow) {
  const auto linux312 = marker_environment("3.12.3", "linux", "x86_64");
  const auto win38 = marker_environment("3.8.10", "windows", "x86_64");
  const auto unknown_python = marker_environment("", "linux", "x86_64");
  EXPECT_EQ(evaluate_marker("platform_system == \"Linux\"", linux312, ""), Truth::True);
  EXPECT_EQ(evaluate_marker("platform_system == \"Linux\"", win38, ""), Truth::False);
  EXPECT_EQ(evaluate_marker("platform_machine == 'AMD64'", win38, ""), Truth::True);
  EXPECT_EQ(evaluate_marker("python_version < \"3.13\"", linux312, ""), Truth::True);
  EXPECT_EQ(evaluate_marker("python_version < \"3.10\"", linux312, ""), Truth::False);
  EXPECT_EQ(evaluate_marker("python_version < \"3.13\"", unknown_python, ""), Truth::Unknown);
  EXPECT_EQ(evaluate_marker("python_full_version >= '3.12.1'", linux312, ""), Truth::True);
  // Unknown stays unknown through "and" unless the other side is False, through "or" unless True.
  EXPECT_EQ(evaluate_marker("python_version < '3.13' and sys_platform == 'win32'", unknown_python, ""), Truth::False);
  EXPECT_EQ(evaluate_marker("python_version < '3.13' or sys_platform == 'linux'", unknown_python, ""), Truth::True);
  EXPECT_EQ(evaluate_marker("python_version < '3.13' and sys_platform == 'linux'", unknown_python, ""), Truth::Unknown);
  // "and" binds tighter than "or"; parentheses group.
  EXPECT_EQ(evaluate_marker("sys_platform == 'win32' or sys_platform == 'linux' and python_version < '3.9'", linux312, ""),
            Truth::False);
  EXPECT_EQ(evaluate_marker("(sys_platform == 'win32' or sys_platform == 'linux') and python_version >= '3.9'", linux312,
                            ""),
            Truth::True);
  EXPECT_EQ(evaluate_marker("'linux' in sys_platform", linux312, ""), Truth::True);
  EXPECT_EQ(evaluate_marker("'win' not in sys_platform", linux312, ""), Truth::True);
  // extras: False without one; names compare normalised (PEP 685).
  EXPECT_EQ(evaluate_marker("extra == \"cuda12\"", linux312, ""), Truth::False);
  EXPECT_EQ(evaluate_marker("extra == 'CUDA_12'", linux312, "cuda-12"), Truth::True);
  EXPECT_EQ(evaluate_marker("platform_system == \"Linux\" and extra == 'and-cuda'", linux312, "and-cuda"), Truth::True);
  // Garbage is Unknown, never True.
  for (const char* bad : {"python_version <", "(python_version < '3')", "((sys_platform == 'linux')", "foo == 'x'",
                          "sys_platform = 'linux'", "'a' 'b'", "sys_platform == 'linux' and", "\"unterminated"})
    EXPECT_EQ(evaluate_marker(bad, linux312, ""), bad == std::string("(python_version < '3')") ? Truth::False : Truth::Unknown)
        << bad;
}
