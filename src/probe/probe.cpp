// run_probe: the collectors in dependency order, independent ones on their own threads.
// Slow collectors (the driver child process, Python interpreters) start first so that
// their waiting overlaps the file-system work of the others.
#include "probe/probe.h"

#include <chrono>
#include <ctime>
#include <future>

namespace gpuready {
namespace {

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
#ifdef _WIN32
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Snapshot run_probe(const Os& os, const ProbeOptions& opts) {
  Snapshot s;
  s.gpuready_version = GPUREADY_VERSION;
  s.created_utc = utc_now();
  const HostInfo host = host_info();
  s.hostname = host.hostname.empty() ? Fact<std::string>::unknown("the OS did not report a host name")
                                     : Fact<std::string>(host.hostname);

  double t_nvidia = 0, t_python = 0;
  auto nvidia = std::async(std::launch::async, [&] { t_nvidia = timed([&] { collect_nvidia(os, opts, s.nvidia); }); });
  std::vector<std::string> python_notes;  // written by the Python thread only, read after get()
  auto python = std::async(std::launch::async,
                           [&] { t_python = timed([&] { collect_python(os, opts, s.python, &python_notes); }); });

  const double t_os = timed([&] { collect_os(os, s.os); });
  const double t_cpu = timed([&] { collect_cpu(os, s.cpu); });
  const double t_pci = timed([&] { collect_pci(os, s.pci_gpus, &s.notes); });
  const double t_toolkits = timed([&] { collect_toolkits(os, s.toolkits); });
  python.get();
  s.notes.insert(s.notes.end(), python_notes.begin(), python_notes.end());
  // The deep checks start as soon as the environments are known; their imports overlap the rest.
  double t_frameworks = 0;
  std::future<void> frameworks;
  if (opts.deep)
    frameworks = std::async(std::launch::async, [&] {
      t_frameworks =
          timed([&] { collect_frameworks(os, s.python, opts.framework_timeout, opts.deep_frameworks, s.frameworks); });
    });
  const double t_pip_toolkits = timed([&] { collect_pip_toolkits(os, s.python, s.toolkits); });
  const double t_libraries = timed([&] { collect_libraries(os, s.toolkits, s.python, s.libraries, opts.library_dirs); });
  nvidia.get();
  const double t_security = timed([&] { collect_security(os, s, s.security); });
  if (frameworks.valid()) {
    frameworks.get();
    fill_loaded_versions(os, s.libraries, s.frameworks);
  }

  s.timings = {{"os", t_os},         {"cpu", t_cpu},       {"pci", t_pci},
               {"nvidia", t_nvidia}, {"toolkits", t_toolkits + t_pip_toolkits}, {"python", t_python},
               {"libraries", t_libraries}, {"security", t_security}};
  if (opts.deep) s.timings.push_back({"frameworks", t_frameworks});
  return s;
}

}  // namespace gpuready
