// Shared by the fake NVIDIA libraries: reads the scenario JSON named by GPUREADY_FAKE_DRIVER
// (tests/fixtures/nvidia/*.json) and answers typed lookups without ever throwing across the C ABI.
#pragma once

#ifndef _WIN32
#include <sys/resource.h>
#endif

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace fake {

using json = nlohmann::json;

// Re-read on every entry call (nvmlInit_v2, cuDriverGetVersion, cuInit): the test process may keep a
// fake mapped across scenarios, so no answer may outlive the scenario that gave it.
inline json load_config() {
  const char* path = std::getenv("GPUREADY_FAKE_DRIVER");
  if (!path || !*path) return json::object();
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  return j.is_object() ? j : json::object();
}

inline bool get_bool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

inline bool has_number(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number();
}

inline long long get_int(const json& j, const char* key, long long fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<long long>() : fallback;
}

inline bool has_string(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string();
}

inline std::string get_string(const json& j, const char* key, const std::string& fallback = {}) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

inline const json& gpus(const json& cfg) {
  static const json empty = json::array();
  auto it = cfg.find("gpus");
  return it != cfg.end() && it->is_array() ? *it : empty;
}

// "00000000:18:00.0" -> domain, bus, device.
inline bool parse_bus_id(const std::string& s, unsigned* domain, unsigned* bus, unsigned* device) {
  unsigned d = 0, b = 0, dev = 0, fn = 0;
  if (std::sscanf(s.c_str(), "%x:%x:%x.%x", &d, &b, &dev, &fn) != 4) return false;
  *domain = d;
  *bus = b;
  *device = dev;
  return true;
}

// "9.0" -> 9, 0.
inline bool parse_cc(const std::string& s, int* major, int* minor) {
  return std::sscanf(s.c_str(), "%d.%d", major, minor) == 2;
}

inline void copy_string(const std::string& s, char* buf, unsigned length) {
  std::strncpy(buf, s.c_str(), length);
  buf[length - 1] = '\0';
}

inline void sleep_ms(long long ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// A library that dies while being loaded, like a broken driver install can: no core file, just the signal.
inline void crash_now() {
#ifndef _WIN32
  rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
#endif
  std::raise(SIGSEGV);
}

}  // namespace fake
