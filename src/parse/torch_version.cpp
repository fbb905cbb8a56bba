// torch/version.py parser (see torch_version.h).
#include "parse/torch_version.h"

#include "parse/ascii.h"
#include "parse/clean_text.h"
#include "parse/python_literal.h"
#include "parse/python_metadata.h"

namespace gpuready::parse {

TorchVersion torch_version(std::string_view text) {
  TorchVersion t;
  for (const auto& a : py_assignments(text)) {
    const bool is_str = a.value.kind == PyValue::Kind::string;
    auto text_of = [&] { return clean_text(a.value.text, 120); };
    if (a.name == "__version__" && is_str) {
      t.version = text_of();
    } else if (a.name == "cuda") {
      t.cuda_present = true;
      t.cuda = is_str ? std::optional<std::string>(text_of()) : std::nullopt;
    } else if (a.name == "hip" && is_str) {
      t.hip = text_of();
    } else if (a.name == "rocm" && is_str) {
      t.rocm = text_of();
    } else if (a.name == "git_version" && is_str) {
      t.git_version = text_of();
    }
  }
  return t;
}

std::string torch_variant(std::string_view version, const std::optional<std::string>& cuda, bool hip, bool says_cuda) {
  std::string variant = local_version_label(version);
  if (!variant.empty()) return variant;
  if (cuda) {
    variant = "cu";
    for (char c : *cuda)
      if (is_digit(c)) variant += c;
    return variant;
  }
  if (hip) return "rocm";
  return says_cuda ? "cpu" : "";
}

}  // namespace gpuready::parse
