// A stand-in for a training engine module (train/engine_abi.h), to test how `gpuready bench` runs
// the GPU engine in its child process: GPUREADY_FAKE_ENGINE=hang never returns from
// gpuready_train_run (the child must be stopped at --timeout), =crash aborts the process (the
// child's death must be reported), anything else answers a reply with one epoch.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "train/engine_abi.h"

extern "C" {

GPUREADY_TRAIN_EXPORT int gpuready_train_abi(void) { return GPUREADY_TRAIN_ABI; }

GPUREADY_TRAIN_EXPORT char* gpuready_train_run(const char*, const gpuready_train_data*,
                                               gpuready_train_progress progress, void* ctx) {
  const char* mode = std::getenv("GPUREADY_FAKE_ENGINE");
  const std::string m = mode ? mode : "";
  if (progress) progress(0, 1, 2, ctx);
  if (m == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (m == "crash") std::abort();
  const std::string reply = "{\"abi\":" + std::to_string(GPUREADY_TRAIN_ABI) +
                            ",\"engine\":\"fake\",\"device\":\"fake GPU\",\"precision\":\"fp32\",\"steps_per_epoch\":2,"
                            "\"epochs\":[{\"seconds\":0.5,\"train_loss\":2.0,\"train_accuracy\":0.1,\"test_loss\":2.0,"
                            "\"test_accuracy\":0.1}]}";
  char* out = static_cast<char*>(std::malloc(reply.size() + 1));
  std::memcpy(out, reply.c_str(), reply.size() + 1);
  return out;
}

GPUREADY_TRAIN_EXPORT void gpuready_train_free(char* reply) { std::free(reply); }
}
