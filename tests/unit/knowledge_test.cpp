// The knowledge tables compiled into gpuready (data/*.csv): they parse, every row has a
// source, versions parse, and the tables agree with each other (no framework row asks for
// a CUDA the CUDA tables do not know or a driver floor below CUDA's own; no PyTorch wheel
// ships kernels for an architecture its CUDA cannot build; GEMM peaks are sourced decimals that
// agree with each other, with gpus.csv's names and with the per-architecture rates). Plus the
// CSV parser itself.
#include "knowledge/knowledge.h"
#include "knowledge/compat.h"
#include "parse/pep440.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <fstream>
#include <set>
#include <sstream>

#include "core/version.h"
#include "knowledge/compat.h"
#include "support/test_os.h"

using namespace gpuready;
using namespace gpuready::knowledge;

namespace {

const CsvTable& table(const char* name) {
  const CsvTable* t = Knowledge::embedded().table(name);
  if (!t) throw std::runtime_error(std::string("no table ") + name);
  return *t;
}

std::string cell(const CsvTable& t, size_t row, const char* column) {
  const int c = t.column(column);
  if (c < 0) throw std::runtime_error(std::string("no column ") + column);
  return t.rows[row][static_cast<size_t>(c)];
}

// A cell that must be a plain dotted version when present.
bool plain_version(const std::string& s) {
  auto v = Version::parse(s);
  return v && v->suffix.empty() && v->str().size() <= s.size() && s.find(' ') == std::string::npos;
}

std::set<std::string> words(const std::string& s) {
  std::set<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// A TFLOP/s cell of gpu_peaks.csv: digits with at most one decimal point ("989.4", "67").
bool plain_decimal(const std::string& s) {
  const size_t point = s.find('.');
  const std::string whole = s.substr(0, point), frac = point == std::string::npos ? "" : s.substr(point + 1);
  auto digits = [](const std::string& d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string::npos;
  };
  return digits(whole) && (point == std::string::npos || digits(frac));
}

std::string major_minor(const std::string& v) {
  auto p = Version::parse(v);
  return std::to_string(p->major()) + "." + std::to_string(p->minor());
}

}  // namespace

TEST(Csv, QuotesNewlinesAndCrLf) {
  std::string err;
  auto t = parse_csv("a,b,source\r\n1,\"x, \"\"y\"\"\nz\",s\r\n\r\n2,,s\n", &err);
  ASSERT_TRUE(t) << err;
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0][1], "x, \"y\"\nz");
  EXPECT_EQ(t->rows[1][1], "");
  EXPECT_EQ(t->lines[1], 5);
  EXPECT_EQ(t->column("source"), 2);
  EXPECT_EQ(t->column("nope"), -1);
}

TEST(Csv, ErrorsNameTheLine) {
  std::string err;
  EXPECT_FALSE(parse_csv("a,b\n1,2\n3\n", &err));
  EXPECT_EQ(err, "line 3: 1 cells, the header has 2");
  EXPECT_FALSE(parse_csv("a,b\n1,\"open\n", &err));
  EXPECT_EQ(err, "line 2: a quoted cell is never closed");
  EXPECT_FALSE(parse_csv("a,b\n1,x\"y\n", &err));
  EXPECT_NE(err.find("quote"), std::string::npos);
  EXPECT_FALSE(parse_csv("", &err));
}

TEST(Knowledge, EmbeddedHasEveryTableWithRows) {
  for (const char* name : kTableNames) {
    const CsvTable* t = Knowledge::embedded().table(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_GT(t->rows.size(), 0u) << name;
    EXPECT_EQ(t->header.back(), "source") << name << ": `source` must be the last column";
  }
  EXPECT_EQ(Knowledge::embedded().origin(), "embedded");
}

TEST(Knowledge, VersionsParse) {
  const std::map<std::string, std::vector<const char*>> version_columns = {
      {"cuda_driver", {"cuda_version", "first_release", "min_driver_linux", "min_driver_windows"}},
      {"cuda_minor_compat", {"cuda_major", "min_driver_linux", "min_driver_windows"}},
      {"cuda_arch", {"cuda_version"}},
      {"gpus", {"cc"}},
      {"cudnn", {"cudnn_version", "cuda_major", "cuda_min"}},
      {"tensorflow", {"tf_version", "python_min", "python_max", "cuda", "cudnn"}},
      {"pytorch", {"torch_version", "cuda", "python_min", "python_max", "cudnn"}},
      {"jax", {"jax_version", "cuda_major", "cuda_min", "cudnn_min", "python_min", "python_max", "min_driver_linux"}},
      {"arch_throughput", {"cc"}},
  };
  for (const auto& [name, columns] : version_columns) {
    const CsvTable& t = table(name.c_str());
    for (size_t r = 0; r < t.rows.size(); ++r)
      for (const char* c : columns) {
        const std::string v = cell(t, r, c);
        EXPECT_TRUE(v.empty() || plain_version(v))
            << name << ".csv line " << t.lines[r] << ", " << c << ": \"" << v << "\" is not a plain version";
      }
  }
}

TEST(Knowledge, EveryFrameworkCudaHasADriverFloor) {
  // A framework row's CUDA must be a CUDA release the driver table has, minor and all (an invented 12.7
  // does not pass for being a 12.x); TensorFlow 1.x rows whose docs give only a major need one of its rows.
  std::set<std::string> cuda_versions, majors;
  const CsvTable& d = table("cuda_driver");
  for (size_t r = 0; r < d.rows.size(); ++r) {
    cuda_versions.insert(major_minor(cell(d, r, "cuda_version")));
    majors.insert(std::to_string(Version::parse(cell(d, r, "cuda_version"))->major()));
  }
  size_t checked = 0;
  for (const auto& [name, column] : {std::pair{"tensorflow", "cuda"}, {"pytorch", "cuda"}, {"jax", "cuda_min"}}) {
    const CsvTable& t = table(name);
    for (size_t r = 0; r < t.rows.size(); ++r) {
      const std::string cuda = cell(t, r, column);
      if (cuda.empty()) continue;
      ++checked;
      const auto v = Version::parse(cuda);
      ASSERT_TRUE(v) << name << ".csv line " << t.lines[r] << ": " << cuda;
      if (v->parts.size() == 1)
        EXPECT_TRUE(majors.count(cuda)) << name << ".csv line " << t.lines[r] << ": CUDA " << cuda << " has no row";
      else
        EXPECT_TRUE(cuda_versions.count(major_minor(cuda)))
            << name << ".csv line " << t.lines[r] << ": CUDA " << cuda << " is not a release in cuda_driver.csv";
    }
  }
  EXPECT_GT(checked, 200u);
}

// A framework's cuDNN newer than the newest cudnn.csv row of its CUDA major is judged by that older row:
// freshness.csv's cudnn notes must name it, so the gap is stated rather than silent.
TEST(KnowledgeConsistency, ACudnnNewerThanTheTablesIsAStatedGap) {
  const auto& k = knowledge::Compat::embedded();
  const auto* fresh = k.freshness_of("cudnn");
  ASSERT_NE(fresh, nullptr);
  auto check = [&](const Version& v, long major, const std::string& what) {
    const knowledge::CudnnRow* newest = nullptr;
    for (const auto& r : k.cudnn)
      if (!newest && r.cuda_major == major) newest = &r;
    if (!newest || v.major_minor() <= newest->cudnn.major_minor()) return;
    EXPECT_NE(fresh->notes.find(v.major_minor().str()), std::string::npos)
        << what << ": cuDNN " << v.str() << " is newer than cudnn.csv's " << newest->cudnn.str() << " for CUDA " << major
        << " and freshness.csv does not say so";
  };
  for (const auto& r : k.pytorch)
    if (r.cuda && !r.cudnn.empty()) check(*Version::parse(r.cudnn), r.cuda->major(), "torch " + r.version.str() + " " + r.variant);
  for (const auto& r : k.jax)
    if (r.cudnn_min) check(*r.cudnn_min, r.cuda_major, "jax " + r.version.str() + " " + r.pip_extra);
  for (const auto& r : k.tensorflow)
    if (r.cuda && r.cudnn) check(*r.cudnn, r.cuda->major(), "tensorflow " + r.version.str());
}

// No two rows say different things about the same thing: one row per key in every table.
TEST(KnowledgeConsistency, NoTwoRowsShareAKey) {
  const auto& k = knowledge::Compat::embedded();
  auto unique = [](const std::string& table, auto const& rows, auto key) {
    std::set<std::string> seen;
    for (const auto& r : rows) EXPECT_TRUE(seen.insert(key(r)).second) << table << ": " << key(r) << " twice";
    EXPECT_FALSE(seen.empty()) << table;
  };
  unique("tensorflow.csv", k.tensorflow, [](const auto& r) { return r.version.str() + " " + r.os + " " + r.device; });
  unique("jax.csv", k.jax, [](const auto& r) { return r.version.str() + " " + r.pip_extra; });
  unique("cuda_driver.csv", k.cuda_driver, [](const auto& r) { return r.cuda.major_minor().str(); });
  unique("cudnn.csv", k.cudnn, [](const auto& r) { return r.cudnn.str() + " cuda" + std::to_string(r.cuda_major); });
  unique("gpus.csv", k.gpus, [](const auto& r) { return r.name; });
  unique("cuda_arch.csv", k.cuda_arch, [](const auto& r) { return r.cuda.major_minor().str(); });
  // A PCI device id is one GPU, of one compute capability.
  std::map<std::uint32_t, Version> cc_of_id;
  for (const auto& g : k.gpus)
    for (auto id : g.pci_device_ids) {
      auto [it, fresh] = cc_of_id.emplace(id, g.cc);
      EXPECT_TRUE(fresh || it->second == g.cc) << "PCI id " << std::hex << id << ": two compute capabilities";
    }
  // jax: the rows of one release agree on its Python range.
  std::map<std::string, std::pair<Version, Version>> python;
  for (const auto& r : k.jax) {
    auto [it, fresh] = python.emplace(r.version.str(), std::make_pair(r.python_min, r.python_max));
    if (!fresh)
      EXPECT_TRUE(it->second.first == r.python_min && it->second.second == r.python_max)
          << "jax.csv line " << r.line << ": " << r.version.str() << " " << r.pip_extra << " has another Python range";
  }
}

// The audit's wrong cells, as rules a row cannot break again (knowledge-audit.md sections 1, 3, 12):
// PyTorch dropped Volta from its CUDA >= 12.8 wheels in 2.11; jaxlib dropped Kepler in 0.4.4 (every CUDA
// release row from it on has a floor at or above Maxwell, and no Kepler in its list).
TEST(KnowledgeConsistency, TheAuditsArchitectureFactsHold) {
  const auto& k = knowledge::Compat::embedded();
  size_t torch_rows = 0, jax_rows = 0;
  for (const auto& r : k.pytorch) {
    if (r.version < Version::of({2, 11}) || !r.cuda || *r.cuda < Version::of({12, 8})) continue;
    ++torch_rows;
    ASSERT_FALSE(r.sm.empty()) << "pytorch.csv line " << r.line;
    EXPECT_GE(*r.sm.begin(), 75) << "pytorch.csv line " << r.line << ": torch " << r.version.str() << " " << r.variant;
  }
  for (const auto& r : k.jax) {
    if (r.version < Version::of({0, 4, 4}) || !r.cuda_min) continue;
    ++jax_rows;
    ASSERT_TRUE(r.min_sm.has_value()) << "jax.csv line " << r.line << ": jax " << r.version.str() << " " << r.pip_extra;
    EXPECT_GE(*r.min_sm, Version::of({5, 0})) << "jax.csv line " << r.line;
    if (!r.sm.empty()) EXPECT_GE(*r.sm.begin(), 50) << "jax.csv line " << r.line;
  }
  EXPECT_GE(torch_rows, 10u);
  EXPECT_GE(jax_rows, 80u);
  // The JAX docs' driver floors from 0.4.8 on (cuda12 plugins: 525.60.13; cuda11: 450.80.02).
  for (const auto& r : k.jax)
    if (r.version >= Version::of({0, 4, 8}) && r.version <= Version::of({0, 4, 25}) && r.cuda_min)
      EXPECT_TRUE(r.min_driver_linux.has_value()) << "jax.csv line " << r.line << ": jax " << r.version.str() << " " << r.pip_extra;
}

TEST(Knowledge, JaxDriverFloorsDoNotContradictCuda) {
  std::map<long, Version> floor;
  const CsvTable& mc = table("cuda_minor_compat");
  for (size_t r = 0; r < mc.rows.size(); ++r)
    floor[Version::parse(cell(mc, r, "cuda_major"))->major()] = *Version::parse(cell(mc, r, "min_driver_linux"));
  const CsvTable& j = table("jax");
  for (size_t r = 0; r < j.rows.size(); ++r) {
    const std::string drv = cell(j, r, "min_driver_linux"), major = cell(j, r, "cuda_major");
    if (drv.empty() || major.empty()) continue;
    const long m = Version::parse(major)->major();
    ASSERT_TRUE(floor.count(m)) << "jax.csv line " << j.lines[r] << ": CUDA " << m << " has no floor";
    // Compare at the precision the JAX docs give ("580" is the 580 branch).
    const Version said = *Version::parse(drv);
    Version cuda_floor = floor.at(m);
    cuda_floor.parts.resize(std::min(cuda_floor.parts.size(), said.parts.size()));
    EXPECT_GE(said, cuda_floor) << "jax.csv line " << j.lines[r] << ": driver " << drv
                                << " is below CUDA " << m << "'s own floor " << floor.at(m).str();
  }
}

TEST(Knowledge, PytorchShipsKernelsOnlyForArchitecturesItsCudaBuilds) {
  std::map<std::string, std::set<std::string>> arch;
  const CsvTable& a = table("cuda_arch");
  for (size_t r = 0; r < a.rows.size(); ++r) arch[major_minor(cell(a, r, "cuda_version"))] = words(cell(a, r, "sm_list"));
  const CsvTable& p = table("pytorch");
  for (size_t r = 0; r < p.rows.size(); ++r) {
    const std::string cuda = cell(p, r, "cuda"), sms = cell(p, r, "sm_list");
    if (cuda.empty() || sms.empty()) continue;
    const auto it = arch.find(major_minor(cuda));
    ASSERT_NE(it, arch.end()) << "pytorch.csv line " << p.lines[r] << ": CUDA " << cuda << " not in cuda_arch.csv";
    for (const auto& sm : words(sms))
      EXPECT_TRUE(it->second.count(sm)) << "pytorch.csv line " << p.lines[r] << ": sm_" << sm << " cannot be built by CUDA "
                                        << cuda;
  }
}

// Every cuDNN a framework row bundles or needs is one the cuDNN table can describe for that CUDA
// major (its own row or an older one of the same major): plan checks its architectures with it.
TEST(Knowledge, EveryFrameworkCudnnIsInTheCudnnTable) {
  const auto& k = knowledge::Compat::embedded();
  for (const auto& r : k.pytorch) {
    if (!r.cuda || r.cudnn.empty()) continue;
    const auto v = Version::parse(r.cudnn);
    ASSERT_TRUE(v) << "pytorch.csv line " << r.line << ": cudnn " << r.cudnn;
    EXPECT_NE(k.cudnn_row_for(*v, r.cuda->major()), nullptr)
        << "pytorch.csv line " << r.line << ": cuDNN " << r.cudnn << " for CUDA " << r.cuda->major() << " is in no cudnn.csv row";
  }
  const Version oldest = k.cudnn.back().cudnn;  // older releases (cuDNN 5/6, TF 1.0-1.4) are a stated gap: plan says so
  for (const auto& r : k.tensorflow) {
    if (!r.cuda || !r.cudnn || r.cudnn->parts.size() < 2 || *r.cudnn < oldest) continue;  // "7": any 7.x
    EXPECT_NE(k.cudnn_row_for(*r.cudnn, r.cuda->major()), nullptr)
        << "tensorflow.csv line " << r.line << ": cuDNN " << r.cudnn->str() << " for CUDA " << r.cuda->major();
  }
  for (const auto& r : k.jax) {
    if (!r.cudnn_min || r.cuda_major == 0) continue;
    EXPECT_NE(k.cudnn_row_for(*r.cudnn_min, r.cuda_major), nullptr)
        << "jax.csv line " << r.line << ": cuDNN " << r.cudnn_min->str() << " for CUDA " << r.cuda_major;
  }
}

// A cuDNN row cannot support an architecture its CUDA cannot build for: its min_sm is at or above
// the oldest architecture of the newest CUDA of its major.
TEST(Knowledge, CudnnArchitecturesAreWithinItsCuda) {
  const auto& k = knowledge::Compat::embedded();
  for (const auto& r : k.cudnn) {
    const auto* arch = r.cuda_min ? k.arch_row(*r.cuda_min) : k.newest_arch_row(r.cuda_major);
    if (!arch) continue;  // CUDA older than the architecture table
    EXPECT_GE(r.min_sm, arch->min_sm) << "cudnn.csv " << r.cudnn.str() << " (CUDA " << r.cuda_major << "): min_sm " << r.min_sm
                                      << " below what CUDA " << arch->cuda.str() << " builds";
  }
  // cuDNN never adds old architectures back within one CUDA major.
  for (const auto& a : k.cudnn)
    for (const auto& b : k.cudnn)
      if (a.cuda_major == b.cuda_major && a.cudnn > b.cudnn)
        EXPECT_GE(a.min_sm, b.min_sm) << "cudnn " << a.cudnn.str() << " vs " << b.cudnn.str() << " (CUDA " << a.cuda_major << ")";
}

// One release, one Python range and one PyPI default: rows of a release do not contradict each other.
TEST(Knowledge, AReleasesRowsAgree) {
  const auto& k = knowledge::Compat::embedded();
  std::map<std::string, std::pair<Version, Version>> python;
  std::map<std::string, int> pypi_defaults;
  std::set<std::string> keys;
  for (const auto& r : k.pytorch) {
    const std::string v = r.version.str();
    EXPECT_TRUE(keys.insert(v + "/" + r.variant).second) << "pytorch.csv line " << r.line << ": " << v << " " << r.variant << " twice";
    auto [it, fresh] = python.emplace(v, std::make_pair(r.python_min, r.python_max));
    if (!fresh)
      EXPECT_TRUE(it->second.first == r.python_min && it->second.second == r.python_max)
          << "pytorch.csv line " << r.line << ": " << v << " " << r.variant << " has another Python range";
    if (r.pypi_default == "yes") ++pypi_defaults[v];
  }
  for (const auto& [v, n] : pypi_defaults) EXPECT_EQ(n, 1) << "torch " << v << ": " << n << " PyPI defaults";
  // 2.14 (audit): released, Python 3.10-3.14 (3.15 experimental), ROCm 7.14 only, cu132 on PyPI.
  for (const auto& r : k.pytorch) {
    if (r.version.major_minor() != Version::of({2, 14})) continue;
    EXPECT_EQ(r.python_max.str(), "3.14") << r.variant;
    EXPECT_NE(r.variant, "rocm7.2");
    if (r.variant == "cu132") EXPECT_EQ(r.pypi_default, "yes");
  }
}

// The last driver branches: ranges of compute capability that do not overlap, newest first, and
// a last branch that is at or after the first driver of every GPU it covers.
TEST(Knowledge, DriverBranchesAreConsistentWithTheGpus) {
  const auto& k = knowledge::Compat::embedded();
  ASSERT_FALSE(k.driver_branches.empty());
  for (size_t i = 0; i < k.driver_branches.size(); ++i) {
    const auto& a = k.driver_branches[i];
    EXPECT_LE(a.cc_min, a.cc_max) << a.architecture;
    for (size_t j = i + 1; j < k.driver_branches.size(); ++j)
      EXPECT_TRUE(k.driver_branches[j].cc_max < a.cc_min) << a.architecture << " overlaps " << k.driver_branches[j].architecture;
  }
  for (const auto& g : k.gpus) {
    const auto* last = k.gpu_driver_ceiling(g.cc);
    const auto first = k.gpu_driver_floor(g.cc, knowledge::DriverOs::linux);
    if (last && first) EXPECT_GE(last->last_branch, first->branch()) << g.name;
    if (last && !g.architecture.empty() && g.architecture != "Tegra")
      EXPECT_NE(g.architecture.find(last->architecture), std::string::npos) << g.name << " is " << g.architecture << ", not "
                                                                           << last->architecture;
  }
}

// CUDA 10.0 named its math libraries after the CUDA version (cublas64_100.dll, libcublas.so.10.0);
// 10.1 and 10.2 after the component major (cublas64_10.dll). The audit found only the latter.
TEST(Knowledge, Cuda100LibraryNamesAreInTheTables) {
  const auto& k = knowledge::Compat::embedded();
  for (const char* lib : {"cublas", "cufft", "curand", "cusolver", "cusparse"}) {
    const auto* row = k.library(lib, 10);
    ASSERT_NE(row, nullptr) << lib;
    const std::string dlls = fmt::format("{}", fmt::join(row->windows_dlls, " "));
    const std::string sos = fmt::format("{}", fmt::join(row->linux_sonames, " "));
    EXPECT_NE(dlls.find(std::string(lib) + "64_100.dll"), std::string::npos) << dlls;
    EXPECT_NE(dlls.find(std::string(lib) + "64_10.dll"), std::string::npos) << dlls;
    EXPECT_NE(sos.find("lib" + std::string(lib) + ".so.10.0"), std::string::npos) << sos;
    EXPECT_EQ(row->windows_dlls.back(), std::string(lib) + "64_10.dll") << "the general name is the row's last";
  }
}

// freshness.csv says what the newest release each table knows is: it must be the table's own newest.
TEST(Knowledge, FreshnessNamesEachTablesNewestRelease) {
  const auto& k = knowledge::Compat::embedded();
  const std::map<std::string, Version> newest = {{"pytorch", k.pytorch.front().version},
                                                 {"tensorflow", k.tensorflow.front().version},
                                                 {"jax", k.jax.front().version},
                                                 {"cuda", k.cuda_driver.front().cuda},
                                                 {"cudnn", k.cudnn.front().cudnn}};
  for (const auto& [component, version] : newest) {
    const auto* f = k.freshness_of(component);
    ASSERT_NE(f, nullptr) << component;
    EXPECT_EQ(f->newest, version) << component << ": freshness.csv says " << f->newest.str() << ", the table's newest is "
                                  << version.str();
    if (!f->date.empty()) {
      EXPECT_EQ(f->date.size(), 10u) << component << ": " << f->date;  // YYYY-MM-DD
      EXPECT_TRUE(f->date_kind == "released" || f->date_kind == "seen-by") << component << ": " << f->date_kind;
    }
  }
}

TEST(Knowledge, TheWalkthroughsFactsAreInTheTables) {
  // Driver 546.33 on Windows supports CUDA <= 12.3 (12.3 needs 545.84, 12.4 needs 551.61).
  const CsvTable& d = table("cuda_driver");
  const Version driver = *Version::parse("546.33");
  std::string newest;
  for (size_t r = 0; r < d.rows.size(); ++r) {
    const std::string w = cell(d, r, "min_driver_windows");
    if (w.empty() || *Version::parse(w) > driver) continue;
    const std::string v = cell(d, r, "cuda_version");
    if (newest.empty() || *Version::parse(v) > *Version::parse(newest)) newest = v;
  }
  EXPECT_EQ(newest, "12.3");
  // Windows, Python 3.8: tensorflow-gpu 2.4.0 was tested with CUDA 11.0, cuDNN 8.0 (the plain tensorflow
  // package is the same build since 2.1, and the one to install: tensorflow-gpu is deprecated).
  const CsvTable& tf = table("tensorflow");
  bool found = false;
  for (size_t r = 0; r < tf.rows.size(); ++r)
    if (cell(tf, r, "tf_version") == "2.4.0" && cell(tf, r, "os") == "windows" && cell(tf, r, "device") == "gpu") {
      found = true;
      EXPECT_EQ(cell(tf, r, "cuda"), "11.0");
      EXPECT_EQ(cell(tf, r, "cudnn"), "8.0");
      EXPECT_EQ(cell(tf, r, "package"), "tensorflow");
    }
  EXPECT_TRUE(found);
  // The GTX 1650 is Turing, compute capability 7.5.
  const CsvTable& g = table("gpus");
  bool gtx = false;
  for (size_t r = 0; r < g.rows.size(); ++r)
    if (cell(g, r, "name") == "NVIDIA GeForce GTX 1650") {
      gtx = true;
      EXPECT_EQ(cell(g, r, "cc"), "7.5");
      EXPECT_EQ(cell(g, r, "architecture"), "Turing");
    }
  EXPECT_TRUE(gtx);
}

TEST(Knowledge, DataFolderOverridesAndBadFoldersSayWhy) {
  const auto& real = real_os();
  std::string err;
  EXPECT_FALSE(Knowledge::load_dir(real.fs, "/nonexistent-data-dir", &err));
  EXPECT_NE(err.find("cuda_driver.csv"), std::string::npos) << err;
  auto k = Knowledge::load_dir(real.fs, std::string(GPUREADY_SOURCE_DIR) + "/data", &err);
  ASSERT_TRUE(k) << err;
  EXPECT_EQ(k->table("pytorch")->rows.size(), table("pytorch").rows.size());
  // A table whose row lacks a source is refused, with the line.
  test::FixtureOs f("knowledge/no_source");
  EXPECT_FALSE(Knowledge::load_dir(f.fs, "/data", &err));
  EXPECT_NE(err.find("line 3: the row has no source"), std::string::npos) << err;
}

TEST(Knowledge, GpuPeaksAreSourcedNumbersThatAgreeWithEachOther) {
  // gpu_peaks.csv: TFLOP/s, dense, fp32 accumulate. Every row names its document and source; every
  // figure is a plain decimal; fp16 (tensor or CUDA-core rate) is never below fp32; fp16 and bf16
  // (both fp32 accumulate) are the same rate where both are given; tf32 is at most the fp16 rate.
  const CsvTable& t = table("gpu_peaks");
  std::set<std::string> names;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string where = "gpu_peaks.csv line " + std::to_string(t.lines[r]);
    const std::string name = cell(t, r, "name");
    EXPECT_TRUE(names.insert(name).second) << where << ": \"" << name << "\" appears twice";
    EXPECT_FALSE(cell(t, r, "source").empty()) << where;
    EXPECT_FALSE(cell(t, r, "document").empty()) << where;
    std::map<std::string, double> v;
    for (const char* c : {"fp32", "tf32", "fp16", "bf16"}) {
      const std::string s = cell(t, r, c);
      if (s.empty()) continue;
      EXPECT_TRUE(plain_decimal(s)) << where << ", " << c << ": \"" << s << "\" is not a plain decimal";
      v[c] = std::stod(s);
      EXPECT_GT(v[c], 0) << where << ", " << c;
    }
    if (v.count("fp16") && v.count("fp32")) {
      EXPECT_GE(v["fp16"], v["fp32"]) << where << ": fp16 below fp32";
    }
    if (v.count("fp16") && v.count("bf16")) {
      EXPECT_DOUBLE_EQ(v["fp16"], v["bf16"]) << where << ": fp16 != bf16";
    }
    if (v.count("tf32") && v.count("fp16")) {
      EXPECT_LE(v["tf32"], v["fp16"]) << where << ": tf32 above fp16";
    }
    // An empty cell must be explained.
    if (v.size() < 4) {
      EXPECT_FALSE(cell(t, r, "notes").empty()) << where << ": empty cells without notes";
    }
  }
  // The typed view reads the same rows.
  EXPECT_EQ(Compat::embedded().gpu_peaks.size(), t.rows.size());
}

TEST(Knowledge, GpuPeakNamesAreNvmlNamesFromTheGpuTable) {
  // Each name is spelled as NVML reports it, so it must be a gpus.csv name (that table holds the
  // driver's own names) or say why not. A GPU whose capability lacks TF32/BF16 (arch_throughput
  // `none`) cannot have a datasheet figure for it.
  const Compat& c = Compat::embedded();
  std::map<std::string, Version> cc;
  for (const auto& g : c.gpus) cc[g.name] = g.cc;
  for (const auto& row : c.gpu_peaks) {
    const auto it = cc.find(row.name);
    if (it == cc.end()) {
      EXPECT_NE(row.notes.find("Not in gpus.csv"), std::string::npos)
          << "gpu_peaks.csv line " << row.line << ": \"" << row.name
          << "\" is not in gpus.csv and the notes do not say why";
      continue;
    }
    const ArchThroughputRow* arch = c.arch_throughput_row(it->second);
    if (!arch) continue;
    if (arch->tf32 == 0) {
      EXPECT_FALSE(row.tf32) << row.name << ": cc " << it->second.str() << " has no TF32";
    }
    if (arch->bf16 == 0) {
      EXPECT_FALSE(row.bf16) << row.name << ": cc " << it->second.str() << " has no BF16";
    }
  }
}

TEST(Knowledge, ArchThroughputRatesAreWholeNumbersOrNone) {
  // arch_throughput.csv: FLOP/clock/SM per compute capability; a rate, `none` or empty (notes say
  // why). fp32 is known for every listed capability (2 x 64 or 2 x 128 lanes), tensor rates are
  // at least the fp32 rate, and each capability appears once.
  const CsvTable& t = table("arch_throughput");
  std::set<std::string> seen;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string where = "arch_throughput.csv line " + std::to_string(t.lines[r]);
    EXPECT_TRUE(seen.insert(major_minor(cell(t, r, "cc"))).second) << where << ": capability listed twice";
    const std::string fp32 = cell(t, r, "fp32");
    EXPECT_TRUE(fp32 == "128" || fp32 == "256") << where << ": fp32 \"" << fp32 << "\"";
    for (const char* c : {"tf32", "fp16", "bf16"}) {
      const std::string s = cell(t, r, c);
      if (s.empty() || s == "none") continue;
      ASSERT_TRUE(s.find_first_not_of("0123456789") == std::string::npos) << where << ", " << c << ": \"" << s << "\"";
      EXPECT_GE(std::stoi(s), std::stoi(fp32)) << where << ", " << c;
    }
    EXPECT_FALSE(cell(t, r, "notes").empty()) << where;
  }
  // The typed view: 9.0 is Hopper's 4096 FLOP/clock/SM for fp16; 7.5 has no TF32 (0).
  const Compat& c = Compat::embedded();
  ASSERT_NE(c.arch_throughput_row(*Version::parse("9.0")), nullptr);
  EXPECT_EQ(c.arch_throughput_row(*Version::parse("9.0"))->fp16, 4096);
  EXPECT_EQ(c.arch_throughput_row(*Version::parse("7.5"))->tf32, 0);
  EXPECT_EQ(c.arch_throughput_row(*Version::parse("7.5"))->fp16, std::nullopt);
  EXPECT_EQ(c.arch_throughput_row(*Version::parse("3.7")), nullptr);
}

TEST(Knowledge, TheTestMachinesPeaksAreTheH200Datasheets) {
  // NVIDIA H200 (SXM): FP32 67, TF32 494.7 dense (989 with sparsity), BF16/FP16 989.4 dense.
  const GpuPeakRow* h200 = Compat::embedded().gpu_peak("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->fp32, 67);
  EXPECT_EQ(h200->tf32, 494.7);
  EXPECT_EQ(h200->fp16, 989.4);
  EXPECT_EQ(h200->bf16, 989.4);
  // The walkthrough's GTX 1650: no tensor cores, fp16 at its CUDA-core (fp32) rate.
  const GpuPeakRow* gtx = Compat::embedded().gpu_peak("NVIDIA GeForce GTX 1650");
  ASSERT_NE(gtx, nullptr);
  EXPECT_EQ(gtx->fp16, gtx->fp32);
  EXPECT_FALSE(gtx->tf32);
  EXPECT_FALSE(gtx->bf16);
  EXPECT_EQ(Compat::embedded().gpu_peak("nvidia h200"), nullptr);  // exact names only
}

TEST(Knowledge, BadPeakCellsAreAnErrorWithTheLine) {
  // A data folder whose gpu_peaks.csv or arch_throughput.csv has one bad row: the CSV loads, the
  // typed view refuses it and names the table, line and cell.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpuready-knowledge-peaks-" + std::to_string(::getpid()));
  std::string err;
  auto with_row = [&](const char* name, const std::string& row) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* t : kTableNames)
      fs::copy_file(fs::path(GPUREADY_SOURCE_DIR) / "data" / (std::string(t) + ".csv"),
                    dir / (std::string(t) + ".csv"));
    const CsvTable& t = table(name);
    std::ofstream f(dir / (std::string(name) + ".csv"), std::ios::trunc);
    for (size_t i = 0; i < t.header.size(); ++i) f << (i ? "," : "") << t.header[i];
    f << "\n" << row << "\n";
    f.close();
    auto k = Knowledge::load_dir(real_os().fs, dir.string(), &err);
    EXPECT_TRUE(k) << err;
    return k && Compat::from(*k, &err).has_value();
  };
  EXPECT_FALSE(with_row("gpu_peaks", "NVIDIA X,1e3,,,,a doc,notes,a source"));
  EXPECT_NE(err.find("gpu_peaks.csv line 2: fp32 \"1e3\" is not a decimal number"), std::string::npos) << err;
  EXPECT_FALSE(with_row("gpu_peaks", "NVIDIA X,-5,,,,a doc,notes,a source"));
  EXPECT_NE(err.find("fp32 \"-5\""), std::string::npos) << err;
  EXPECT_FALSE(with_row("arch_throughput", "9.0,256,lots,,,notes,a source"));
  EXPECT_NE(err.find("arch_throughput.csv line 2: tf32 \"lots\" is not a rate"), std::string::npos) << err;
  EXPECT_TRUE(with_row("arch_throughput", "9.0,256,none,,4096,notes,a source")) << err;
  fs::remove_all(dir);
}

TEST(KnowledgeConsistency, EveryKnownPythonBreakIsSourcedAndSaysWhatHappensAndWhatToPin) {
  const auto& k = knowledge::Compat::embedded();
  ASSERT_GE(k.python_breaks.size(), 8u);
  for (const auto& b : k.python_breaks) {
    const std::string what = b.packages.front() + b.package_versions + " / " + b.dependency + b.dependency_versions;
    EXPECT_NE(b.source.find("https://"), std::string::npos) << what;
    EXPECT_FALSE(b.symptom.empty()) << what;
    EXPECT_NE(b.fix.find("pip install"), std::string::npos) << what;
    EXPECT_TRUE(b.os.empty() || b.os == "windows" || b.os == "linux") << what;
    // The range is not empty: some version of each side is in it.
    EXPECT_FALSE(parse::VersionSpecifier::parse(b.package_versions)->clauses.empty()) << what;
  }
}

TEST(KnowledgeConsistency, EveryTensorflowArchitectureListIsWithinWhatItsCudaBuilds) {
  // (PyTorch's lists: Knowledge.PytorchShipsKernelsOnlyForArchitecturesItsCudaBuilds.)
  const auto& k = knowledge::Compat::embedded();
  size_t tf_lists = 0;
  for (const auto& r : k.tensorflow) {
    if (r.sm.empty() || !r.cuda) continue;
    ++tf_lists;
    const auto* arch = k.arch_row(*r.cuda);
    ASSERT_NE(arch, nullptr) << "tensorflow " << r.version.str() << ": CUDA " << r.cuda->str();
    for (int s : r.sm) EXPECT_TRUE(arch->sm.count(s)) << "tensorflow " << r.version.str() << " sm_" << s << " CUDA " << r.cuda->str();
  }
  EXPECT_GE(tf_lists, 20u);  // every Linux GPU release line 2.1-2.21
}

TEST(KnowledgeConsistency, EveryJaxArchitectureListIsWithinWhatItsCudaMajorBuildsAndAtOrBelowTheDocsFloor) {
  const auto& k = knowledge::Compat::embedded();
  size_t lists = 0;
  for (const auto& r : k.jax) {
    if (r.sm.empty()) continue;
    ++lists;
    const std::string what = "jax " + r.version.str() + " " + r.pip_extra;
    // Built with the newest CUDA of its major at the time (hermetic 12.8/12.9/13.0): within what that major builds.
    const auto* arch = k.newest_arch_row(r.cuda_major);
    ASSERT_NE(arch, nullptr) << what;
    for (int s : r.sm) EXPECT_TRUE(arch->sm.count(s)) << what << " sm_" << s;
    // The docs' floor is never below the oldest architecture the wheels carry.
    if (r.min_sm) EXPECT_GE(knowledge::sm_of(*r.min_sm), *r.sm.begin()) << what;
    EXPECT_TRUE(r.ptx) << what;  // every .bazelrc list since 0.4.0 ends in compute_XX
  }
  EXPECT_GE(lists, 90u);  // every release 0.4.0-0.11.0 (0.11.1/0.11.2 not read: min_sm only)
}

// rocm_gfx.csv: every target once; a support range in order; an override names a target that some
// ROCm release lists (the override runs that target's kernels: it must have some); gfx1031 (RX 6700 XT)
// was never listed, gfx1100 (RX 7900 XTX) is listed from 6.0.
TEST(Knowledge, RocmGfxTargetsAndTheirOverrides) {
  const Compat& c = Compat::embedded();
  ASSERT_GE(c.rocm_gfx.size(), 30u);
  std::set<std::string> seen;
  for (const auto& g : c.rocm_gfx) {
    EXPECT_TRUE(seen.insert(g.gfx).second) << g.gfx << " twice";
    if (g.last) {
      ASSERT_TRUE(g.first) << g.gfx << ": a last release without a first";
      EXPECT_FALSE(*g.last < *g.first) << g.gfx;
    }
    if (!g.override_version.empty()) {
      const auto v = Version::parse(g.override_version);
      ASSERT_TRUE(v && v->parts.size() == 3) << g.gfx << ": override " << g.override_version;
      const auto* target = c.rocm_gfx_row(fmt::format("gfx{}{}{:x}", v->parts[0], v->parts[1], v->parts[2]));
      ASSERT_NE(target, nullptr) << g.gfx << ": override " << g.override_version << " names no target in the table";
      EXPECT_TRUE(target->ever_supported()) << g.gfx << ": override to " << target->gfx << ", which no ROCm lists";
    }
  }
  ASSERT_NE(c.rocm_gfx_row("GFX1031"), nullptr);
  EXPECT_FALSE(c.rocm_gfx_row("gfx1031")->ever_supported());
  ASSERT_NE(c.rocm_gfx_row("gfx1100"), nullptr);
  ASSERT_TRUE(c.rocm_gfx_row("gfx1100")->first);
  EXPECT_EQ(c.rocm_gfx_row("gfx1100")->first->str(), "6.0.0");
  EXPECT_EQ(c.rocm_gfx_row("gfx9999"), nullptr);
}
