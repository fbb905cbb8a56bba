// Parsers for the version files of the CUDA stack (see cuda_headers.h). Pure text in, values
// out: nothing here throws, reads past its input, or trusts a number it did not check.
#include "parse/cuda_headers.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "parse/ascii.h"
#include "parse/json_nesting.h"

namespace gpuready::parse {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A leading dotted-number ("12.4.131" of "12.4.131,"), or empty.
std::string leading_dotted(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (is_digit(s[i]) || (s[i] == '.' && i > 0 && i + 1 < s.size() && is_digit(s[i + 1])))) ++i;
  // Component count is capped so a line of "1.1.1.1..." stays a plausible version.
  std::string out(s.substr(0, i));
  return out.size() > 64 ? std::string() : out;
}

// Small non-negative integer from a macro value: "12", "12U", "(12)". nullopt otherwise.
std::optional<long> small_int(std::string_view v) {
  v = trim(v);
  while (v.size() >= 2 && v.front() == '(' && v.back() == ')') v = trim(v.substr(1, v.size() - 2));
  while (!v.empty() && (v.back() == 'U' || v.back() == 'u' || v.back() == 'L' || v.back() == 'l')) v.remove_suffix(1);
  if (v.empty() || v.size() > 9) return std::nullopt;
  long n = 0;
  for (char c : v) {
    if (!is_digit(c)) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Resolves a macro to an integer through at most a few aliases (TensorRT's TRT_*_ENTERPRISE).
std::optional<long> resolve_int(const std::map<std::string, std::string>& defs, const std::string& name) {
  std::string cur = name;
  for (int depth = 0; depth < 4; ++depth) {
    auto it = defs.find(cur);
    if (it == defs.end()) return std::nullopt;
    if (auto n = small_int(it->second)) return n;
    std::string_view v = trim(it->second);
    if (v.empty() || v.size() > 128) return std::nullopt;
    for (char c : v)
      if (!is_ident(c)) return std::nullopt;
    cur = std::string(v);
  }
  return std::nullopt;
}

std::optional<std::string> dotted_from_macros(std::string_view text, const char* major, const char* minor,
                                              const char* patch, const char* build = nullptr) {
  const auto defs = parse_defines(text);
  auto ma = resolve_int(defs, major);
  auto mi = resolve_int(defs, minor);
  if (!ma || !mi) return std::nullopt;
  std::string out = std::to_string(*ma) + "." + std::to_string(*mi);
  auto pa = resolve_int(defs, patch);
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on `"." + std::to_string(...)` at -O2.
  if (pa) out.append(".").append(std::to_string(*pa));
  if (pa && build) {
    if (auto bu = resolve_int(defs, build)) out.append(".").append(std::to_string(*bu));
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> parse_defines(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < text.size() && out.size() < 20000) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty() || line[0] != '#') continue;
    line = trim(line.substr(1));
    if (line.substr(0, 6) != "define") continue;
    line = line.substr(6);
    if (line.empty() || (line[0] != ' ' && line[0] != '\t')) continue;
    line = trim(line);
    size_t n = 0;
    while (n < line.size() && is_ident(line[n])) ++n;
    if (n == 0 || n > 256) continue;
    std::string name(line.substr(0, n));
    if (n < line.size() && line[n] == '(') continue;  // function-like macro
    std::string_view value = line.substr(n);
    if (auto c = value.find("//"); c != std::string_view::npos) value = value.substr(0, c);
    if (auto c = value.find("/*"); c != std::string_view::npos) value = value.substr(0, c);
    out.emplace(std::move(name), std::string(trim(value)));
  }
  return out;
}

std::optional<CudaVersionJson> parse_cuda_version_json(std::string_view text) {
  if (text.size() > (1u << 20) || !json_nesting_ok(text, 32)) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  CudaVersionJson out;
  for (const auto& [key, value] : j.items()) {
    if (!value.is_object()) continue;
    auto v = value.find("version");
    if (v == value.end() || !v->is_string()) continue;
    const std::string version = leading_dotted(v->get<std::string>());
    if (version.empty()) continue;
    if (key == "cuda") out.cuda = version;
    else out.components.emplace(key, version);
  }
  return out;
}

std::optional<std::string> parse_cuda_version_txt(std::string_view text) {
  const auto at = text.find("CUDA Version ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string v = leading_dotted(text.substr(at + 13));
  if (v.empty()) return std::nullopt;
  return v;
}

std::optional<std::string> parse_cuda_h_version(std::string_view text) {
  const auto defs = parse_defines(text);
  auto v = resolve_int(defs, "CUDA_VERSION");
  if (!v || *v < 1000) return std::nullopt;
  return std::to_string(*v / 1000) + "." + std::to_string((*v % 1000) / 10);
}

std::optional<std::string> parse_cudnn_header_version(std::string_view text) {
  return dotted_from_macros(text, "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL");
}

std::optional<std::string> parse_nccl_header_version(std::string_view text) {
  return dotted_from_macros(text, "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH");
}

std::optional<std::string> parse_tensorrt_header_version(std::string_view text) {
  return dotted_from_macros(text, "NV_TENSORRT_MAJOR", "NV_TENSORRT_MINOR", "NV_TENSORRT_PATCH", "NV_TENSORRT_BUILD");
}

std::optional<std::string> parse_cublas_header_version(std::string_view text) {
  return dotted_from_macros(text, "CUBLAS_VER_MAJOR", "CUBLAS_VER_MINOR", "CUBLAS_VER_PATCH", "CUBLAS_VER_BUILD");
}

std::optional<std::string> parse_nvcc_version_output(std::string_view text) {
  const auto rel = text.find("release ");
  if (rel == std::string_view::npos) return std::nullopt;
  std::string short_v = leading_dotted(text.substr(rel + 8));
  if (short_v.empty()) return std::nullopt;
  // The full version follows as ", V12.4.131" on the same line.
  size_t eol = text.find('\n', rel);
  std::string_view line = text.substr(rel, eol == std::string_view::npos ? std::string_view::npos : eol - rel);
  if (auto vpos = line.find(", V"); vpos != std::string_view::npos) {
    std::string full = leading_dotted(line.substr(vpos + 3));
    if (!full.empty() && full.rfind(short_v, 0) == 0) return full;
  }
  return short_v;
}

std::optional<LibraryFileName> parse_library_file_name(std::string_view name) {
  if (name.empty() || name.size() > 255) return std::nullopt;
  // Windows: <stem>[64][_<digits>[_<digits>]].dll
  if (name.size() > 4 && iequals(name.substr(name.size() - 4), ".dll")) {
    std::string_view base = name.substr(0, name.size() - 4);
    std::string_view digits_group;
    // Peel trailing "_<digits>" groups; the first (leftmost) one carries the version.
    while (true) {
      const auto us = base.rfind('_');
      if (us == std::string_view::npos || us == 0) break;
      std::string_view tail = base.substr(us + 1);
      if (!all_digits(tail)) break;
      digits_group = tail;
      base = base.substr(0, us);
    }
    if (base.size() > 2 && base.substr(base.size() - 2) == "64" && !is_digit(base[base.size() - 3]))
      base.remove_suffix(2);
    if (base.empty()) return std::nullopt;
    LibraryFileName out;
    out.stem = std::string(base);
    out.windows = true;
    if (digits_group.size() >= 3 && digits_group.size() <= 5) {
      // "110" -> 11.0, "120" (nvJitLink_120_0) -> 12.0, "101" -> 10.1
      out.version = std::to_string(std::stol(std::string(digits_group.substr(0, digits_group.size() - 1)))) + "." +
                    std::string(digits_group.substr(digits_group.size() - 1));
    } else if (!digits_group.empty() && digits_group.size() <= 2) {
      out.version = std::string(digits_group);
    } else if (!digits_group.empty()) {
      return std::nullopt;
    }
    return out;
  }
  // Linux: <stem>.so[.<n>[.<n>...]]
  size_t p = 0;
  while ((p = name.find(".so", p)) != std::string_view::npos) {
    if (p > 0 && (p + 3 == name.size() || name[p + 3] == '.')) break;
    p += 3;
  }
  if (p == std::string_view::npos) return std::nullopt;
  LibraryFileName out;
  out.stem = std::string(name.substr(0, p));
  if (p + 3 == name.size()) return out;
  std::string_view rest = name.substr(p + 4);
  // Every component must be a number: "libfoo.so.1.debug" is not a library.
  size_t parts = 0;
  size_t start = 0;
  while (start <= rest.size()) {
    size_t dot = rest.find('.', start);
    std::string_view comp = rest.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!all_digits(comp) || comp.size() > 9 || ++parts > 8) return std::nullopt;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  out.version = std::string(rest);
  return out;
}

}  // namespace gpuready::parse
