// Runs the whole probe (every collector) against the real Windows OS seams and prints the
// snapshot as JSON: proof that the library links for Windows and survives a Windows system.
// Built and run under Wine by scripts/check-win32-build.sh; exit 0 when a snapshot came back.
#include <chrono>
#include <cstdio>

#include "core/snapshot.h"
#include "probe/probe.h"

int main() {
  using namespace gpuready;
  ProbeOptions opts;
  opts.child_timeout = std::chrono::milliseconds(5000);
  const auto start = std::chrono::steady_clock::now();
  const Snapshot snap = run_probe(real_os(), opts);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  const std::string json = snapshot_to_json(snap).dump(2);
  std::printf("%s\n", json.c_str());
  std::fprintf(stderr, "probe took %lld ms, %zu bytes of JSON\n", static_cast<long long>(ms), json.size());
  return json.size() > 2 ? 0 : 1;
}
