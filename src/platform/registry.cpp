// The registry of an OS without one: every read says so (Linux, macOS, and any Os bundle made
// without a registry, such as a test's fixture OS).
#include "platform/os.h"

namespace gpuready {
namespace {

class NoRegistry final : public Registry {
 public:
  std::optional<RegistryValue> value(const std::string& key, const std::string&, std::string* error) const override {
    if (error) *error = key + ": this OS has no registry";
    return std::nullopt;
  }
  std::optional<std::vector<std::string>> subkeys(const std::string& key, std::string* error) const override {
    if (error) *error = key + ": this OS has no registry";
    return std::nullopt;
  }
};

}  // namespace

const Registry& no_registry() {
  static const NoRegistry r;
  return r;
}

}  // namespace gpuready
