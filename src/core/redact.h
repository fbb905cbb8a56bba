// A snapshot made fit to post publicly (`gpuready report --redact`, `gpuready probe --save FILE --redact`): the host
// name, the user names in home-folder paths, UUIDs (GPU-..., MIG-..., any 8-4-4-4-12 hex) and IPv4 addresses are
// replaced in every string, consistently (the same name is the same token everywhere: "user-1", "uuid-2"), so the
// page still says which GPU and which folder a finding is about. Version numbers are left alone (a field whose name
// says "version" is never read as an address).
#pragma once

#include <string>

#include "core/snapshot.h"

namespace gpuready {

struct Redaction {
  int hosts = 0, users = 0, uuids = 0, addresses = 0;  // distinct values replaced
  // "the host name, 2 user names, 8 UUIDs and no IP address": what the console says was redacted.
  std::string summary() const;
};

Snapshot redact(const Snapshot& s, Redaction* what = nullptr);

}  // namespace gpuready
