// The Windows probe over fixture trees of real Windows layouts (tests/fixtures/windows/, README
// there): the collectors run with the Windows layout and a registry read from the tree's
// registry.reg, then the doctor judges the snapshot. The same tests run on Linux and, in the
// MinGW build, under Wine, so the Windows code paths are checked on every change.
//   walkthrough   the walkthrough's laptop: CUDA 11.0 under Program Files, cuDNN 8.0.5 copied in whole,
//                 TensorFlow 2.4 in Python 3.8, CUDA bin on PATH
//   partial_copy  the same with cuDNN copied in part (cudnn64_8 and two of six sub-libraries)
//   cudnn89_zlib  CUDA 11.8 with cuDNN 8.9.7, whose zlibwapi.dll lies unzipped in C:\zlib\dll_x64
//   cudnn9_installer  CUDA 12.8 with cuDNN 9.19.1 from NVIDIA's installer: Program Files\NVIDIA\CUDNN\v9.19,
//                 one bin\<CUDA>\x64 and include\<CUDA> per CUDA variant (12.9 and 13.1), none on PATH
#include <gtest/gtest.h>

#include <algorithm>

#include "core/snapshot.h"
#include "doctor/doctor.h"
#include "knowledge/knowledge.h"
#include "probe/libraries_search.h"
#include "probe/os_detect.h"
#include "probe/probe.h"
#include "probe/toolkits_search.h"
#include "probe/windows_registry.h"
#include "support/test_os.h"
#include "verify/gpu_checks.h"

namespace gpuready {
namespace {

using probe_detail::Layout;

const std::string kCuda11 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0";
const std::string kCuda118 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8";
const std::string kPython38 = "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python38";

// The environment of the walkthrough's cmd.exe after the CUDA 11.0 installer ran; `path` replaces PATH.
std::map<std::string, std::string> laptop_env(const std::string& cuda, const std::string& path) {
  return {{"SystemRoot", "C:\\Windows"},
          {"ProgramFiles", "C:\\Program Files"},
          {"USERPROFILE", "C:\\Users\\me"},
          {"LOCALAPPDATA", "C:\\Users\\me\\AppData\\Local"},
          {"APPDATA", "C:\\Users\\me\\AppData\\Roaming"},
          {"PROCESSOR_ARCHITECTURE", "AMD64"},
          {"CUDA_PATH", cuda},
          {"CUDA_PATH_V" + std::string(cuda == kCuda11 ? "11_0" : "11_8"), cuda},
          {"Path", path}};
}

std::string laptop_path(const std::string& cuda, bool cuda_on_path, const std::string& more = "") {
  std::string p;
  if (cuda_on_path) p += cuda + "\\bin;" + cuda + "\\libnvvp;";
  p += "C:\\Windows\\system32;C:\\Windows;" + kPython38 + "\\Scripts\\;" + kPython38 + "\\;" +
       "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps";
  if (!more.empty()) p += ";" + more;
  return p;
}

// What `gpuready probe` collects on that machine, through the fixture's seams (no interpreter
// runs: versions come from the files), with the Windows layout whatever OS runs the test.
Snapshot probe_tree(const std::string& tree, std::map<std::string, std::string> env) {
  test::FixtureOs fx(tree, std::move(env));
  Snapshot s;
  HostInfo host;
  host.kernel_name = "Windows_NT";
  host.kernel_release = "10.0.22631";
  host.machine = "AMD64";
  host.logical_cpus = 12;
  detail::collect_os_as(fx.os(), detail::OsFamily::kWindows, &host, s.os);
  detail::collect_cpu_as(fx.os(), detail::OsFamily::kWindows, &host, s.cpu);
  std::string why;
  const auto adapters = windows::read_display_adapters(fx.reg, &why);
  s.pci_gpus = windows::read_pci_display_devices(fx.reg, &s.notes);
  s.nvidia.kernel_module_version = windows::nvidia_driver_version(adapters, why);
  collect_python(fx.os(), ProbeOptions{}, s.python);
  probe_detail::collect_toolkits_in(fx.os(), probe_detail::ToolkitSearch{Layout::windows}, s.toolkits);
  probe_detail::LibrarySearch ls;
  ls.layout = Layout::windows;
  probe_detail::collect_libraries_in(fx.os(), ls, s.toolkits, s.python, s.libraries);
  return s;
}

doctor::Report diagnose(const Snapshot& s) { return doctor::diagnose(s, knowledge::Compat::embedded()); }

std::vector<const doctor::Finding*> with_code(const doctor::Report& r, const std::string& code) {
  std::vector<const doctor::Finding*> out;
  for (const auto& f : r.findings)
    if (f.code == code) out.push_back(&f);
  return out;
}

std::string codes(const doctor::Report& r) {
  std::string out;
  for (const auto& f : r.findings) out += f.code + " ";
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

const LoaderResolution* resolution(const Snapshot& s, const std::string& name) {
  for (const auto& r : s.libraries.resolutions)
    if (r.soname == name) return &r;
  return nullptr;
}

const CudnnSet* cudnn_set(const Snapshot& s, const std::string& dir) {
  for (const auto& set : s.libraries.cudnn_sets)
    if (set.dir == dir) return &set;
  return nullptr;
}

TEST(WindowsLayout, TheWalkthroughLaptopIsProbedFromItsRegistryAndFolders) {
  const Snapshot s = probe_tree("windows/walkthrough", laptop_env(kCuda11, laptop_path(kCuda11, true)));
  // The edition and build from CurrentVersion: ProductName says "Windows 10 Home", build 22631 is Windows 11.
  EXPECT_EQ(s.os.family.value_or("?"), "windows");
  EXPECT_EQ(s.os.name.value_or("?"), "Windows 11 Home 23H2");
  EXPECT_EQ(s.os.version.value_or("?"), "10.0.22631.2861");
  EXPECT_EQ(s.os.arch.value_or("?"), "x86_64");
  EXPECT_TRUE(s.os.secure_boot.value_or(false));
  EXPECT_EQ(s.cpu.model.value_or("?"), "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz");
  EXPECT_EQ(s.cpu.vendor.value_or("?"), "GenuineIntel");
  EXPECT_EQ(s.cpu.threads.value_or(0), 12);
  // Both display controllers the PnP manager enumerated (not the GPU's audio function), with their
  // ids, bus addresses and kernel drivers; the NVIDIA driver's version from its class entry.
  ASSERT_EQ(s.pci_gpus.size(), 2u);
  EXPECT_EQ(s.pci_gpus[0].vendor, "intel");
  EXPECT_EQ(s.pci_gpus[0].address, "0000:00:02.0");
  EXPECT_EQ(s.pci_gpus[0].kernel_driver.value_or("?"), "igfx");
  EXPECT_EQ(s.pci_gpus[1].vendor, "nvidia");
  EXPECT_EQ(s.pci_gpus[1].address, "0000:01:00.0");
  EXPECT_EQ(s.pci_gpus[1].device_id, 0x1f91u);
  EXPECT_EQ(s.pci_gpus[1].subsystem_vendor_id, 0x1043u);
  EXPECT_EQ(s.pci_gpus[1].subsystem_device_id, 0x18efu);
  EXPECT_EQ(s.pci_gpus[1].kernel_driver.value_or("?"), "nvlddmkm");
  EXPECT_EQ(s.nvidia.kernel_module_version.value_or("?"), "546.33");

  // One toolkit, found five ways, one of them the installer's registry entry.
  ASSERT_EQ(s.toolkits.size(), 1u);
  const Toolkit& t = s.toolkits[0];
  EXPECT_EQ(t.root, kCuda11);
  EXPECT_EQ(t.version.value_or("?"), "11.0.228");
  for (const char* how : {"CUDA_PATH", "CUDA_PATH_V11_0", "registry"})
    EXPECT_NE(std::find(t.found_by.begin(), t.found_by.end(), how), t.found_by.end()) << how;

  // Python 3.8 from python38.dll, with TensorFlow 2.4 built for CUDA 11.0 and cuDNN 8.
  ASSERT_FALSE(s.python.empty());
  const PythonEnv* py = nullptr;
  for (const auto& e : s.python)
    if (e.interpreter == kPython38 + "\\python.exe") py = &e;
  ASSERT_NE(py, nullptr);
  EXPECT_EQ(py->version.value_or("?"), "3.8");
  // Found the way the `py` launcher finds it (PEP 514 registry entry), and in its install folder.
  EXPECT_NE(std::find(py->found_by.begin(), py->found_by.end(), "py launcher (HKCU\\Software\\Python\\PythonCore\\3.8)"),
            py->found_by.end());

  // cuDNN 8.0.5 copied in whole: one complete set in bin, its header beside it.
  const CudnnSet* set = cudnn_set(s, kCuda11 + "\\bin");
  ASSERT_NE(set, nullptr);
  EXPECT_TRUE(set->missing.empty());
  EXPECT_EQ(set->present.size(), 6u);
  EXPECT_EQ(set->version.value_or("?"), "8.0.5");
  EXPECT_EQ(set->header.value_or("?"), kCuda11 + "\\include\\cudnn_version.h");
  EXPECT_TRUE(set->needs.empty()) << "cuDNN 8.0 needs no zlibwapi.dll";

  // Every DLL TensorFlow 2.4 opens is found, through PATH (not System32); the driver's in System32.
  for (const char* dll : {"cudart64_110.dll", "cublas64_11.dll", "cufft64_10.dll", "cudnn64_8.dll"}) {
    const auto* r = resolution(s, dll);
    ASSERT_NE(r, nullptr) << dll;
    EXPECT_EQ(r->path.value_or("?"), kCuda11 + "\\bin\\" + dll);
    EXPECT_EQ(r->via, "PATH");
  }
  ASSERT_NE(resolution(s, "nvcuda.dll"), nullptr);
  EXPECT_EQ(resolution(s, "nvcuda.dll")->via, "System32");

  // The doctor: nothing missing; under Python 3.8 the PATH-only DLLs are worth knowing (info).
  const auto r = diagnose(s);
  for (const char* code : {"library.not-found", "library.not-installed", "cudnn.partial", "cudnn.header-only",
                           "library.dependency-missing"})
    for (const auto* f : with_code(r, code)) ADD_FAILURE() << code << ": " << f->title;
  const auto info = with_code(r, "library.path-only");
  ASSERT_EQ(info.size(), 1u) << codes(r);
  EXPECT_EQ(info[0]->severity, doctor::Severity::info);
  EXPECT_NE(info[0]->title.find("cudart64_110.dll"), std::string::npos) << info[0]->title;
  EXPECT_TRUE(has_line(info[0]->fix, "os.add_dll_directory(r\"" + kCuda11 + "\\bin\")"));
}

TEST(WindowsLayout, ACudnnCopiedInPartIsNamedWithTheFilesItLacks) {
  const Snapshot s = probe_tree("windows/partial_copy", laptop_env(kCuda11, laptop_path(kCuda11, true)));
  const CudnnSet* set = cudnn_set(s, kCuda11 + "\\bin");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->present.size(), 2u);
  EXPECT_EQ(set->missing,
            (std::vector<std::string>{"cudnn_ops_train", "cudnn_cnn_train", "cudnn_adv_infer", "cudnn_adv_train"}));
  const auto r = diagnose(s);
  const auto partial = with_code(r, "cudnn.partial");
  ASSERT_EQ(partial.size(), 1u) << codes(r);
  EXPECT_NE(partial[0]->title.find("cudnn_adv_train"), std::string::npos) << partial[0]->title;
  EXPECT_EQ(partial[0]->severity, doctor::Severity::error);
}

TEST(WindowsLayout, BinNotOnPathWithPython38IsTheMissingDllWithBothFixes) {
  // The installer's PATH entries removed (or a terminal opened before the install): the DLLs are on disk only.
  const Snapshot s = probe_tree("windows/walkthrough", laptop_env(kCuda11, laptop_path(kCuda11, false)));
  const auto* rt = resolution(s, "cudart64_110.dll");
  ASSERT_NE(rt, nullptr);
  EXPECT_FALSE(rt->path.has());
  EXPECT_NE(rt->path.why().find("not found in System32 or on PATH"), std::string::npos) << rt->path.why();

  const auto r = diagnose(s);
  const auto missing = with_code(r, "library.not-found");
  ASSERT_FALSE(missing.empty()) << codes(r);
  const doctor::Finding* cudart = nullptr;
  for (const auto* f : missing)
    if (f->title.find("cudart64_110.dll") != std::string::npos) cudart = f;
  ASSERT_NE(cudart, nullptr) << codes(r);
  EXPECT_NE(cudart->title.find(kCuda11 + "\\bin"), std::string::npos) << cudart->title;
  // For every program (PATH) and, because this is Python 3.8, for the interpreter itself.
  EXPECT_TRUE(has_line(cudart->fix, "set PATH=" + kCuda11 + "\\bin;%PATH%")) << cudart->fix.front();
  EXPECT_TRUE(has_line(cudart->fix, "os.add_dll_directory(r\"" + kCuda11 + "\\bin\")"));
  // Not found at all is not "found only through PATH".
  EXPECT_TRUE(with_code(r, "library.path-only").empty()) << codes(r);
}

TEST(WindowsLayout, Cudnn89WithoutZlibwapiOnPathSaysWhereToPutIt) {
  const Snapshot s = probe_tree("windows/cudnn89_zlib", laptop_env(kCuda118, laptop_path(kCuda118, true)));
  const CudnnSet* set = cudnn_set(s, kCuda118 + "\\bin");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->version.value_or("?"), "8.9.7");
  ASSERT_EQ(set->needs.size(), 1u);
  EXPECT_EQ(set->needs[0].name, "zlibwapi.dll");
  EXPECT_EQ(set->needs[0].needed_by, "cudnn_ops_infer64_8.dll");
  EXPECT_FALSE(set->needs[0].path.has());

  const auto r = diagnose(s);
  const auto dep = with_code(r, "library.dependency-missing");
  ASSERT_EQ(dep.size(), 1u) << codes(r);
  EXPECT_NE(dep[0]->title.find("Could not locate zlibwapi.dll"), std::string::npos) << dep[0]->title;
  EXPECT_TRUE(has_line(dep[0]->evidence, "needs: cudnn_ops_infer64_8.dll -> zlibwapi.dll"));
  // The probe does not search the disk for a DLL no folder it knows holds: get it and put it beside cuDNN.
  EXPECT_TRUE(has_line(dep[0]->fix, "zlib123dllx64.zip"));
  EXPECT_TRUE(has_line(dep[0]->fix, "copy dll_x64\\zlibwapi.dll \"" + kCuda118 + "\\bin\""));
}

TEST(WindowsLayout, Cudnn89WithZlibwapiOnPathIsWhole) {
  const Snapshot s =
      probe_tree("windows/cudnn89_zlib", laptop_env(kCuda118, laptop_path(kCuda118, true, "C:\\zlib\\dll_x64")));
  const CudnnSet* set = cudnn_set(s, kCuda118 + "\\bin");
  ASSERT_NE(set, nullptr);
  ASSERT_EQ(set->needs.size(), 1u);
  EXPECT_EQ(set->needs[0].path.value_or("?"), "C:\\zlib\\dll_x64\\zlibwapi.dll");
  EXPECT_EQ(set->needs[0].via, "PATH");
  EXPECT_TRUE(with_code(diagnose(s), "library.dependency-missing").empty());
}

TEST(WindowsLayout, Cudnn9InstallerFoldersAreFoundWithTheirHeadersAndPairedWithTheirCublas) {
  const std::string cuda = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.8";
  const std::string cudnn = "C:\\Program Files\\NVIDIA\\CUDNN\\v9.19";
  auto env = laptop_env(kCuda118, cuda + "\\bin;C:\\Windows\\system32;C:\\Windows");
  env.erase("CUDA_PATH_V11_8");
  env["CUDA_PATH"] = cuda;
  env["CUDA_PATH_V12_8"] = cuda;
  Snapshot s = probe_tree("windows/cudnn9_installer", env);
  for (const char* variant : {"12.9", "13.1"}) {
    const std::string bin = cudnn + "\\bin\\" + variant + "\\x64";
    const CudnnSet* set = cudnn_set(s, bin);
    ASSERT_NE(set, nullptr) << bin;
    EXPECT_EQ(set->version.value_or("?"), "9.19.1");
    EXPECT_TRUE(set->missing.empty()) << set->missing.front();
    // The header of the same CUDA variant, from include\<CUDA>.
    EXPECT_EQ(set->header.value_or("?"), cudnn + "\\include\\" + variant + "\\cudnn_version.h");
    EXPECT_EQ(verify::cuda_major_of_folder(bin), std::atoi(variant));
    for (const auto& c : s.libraries.copies)
      if (c.path.rfind(bin, 0) == 0) EXPECT_EQ(c.origin, "installer") << c.path;
  }

  // The GPU checks load the toolkit's cuBLAS 12 and the cuDNN built for CUDA 12 beside it, not the
  // newer CUDA 13 variant, whose cudnn64_9.dll would look for cublasLt64_13.dll.
  s.nvidia.cuda_driver_version = Fact<std::string>("13.0");
  verify::GpuRequest req;
  verify::fill_libraries(&req, s);
  ASSERT_FALSE(req.cublas.empty());
  EXPECT_EQ(req.cublas.front(), cuda + "\\bin\\cublas64_12.dll");
  EXPECT_EQ(req.cudnn_dir, cudnn + "\\bin\\12.9\\x64");
  EXPECT_NE(std::find(req.cudnn_files.begin(), req.cudnn_files.end(), req.cudnn_dir + "\\cudnn64_9.dll"),
            req.cudnn_files.end());
  EXPECT_EQ(req.cudnn_files.size(), 8u);
}

TEST(WindowsLayout, TheCudaMajorOfALibraryFolder) {
  EXPECT_EQ(verify::cuda_major_of_folder("C:\\Program Files\\NVIDIA\\CUDNN\\v9.4\\bin\\12.6"), 12);
  EXPECT_EQ(verify::cuda_major_of_folder("C:\\Program Files\\NVIDIA\\CUDNN\\v9.23\\bin\\13.3\\x64"), 13);
  EXPECT_EQ(verify::cuda_major_of_folder("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.8\\bin"), 0);
  EXPECT_EQ(verify::cuda_major_of_folder("/usr/lib/x86_64-linux-gnu"), 0);
  EXPECT_EQ(verify::cuda_major_of_folder(""), 0);
}

// ---------------------------------------------------------------- the registry readers

TEST(WindowsRegistry, NvidiaDriverVersionsFromWindowsFileVersions) {
  EXPECT_EQ(windows::nvidia_version_from_windows("31.0.15.4633").value_or("?"), "546.33");
  EXPECT_EQ(windows::nvidia_version_from_windows("31.0.15.5222").value_or("?"), "552.22");
  EXPECT_EQ(windows::nvidia_version_from_windows("27.21.14.5671").value_or("?"), "456.71");
  EXPECT_EQ(windows::nvidia_version_from_windows("32.0.15.8097").value_or("?"), "580.97");
  EXPECT_EQ(windows::nvidia_version_from_windows("30.0.14.9613").value_or("?"), "496.13");
  for (const char* bad : {"", "31.0.15", "31.0.15.4633.1", "31.0.x.4633", "31.0.15.46333", "31..15.4633"})
    EXPECT_FALSE(windows::nvidia_version_from_windows(bad).has_value()) << bad;
}

TEST(WindowsRegistry, HardwareIdsGiveThePciIds) {
  windows::DisplayAdapter a;
  windows::parse_pci_hardware_id("PCI\\VEN_10DE&DEV_2684&SUBSYS_16F310DE&REV_A1", a);
  EXPECT_EQ(a.vendor_id, 0x10deu);
  EXPECT_EQ(a.device_id, 0x2684u);
  EXPECT_EQ(a.subsystem_device_id, 0x16f3u);
  EXPECT_EQ(a.subsystem_vendor_id, 0x10deu);
  windows::DisplayAdapter none;
  windows::parse_pci_hardware_id("ROOT\\BasicDisplay", none);
  EXPECT_EQ(none.vendor_id, 0u);
  windows::parse_pci_hardware_id("pci\\ven_10dx&dev_1", none);
  EXPECT_EQ(none.vendor_id, 0u);
  EXPECT_EQ(none.device_id, 0u);
}

TEST(WindowsRegistry, PciDevicesWithoutADriverAndWinesVirtualAdapter) {
  test::MapRegistry reg;
  const std::string e = windows::kPciEnumKey;
  // A GTX 1650 before any NVIDIA driver: Windows gives it Microsoft's fallback driver.
  reg.set_text(e + "\\VEN_10DE&DEV_1F91&SUBSYS_18EF1043&REV_A1\\4&1", "ClassGUID",
               "{4D36E968-E325-11CE-BFC1-08002BE10318}");
  reg.set_text(e + "\\VEN_10DE&DEV_1F91&SUBSYS_18EF1043&REV_A1\\4&1", "Service", "BasicDisplay");
  reg.set_text(e + "\\VEN_10DE&DEV_1F91&SUBSYS_18EF1043&REV_A1\\4&1", "LocationInformation",
               "PCI bus 1, device 0, function 0");
  // A second one with no driver at all (Device Manager's "Video Controller"), no location.
  reg.set_text(e + "\\VEN_10DE&DEV_2684&SUBSYS_16F310DE&REV_A1\\4&2", "Class", "Display");
  // Wine's adapter: vendor 0.
  reg.set_text(e + "\\VEN_0000&DEV_0000&SUBSYS_00000000&REV_00\\00000000", "Class", "Display");
  reg.set_text(e + "\\VEN_0000&DEV_0000&SUBSYS_00000000&REV_00\\00000000", "DeviceDesc", "Wine Adapter");
  std::vector<std::string> notes;
  const auto g = windows::read_pci_display_devices(reg, &notes);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].address, "0000:01:00.0");
  EXPECT_EQ(g[0].kernel_driver.value_or("?"), "BasicDisplay");
  EXPECT_EQ(g[1].address, "VEN_10DE&DEV_2684&SUBSYS_16F310DE&REV_A1\\4&2");
  EXPECT_EQ(g[1].kernel_driver.value_or("?"), "none");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("Wine Adapter"), std::string::npos) << notes[0];
  EXPECT_EQ(windows::pci_address_from_location("PCI bus 65, device 0, function 0"), "0000:41:00.0");
  EXPECT_EQ(windows::pci_address_from_location("PCI bus 1, device 32, function 0"), "");
  EXPECT_EQ(windows::pci_address_from_location("PCI-Bus 1, Gerät 0, Funktion 0"), "");
  // No registry: a note, no crash.
  notes.clear();
  EXPECT_TRUE(windows::read_pci_display_devices(no_registry(), &notes).empty());
  ASSERT_EQ(notes.size(), 1u);
}

TEST(WindowsRegistry, OlderWindowsAndWineNameThemselves) {
  // Wine 8's default prefix: Windows 7 SP1, no CurrentMajorVersionNumber, no UBR, HKLM\Software\Wine.
  test::MapRegistry reg;
  const std::string cv = windows::kCurrentVersionKey;
  reg.set_text(cv, "ProductName", "Microsoft Windows 7");
  reg.set_text(cv, "CurrentVersion", "6.1");
  reg.set_text(cv, "CurrentBuildNumber", "7601");
  reg.set_text(cv, "EditionID", "Ultimate");
  reg.set_text("HKEY_LOCAL_MACHINE\\Software\\Wine", "Version", "");
  std::string why;
  auto v = windows::read_version(reg, "", &why);
  ASSERT_TRUE(v.has_value()) << why;
  EXPECT_EQ(v->name, "Microsoft Windows 7");
  EXPECT_EQ(v->version, "6.1.7601");
  EXPECT_TRUE(v->wine);
  // The kernel's major.minor wins over CurrentVersion (which Windows 10 froze at 6.3).
  v = windows::read_version(reg, "6.1.7601", &why);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->version, "6.1.7601");
  // No Secure Boot key: legacy BIOS, said so.
  EXPECT_FALSE(windows::read_secure_boot(reg, &why).has_value());
  EXPECT_NE(why.find("legacy BIOS"), std::string::npos) << why;
  // No registry at all (Linux): a reason, never a crash.
  EXPECT_FALSE(windows::read_version(no_registry(), "", &why).has_value());
  EXPECT_NE(why.find("no registry"), std::string::npos) << why;
  EXPECT_TRUE(windows::read_display_adapters(no_registry(), &why).empty());
  EXPECT_NE(why.find("display adapters"), std::string::npos) << why;
  EXPECT_TRUE(windows::read_registered_toolkits(no_registry()).empty());
}

TEST(WindowsRegistry, RegeditExportsLoadAsRegeditWritesThem) {
  // regedit writes UTF-16LE with a byte-order mark and CRLF line ends; hex lists wrap with '\'.
  const std::string text =
      "Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\\Software\\Test]\r\n"
      "\"Name\"=\"C:\\\\Program Files\\\\x \\\"y\\\"\"\r\n\"Count\"=dword:0000002a\r\n"
      "\"Big\"=hex(b):00,00,00,00,01,00,00,00\r\n"
      "\"List\"=hex(7):61,00,00,00,62,00,\\\r\n  63,00,00,00,00,00\r\n@=\"default\"\r\n"
      "[HKEY_CURRENT_USER\\Software\\Test\\Sub]\r\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : text) {
    utf16 += c;
    utf16 += '\0';
  }
  test::MapRegistry reg;
  std::string error;
  ASSERT_TRUE(reg.load_reg_file(utf16, &error)) << error;
  EXPECT_EQ(reg.text("HKCU\\Software\\Test", "name").value_or("?"), "C:\\Program Files\\x \"y\"");
  EXPECT_EQ(reg.text("HKCU\\Software\\Test", "Count").value_or("?"), "42");
  EXPECT_EQ(reg.value("HKCU\\Software\\Test", "Big", nullptr)->number, 1ull << 32);
  EXPECT_EQ(reg.value("HKCU\\Software\\Test", "List", nullptr)->strings, (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(reg.text("HKCU\\Software\\Test", "").value_or("?"), "default");
  EXPECT_EQ(reg.subkeys("HKEY_CURRENT_USER\\Software\\Test", nullptr).value_or(std::vector<std::string>{}),
            std::vector<std::string>{"Sub"});
  EXPECT_FALSE(reg.value("HKCU\\Software\\Test", "absent", &error).has_value());
  EXPECT_NE(error.find("cannot find"), std::string::npos);
  for (const char* bad : {"REGEDIT5\n", "Windows Registry Editor Version 5.00\n\"x\"=\"y\"\n",
                          "Windows Registry Editor Version 5.00\n[HKCU\\A]\n\"x\"=dword:12\n",
                          "Windows Registry Editor Version 5.00\n[HKCU\\A]\n\"x\"=hex(b):00\n",
                          "Windows Registry Editor Version 5.00\n[HKCU\\A]\nx=\"y\"\n"}) {
    test::MapRegistry r2;
    EXPECT_FALSE(r2.load_reg_file(bad, &error)) << bad;
  }
}

}  // namespace
}  // namespace gpuready
