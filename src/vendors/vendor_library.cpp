// The first loadable candidate of a vendor library (see vendor_library.h).
#include "vendors/vendor_library.h"

namespace gpuready::vendors {

std::optional<OpenedLibrary> open_first(const DynLib& dl, const std::vector<std::string>& candidates,
                                        std::string* error) {
  std::string errors;
  for (const auto& cand : candidates) {
    std::string e;
    DynLib::Handle h = dl.open(cand, &e);
    if (h) return OpenedLibrary{h, cand};
    if (!errors.empty()) errors += "; ";
    errors += e.empty() ? cand + ": cannot be loaded" : e;
  }
  if (error) *error = candidates.empty() ? std::string("no candidate library names") : errors;
  return std::nullopt;
}

}  // namespace gpuready::vendors
