// End-to-end tests of the gpuready executable: runs the real binary as a child process
// (through the same Proc seam gpuready uses) and checks exit codes and output.
#include <gtest/gtest.h>

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
