// The recognisers (signatures, vendor codes, library names) and the story they make of a log.
#include "explain/explainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "explain/log_text.h"
#include "parse/ascii.h"
#include "platform/os.h"

namespace gpuready::explain {

struct Explainer::Impl {
  explicit Impl(const knowledge::Compat& kk) : k(kk), library_names(kk) {}
  const knowledge::Compat& k;
  LibraryNameDecoder library_names;

  struct Sig {
    Sig(const knowledge::ErrorSignatureRow* r, std::unique_ptr<Pattern> p, bool m) : row(r), multiline(m), re_(std::move(p)) {
      if (re_) std::call_once(once_, [] {});  // compiled already (an eager Explainer): re() keeps it
    }
    const knowledge::ErrorSignatureRow* row;
    // Compiled at first use when the Explainer was built lazily (the embedded tables, whose every
    // pattern the tests compile): a paste reaches few of the rows, and compiling all of them was a
    // fifth of every start. A pattern that does not compile then matches nothing.
    [[nodiscard]] const Pattern* re() const {
      std::call_once(once_, [this] { re_ = Pattern::compile(row->pattern, nullptr); });
      return re_.get();
    }
    bool multiline;  // the pattern allows whitespace: also tried on the line joined with the next four

   private:
    mutable std::once_flag once_;
    mutable std::unique_ptr<Pattern> re_;
  };
  std::deque<Sig> sigs;  // a deque: a Sig (its once_flag) never moves
  // Every literal explain looks for on a line, in one automaton: each line is walked once. A
  // hit's id is (tag << 24) | the id within its kind. Signatures' and messages' literals are cut
  // to their first 16 bytes (the automaton stays small); a message's whole text is then compared.
  enum Tag : uint32_t { kSig = 0, kNumber = 1, kMessage = 2, kLib = 3, kFailure = 4, kCondition = 5, kDisagree = 6 };
  static constexpr uint32_t kIdBits = 24;
  static constexpr size_t kPrefix = 16;
  LiteralSet line_literals;
  std::vector<uint32_t> always;  // signatures without a required literal (run on every line)

  // Vendor codes.
  struct NameHash {  // looked up by string_view, no copy per word of a line
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::vector<const knowledge::ErrorCodeRow*>, NameHash, std::equal_to<>>
      code_by_name;  // exact
  std::unordered_map<std::string, std::vector<std::string>> counterparts;  // runtime <-> driver name of one number
  bool plain_names = false;  // some code's name is one plain word (then every word is looked up)
  std::vector<const knowledge::ErrorCodeRow*> message_rows;  // kMessage ids
  std::vector<std::string> message_text;                     // each one's text as matched (lower case)
  // Messages of three words or more, as loose_words() reads them (the loose message match).
  std::vector<std::pair<const knowledge::ErrorCodeRow*, std::vector<std::string>>> message_words;
  struct NumberRule {
    std::unique_ptr<Pattern> re;
    std::string family;  // the family whose number group 1 is
  };
  std::vector<NumberRule> number_rules;  // kNumber ids

  // Library phrases.
  struct LibPhrase {
    std::string code;   // "library.missing", "library.undefined-symbol", ...
    bool name_before;   // the library is named before the phrase ("X: cannot open shared object file")
    bool known_only = false;  // claims only a library the tables know
  };
  std::vector<LibPhrase> lib_phrases;  // kLib ids

  [[nodiscard]] std::vector<const knowledge::ErrorCodeRow*> rows_by_number(const std::string& family, long n) const;
};

namespace {

// A map keyed by std::string, looked up by a string_view without a copy where the C++ library has heterogeneous
// unordered lookup (libstdc++ 11+); the portable Linux build's (Debian 11, libstdc++ 10) copies the key.
template <class Map>
auto find_name(const Map& map, std::string_view key) {
#if defined(__cpp_lib_generic_unordered_lookup)
  return map.find(key);
#else
  return map.find(std::string(key));
#endif
}

// A code's name has an underscore (CUDNN_STATUS_x, HSA_STATUS_x) or is camel case after its
// first letters (cudaErrorX, hipErrorX, ncclSystemError): the words of a line that could be one.
bool code_shaped(std::string_view word) {
  for (size_t q = 1; q < word.size(); ++q)
    if (word[q] == '_' || (word[q] >= 'A' && word[q] <= 'Z' &&
                           ((word[q - 1] >= 'a' && word[q - 1] <= 'z') || parse::is_digit(word[q - 1]))))
      return true;
  return false;
}

std::string family_label(const std::string& family) {
  static const std::map<std::string, std::string> labels = {
      {"cuda-runtime", "CUDA runtime"}, {"cuda-driver", "CUDA driver API"}, {"nvrtc", "NVRTC"},
      {"nvjitlink", "nvJitLink"},       {"cudnn", "cuDNN"},                  {"cublas", "cuBLAS"},
      {"cusolver", "cuSOLVER"},         {"cufft", "cuFFT"},                  {"cusparse", "cuSPARSE"},
      {"curand", "cuRAND"},             {"nccl", "NCCL"},                    {"hip", "HIP"},
      {"hsa", "HSA (ROCm runtime)"},    {"rocblas", "rocBLAS"},              {"hipblas", "hipBLAS"},
      {"miopen", "MIOpen"},             {"xid", "NVIDIA driver"},            {"nvml", "NVML (NVIDIA management library)"},
      {"level-zero", "Level Zero (Intel GPU driver API)"}, {"sycl-ur", "SYCL Unified Runtime (Intel oneAPI)"},
      {"sycl-pi", "SYCL plugin interface (Intel oneAPI)"}, {"vulkan", "Vulkan"},
      {"optix", "OptiX (NVIDIA ray tracing)"}, {"dcgm", "DCGM (NVIDIA Data Center GPU Manager)"},
      {"rsmi", "ROCm SMI"}, {"amdsmi", "AMD SMI"}, {"opencl", "OpenCL"},
      {"cupti", "CUPTI (CUDA profiling interface)"}};
  auto it = labels.find(family);
  return it == labels.end() ? family : it->second;
}

// The word a line must hold for a family's short message text to count as that family's ("out
// of memory" is CUDA's only on a line that says CUDA).
std::string family_word(const std::string& family) {
  if (family == "cuda-runtime" || family == "cuda-driver") return "cuda";
  if (family == "hsa") return "hsa";
  return family;
}

// Words of a line that says something failed (the library fallback's condition).
constexpr const char* kFailureWords[] = {"not found", "missing", "cannot", "can't", "could not", "couldn't",
                                         "unable", "failed", "no such file", "error"};

// The words of the condition topics and of version disagreements (defined with them below), added
// to a set with ids base | their own.
void add_condition_words(LiteralSet& set, uint32_t base);
void add_disagree_words(LiteralSet& set, uint32_t base);

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether a line names a family: its word, or for CUDA also a driver API call ("cuMemAlloc
// failed: out of memory"), JAX's gpu* wrappers of the CUDA/HIP runtime ("operation
// gpuGetLastError() failed: out of memory") or the GPUassert macro of countless CUDA samples.
bool line_names_family(const LogLine& L, const std::string& family) {
  if (L.lower.find(family_word(family)) != std::string::npos) return true;
  if (family != "cuda-runtime" && family != "cuda-driver") return false;
  if (L.lower.find("gpuassert") != std::string::npos) return true;
  // A CUDA source file the error was raised in ("... at line 233 in file /src/csrc/ops.cu", "kernel.cuh:40"):
  // a CUDA_CHECK-style macro printed the runtime's message.
  for (size_t at = L.lower.find(".cu"); at != std::string::npos; at = L.lower.find(".cu", at + 3)) {
    size_t end = at + 3;
    if (end < L.lower.size() && L.lower[end] == 'h') ++end;
    if (at > 0 && is_word_char(L.lower[at - 1]) && (end == L.lower.size() || !is_word_char(L.lower[end]))) return true;
  }
  auto call_with_prefix = [&](std::string_view prefix) {  // prefix + "Xy...": cuMemAlloc, gpuGetLastError
    for (size_t at = L.text.find(prefix); at != std::string::npos; at = L.text.find(prefix, at + prefix.size())) {
      const size_t c = at + prefix.size();
      if ((at == 0 || !is_word_char(L.text[at - 1])) && c + 1 < L.text.size() && L.text[c] >= 'A' && L.text[c] <= 'Z' &&
          L.text[c + 1] >= 'a' && L.text[c + 1] <= 'z')
        return true;
    }
    return false;
  };
  return call_with_prefix("cu") || call_with_prefix("gpu");
}

// "LibRmVersionMismatch" -> "LIB_RM_VERSION_MISMATCH", "IRQIssue" -> "IRQ_ISSUE": a word starts at a capital after a
// small letter or digit, or at the last capital of an acronym.
std::string camel_to_upper_snake(std::string_view camel) {
  std::string out;
  for (size_t q = 0; q < camel.size(); ++q) {
    const char ch = camel[q];
    const bool upper = ch >= 'A' && ch <= 'Z';
    const auto lower_at = [&](size_t i) { return i < camel.size() && camel[i] >= 'a' && camel[i] <= 'z'; };
    const bool prev_upper = q > 0 && camel[q - 1] >= 'A' && camel[q - 1] <= 'Z';
    if (upper && q > 0 && (!prev_upper || lower_at(q + 1)) && camel[q - 1] != '_') out += '_';
    out += static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  }
  return out;
}

// Whether the line names OpenCL: the word, pyopencl, or an OpenCL call ("clGetPlatformIDs failed").
bool line_names_opencl(const LogLine& L) {
  if (L.lower.find("opencl") != std::string::npos) return true;
  for (size_t at = L.text.find("cl"); at != std::string::npos; at = L.text.find("cl", at + 2))
    if ((at == 0 || !is_word_char(L.text[at - 1])) && at + 3 < L.text.size() && L.text[at + 2] >= 'A' && L.text[at + 2] <= 'Z' &&
        L.text[at + 3] >= 'a' && L.text[at + 3] <= 'z')
      return true;
  return false;
}

// A vendor code as a binding or wrapper prints it, by the name its header gives it: a HIP error as TensorFlow's
// ROCm stream executor prints it ("could not retrieve ROCM device count: HIP_ERROR_NoDevice": "HIP_ERROR_" and
// the name without "hipError"); an NVML return code as pynvml's exception class ("NVMLError_LibRmVersionMismatch",
// "NVMLError_IRQIssue") or go-nvml's name without the prefix ("ERROR_LIBRARY_NOT_FOUND", only on a line that says
// NVML: Win32 has ERROR_NOT_FOUND too); a VkResult without its VK_ on a line that says Vulkan, or as Vulkan-Hpp's
// exceptions print it ("vk::createInstanceUnique: ErrorIncompatibleDriver"); an OpenCL status without its CL_ as
// pyopencl prints it ("clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR"). Empty when the word is none of these.
std::string binding_code_name(std::string_view tok, const LogLine& L) {
  constexpr std::string_view pynvml = "NVMLError_", go = "ERROR_", tf_hip = "HIP_ERROR_", vk_hpp = "Error";
  if (tok.substr(0, tf_hip.size()) == tf_hip && tok.size() > tf_hip.size() && tok[tf_hip.size()] >= 'A' &&
      tok[tf_hip.size()] <= 'Z' && tok.back() >= 'a' && tok.back() <= 'z')
    return "hipError" + std::string(tok.substr(tf_hip.size()));
  if (tok.substr(0, pynvml.size()) == pynvml && tok.size() > pynvml.size())
    return "NVML_ERROR_" + camel_to_upper_snake(tok.substr(pynvml.size()));
  if (tok.substr(0, vk_hpp.size()) == vk_hpp && tok.size() > vk_hpp.size() && tok[vk_hpp.size()] >= 'A' &&
      tok[vk_hpp.size()] <= 'Z' && L.text.find("vk::") != std::string::npos)
    return "VK_" + camel_to_upper_snake(tok);
  if (tok.substr(0, go.size()) == go && tok.size() > go.size()) {
    if (L.lower.find("nvml") != std::string::npos) return "NVML_" + std::string(tok);
    // Rust's ash/vulkano print a VkResult as "VkError(ERROR_INCOMPATIBLE_DRIVER)" / "ERROR_INITIALIZATION_FAILED".
    if (L.lower.find("vulkan") != std::string::npos || L.lower.find("vkerror") != std::string::npos ||
        L.lower.find("vkresult") != std::string::npos)
      return "VK_" + std::string(tok);
  }
  if (tok.find('_') != std::string_view::npos && std::none_of(tok.begin(), tok.end(), [](char c) { return c >= 'a' && c <= 'z'; }) &&
      tok.substr(0, 3) != "CL_" && line_names_opencl(L))
    return "CL_" + std::string(tok);
  return {};
}

std::string shown(std::string_view line) {
  std::string s(parse::trim(line));
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

// The line as the paste has it (without what explain put in to read it).
std::string own_text(const LogLine& L) {
  if (L.added == 0) return L.text;
  return L.text.substr(0, L.added_at) + L.text.substr(L.added_at + L.added);
}

// A row's cause or fix line with "$1".."$9" replaced by what that group of its pattern captured on
// the line (cut like evidence); a group that captured nothing reads "(see the line)".
std::string with_groups(const std::string& text, const std::vector<std::string>& groups) {
  if (text.find('$') == std::string::npos) return text;
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] >= '1' && text[i + 1] <= '9') {
      const size_t g = static_cast<size_t>(text[i + 1] - '1');
      out += g < groups.size() && !groups[g].empty() ? shown(groups[g]) : "(see the line)";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// What the machine says about a library file name the error mentions.
void library_facts(const Snapshot& s, const std::string& name, std::vector<std::string>& out) {
  const std::string want = parse::ascii_lower(path_file_name(name));
  std::vector<std::string> where;
  for (const auto& c : s.libraries.copies)
    if (parse::ascii_lower(c.file_name) == want || parse::ascii_lower(c.soname) == want) where.push_back(c.path);
  bool resolved = false;
  for (const auto& r : s.libraries.resolutions)
    if (parse::ascii_lower(r.soname) == want && r.path.has()) {
      out.push_back(fmt::format("this machine: the loader finds {} at {} (via {})", r.soname, r.path.value(), r.via));
      resolved = true;
    }
  if (where.empty()) {
    out.push_back(fmt::format("this machine: no copy of {} was found", path_file_name(name)));
    return;
  }
  for (const auto& w : where) out.push_back("this machine: " + path_file_name(name) + " is at " + w);
  if (!resolved) out.push_back("this machine: but the loader does not search that folder (see the fix)");
}

void driver_facts(const Snapshot& s, std::vector<std::string>& out) {
  if (!s.nvidia.driver_version.has()) return;
  out.push_back(fmt::format("this machine: driver {}, which runs CUDA up to {}", s.nvidia.driver_version.value(),
                            s.nvidia.cuda_driver_version.has() ? s.nvidia.cuda_driver_version.value() : std::string("?")));
}

// Library file names in `s`: "libcudnn.so.8", "cudart64_110.dll", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
// (base names), with where each starts; `lower` is `s` in lower case (the line's LogLine::lower).
struct NameAt {
  std::string name;
  size_t pos;
};
std::vector<NameAt> library_names_in(std::string_view s, std::string_view lower) {
  std::vector<NameAt> out;
  auto name_char = [](char c) { return is_word_char(c) || c == '-' || c == '+' || c == '.'; };
  // ".lib": an MSVC import library ("LNK1181: cannot open input file 'cudart.lib'"), the -lX of Windows.
  for (const char* ext : {".so", ".dll", ".dylib", ".lib"}) {
    for (size_t p = lower.find(ext); p != std::string::npos; p = lower.find(ext, p + 1)) {
      size_t end = p + std::string_view(ext).size();
      if (end < lower.size() && is_word_char(lower[end]) && lower[end] != '_') {
        // ".so" inside a word ("also", ".sort"): not a library unless digits follow a dot
        continue;
      }
      if (std::string_view(ext) == ".so") {  // version suffix: .so.12.4.1
        while (end + 1 < lower.size() && lower[end] == '.' && parse::is_digit(lower[end + 1])) {
          ++end;
          while (end < lower.size() && parse::is_digit(lower[end])) ++end;
        }
      }
      size_t b = p;
      while (b > 0 && name_char(s[b - 1])) --b;
      if (b == p) continue;  // ".so" alone
      std::string name(s.substr(b, end - b));
      while (!name.empty() && name.front() == '.') name.erase(0, 1);
      if (name.empty() || name == "so" || name == "dll") continue;
      if (std::none_of(out.begin(), out.end(), [&](const NameAt& n) { return n.name == name; }))
        out.push_back({name, b});
    }
  }
  // "-lcudart" (a linker's "cannot find -lX")
  for (size_t p = lower.find("-l"); p != std::string::npos; p = lower.find("-l", p + 2)) {
    if (p > 0 && !parse::is_space(lower[p - 1])) continue;
    size_t e = p + 2;
    while (e < lower.size() && (is_word_char(lower[e]) || lower[e] == '+' || lower[e] == '-')) ++e;
    if (e > p + 2) out.push_back({"lib" + std::string(s.substr(p + 2, e - p - 2)) + ".so", p});
  }
  std::sort(out.begin(), out.end(), [](const NameAt& a, const NameAt& b) { return a.pos < b.pos; });
  return out;
}

// The install steps of a library_stems.csv cell (" ; "-separated) for the version the text asked
// for: of alternatives written "pkg-cu11 (CUDA 11), pkg-cu12 (CUDA 12)" only the one for that
// CUDA major is kept.
std::vector<std::string> install_steps(const std::string& cell, const std::string& release) {
  std::vector<std::string> out;
  std::string major;  // "11" of "CUDA 11.x" / "CUDA 11.0 ..."
  if (const size_t c = release.find("CUDA "); c != std::string::npos) {
    size_t e = c + 5;
    while (e < release.size() && parse::is_digit(release[e])) ++e;
    major = release.substr(c + 5, e - c - 5);
  }
  for (auto step : knowledge::split_fix(cell, " ; ")) {
    if (!major.empty() && step.find("(CUDA ") != std::string::npos && step.find(", ") != std::string::npos) {
      const size_t colon = step.find(": ");
      const std::string head = colon == std::string::npos ? "" : step.substr(0, colon + 2);
      const std::string body = colon == std::string::npos ? step : step.substr(colon + 2);
      std::string keep;
      for (size_t pos = 0; pos <= body.size();) {
        const size_t next = body.find(", ", pos);
        const std::string alt = body.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (alt.find("(CUDA " + major + ")") != std::string::npos || alt.find("(CUDA " + major + ",") != std::string::npos ||
            alt.find("(CUDA " + major + " ") != std::string::npos)
          keep = alt;
        if (next == std::string::npos) break;
        pos = next + 2;
      }
      if (!keep.empty()) step = head + keep;
    }
    out.push_back(step);
  }
  return out;
}

// The words of a message as a loose match compares them: lower-case runs of letters and digits of
// two or more characters, a plural "s" dropped ("devices" and "device(s)" are both "device").
std::vector<std::string> loose_words(std::string_view s, size_t limit) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (w.size() >= 2) {
      if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.pop_back();
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    }
    w.clear();
  };
  for (char c : s) {
    if (out.size() >= limit) break;
    const char l = parse::to_lower(c);
    if ((l >= 'a' && l <= 'z') || parse::is_digit(l)) w += l;
    else flush();
  }
  flush();
  return out;
}

// "{v}" and "{major}" in an install step replaced by the version the text asked for.
std::string fill(std::string tmpl, const LibraryName& n) {
  const std::string major = n.version.substr(0, n.version.find('.'));
  for (const auto& [key, val] : {std::pair<std::string, std::string>{"{v}", n.version}, {"{major}", major}}) {
    for (size_t p = tmpl.find(key); p != std::string::npos; p = tmpl.find(key, p + val.size())) tmpl.replace(p, key.size(), val);
  }
  return tmpl;
}

}  // namespace

std::vector<const knowledge::ErrorCodeRow*> Explainer::Impl::rows_by_number(const std::string& family, long n) const {
  std::vector<const knowledge::ErrorCodeRow*> out;
  for (const auto& r : k.error_codes) {
    if (r.family != family) continue;
    if ((r.number && *r.number == n) ||
        std::find(r.also_numbers.begin(), r.also_numbers.end(), n) != r.also_numbers.end())
      out.push_back(&r);
  }
  // The current number first: "CUDA error 35" is cudaErrorInsufficientDriver in every release
  // since 10.1 (and was before); an old number only when no current one has it.
  std::stable_partition(out.begin(), out.end(), [&](const knowledge::ErrorCodeRow* r) { return r->number && *r->number == n; });
  return out;
}

// A library_stems.csv file-name column in lower case, one entry per shape: a column may list
// several ("nvinfer.dll (TRT 7/8) | nvinfer_{v}.dll (TRT 10)"), each with a note in parentheses.
std::vector<std::string> name_shapes(const std::string& column) {
  std::vector<std::string> out;
  for (const auto& part : knowledge::split_fix(column, "|")) {
    std::string p = parse::ascii_lower(part);
    if (const size_t paren = p.find('('); paren != std::string::npos) p.resize(paren);
    const std::string_view t = parse::trim(p);
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

LibraryNameDecoder::LibraryNameDecoder(const knowledge::Compat& k) : k_(k) {
  for (const auto& row : k.library_stems) {
    for (const bool win : {false, true})
      for (const std::string& p : name_shapes(win ? row.windows_pattern : row.linux_pattern)) {
        const size_t v = p.find("{v}");
        if (v == std::string::npos) shapes_.push_back({&row, win, false, p, ""});
        else shapes_.push_back({&row, win, true, p.substr(0, v), p.substr(v + 3)});
      }
    // "libcudart.so" (unversioned, a development name) for a "libcudart.so.{v}" row; macOS's names of the
    // same library put the version before the suffix: "libcudart.10.2.dylib" ("libcudart.dylib" unversioned).
    const std::string p = parse::ascii_lower(row.linux_pattern);
    const size_t v = p.find(".{v}");
    if (v != std::string::npos && v + 4 == p.size()) {
      unversioned_.emplace_back(p.substr(0, v), &row);
      if (p.compare(v - 3, 3, ".so") == 0) shapes_.push_back({&row, false, true, p.substr(0, v - 2), ".dylib"});
    }
  }
}

std::optional<LibraryName> decode_library_name(const knowledge::Compat& k, std::string_view file) {
  return LibraryNameDecoder(k).decode(file);
}

std::optional<LibraryName> LibraryNameDecoder::decode(std::string_view file) const {
  const knowledge::Compat& k = k_;
  const std::string base = path_file_name(std::string(file));
  const std::string lower = parse::ascii_lower(base);
  std::optional<LibraryName> best;
  size_t best_fixed = 0;  // the longest fixed part wins: cudnn_cnn_infer64_8 over cudnn64_8
  for (const Shape& s : shapes_) {
    std::string version;
    size_t fixed = s.pre.size() + s.post.size();
    if (!s.versioned) {
      if (lower != s.pre) continue;
    } else {
      if (lower.size() < fixed || lower.compare(0, s.pre.size(), s.pre) != 0 ||
          lower.compare(lower.size() - s.post.size(), s.post.size(), s.post) != 0)
        continue;
      version = base.substr(s.pre.size(), lower.size() - fixed);
      if (version.empty() || !std::all_of(version.begin(), version.end(), [](char c) { return parse::is_digit(c) || c == '.'; }))
        continue;
    }
    if (best && fixed <= best_fixed) continue;
    const auto& row = *s.row;
    best = LibraryName{base, row.stem, row.component, row.kind, version, "", s.windows, &row};
    best_fixed = fixed;
  }
  if (!best) {
    // An MSVC import library is the stem alone ("cudart.lib", "cuda.lib"): the library whose
    // development name is "lib<stem>.so" ("-lcudart"), on Windows.
    const bool import_lib = lower.size() > 4 && lower.ends_with(".lib");
    const std::string dev = import_lib                   ? "lib" + lower.substr(0, lower.size() - 4) + ".so"
                            : lower.ends_with(".dylib") ? lower.substr(0, lower.size() - 6) + ".so"
                                                        : lower;
    for (const auto& [name, row] : unversioned_)
      if (dev == name) {
        best = LibraryName{base, row->stem, row->component, row->kind, "", "", import_lib, row};
        break;
      }
  }
  if (!best) return std::nullopt;
  LibraryName& n = *best;
  const std::string& rule = n.row->version_rule;
  if (!n.version.empty()) {
    if (rule == "cuda-major-minor-digits" && n.windows && parse::all_digits(n.version)) {
      // cudart64_110.dll: 11.0 (all of 11.x); cudart64_101.dll: 10.1; cudart64_12.dll: 12.x; cudart64_80.dll: 8.0
      const std::string& d = n.version;
      if (d.size() == 3) n.release = fmt::format("CUDA {}.{}", d.substr(0, 2), d.substr(2));
      else if (d.size() == 2 && std::stoi(d) >= 12) n.release = fmt::format("CUDA {}.x", d);
      else if (d.size() == 2) n.release = fmt::format("CUDA {}.{}", d.substr(0, 1), d.substr(1));
      else n.release = "CUDA " + d;
    } else if (rule.rfind("cuda", 0) == 0) {
      n.release = "CUDA " + (n.version.find('.') == std::string::npos ? n.version + ".x" : n.version);
    } else if (rule == "cudnn-major") {
      n.release = "cuDNN " + n.version;
    } else if (rule == "tensorrt-major") {
      n.release = "TensorRT " + n.version;
    } else if (rule == "component-major" || rule == "rocm-soname") {
      n.release = n.version;
    }
  }
  // A concrete file name the tables know: its CUDA line.
  for (const auto& v : k.library_versions) {
    if (parse::iequals(v.file_name, base) && !v.cuda.empty()) {
      n.release = v.component_version + (v.cuda == "n/a"              ? std::string()
                                          : !parse::is_digit(v.cuda[0]) ? " (" + v.cuda + ")"
                                                                        : std::string(" (") + (n.kind == "rocm" ? "ROCm " : "CUDA ") + v.cuda + ")");
      break;
    }
  }
  return best;
}

Explainer::Explainer(const knowledge::Compat& k) : Explainer(k, true) {}

Explainer::Explainer(const knowledge::Compat& k, bool compile_now) : impl_(std::make_unique<Impl>(k)) {
  Impl& m = *impl_;
  for (const auto& row : k.error_signatures) {
    std::unique_ptr<Pattern> re;
    if (compile_now) {
      std::string why;
      re = Pattern::compile(row.pattern, &why);
      if (!re) throw std::logic_error("error signature " + row.code + ": the pattern does not compile: " + why);
    }
    const uint32_t id = static_cast<uint32_t>(m.sigs.size());
    m.sigs.emplace_back(&row, std::move(re), row.pattern.find("\\s") != std::string::npos);
    const auto lits = required_literals(row.pattern);
    if (lits.empty()) m.always.push_back(id);
    // The first 16 bytes of each literal pick the candidate lines as well as the whole literal (the
    // pattern decides), and keep the automaton (built at every start) a third of the size.
    for (const auto& l : lits) m.line_literals.add(std::string_view(l).substr(0, Impl::kPrefix), id);
  }

  for (const auto& r : k.error_codes) {
    m.code_by_name[r.name].push_back(&r);
    if (!code_shaped(r.name) && std::all_of(r.name.begin(), r.name.end(), is_word_char)) m.plain_names = true;
    // Messages of 10 characters or more that are not the code's own name (cuDNN's messages are).
    if (r.message.size() >= 10 && r.message != r.name) {
      std::string msg = parse::ascii_lower(r.message);
      // NCCL's "unhandled system error (run with NCCL_DEBUG=INFO for details)": the part before
      // the parenthesis is what frameworks print.
      if (const size_t paren = msg.find(" ("); paren != std::string::npos && paren >= 10) msg.resize(paren);
      m.line_literals.add(std::string_view(msg).substr(0, Impl::kPrefix),
                          (Impl::kMessage << Impl::kIdBits) | static_cast<uint32_t>(m.message_rows.size()));
      m.message_rows.push_back(&r);
      m.message_text.push_back(std::move(msg));
    }
  }
  for (const auto& r : k.error_codes) {
    if (r.message.empty()) continue;
    auto words = loose_words(r.message, 32);
    if (words.size() >= 3) m.message_words.emplace_back(&r, std::move(words));
  }
  // The runtime and driver API share numbers since CUDA 10.1: one number, two names.
  std::unordered_map<long, std::vector<const knowledge::ErrorCodeRow*>> driver_by_number;
  for (const auto& b : k.error_codes)
    if (b.number && b.family == "cuda-driver") driver_by_number[*b.number].push_back(&b);
  for (const auto& a : k.error_codes) {
    if (!a.number || *a.number == 0 || a.family != "cuda-runtime") continue;
    if (auto it = driver_by_number.find(*a.number); it != driver_by_number.end())
      for (const auto* b : it->second) {
        m.counterparts[a.name].push_back(b->name);
        m.counterparts[b->name].push_back(a.name);
      }
  }
  // Numbers, where the line says whose number it is. Group 1: the number.
  const std::vector<std::tuple<const char*, const char*, std::vector<const char*>>> numbers = {
      // "CUDA error = 999 at main.cu:196" (the tutorials' check macro; pasted as "999at" too)
      {"cuda-runtime", R"(cuda(?:\s+runtime)?\s+error(?:\s+code)?\s*[:=]?\s*\(?\s*([0-9]{1,4})(?![0-9.]))",
       {"cuda error", "cuda runtime error"}},
      {"cuda-runtime", R"(cudaError(?:_t)?\s*[:=]?\s*\(?([0-9]{1,4})\)?)", {"cudaerror"}},
      // With or without "()": "cudaMalloc() returned 2", the CUDA samples' "cudaGetDeviceCount returned 35".
      {"cuda-runtime", R"(\bcuda[A-Za-z]+(?:\(\))?\s*(?:returned|failed with)(?:\s+error)?(?:\s+code)?\s*[:=]?\s*([0-9]{1,4})\b)",
       {"returned", "failed with"}},
      // A runtime call and its number without "returned": "cudaHostRegister error: 35" (Rust/Go wrappers).
      {"cuda-runtime", R"(\bcuda[A-Z][A-Za-z]+(?:\(\))?\s+error\s*[:=]\s*([0-9]{1,4})\b)", {" error:", " error ="}},
      {"cuda-runtime", R"(THCudaCheck FAIL\b.*\berror\s*=\s*([0-9]{1,4})\b)", {"thcudacheck fail"}},
      {"cuda-driver", R"(cuda\s+driver\s+error(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,4})\b)", {"cuda driver error"}},
      // (Patterns match case-insensitively: "(?!da)" keeps the runtime's cudaXxx out of the driver API's cuXxx.)
      {"cuda-driver", R"(\bcu(?!da)[A-Z][A-Za-z]+\(?\)?\s*(?:returned|failed with)(?:\s+error)?(?:\s+code)?\s*[:=]?\s*([0-9]{1,4})\b)",
       {"returned", "failed with"}},
      {"cuda-driver", R"(CUresult\s*[:=]?\s*([0-9]{1,4})\b)", {"curesult"}},
      // TensorFlow/XLA's stream executor: "failed call to cuInit: UNKNOWN ERROR (34)" (a number its table
      // did not name: 34 is CUDA_ERROR_STUB_LIBRARY, the toolkit's stub libcuda.so loaded).
      {"cuda-driver", R"(failed call to cuInit:\s*[A-Z_ ]*?\(([0-9]{1,4})\))", {"failed call to cuinit"}},
      // Numba: "CudaAPIError: [700] Call to cuMemcpyDtoH results in UNKNOWN_CUDA_ERROR".
      {"cuda-driver", R"(\[([0-9]{1,4})\]\s*Call to cu[A-Za-z0-9_]+ results in)", {"call to cu"}},
      {"cublas", R"(cublas(?:\s+(?:error|status))?\s*[:=]\s*([0-9]{1,2})\b)", {"cublas"}},
      // TensorFlow/abseil CHECKs: "Check failed: cudnnSetTensorNdDescriptor(...) == CUDNN_STATUS_SUCCESS (3 vs. 0)".
      // glog's CHECK_EQ prints the two values in the order the check names them: "(13 vs. 0)" or "(0 vs. 13)".
      {"cudnn", R"(CUDNN_STATUS_SUCCESS\s*\(\s*(?:0\s*vs\.?\s*)?([0-9]{1,4})(?:\s*vs\.?\s*0)?\s*\))", {"cudnn_status_success"}},
      {"cublas", R"(CUBLAS_STATUS_SUCCESS\s*\(\s*(?:0\s*vs\.?\s*)?([0-9]{1,4})(?:\s*vs\.?\s*0)?\s*\))", {"cublas_status_success"}},
      {"cuda-runtime", R"(==\s*cudaSuccess\s*\(\s*(?:0\s*vs\.?\s*)?([0-9]{1,4})(?:\s*vs\.?\s*0)?\s*\))", {"cudasuccess"}},
      {"cuda-driver", R"(==\s*CUDA_SUCCESS\s*\(\s*(?:0\s*vs\.?\s*)?([0-9]{1,4})(?:\s*vs\.?\s*0)?\s*\))", {"cuda_success"}},
      // The success value first, as TensorFlow's early stream executor checked: "Check failed: CUDA_SUCCESS ==
      // dynload::cuCtxSetCurrent(context) (0 vs. 216)".
      {"cuda-driver", R"(\bCUDA_SUCCESS\s*==\s*[^\n]{1,200}?\(\s*0\s*vs\.?\s*([0-9]{1,4})\s*\))", {"cuda_success"}},
      {"cuda-runtime", R"(\bcudaSuccess\s*==\s*[^\n]{1,200}?\(\s*0\s*vs\.?\s*([0-9]{1,4})\s*\))", {"cudasuccess"}},
      // bitsandbytes and others: "cuBLAS API failed with status 15".
      {"cublas", R"(\bcublas\w*(?:\s+api)?(?:\s+call)?\s+failed with (?:status|error)(?:\s+code)?\s*[:=]?\s*([0-9]{1,2})\b)", {"cublas"}},
      {"hip", R"(hip(?:\s+runtime)?\s+error\s*[:=]?\s*\(?([0-9]{1,4})\b)", {"hip error", "hip runtime error"}},
      // The math libraries' own "status N" / "failure N" reports: "CURAND failure 105: (see curand.h ...)",
      // "rocBLAS call failed with status 4", "cuSOLVER error: 7", "MIOpen Error: status 3".
      {"curand", R"(\bcurand\w*\s+(?:error|failure|status)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{3})\b)", {"curand"}},
      {"cufft", R"(\bcufft\w*\s+(?:error|failure|status)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,2})\b(?!\.))", {"cufft"}},
      {"cusolver", R"(\bcusolver\w*\s+(?:error|failure|status)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,2})\b(?!\.))", {"cusolver"}},
      {"cusparse", R"(\bcusparse\w*\s+(?:error|failure|status)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,2})\b(?!\.))", {"cusparse"}},
      {"rocblas", R"(\brocblas\w*[^\n]{0,40}?\b(?:status|error)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,2})\b(?!\.))", {"rocblas"}},
      {"miopen", R"(\bmiopen\w*[^\n]{0,40}?\b(?:status|error)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,2})\b(?!\.))", {"miopen"}},
      // Vulkan's VkResult as programs print it: "vkCreateInstance failed -9", "vkAllocateMemory returned -2",
      // "VkResult: -4" (ncnn, llama.cpp's Vulkan backend, Kompute, TVM/mlc-llm).
      {"vulkan", R"(\bvk[A-Z][A-Za-z0-9]*\b[^\n]{0,40}?\b(?:failed|returned|error|result)\b[^\n0-9-]{0,12}(-[0-9]{1,10})\b)",
       {"failed -", "returned -", "error -", "error: -", "result -", "result: -", "error=-", "code=-", "failed with -"}},
      {"vulkan", R"(\bVkResult\b[^\n0-9-]{0,12}(-[0-9]{1,10})\b)", {"vkresult"}},
      // NVML's nvmlReturn_t where the line says NVML: "NVML: can't get GPU #0, error code 15", "nvmlInit failed with
      // error 9", "nvmlDeviceGetCount returned 999".
      {"nvml", R"(\bnvml\w*[^\n]{0,60}?\b(?:error|returned|return code|status|result)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,3})\b(?![.0-9]))",
       {"nvml"}},
      // CUPTI's CUptiResult where the line says CUPTI: "CUPTI call cuptiActivityEnable failed with error 35",
      // "cuptiSubscribe returned 39".
      {"cupti", R"(\bcupti\w*[^\n]{0,60}?\b(?:error|returned|failed with)(?:\s+code)?\s*[:=]?\s*\(?([0-9]{1,3})\b(?![.0-9]))",
       {"cupti"}},
      // DCGM's dcgmReturn_t (negative): "dcgmGroupCreate returned -21", "DCGM error -33".
      {"dcgm", R"(\bdcgm\w*[^\n]{0,80}?\b(?:error|returned|return|status|result|failed)\b[^\n0-9-]{0,12}\(?(-[1-5]?[0-9])\b)", {"dcgm"}},
      // OptiX's OptixResult (7001-7999) on a line that names OptiX: "Optix call (optixInit()) failed with code
      // 7801 (line 150)", "OptiX error 7804", "optixDeviceContextCreate returned 7051".
      {"optix", R"(\boptix\w*[^\n]{0,80}?\b(?:code|error|result|returned|failed)\b[^\n0-9]{0,12}(7[0-9]{3})\b)", {"optix"}},
      // OpenCL's cl_int errors (negative) after an OpenCL call or the word OpenCL: "clGetPlatformIDs error -1001",
      // "clBuildProgram failed: -11", "OpenCL error: -5".
      {"opencl", R"((?:\bcl[A-Z][A-Za-z]+\b|\b[Oo]pen[Cc][Ll]\b)[^\n]{0,40}?\b(?:error|failed|returned|code|status|result)\b[^\n0-9-]{0,12}(-[0-9]{1,4})\b)",
       {"clget", "clbuild", "clcreate", "clenqueue", "clset", "clwait", "clfinish", "opencl"}},
      // ROCm's HSA runtime statuses by number (4096 and up, decimal or hex): "Failed to create memory for IPC, failed
      // with hsa_status: 4097", "hsa_status_t 0x1008".
      {"hsa", R"(\bhsa_status(?:_t)?\b[^\n0-9]{0,4}((?:0x[0-9a-fA-F]{4})|4[0-9]{3})\b)", {"hsa_status"}},
      // Intel's Level Zero: "Unknown ze_result_t value: 1879179264", "ze_result 0x70020000".
      {"level-zero", R"(\bze_result(?:_t)?\b[^\n0-9]{0,30}((?:0x[0-9a-fA-F]{8})|[0-9]{10})\b)", {"ze_result"}},
      // The NVIDIA kernel driver's Xid events: "NVRM: Xid (PCI:0000:3b:00): 79, pid=...", "Xid 13, pid=1234, ...".
      {"xid", R"((?:NVRM:\s*Xid\s*(?:\([^)\n]{0,40}\))?:?\s*|\bXid\s+(?=[0-9]{1,3},\s*pid=))([0-9]{1,3})\b)", {"xid"}},
  };
  for (const auto& [family, re, lits] : numbers) {
    std::string why;
    auto p = Pattern::compile(re, &why);
    if (!p) throw std::logic_error(std::string("explain number rule: ") + why);
    // PCRE2 and std::regex both take (?!...): a lookahead, not a lookbehind.
    const auto id = static_cast<uint32_t>(m.number_rules.size());
    m.number_rules.push_back({std::move(p), family});
    for (const char* l : lits) m.line_literals.add(l, (Impl::kNumber << Impl::kIdBits) | id);
  }

  const std::vector<std::tuple<const char*, const char*, bool>> phrases = {
      {"cannot open shared object file", "library.missing", true},
      {"could not load dynamic library", "library.missing", false},
      {"could not load library", "library.missing", false},
      {"could not locate", "library.missing", false},
      {"unable to load", "library.missing", false},
      {"failed to load", "library.missing", false},
      {"error loading", "library.missing", false},
      {"or one of its dependencies", "library.missing", true},
      {"cannot load library", "library.missing", false},
      {"failed to open", "library.missing", false},
      {"make sure that", "library.missing", false},
      {"couldn't open cuda library", "library.missing", false},
      {"could not open", "library.missing", false},
      {"could not load", "library.missing", false},  // libgpuarray: Could not load "nvrtc64_90.dll": ...
      {"library not found", "library.missing", true},
      {"no such file or directory", "library.missing", true},
      {"dlopen", "library.missing", false},
      {"undefined symbol", "library.undefined-symbol", true},
      // glibc's relocation error: "symbol S, version V not defined in file F with link time reference" (F is
      // the copy that lacks what the caller was linked against).
      {"not defined in file", "library.undefined-symbol", false},
      // "X: version `V' not found (required by Y)": X is the copy that lacks V (Y only asked for it).
      {"not found (required by", "library.version-not-found", true},
      // ldd's report of a dependency the loader cannot find: "\tlibucp.so.0 => not found".
      {" => not found", "library.missing", true},
      {"cannot find -l", "library.link-missing", false},
      {"找不到 -l", "library.link-missing", false},  // GNU ld in a Chinese locale (binutils' zh_CN catalogue)
      // MSVC's link.exe: "LINK : fatal error LNK1181: cannot open input file 'cudart.lib'".
      {"cannot open input file", "library.link-missing", false},
      // Windows' loader dialog: "The code execution cannot proceed because X.dll was not found.",
      // "The program can't start because X.dll is missing from your computer."
      {"cannot proceed because", "library.missing", false},
      {"cannot continue because", "library.missing", false},
      {"can't start because", "library.missing", false},
      {"cannot start because", "library.missing", false},
  };
  for (const auto& [phrase, code, before] : phrases) {
    m.line_literals.add(phrase, (Impl::kLib << Impl::kIdBits) | static_cast<uint32_t>(m.lib_phrases.size()));
    m.lib_phrases.push_back({code, before});
  }
  // macOS's loader: "dyld: Library not loaded: @rpath/libcudart.10.2.dylib", "dlopen(libcudnn.7.dylib, 6): image not
  // found". On a Mac most such lines are about an application's own or an audio/graphics library (libsox, libomp):
  // only a library the tables know is claimed.
  for (const auto& [phrase, before] : {std::pair{"library not loaded", false}, std::pair{"image not found", true}}) {
    m.line_literals.add(phrase, (Impl::kLib << Impl::kIdBits) | static_cast<uint32_t>(m.lib_phrases.size()));
    m.lib_phrases.push_back({"library.missing", before, true});
  }
  for (const char* w : kFailureWords) m.line_literals.add(w, Impl::kFailure << Impl::kIdBits);
  add_condition_words(m.line_literals, Impl::kCondition << Impl::kIdBits);
  add_disagree_words(m.line_literals, Impl::kDisagree << Impl::kIdBits);
  m.line_literals.build();
}

Explainer::~Explainer() = default;

const Explainer& Explainer::embedded() {
  // Never destroyed, as the tables; patterns compiled at first use (explain_test compiles them all).
  static const Explainer* const e = new Explainer(knowledge::Compat::embedded(), false);
  return *e;
}

namespace {

// One recognition before the story is told.
struct Found {
  Match m;
  bool optional_library = false;  // TensorRT: TensorFlow tries it at start-up and runs without it
};

// An architecture this CUDA toolkit no longer builds for (sm_30 after CUDA 10.2): the compiler is too
// new for it, so the fix is the other way round from an unknown (too new) architecture's.
void judge_dropped_architecture(Match& x, const std::string& target, const std::string& arch, const std::string& last_cuda) {
  x.root.erase(std::remove_if(x.root.begin(), x.root.end(),
                              [](const std::string& r) {
                                return r == "nvcc-arch-unsupported" || r == "arch-unsupported" || r == "ptxas-unusable";
                              }),
               x.root.end());
  x.root.insert(x.root.begin(), "nvcc-arch-dropped");
  x.title = fmt::format("The CUDA compiler in use no longer builds for {}: newer CUDA releases dropped it", target);
  x.cause = fmt::format("The build asks for {} ({}), an architecture this CUDA toolkit no longer supports: the last release "
                        "that builds for it is CUDA {}.",
                        target, arch, last_cuda);
  x.fix = {fmt::format("Take {} out of the build's architecture list (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, "
                       "-gencode/-arch flags in the Makefile or setup.py) unless you have such a GPU",
                       target),
           fmt::format("For a GPU of that architecture, build with CUDA {} or older", last_cuda)};
  x.evidence.push_back(fmt::format("decoded: CUDA {} is the last release that builds for {}", last_cuda, target));
}

// A size as PyTorch's allocator prints it ("20.00 MiB", "14.75 GiB", "512 bytes"), in bytes: the one that
// follows `before` on the line. Negative when the line has none there.
double size_after(std::string_view t, std::string_view before) {
  const size_t at = t.find(before);
  if (at == std::string_view::npos) return -1;
  size_t p = at + before.size();
  const size_t start = p;
  while (p < t.size() && (parse::is_digit(t[p]) || t[p] == '.')) ++p;
  if (p == start || p + 1 >= t.size() || t[p] != ' ') return -1;
  const double v = std::strtod(std::string(t.substr(start, p - start)).c_str(), nullptr);
  const std::string_view unit = t.substr(p + 1, 5);
  for (const auto& [u, scale] : std::initializer_list<std::pair<std::string_view, double>>{
           {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"bytes", 1.0}})
    if (unit.substr(0, u.size()) == u) return v * scale;
  return -1;
}
// The same for the size just before `after` ("14.75 GiB total capacity").
double size_before(std::string_view t, std::string_view after) {
  const size_t at = t.find(after);
  if (at == std::string_view::npos || at < 2) return -1;
  size_t b = at;
  while (b > 0 && t[b - 1] != ' ') --b;  // back over the unit, then the number
  if (b < 2) return -1;
  size_t n = b - 1;
  while (n > 0 && (parse::is_digit(t[n - 1]) || t[n - 1] == '.')) --n;
  return size_after(t.substr(n), "");
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / 1073741824.0); }

// What PyTorch's out-of-memory line says about where the memory went ("Tried to allocate 20.00 MiB. GPU 0 has
// a total capacity of 14.75 GiB of which 3.06 MiB is free ... 14.60 GiB is allocated by PyTorch, and 13.53 MiB
// is reserved by PyTorch but unallocated"; before 2.1: "(GPU 0; 14.75 GiB total capacity; 13.90 GiB already
// allocated; 3.06 MiB free; 14.10 GiB reserved in total by PyTorch)"): a request larger than the whole GPU, a
// fragmented cache, or memory held outside PyTorch each need another fix than a smaller batch.
void judge_memory(Match& x, const LogLine& L) {
  if (std::find(x.root.begin(), x.root.end(), "out-of-memory") == x.root.end()) return;
  const std::string_view t = L.text;
  const double want = size_after(t, "Tried to allocate ");
  if (want < 0) return;
  double total = size_after(t, "total capacity of ");
  if (total < 0) total = size_before(t, " total capacity");
  double free = size_before(t, " is free");
  if (free < 0) free = size_before(t, " free;");
  double allocated = size_before(t, " is allocated by PyTorch");
  if (allocated < 0) allocated = size_before(t, " already allocated");
  double idle = size_before(t, " is reserved by PyTorch but unallocated");
  if (const double reserved = size_before(t, " reserved in total by PyTorch"); idle < 0 && reserved >= 0 && allocated >= 0)
    idle = reserved - allocated;
  if (total <= 0) return;
  // What the sizes showed, and the fix it calls for ahead of the usual ones.
  auto lead_with = [&x](std::string decoded, const char* fix) {
    x.evidence.push_back(std::move(decoded));
    x.fix.insert(x.fix.begin(), fix);
  };
  if (want > total) {
    lead_with(fmt::format("decoded: one request of {} is more than the GPU's whole memory ({}): no setting frees that much",
                          gib(want), gib(total)),
              "The program asks for a single tensor larger than this GPU: check the input that decides its size (image "
              "resolution, sequence length, batch, a shape computed wrong) or use a GPU with more memory; a smaller batch "
              "helps only if the batch is what makes it this large");
    return;
  }
  if (idle >= want && free >= 0 && free < want) {
    lead_with(fmt::format("decoded: PyTorch holds {} reserved but unused, more than the {} it asked for: the cache is fragmented",
                          gib(idle), gib(want)),
              "Fragmentation: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (ROCm: PYTORCH_HIP_ALLOC_CONF) before "
              "starting the program");
    return;
  }
  if (free >= 0 && allocated >= 0) {
    const double pytorch = allocated + std::max(0.0, idle);
    const double elsewhere = total - free - pytorch;
    if (elsewhere > 0.25 * total) {
      lead_with(fmt::format("decoded: of the GPU's {}, {} is in use outside this process's PyTorch cache (other processes, or "
                            "another library in this process)",
                            gib(total), gib(elsewhere)),
                "Find what else holds GPU memory: nvidia-smi (AMD: rocm-smi --showpids) lists the processes; stop them (a "
                "notebook kernel, a second run, a display server on this GPU) or start this one on another GPU");
    } else if (allocated > 0.5 * total) {
      x.evidence.push_back(fmt::format("decoded: PyTorch itself holds {} of the GPU's {}: the model and its activations need "
                                       "more than this GPU has at these settings",
                                       gib(allocated), gib(total)));
    }
  }
}

// What the versions a signature captured mean, judged with the tables: "found version 11060" is a
// driver that runs CUDA up to 11.6 (and which driver the newer CUDA lines need); "sm_120" is
// compute capability 12.0 (Blackwell); cuDNN's "8907" is 8.9.7.
void judge_versions(const knowledge::Compat& k, Match& x) {
  auto has = [&](const char* t) { return std::find(x.root.begin(), x.root.end(), t) != x.root.end(); };
  for (const auto& g : x.groups) {
    if (g.size() >= 4 && g.size() <= 6 && parse::all_digits(g)) {
      const long v = std::stol(g);
      if (has("driver-too-old") && v >= 2000 && v < 100000) {
        const Version cuda = Version::from_cuda_int(v);
        x.evidence.push_back(fmt::format("decoded: {} is CUDA {}: the newest CUDA this driver runs", g, cuda.str()));
        // The newest release of each CUDA line above it, and the driver it needs (Linux / Windows).
        std::set<long> majors;
        for (const auto& row : k.cuda_driver) {
          if (row.cuda <= cuda || !majors.insert(row.cuda.major()).second || !row.min_linux) continue;
          x.fix.push_back(fmt::format("CUDA {} needs a driver >= {} (Linux){}", row.cuda.str(), row.min_linux->str(),
                                      row.min_windows ? " / >= " + row.min_windows->str() + " (Windows)" : ""));
        }
      } else if (has("cudnn-version-mismatch") && v >= 1000) {
        const Version cudnn = v >= 90000 ? Version::of({v / 10000, (v % 10000) / 100, v % 100})
                                         : Version::of({v / 1000, (v % 1000) / 100, v % 100});
        x.evidence.push_back(fmt::format("decoded: {} is cuDNN {}", g, cudnn.str()));
      }
    } else if (g.size() >= 4 && (g.rfind("sm_", 0) == 0 || g.rfind("compute_", 0) == 0)) {
      std::string digits = g.substr(g.find('_') + 1);
      while (!digits.empty() && !parse::is_digit(digits.back())) digits.pop_back();
      if (digits.size() < 2 || !parse::all_digits(digits)) continue;
      const long n = std::stol(digits);
      const Version cc = Version::of({n / 10, n % 10});
      const std::string arch = k.architecture_of(cc);
      x.evidence.push_back(fmt::format("decoded: {} is compute capability {}{}", g, cc.str(), arch.empty() ? "" : " (" + arch + ")"));
      // The oldest and the newest CUDA that build for it (rows newest first).
      const knowledge::CudaArchRow *first = nullptr, *last = nullptr;
      for (const auto& row : k.cuda_arch)
        if (row.sm.count(static_cast<int>(n))) {
          first = &row;
          if (!last) last = &row;
        }
      // A compiler that does not know an architecture older than every current release builds
      // for, which an older release did, is too new for it, not too old: the architecture was dropped.
      const knowledge::CudaArchRow* newest = k.cuda_arch.empty() ? nullptr : &k.cuda_arch.front();
      if (has("nvcc-arch-unsupported") && last && newest && last != newest && n < newest->min_sm) {
        judge_dropped_architecture(x, g, arch.empty() ? "compute capability " + cc.str() : arch, last->cuda.str());
      } else if (first) {
        x.evidence.push_back(fmt::format("decoded: CUDA {} is the first release that builds for {}", first->cuda.str(), g));
      }
    }
  }
}

// The level a log line reports at: 1 info, 2 warning, 0 neither (or not marked). glog/absl
// "I0821 ..."/"W0821 ...", TensorFlow's "2023-01-01 10:00:00.123456: W tensorflow/...", Python's
// "...Warning:", logging's "WARNING:"/"INFO:", "[W]"/"[I]", "NCCL INFO".
int notice_level(const LogLine& L) {
  const std::string& t = L.text;
  const size_t p = t.find_first_not_of(" \t>|");
  if (p == std::string::npos) return 0;
  auto glog_at = [&](size_t q) {
    return q + 6 <= t.size() && (t[q] == 'I' || t[q] == 'W') && parse::is_digit(t[q + 1]) && parse::is_digit(t[q + 2]) &&
           parse::is_digit(t[q + 3]) && parse::is_digit(t[q + 4]) && t[q + 5] == ' ';
  };
  if (glog_at(p)) return t[p] == 'I' ? 1 : 2;
  // The same header behind what collected the line: a container runtime's "2023-10-19T14:25:03.80+08:00 stderr F
  // I1019 06:25:03.801505 1 main.go:154] ...", journald's "Apr 22 18:10:16 host kubelet[602]: I0422 ...". The
  // header's time ("06:25:03") must follow, so a word such as "W1000" in a message is not taken for it.
  for (size_t q = t.find(' ', p); q != std::string::npos && q < p + 80; q = t.find(' ', q + 1))
    if (glog_at(q + 1) && q + 15 <= t.size() && parse::is_digit(t[q + 7]) && parse::is_digit(t[q + 8]) && t[q + 9] == ':' &&
        parse::is_digit(t[q + 10]) && parse::is_digit(t[q + 11]) && t[q + 12] == ':')
      return t[q + 1] == 'I' ? 1 : 2;
  if (parse::is_digit(t[p]))  // "2023-01-01 10:00:00.123456: W tensorflow/..."
    if (size_t c = t.find(": ", p); c != std::string::npos && c < p + 40 && c + 3 < t.size() && t[c + 3] == ' ' &&
                                    (t[c + 2] == 'I' || t[c + 2] == 'W'))
      return t[c + 2] == 'I' ? 1 : 2;
  // ONNX Runtime's "[W:onnxruntime:, inference_session.cc:411 ...]" and "[I:onnxruntime:...]" too.
  static const std::pair<const char*, int> markers[] = {{"INFO", 1},        {"[I]", 1},     {"[info]", 1},
                                                        {"Warning:", 2},    {"WARNING", 2}, {"[W]", 2},
                                                        {"warnings.warn(", 2}, {"[warn]", 2}, {"NOTICE", 1},
                                                        {"[W:onnxruntime:", 2}, {"[I:onnxruntime:", 1},
                                                        // C/C++ tools' "main: warning: ...", "nvcc warning : ..."; Go's
                                                        // logrus "level=info" / "level=warning" (containerd, ollama).
                                                        {" warning:", 2},   {" warning :", 2}, {"level=info", 1},
                                                        {"level=warning", 2}, {"level=debug", 1}, {"[DEBUG]", 1}, {" DEBUG ", 1}};
  int level = 0;
  for (const auto& [m, lv] : markers)
    if (t.find(m) != std::string::npos) level = std::max(level, lv);
  // A logger's level as the line's first word: "DEBUG    Could not load ...", "WARN: ...".
  for (const auto& [word, lv] : {std::pair<std::string_view, int>{"DEBUG", 1}, {"WARN", 2}})
    if (t.compare(p, word.size(), word) == 0 && p + word.size() < t.size() &&
        (t[p + word.size()] == ' ' || t[p + word.size()] == ':' || t[p + word.size()] == ']'))
      level = std::max(level, lv);
  // A line that says the program goes on without something, or that something is deprecated, is a
  // notice whatever its level marker: "No module 'xformers'. Proceeding without it.", "Falling back
  // to native attention", "X is deprecated. Please use Y instead", "... taints kernel", or that
  // calls itself a warning one may turn off ("... To silence this warning, specify ..."), not an
  // error, or a cost in speed only ("This may degrade performance for compute-heavy workloads"), or that an input
  // it was given goes unused ("... were passed to StableDiffusionPipeline, but are not expected and will be ignored").
  static const char* const going_on[] = {"proceeding without", "falling back to", "is deprecated", "are deprecated",
                                         "will be removed in", "taints kernel", "tainting kernel", "to silence this warning",
                                         "to suppress this warning", "to disable this warning", "can be safely ignored",
                                         "this is not an error", "may impair performance", "may degrade performance",
                                         "may hurt performance", "may reduce performance", "skipping import of",
                                         "to disable)", "to quiet this", "to quiet msg", "to quiet the", "and will be ignored",
                                         "you can ignore this"};
  if (level == 0)
    for (const char* g : going_on)
      if (L.lower.find(g) != std::string::npos) return 1;
  return level;
}

// A command the user typed or a shell traced, not a program's output: "+ curl --retry-connrefused
// ..." (set -x), "$ nvidia-smi", "root@host:~# modprobe nvidia", "PS C:\\Users\\me> python x.py",
// "C:\\work>python x.py", ">>> import torch". Its words ("--retry-connrefused") say nothing failed.
bool is_command_line(std::string_view t) {
  const size_t p = t.find_first_not_of(" \t");
  if (p == std::string_view::npos) return false;
  t.remove_prefix(p);
  for (const char* prefix : {"+ ", "$ ", "# ", ">>> ", "... "})
    if (t.starts_with(prefix)) return true;
  // A virtualenv's or conda environment's name before the prompt: "(base) C:\\Users\\me>python app.py",
  // "(venv) me@host:~$ python t.py".
  if (t.starts_with("(")) {
    const size_t close = t.find(") ");
    if (close != std::string_view::npos && close < 40 &&
        std::all_of(t.begin() + 1, t.begin() + static_cast<std::ptrdiff_t>(close),
                    [](char c) { return is_word_char(c) || c == '-' || c == '.'; }))
      t.remove_prefix(close + 2);
  }
  if (t.starts_with("PS ") && t.size() > 5 && t[4] == ':' && t[5] == '\\') return t.find("> ") != std::string_view::npos;
  if (t.size() > 3 && t[1] == ':' && t[2] == '\\' && ((t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z'))) {
    const size_t gt = t.find('>');
    return gt != std::string_view::npos && t.find_first_of(" \"'", 0) > gt;  // "C:\\dir>cmd": no space before the '>'
  }
  // user@host:path$ or # (a prompt ends at the first "$ " or "# " after an '@' and a ':')
  const size_t at = t.find('@');
  if (at == std::string_view::npos || at == 0) return false;
  for (size_t q = 0; q < at; ++q)
    if (!(is_word_char(t[q]) || t[q] == '-' || t[q] == '.')) return false;
  const size_t colon = t.find(':', at);
  if (colon == std::string_view::npos) return false;
  for (size_t q = at + 1; q < colon; ++q)
    if (!(is_word_char(t[q]) || t[q] == '-' || t[q] == '.')) return false;
  const size_t end = t.find_first_of("$#", colon);
  return end != std::string_view::npos && end + 1 < t.size() && t[end + 1] == ' ' &&
         t.substr(colon, end - colon).find(' ') == std::string_view::npos;
}

// A setting as programs print their configuration: "NCCL_ASYNC_ERROR_HANDLING: 0", "TORCH_SHOW_CPP_STACKTRACES=1",
// "CUDA_LAUNCH_BLOCKING: 1". Its name's words ("ERROR") say nothing failed.
bool is_setting_line(std::string_view t) {
  const size_t p = t.find_first_not_of(" \t");
  if (p == std::string_view::npos) return false;
  size_t q = p;
  while (q < t.size() && ((t[q] >= 'A' && t[q] <= 'Z') || (t[q] >= '0' && t[q] <= '9') || t[q] == '_')) ++q;
  if (q - p < 3 || t[p] < 'A' || t[p] > 'Z') return false;
  // A name with an underscore, or one with its unit ("TIMEOUT(ms): 1800000"): "ERROR: 3" is a message.
  bool setting = t.substr(p, q - p).find('_') != std::string_view::npos;
  if (q < t.size() && t[q] == '(') {
    const size_t close = t.find(')', q);
    if (close == std::string_view::npos || close - q > 8) return false;
    q = close + 1;
    setting = true;
  }
  if (!setting) return false;
  while (q < t.size() && t[q] == ' ') ++q;
  if (q >= t.size() || (t[q] != ':' && t[q] != '=')) return false;
  const std::string_view value = parse::trim(t.substr(q + 1));
  return value.size() <= 40 && value.find(' ') == std::string_view::npos;
}

// Whether a line says that something failed. Info-level lines are held to the strong words only
// (start-up chatter says "failed to ..." of things that do not matter); others to all.
bool says_failure(const LogLine& L, int level) {
  if (is_command_line(L.text) || is_setting_line(L.text)) return false;
  // An info or warning line that says what it reports can be ignored: "WARNING ... The following error message
  // 'operation scheduled before its operands' can be ignored." (vLLM).
  if (level > 0)
    for (const char* w : {"can be ignored", "can be safely ignored", "can safely be ignored", "can safely ignore"})
      if (L.lower.find(w) != std::string::npos) return false;
  static const char* const strong[] = {"error", "fatal", "exception", "traceback", "out of memory", "abort", "segmentation",
                                       "killed", "crash", "illegal", "deadlock"};
  static const char* const weak[] = {"fail", "cannot", "can't", "could not", "couldn't", "unable", "not found", "no such",
                                     "denied", "invalid", "mismatch", "too old", "insufficient", "not available",
                                     "not supported", "unsupported", "incompatible", "not compatible", "refused",
                                     "timed out", "timeout", "no kernel", "no cuda", "no gpu", "not initialized",
                                     "missing", "not installed", "not enabled", "corrupt", "violation", "hang"};
  // "This is not an error" / "no error" deny the word they hold.
  auto denied = [&](size_t at) {
    for (std::string_view d : {"not an ", "no "})
      if (at >= d.size() && std::string_view(L.lower).substr(at - d.size(), d.size()) == d) return true;
    return false;
  };
  for (const char* w : strong)
    for (size_t at = L.lower.find(w); at != std::string::npos; at = L.lower.find(w, at + 1))
      if (!denied(at)) return true;
  if (level == 1) return false;
  // A warning that says how the program goes on reports a fallback, not a failure: "FP16 is not
  // supported on CPU; using FP32 instead", "only supported for CUDA ... Disabling it", "has no effect".
  // vLLM's own spelling "To slience this warning" is the same offer to turn it off.
  static const char* const goes_on[] = {"instead", "disabling it", "falling back", "fall back to", "proceeding without",
                                        "has no effect", "will be ignored", "defaulting to", "this is not an error",
                                        "may impair performance", "may degrade performance", "to silence this warning",
                                        "to slience this warning", "to suppress this warning", "to disable this warning",
                                        "ignoring", "will proceed", "proceeding with", "continuing", ", setting ",
                                        // vLLM's "not supported on CPU, fallback to the eager mode"; "not set, using 4 by default"
                                        "fallback to", "falls back to", "by default"};
  if (level == 2)
    for (const char* g : goes_on)
      if (L.lower.find(g) != std::string::npos) return false;
  // A weak word inside a condition ("If X fails to find the driver, install ...", "in case the
  // download fails") says what to do if something fails, not that it did.
  auto conditional = [&](size_t at) {
    size_t from = L.lower.find_last_of(".;:!?", at);
    from = from == std::string::npos ? 0 : from + 1;
    const std::string_view clause(L.lower.data() + from, at - from);
    for (const char* c : {"if ", "in case ", "unless ", "whether "})
      if (clause.find(c) != std::string_view::npos) return true;
    return false;
  };
  // At a word's start: "hang" is not in "changed".
  for (const char* w : weak)
    for (size_t at = L.lower.find(w); at != std::string::npos; at = L.lower.find(w, at + 1))
      if ((at == 0 || !std::isalpha(static_cast<unsigned char>(L.lower[at - 1]))) && !conditional(at)) return true;
  return false;
}

// Two versions of one component named on a line that says they disagree: "Installed CUDA version
// 12.2 does not match the version torch was compiled with 11.7", "PyTorch has CUDA version 10.2
// and torch_sparse has CUDA version 11.2", "TensorRT mismatch. Compiled against version 5.0.2,
// but loaded 5.1.2", "Mismatched PJRT plugin PJRT API version (0.54) and framework ... 0.51". The
// component decides the condition; no catalogue entry is needed for a new wording.
struct VersionTopic {
  const char* words[2];  // as they appear in lower case, at a word start (the second may be null)
  const char* code;
  const char* root;
  const char* name;
  const char* fix;
};
constexpr VersionTopic kVersionTopics[] = {
    {{"cudnn", nullptr}, "mismatch.cudnn", "cudnn-version-mismatch", "cuDNN",
     "Load the cuDNN the program was built with (the same major, at least its minor): pip install -U "
     "nvidia-cudnn-cu<CUDA major>, and take other cuDNN folders off LD_LIBRARY_PATH / PATH"},
    {{"tensorrt", "nvinfer"}, "mismatch.tensorrt", "tensorrt-version-mismatch", "TensorRT",
     "Install the TensorRT version the program was built against (pip install tensorrt==<that version>), or the build "
     "of the program made for the TensorRT you have; rebuild serialized engines after any TensorRT change"},
    {{"nccl", nullptr}, "mismatch.nccl", "nccl-lib-mismatch", "NCCL",
     "Use the NCCL the framework pins (its nvidia-nccl-cu<major> wheel) and take other libnccl.so.2 copies off "
     "LD_LIBRARY_PATH; every rank must run the same NCCL"},
    {{"jaxlib", "pjrt"}, "mismatch.jax", "jax-jaxlib-mismatch", "jax / jaxlib / CUDA plugin",
     "Install one release of all three: pip install -U \"jax[cuda12]\" (or cuda13), which pins jaxlib and the plugin"},
    {{"cuda", nullptr}, "mismatch.cuda", "cuda-version-mismatch", "CUDA",
     "Use builds made for one CUDA version: the framework's wheel and every extension (torchvision, torchaudio, "
     "torch-scatter/-sparse, DeepSpeed ops, apex, ...) for the same +cuXXX; to build an extension from source use the "
     "nvcc of the CUDA the framework was built with (python -c \"import torch; print(torch.version.cuda)\")"},
};

bool at_word_start(const std::string& s, size_t at) { return at == 0 || !std::isalpha(static_cast<unsigned char>(s[at - 1])); }

// The version numbers of a line ("12.2", "0.9.0.1", "5.0.2"), not times ("16:30:40.039") or PCI
// addresses ("0000:01:00.0").
std::vector<std::string> version_numbers(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    if (!parse::is_digit(s[i]) || (i > 0 && (parse::is_digit(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == ':'))) {
      ++i;
      continue;
    }
    size_t e = i, dots = 0;
    while (e < s.size() && (parse::is_digit(s[e]) || (s[e] == '.' && e + 1 < s.size() && parse::is_digit(s[e + 1])))) {
      dots += s[e] == '.' ? 1 : 0;
      ++e;
    }
    const bool clock = e < s.size() && s[e] == ':';
    if (dots >= 1 && !clock && e - i <= 16) out.push_back(s.substr(i, e - i));
    i = e;
  }
  return out;
}

constexpr const char* kDisagree[] = {"mismatch",         "does not match",   "doesn't match",  "do not match",
                                     "not compatible with", "incompatible",  "compiled with different",
                                     "but loaded",       "but found",        "but linked",     "but got",
                                     "is newer than",    "is older than"};

void add_disagree_words(LiteralSet& set, uint32_t base) {
  for (const char* w : kDisagree) set.add(w, base);
}

// `has_word`: the line holds one of kDisagree (found already by the line's walk).
std::optional<Match> version_disagreement(const LogLine& L, bool has_word) {
  if (!has_word) return std::nullopt;
  auto names = [&](const char* word) {
    for (size_t at = L.lower.find(word); at != std::string::npos; at = L.lower.find(word, at + 1))
      if (at_word_start(L.lower, at)) return true;
    return false;
  };
  const auto topic = std::find_if(std::begin(kVersionTopics), std::end(kVersionTopics), [&](const VersionTopic& t) {
    return std::any_of(std::begin(t.words), std::end(t.words), [&](const char* w) { return w && names(w); });
  });
  if (topic == std::end(kVersionTopics)) return std::nullopt;
  const auto versions = version_numbers(L.text);
  if (versions.size() < 2) return std::nullopt;
  const auto other = std::find_if(versions.begin() + 1, versions.end(), [&](const std::string& v) { return v != versions[0]; });
  if (other == versions.end()) return std::nullopt;
  Match x;
  x.code = topic->code;
  x.line = L.number;
  x.tier = 3;
  x.title = fmt::format("Two {} versions that do not go together: {} and {}", topic->name, versions[0], *other);
  x.cause = fmt::format("The line names two versions of {} that one part was built for and another has, needs or "
                        "loads; parts built against different {} versions cannot work together.",
                        topic->name, topic->name);
  x.fix = {topic->fix};
  x.root = {topic->root};
  x.evidence = {"your text: " + shown(own_text(L)), fmt::format("decoded: versions named: {} and {}", versions[0], *other)};
  // "torch_sparse has CUDA version 0.0": the extension was built without CUDA at all.
  if (std::string(topic->root) == "cuda-version-mismatch" &&
      std::any_of(versions.begin(), versions.end(), [](const std::string& v) { return v == "0.0"; })) {
    x.code = "mismatch.cuda-none";
    x.title = "An extension was built without CUDA (CUDA version 0.0) for a CUDA build of the framework";
    x.cause = "One part reports CUDA version 0.0: it was built (or installed) without CUDA support, while the framework "
              "uses CUDA.";
    x.root = {"cuda-ext-not-built", "cpu-only-build"};
    x.fix.insert(x.fix.begin(), "Reinstall the extension's CUDA build for the framework's +cuXXX (its own wheel index), "
                                "or build it where nvcc is found (CUDA_HOME set, FORCE_CUDA=1)");
  }
  return x;
}

Match code_match(const knowledge::ErrorCodeRow& r, const std::vector<std::string>& counterparts) {
  Match x;
  x.code = "code." + r.name;
  // "CUDA runtime cudaErrorNoDevice (100)"; a name that is its number ("Xid 79") takes its message instead.
  const bool named_by_number = r.number && r.name.find(std::to_string(*r.number)) != std::string::npos;
  x.title = named_by_number ? fmt::format("{} {}: {}", family_label(r.family), r.name, r.message)
                            : fmt::format("{} {}{}", family_label(r.family), r.name, r.number ? fmt::format(" ({})", *r.number) : "");
  x.cause = r.meaning.empty() ? fmt::format("{} returned {}.", family_label(r.family), r.name) : r.meaning;
  if (!r.message.empty() && r.message != r.name) x.cause += fmt::format(" (its message: \"{}\")", r.message);
  x.fix = r.fix;
  if (x.fix.empty())
    x.fix.push_back(fmt::format("Look up {} in the {} documentation; the call that returned it is in the lines above", r.name,
                                family_label(r.family)));
  x.root.push_back(r.name);
  for (const auto& c : counterparts) add_unique(x.root, c);
  add_unique(x.root, r.condition);
  x.tier = r.condition.empty() ? 1 : 2;
  return x;
}

// A failure line nobody catalogued still names its condition by the words it uses: "Your GPU
// (compute capability 3.5) is not supported", "the NVIDIA driver on this machine is too old",
// "failed to allocate 2 GiB of GPU memory", "permission denied: /dev/nvidiactl". Each topic is
// what happened (one of `says`) and what it happened to (one of each `about` group); topics are
// tried in order, and only on a line that says something failed.
struct ConditionTopic {
  const char* code;
  const char* condition;
  std::vector<const char*> says;
  std::vector<std::vector<const char*>> about;
  const char* title;
  const char* fix;
};

const std::vector<ConditionTopic>& condition_topics() {
  static const std::vector<ConditionTopic> topics = {
      {"words.dtype-unsupported", "dtype-unsupported",
       {"not supported", "unsupported", "requires", "only supported", "not available", "does not support"},
       {{"bfloat16", "bf16", "fp8", "float8", "e4m3", "tf32", "int8 tensor core"},
        {"gpu", "cuda", "compute capability", "sm_", "gfx", "hardware", "architecture", "on mps", "mps backend",
         "mps device", "on xpu", "directml", "dml backend"}},
       "The GPU does not support the data type the program asked for (bfloat16 before Ampere, FP8 before Ada/Hopper ...)",
       "Use a data type the GPU has: float16 (or float32) instead of bfloat16 on GPUs before compute capability 8.0; no "
       "FP8 before 8.9 ;; In the framework: torch_dtype=torch.float16 / --dtype half, or turn the mixed-precision option off"},
      {"words.arch-unsupported", "arch-unsupported",
       {"not supported", "unsupported", "not compatible", "incompatible", "no kernel image", "no binary for", "no kernels for",
        "not built for", "requires compute capability", "minimum compute capability", "minimum cuda capability",
        "too old to be supported", "is too old"},
       {{"compute capability", "cuda capability", "sm_", "gfx", "gpu architecture", "gpu arch", "cuda arch"}},
       "The build has no code for this GPU's architecture (compute capability or gfx target)",
       "Install a build of the program that includes this GPU's architecture (the framework's wheel for a CUDA/ROCm "
       "release that supports it), or build it from source for it (TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES / "
       "--offload-arch) ;; gpuready probe shows the GPU's compute capability; gpuready plan names a stack that supports it"},
      {"words.cuda-toolkit-not-found", "cuda-toolkit-not-found",
       {"not found", "could not find", "cannot find", "unable to find", "not set", "no such file", "is not installed",
        "not installed", "failed to find"},
       {{"nvcc", "cuda_home", "cuda toolkit", "cuda_path", "cuda_toolkit_root_dir"}},
       "A build needs the CUDA toolkit (nvcc, headers) and found none",
       "Install the CUDA toolkit of the CUDA version the framework was built with (conda install -c nvidia cuda-toolkit=12.x, "
       "or NVIDIA's installer) ;; export CUDA_HOME=/usr/local/cuda-12.x and put $CUDA_HOME/bin on PATH ;; Or install a "
       "prebuilt wheel of the package so nothing has to be compiled"},
      {"words.driver-too-old", "driver-too-old",
       {"too old", "insufficient", "older than", "is outdated", "update your", "upgrade your", "newer driver",
        "minimum required driver", "requires driver", "requires a newer", "not supported by the driver",
        "not supported by your driver", "driver does not support", "please update"},
       {{"driver"}, {"nvidia", "cuda", "gpu", "rocm", "amdgpu"}},
       "The GPU driver is older than the program's CUDA/ROCm release needs",
       "Update the GPU driver to a branch that supports the program's CUDA release (gpuready plan shows the minimum), or "
       "install a build of the program for an older CUDA release that this driver supports"},
      {"words.cpu-only-build", "cpu-only-build",
       {"not compiled with", "built without", "compiled without", "cpu-only", "cpu only build", "no cuda support",
        "without cuda support", "without gpu support", "not built with cuda", "not built with gpu", "cpu only version",
        "cpu-only version", "cpu version", "not enabled in this build", "is not enabled", "wasn't built with", "was not built with"},
       {{"cuda", "gpu", "rocm", "hip", "xpu"},
        {"torch", "tensorflow", "jax", "paddle", "mxnet", "onnxruntime", "cupy", "lightgbm", "xgboost", "catboost", "llama",
         "ggml", "faiss", "ctranslate2", "opencv", "dlib"}},
       "A CPU-only build of the framework is installed",
       "Install the framework's GPU build (PyTorch: the +cuXXX wheel from download.pytorch.org/whl/cuXXX; TensorFlow: "
       "pip install tensorflow[and-cuda]; JAX: pip install jax[cuda12]) in this environment, after uninstalling the CPU one"},
      {"words.cuda-ext-not-built", "cuda-ext-not-built",
       {"not compiled with", "built without", "compiled without", "no cuda support", "without cuda support",
        "without gpu support", "not built with cuda", "not built with gpu", "not enabled in this build", "wasn't built with",
        "was not built with"},
       {{"cuda", "gpu", "rocm", "hip"}},
       "A library or extension was built without its CUDA/GPU part",
       "Reinstall the library with its GPU build (its +cuXXX wheel, or build from source with CUDA visible: CUDA_HOME set, "
       "FORCE_CUDA=1 where the project has it)"},
      {"words.nccl-timeout", "nccl-timeout",
       {"timed out", "timeout", "time out"},
       {{"nccl", "collective", "allreduce", "all_reduce", "allgather", "watchdog", "barrier"}},
       "A collective operation between ranks timed out",
       "Find the rank that fell behind or died first (its own log) ;; Rerun with NCCL_DEBUG=INFO; on PCIe machines try "
       "NCCL_P2P_DISABLE=1 ;; Raise the process-group timeout only when one rank legitimately works longer (e.g. saving)"},
      {"words.nccl-network", "nccl-network",
       {"connection refused", "connection reset", "no route to host", "connection closed by", "network is unreachable",
        "connect timed out", "failed to connect", "could not connect", "unable to connect"},
       {{"nccl", "gloo", "c10d", "rendezvous", "bootstrap", "tcpstore", "master_addr", "master_port"}},
       "The ranks could not reach each other over the network",
       "Check every node reaches MASTER_ADDR:MASTER_PORT (nc -zv host port) and the firewall lets the ports through ;; "
       "Pin the interface: NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME=<interface> on every node ;; Start all ranks, the "
       "master first"},
      {"words.driver-build-failed", "driver-build-failed",
       {"failed to build", "build failed", "unable to build", "could not build", "error building", "failed to compile",
        "compilation failed", "bad return status", "build error", "did not build", "[failed]", "rpms failed",
        "could not install newly built"},
       {{"kernel module", "dkms", "nvidia.ko", "nvidia-uvm.ko", "amdgpu.ko", "akmod", "kmod-nvidia", "nvidia-kmod"},
        {"nvidia", "amdgpu", "fglrx", "radeon", "rock-dkms", "gpu"}},
       "The GPU driver's kernel module did not build for the running kernel",
       "Install the headers of the running kernel (Debian/Ubuntu: linux-headers-$(uname -r); Fedora/RHEL: kernel-devel "
       "matching uname -r) and the compiler the kernel was built with, then rebuild: sudo dkms autoinstall (or reinstall "
       "the driver package) ;; Read the first error in the module's make.log (/var/lib/dkms/<module>/<version>/build/make.log) "
       ";; A kernel newer than the driver branch supports needs a newer driver (or the older kernel from the boot menu)"},
      {"words.driver-not-loaded", "driver-not-loaded",
       {"not loaded", "couldn't communicate", "could not communicate", "cannot communicate", "driver not found",
        "not installed", "is not running", "failed to load"},
       {{"nvidia driver", "nvidia kernel", "nvidia module", "gpu driver", "cuda driver", "display driver", "nvidia.ko"}},
       "The NVIDIA driver is not installed or its kernel module is not loaded",
       "Check: nvidia-smi and lsmod | grep nvidia ;; Install the driver (or reinstall it for the running kernel: DKMS) "
       "and reboot; with Secure Boot, enrol the module's key (mokutil) or turn Secure Boot off"},
      {"words.illegal-instruction", "illegal-instruction",
       {"illegal instruction"},
       {{"core dumped", "avx", "sigill"}},
       "The CPU lacks an instruction (AVX ...) the installed build needs",
       "Install a build made for this CPU (TensorFlow >= 1.6 needs AVX: an older CPU needs a community build or a source "
       "build) ;; In a VM, pass the host CPU's features through (host-passthrough)"},
      {"words.out-of-memory", "out-of-memory",
       {"out of memory", "not enough memory", "insufficient memory", "failed to allocate", "oom when allocating",
        "outofmemory", "out_of_memory", "memory allocation failed", "cannot allocate", "exceeds available",
        "exceeds the available"},
       {{"cuda", "gpu", "vram", "device memory", "hip", "rocm", "cudnn", "cublas", "video memory", "dedicated memory",
         "torch.outofmemoryerror", "allocation on device", "mps backend", "mps allocated"}},
       "The GPU ran out of memory",
       "Use a smaller batch, sequence length or model (or quantise it) ;; Close other processes on the GPU (nvidia-smi "
       "lists them) ;; PyTorch: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation; TensorFlow/JAX: "
       "allow memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true, XLA_PYTHON_CLIENT_PREALLOCATE=false)"},
      {"words.host-out-of-memory", "host-out-of-memory",
       {"out of memory", "not enough memory", "insufficient memory", "can't allocate memory", "cannot allocate memory",
        "failed to allocate", "memory allocation failed"},
       {{"cpuallocator", "alloc_cpu", "host memory", "system memory", "system ram", "cpu memory", "page file",
         "paging file"}},
       "The machine ran out of host memory (RAM, or the Windows page file)",
       "Load less into RAM at once (smaller batch, fewer DataLoader workers, a memory-mapped or streamed dataset; load "
       "model weights straight to the GPU) ;; Close other programs; on Windows let the page file grow (System > About > "
       "Advanced system settings > Performance > Virtual memory: system managed) ;; Add swap or RAM"},
      {"words.no-gpu-visible", "no-gpu-visible",
       {"no cuda gpus are available", "no cuda-capable device", "no gpu found", "no gpus found", "no gpu was found",
        "no gpus were found", "no gpu detected", "no gpus detected", "no nvidia gpu", "could not find any gpu",
        "could not find a gpu", "found no gpu", "no compatible gpu", "no supported gpu", "no cuda devices", "gpu not found",
        "no gpu available", "no gpus available", "no visible gpu", "no visible cuda device", "no amd gpu",
        "no rocm-capable device", "no hip gpus", "cuda unavailable", "cuda is not available", "cuda not available",
        "no cuda device"},
       {},
       "The process sees no GPU",
       "Check that the GPU is there and the driver loaded: nvidia-smi (AMD: rocm-smi) ;; Check CUDA_VISIBLE_DEVICES / "
       "HIP_VISIBLE_DEVICES is not empty or wrong ;; In a container pass the GPU in (docker run --gpus all; Kubernetes: a "
       "nvidia.com/gpu limit) ;; A CPU-only build of the framework also sees none: gpuready doctor says which is installed"},
      {"words.nccl-shm", "nccl-shm",
       {"no space left", "bus error", "too small", "insufficient", "cannot allocate", "exceeds", "failed to extend"},
       {{"/dev/shm", "shm size", "shm-size", "shm_size"}, {"nccl"}},
       "NCCL ran out of shared memory (/dev/shm)",
       "Docker: --ipc=host or --shm-size=16g (Kubernetes: an emptyDir with medium: Memory at /dev/shm) ;; df -h /dev/shm"},
      {"words.dataloader-shm", "dataloader-shm",
       {"no space left", "bus error", "too small", "insufficient", "cannot allocate", "exceeds", "failed to extend"},
       {{"/dev/shm", "shm size", "shm-size", "shm_size"}},
       "The process ran out of shared memory (/dev/shm), which DataLoader workers and other processes use to pass data",
       "Docker: --ipc=host or --shm-size=16g (Kubernetes: an emptyDir with medium: Memory at /dev/shm) ;; Or fewer "
       "DataLoader workers (num_workers) ;; df -h /dev/shm"},
      {"words.nvidia-device-permission", "nvidia-device-permission",
       {"permission denied", "operation not permitted", "access denied", "not permitted"},
       {{"/dev/nvidia"}},
       "The process may not open the NVIDIA device nodes (/dev/nvidia*)",
       "Check ls -l /dev/nvidia*: the nodes must be readable and writable by the user (mode 0666, or the group the user "
       "is in) ;; In containers pass the devices in (--gpus all / CDI); with SELinux, label them (container_file_t)"},
      {"words.rocm-permission", "rocm-permission",
       {"permission denied", "operation not permitted", "access denied", "not permitted"},
       {{"/dev/kfd", "/dev/dri"}},
       "The process may not open the AMD GPU device nodes (/dev/kfd, /dev/dri/render*)",
       "sudo usermod -aG render,video $USER, then log in again ;; In containers: --device=/dev/kfd --device=/dev/dri "
       "--group-add video --group-add render"},
  };
  return topics;
}

// All topics' words, added to the line automaton (a line is read once): the id of a word is base |
// its topic times 8 plus 0 for a `says` word, 1 + g for a word of `about` group g.
void add_condition_words(LiteralSet& set, uint32_t base) {
  const auto& topics = condition_topics();
  for (size_t t = 0; t < topics.size(); ++t) {
    for (const char* x : topics[t].says) set.add(x, base | static_cast<uint32_t>(t * 8));
    for (size_t g = 0; g < topics[t].about.size() && g < 7; ++g)
      for (const char* x : topics[t].about[g]) set.add(x, base | static_cast<uint32_t>(t * 8 + 1 + g));
  }
}

// `hits`: the line's condition words (ids as add_condition_words gives them, base 0), found already.
std::optional<Match> condition_from_words(const LogLine& L, const std::vector<LiteralSet::Hit>& hits) {
  const auto& topics = condition_topics();
  std::vector<uint8_t> seen(topics.size(), 0);  // bit 0: a says word; bit 1 + g: a word of about group g
  bool any = false;
  for (const auto& h : hits) {
    seen[h.id / 8] |= static_cast<uint8_t>(1u << (h.id % 8));
    any = true;
  }
  if (!any) return std::nullopt;
  for (size_t t = 0; t < topics.size(); ++t) {
    const ConditionTopic& topic = topics[t];
    const auto want = static_cast<uint8_t>((1u << (1 + topic.about.size())) - 1);
    if ((seen[t] & want) != want) continue;
    if (!says_failure(L, notice_level(L))) return std::nullopt;
    Match x;
    x.code = topic.code;
    x.title = topic.title;
    x.cause = "No catalogue entry has this wording; the line's own words say what happened and to what, and that names the "
              "condition. Read the line itself for the details it gives.";
    x.fix = knowledge::split_fix(topic.fix);
    x.root = {topic.condition};
    x.line = L.number;
    x.tier = 2;
    x.evidence.push_back("your text: " + shown(own_text(L)));
    x.evidence.push_back(fmt::format("decoded: the words of the line name {}", topic.condition));
    return x;
  }
  return std::nullopt;
}

// The library whose API function a line calls: "cudaMallocAsync(" is the CUDA runtime's,
// "cuMemAlloc(" the driver API's, "cusparseSpMM(" cuSPARSE's (the prefix, then a capital, then "(").
// The first call on the line; "" when it names none.
std::string called_family(std::string_view text) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"cusparse", "cusparse"}, {"cusolver", "cusolver"}, {"cublas", "cublas"}, {"cufft", "cufft"}, {"curand", "curand"},
      {"cudnn", "cudnn"},       {"nccl", "nccl"},         {"cuda", "cuda-runtime"}, {"cu", "cuda-driver"},
      {"hip", "hip"},           {"miopen", "miopen"},     {"rocblas", "rocblas"},  {"hipblas", "hipblas"}};
  for (size_t p = 0; p < text.size(); ++p) {
    if (p > 0 && (is_word_char(text[p - 1]))) continue;
    for (const auto& [prefix, family] : prefixes) {
      const size_t n = std::strlen(prefix);
      if (text.compare(p, n, prefix) != 0 || p + n >= text.size() || !(text[p + n] >= 'A' && text[p + n] <= 'Z')) continue;
      size_t e = p + n;
      while (e < text.size() && is_word_char(text[e])) ++e;
      if (e < text.size() && text[e] == '(') return family;
    }
  }
  return "";
}

// Where the paste ran changes what a plain condition means there: no driver, no GPU or no
// libcuda inside a container is a container the runtime did not give the GPU to; under WSL 2 a
// missing libcuda is WSL's /usr/lib/wsl/lib not on the loader's path, and a driver or GPU that
// cannot be reached is WSL not exposing the GPU. The setting is read from the paste's own words.
struct Setting {
  const char* condition;               // what the root cause becomes there (VOCAB.md)
  std::vector<const char*> clues;      // words of the paste that say where it ran (lower case)
  std::vector<const char*> sharpens;   // root tokens it applies to
  const char* why;
  const char* fix;
  // A clue no fixed word can say: the paste's position of it, or npos (then `clues` are read).
  size_t (*find_clue)(std::string_view lower) = nullptr;
};

// WSL 1's kernel release, "4.4.0-19041-Microsoft" (the Windows build number in the middle): the
// distribution runs as WSL 1, which has no GPU support at all. WSL 2's kernels are
// "5.15.x-microsoft-standard-WSL2".
size_t find_wsl1_kernel(std::string_view lower) {
  for (size_t at = lower.find("4.4.0-"); at != std::string_view::npos; at = lower.find("4.4.0-", at + 1)) {
    size_t d = at + 6;
    while (d < lower.size() && parse::is_digit(lower[d])) ++d;
    if (d > at + 6 && lower.compare(d, 10, "-microsoft") == 0 && lower.compare(d, 19, "-microsoft-standard") != 0) return at;
  }
  return std::string_view::npos;
}

// A shell prompt or log prefix whose host is a Windows computer's default name, "DESKTOP-5A67SBM"
// ("LAPTOP-" and 8 characters on some laptops): a Linux shell there is WSL, which takes the Windows
// machine's name ("anurag@DESKTOP-5A67SBM:~$", "DESKTOP-5A67SBM:1234:1234 [0] NCCL INFO ..."). A
// Windows program naming its own host ("[DESKTOP-5A67SBM]:29500") is not one.
size_t find_windows_host_prompt(std::string_view lower) {
  for (std::string_view name : {"desktop-", "laptop-"})
    for (size_t at = lower.find(name); at != std::string_view::npos; at = lower.find(name, at + 1)) {
      if (at > 0 && lower[at - 1] != '@' && lower[at - 1] != '\n') continue;
      size_t e = at + name.size();
      while (e < lower.size() && ((lower[e] >= 'a' && lower[e] <= 'z') || parse::is_digit(lower[e]))) ++e;
      const size_t n = e - at - name.size();
      if (n >= 6 && n <= 9 && e < lower.size() && lower[e] == ':') return at;
    }
  return std::string_view::npos;
}

// A shell prompt inside a Docker container: Docker names the container's host after the first 12
// hex digits of its id ("root@c0cb9814a02b:/workspace#").
size_t find_container_prompt(std::string_view lower) {
  for (size_t at = lower.find('@'); at != std::string_view::npos; at = lower.find('@', at + 1)) {
    if (at == 0 || !(is_word_char(lower[at - 1]) || lower[at - 1] == '-')) continue;
    size_t e = at + 1;
    while (e < lower.size() && (parse::is_digit(lower[e]) || (lower[e] >= 'a' && lower[e] <= 'f'))) ++e;
    if (e - at - 1 == 12 && e < lower.size() && lower[e] == ':') return at + 1;
  }
  return std::string_view::npos;
}

const std::vector<Setting>& settings() {
  static const std::vector<const char*> container = {"docker run", "docker: error response from daemon", "docker exec",
                                                     "docker compose", "docker-compose", "nvidia-docker",
                                                     "podman ", "kubectl", "kubelet", "kubernetes", "enroot", "pyxis",
                                                     "apptainer", "singularity", "nvidia-container-cli", "oci runtime",
                                                     "containerd", "runtime: nvidia", "--runtime=nvidia", "--gpus"};
  static const std::vector<const char*> wsl = {"/usr/lib/wsl/", "microsoft-standard-wsl", "wsl2", "wsl 2", "(wsl)", " wsl ", "wsl:"};
  static const std::vector<const char*> no_device = {"driver-not-loaded", "no-gpu-visible", "gpu-init-failed", "cudaErrorNoDevice",
                                                     "CUDA_ERROR_NO_DEVICE", "NVML_ERROR_DRIVER_NOT_LOADED"};
  static const std::vector<Setting> table = {
      {"wsl-gpu-blocked", {}, [] {
         auto t = no_device;
         t.push_back("driver-build-failed");  // a Linux driver's DKMS build inside WSL 1
         return t;
       }(),
       "the kernel release 4.4.0-<build>-Microsoft is WSL 1's, and WSL 1 has no GPU support: only WSL 2 passes the GPU in",
       "Convert the distribution to WSL 2 in Windows: wsl -l -v (VERSION 1), then wsl --set-version <distro> 2 (and "
       "wsl --set-default-version 2) ;; Then use the Windows NVIDIA driver's WSL support: no Linux NVIDIA driver inside WSL",
       find_wsl1_kernel},
      {"wsl-libcuda", wsl, {"libcuda.so", "libcuda.so.1"},
       "under WSL 2 libcuda comes from Windows' driver as /usr/lib/wsl/lib/libcuda.so.1, which the loader did not find",
       "Under WSL 2: ls -l /usr/lib/wsl/lib/libcuda* ; export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH (or add the folder "
       "to /etc/ld.so.conf.d and run sudo ldconfig); do not install a Linux NVIDIA driver inside WSL",
       find_windows_host_prompt},
      {"wsl-gpu-blocked", wsl, [] {  // and a container under WSL 2 that got no GPU: WSL's side first
         auto t = no_device;
         t.push_back("container-no-gpu");
         return t;
       }(),
       "under WSL 2 the GPU is Windows' (the Linux side has no NVIDIA kernel driver): WSL is not exposing it",
       "Under WSL 2: update the Windows NVIDIA driver and WSL (wsl --update, then wsl --shutdown); nvidia-smi must work in Windows "
       "first; remove any Linux nvidia-driver / nvidia-utils package installed inside WSL",
       find_windows_host_prompt},
      {"container-no-gpu", container,
       {"driver-not-loaded", "no-gpu-visible", "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "NVML_ERROR_LIBRARY_NOT_FOUND",
        "NVML_ERROR_DRIVER_NOT_LOADED", "libcuda.so", "libcuda.so.1", "libnvidia-ml.so.1"},
       "inside a container the driver and the GPU are the host's, passed in by the NVIDIA container runtime: this container did not get them",
       "Run the container with the GPU: docker run --gpus all ... (podman: --device nvidia.com/gpu=all; Kubernetes: a "
       "nvidia.com/gpu limit and the device plugin) ;; Check the host first: nvidia-smi on the host, then nvidia-ctk runtime "
       "configure --runtime=docker and restart the daemon",
       find_container_prompt},
      // CUDA through ZLUDA (on an AMD GPU, Windows): a CUDA library or feature failing there is ZLUDA's setup or coverage.
      {"zluda-setup", {"zluda"},
       {"arch-unsupported", "CUBLAS_STATUS_ARCH_MISMATCH", "CUBLAS_STATUS_NOT_SUPPORTED", "cudaErrorNotSupported",
        "CUDA_ERROR_NOT_SUPPORTED", "cudaErrorNoKernelImageForDevice", "cudaErrorInvalidDeviceFunction", "msvc-runtime",
        "dll-version-mismatch", "CUDNN_STATUS_NOT_SUPPORTED", "CUDNN_STATUS_ARCH_MISMATCH"},
       "under ZLUDA the CUDA libraries are ZLUDA's translations onto AMD's HIP SDK: this one failed to load or covers "
       "less than the program asks for",
       "Install the AMD HIP SDK version your ZLUDA build is made for, with %HIP_PATH%bin on PATH ;; Let the app set ZLUDA up "
       "again (delete its .zluda folder / reinstall with the ZLUDA option); for an unsupported gfx target add the matching "
       "rocBLAS library files ;; If one operation stays unsupported, turn that feature off (e.g. cuDNN, flash attention) in the app"},
      {"container-no-gpu", container, {"rocm-no-kfd"},
       "inside a container /dev/kfd and /dev/dri are the host's, passed in as devices: this container did not get them",
       "Run the container with the AMD GPU's devices: docker run --device=/dev/kfd --device=/dev/dri --group-add video "
       "--group-add render ... (compose: devices: [/dev/kfd, /dev/dri]) ;; Check the host first: ls /dev/kfd and rocminfo on the host",
       find_container_prompt},
  };
  return table;
}

// "Found no NVIDIA driver" (or no CUDA device) where the GPU is AMD's or Intel's is a CUDA build on the wrong
// vendor's GPU, not a driver to install: the root gets wrong-vendor-build first, with the evidence and the fix.
bool about_no_nvidia(const Match& root) {
  static const char* const no_nvidia[] = {"driver-not-loaded", "no-gpu-visible", "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE",
                                          "cudaErrorInsufficientDriver", "NVML_ERROR_DRIVER_NOT_LOADED", "NVML_ERROR_LIBRARY_NOT_FOUND"};
  const bool about_nvidia = std::any_of(root.root.begin(), root.root.end(), [](const std::string& t) {
    return std::find(std::begin(no_nvidia), std::end(no_nvidia), t) != std::end(no_nvidia);
  });
  if (!about_nvidia || std::find(root.root.begin(), root.root.end(), "wrong-vendor-build") != root.root.end()) return false;
  // A line of AMD's own stack that finds no GPU ("rocm_smi_lib: ERROR: No AMD GPU found", "failed to initialize ROCm:
  // no ROCm-capable device") is about the AMD GPU, not a CUDA build on one. A row or code of that stack says so by
  // its name; a line the condition words read, by the stack's own words at a word start ("hip", not "chip"; not
  // "AMD" in prose, and not a row about the NVIDIA driver).
  for (std::string_view w : {"hip", "rocm", "hsa", "amdgpu"})
    if (root.code.find(w) != std::string::npos) return false;
  if (root.code.rfind("words.", 0) == 0 && !root.evidence.empty()) {
    const std::string line = parse::ascii_lower(root.evidence.front());
    for (std::string_view w : {"rocm", "hip", "hsa_", "amdgpu", "/dev/kfd"})
      for (size_t at = line.find(w); at != std::string::npos; at = line.find(w, at + 1))
        if (at_word_start(line, at)) return false;
  }
  return true;
}

void mark_wrong_vendor(Match& root, bool is_amd, const std::string& evidence) {
  root.root.insert(root.root.begin(), "wrong-vendor-build");
  root.evidence.push_back(evidence);
  std::vector<std::string> fix;
  if (is_amd) {
    fix = {"Install the framework's ROCm build (Linux): pip install torch --index-url https://download.pytorch.org/whl/rocm<X.Y> "
           "(a ROCm line your GPU and that PyTorch release support)",
           "Windows with an AMD GPU: PyTorch has no ROCm wheels there; use WSL 2 with ROCm where the GPU is supported, or "
           "torch-directml",
           "Apps with their own AMD path (ComfyUI, ollama, llama.cpp): start the AMD/ROCm variant, not the CUDA one"};
  } else {
    fix = {"Install the framework's Intel GPU build: pip install torch --index-url https://download.pytorch.org/whl/xpu "
           "(and Intel's GPU driver), then use the 'xpu' device instead of 'cuda'"};
  }
  root.fix.insert(root.fix.begin(), fix.begin(), fix.end());
}

// What the machine itself says about a root cause the text alone cannot settle: its GPUs on the PCI bus.
void apply_machine(Match& root, const Snapshot& machine) {
  if (!about_no_nvidia(root) || machine.pci_gpus.empty()) return;
  std::vector<std::string> amd, intel;
  for (const auto& g : machine.pci_gpus) {
    if (g.vendor == "nvidia") return;  // an NVIDIA GPU is there: the driver is the question
    if (g.vendor == "amd") amd.push_back(g.address);
    if (g.vendor == "intel") intel.push_back(g.address);
  }
  if (amd.empty() && intel.empty()) return;
  const bool is_amd = !amd.empty();
  std::string where;
  for (const auto& a : is_amd ? amd : intel) where += (where.empty() ? "" : ", ") + a;
  mark_wrong_vendor(root, is_amd,
                    fmt::format("this machine: its GPU(s) on the PCI bus are {} ({}), none NVIDIA: a CUDA build of the "
                                "framework cannot use them, whatever driver is installed",
                                is_amd ? "AMD" : "Intel", where));
}

// A Radeon product name as people type it, in one spelling: "RX 6700 XT", "RX6700XT" and "rx 6700xt" are all
// "rx6700xt" (the space after "rx" and before a suffix dropped).
std::string radeon_spelling(std::string_view lower) {
  std::string out;
  out.reserve(lower.size());
  for (size_t i = 0; i < lower.size(); ++i) {
    const char c = lower[i];
    const bool after_rx = i >= 2 && lower.compare(i - 2, 2, "rx") == 0 &&
                          (i == 2 || !std::isalnum(static_cast<unsigned char>(lower[i - 3])));
    if (c == ' ' && after_rx && i + 1 < lower.size() && parse::is_digit(lower[i + 1])) continue;
    if (c == ' ' && i > 0 && parse::is_digit(lower[i - 1])) {
      bool suffix = false;
      for (std::string_view sfx : {"xtx", "xt", "gre"}) {
        const size_t e = i + 1 + sfx.size();
        const bool ends = e >= lower.size() || !std::isalnum(static_cast<unsigned char>(lower[e]));
        if (lower.compare(i + 1, sfx.size(), sfx) == 0 && ends) {
          suffix = true;
          break;
        }
      }
      if (suffix) continue;
    }
    out += c;
  }
  return out;
}

// The AMD GPU a paste is about, by its gfx target: "gfx1031" as rocminfo, HIP and rocBLAS print it
// ("amdgcn-amd-amdhsa--gfx1031", "gfx90a:sramecc+:xnack-"), or else by a product name of
// rocm_gfx.csv ("Radeon RX 6700 XT"). Of several (a list of the targets a library ships), the one
// no ROCm release lists is the odd one out: the GPU's own.
const knowledge::RocmGfxRow* gfx_of_paste(const knowledge::Compat& k, std::string_view lower) {
  const knowledge::RocmGfxRow* first = nullptr;
  for (size_t at = lower.find("gfx"); at != std::string_view::npos; at = lower.find("gfx", at + 3)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(lower[at - 1])) && lower[at - 1] != '-') continue;
    size_t e = at + 3;
    while (e < lower.size() && e < at + 8 && std::isxdigit(static_cast<unsigned char>(lower[e]))) ++e;
    if (e - at < 6 || (e < lower.size() && (std::isalnum(static_cast<unsigned char>(lower[e])) || lower[e] == '_'))) continue;
    const auto* g = k.rocm_gfx_row(lower.substr(at, e - at));
    if (!g) continue;
    if (!g->ever_supported()) return g;
    if (!first) first = g;
  }
  if (first) return first;
  const std::string said = radeon_spelling(lower);
  lower = said;
  for (const auto& g : k.rocm_gfx) {
    if (g.kind == "apu") continue;  // an APU's names are its CPU's: a discrete GPU may sit beside it
    for (const auto& name : g.products) {
      std::string n = parse::ascii_lower(name);
      if (const size_t paren = n.find(" ("); paren != std::string::npos) n.resize(paren);
      n = radeon_spelling(n);
      for (const std::string& form : {n, n.starts_with("radeon ") ? n.substr(7) : std::string()}) {
        if (form.size() < 5 || form.find_first_of("0123456789") == std::string::npos) continue;
        for (size_t at = lower.find(form); at != std::string_view::npos; at = lower.find(form, at + 1)) {
          const size_t e = at + form.size();
          const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(lower[at - 1]));
          // "RX 6700" is not "RX 6700 XT"'s neighbour "RX 67000"; "RX 6700 XT" contains "RX 6700": same target.
          const bool ends = e == lower.size() || !std::isalnum(static_cast<unsigned char>(lower[e]));
          if (starts && ends) return &g;
        }
      }
    }
  }
  return nullptr;
}

// Whether a paste names an NVIDIA product: a product word at a word start ("GeForce", "RTX 3060", "A100",
// nvidia-smi), unless the word follows "Radeon"/"AMD" ("AMD Radeon GTX 6750" is a user's slip for an RX card).
bool names_nvidia_product(std::string_view lower) {
  for (std::string_view word : {"geforce", "quadro", "tesla", "rtx", "gtx", "titan", "jetson", "a100", "h100", "h200",
                                "v100", "nvidia-smi"})
    for (size_t at = lower.find(word); at != std::string_view::npos; at = lower.find(word, at + 1)) {
      if (at > 0 && std::isalnum(static_cast<unsigned char>(lower[at - 1]))) continue;
      const std::string_view before = lower.substr(0, at);
      if (before.ends_with("radeon ") || before.ends_with("amd ")) continue;
      return true;
    }
  return false;
}

// The same from the paste, when it names an AMD GPU (a gfx target, a Radeon, a ROCm setup) and no NVIDIA
// product: "Found no NVIDIA driver" in a ROCm container on a Radeon 890M.
void apply_paste_vendor(Match& root, const std::string& lower_paste, const knowledge::Compat& k) {
  if (!about_no_nvidia(root)) return;
  if (names_nvidia_product(lower_paste)) return;
  std::string what;
  if (const auto* g = gfx_of_paste(k, lower_paste))
    what = g->gfx + (g->products.empty() ? std::string() : " (" + g->products.front() + ")");
  else if (lower_paste.find("radeon") != std::string::npos)
    what = "a Radeon GPU";
  else if (lower_paste.find("rocm") != std::string::npos || lower_paste.find("amd gpu") != std::string::npos)
    what = "an AMD GPU (ROCm)";
  if (what.empty()) return;
  mark_wrong_vendor(root, true,
                    fmt::format("your text names {} and no NVIDIA GPU: a CUDA build of the framework cannot use an AMD "
                                "GPU, whatever driver is installed",
                                what));
}

// An AMD failure (a missing kernel, an HSA/HIP fault, a MIOpen/rocBLAS error) on a gfx target that no
// ROCm release lists as supported on Linux (gfx1031: RX 6700 XT, gfx1103: Radeon 780M before 7.12)
// is that target first: ROCm's libraries and the framework wheels ship no kernels for it, and what
// runs is an unofficial override, which faults in exactly these ways. A target whose support ended
// or began at a known release says which ROCm to use for a missing kernel.
void apply_gfx(Match& root, const std::string& lower_paste, const knowledge::Compat& k) {
  auto amd = [](const std::string& t) {
    for (const char* p : {"hipError", "HSA_STATUS_ERROR", "miopenStatus", "rocblas_status", "hipblas", "TensileLibrary"})
      if (t.rfind(p, 0) == 0) return t != "hipErrorOutOfMemory" && t != "hipErrorNoDevice" && t != "hipErrorMemoryAllocation";
    return false;
  };
  const bool missing_kernel = std::any_of(root.root.begin(), root.root.end(), [](const std::string& t) {
    return t == "arch-unsupported" || t == "hipErrorNoBinaryForGpu" || t == "hipErrorInvalidDeviceFunction" ||
           t.rfind("TensileLibrary", 0) == 0;
  });
  const bool amd_failure = missing_kernel || std::any_of(root.root.begin(), root.root.end(), amd) ||
                           root.code.rfind("rocm.", 0) == 0 || root.code.rfind("hip.", 0) == 0 ||
                           root.code.rfind("miopen.", 0) == 0 || root.code.rfind("rocblas.", 0) == 0;
  if (!amd_failure) return;
  std::string set_override;  // HSA_OVERRIDE_GFX_VERSION the paste already sets
  if (const size_t at = lower_paste.find("hsa_override_gfx_version"); at != std::string::npos) {
    size_t v = lower_paste.find_first_of("0123456789", at);
    if (v != std::string::npos && v < at + 30) {
      size_t e = v;
      while (e < lower_paste.size() && (parse::is_digit(lower_paste[e]) || lower_paste[e] == '.')) ++e;
      set_override = lower_paste.substr(v, e - v);
    }
  }
  const knowledge::RocmGfxRow* g = gfx_of_paste(k, lower_paste);
  auto note_override = [&](std::string evidence) {
    if (std::find(root.root.begin(), root.root.end(), "rocm-gfx-override") == root.root.end())
      root.root.insert(root.root.begin() + (root.root.empty() || root.root.front() != "arch-unsupported" ? 0 : 1),
                       "rocm-gfx-override");
    root.evidence.push_back(std::move(evidence));
  };
  // The GPU is not named, but the paste forces a target: a kernel that faults, or finds no code
  // object, under HSA_OVERRIDE_GFX_VERSION runs another target's code on this GPU, the first suspect.
  if (!g) {
    if (set_override.empty() || !(missing_kernel || std::any_of(root.root.begin(), root.root.end(), amd))) return;
    note_override(fmt::format("your text sets HSA_OVERRIDE_GFX_VERSION={}: ROCm then runs the kernels of that target on this "
                              "GPU, which AMD does not support; a GPU whose own target differs from it fails in this way",
                              set_override));
    root.fix.insert(root.fix.begin(),
                    {"Check the GPU's own target (rocminfo | grep gfx) and that the override is the one for its family "
                     "(10.3.0 for RDNA2 gfx103x, 11.0.0 for RDNA3 gfx110x, 9.0.0 for Vega gfx90x), or unset it where the "
                     "ROCm release supports the GPU natively",
                     "If it still fails with the right value: the GPU is outside what that target's kernels can run; use a "
                     "ROCm release or backend (Vulkan) that supports it, or the CPU"});
    return;
  }
  std::string products;
  for (size_t i = 0; i < g->products.size() && i < 2; ++i) products += (i ? ", " : "") + g->products[i];
  const std::string what = fmt::format("{} ({}{}{})", g->gfx, g->generation, products.empty() ? "" : ": ", products);
  // The target an override makes the GPU claim to be: 10.3.0 -> gfx1030, 9.0.10 -> gfx90a.
  std::string claimed;
  if (const auto v = Version::parse(set_override); v && v->parts.size() >= 3 && v->parts[2] < 16)
    claimed = fmt::format("gfx{}{}{:x}", v->parts[0], v->parts[1], v->parts[2]);
  const bool overridden = !claimed.empty() && claimed != g->gfx;
  std::vector<std::string> fix;
  if (!g->ever_supported() || overridden) {
    if (std::find(root.root.begin(), root.root.end(), "arch-unsupported") == root.root.end())
      root.root.insert(root.root.begin(), "arch-unsupported");
    if (!g->ever_supported())
      root.evidence.push_back(fmt::format("the GPU: {} is on no ROCm release's Linux support list (rocm_gfx.csv): ROCm's "
                                          "libraries and the framework wheels ship no kernels for it",
                                          what));
    else
      root.evidence.push_back(fmt::format("the GPU: {} is on ROCm's Linux support list from ROCm {}{}", what, g->first->str(),
                                          g->last ? " to " + g->last->str() : std::string()));
    if (!set_override.empty()) {
      note_override(fmt::format("your text sets HSA_OVERRIDE_GFX_VERSION={}: {}'s kernels run on this {}, unsupported "
                                "by AMD, and this is how that fails when they do not fit",
                                set_override, claimed.empty() ? "another target" : claimed, g->gfx));
      if (g->ever_supported())
        fix.push_back(fmt::format("Drop the override and use ROCm {} or newer{}, which has {}'s own kernels", g->first->str(),
                                  g->last ? " (up to " + g->last->str() + ")" : std::string(), g->gfx));
      if (!g->override_version.empty() && g->override_version != set_override)
        fix.push_back(fmt::format("The override people use for {} is HSA_OVERRIDE_GFX_VERSION={} (unofficial): try that value",
                                  g->gfx, g->override_version));
      fix.push_back("If the override does not work for this GPU: run on the CPU, use a backend that supports it (Vulkan: "
                    "llama.cpp/ollama's Vulkan build), or a GPU that ROCm lists");
    } else if (!g->override_version.empty()) {
      fix.push_back(fmt::format("Unofficial workaround (AMD does not support it): export HSA_OVERRIDE_GFX_VERSION={} before "
                                "starting the program, to run the kernels of the nearest supported target of the same "
                                "family on this {}",
                                g->override_version, g->gfx));
    } else {
      fix.push_back(fmt::format("No ROCm release supports {}: run on the CPU, use a backend that does (Vulkan builds of "
                                "llama.cpp/ollama, DirectML on Windows), or a GPU that ROCm lists",
                                g->gfx));
    }
  } else if (missing_kernel && g->last) {
    root.evidence.push_back(fmt::format("the GPU: {} was last on ROCm's Linux support list in ROCm {}: newer ROCm "
                                        "releases and the wheels built on them may ship no kernels for it",
                                        what, g->last->str()));
    fix.push_back(fmt::format("Use ROCm {} or older and a framework build made for that ROCm", g->last->str()));
  } else if (missing_kernel && g->first) {
    root.evidence.push_back(fmt::format("the GPU: {} is on ROCm's Linux support list from ROCm {}: older ROCm "
                                        "releases and wheels built on them have no kernels for it",
                                        what, g->first->str()));
    fix.push_back(fmt::format("Use ROCm {} or newer and a framework build made for it (PyTorch: the rocm wheel index of "
                              "that ROCm line)",
                              g->first->str()));
  }
  root.fix.insert(root.fix.begin(), fix.begin(), fix.end());
}

void apply_setting(Match& root, const std::string& lower_paste) {
  for (const Setting& s : settings()) {
    if (std::find(root.root.begin(), root.root.end(), s.condition) != root.root.end()) return;
    const bool sharpened = std::any_of(root.root.begin(), root.root.end(), [&](const std::string& t) {
      return std::any_of(s.sharpens.begin(), s.sharpens.end(), [&](const char* w) { return t == w; });
    });
    if (!sharpened) continue;
    std::string clue;
    if (s.find_clue) {
      if (const size_t at = s.find_clue(lower_paste); at != std::string_view::npos) {
        size_t e = at;
        while (e < lower_paste.size() && !std::isspace(static_cast<unsigned char>(lower_paste[e])) && lower_paste[e] != ')' &&
               lower_paste[e] != ':')
          ++e;
        clue = lower_paste.substr(at, e - at);
      }
    }
    if (clue.empty()) {
      for (const char* c : s.clues)
        if (lower_paste.find(c) != std::string::npos) {
          clue = c;
          break;
        }
    }
    if (clue.empty()) continue;
    root.root.insert(root.root.begin(), s.condition);
    root.evidence.push_back(fmt::format("where it ran: your text says \"{}\": {}", parse::trim(clue), s.why));
    auto lines = knowledge::split_fix(s.fix);
    root.fix.insert(root.fix.begin(), lines.begin(), lines.end());
    return;
  }
}

}  // namespace

std::vector<Match> Explainer::explain(std::string_view text, const Snapshot* machine) const {
  const Impl& m = *impl_;
  std::string kept;
  if (text.size() > kMaxBytes) {  // the start (what was set up) and the end (where it failed)
    kept.assign(text.substr(0, kMaxBytes / 2));
    kept += "\n";
    kept.append(text.substr(text.size() - kMaxBytes / 2));
    text = kept;
  }
  std::vector<LogLine> lines = split_log(text);
  // PyTorch and other NCCL users end an NCCL error with "Last error:" and, on the next line, the text of
  // the NCCL WARN that said why ("socketStartConnect: Connect to ... failed : ...", "Call to ibv_modify_qp
  // failed ..."): that line is read as the NCCL warning it is.
  // A launcher's prefix on both lines ("10: " from srun --label, "[rank0]: " from torchrun) stays in front.
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string_view here = parse::trim(lines[i].lower);
    constexpr std::string_view kLast = "last error:";
    if (here.size() < kLast.size() || here.substr(here.size() - kLast.size()) != kLast) continue;
    const size_t prefix = lines[i].lower.rfind(kLast);
    bool nccl = false;
    for (size_t j = i; j > 0 && j + 4 > i && !nccl; --j) nccl = lines[j - 1].lower.find("nccl") != std::string::npos;
    LogLine& next = lines[i + 1];
    if (!nccl || next.lower.find("nccl warn") != std::string::npos) continue;
    const size_t at = next.lower.compare(0, prefix, lines[i].lower, 0, prefix) == 0 ? prefix : 0;
    next.text.insert(at, "NCCL WARN ");
    next.lower.insert(at, "nccl warn ");
    next.added_at = at;
    next.added = 10;
  }
  std::string whole_lower;  // the paste in lower case, made when a row with a context needs it
  auto lower_text = [&]() -> const std::string& {
    if (whole_lower.empty() && !text.empty()) whole_lower = parse::ascii_lower(text);
    return whole_lower;
  };
  // A row's context: words separated by '|', any one of which the paste must contain.
  // Each signature's answer is kept: the paste does not change, and a log repeats its lines.
  std::vector<int8_t> context_seen(m.sigs.size(), -1);
  auto context_found = [&](uint32_t id) {
    int8_t& seen = context_seen[id];
    if (seen < 0) {
      seen = 0;
      for (const auto& word : knowledge::split_fix(parse::ascii_lower(m.sigs[id].row->context), "|"))
        if (!word.empty() && lower_text().find(word) != std::string::npos) seen = 1;
    }
    return seen == 1;
  };

  // Signature candidates per line (by their literals), and multiline signatures whose literal is
  // up to four lines further on.
  std::vector<std::vector<uint32_t>> cands(lines.size());
  std::vector<LiteralSet::Hit> hits;  // one buffer for every line's literal scans
  std::map<std::string, std::optional<LibraryName>, std::less<>> decoded_names;
  // Each line walked once for every kind of literal: the signatures' go to cands, the others
  // are kept (line after line in one vector) for the steps below.
  std::vector<LiteralSet::Hit> line_hits;
  std::vector<size_t> hits_begin(lines.size() + 1, 0);
  constexpr uint32_t kIdMask = (1u << Impl::kIdBits) - 1;
  for (size_t i = 0; i < lines.size(); ++i) {
    hits_begin[i] = line_hits.size();
    m.line_literals.find_all(lines[i].lower, hits);
    for (const auto& h : hits) {
      if ((h.id >> Impl::kIdBits) != Impl::kSig) {
        line_hits.push_back(h);
        continue;
      }
      cands[i].push_back(h.id);
      if (m.sigs[h.id].multiline)
        for (size_t back = 1; back <= 4 && back <= i; ++back) cands[i - back].push_back(h.id);
    }
  }
  hits_begin[lines.size()] = line_hits.size();
  // Line i's hits of one kind, in text order, with the kind's own ids.
  auto hits_of = [&](size_t i, uint32_t tag, std::vector<LiteralSet::Hit>& out) {
    out.clear();
    for (size_t h = hits_begin[i]; h < hits_begin[i + 1]; ++h)
      if ((line_hits[h].id >> Impl::kIdBits) == tag) out.push_back({line_hits[h].id & kIdMask, line_hits[h].end, line_hits[h].length});
  };
  auto has_hit = [&](size_t i, uint32_t tag) {
    for (size_t h = hits_begin[i]; h < hits_begin[i + 1]; ++h)
      if ((line_hits[h].id >> Impl::kIdBits) == tag) return true;
    return false;
  };

  std::vector<Found> found;
  // A signature seen before (and naming no library) only counts again: a log repeats its lines.
  std::vector<int> seen_sig(m.sigs.size(), -1);
  for (size_t i = 0; i < lines.size(); ++i) {
    const LogLine& L = lines[i];
    std::vector<uint32_t>& c = cands[i];
    c.insert(c.end(), m.always.begin(), m.always.end());
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());

    std::optional<Found> sig_found;
    std::string window, wrapped;
    // A match in a text that continues this line counts only when it starts on this line.
    auto search_from_line = [&](const Pattern& re, const std::string& joined) {
      auto hit = re.search(joined);
      if (hit && hit->begin >= L.text.size()) hit.reset();
      return hit;
    };
    bool repeat = false;
    std::optional<uint32_t> chosen;
    std::optional<PatternMatch> chosen_hit;
    bool chosen_generic = false;
    for (uint32_t id : c) {
      const auto& sig = m.sigs[id];
      const Pattern* re = sig.re();
      if (!re) continue;
      auto hit = re->search(L.text);
      if (!hit && sig.multiline && i + 1 < lines.size()) {
        if (window.empty()) {
          size_t size = L.text.size();
          for (size_t j = i + 1; j < lines.size() && j < i + 5; ++j) size += 1 + lines[j].text.size();
          window.reserve(size);
          window = L.text;
          for (size_t j = i + 1; j < lines.size() && j < i + 5; ++j) window.append(1, '\n').append(lines[j].text);
        }
        hit = search_from_line(*re, window);
      }
      // A paste hard-wrapped at a fixed width (a mail, a forum's code box, a narrow terminal):
      // "... is killed by signal: Bus" / "error. It is possible ...". The next line continues this
      // one when this one is long and stops mid-sentence (on a letter, a digit or a comma), and the
      // next is the paste's next line, not indented, starts with a lower-case letter and is not
      // another record of the same log (the same first bytes: a host name, a logger); the two are
      // read as one, joined by a space, and the match must start on this line.
      if (!hit && i + 1 < lines.size() && L.text.size() >= 40 &&
          (std::isalnum(static_cast<unsigned char>(L.text.back())) || L.text.back() == ',')) {
        const LogLine& next = lines[i + 1];
        if (next.number == L.number + 1 && !next.indented && next.text.size() > 4 && next.text[0] >= 'a' &&
            next.text[0] <= 'z' && next.text.compare(0, 4, L.text, 0, 4) != 0) {
          if (wrapped.empty()) wrapped.append(L.text).append(1, ' ').append(next.text);
          hit = search_from_line(*re, wrapped);
        }
      }
      if (!hit) continue;
      const auto& row = *sig.row;
      if (!row.context.empty() && !context_found(id)) continue;
      // One signature per line: the first (most specific) in table order, except that a generic row
      // (a fallback that names no cause: "error running prestart hook: exit status 1") yields to a
      // specific failure row that matches the same line further on.
      if (!chosen || (chosen_generic && row.kind == "failure")) {
        chosen = id;
        chosen_hit = std::move(hit);
        chosen_generic = row.kind == "generic";
      }
      if (!chosen_generic) break;
    }
    if (chosen) {
      const uint32_t id = *chosen;
      const auto& row = *m.sigs[id].row;
      const auto& hit = chosen_hit;
      if (seen_sig[id] >= 0) {
        ++found[static_cast<size_t>(seen_sig[id])].m.count;
        repeat = true;
      } else {
        Found f;
        f.m.code = row.code;
        f.m.title = row.title;
        f.m.harmless = row.harmless();
        f.m.line = L.number;
        f.m.tier = row.kind == "generic" ? 0 : 3;
        f.m.evidence.push_back("your text: " + shown(own_text(L)));
        for (const auto& g : hit->groups) f.m.groups.push_back(g.value_or(""));
        f.m.cause = with_groups(row.cause, f.m.groups);
        for (const auto& line : row.fix) f.m.fix.push_back(with_groups(line, f.m.groups));
        for (const auto& t : row.root) {
          if (t.size() == 2 && t[0] == '$' && parse::is_digit(t[1])) {  // "$1": the library the line names
            const size_t gi = static_cast<size_t>(t[1] - '1');
            if (gi < hit->groups.size() && hit->groups[gi]) add_unique(f.m.root, path_file_name(*hit->groups[gi]));
          } else {
            add_unique(f.m.root, t);
          }
        }
        if (std::none_of(row.root.begin(), row.root.end(), [](const std::string& t) { return t[0] == '$'; }))
          seen_sig[id] = static_cast<int>(found.size());
        sig_found = std::move(f);
      }
    }

    if (repeat) continue;
    // Vendor codes on the line: by name, by number in context, by message text.
    std::vector<const knowledge::ErrorCodeRow*> codes;
    auto take = [&](const knowledge::ErrorCodeRow* r) {
      if (std::find(codes.begin(), codes.end(), r) == codes.end()) codes.push_back(r);
    };
    for (size_t p = 0; p < L.text.size();) {
      if (!is_word_char(L.text[p])) {
        ++p;
        continue;
      }
      size_t e = p;
      while (e < L.text.size() && is_word_char(L.text[e])) ++e;
      if (e - p >= 6) {
        const std::string_view tok = std::string_view(L.text).substr(p, e - p);
        if (!m.plain_names && !code_shaped(tok)) {
          p = e;
          continue;
        }
        if (auto it = find_name(m.code_by_name, tok); it != m.code_by_name.end()) {
          for (const auto* r : it->second) take(r);
        } else if (const std::string bound = binding_code_name(tok, L); !bound.empty()) {
          if (auto u = m.code_by_name.find(bound); u != m.code_by_name.end())
            for (const auto* r : u->second) take(r);
        } else {
          // CUDNN_STATUS_x in lower case, or as a binding spells it in camel case
          // ("libcudnn.cudnnStatusArchMismatch", "cublasStatusNotInitialized").
          std::string up, snake;
          for (size_t q = 0; q < tok.size(); ++q) {
            const char ch = tok[q];
            const bool upper = ch >= 'A' && ch <= 'Z';
            if (upper && q > 0 && ((tok[q - 1] >= 'a' && tok[q - 1] <= 'z') || parse::is_digit(tok[q - 1]))) snake += '_';
            const char U = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
            up += U;
            snake += U;
          }
          for (const std::string* cand : {&up, &snake}) {
            if (cand->find('_') == std::string::npos) continue;
            if (auto u = m.code_by_name.find(*cand); u != m.code_by_name.end()) {
              for (const auto* r : u->second) take(r);
              break;
            }
          }
        }
      }
      p = e;
    }
    if (codes.empty()) {
      std::set<uint32_t> tried;
      hits_of(i, Impl::kNumber, hits);
      for (const auto& h : hits) {
        if (!tried.insert(h.id).second) continue;
        const auto& rule = m.number_rules[h.id];
        auto hit = rule.re->search(L.text);
        if (!hit || hit->groups.empty() || !hit->groups[0]) continue;
        const std::string& digits = *hit->groups[0];
        const long n = std::stol(digits, nullptr, digits.rfind("0x", 0) == 0 ? 16 : 10);  // Level Zero's hex too
        if (n == 0) continue;
        // "error=46 : all CUDA-capable devices are busy": where the line also has the code's
        // message, it picks between today's number and an older release's; else today's.
        const auto rows = m.rows_by_number(rule.family, n);
        const knowledge::ErrorCodeRow* pick = rows.empty() ? nullptr : rows.front();
        for (const auto* r : rows)
          if (!r->message.empty() && L.lower.find(parse::ascii_lower(r->message)) != std::string::npos) {
            pick = r;
            break;
          }
        // "Xid 45, ... caused by previous Xid 149": the earlier event is the cause, this one its cleanup.
        if (pick && rule.family == "xid")
          if (const size_t at = L.lower.find("previous xid"); at != std::string::npos) {
            size_t q = at + 12;
            while (q < L.lower.size() && (L.lower[q] == ' ' || L.lower[q] == ':')) ++q;
            size_t e = q;
            while (e < L.lower.size() && e < q + 3 && parse::is_digit(L.lower[e])) ++e;
            if (e > q && (e == L.lower.size() || !parse::is_digit(L.lower[e])))
              if (const auto prev = m.rows_by_number("xid", std::stol(L.lower.substr(q, e - q))); !prev.empty())
                take(prev.front());
          }
        if (pick) take(pick);
        if (!codes.empty()) break;
      }
    }
    // NCCL quotes the CUDA error behind its own result ("ncclUnhandledCudaError: Call to CUDA function failed.
    // Last error: Cuda failure 'system not yet initialized'"): the CUDA message is read as well, and the NCCL
    // result kept after it.
    std::vector<const knowledge::ErrorCodeRow*> nccl_results;
    if (!codes.empty() && L.lower.find("cuda failure") != std::string::npos &&
        std::all_of(codes.begin(), codes.end(), [](const knowledge::ErrorCodeRow* r) { return r->family == "nccl"; }))
      nccl_results.swap(codes);
    if (codes.empty()) {
      hits_of(i, Impl::kMessage, hits);
      for (const auto& h : hits) {
        const auto* r = m.message_rows[h.id];
        const size_t b = h.end - h.length;
        const std::string& message = m.message_text[h.id];  // the literal was its first bytes: all of it?
        if (L.lower.compare(b, message.size(), message) != 0) continue;
        const size_t end = b + message.size();
        if ((b > 0 && is_word_char(L.lower[b - 1])) || (end < L.lower.size() && is_word_char(L.lower[end]))) continue;
        // A short message counts only on a line that names its library ("out of memory" alone is anyone's).
        if (message.size() < 28 && !line_names_family(L, r->family)) continue;
        take(r);
      }
      // A message several libraries share ("operation not supported" is CUDA's and cuSPARSE's):
      // the library whose function the line calls ("cudaMallocAsync(...) failed: ...") said it.
      if (codes.size() > 1) {
        const std::string caller = called_family(L.text);
        if (!caller.empty() && std::any_of(codes.begin(), codes.end(), [&](const auto* r) { return r->family == caller; }))
          codes.erase(std::remove_if(codes.begin(), codes.end(), [&](const auto* r) { return r->family != caller; }), codes.end());
      }
      // Messages change between releases ("all CUDA-capable devices are busy or unavailable" is
      // today's "CUDA-capable device(s) is/are busy or unavailable"): after "CUDA error:" (or
      // "HIP error:", or TensorFlow's "... on GPU:0 failed. Status: " on a line that says CUDA), the
      // message whose words the text holds best, at least three of four.
      if (codes.empty()) {
        static const std::pair<const char*, const char*> prefixes[] = {
            {"cuda error", "cuda-runtime"}, {"cuda runtime error", "cuda-runtime"}, {"cuda driver error", "cuda-driver"},
            {"hip error", "hip"}, {"failed. status:", "cuda-runtime"}};
        for (const auto& [prefix, family] : prefixes) {
          const size_t at = L.lower.find(prefix);
          if (at == std::string::npos) continue;
          if (prefix[0] == 'f' && L.lower.find("cuda") == std::string::npos) continue;
          const auto tail = loose_words(std::string_view(L.lower).substr(at + std::strlen(prefix)), 24);
          const knowledge::ErrorCodeRow* best = nullptr;
          double best_score = 0;
          for (const auto& [row, words] : m.message_words) {
            const auto& r = *row;
            if (r.family != family) continue;
            size_t have = 0;
            for (const auto& w : words) have += std::find(tail.begin(), tail.end(), w) != tail.end() ? 1 : 0;
            const double score = static_cast<double>(have) / static_cast<double>(words.size());
            if (score >= 0.75 && score > best_score) {
              best = &r;
              best_score = score;
            }
          }
          if (best) take(best);
          break;
        }
      }
      // One message, several families (CUDA and HIP): the line's own family first. Several codes
      // of one family with the same message ("device kernel image is invalid": 200 and 300) stay
      // together: the text cannot tell them apart.
      if (codes.size() > 1) {
        // Named on the line first; else a ROCm family where the paste speaks of ROCm/HIP, else
        // CUDA's (the same words are far more often CUDA's).
        static constexpr const char* kRocmWords[] = {"rocm", "hiperror", "hip error", "amdgpu", "hsa_status", "miopen", "hipblas"};
        const bool rocm_text = std::any_of(std::begin(kRocmWords), std::end(kRocmWords),
                                           [&](const char* w) { return lower_text().find(w) != std::string::npos; });
        auto rank = [&](const knowledge::ErrorCodeRow* r) {
          if (line_names_family(L, r->family)) return 0;
          const bool cuda = r->family.rfind("cuda", 0) == 0;
          return cuda != rocm_text ? 1 : 2;
        };
        std::stable_sort(codes.begin(), codes.end(),
                         [&](const knowledge::ErrorCodeRow* a, const knowledge::ErrorCodeRow* b) { return rank(a) < rank(b); });
        const std::string fam = codes.front()->family, msg = codes.front()->message;
        codes.erase(std::remove_if(codes.begin() + 1, codes.end(),
                                   [&](const knowledge::ErrorCodeRow* r) { return r->family != fam || r->message != msg; }),
                    codes.end());
      }
    }
    for (const auto* r : nccl_results) take(r);

    // Library names after a "cannot open / could not load / undefined symbol" phrase.
    std::optional<Found> lib_found;
    std::vector<LiteralSet::Hit> phrase_hits;
    hits_of(i, Impl::kLib, phrase_hits);
    // Without one of the loader phrases, a library the tables know on a line that says something
    // failed ("Library libcublas.so.11 not found", "cannot use cudnn64_8.dll") is still one.
    static const Impl::LibPhrase kFallback{"library.missing", false};
    const bool fallback =
        phrase_hits.empty() &&
        (L.lower.find(".so") != std::string::npos || L.lower.find(".dll") != std::string::npos ||
         L.lower.find(".dylib") != std::string::npos) &&
        has_hit(i, Impl::kFailure);
    if (!phrase_hits.empty() || fallback) {
      const auto names = library_names_in(L.text, L.lower);
      if (!names.empty()) {
        const auto& ph = fallback ? kFallback : m.lib_phrases[phrase_hits.front().id];
        const size_t at = fallback ? 0 : phrase_hits.front().end - phrase_hits.front().length;
        // The library the phrase is about: before it ("X: cannot open shared object file") or after it.
        const NameAt* primary = nullptr;
        for (const auto& n : names) {
          if (ph.name_before ? n.pos < at : n.pos > at) {
            if (ph.name_before || !primary) primary = &n;  // the last before, or the first after
          }
        }
        if (!primary) primary = &names.front();
        const bool explicit_phrase = ph.code != "library.missing" ||
                                     L.lower.find("no such file or directory") == std::string::npos ||
                                     L.lower.find(".so") != std::string::npos || L.lower.find(".dll") != std::string::npos;
        auto memo = decoded_names.find(primary->name);  // a log names the same few libraries again and again
        if (memo == decoded_names.end()) memo = decoded_names.emplace(primary->name, m.library_names.decode(primary->name)).first;
        const std::optional<LibraryName>& decoded = memo->second;
        std::vector<std::string> cuda_mix_roots;  // conditions a version mix of CUDA parts adds
        // A system library outside the GPU stack (libGL.so.1 for opencv-python in a slim image): not ours to claim.
        const bool not_gpu_stack = decoded && decoded->kind == "system";
        // A library the tables do not know, missed on a debug, info or warning line (or on the indented
        // continuation of one): the program says so and goes on ("DEBUG Could not load ANN shared
        // libraries, using ONNX:" / "libmali.so: cannot open shared object file"); nothing of ours failed.
        const bool unknown_notice =
            !decoded && (notice_level(L) > 0 || (L.indented && i > 0 && notice_level(lines[i - 1]) > 0));
        if (!not_gpu_stack && !unknown_notice && explicit_phrase &&
            (decoded || (!fallback && !ph.known_only && (ph.code != "library.missing" || phrase_hits.front().length > 12)))) {
          Found f;
          f.m.code = ph.code;
          f.m.line = L.number;
          f.m.tier = 3;
          f.m.evidence.push_back("your text: " + shown(own_text(L)));
          const std::string what = decoded ? fmt::format("{} ({}{})", primary->name, decoded->component,
                                                         decoded->release.empty() ? "" : ", " + decoded->release)
                                           : primary->name;
          if (ph.code == "library.missing") {
            f.m.title = "A library could not be loaded: " + what;
            f.m.cause = fmt::format("The program asked the loader for {} and it was not found in any folder the loader searches "
                                    "(or one of its own dependencies was not).", what);
          } else if (ph.code == "library.undefined-symbol") {
            f.m.title = "A library does not match the one it was built against: " + what;
            f.m.cause = fmt::format("{} was loaded, but a function it needs is not in the copy of its dependency that "
                                    "was found: two components of different versions are mixed.", what);
          } else if (ph.code == "library.version-not-found") {
            f.m.title = "A library is older than the program needs: " + what;
            f.m.cause = fmt::format("{} was found, but it lacks the symbol version the program was built against.", what);
          } else {
            f.m.title = "The linker cannot find a library: " + what;
            f.m.cause = fmt::format("The link step asked for {} and it is not in the linker's search folders.", what);
          }
          if (decoded && decoded->row) {
            const auto& row = *decoded->row;
            const std::string step = decoded->windows ? row.windows_install : row.linux_install;
            for (const auto& s : install_steps(fill(step, *decoded), decoded->release)) add_unique(f.m.fix, "Install it: " + s);
            if (!decoded->release.empty())
              f.m.evidence.push_back(fmt::format("decoded: {} is {} {}", primary->name, decoded->component, decoded->release));
          }
          if (ph.code == "library.missing") {
            if (decoded && decoded->windows)
              add_unique(f.m.fix, "Put the folder that holds it on PATH (Python 3.8+: os.add_dll_directory(folder) before the import)");
            else
              add_unique(f.m.fix, "If it is installed, add its folder to the loader path: sudo ldconfig, or "
                                  "export LD_LIBRARY_PATH=<folder>:$LD_LIBRARY_PATH");
            add_unique(f.m.fix, "If the program asks for another version than you have, install the build of the program "
                                "made for your version instead (or that version alongside)");
          } else if (ph.code == "library.undefined-symbol" || ph.code == "library.version-not-found") {
            add_unique(f.m.fix, "Make the versions agree: reinstall the packages from one release set (e.g. the framework's "
                                "own pinned nvidia-* wheels) and take stale copies off LD_LIBRARY_PATH");
            // A library lacking a symbol another was built against: two versions are mixed; for CUDA
            // parts, two CUDA releases.
            if (ph.code == "library.undefined-symbol") add_unique(cuda_mix_roots, "dll-version-mismatch");
            if (decoded && (decoded->kind == "cuda" || decoded->kind == "cuda-math"))
              add_unique(cuda_mix_roots, "cuda-version-mismatch");
            else if (decoded && decoded->kind == "cudnn")
              add_unique(cuda_mix_roots, "cudnn-version-mismatch");
          } else {
            if (decoded && decoded->windows)
              add_unique(f.m.fix, "Give the linker the folder that holds it (the CUDA toolkit's lib\\x64): add it to LIB, "
                                  "pass /LIBPATH:<folder>, or set CUDA_PATH/CUDA_HOME to the toolkit the build should use");
            else
              add_unique(f.m.fix, "Install the development package that provides it and pass its folder with -L<folder>");
          }
          f.m.root.push_back(primary->name);
          for (const auto& n : names) add_unique(f.m.root, n.name);
          for (const auto& r : cuda_mix_roots) add_unique(f.m.root, r);
          // The Microsoft C/C++ runtime DLLs (library_stems.csv: vendor Microsoft, kind runtime).
          if (decoded && decoded->kind == "runtime" && decoded->row && decoded->row->vendor == "Microsoft")
            add_unique(f.m.root, "msvc-runtime");
          if (machine) library_facts(*machine, primary->name, f.m.evidence);
          f.optional_library = decoded && decoded->kind == "tensorrt" && ph.code == "library.missing";
          lib_found = std::move(f);
        }
      }
    }
    // The version tag a loader says is missing names the runtime: libstdc++'s GLIBCXX_3.4.30 or
    // CXXABI_1.3.9 (the C++ runtime is older than the build), glibc's GLIBC_2.32 (the binary was
    // built for a newer distribution than this one).
    // Read once per line, as the GLIBCXX check alone was (two searches, no string built).
    bool glibc_tag = false, libstdcxx_tag = false;
    for (std::string_view q : {"version `", "version '"})
      for (size_t at = L.lower.find(q); at != std::string::npos; at = L.lower.find(q, at + 1)) {
        const std::string_view tag = std::string_view(L.lower).substr(at + q.size());
        glibc_tag = glibc_tag || tag.starts_with("glibc_");
        libstdcxx_tag = libstdcxx_tag || tag.starts_with("glibcxx_") || tag.starts_with("cxxabi_");
      }
    if (glibc_tag) {
      if (!lib_found) {
        Found f;
        f.m.line = L.number;
        f.m.tier = 3;
        f.m.evidence.push_back("your text: " + shown(own_text(L)));
        lib_found = std::move(f);
      }
      lib_found->m.code = "library.glibc-too-old";
      lib_found->m.title = "The C library of this system is older than the program was built for";
      lib_found->m.cause = "The binary asks for a GLIBC symbol version this distribution's libc.so.6 does not have: it was built "
                           "on (or for) a newer Linux distribution. glibc cannot be replaced per environment.";
      lib_found->m.fix = {"Use the package's build for older distributions: an older release whose wheel has a manylinux tag "
                          "this system meets (pip install \"<package><X\"), or the conda-forge build",
                          "Or run it on a newer OS or in a container image with a newer glibc (ldd --version shows this one's)"};
      lib_found->m.root = {"glibc-too-old", "libc.so.6"};
    }
    if (libstdcxx_tag) {
      if (!lib_found) {
        Found f;
        f.m.code = "library.libstdcxx-too-old";
        f.m.line = L.number;
        f.m.tier = 3;
        f.m.evidence.push_back("your text: " + shown(own_text(L)));
        f.m.title = "The C++ runtime found first is older than the program needs";
        f.m.cause = "A libstdc++.so.6 without the GLIBCXX/CXXABI version the extension was built with is loaded first (the system's "
                    "is older, or an environment's older copy shadows a newer one).";
        lib_found = std::move(f);
      }
      lib_found->m.title = "The C++ runtime found first is older than the program needs";
      lib_found->m.fix.insert(lib_found->m.fix.begin(),
                              {"conda: conda install -c conda-forge libstdcxx-ng (or libstdcxx) in that environment",
                               "Or load the newer system copy first: export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH"});
      add_unique(lib_found->m.root, "libstdcxx-too-old");
      add_unique(lib_found->m.root, "libstdc++.so.6");
    }

    // One entry per line: the signature (if any) takes what the decoders found on its line.
    std::vector<Match> code_matches;
    std::vector<std::string> alternatives;  // codes the same message names, after the first
    for (size_t a = 1; a < codes.size(); ++a)
      if (codes[a]->message == codes[0]->message && !codes[0]->message.empty()) alternatives.push_back(codes[a]->name);
    for (const auto* r : codes) {
      if (std::find(alternatives.begin(), alternatives.end(), r->name) != alternatives.end()) {
        auto& first = code_matches.front();
        add_unique(first.root, r->name);
        if (auto cp = m.counterparts.find(r->name); cp != m.counterparts.end())
          for (const auto& other : cp->second) add_unique(first.root, other);
        first.evidence.push_back(fmt::format("the same message is also {} {}: {}", family_label(r->family), r->name, r->meaning));
        continue;
      }
      auto cp = m.counterparts.find(r->name);
      Match x = code_match(*r, cp == m.counterparts.end() ? std::vector<std::string>{} : cp->second);
      x.line = L.number;
      x.evidence.push_back("your text: " + shown(own_text(L)));
      if (machine && (r->condition == "driver-too-old" || r->condition == "driver-not-loaded")) driver_facts(*machine, x.evidence);
      code_matches.push_back(std::move(x));
    }
    // TensorFlow's start-up probe for TensorRT ("Could not load dynamic library 'libnvinfer.so.7'")
    // is only a failure for someone who uses TF-TRT: not when TF-TRT itself then dies on it (a
    // fatal-level line of tf2tensorrt: "F tensorflow/compiler/tf2tensorrt/stub/nvinfer_stub.cc:49]
    // getInferLibVersion symbol not found.").
    auto trt_fatal = [&] {
      const std::string& w = lower_text();
      for (size_t at = w.find("tf2tensorrt"); at != std::string::npos; at = w.find("tf2tensorrt", at + 1)) {
        const size_t nl = w.rfind('\n', at);
        const size_t bol = nl == std::string::npos ? 0 : nl + 1;
        const std::string_view head(w.data() + bol, at - bol);
        if (head.find(": f ") != std::string_view::npos || head.starts_with("f0") || head.starts_with("f1")) return true;
      }
      return false;
    };
    if (lib_found && lib_found->optional_library && L.lower.find("dso_loader") != std::string::npos &&
        (!sig_found || !sig_found->m.harmless) && !trt_fatal()) {
      Found& t = sig_found ? *sig_found : *lib_found;
      t.m.harmless = true;
      t.m.title = "TensorFlow did not find TensorRT (optional): " + lib_found->m.root.front();
      t.m.cause = "Harmless unless you use TF-TRT: TensorFlow tries to load TensorRT at start-up and runs without it.";
      t.m.fix = {"Nothing to do unless you use TF-TRT; then install the TensorRT version TensorFlow names (pip install tensorrt)"};
      t.m.code = "tf.tensorrt-optional";
      if (sig_found) lib_found.reset();
    }
    if (sig_found) {
      Match& s = sig_found->m;
      for (auto& x : code_matches) {
        for (const auto& t : x.root) add_unique(s.root, t);
        s.evidence.push_back(fmt::format("decoded: {}: {}", x.title, x.cause));
        if (s.tier == 0) s.tier = std::max(s.tier, x.tier);
      }
      if (lib_found) {
        for (const auto& t : lib_found->m.root) add_unique(s.root, t);
        for (size_t e = 1; e < lib_found->m.evidence.size(); ++e) s.evidence.push_back(lib_found->m.evidence[e]);
        if (!s.harmless)
          for (const auto& fx : lib_found->m.fix) add_unique(s.fix, fx);
      }
      // A generic signature ("Unable to initialize backend 'cuda': ...") whose line also names two
      // versions that disagree takes their cause.
      if (s.tier == 0 && !s.harmless && code_matches.empty() && !lib_found) {
        auto v = version_disagreement(L, has_hit(i, Impl::kDisagree));
        if (!v) {  // or whose words name a condition
          hits_of(i, Impl::kCondition, hits);
          v = condition_from_words(L, hits);
        }
        if (v) {
          s.root.insert(s.root.begin(), v->root.begin(), v->root.end());
          s.evidence.push_back(v->evidence.back());
          s.fix.insert(s.fix.begin(), v->fix.begin(), v->fix.end());
          s.title = v->title;
          s.tier = v->tier;
        }
      }
      if (!s.harmless) {
        judge_versions(m.k, s);
        judge_memory(s, L);
      }
      if (machine && !s.harmless) {
        const bool about_driver = std::find(s.root.begin(), s.root.end(), "driver-too-old") != s.root.end() ||
                                  s.code.find("driver") != std::string::npos;
        if (about_driver) driver_facts(*machine, s.evidence);
      }
      found.push_back(std::move(*sig_found));
    } else if (lib_found) {
      for (auto& x : code_matches)
        for (const auto& t : x.root) add_unique(lib_found->m.root, t);
      found.push_back(std::move(*lib_found));
    } else if (!code_matches.empty()) {
      for (auto& x : code_matches) found.push_back({std::move(x)});
    } else if (auto v = version_disagreement(L, has_hit(i, Impl::kDisagree))) {
      found.push_back({std::move(*v)});
    } else {
      hits_of(i, Impl::kCondition, hits);
      if (auto w = condition_from_words(L, hits)) found.push_back({std::move(*w)});
    }
  }

  // Nothing recognised, but the paste is info/warning-level log lines and none says that something
  // failed: say so (a notice), rather than "not recognised". One failure word anywhere keeps it out.
  if (found.empty() && !lines.empty()) {
    const LogLine* first = nullptr;
    size_t notices = 0;
    bool failure_word = false;
    for (const auto& L : lines) {
      const int level = notice_level(L);
      if (says_failure(L, level)) {
        failure_word = true;
        break;
      }
      if (level > 0) {
        ++notices;
        if (!first) first = &L;
      }
    }
    if (!failure_word && first) {
      Found f;
      f.m.code = "log.notice";
      f.m.title = "Log notices at info or warning level: nothing failed";
      f.m.cause = fmt::format("{} line(s) of the paste are info or warning messages of a library or framework, and no line "
                              "says that something failed; gpuready's catalogue has no entry for them, so this is judged from "
                              "their level only.",
                              notices);
      f.m.fix = {"Nothing to do unless the program then misbehaves; if it does, paste the error that follows"};
      f.m.harmless = true;
      f.m.line = first->number;
      f.m.tier = 0;
      f.m.evidence.push_back("your text: " + shown(first->text));
      found.push_back(std::move(f));
    }
  }

  // The story: one entry per code (repeats counted), the root cause first.
  std::vector<Match> out;
  for (auto& f : found) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Match& o) {
      return o.code == f.m.code && (f.m.code.rfind("library.", 0) != 0 || o.root == f.m.root);
    });
    if (same != out.end()) {
      ++same->count;
      continue;
    }
    out.push_back(std::move(f.m));
  }
  // Root cause: the earliest failure that names a cause (tier >= 2); else the earliest failure.
  Match* root = nullptr;
  for (int min_tier : {2, 0}) {
    for (auto& o : out)
      if (!o.harmless && o.tier >= min_tier && (!root || o.line < root->line)) root = &o;
    if (root) break;
  }
  // "No GPU is seen" is a symptom: a later line of the same paste that says why no GPU can be seen
  // (the user may not open /dev/kfd or /dev/nvidia*, the container got none, the driver is not
  // loaded or mismatched) is the cause ("no ROCm-capable device is detected", then rocminfo's
  // "Unable to open /dev/kfd read-write: Permission denied").
  //
  // Likewise an NCCL result ("unhandled system error", ncclInternalError) says only that NCCL failed; the
  // paste's line that names NCCL's reason (a socket that could not connect, an IB verbs call, /dev/shm,
  // P2P, the fabric manager), before it or in its "Last error:" after it, is the cause.
  if (root) {
    auto has_any = [](const Match& x, const auto& set) {
      return std::any_of(x.root.begin(), x.root.end(), [&](const std::string& t) {
        return std::find(std::begin(set), std::end(set), t) != std::end(set);
      });
    };
    static const char* const unseen[] = {"no-gpu-visible", "hipErrorNoDevice", "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE"};
    static const char* const why_unseen[] = {"rocm-permission", "nvidia-device-permission", "container-no-gpu", "rocm-no-kfd",
                                             "driver-not-loaded", "nvml-driver-mismatch", "wsl-gpu-blocked", "wsl-libcuda"};
    static const char* const nccl_result[] = {"ncclSystemError", "ncclInternalError", "ncclUnhandledCudaError",
                                              "ncclRemoteError", "ncclInvalidUsage", "ncclInvalidArgument"};
    static const char* const nccl_why[] = {"nccl-network", "nccl-ib", "nccl-shm", "nccl-p2p", "fabric-manager",
                                           "nccl-lib-mismatch", "nccl-topology-sysfs", "nccl-cumem-unsupported",
                                           "efa-libfabric-too-old", "gpudirect-rdma-unavailable"};
    // The NVIDIA installer's "Unable to load the kernel module" (and nvidia-docker's UVM load) list every possible
    // reason; the kernel's own line after it (an unknown symbol, a rejected key, a GPU the branch does not drive,
    // modules of two versions) says which.
    static const char* const load_symptom[] = {"nvidia-installer.module-load-failed", "nvidia-docker.uvm-load-failed"};
    static const char* const why_not_loaded[] = {"kernel-module-deps-missing", "secure-boot", "nouveau-conflict",
                                                 "gpu-unsupported-by-driver", "nvidia-module-version-mix",
                                                 "kernel-compiler-mismatch", "driver-build-failed"};
    // The symptom gives way to the first other failure that names one of `why` (with `later_only`, on a later line,
    // and naming a cause: tier >= 2).
    auto give_way = [&](const auto& why, bool later_only) {
      for (auto& o : out)
        if (!o.harmless && &o != root && (!later_only || (o.tier >= 2 && o.line > root->line)) && has_any(o, why)) {
          root = &o;
          return;
        }
    };
    if (has_any(*root, unseen) && !has_any(*root, why_unseen)) {
      give_way(why_unseen, true);
    } else if (std::find(std::begin(load_symptom), std::end(load_symptom), root->code) != std::end(load_symptom)) {
      give_way(why_not_loaded, true);
    } else if (has_any(*root, nccl_result) && !has_any(*root, nccl_why)) {
      give_way(nccl_why, false);
    }
  }
  if (root) {
    root->root_cause = true;
    apply_setting(*root, lower_text());
    apply_gfx(*root, lower_text(), m.k);
    if (machine) apply_machine(*root, *machine);
    apply_paste_vendor(*root, lower_text(), m.k);
  }
  std::stable_sort(out.begin(), out.end(), [](const Match& a, const Match& b) {
    auto rank = [](const Match& x) { return x.root_cause ? 0 : x.harmless ? 2 : 1; };
    return rank(a) < rank(b);
  });
  return out;
}

nlohmann::json explain_to_json(const std::vector<Match>& matches) {
  nlohmann::json j;
  j["schema"] = kExplainSchema;
  j["recognised"] = !matches.empty();
  j["failure"] = std::any_of(matches.begin(), matches.end(), [](const Match& m) { return !m.harmless; });
  j["matches"] = nlohmann::json::array();
  for (const auto& m : matches)
    j["matches"].push_back({{"code", m.code},
                            {"title", m.title},
                            {"cause", m.cause},
                            {"fix", m.fix},
                            {"evidence", m.evidence},
                            {"groups", m.groups},
                            {"root", m.root},
                            {"harmless", m.harmless},
                            {"root_cause", m.root_cause},
                            {"line", m.line},
                            {"count", m.count}});
  return j;
}

}  // namespace gpuready::explain
