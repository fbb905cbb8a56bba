// The pieces that keep gpuready from loading or running anything from the current folder, and that
// turn every way a child or a file can go wrong into words: search-path cleaning, absolute-path
// checks, library resolution, the one child runner, capped reads of files users name, compressed
// kernel modules, and the package facts behind the container-toolkit finding.
#include <gtest/gtest.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>

#include "parse/decompress.h"
#include "parse/modules_dep.h"
#include "parse/package_db.h"
#include "platform/child.h"
#include "platform/os.h"
#include "support/test_os.h"
#include "vendors/library_search.h"

using namespace gpuready;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path p;
  TempDir() {
    std::string err;
    p = make_temp_dir("hardening", &err).value_or("");
    EXPECT_FALSE(p.empty()) << err;
  }
  ~TempDir() { remove_tree(p.string()); }
};

void write(const fs::path& p, const std::string& text, fs::perms perms = fs::perms::owner_read | fs::perms::owner_write) {
  std::ofstream(p, std::ios::binary) << text;
  fs::permissions(p, perms);
}

}  // namespace

// ------------------------------------------------------------------ search paths

TEST(SearchPaths, AbsoluteMeansTheSameFolderFromAnyCurrentFolder) {
  EXPECT_TRUE(is_absolute_path("/usr/local/cuda/lib64"));
  for (const char* p : {"", ".", "..", "lib", "./lib", "../x", "bin/"}) EXPECT_FALSE(is_absolute_path(p)) << p;
}

TEST(SearchPaths, TheGuidesExportLineLeavesAnEmptyEntryThatIsDropped) {
  // export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH with the variable unset.
  CleanedPathList c = clean_search_path_list("/usr/local/cuda/lib64:", ":");
  EXPECT_EQ(c.value, "/usr/local/cuda/lib64");
  ASSERT_EQ(c.dropped.size(), 1u);
  EXPECT_EQ(c.dropped[0], "");
  c = clean_search_path_list(":/a::.:lib:/b:", ":");
  EXPECT_EQ(c.value, "/a:/b");
  EXPECT_EQ(c.kept, 2u);
  EXPECT_EQ(c.dropped, (std::vector<std::string>{"", "", ".", "lib", ""}));
  c = clean_search_path_list(".", ":");
  EXPECT_EQ(c.kept, 0u);
  EXPECT_EQ(c.value, "");
  EXPECT_TRUE(clean_search_path_list("", ":").dropped.empty());
  // LD_PRELOAD splits on spaces too; a run of spaces is not an empty entry.
  c = clean_search_path_list("/lib/a.so  libb.so:/lib/c.so", ": ");
  EXPECT_EQ(c.value, "/lib/a.so:/lib/c.so");
  EXPECT_EQ(c.dropped, (std::vector<std::string>{"libb.so"}));
}

// ------------------------------------------------------------------ library resolution

TEST(LibrarySearch, SkipsEmptyAndRelativeEntriesAndSaysSo) {
  TempDir d;
  fs::create_directories(d.p / "good");
  fs::create_directories(d.p / "cwd");
  write(d.p / "good" / "libnvidia-ml.so.1", "x");
  write(d.p / "cwd" / "libnvidia-ml.so.1", "planted");
  const fs::path before = fs::current_path();
  fs::current_path(d.p / "cwd");
  test::MapEnv env({{"LD_LIBRARY_PATH", ":.:" + (d.p / "good").string()}});
  test::ScriptedProc proc([](const auto&, const auto&) { return ProcResult{}; });
  test::NoDynLib dl;
  const Os os{real_os().fs, env, proc, dl};
  vendors::LibrarySearchPlaces none;
  none.ld_cache = "/nonexistent/ld.so.cache";
  none.default_dirs = {"/nonexistent"};
  std::string why;
  auto r = vendors::resolve_library(os, "libnvidia-ml.so.1", &why, none);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->path, (d.p / "good" / "libnvidia-ml.so.1").string());
  EXPECT_EQ(r->via, "LD_LIBRARY_PATH");
  // Only the planted copy in the current folder: not found, and the skipped entries are named.
  env.vars()["LD_LIBRARY_PATH"] = ":.:lib";
  r = vendors::resolve_library(os, "libnvidia-ml.so.1", &why, none);
  fs::current_path(before);
  EXPECT_FALSE(r);
  EXPECT_NE(why.find("cannot open shared object file"), std::string::npos) << why;
  EXPECT_NE(why.find("skipped LD_LIBRARY_PATH's an empty entry, \".\", \"lib\""), std::string::npos) << why;
  // A relative path is refused outright.
  EXPECT_FALSE(vendors::resolve_library(os, "./libnvidia-ml.so.1", &why, none));
  EXPECT_NE(why.find("relative path"), std::string::npos) << why;
}

TEST(LibrarySearch, FindsTheLoaderCacheEntryOfThisMachine) {
  // Every glibc machine has libc.so.6 in its cache or default folders.
  std::string why;
  const auto r = vendors::resolve_library(real_os(), "libc.so.6", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_TRUE(is_absolute_path(r->path)) << r->path;
  EXPECT_TRUE(r->via == "ld.so.cache" || r->via == "default path" || r->via == "LD_LIBRARY_PATH") << r->via;
}

TEST(DynLibSeam, RefusesANameOrARelativePath) {
  std::string err;
  for (const char* name : {"libc.so.6", "./libc.so.6", "lib/libc.so.6"}) {
    EXPECT_FALSE(real_os().dl.open(name, &err)) << name;
    EXPECT_NE(err.find("absolute path only"), std::string::npos) << err;
  }
}

// ------------------------------------------------------------------ programs

TEST(ProcSeam, NeverRunsAProgramFromTheCurrentFolder) {
  TempDir d;
  write(d.p / "python3", "#!/bin/sh\necho planted\n", fs::perms::owner_all);
  ProcOptions o;
  o.cwd = d.p.string();
  o.set_env = {{"PATH", ":.:" + d.p.filename().string()}};
  // By name: the relative PATH entries are not searched even though the file is right there.
  const fs::path before = fs::current_path();
  fs::current_path(d.p);
  ProcResult r = real_os().proc.run({"python3", "-c", "print(1)"}, o);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("absolute folders of PATH"), std::string::npos) << r.error;
  // By a relative path: refused.
  r = real_os().proc.run({"./python3"}, o);
  fs::current_path(before);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("by absolute path only"), std::string::npos) << r.error;
  EXPECT_EQ(r.out.find("planted"), std::string::npos);
}

TEST(ProcSeam, ChildrenGetCleanedSearchPaths) {
  ProcOptions o;
  o.set_env = {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64::."}, {"PYTHONPATH", ":"}, {"PATH", "/usr/bin:/bin:"}};
  ProcResult r = real_os().proc.run({"/usr/bin/env"}, o);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NE(r.out.find("\nLD_LIBRARY_PATH=/usr/local/cuda/lib64\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nPATH=/usr/bin:/bin\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PYTHONPATH="), std::string::npos) << r.out;  // nothing absolute was left
  o.clean_search_paths = false;  // as the planted-folder tests hand them to gpuready
  r = real_os().proc.run({"/usr/bin/env"}, o);
  EXPECT_NE(r.out.find("LD_LIBRARY_PATH=/usr/local/cuda/lib64::.\n"), std::string::npos) << r.out;
}

TEST(ProcSeam, AChildThatClosesItsStdinEarlyCostsNoSignalToUs) {
  ProcOptions o;
  o.stdin_data = std::string(8u << 20, 'x');  // far more than a pipe holds
  const ProcResult r = real_os().proc.run({"/bin/true"}, o);
  EXPECT_TRUE(r.ok()) << r.error;
  // SIGPIPE stays as the process had it: default, not ignored process-wide.
  struct sigaction now {};
  ::sigaction(SIGPIPE, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0);
}

// ------------------------------------------------------------------ the child runner

ChildSpec shell(const std::string& script) {
  ChildSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.timeout = std::chrono::seconds(10);
  s.step_prefix = "step: ";
  return s;
}

TEST(ChildRunner, EveryEndHasItsKindAndWords) {
  ChildRun r = run_child(real_os(), shell("echo 'step: loading' >&2; echo '{}'"));
  EXPECT_EQ(r.end, ChildRun::End::exited);
  EXPECT_EQ(r.last_step, "loading");
  EXPECT_EQ(r.stderr_text, "");

  r = run_child(real_os(), shell("echo 'step: cuInit' >&2; echo boom >&2; exit 3"));
  EXPECT_EQ(r.end, ChildRun::End::failed);
  EXPECT_EQ(r.summary("the probe"), "the probe exited with code 3 (it was in cuInit); stderr: boom");

  r = run_child(real_os(), shell("echo 'step: nvmlInit_v2' >&2; kill -SEGV $$"));
  EXPECT_EQ(r.end, ChildRun::End::crashed);
  EXPECT_EQ(r.how, "was killed by SIGSEGV (segmentation fault)");
  EXPECT_EQ(r.where(), " (it was in nvmlInit_v2)");

  ChildSpec hang = shell("echo 'step: nvmlDeviceGetName' >&2; sleep 30");
  hang.timeout = std::chrono::milliseconds(500);
  const auto t0 = std::chrono::steady_clock::now();
  r = run_child(real_os(), hang);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(r.end, ChildRun::End::timed_out);
  EXPECT_EQ(r.summary("the driver probe"),
            "the driver probe gave no answer within 0.5 s and was stopped (it was in nvmlDeviceGetName)");

  ChildSpec missing;
  missing.argv = {"/nonexistent/gpuready"};
  r = run_child(real_os(), missing);
  EXPECT_EQ(r.end, ChildRun::End::not_started);
  EXPECT_NE(r.how.find("could not start"), std::string::npos) << r.how;
}

TEST(ChildRunner, PrivateFolderIsEmptyOwnerOnlyAndRemoved) {
  ChildSpec s = shell("pwd; ls -A | wc -l; stat -c %a .");
  s.private_dir = true;
  const ChildRun r = run_child(real_os(), s);
  ASSERT_EQ(r.end, ChildRun::End::exited) << r.how;
  const std::string dir = r.proc.out.substr(0, r.proc.out.find('\n'));
  EXPECT_NE(dir.find("gpuready-child-"), std::string::npos) << r.proc.out;
  EXPECT_NE(r.proc.out.find("\n0\n700\n"), std::string::npos) << r.proc.out;
  EXPECT_FALSE(fs::exists(dir));
}

TEST(ChildRunner, ProgressLinesArriveAsTheyComeAndStayOutOfStderr) {
  ChildSpec s = shell("echo 'progress: 1 5 10' >&2; echo 'real words' >&2; echo 'progress: 1 10 10' >&2");
  s.progress_prefix = "progress: ";
  std::vector<std::string> seen;
  s.on_progress = [&](std::string_view rest) { seen.emplace_back(rest); };
  const ChildRun r = run_child(real_os(), s);
  EXPECT_EQ(seen, (std::vector<std::string>{"1 5 10", "1 10 10"}));
  EXPECT_EQ(r.stderr_text, "real words\n");
}

TEST(ChildRunner, SignalAndExceptionWords) {
  EXPECT_EQ(signal_words(SIGABRT), "SIGABRT (aborted)");
  EXPECT_EQ(signal_words(SIGBUS), "SIGBUS (bus error)");
  EXPECT_EQ(signal_words(77), "signal 77");
  EXPECT_EQ(ntstatus_words(0xC0000005u), "0xC0000005 (STATUS_ACCESS_VIOLATION)");
  EXPECT_EQ(ntstatus_words(0xC0001234u), "0xC0001234");
  EXPECT_EQ(ntstatus_words(3), "");
}

// ------------------------------------------------------------------ files users name

TEST(UserFiles, DevicesFifosFoldersAndHugeFilesAreRefusedWithWords) {
  TempDir d;
  std::string err;
  EXPECT_FALSE(read_user_file(real_os().fs, "/dev/zero", 1u << 20, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  const fs::path fifo = d.p / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(read_user_file(real_os().fs, fifo.string(), 1u << 20, &err));  // and does not block
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  EXPECT_FALSE(read_user_file(real_os().fs, d.p.string(), 1u << 20, &err));
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
  write(d.p / "big", std::string(2000, 'x'));
  EXPECT_FALSE(read_user_file(real_os().fs, (d.p / "big").string(), 1000, &err));
  EXPECT_NE(err.find("2000 bytes, more than the 1000"), std::string::npos) << err;
  EXPECT_EQ(read_user_file(real_os().fs, (d.p / "big").string(), 2000, &err).value_or("").size(), 2000u);
  EXPECT_FALSE(read_user_file(real_os().fs, (d.p / "missing").string(), 1000, &err));
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
}

// The page `gpuready report` writes: a FIFO (opening it to write would wait for a reader) or a device is refused.
TEST(UserFiles, ReportRefusesToWriteIntoAFifoOrADevice) {
  TempDir d;
  const fs::path fifo = d.p / "page.html";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& out : {fifo.string(), std::string("/dev/null")}) {
    ProcOptions o;
    o.timeout = std::chrono::seconds(30);
    const ProcResult r = real_os().proc.run(
        {GPUREADY_EXE, "report", "--replay", std::string(GPUREADY_FIXTURES) + "/snapshots/h200.json", "-o", out}, o);
    EXPECT_FALSE(r.timed_out) << out;
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
    EXPECT_NE(r.err.find("a device, pipe or socket"), std::string::npos) << r.err;
  }
}

TEST(UserFiles, CommandsRefuseDevZeroQuickly) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"doctor", "--replay", "/dev/zero"}, {"report", "--replay", "/dev/zero"}, {"plan", "--snapshot", "/dev/zero"}, {"explain", "--no-probe", "--file", "/dev/zero"}}) {
    std::vector<std::string> argv = {GPUREADY_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcOptions o;
    o.timeout = std::chrono::seconds(20);
    const ProcResult r = real_os().proc.run(argv, o);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_FALSE(r.timed_out) << args[0];
    EXPECT_EQ(r.signal, 0) << args[0] << ": " << r.err;
    EXPECT_NE(r.exit_code, 0) << args[0];
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << args[0] << ": " << r.err;
  }
  // explain reading stdin from /dev/zero stops at its cap.
  ProcOptions o;
  o.timeout = std::chrono::seconds(60);
  const ProcResult r = real_os().proc.run({"/bin/sh", "-c", std::string(GPUREADY_EXE) + " explain --no-probe < /dev/zero"}, o);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("longer than"), std::string::npos) << r.err;
}

// ------------------------------------------------------------------ compressed kernel modules

namespace {

std::string zstd_pack(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3));
  return out;
}

std::string xz_pack(const std::string& s) {
  std::string out(lzma_stream_buffer_bound(s.size()), '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(s.data()), s.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

std::string gz_pack(const std::string& s) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, s.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

TEST(CompressedModules, TheSignatureAtTheEndIsSeenThroughEachFormat) {
  // A module-sized body (3 MiB, more than any one buffer) with the marker DKMS's sign-file appends.
  std::string signed_module = std::string(3u << 20, '\x7f');
  for (size_t i = 0; i < signed_module.size(); i += 4099) signed_module[i] = static_cast<char>(i);
  signed_module += "signature bytes" + std::string(parse::kModuleSignatureMarker);
  const std::string unsigned_module = signed_module.substr(0, 3u << 20);
  const size_t n = parse::kModuleSignatureMarker.size();
  for (const auto& [format, pack] : std::vector<std::pair<std::string, std::string (*)(const std::string&)>>{
           {"zst", zstd_pack}, {"xz", xz_pack}, {"gz", gz_pack}}) {
    ASSERT_TRUE(parse::can_decompress(format)) << format;
    std::string err;
    auto tail = parse::decompressed_tail(pack(signed_module), format, n, 64u << 20, &err);
    ASSERT_TRUE(tail) << format << ": " << err;
    EXPECT_TRUE(parse::module_signature_appended(*tail)) << format;
    tail = parse::decompressed_tail(pack(unsigned_module), format, n, 64u << 20, &err);
    ASSERT_TRUE(tail) << format << ": " << err;
    EXPECT_FALSE(parse::module_signature_appended(*tail)) << format;
    // Cut short, garbage, or a bomb past the cap: words, never a crash.
    const std::string packed = pack(signed_module);
    EXPECT_FALSE(parse::decompressed_tail(packed.substr(0, packed.size() / 2), format, n, 64u << 20, &err)) << format;
    EXPECT_FALSE(err.empty());
    EXPECT_FALSE(parse::decompressed_tail("this is not compressed", format, n, 64u << 20, &err)) << format;
    EXPECT_FALSE(parse::decompressed_tail(packed, format, n, 1u << 20, &err)) << format;
    EXPECT_NE(err.find("more than 1048576 bytes"), std::string::npos) << format << ": " << err;
  }
}

// ------------------------------------------------------------------ package facts

TEST(PackageFacts, DpkgStatusAndNvidiaCtk) {
  // The stanza layout of /var/lib/dpkg/status (Ubuntu 22.04 with NVIDIA's apt repository).
  const std::string status =
      "Package: libnvidia-container1\nStatus: install ok installed\nPriority: optional\nVersion: 1.17.4-1\n"
      "Description: NVIDIA container runtime library\n The nvidia-container library provides an interface\n\n"
      "Package: nvidia-container-toolkit\nStatus: deinstall ok config-files\nVersion: 1.13.5-1\n\n"
      "Package: nvidia-container-toolkit-base\nStatus: install ok installed\nVersion: 1.17.4-1\n";
  EXPECT_EQ(parse::dpkg_installed_version(status, "nvidia-container-toolkit-base").value_or("?"), "1.17.4-1");
  EXPECT_EQ(parse::dpkg_installed_version(status, "libnvidia-container1").value_or("?"), "1.17.4-1");
  EXPECT_FALSE(parse::dpkg_installed_version(status, "nvidia-container-toolkit"));  // only its config files remain
  EXPECT_FALSE(parse::dpkg_installed_version(status, "nvidia"));
  EXPECT_EQ(parse::debian_upstream_version("1.17.4-1"), "1.17.4");
  EXPECT_EQ(parse::debian_upstream_version("1:1.2.3-0ubuntu1"), "1.2.3");
  EXPECT_EQ(parse::debian_upstream_version("1.18.0~rc.1-1"), "1.18.0");
  EXPECT_EQ(parse::nvidia_ctk_version("NVIDIA Container Toolkit CLI version 1.17.8\ncommit: f202b80a9b9d0db00d9b1d73c0128c8962c55f4d\n")
                .value_or("?"),
            "1.17.8");
  EXPECT_FALSE(parse::nvidia_ctk_version("command not found"));
}
