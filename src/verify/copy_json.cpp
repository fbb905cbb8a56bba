// CopyResult / CopyReport as JSON: what `gpuready __verify-copy` prints on one line and the parent
// reads back. Absent keys keep their defaults, so an older or a partial child's answer still reads.
#include "verify/copy.h"

namespace gpuready::verify {

namespace {

template <class T>
void get_if(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) it->get_to(out);
}

}  // namespace

void to_json(nlohmann::json& j, const CopyResult& r) {
  j = nlohmann::json{{"key", r.key},
                     {"device", r.device},
                     {"peer", r.peer},
                     {"bytes", r.bytes},
                     {"copies_per_sample", r.copies_per_sample},
                     {"seconds", r.seconds},
                     {"bytes_factor", r.bytes_factor},
                     {"verified", r.verified},
                     {"verify_detail", r.verify_detail},
                     {"error", r.error},
                     {"method", r.method},
                     {"link_gen", r.link_gen},
                     {"link_width", r.link_width}};
}

void from_json(const nlohmann::json& j, CopyResult& r) {
  r = CopyResult{};
  get_if(j, "key", r.key);
  get_if(j, "device", r.device);
  get_if(j, "peer", r.peer);
  get_if(j, "bytes", r.bytes);
  get_if(j, "copies_per_sample", r.copies_per_sample);
  get_if(j, "seconds", r.seconds);
  get_if(j, "bytes_factor", r.bytes_factor);
  get_if(j, "verified", r.verified);
  get_if(j, "verify_detail", r.verify_detail);
  get_if(j, "error", r.error);
  get_if(j, "method", r.method);
  get_if(j, "link_gen", r.link_gen);
  get_if(j, "link_width", r.link_width);
}

void to_json(nlohmann::json& j, const CopyReport& r) {
  j = nlohmann::json{{"steps", r.steps},           {"device_count", r.device_count}, {"device_name", r.device_name},
                     {"pci_bus_id", r.pci_bus_id}, {"numa_node", r.numa_node},       {"peer_access", r.peer_access},
                     {"results", r.results}};
}

void from_json(const nlohmann::json& j, CopyReport& r) {
  r = CopyReport{};
  get_if(j, "steps", r.steps);
  get_if(j, "device_count", r.device_count);
  get_if(j, "device_name", r.device_name);
  get_if(j, "pci_bus_id", r.pci_bus_id);
  get_if(j, "numa_node", r.numa_node);
  get_if(j, "peer_access", r.peer_access);
  get_if(j, "results", r.results);
}

}  // namespace gpuready::verify
