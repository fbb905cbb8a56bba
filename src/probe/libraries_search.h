// The library collector's internals, with the OS layout and the loader's inputs as parameters so
// tests can run the Windows search order and a fixture's ld.so.cache on Linux.
#pragma once

#include <string>
#include <vector>

#include "core/snapshot.h"
#include "platform/os.h"
#include "probe/toolkits_layout.h"

namespace gpuready::probe_detail {

struct LibrarySearch {
  Layout layout = host_layout();
  std::string ld_cache = "/etc/ld.so.cache";  // POSIX only
  std::vector<std::string> default_dirs;      // POSIX: empty = default_loader_dirs()
  std::string system32;                       // Windows: empty = %SystemRoot%\System32
  std::vector<std::string> extra_dirs;        // folders the user named (--libs FOLDER), origin "--libs"
  size_t max_path_dirs = 64;                  // LD_LIBRARY_PATH / PATH entries used
  size_t max_dir_entries = 20000;             // entries looked at per folder
  size_t max_elf_files = 256;                 // POSIX: library files whose dynamic section is read
  size_t max_dependency_lookups = 2048;       // POSIX: NEEDED names looked up (each one once per asker)
};

// The folders glibc's loader searches after LD_LIBRARY_PATH and the cache, for this build's
// architecture: the multiarch folders (Debian/Ubuntu), then /lib64 /usr/lib64, then /lib /usr/lib.
std::vector<std::string> default_loader_dirs();

void collect_libraries_in(const Os& os, const LibrarySearch& search, const std::vector<Toolkit>& toolkits,
                          const std::vector<PythonEnv>& python, LibraryFacts& out);

}  // namespace gpuready::probe_detail
