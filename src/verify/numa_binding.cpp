#include "verify/numa_binding.h"

#include <fmt/format.h>

#include "parse/sysfs.h"

namespace gpuready::verify {

bool NodeBinding::bind(const Fs& fs, int node, std::string* what, std::string* why) {
  const std::string path = fmt::format("/sys/devices/system/node/node{}/cpulist", node);
  std::string err;
  const auto text = fs.read_file(path, 64 * 1024, &err);
  if (!text) {
    *why = "cannot read " + path + " (" + err + ")";
    return false;
  }
  const auto cpus = parse::parse_cpu_list(*text);
  if (!cpus || cpus->empty()) {
    *why = path + " lists no CPU (\"" + text->substr(0, 80) + "\")";
    return false;
  }
  int allowed = 0;
  std::string no;
  if (!binding_.bind(*cpus, &allowed, &no)) {
    *why = "node " + std::to_string(node) + ": " + no;
    return false;
  }
  const std::string list = text->substr(0, text->find_first_of("\r\n"));
  *what = fmt::format("this thread runs on node {}'s CPUs ({}{}) while it allocates, first-touches and copies", node,
                      list, allowed < static_cast<int>(cpus->size()) ? fmt::format(", {} of them allowed here", allowed) : "");
  return true;
}

}  // namespace gpuready::verify
