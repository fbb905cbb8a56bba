// The first loadable candidate of a vendor library (see vendor_library.h).
#include "vendors/vendor_library.h"

#include "vendors/library_search.h"

namespace gpuready::vendors {

std::optional<OpenedLibrary> open_first(const Os& os, const std::vector<std::string>& candidates,
                                        std::string* error) {
  std::string errors;
  for (const auto& cand : candidates) {
    std::string e;
    auto file = resolve_library(os, cand, &e);
    if (file) {
      // dlopen of a FIFO blocks until someone writes to it; a folder or a device is no library.
      std::string why;
      const auto st = os.fs.stat(file->path, &why);
      if (st && st->type != FileStat::Type::regular) {
        e = file->path + (st->type == FileStat::Type::directory ? ": is a folder, not a library"
                                                                : ": not a regular file (a FIFO or device), not loaded");
        file.reset();
      }
    }
    DynLib::Handle h = file ? os.dl.open(file->path, &e) : DynLib::Handle{};
    if (h) return OpenedLibrary{h, cand, file->path};
    if (!errors.empty()) errors += "; ";
    errors += e.empty() ? cand + ": cannot be loaded" : e;
  }
  if (error) *error = candidates.empty() ? std::string("no candidate library names") : errors;
  return std::nullopt;
}

}  // namespace gpuready::vendors
