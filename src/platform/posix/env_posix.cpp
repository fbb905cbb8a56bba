// POSIX implementation of Env: getenv and environ.
#include <cstdlib>

#include "platform/posix/posix_os.h"

extern char** environ;

namespace gpuready {

std::optional<std::string> PosixEnv::get(const std::string& name) const {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

std::map<std::string, std::string> PosixEnv::all() const {
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    out.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return out;
}

}  // namespace gpuready
