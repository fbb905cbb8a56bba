// libFuzzer target for the Python environment parsers: dist-info METADATA / PKG-INFO headers,
// PEP 503 names, dist-info and conda-meta file names, and pyvenv.cfg. Any bytes must parse or
// be refused, never crash, and never leave invalid UTF-8 in a result (the Snapshot is JSON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "parse/python_metadata.h"
#include "parse/pyvenv_cfg.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace p = gpuready::parse;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto m = p::core_metadata(in);
  const auto name = p::normalize_package_name(in);
  (void)p::local_version_label(in);
  const auto d = p::dist_folder_name(in);
  const auto c = p::conda_meta_name(in);
  const auto cfg = p::pyvenv_cfg(in);
  (void)p::python_version_prefix(in);
  // Everything that reaches the Snapshot must serialise (nlohmann throws on invalid UTF-8).
  nlohmann::json j = {m.name, m.version, cfg.version, cfg.home, cfg.values};
  if (d) j.push_back({d->name, d->version});
  if (c) j.push_back({c->name, c->version, c->build});
  (void)j.dump();
  if (name.size() > in.size()) std::abort();
  return 0;
}
