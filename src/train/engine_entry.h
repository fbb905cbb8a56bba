// The body of a training module's gpuready_train_run (engine_abi.h), shared by the CPU module
// (cpu/module.cpp) and the CUDA module (gpu/train_module.cpp): read the request, train, and hand
// the reply back as malloc'd JSON text. Nothing escapes the C boundary: a bad request or an
// exception becomes the reply's error. Header-only: the modules do not link gpuready_lib.
#pragma once

#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "train/bench_protocol.h"
#include "train/engine_abi.h"

namespace gpuready::train {

// A malloc'd copy of s (the caller frees it with the module's gpuready_train_free).
inline char* malloc_copy(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// train(request, data, progress, ctx) -> TrainReply.
template <class Train>
char* run_train_entry(const char* request_json, const gpuready_train_data* data, gpuready_train_progress progress,
                      void* ctx, Train train) {
  TrainReply reply;
  reply.abi = GPUREADY_TRAIN_ABI;
  try {
    const auto q = nlohmann::json::parse(request_json ? request_json : "").get<TrainRequest>();
    if (!data) throw std::invalid_argument("no data");
    reply = train(q, *data, progress, ctx);
  } catch (const std::exception& e) {
    reply.error = e.what();
  }
  try {
    return malloc_copy(nlohmann::json(reply).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } catch (...) {
    return malloc_copy("{}");
  }
}

}  // namespace gpuready::train
