// TensorFlow build_info.py parser (see tf_build_info.h). It looks for 'key' followed by ':'
// (dict literal) or ',' (OrderedDict pair) and a value, plus the old module variables, so
// the exact surrounding syntax does not matter.
#include "parse/tf_build_info.h"

#include <cctype>

#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "parse/python_literal.h"

namespace gpuready::parse {
namespace {

void set_value(TfBuildInfo& b, std::string_view key, const PyValue& v) {
  auto str = [&](std::optional<std::string>& slot) {
    if (!slot && v.kind == PyValue::Kind::string) slot = clean_text(v.text, 200);
  };
  auto flag = [&](std::optional<bool>& slot) {
    if (!slot && v.kind == PyValue::Kind::boolean) slot = v.flag;
  };
  if (key == "cuda_version" || key == "cuda_version_number")
    str(b.cuda_version_raw);
  else if (key == "cudnn_version" || key == "cudnn_version_number")
    str(b.cudnn_version_raw);
  else if (key == "is_cuda_build")
    flag(b.is_cuda_build);
  else if (key == "is_rocm_build")
    flag(b.is_rocm_build);
  else if (key == "is_tensorrt_build")
    flag(b.is_tensorrt_build);
  else if (key == "cudart_dll_name")
    str(b.cudart_dll_name);
  else if (key == "cudnn_dll_name")
    str(b.cudnn_dll_name);
}

}  // namespace

std::string normalize_tf_cuda_version(std::string_view raw) {
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front()))) raw.remove_prefix(1);
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.remove_suffix(1);
  if (raw.substr(0, 3) == "64_") {
    std::string_view d = raw.substr(3);
    if (all_digits(d) && d.size() <= 4) {
      if (d.size() == 1) return std::string(d);  // cuDNN "64_8" -> "8"
      // CUDA "110" -> "11.0", "101" -> "10.1", "92" -> "9.2": the last digit is the minor.
      return std::string(d.substr(0, d.size() - 1)) + "." + std::string(d.substr(d.size() - 1));
    }
  }
  return std::string(raw);
}

TfBuildInfo tf_build_info(std::string_view text) {
  TfBuildInfo b;
  // Dict / OrderedDict entries: a string key followed by ':' or ','.
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\'' && text[i] != '"') continue;
    size_t end = i;
    auto key = py_string_at(text, i, &end);
    if (!key) continue;
    size_t p = end;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p < text.size() && (text[p] == ':' || text[p] == ',')) {
      size_t vend = p + 1;
      const PyValue v = py_value_at(text, p + 1, &vend);
      set_value(b, *key, v);
      // Continue after the key only: the value may itself be the next key of a list.
    }
    i = end - 1;
  }
  // TF 1.x module variables.
  for (const auto& a : py_assignments(text)) set_value(b, a.name, a.value);
  if (b.cuda_version_raw) b.cuda_version = normalize_tf_cuda_version(*b.cuda_version_raw);
  if (b.cudnn_version_raw) b.cudnn_version = normalize_tf_cuda_version(*b.cudnn_version_raw);
  return b;
}

}  // namespace gpuready::parse
