// libFuzzer target for the framework build files read without importing them: TensorFlow's
// build_info.py (all released formats), torch/version.py, and the Python literal reader under both.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "parse/python_literal.h"
#include "parse/tf_build_info.h"
#include "parse/torch_version.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace p = gpuready::parse;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto b = p::tf_build_info(in);
  const auto t = p::torch_version(in);
  (void)p::normalize_tf_cuda_version(in);
  (void)p::py_assignments(in);
  size_t end = 0;
  for (size_t i = 0; i < in.size() && i < 64; ++i) {
    (void)p::py_string_at(in, i, &end);
    (void)p::py_value_at(in, i, &end);
  }
  nlohmann::json j = {b.cuda_version.value_or(""), b.cudnn_version.value_or(""), b.cudart_dll_name.value_or(""),
                      t.version.value_or(""),      t.cuda.value_or(""),          t.hip.value_or("")};
  (void)j.dump();
  return 0;
}
