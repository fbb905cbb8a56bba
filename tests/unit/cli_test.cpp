// End-to-end tests of the gpuready executable: runs the real binary as a child process
// (through the same Proc seam gpuready uses) and checks exit codes and output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/snapshot.h"
#include "platform/os.h"

using namespace gpuready;

namespace {

ProcResult run_gpuready(std::vector<std::string> args, ProcOptions o = {}) {
  args.insert(args.begin(), GPUREADY_EXE);
  o.timeout = std::chrono::seconds(60);
  return real_os().proc.run(args, o);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuready_cli_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST(Cli, ProbeJsonIsASnapshot) {
  const ProcResult r = run_gpuready({"probe", "--json"});
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "gpuready.snapshot/1");
  const Snapshot s = snapshot_from_json(j);
  EXPECT_FALSE(s.created_utc.empty());
  EXPECT_EQ(s.gpuready_version, GPUREADY_VERSION);
}

TEST(Cli, SaveWritesTheSameSnapshotItPrints) {
  const std::string path = temp_path("save.json");
  const ProcResult r = run_gpuready({"probe", "--json", "--save", path});
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  std::ifstream f(path);
  ASSERT_TRUE(f.good());
  const auto saved = nlohmann::json::parse(f);
  EXPECT_EQ(saved, nlohmann::json::parse(r.out));
  std::remove(path.c_str());
}

TEST(Cli, HumanReportHasEverySection) {
  const ProcResult r = run_gpuready({"probe"});
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  for (const char* section : {"System", "CPU and memory", "GPUs on the PCI bus", "NVIDIA driver", "CUDA toolkits",
                              "GPU libraries", "Python environments"})
    EXPECT_NE(r.out.find(section), std::string::npos) << section;
}

TEST(Cli, NoSubcommandRunsTheDoctor) {
  const ProcResult r = run_gpuready({});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // ready, or problems found
  EXPECT_NE(r.out.find("for GPU deep learning"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUDA versions"), std::string::npos) << r.out;
}

TEST(Cli, UnknownFlagIsAUsageError) {
  const ProcResult r = run_gpuready({"probe", "--no-such-flag"});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  const ProcResult r = run_gpuready({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(Cli, UnwritableSaveIsAClearError) {
  const ProcResult r = run_gpuready({"probe", "--save", "/nonexistent-dir/x/snap.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent-dir/x/snap.json"), std::string::npos) << r.err;
}

TEST(Cli, MissingPythonIsReportedNotFatal) {
  const ProcResult r = run_gpuready({"probe", "--json", "--python", "/nonexistent/bin/python3"});
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  const Snapshot s = snapshot_from_json(nlohmann::json::parse(r.out));
  bool seen = false;
  for (const auto& p : s.python)
    if (p.interpreter == "/nonexistent/bin/python3") {
      seen = true;
      EXPECT_FALSE(p.error.empty());
    }
  EXPECT_TRUE(seen) << "the --python interpreter must appear in the snapshot with its error";
}

TEST(Cli, HostileEnvironmentDoesNotBreakTheProbe) {
  // A PATH of thousands of entries (many missing, some relative, one very long) and
  // nonsense in the variables the probe reads.
  std::string path;
  const std::string sep(1, path_list_separator());
  for (int i = 0; i < 5000; ++i) path += "/nonexistent/" + std::to_string(i) + sep;
  path += "relative/dir" + sep + sep + std::string(5000, 'x') + sep + "/usr/bin" + sep + "/bin";
  ProcOptions o;
  o.set_env = {{"PATH", path},
               {"LD_LIBRARY_PATH", ":::/nonexistent:" + std::string(3000, '/')},
               {"CUDA_HOME", "/dev/null"},
               {"CUDA_PATH", std::string(10000, 'a')},
               {"CONDA_PREFIX", "/proc/self/fd/0"},
               {"CUDA_VISIBLE_DEVICES", "garbage,,-1"}};
  const ProcResult r = run_gpuready({"probe", "--json"}, o);
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  const Snapshot s = snapshot_from_json(nlohmann::json::parse(r.out));
  // What had to be left out is said in the snapshot's notes, not silently dropped.
  bool path_noted = false;
  for (const auto& n : s.notes) path_noted = path_noted || n.rfind("python: PATH has", 0) == 0;
  EXPECT_TRUE(path_noted) << "the capped PATH walk must leave a note";
}

// `--version`: the build (version, commit, day), the tables' date (the newest date in data/freshness.csv), and the
// optional parts: this build's CUDA module, found beside the executable where the build puts it.
// What a command printed, with Windows' text-mode line ends ("\r\n") read as "\n".
std::string lines_of(std::string out) {
  out.erase(std::remove(out.begin(), out.end(), '\r'), out.end());
  return out;
}

TEST(Cli, VersionSaysTheBuildTheTablesAndTheModules) {
  ProcResult r = run_gpuready({"--version"});
  ASSERT_TRUE(r.ok()) << r.error << r.err;
  r.out = lines_of(r.out);
  EXPECT_EQ(r.out.rfind(std::string("gpuready ") + GPUREADY_VERSION + "\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\ncommit "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", built 20"), std::string::npos) << r.out;
  std::ifstream fresh(std::string(GPUREADY_SOURCE_DIR) + "/data/freshness.csv");
  std::string line, newest;
  while (std::getline(fresh, line)) {
    // component,newest,date,...: the third field when it is a date
    const size_t a = line.find(','), b = a == std::string::npos ? a : line.find(',', a + 1);
    if (b == std::string::npos) continue;
    const std::string date = line.substr(b + 1, 10);
    if (date.size() == 10 && date[4] == '-' && date > newest) newest = date;
  }
  ASSERT_FALSE(newest.empty());
  EXPECT_NE(r.out.find("knowledge tables: as of " + newest + " ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pytorch "), std::string::npos) << r.out;
#if defined(GPUREADY_TEST_CUDA_MODULE) && !defined(_WIN32)  // under Wine the path is Z:\...
  const std::string exe = GPUREADY_EXE;
  EXPECT_NE(r.out.find("CUDA module (verify's GPU checks, bench's GPU engine): built; " +
                       exe.substr(0, exe.find_last_of("/\\") + 1)),
            std::string::npos)
      << r.out;
#endif
  EXPECT_NE(r.out.find("explain's matcher: "), std::string::npos) << r.out;
}

// `completion bash|zsh`: made from the command line itself, so every visible subcommand and its flags are in it, the
// hidden ones are not, and bash reads it and completes with it.
TEST(Cli, CompletionScriptsListTheCommandsAndBashCompletesWithThem) {
  const ProcResult b = run_gpuready({"completion", "bash"});
  ASSERT_TRUE(b.ok()) << b.error << b.err;
  for (const char* sub : {"probe", "plan", "doctor", "explain", "report", "verify", "bench", "--no-probe", "--replay"})
    EXPECT_NE(b.out.find(sub), std::string::npos) << sub;
  EXPECT_EQ(b.out.find("__probe-driver"), std::string::npos);  // hidden: not offered
#if !defined(_WIN32)  // bash itself: Linux
  const std::string path = temp_path("completion.bash");
  {
    std::ofstream f(path);
    f << b.out;
  }
  // What bash offers after "gpuready expl" and after "gpuready explain --fi".
  ProcOptions o;
  o.timeout = std::chrono::seconds(30);
  const ProcResult c = real_os().proc.run(
      {"/bin/bash", "-c",
       "source '" + path + "'; COMP_WORDS=(gpuready expl); COMP_CWORD=1; _gpuready; echo \"${COMPREPLY[*]}\"; "
       "COMP_WORDS=(gpuready explain --fi); COMP_CWORD=2; _gpuready; echo \"${COMPREPLY[*]}\""},
      o);
  std::remove(path.c_str());
  ASSERT_TRUE(c.ok()) << c.error << c.err;
  EXPECT_EQ(c.out, "explain\n--file\n");
#endif

  ProcResult z = run_gpuready({"completion", "zsh"});
  ASSERT_TRUE(z.ok()) << z.error << z.err;
  z.out = lines_of(z.out);
  EXPECT_EQ(z.out.rfind("#compdef gpuready\n", 0), 0u);
  EXPECT_NE(z.out.find("'--file=["), std::string::npos) << z.out.substr(0, 2000);
  EXPECT_NE(run_gpuready({"completion", "fish"}).exit_code, 0);  // not one it makes: a usage error
}
