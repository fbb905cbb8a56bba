// NodeBinding: the copies' host thread on the CPUs of the GPU's NUMA node (sysfs's
// node<N>/cpulist, through platform's ThreadCpuBinding) while it allocates, first-touches and
// copies, so pinned and pageable buffers live next to the GPU; the old CPU set comes back after.
#pragma once

#include <string>

#include "platform/os.h"

namespace gpuready::verify {

class NodeBinding {
 public:
  // false with *why when the thread stays where it was; *what says where it runs now.
  bool bind(const Fs& fs, int node, std::string* what, std::string* why);

 private:
  ThreadCpuBinding binding_;
};

}  // namespace gpuready::verify
