// The pieces around the plan resolver: the typed knowledge (Compat) and its questions,
// plan inputs from real probed snapshots, the install steps per OS, and `gpuready plan`
// end to end (flags, --snapshot, --data, --json, exit codes, bad input). The resolver's
// scenarios, checked by hand against the tables, are in plan_scenarios_test.cpp.
#include <gtest/gtest.h>

#include <set>

#include <filesystem>
#include <fstream>

#include "knowledge/compat.h"
#include "plan/plan.h"
#include "platform/os.h"
#include "support/test_os.h"

using namespace gpuready;
using namespace gpuready::knowledge;
using gpuready::plan::PlanInputs;

namespace fs = std::filesystem;

namespace {

const Compat& k() { return Compat::embedded(); }
Version v(const char* s) { return *Version::parse(s); }

ProcResult run_gpuready(std::vector<std::string> args) {
  args.insert(args.begin(), GPUREADY_EXE);
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  return real_os().proc.run(args, o);
}

std::string all_commands(const std::vector<plan::Step>& steps) {
  std::string s;
  for (const auto& st : steps) {
    s += "## " + st.title + "\n";
    for (const auto& c : st.commands) s += c + "\n";
  }
  return s;
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

PlanInputs machine(const char* os, const char* cc, const char* driver, const char* python, const char* fw) {
  PlanInputs in;
  in.os = os;
  if (cc) in.cc = v(cc);
  if (driver) in.driver = v(driver);
  if (python) in.python = v(python);
  in.framework = fw;
  return in;
}

fs::path temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("gpuready_plan_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

}  // namespace

// ---- Compat: the questions asked of the tables ---------------------------------------------

TEST(Compat, DriverFloorsPerOs) {
  // cuda_driver.csv 12.3 row: 545.23.06 / 545.84.
  EXPECT_EQ(k().full_floor(v("12.3"), DriverOs::linux)->str(), "545.23.06");
  EXPECT_EQ(k().full_floor(v("12.3"), DriverOs::windows)->str(), "545.84");
  // 13.x on Windows is N/A in NVIDIA's table: the Linux floor's branch stands in.
  EXPECT_EQ(k().full_floor(v("13.0"), DriverOs::windows)->str(), "580");
  EXPECT_EQ(k().compat_floor(11, DriverOs::linux)->str(), "450.80.02");
  EXPECT_EQ(k().compat_floor(12, DriverOs::windows)->str(), "527.41");
  EXPECT_FALSE(k().compat_floor(10, DriverOs::linux));  // no minor-version compatibility before 11
  EXPECT_FALSE(k().full_floor(v("12.7"), DriverOs::linux));  // there is no CUDA 12.7
}

TEST(Compat, RequiredDriverUsesMinorVersionCompatibilityFromCuda11) {
  EXPECT_EQ(k().required_driver(v("11.0"), DriverOs::windows)->str(), "452.39");  // above 11.0 GA's 451.48
  EXPECT_EQ(k().required_driver(v("12.8"), DriverOs::linux)->str(), "525.60.13");
  EXPECT_EQ(k().required_driver(v("10.1"), DriverOs::linux)->str(), "418.39");    // its own floor
  EXPECT_EQ(k().required_driver(v("13.2"), DriverOs::linux)->str(), "580.65.06");
}

TEST(Compat, NewestCudaOfADriver) {
  EXPECT_EQ(k().newest_cuda(v("546.33"), DriverOs::windows)->str(), "12.3");  // the walkthrough
  EXPECT_EQ(k().newest_cuda(v("470.57.02"), DriverOs::linux)->str(), "11.4");
  EXPECT_EQ(k().newest_cuda(v("580.159.04"), DriverOs::linux)->str(), "13.0");  // the H200 machine
  EXPECT_EQ(k().newest_cuda(v("580.88"), DriverOs::windows)->str(), "13.0");
  EXPECT_FALSE(k().newest_cuda(v("300.0"), DriverOs::linux));
}

// A GPU's first driver is the GA driver of the first CUDA that builds for its architecture
// (A100: CUDA 11.0 -> R450; RTX 50: CUDA 12.8 -> R570); its last is its architecture's legacy branch.
TEST(Compat, AGpuHasAFirstAndALastDriverBranch) {
  const auto a100 = k().gpu_driver_floor(v("8.0"), DriverOs::linux);
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->branch(), 450);
  EXPECT_EQ(a100->cuda.str(), "11.0");
  const auto rtx50 = k().gpu_driver_floor(v("12.0"), DriverOs::windows);
  ASSERT_TRUE(rtx50);
  EXPECT_EQ(rtx50->driver.str(), "570.65");
  EXPECT_EQ(k().gpu_driver_floor(v("8.9"), DriverOs::linux)->branch(), 520);  // Ada: CUDA 11.8
  EXPECT_EQ(k().gpu_driver_floor(v("8.6"), DriverOs::linux)->driver.str(), "455.23");
  EXPECT_FALSE(k().gpu_driver_floor(v("6.1"), DriverOs::linux));  // older than the oldest CUDA in the tables
  ASSERT_NE(k().gpu_driver_ceiling(v("3.7")), nullptr);
  EXPECT_EQ(k().gpu_driver_ceiling(v("3.7"))->last_branch, 470);  // Kepler
  EXPECT_EQ(k().gpu_driver_ceiling(v("6.1"))->last_branch, 580);  // Pascal
  EXPECT_EQ(k().gpu_driver_ceiling(v("7.0"))->last_branch, 580);  // Volta
  EXPECT_EQ(k().gpu_driver_ceiling(v("5.2"))->architecture, "Maxwell");
  EXPECT_EQ(k().gpu_driver_ceiling(v("7.5")), nullptr);  // Turing: current drivers
  EXPECT_EQ(k().gpu_driver_ceiling(v("12.0")), nullptr);
}

// The cuDNN row for a bundled release: its own, else the nearest older one of the same major.
TEST(Compat, ACudnnReleaseIsDescribedByItsRowOrTheNearestOlder) {
  bool exact = true;
  const auto* r = k().cudnn_row_for(v("9.1.0.70"), 11, &exact);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cudnn.str(), "9.0");
  EXPECT_FALSE(exact);
  EXPECT_EQ(r->min_sm, 50);  // no Kepler in any cuDNN 9
  r = k().cudnn_row_for(v("9.17.1.4"), 12, &exact);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(exact);
  EXPECT_EQ(r->min_sm, 75);
  EXPECT_EQ(k().cudnn_row_for(v("9.13.0.50"), 12)->min_sm, 75);  // 9.11 dropped Maxwell, Pascal and Volta
  EXPECT_EQ(k().cudnn_row_for(v("9.10.2.21"), 12)->min_sm, 50);
  EXPECT_EQ(k().cudnn_row_for(v("8.5.0.96"), 11)->min_sm, 35);
  EXPECT_EQ(k().cudnn_row_for(v("9.1"), 10), nullptr);  // no cuDNN 9 for CUDA 10
  // The next documented release after one: what decides a release between two rows.
  ASSERT_NE(k().cudnn_after(v("8.7.0.84"), 11), nullptr);
  EXPECT_EQ(k().cudnn_after(v("8.7.0.84"), 11)->cudnn.str(), "8.9");
  EXPECT_EQ(k().cudnn_after(v("9.1.0.70"), 12)->cudnn.str(), "9.5");  // 9.4 has only a CUDA 11 row
  EXPECT_EQ(k().cudnn_after(v("9.17.1.4"), 13)->cudnn.str(), "9.19");
  EXPECT_EQ(k().cudnn_after(v("9.19.0.56"), 13), nullptr);  // the newest row
}

// A cuDNN between two documented releases is unverified only where the next one lacks the GPU:
// Pascal with cuDNN 9.1 (9.0 and 9.5 both have it) is documented; a K80 with 8.7 (8.9 lacks it) is not.
TEST(PlanPytorch, ACudnnBetweenTwoReleasesThatBothHaveTheGpuIsDocumented) {
  PlanInputs in = machine("linux", "6.1", "535.104.05", "3.11", "pytorch");
  in.framework_version = "2.5";
  const plan::Plan p = plan::make_plan(k(), in);
  ASSERT_TRUE(p.recommended) << p.notes.size();
  EXPECT_EQ(p.recommended->cudnn, "9.1.0.70");
  for (const auto& n : p.recommended->notes) EXPECT_FALSE(has(n, "unverified")) << n;
  PlanInputs kepler = machine("linux", "3.7", "470.82.01", "3.9", "pytorch");
  kepler.framework_version = "2.3";
  const plan::Plan q = plan::make_plan(k(), kepler);
  ASSERT_TRUE(q.recommended);
  EXPECT_TRUE(std::any_of(q.recommended->notes.begin(), q.recommended->notes.end(),
                          [](const std::string& n) { return has(n, "unverified"); }));
}

TEST(Compat, AGpuNameStandsForEveryBoardWithItsWordsExactFamilyFirst) {
  // "A100": the A100 boards (whole words), never RTX A1000 (cc 8.6), which only contains "a100".
  std::vector<const GpuRow*> rows;
  const auto cc = k().gpu_cc("A100", &rows);
  ASSERT_TRUE(cc) << rows.size();
  EXPECT_EQ(*cc, v("8.0"));
  EXPECT_GE(rows.size(), 4u);
  for (const auto* r : rows) EXPECT_FALSE(has(r->name, "A1000")) << r->name;
  EXPECT_EQ(k().gpu_cc("a100 80gb", &rows).value_or(Version{}), v("8.0"));
  EXPECT_GE(rows.size(), 2u);
  for (const auto* r : rows) EXPECT_TRUE(has(r->name, "80GB")) << r->name;
  // The exact name wins over longer names holding it: "RTX 4090" is not also the 4090 D.
  ASSERT_EQ(k().gpus_matching("RTX 4090").size(), 1u);
  // Words that mean boards of different capabilities: no answer, but the candidates.
  EXPECT_FALSE(k().gpu_cc("Tesla", &rows));
  EXPECT_GE(rows.size(), 2u);
  EXPECT_TRUE(k().gpus_matching("GeForce GTX 1651").empty());
}

TEST(Compat, ADriverWithTwoNumbersIsTheReleaseTheTablesKnow) {
  EXPECT_EQ(k().driver_release(v("450.80")).str(), "450.80.02");  // CUDA 11.x's compatibility floor
  EXPECT_EQ(k().driver_release(v("525.60")).str(), "525.60.13");
  EXPECT_EQ(k().driver_release(v("546.33")).str(), "546.33");      // a Windows driver has two numbers
  EXPECT_EQ(k().driver_release(v("450.80.02")).str(), "450.80.02");
  EXPECT_EQ(k().driver_release(v("999.1")).str(), "999.1");        // unknown: as typed
}

TEST(Compat, GpuByNameIgnoresCaseSpacesAndBrandWords) {
  for (const char* n : {"GeForce GTX 1650", "NVIDIA GeForce GTX 1650", "gtx 1650", "  GTX   1650 "}) {
    const GpuRow* g = k().gpu_by_name(n);
    ASSERT_NE(g, nullptr) << n;
    EXPECT_EQ(g->cc, v("7.5"));
    EXPECT_EQ(g->architecture, "Turing");
  }
  EXPECT_EQ(k().gpu_by_name("GTX 1650 SUPER")->name, "NVIDIA GeForce GTX 1650 SUPER");
  EXPECT_EQ(k().gpu_by_name("Tesla K80")->cc, v("3.7"));
  EXPECT_EQ(k().gpu_by_name("H200")->cc, v("9.0"));
  EXPECT_EQ(k().gpu_by_name("GeForce GTX 1651"), nullptr);
  EXPECT_EQ(k().gpu_by_name(""), nullptr);
  // Glued and dashed spellings are the same words.
  EXPECT_EQ(k().gpu_by_name("GTX1650")->name, "NVIDIA GeForce GTX 1650");
  EXPECT_EQ(k().gpu_by_name("rtx 4090")->name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(k().gpu_by_name("RTX4090")->name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(k().gpu_by_name("tesla v100-sxm2-16gb")->cc, v("7.0"));
  const auto like = k().gpu_names_like("1650", 20);
  EXPECT_GE(like.size(), 4u);
  for (const auto& n : like) EXPECT_TRUE(has(n, "1650")) << n;
}

TEST(Compat, GpuByPciIdAndArchitecture) {
  const GpuRow* g = k().gpu_by_pci_id(0x2335);  // the H200 machine's device id (its snapshot)
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "NVIDIA H200");
  EXPECT_EQ(k().gpu_by_pci_id(0xffff), nullptr);
  EXPECT_EQ(k().architecture_of(v("12.0")), "Blackwell");
  EXPECT_EQ(k().architecture_of(v("3.7")), "Kepler");
  EXPECT_EQ(sm_of(v("12.1")), 121);
  EXPECT_EQ(cc_of_sm(86), "8.6");
}

TEST(Compat, ArchitecturesPerCuda) {
  EXPECT_EQ(k().arch_row(v("12.0"))->min_sm, 50);       // Kepler gone in 12.0
  EXPECT_EQ(k().arch_row(v("13.0"))->min_sm, 75);       // Maxwell-Volta gone in 13.0
  EXPECT_EQ(k().newest_arch_row(12)->cuda, v("12.9"));
  EXPECT_TRUE(k().arch_row(v("12.8"))->sm.count(120));
  EXPECT_FALSE(k().arch_row(v("12.6"))->sm.count(120));
  ASSERT_NE(k().library("cudart", 11), nullptr);
  EXPECT_EQ(k().library("cudart", 11)->windows_dlls.front(), "cudart64_110.dll");  // the walkthrough's DLL
}

TEST(Compat, BadTablesAreAnErrorWithTheLine) {
  const fs::path dir = temp_dir("bad_tables");
  for (const char* name : kTableNames)
    fs::copy_file(fs::path(GPUREADY_SOURCE_DIR) / "data" / (std::string(name) + ".csv"), dir / (std::string(name) + ".csv"));
  {
    std::ofstream f(dir / "pytorch.csv", std::ios::app);
    f << "2.99.0,cu999,13.x,,3.10,3.14,,,,,https://x,,,linux,,a source\n";
  }
  std::string err;
  auto kn = Knowledge::load_dir(real_os().fs, dir.string(), &err);
  ASSERT_TRUE(kn) << err;  // the CSV itself is fine
  EXPECT_FALSE(Compat::from(*kn, &err));
  EXPECT_TRUE(has(err, "pytorch.csv line")) << err;
  EXPECT_TRUE(has(err, "13.x")) << err;
  fs::remove_all(dir);
}

// ---- Inputs from probed machines -----------------------------------------------------------

TEST(PlanInputs, FromTheH200Snapshot) {
  std::vector<std::string> notes;
  const PlanInputs in = plan::inputs_from_snapshot(k(), test::fixture_snapshot("h200.json"), "snapshot", std::nullopt, &notes);
  EXPECT_EQ(in.os, "linux");
  EXPECT_EQ(in.gpu, "NVIDIA H200");
  EXPECT_EQ(in.cc, v("9.0"));
  EXPECT_EQ(in.driver->str(), "580.159.04");
  EXPECT_EQ(in.python, v("3.12"));        // the venv with torch, not /usr/bin/python3
  EXPECT_EQ(in.framework, "pytorch");     // torch, jax and cupy are installed; PyTorch first
  EXPECT_EQ(in.source.at("driver"), "snapshot");
  EXPECT_FALSE(in.no_nvidia_gpu);
  for (const auto& n : notes) EXPECT_EQ(n.find("newer than every"), std::string::npos) << n;
  // A framework release newer than the tables is said to be so (torch 2.11 is in them).
  Snapshot newer = test::fixture_snapshot("h200.json");
  for (auto& p : newer.python.front().packages)
    if (p.name == "torch") p.version = "2.16.0+cu132";
  std::vector<std::string> newer_notes;
  plan::inputs_from_snapshot(k(), newer, "snapshot", std::nullopt, &newer_notes);
  bool said = false;
  for (const auto& n : newer_notes) said = said || n.rfind("torch 2.16.0+cu132 in /opt/torch/.venv/bin/python3 is newer than every pytorch release", 0) == 0;
  std::string all_notes;
  for (const auto& n : newer_notes) all_notes += n + " | ";
  EXPECT_TRUE(said) << all_notes;
  // Asked for JAX, the same environment is used (it has jax too).
  const PlanInputs j = plan::inputs_from_snapshot(k(), test::fixture_snapshot("h200.json"), "snapshot", "jax", nullptr);
  EXPECT_EQ(j.python, v("3.12"));
  EXPECT_FALSE(j.framework);  // the caller's flag sets it
}

TEST(PlanInputs, TheH200PlanIsTheCuda13WheelItsDriverRunsFully) {
  PlanInputs in = plan::inputs_from_snapshot(k(), test::fixture_snapshot("h200.json"), "snapshot", std::nullopt, nullptr);
  const plan::Plan p = plan::make_plan(k(), in);
  ASSERT_TRUE(p.ok);
  // 580.159.04 >= 13.0's own floor 580.65.06, below 13.2's 595.45.04: the cu130 build is fully supported.
  EXPECT_EQ(p.recommended->variant, "cu130");
  EXPECT_EQ(p.recommended->support, "full");
  EXPECT_EQ(p.recommended->python, "3.12");
}

TEST(PlanInputs, NoNvidiaGpuMeansNoPlan) {
  const PlanInputs in = plan::inputs_from_snapshot(k(), test::fixture_snapshot("nogpu-debian12.json"), "probe", std::nullopt, nullptr);
  EXPECT_TRUE(in.no_nvidia_gpu);
  EXPECT_FALSE(in.cc);
  PlanInputs with = in;
  with.framework = "pytorch";
  const plan::Plan p = plan::make_plan(k(), with);
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(p.recommended);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_TRUE(has(p.notes.back(), "no NVIDIA GPU")) << p.notes.back();
}

TEST(PlanInputs, GpuOnTheBusWithoutDriverIsFoundByPciId) {
  Snapshot s = test::fixture_snapshot("nogpu-debian12.json");
  PciGpu g;
  g.address = "0000:01:00.0";
  g.vendor = "nvidia";
  g.vendor_id = 0x10de;
  g.device_id = 0x1f91;  // a GTX 1650 (Max-Q) id in gpus.csv
  s.pci_gpus.push_back(g);
  std::vector<std::string> notes;
  const PlanInputs in = plan::inputs_from_snapshot(k(), s, "probe", std::nullopt, &notes);
  EXPECT_FALSE(in.no_nvidia_gpu);
  EXPECT_EQ(in.cc, v("7.5"));
  ASSERT_TRUE(in.gpu);
  EXPECT_TRUE(has(*in.gpu, "GTX 1650")) << *in.gpu;
  EXPECT_FALSE(in.driver);
}

TEST(PlanInputs, Wsl1IsPlannedWithWsl2RulesAndSaysSo) {
  Snapshot s = test::fixture_snapshot("nogpu-debian12.json");
  s.os.wsl = std::string("wsl1");
  std::vector<std::string> notes;
  const PlanInputs in = plan::inputs_from_snapshot(k(), s, "probe", std::nullopt, &notes);
  EXPECT_EQ(in.os, "wsl2");
  bool said = false;
  for (const auto& n : notes) said = said || has(n, "wsl --set-version");
  EXPECT_TRUE(said);
}

// ---- Install steps ------------------------------------------------------------------------

TEST(PlanSteps, WalkthroughCopiesCudnnIntoCudaFoldersAndFindsTheDll) {
  const plan::Plan p = plan::make_plan(k(), machine("windows", "7.5", "546.33", "3.8", "tensorflow"));
  ASSERT_TRUE(p.ok);
  const std::string s = all_commands(p.steps);
  const std::string root = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2";
  EXPECT_TRUE(has(s, "copy \"cuda\\bin\\cudnn*.dll\" \"" + root + "\\bin\"")) << s;
  EXPECT_TRUE(has(s, "copy \"cuda\\include\\cudnn*.h\" \"" + root + "\\include\"")) << s;
  EXPECT_TRUE(has(s, "copy \"cuda\\lib\\x64\\cudnn*.lib\" \"" + root + "\\lib\\x64\"")) << s;
  EXPECT_TRUE(has(s, "where cudart64_110.dll")) << s;
  EXPECT_TRUE(has(s, "os.add_dll_directory(r\"" + root + "\\bin\")")) << s;  // Python 3.8
  EXPECT_TRUE(has(s, "CUDA Toolkit 11.2.0")) << s;
  EXPECT_TRUE(has(s, "python -m pip install \"tensorflow==2.10.1\" \"numpy<2\"")) << s;
  EXPECT_TRUE(has(s, "py -3.8 -m venv")) << s;
  EXPECT_TRUE(has(s, "Driver 546.33: new enough")) << s;
  EXPECT_TRUE(has(s, "vc_redist")) << s;
}

TEST(PlanSteps, PythonBelow38GetsNoAddDllDirectoryLine) {
  PlanInputs in = machine("windows", "7.5", "546.33", "3.7", "tensorflow");
  in.framework_version = "2.1";
  const plan::Plan p = plan::make_plan(k(), in);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.recommended->cuda, "10.1");
  const std::string s = all_commands(p.steps);
  EXPECT_FALSE(has(s, "add_dll_directory")) << s;
  EXPECT_TRUE(has(s, "where cudart64_101.dll")) << s;  // CUDA 10.1's own DLL name
}

TEST(PlanSteps, LinuxToolkitRouteWithNewCudnnArchiveLayout) {
  // TF 2.13 on Linux needs CUDA 11.8 and cuDNN 8.6 installed; cuDNN >= 8.3 archives unpack
  // to cudnn-linux-x86_64-<v>_cuda11-archive/{include,lib}.
  PlanInputs in = machine("linux", "8.6", "535.54.03", "3.11", "tensorflow");
  in.framework_version = "2.13";
  const plan::Plan p = plan::make_plan(k(), in);
  ASSERT_TRUE(p.ok);
  ASSERT_FALSE(p.recommended->bundles_cuda);
  const std::string s = all_commands(p.steps);
  EXPECT_TRUE(has(s, "sudo sh cuda_11.8.0_*_linux.run --silent --toolkit")) << s;
  EXPECT_TRUE(has(s, "sudo cp cudnn-linux-x86_64-8.6.*_cuda11-archive/include/cudnn*.h /usr/local/cuda-11.8/include/")) << s;
  EXPECT_TRUE(has(s, "sudo cp -P cudnn-linux-x86_64-8.6.*_cuda11-archive/lib/libcudnn* /usr/local/cuda-11.8/lib64/")) << s;
  EXPECT_TRUE(has(s, "export LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64")) << s;
  EXPECT_TRUE(has(s, "export PATH=/usr/local/cuda-11.8/bin")) << s;
  EXPECT_FALSE(has(s, "add_dll_directory")) << s;
}

TEST(PlanSteps, WheelRoutesInstallNoToolkit) {
  const plan::Plan t = plan::make_plan(k(), machine("linux", "8.9", "550.54.14", "3.12", "pytorch"));
  ASSERT_TRUE(t.ok);
  const std::string s = all_commands(t.steps);
  EXPECT_TRUE(has(s, "--index-url https://download.pytorch.org/whl/" + t.recommended->variant)) << s;
  EXPECT_TRUE(has(s, "torch==" + t.recommended->framework_version)) << s;
  EXPECT_FALSE(has(s, "CUDA Toolkit")) << s;
  EXPECT_FALSE(has(s, "cudnn-archive")) << s;

  const plan::Plan tf = plan::make_plan(k(), machine("linux", "8.9", "550.54.14", "3.12", "tensorflow"));
  ASSERT_TRUE(tf.ok);
  EXPECT_TRUE(has(all_commands(tf.steps), "\"tensorflow[and-cuda]==" + tf.recommended->framework_version + "\""));

  PlanInputs old = machine("linux", "8.0", "575.51.03", "3.9", "jax");  // runs pip's newest CUDA 12 (12.9) fully
  old.framework_version = "0.4.20";
  const plan::Plan j = plan::make_plan(k(), old);
  ASSERT_TRUE(j.ok);
  const std::string js = all_commands(j.steps);
  EXPECT_TRUE(has(js, "\"jax[cuda12_pip]==0.4.20\" -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"))
      << js;
  EXPECT_TRUE(has(js, "unset LD_LIBRARY_PATH")) << js;
}

TEST(PlanSteps, EveryStepSaysItsKindAndOneInstallsTheFramework) {
  // Doctor's reinstall fix takes the install-framework step by its kind: a plan for each
  // framework and OS has exactly one, naming the stack's package, its pip line run by "python ".
  for (const char* os : {"linux", "windows", "wsl2"})
    for (const char* fw : {"pytorch", "tensorflow", "jax"}) {
      const plan::Plan p = plan::make_plan(k(), machine(os, "8.6", os == std::string("wsl2") ? nullptr : "551.86",
                                                        "3.10", fw));
      if (!p.ok) continue;
      int installs = 0;
      std::set<std::string> kinds;
      for (const auto& st : p.steps) {
        kinds.insert(plan::step_kind_name(st.kind));
        if (st.kind != plan::StepKind::install_framework) continue;
        ++installs;
        EXPECT_EQ(st.package, p.recommended->package) << os << " " << fw;
        ASSERT_FALSE(st.commands.empty());
        EXPECT_EQ(st.commands.front().rfind("python -m pip install ", 0), 0u) << st.commands.front();
      }
      EXPECT_EQ(installs, 1) << os << " " << fw;
      EXPECT_TRUE(kinds.count("python") && kinds.count("driver") && kinds.count("check")) << os << " " << fw;
      const auto j = plan::plan_to_json(p);
      for (const auto& st : j.at("steps")) EXPECT_TRUE(st.contains("kind")) << st.dump();
    }
}

TEST(PlanSteps, Wsl2InstallsTheDriverOnWindowsAndTheToolkitFromTheWslRepository) {
  PlanInputs in = machine("wsl2", "8.6", nullptr, "3.10", "tensorflow");
  in.framework_version = "2.11";
  const plan::Plan p = plan::make_plan(k(), in);
  ASSERT_TRUE(p.ok);
  const std::string s = all_commands(p.steps);
  EXPECT_TRUE(has(s, "on Windows, not inside WSL2")) << s;
  EXPECT_TRUE(has(s, "never install a Linux NVIDIA driver inside WSL2")) << s;
  EXPECT_TRUE(has(s, "repos/wsl-ubuntu/x86_64/cuda-keyring")) << s;
  EXPECT_TRUE(has(s, "sudo apt-get install -y cuda-toolkit-11-2")) << s;
  // The Windows floors: WSL2 runs the Windows driver; cc 8.6's first (CUDA 11.1's) is above CUDA 11's 452.39.
  EXPECT_TRUE(has(s, "NVIDIA driver >= 456.38")) << s;
}

TEST(PlanSteps, TooOldDriverGetsAnUpgradeStep) {
  PlanInputs in = machine("linux", "8.6", "520.61.05", "3.11", "pytorch");
  in.cuda = v("12.1");  // forces a CUDA 12 build the driver cannot run
  const plan::Plan p = plan::make_plan(k(), in);
  EXPECT_FALSE(p.ok);
  ASSERT_FALSE(p.changes.empty());
  EXPECT_EQ(p.changes.front().changes.front(), "upgrade the driver to >= 525.60.13");
  ASSERT_TRUE(p.changes.front().gives);
  EXPECT_EQ(p.changes.front().gives->cuda, "12.1");
  // And the driver step of that stack says what to install.
  const auto steps = plan::install_steps(k(), in, *p.changes.front().gives);
  EXPECT_TRUE(has(all_commands(steps), "NVIDIA driver >= 525.60.13 (yours is 520.61.05)"));
}

// ---- gpuready plan, end to end --------------------------------------------------------------

TEST(PlanCli, WalkthroughJsonContract) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "windows", "--gpu", "GeForce GTX 1650", "--driver",
                                     "546.33", "--python", "3.8", "--framework", "tensorflow"});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "gpuready.plan/1");
  EXPECT_EQ(j.at("ok"), true);
  EXPECT_EQ(j.at("inputs").at("os"), "windows");
  EXPECT_EQ(j.at("inputs").at("gpu"), "NVIDIA GeForce GTX 1650");
  EXPECT_EQ(j.at("inputs").at("cc"), "7.5");
  EXPECT_EQ(j.at("inputs").at("driver"), "546.33");
  EXPECT_EQ(j.at("inputs").at("python"), "3.8");
  EXPECT_EQ(j.at("inputs").at("source").at("driver"), "flag");
  const auto& rec = j.at("recommended");
  EXPECT_EQ(rec.at("framework_version"), "2.10.1");
  EXPECT_EQ(rec.at("package"), "tensorflow");
  EXPECT_EQ(rec.at("cuda"), "11.2");
  EXPECT_EQ(rec.at("cudnn"), "8.1");
  EXPECT_EQ(rec.at("min_driver"), "452.39");
  EXPECT_EQ(rec.at("os"), "windows");
  ASSERT_FALSE(j.at("excluded").empty());
  EXPECT_EQ(j.at("excluded")[0].at("what"), "tensorflow 2.11.0+");
  EXPECT_FALSE(j.at("steps").empty());
}

// The audit's scenario 7 (shared/reference/knowledge-audit.md): a name as people type it and a
// driver with two numbers. "A100" is the A100 boards (cc 8.0), not "RTX A1000" (8.6); 450.80 is
// the 450.80.02 release, exactly CUDA 11.x's minor-version-compatibility floor, so Python 3.8
// gets torch 2.4.1+cu118 (the last release for 3.8) instead of "nothing fits".
TEST(PlanCli, AuditScenarioSevenA100WithATwoPartDriver) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "A100", "--driver", "450.80", "--python",
                                     "3.8", "--framework", "pytorch"});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("inputs").at("cc"), "8.0");
  EXPECT_EQ(j.at("inputs").at("driver"), "450.80.02");
  EXPECT_EQ(j.at("recommended").at("framework_version"), "2.4.1");
  EXPECT_EQ(j.at("recommended").at("cuda"), "11.8");
}

// The audit's extra probes (knowledge-audit.md section 13), each wrong on the tables before.
TEST(PlanCli, AuditProbesKeplerJaxVoltaCu128AndTensorflow20) {
  // jaxlib has no Kepler kernels from 0.4.4 on: a K80 must not be sent to 0.4.12.
  const ProcResult k80 = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01",
                                       "--python", "3.9", "--framework", "jax"});
  ASSERT_TRUE(k80.started) << k80.error;
  const auto jk = nlohmann::json::parse(k80.out);
  ASSERT_TRUE(jk.at("recommended").is_object()) << k80.out;
  EXPECT_EQ(jk.at("recommended").at("framework_version"), "0.4.3") << k80.out;  // the last jaxlib with Kepler kernels
  // Without a driver the local-cuDNN 8.6 variant leads; 8.6 lies between 8.5 (Kepler) and 8.9 (no Kepler) in the
  // tables, so it says so, and the cuDNN 8.2 variant (documented for Kepler) stands beside it.
  const ProcResult k80_any = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "Tesla K80", "--python", "3.9",
                                           "--framework", "jax"});
  const auto ja = nlohmann::json::parse(k80_any.out);
  ASSERT_TRUE(ja.at("recommended").is_object()) << k80_any.out;
  EXPECT_EQ(ja.at("recommended").at("framework_version"), "0.4.3") << k80_any.out;
  if (ja.at("recommended").at("variant") == "cuda11_cudnn86")
    EXPECT_TRUE(has(ja.at("recommended").at("notes").dump(), "unverified")) << k80_any.out;
  // torch 2.11 cu128 ships no sm_70: a V100 pinned to CUDA 12.8 gets an older release.
  const ProcResult v100 = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "Tesla V100-SXM2-16GB", "--driver",
                                        "570.86.15", "--python", "3.11", "--cuda", "12.8", "--framework", "pytorch"});
  const auto jv = nlohmann::json::parse(v100.out);
  ASSERT_TRUE(jv.at("recommended").is_object()) << v100.out;
  EXPECT_NE(jv.at("recommended").at("framework_version"), "2.11.0") << v100.out;
  // TensorFlow 2.0's GPU build on Linux is the tensorflow-gpu package (plain tensorflow is CPU-only before 2.1).
  const ProcResult tf20 = run_gpuready({"plan", "--json", "--os", "linux", "--cc", "7.5", "--driver", "450.80.02",
                                        "--python", "3.7", "--framework", "tensorflow", "--framework-version", "2.0"});
  const auto jt = nlohmann::json::parse(tf20.out);
  ASSERT_TRUE(jt.at("recommended").is_object()) << tf20.out;
  EXPECT_EQ(jt.at("recommended").at("package"), "tensorflow-gpu") << tf20.out;
}

// Audit scenario 3: a Tesla K80 (cc 3.7) with driver 470.82 and Python 3.9. torch 2.4-2.7 cu118
// bundle cuDNN 9.1 (cc >= 5.0): out, for their cuDNN. 2.3.1 cu118 bundles 8.7, between 8.5 (cc >=
// 3.5) and 8.9 (cc >= 5.0) in the tables: recommended with that said, and 2.0.1 cu117 (cuDNN
// 8.5, documented for Kepler) offered beside it.
TEST(PlanCli, AuditScenarioThreeKeplerAndTheCudnnItsWheelsBundle) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01",
                                     "--python", "3.9", "--framework", "pytorch"});
  ASSERT_TRUE(r.started) << r.error;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.at("recommended").is_object()) << r.out;
  const auto rec = Version::parse(j.at("recommended").at("framework_version").get<std::string>());
  ASSERT_TRUE(rec);
  EXPECT_LT(*rec, *Version::parse("2.4")) << r.out;  // never a cuDNN 9 wheel
  EXPECT_TRUE(has(j.at("recommended").at("notes").dump(), "unverified")) << r.out;
  bool documented = false;
  for (const auto& a : j.at("alternatives"))
    if (a.at("framework_version") == "2.0.1" && a.at("variant") == "cu117") documented = true;
  EXPECT_TRUE(documented) << r.out;
  bool cudnn_named = false;
  for (const auto& e : j.at("excluded"))
    if (has(e.at("what").get<std::string>(), "cu118") && has(e.at("why").get<std::string>(), "cuDNN 9.1"))
      cudnn_named = true;
  EXPECT_TRUE(cudnn_named) << r.out;
}

// A GPU's driver branches bound the advice: a Kepler GPU is never told to take a CUDA 12 driver
// (R470 is its last), a Pascal GPU on a 590 driver is told to go back to R580, and an RTX 5090 on
// a driver before R570 is told its own floor (not CUDA 12's 525.60.13) for the cu128 wheels.
TEST(PlanCli, DriverAdviceStaysWithinTheBranchesTheGpuTakes) {
  const ProcResult k80 = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01",
                                       "--python", "3.11", "--cuda", "12", "--framework", "pytorch"});
  const auto jk = nlohmann::json::parse(k80.out);
  EXPECT_FALSE(jk.at("ok").get<bool>()) << k80.out;
  EXPECT_FALSE(has(jk.at("changes").dump(), "upgrade the driver")) << k80.out;
  const ProcResult pascal = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "GTX 1080", "--driver", "590.44.01",
                                          "--python", "3.12", "--framework", "pytorch"});
  const auto jp = nlohmann::json::parse(pascal.out);
  EXPECT_FALSE(jp.at("ok").get<bool>()) << pascal.out;
  EXPECT_TRUE(has(jp.at("changes").dump(), "R580")) << pascal.out;
  EXPECT_TRUE(has(jp.at("excluded").dump(), "no longer supports Pascal")) << pascal.out;
  const ProcResult blackwell = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "RTX 5090", "--driver",
                                             "560.35.03", "--python", "3.12", "--framework", "pytorch"});
  const auto jb = nlohmann::json::parse(blackwell.out);
  EXPECT_FALSE(jb.at("ok").get<bool>()) << blackwell.out;
  EXPECT_TRUE(has(jb.at("excluded").dump(), "its first driver branch is R570")) << blackwell.out;
  EXPECT_TRUE(has(jb.at("changes").dump(), "upgrade the driver")) << blackwell.out;
}

// jax[cuda12] lets pip take the newest cuDNN 9, which from 9.11 has no Pascal kernels: the plan
// says to pin it below 9.11 for a GTX 1080.
TEST(PlanCli, JaxOnPascalPinsTheCudnnPipWouldTake) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "GTX 1080", "--driver", "535.104.05",
                                     "--python", "3.11", "--framework", "jax"});
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.at("recommended").is_object()) << r.out;
  EXPECT_TRUE(has(j.at("recommended").at("notes").dump(), "nvidia-cudnn-cu12<9.11")) << r.out;
}

// Audit scenario 2, its exact inputs: Linux, RTX 5090 (sm_120), driver 570.86, Python 3.12, PyTorch.
// torch 2.11.0+cu128, full, with the RTX 50's own floor (R570: CUDA 12.8's 570.26, not 12.x's 525.60.13);
// no Python 3.15 anywhere; the upgrade line names what the plan would pick at that driver (cu130 runs
// fully on 580.65.06, cu132 only through minor-version compatibility).
TEST(PlanCli, AuditScenarioTwoRtx5090OnLinux570) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "RTX 5090", "--driver", "570.86",
                                     "--python", "3.12", "--framework", "pytorch"});
  ASSERT_TRUE(r.started) << r.error;
  const auto j = nlohmann::json::parse(r.out);
  const auto& rec = j.at("recommended");
  ASSERT_TRUE(rec.is_object()) << r.out;
  EXPECT_EQ(rec.at("framework_version"), "2.11.0") << r.out;
  EXPECT_EQ(rec.at("variant"), "cu128") << r.out;
  EXPECT_EQ(rec.at("min_driver"), "570.26") << r.out;
  EXPECT_EQ(rec.at("support"), "full") << r.out;
  EXPECT_FALSE(has(r.out, "3.15")) << r.out;
  ASSERT_FALSE(j.at("changes").empty()) << r.out;
  const auto& up = j.at("changes")[0];
  EXPECT_EQ(up.at("changes")[0], "upgrade the driver to >= 580.65.06") << r.out;
  EXPECT_EQ(up.at("gives").at("variant"), "cu130") << r.out;
  EXPECT_EQ(up.at("gives").at("support"), "full") << r.out;
}

// Audit scenario 5: WSL2, RTX 3060, Windows driver 552.22, Python 3.10, TensorFlow. tensorflow[and-cuda]
// 2.21.0 (CUDA 12.5, cuDNN 9.3) through minor-version compatibility, judged by the Windows floors.
TEST(PlanCli, AuditScenarioFiveWsl2Rtx3060Tensorflow) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "wsl2", "--gpu", "RTX 3060", "--driver", "552.22",
                                     "--python", "3.10", "--framework", "tensorflow"});
  const auto j = nlohmann::json::parse(r.out);
  const auto& rec = j.at("recommended");
  ASSERT_TRUE(rec.is_object()) << r.out;
  EXPECT_EQ(rec.at("framework_version"), "2.21.0") << r.out;
  EXPECT_EQ(rec.at("package"), "tensorflow") << r.out;
  EXPECT_EQ(rec.at("cuda"), "12.5") << r.out;
  EXPECT_EQ(rec.at("cudnn"), "9.3") << r.out;
  EXPECT_EQ(rec.at("min_driver"), "527.41") << r.out;  // CUDA 12's Windows minor-version floor, not Linux's 525.60.13
  EXPECT_EQ(rec.at("support"), "minor-version compatibility") << r.out;
  EXPECT_TRUE(has(r.out, "tensorflow[and-cuda]==2.21.0")) << r.out;
}

// Audit scenario 6: native Windows, RTX 4090, driver 560.94, Python 3.12, TensorFlow. Nothing fits (no GPU
// build after 2.10, whose Windows wheels stop at Python 3.10); the two ways out, with their versions.
TEST(PlanCli, AuditScenarioSixWindowsPython312Tensorflow) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "windows", "--gpu", "RTX 4090", "--driver", "560.94",
                                     "--python", "3.12", "--framework", "tensorflow"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("ok"), false);
  EXPECT_TRUE(j.at("recommended").is_null());
  std::map<std::string, std::string> gives;
  for (const auto& c : j.at("changes")) gives[c.at("changes")[0]] = c.at("gives").at("framework_version");
  EXPECT_EQ(gives["use WSL2"], "2.21.0") << r.out;
  EXPECT_EQ(gives["use Python 3.7-3.10"], "2.10.1") << r.out;
}

// Audit scenario 4: H100, driver 535.104, Python 3.11, JAX. jax[cuda12]==0.10.2 is right (0.11.0
// needs Python 3.12, cuda13 a 580 driver), but pip installs the newest CUDA 12 wheels (12.9), which
// a 535 driver runs through minor-version compatibility, not "full".
TEST(PlanCli, AuditScenarioFourJaxOnH100IsMinorVersionCompatibility) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "H100", "--driver", "535.104.05",
                                     "--python", "3.11", "--framework", "jax"});
  ASSERT_TRUE(r.started) << r.error;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.at("recommended").is_object()) << r.out;
  EXPECT_EQ(j.at("recommended").at("framework_version"), "0.10.2") << r.out;
  EXPECT_EQ(j.at("recommended").at("variant"), "cuda12") << r.out;
  EXPECT_EQ(j.at("recommended").at("support"), "minor-version compatibility") << r.out;
}

// The plan says how fresh its tables are (the newest dated source), and what is newer than them: a
// driver past the newest CUDA's, a framework version past the newest release.
TEST(PlanCli, TheTablesSayHowFreshTheyAreAndWhatIsNewer) {
  std::string newest_date;
  for (const auto& f : knowledge::Compat::embedded().freshness) newest_date = std::max(newest_date, f.date);
  ASSERT_FALSE(newest_date.empty());
  const ProcResult plain = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "RTX 4090", "--driver", "570.86.15",
                                         "--python", "3.12", "--framework", "pytorch"});
  const auto jp = nlohmann::json::parse(plain.out);
  EXPECT_TRUE(has(jp.at("notes").dump(), "newest dated source " + newest_date)) << plain.out;
  EXPECT_FALSE(has(jp.at("notes").dump(), "newer than every")) << plain.out;
  const ProcResult newer = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "RTX 4090", "--driver", "999.10",
                                         "--python", "3.12", "--framework", "pytorch", "--framework-version", "9.0"});
  const auto jn = nlohmann::json::parse(newer.out);
  EXPECT_TRUE(has(jn.at("notes").dump(), "driver 999.10 is newer than every driver")) << newer.out;
  EXPECT_TRUE(has(jn.at("notes").dump(), "pytorch 9.0 is newer than every release")) << newer.out;
  const ProcResult pin = run_gpuready({"plan", "--json", "--os", "linux", "--gpu", "RTX 4090", "--driver", "580.65.06",
                                       "--python", "3.12", "--framework", "pytorch", "--cuda", "13.9"});
  EXPECT_TRUE(has(nlohmann::json::parse(pin.out).at("notes").dump(), "CUDA 13.9 is newer than every CUDA")) << pin.out;
  // The machine's own toolkit: a probe (here the H200's snapshot) that finds a CUDA past the tables says so.
  Snapshot snap = test::fixture_snapshot("h200.json");
  const auto notes_for = [&](const Snapshot& s) {
    std::string all;
    for (const auto& n : plan::make_plan(k(), plan::inputs_from_snapshot(k(), s, "snapshot", "pytorch", nullptr)).notes)
      all += n + "\n";
    return all;
  };
  EXPECT_FALSE(has(notes_for(snap), "CUDA toolkit")) << notes_for(snap);  // 13.0: in the tables
  snap.toolkits.front().version = std::string("13.9.20");
  EXPECT_TRUE(has(notes_for(snap), "this machine's CUDA toolkit 13.9.20 is newer than every CUDA")) << notes_for(snap);
}

TEST(PlanCli, AnAmbiguousGpuNameIsAnsweredWithItsCandidates) {
  const ProcResult r = run_gpuready({"plan", "--os", "linux", "--gpu", "Tesla", "--framework", "pytorch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "different compute capabilities")) << r.err;
  EXPECT_TRUE(has(r.err, "Tesla K80 (compute capability 3.7)")) << r.err;
  EXPECT_TRUE(has(r.err, "Tesla V100-SXM2-16GB (compute capability 7.0)")) << r.err;
}

TEST(PlanCli, HumanOutputHasTheSections) {
  const ProcResult r = run_gpuready({"plan", "--os", "windows", "--gpu", "GeForce GTX 1650", "--driver", "546.33",
                                     "--python", "3.8", "--framework", "tensorflow"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"Recommended: tensorflow 2.10.1", "Alternatives", "Excluded", "Install", "1. Python 3.8"})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
}

TEST(PlanCli, NothingFitsExitsOne) {
  const ProcResult r = run_gpuready({"plan", "--json", "--os", "macos", "--cc", "8.6", "--framework", "pytorch"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("ok"), false);
  EXPECT_TRUE(j.at("recommended").is_null());
}

TEST(PlanCli, SnapshotIsReadAndFlagsOverrideIt) {
  const std::string snap = std::string(GPUREADY_FIXTURES) + "/snapshots/h200.json";
  const ProcResult r = run_gpuready({"plan", "--json", "--snapshot", snap, "--python", "3.11"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("inputs").at("driver"), "580.159.04");
  EXPECT_EQ(j.at("inputs").at("source").at("driver"), "snapshot");
  EXPECT_EQ(j.at("inputs").at("python"), "3.11");
  EXPECT_EQ(j.at("inputs").at("source").at("python"), "flag");
  EXPECT_EQ(j.at("inputs").at("framework"), "pytorch");
  // Another OS than the snapshot's: nothing is taken from it.
  const ProcResult w = run_gpuready({"plan", "--json", "--snapshot", snap, "--os", "windows", "--cc", "8.6"});
  const auto wj = nlohmann::json::parse(w.out);
  EXPECT_TRUE(wj.at("inputs").at("driver").is_null());
  EXPECT_TRUE(has(wj.at("notes")[0].get<std::string>(), "another machine"));
}

TEST(PlanCli, BadInputIsAClearUsageError) {
  const std::string garbage = (temp_dir("garbage") / "snap.json").string();
  std::ofstream(garbage) << "{\"schema\": \"something/else\"}";
  const fs::path empty = temp_dir("empty_data");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"plan", "--no-probe", "--gpu", "GeForce GTX 1651"}, "not in gpuready's GPU table"},
      {{"plan", "--no-probe", "--gpu", "GTX 16"}, "NVIDIA GeForce GTX 1650"},  // names that match
      {{"plan", "--no-probe", "--cc", "seven"}, "compute capability"},
      {{"plan", "--no-probe", "--cc", "75"}, "compute capability"},
      {{"plan", "--no-probe", "--driver", "latest"}, "driver version"},
      {{"plan", "--no-probe", "--python", "2.7"}, "Python 3"},
      {{"plan", "--no-probe", "--cuda", "twelve"}, "CUDA version"},
      {{"plan", "--no-probe", "--framework-version", "newest"}, "version like"},
      {{"plan", "--no-probe", "--os", "beos"}, "--os"},
      {{"plan", "--no-probe", "--framework", "caffe"}, "--framework"},
      {{"plan", "--snapshot", "/nonexistent/snap.json"}, "cannot read /nonexistent/snap.json"},
      {{"plan", "--snapshot", garbage}, "is not a gpuready snapshot"},
      {{"plan", "--no-probe", "--data", "/nonexistent/data"}, "--data /nonexistent/data"},
      {{"plan", "--no-probe", "--data", empty.string()}, "cuda_driver.csv"},
      {{"plan", "--snapshot", garbage, "--no-probe"}, "excludes"},
  };
  for (const auto& [args, message] : cases) {
    const ProcResult r = run_gpuready(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, message)) << args.back() << ": " << r.err;
  }
  fs::remove_all(fs::path(garbage).parent_path());
  fs::remove_all(empty);
}

TEST(PlanCli, DataFolderReplacesTheCompiledInTables) {
  // A newer data folder: the same tables with one more TensorFlow release.
  const fs::path dir = temp_dir("newer_data");
  for (const char* name : kTableNames)
    fs::copy_file(fs::path(GPUREADY_SOURCE_DIR) / "data" / (std::string(name) + ".csv"), dir / (std::string(name) + ".csv"));
  {
    std::ofstream f(dir / "tensorflow.csv", std::ios::app);
    f << "2.99.0,linux,gpu,tensorflow,3.10,3.13,12.5,9.3,,yes,,,a future release,a test source\n";
  }
  const ProcResult r = run_gpuready({"plan", "--json", "--no-probe", "--data", dir.string(), "--os", "linux", "--cc",
                                     "8.6", "--driver", "560.35.03", "--python", "3.12", "--framework", "tensorflow"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("recommended").at("framework_version"), "2.99.0");
  fs::remove_all(dir);
}

// ---- The wheels' own architecture lists (issue 19, item 2) ----

TEST(PlanJax, ThePluginsOwnArchitectureListDecides) {
  // Jetson Thor (11.0): the CUDA 12 plugins ship sm_50 ... sm_100 (+ sm_101 from 0.10.2) and compute_120 PTX, none of
  // which runs on 11.0; the CUDA 13 plugin of 0.10.2 carries sm_110. Pinned to 0.10.1 + CUDA 12: excluded, and why.
  PlanInputs in = machine("linux", "11.0", "580.95.05", "3.12", "jax");
  in.framework_version = "0.10.1";
  in.cuda = v("12");
  const plan::Plan p = plan::make_plan(k(), in);
  EXPECT_FALSE(p.recommended);
  bool said = false;
  for (const auto& e : p.excluded)
    said = said || (e.what.find("0.10.1") != std::string::npos &&
                    e.why.find("ships kernels for sm_50 sm_60 sm_70 sm_80 sm_90 sm_100 sm_120 + PTX") != std::string::npos);
  EXPECT_TRUE(said);
  PlanInputs cuda13 = machine("linux", "11.0", "580.95.05", "3.12", "jax");
  cuda13.framework_version = "0.10.2";
  cuda13.cuda = v("13");
  const plan::Plan q = plan::make_plan(k(), cuda13);
  ASSERT_TRUE(q.recommended);
  EXPECT_EQ(q.recommended->framework_version, "0.10.2");
}

TEST(PlanTensorflow, TheWheelsOwnArchitectureListDecides) {
  // GTX 970 (5.2): TensorFlow 2.17 dropped Maxwell (its wheels: sm_60 sm_70 sm_80 sm_89 + compute_90) although
  // CUDA 12.3 still builds sm_50; 2.16 (sm_50 ... compute_90) is the newest with kernels for it.
  const plan::Plan p = plan::make_plan(k(), machine("linux", "5.2", "580.95.05", "3.11", "tensorflow"));
  ASSERT_TRUE(p.recommended) << p.notes.size();
  EXPECT_EQ(p.recommended->framework_version.rfind("2.16", 0), 0u) << p.recommended->framework_version;
  bool said = false;
  for (const auto& e : p.excluded)
    if (e.what.find("2.17") != std::string::npos || e.what.find("2.21") != std::string::npos)
      said = said || e.why.find("no kernels") != std::string::npos;
  EXPECT_TRUE(said);
  // RTX 5090 (12.0): no Blackwell SASS in any TensorFlow wheel; 2.21 runs it through compute_90 PTX, and says so.
  const plan::Plan b = plan::make_plan(k(), machine("linux", "12.0", "580.95.05", "3.12", "tensorflow"));
  ASSERT_TRUE(b.recommended);
  bool ptx = false;
  for (const auto& n : b.recommended->notes) ptx = ptx || n.find("PTX") != std::string::npos;
  EXPECT_TRUE(ptx);
}
