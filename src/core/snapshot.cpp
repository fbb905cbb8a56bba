// JSON (de)serialisation of the Snapshot. Field names are the public schema
// (docs/snapshot.md): rename nothing without bumping kSnapshotSchema.
#include "core/snapshot.h"

#include <stdexcept>

namespace gpuready {

std::string framework_of_package(const std::string& name) {
  if (name == "torch") return "pytorch";
  if (name == "jax") return "jax";
  static const char* kTensorflow[] = {"tensorflow",       "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel",
                                      "tensorflow-macos", "tf-nightly",     "tf-nightly-gpu", "tf-nightly-cpu"};
  for (const char* t : kTensorflow)
    if (name == t) return "tensorflow";
  return "";
}

void to_json(nlohmann::json& j, const Snapshot& s) {
  j = nlohmann::json{{"schema", s.schema},
                     {"gpuready_version", s.gpuready_version},
                     {"created_utc", s.created_utc},
                     {"hostname", s.hostname},
                     {"os", s.os},
                     {"cpu", s.cpu},
                     {"pci_gpus", s.pci_gpus},
                     {"nvidia", s.nvidia},
                     {"toolkits", s.toolkits},
                     {"libraries", s.libraries},
                     {"python", s.python},
                     {"timings", s.timings},
                     {"notes", s.notes}};
  if (!s.frameworks.empty()) j["frameworks"] = s.frameworks;        // only deep probes and verify's snapshots
  if (!s.measurements.empty()) j["measurements"] = s.measurements;  // only verify's snapshots have them
  // Snapshots from before the security collector (and of machines it found nothing on) stay as they were.
  if (nlohmann::json sec = s.security; sec != nlohmann::json(SecurityFacts{})) j["security"] = std::move(sec);
}

void from_json(const nlohmann::json& j, Snapshot& s) {
  if (!j.is_object()) throw std::runtime_error("not a gpuready snapshot: the document is not a JSON object");
  const auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string())
    throw std::runtime_error("not a gpuready snapshot: no \"schema\" field");
  if (schema->get<std::string>() != kSnapshotSchema)
    throw std::runtime_error("unsupported snapshot schema \"" + schema->get<std::string>() + "\" (this gpuready reads " +
                             kSnapshotSchema + ")");
  Snapshot d;
  s.schema = schema->get<std::string>();
  s.gpuready_version = j.value("gpuready_version", d.gpuready_version);
  s.created_utc = j.value("created_utc", d.created_utc);
  s.hostname = j.value("hostname", d.hostname);
  s.os = j.value("os", d.os);
  s.cpu = j.value("cpu", d.cpu);
  s.pci_gpus = j.value("pci_gpus", d.pci_gpus);
  s.nvidia = j.value("nvidia", d.nvidia);
  s.toolkits = j.value("toolkits", d.toolkits);
  s.libraries = j.value("libraries", d.libraries);
  s.python = j.value("python", d.python);
  s.frameworks = j.value("frameworks", d.frameworks);
  s.timings = j.value("timings", d.timings);
  s.notes = j.value("notes", d.notes);
  s.measurements = j.value("measurements", d.measurements);
  s.security = j.value("security", d.security);
}

nlohmann::json snapshot_to_json(const Snapshot& s) { return s; }

Snapshot snapshot_from_json(const nlohmann::json& j) {
  Snapshot s;
  try {
    from_json(j, s);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed snapshot: ") + e.what());
  }
  return s;
}

}  // namespace gpuready
