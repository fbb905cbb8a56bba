// Parser for the framework check script's output (see framework_answer.h). Pure text in, values
// out: the answer comes from a child that imported arbitrary code, so nothing in it is trusted.
#include "parse/framework_answer.h"

#include <nlohmann/json.hpp>

#include "parse/clean_text.h"
#include "parse/json_nesting.h"
#include "parse/tf_build_info.h"

namespace gpuready::parse {
namespace {

using nlohmann::json;

constexpr size_t kMaxAnswer = 1u << 20;
constexpr size_t kMaxItems = 256;

std::string text_of(const json& j, const char* key, size_t max = 512) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return clean_text(it->get_ref<const std::string&>(), max);
}

std::optional<long long> int_of(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}

std::optional<double> number_of(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!(v >= 0) || v > 1e12) return std::nullopt;  // NaN, negative or absurd
  return v;
}

bool bool_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

// The version a loaded library gave of itself: {"query": "cudnnGetVersion", "value": 91002} or {"text": "13.0.2"}.
Fact<std::string> library_version(const json& v) {
  if (!v.is_object()) return Fact<std::string>::unknown("the library has no version query gpuready knows");
  const std::string query = text_of(v, "query", 64);
  if (const std::string t = text_of(v, "text", 64); !t.empty()) return t;
  const auto n = int_of(v, "value");
  if (!n) return Fact<std::string>::unknown(query + " gave no number");
  std::string out;
  if (query == "cudnnGetVersion")
    out = cudnn_version_of_int(*n);
  else if (query == "cudaRuntimeGetVersion" || query == "cuDriverGetVersion")
    out = cuda_version_of_int(*n);
  else if (query == "ncclGetVersion")
    out = nccl_version_of_int(*n);
  if (out.empty()) return Fact<std::string>::unknown(query + " gave " + std::to_string(*n));
  return out;
}

// "13.0" for a CUDA build; unknown with the reason otherwise.
Fact<std::string> built_cuda(const json& j, const std::string& framework) {
  if (framework == "jax") {
    if (const auto n = int_of(j, "built_cuda_int")) {
      if (const std::string v = cuda_version_of_int(*n); !v.empty()) return v;
    }
    return Fact<std::string>::unknown("no CUDA plugin loaded (jax._src.lib.cuda_versions is None)");
  }
  if (const std::string hip = text_of(j, "built_hip", 64); !hip.empty())
    return Fact<std::string>::unknown("a ROCm build (HIP " + hip + "), not a CUDA one");
  if (framework == "tensorflow" && j.contains("cuda_build") && !bool_of(j, "cuda_build"))
    return Fact<std::string>::unknown("a CPU-only build (tf.sysconfig.get_build_info()['is_cuda_build'] is False)");
  const std::string v = text_of(j, "built_cuda", 64);
  if (v.empty()) {
    // Only a null it reported means a CPU-only build; no key means the check never got that far.
    const auto it = j.find("built_cuda");
    if (framework == "pytorch" && it != j.end() && it->is_null())
      return Fact<std::string>::unknown("a CPU-only build (torch.version.cuda is None)");
    return Fact<std::string>::unknown(it == j.end() && !j.contains("version") ? "the check did not get that far"
                                                                              : "the framework does not say");
  }
  return framework == "tensorflow" ? normalize_tf_cuda_version(v) : v;
}

Fact<std::string> cudnn_fact(const json& j, const char* text_key, const char* int_key, const std::string& framework) {
  if (const auto n = int_of(j, int_key)) {
    if (const std::string v = cudnn_version_of_int(*n); !v.empty()) return v;
  }
  const std::string v = text_key ? text_of(j, text_key, 64) : std::string();
  if (!v.empty()) return framework == "tensorflow" ? normalize_tf_cuda_version(v) : v;
  return Fact<std::string>::unknown("the framework does not say");
}

}  // namespace

std::string cuda_version_of_int(long long v) {
  if (v < 1000 || v > 999990) return {};
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string cudnn_version_of_int(long long v) {
  if (v >= 90000 && v < 1000000)  // cuDNN 9: major * 10000 + minor * 100 + patch
    return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
  if (v >= 1000 && v < 10000)  // cuDNN 7/8: major * 1000 + minor * 100 + patch
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 100) + "." + std::to_string(v % 100);
  return {};
}

std::string nccl_version_of_int(long long v) {
  if (v >= 20900 && v < 1000000)  // NCCL >= 2.9: major * 10000 + minor * 100 + patch
    return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
  if (v >= 1000 && v < 10000)
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 100) + "." + std::to_string(v % 100);
  return {};
}

std::optional<FrameworkAnswer> parse_framework_answer(std::string_view out, FrameworkCheck& c) {
  // The last marker that starts a line.
  size_t at = std::string_view::npos;
  for (size_t pos = out.find(kFrameworkCheckMarker); pos != std::string_view::npos;
       pos = out.find(kFrameworkCheckMarker, pos + 1))
    if (pos == 0 || out[pos - 1] == '\n') at = pos;
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view line = out.substr(at + kFrameworkCheckMarker.size());
  line = line.substr(0, line.find('\n'));
  if (line.size() > kMaxAnswer || !json_nesting_ok(line, 16)) return std::nullopt;
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;

  FrameworkAnswer a;
  c.arch_list.clear();
  c.devices.clear();
  c.ops.clear();
  c.libraries.clear();
  const std::string fw = text_of(j, "framework", 32);
  a.gpu_available = bool_of(j, "gpu_available");
  c.stage = text_of(j, "stage", 64);
  if (const std::string v = text_of(j, "version", 128); !v.empty())
    c.version = v;
  else
    c.version = Fact<std::string>::unknown("the import did not get that far");
  c.built_cuda = built_cuda(j, fw);
  c.built_cudnn = cudnn_fact(j, "built_cudnn", "built_cudnn_int", fw);
  c.runtime_cudnn = cudnn_fact(j, nullptr, "runtime_cudnn", fw);
  if (const auto n = int_of(j, "runtime_cuda_int"); n && !cuda_version_of_int(*n).empty())
    c.runtime_cuda = cuda_version_of_int(*n);
  else
    c.runtime_cuda = Fact<std::string>::unknown("the framework does not say");
  if (const auto s = number_of(j, "import_seconds"))
    c.import_seconds = *s;
  else
    c.import_seconds = Fact<double>::unknown("the import did not finish");
  c.gpu_error = text_of(j, "gpu_error", 4000);

  if (const auto it = j.find("arch_list"); it != j.end() && it->is_array())
    for (const auto& e : *it)
      if (e.is_string() && c.arch_list.size() < kMaxItems) c.arch_list.push_back(clean_text(e.get<std::string>(), 32));

  if (const auto it = j.find("devices"); it != j.end() && it->is_array())
    for (const auto& e : *it) {
      if (!e.is_object() || c.devices.size() >= kMaxItems) continue;
      FrameworkDevice d;
      d.index = static_cast<int>(int_of(e, "index").value_or(static_cast<long long>(c.devices.size())) & 0xffff);
      d.name = text_of(e, "name", 256);
      if (const std::string cc = text_of(e, "capability", 16); !cc.empty())
        d.compute_capability = cc;
      else
        d.compute_capability = Fact<std::string>::unknown("the framework does not say");
      if (const auto m = int_of(e, "memory_bytes"); m && *m > 0)
        d.memory_bytes = static_cast<std::uint64_t>(*m);
      else
        d.memory_bytes = Fact<std::uint64_t>::unknown("the framework does not say");
      c.devices.push_back(std::move(d));
    }

  if (const auto it = j.find("ops"); it != j.end() && it->is_array())
    for (const auto& e : *it) {
      if (!e.is_object() || c.ops.size() >= 16) continue;
      FrameworkOp op;
      op.name = text_of(e, "name", 64);
      op.error = text_of(e, "error", 4000);
      if (const auto v = number_of(e, "max_error"))
        op.max_error = *v;
      else
        op.max_error = Fact<double>::unknown(op.error.empty() ? "no result to compare" : "it failed");
      if (const auto v = number_of(e, "gpu_ms"))
        op.gpu_ms = *v;
      else
        op.gpu_ms = Fact<double>::unknown("it did not finish");
      c.ops.push_back(std::move(op));
    }

  if (const auto it = j.find("libraries"); it != j.end() && it->is_array())
    for (const auto& e : *it) {
      if (!e.is_object() || c.libraries.size() >= kMaxItems) continue;
      LoadedLibrary l;
      l.path = text_of(e, "path", 4096);
      if (l.path.empty()) continue;
      if (const auto v = e.find("version"); v != e.end()) {
        l.version = library_version(*v);
        if (l.version.has()) l.version_source = text_of(*v, "query", 64);
      } else {
        l.version = Fact<std::string>::unknown("not asked");
      }
      c.libraries.push_back(std::move(l));
    }

  if (const auto it = j.find("error"); it != j.end() && it->is_object()) {
    c.error = text_of(*it, "message", 4000);
    a.error_stage = text_of(*it, "stage", 64);
    if (a.error_stage.empty()) a.error_stage = c.stage;
  }
  return a;
}

std::string last_check_stage(std::string_view err) {
  std::string last;
  for (size_t pos = err.find(kFrameworkStageMarker); pos != std::string_view::npos;
       pos = err.find(kFrameworkStageMarker, pos + 1)) {
    if (pos != 0 && err[pos - 1] != '\n') continue;
    std::string_view rest = err.substr(pos + kFrameworkStageMarker.size());
    last = clean_text(rest.substr(0, rest.find('\n')), 64);
  }
  return last;
}

std::string framework_output(std::string_view out, std::string_view err, size_t max_bytes) {
  std::string all;
  auto add_lines = [&](std::string_view text, std::string_view skip) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string_view::npos) eol = text.size();
      const std::string_view line = text.substr(pos, eol - pos);
      pos = eol + 1;
      if (line.substr(0, skip.size()) == skip) continue;
      const std::string clean = clean_text(line, 2000);
      if (clean.empty()) continue;
      // Keep a traceback's indentation (clean_text trims it).
      size_t indent = 0;
      while (indent < line.size() && indent < 16 && line[indent] == ' ') ++indent;
      all.append(indent, ' ');
      all += clean;
      all += '\n';
    }
  };
  add_lines(err, kFrameworkStageMarker);
  add_lines(out, kFrameworkCheckMarker);
  if (all.size() <= max_bytes) return all;
  // Keep whole lines from both ends (a cut inside a line could split a UTF-8 character).
  const std::string cut = "\n[... the middle left out of " + std::to_string(all.size()) + " bytes ...]\n";
  if (max_bytes < 2 * cut.size()) return {};
  const size_t keep = (max_bytes - cut.size()) / 2;
  size_t head_end = all.rfind('\n', keep);
  head_end = head_end == std::string::npos ? 0 : head_end;
  size_t tail_start = all.find('\n', all.size() - keep);
  tail_start = tail_start == std::string::npos ? all.size() : tail_start + 1;
  return all.substr(0, head_end) + cut + all.substr(tail_start);
}

}  // namespace gpuready::parse
