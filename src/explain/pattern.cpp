// The two engines behind Pattern: PCRE2 (JIT, match and depth limits) and std::regex.
#include "explain/pattern.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <regex>

#if GPUREADY_HAVE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif

namespace gpuready::explain {
namespace {

#if GPUREADY_HAVE_PCRE2
class Pcre2Pattern final : public Pattern {
 public:
  explicit Pcre2Pattern(pcre2_code* code) : code_(code) {
    mctx_ = pcre2_match_context_create(nullptr);
    // Far above what any signature needs on any line; a pathological subject stops here.
    pcre2_set_match_limit(mctx_, 1'000'000);
    pcre2_set_depth_limit(mctx_, 10'000);
  }
  ~Pcre2Pattern() override {
    pcre2_match_context_free(mctx_);
    pcre2_code_free(jit_.load());
    pcre2_code_free(code_);
  }
  Pcre2Pattern(const Pcre2Pattern&) = delete;
  Pcre2Pattern& operator=(const Pcre2Pattern&) = delete;

  std::optional<PatternMatch> search(std::string_view subject) const override {
    // Interpreted until the pattern has read kJitAfterBytes of subjects, then JIT-compiled: a
    // paste reaches most signatures on a line or two (the literal prefilter), where compiling
    // costs more than interpreting (JIT-compiling every pattern a dense log touched was an eighth
    // of its time), while a pattern a long log runs on thousands of lines earns its compile. The
    // JIT code is a copy made once and then published: other threads go on matching the original
    // meanwhile. Without JIT support (some CPUs, some builds) PCRE2 interprets: slower, bounded.
    const pcre2_code* code = jit_.load(std::memory_order_acquire);
    if (!code) {
      code = code_;
      if (read_.fetch_add(subject.size() + kPerCall, std::memory_order_relaxed) >= kJitAfterBytes) {
        std::call_once(jit_once_, [this] {
          pcre2_code* copy = pcre2_code_copy(code_);
          if (copy && pcre2_jit_compile(copy, PCRE2_JIT_COMPLETE) == 0) {
            jit_.store(copy, std::memory_order_release);
          } else {
            pcre2_code_free(copy);
          }
        });
        if (const pcre2_code* j = jit_.load(std::memory_order_acquire)) code = j;
      }
    }
    // Match data per thread, reused: a Pattern is shared (Explainer::embedded) and may be used
    // from several threads; it keeps PCRE2's backtracking frames between calls.
    thread_local MatchData md;
    if (!md.get()) return std::nullopt;
    const auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
    // The JIT's own stack (32 KiB by default) is enough for these patterns: they hold no
    // nested repetition. A subject that exhausts it is simply not matched.
    const int rc = pcre2_match(code, s, subject.size(), 0, 0, md.get(), mctx_);
    if (rc < 0) return std::nullopt;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    const uint32_t pairs = pcre2_get_ovector_count(md.get());
    PatternMatch m;
    m.begin = ov[0];
    m.end = ov[1];
    uint32_t count = 0;
    pcre2_pattern_info(code_, PCRE2_INFO_CAPTURECOUNT, &count);
    for (uint32_t g = 1; g <= count; ++g) {
      // rc == 0: the ovector was too small for every group; the groups past it are unset.
      const bool set = g < pairs && (rc == 0 || static_cast<int>(g) < rc) && ov[2 * g] != PCRE2_UNSET;
      if (set)
        m.groups.emplace_back(std::string(subject.substr(ov[2 * g], ov[2 * g + 1] - ov[2 * g])));
      else
        m.groups.emplace_back(std::nullopt);
    }
    return m;
  }

 private:
  static constexpr size_t kJitAfterBytes = 2048;
  static constexpr size_t kPerCall = 256;  // a call's own cost, in bytes read
  struct MatchData {  // room for 64 groups (no signature has half as many)
    pcre2_match_data* p = pcre2_match_data_create(65, nullptr);
    MatchData() = default;
    MatchData(const MatchData&) = delete;
    MatchData& operator=(const MatchData&) = delete;
    ~MatchData() { pcre2_match_data_free(p); }
    [[nodiscard]] pcre2_match_data* get() const { return p; }
  };
  pcre2_code* code_;
  pcre2_match_context* mctx_ = nullptr;
  mutable std::atomic<size_t> read_{0};
  mutable std::atomic<pcre2_code*> jit_{nullptr};
  mutable std::once_flag jit_once_;
};
#else

class StdRegexPattern final : public Pattern {
 public:
  explicit StdRegexPattern(std::regex re) : re_(std::move(re)) {}
  std::optional<PatternMatch> search(std::string_view subject) const override {
    // std::regex recurses once per character: a long subject is read in overlapping windows of
    // kFallbackMaxSubject bytes (a match longer than the overlap would be missed; no signature's is).
    constexpr size_t overlap = kFallbackMaxSubject / 4;
    for (size_t start = 0;; start += kFallbackMaxSubject - overlap) {
      if (auto m = search_window(subject, start, std::min(kFallbackMaxSubject, subject.size() - start))) return m;
      if (start + kFallbackMaxSubject >= subject.size()) return std::nullopt;
    }
  }

 private:
  // A match in subject[start, start + length); "^" and "\b" see the byte before the window.
  std::optional<PatternMatch> search_window(std::string_view subject, size_t start, size_t length) const {
    std::match_results<std::string_view::const_iterator> m;
    const auto first = subject.begin() + static_cast<std::ptrdiff_t>(start);
    const auto flags = start > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
    try {
      if (!std::regex_search(first, first + static_cast<std::ptrdiff_t>(length), m, re_, flags)) return std::nullopt;
    } catch (const std::regex_error&) {  // error_complexity / error_stack
      return std::nullopt;
    }
    PatternMatch out;
    out.begin = start + static_cast<size_t>(m.position(0));
    out.end = out.begin + static_cast<size_t>(m.length(0));
    for (size_t g = 1; g < m.size(); ++g)
      out.groups.emplace_back(m[g].matched ? std::optional<std::string>(m[g].str()) : std::nullopt);
    return out;
  }

  std::regex re_;
};
#endif

}  // namespace

std::unique_ptr<Pattern> Pattern::compile(const std::string& regex, std::string* error) {
#if GPUREADY_HAVE_PCRE2
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(), PCRE2_CASELESS, &code,
                                &offset, nullptr);
  if (!c) {
    if (error) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(code, buf, sizeof buf);
      *error = std::string(reinterpret_cast<const char*>(buf)) + " at offset " + std::to_string(offset);
    }
    return nullptr;
  }
  return std::make_unique<Pcre2Pattern>(c);
#else
  try {
    return std::make_unique<StdRegexPattern>(
        std::regex(regex, std::regex::ECMAScript | std::regex::icase | std::regex::optimize));
  } catch (const std::regex_error& e) {
    if (error) *error = e.what();
    return nullptr;
  }
#endif
}

const char* Pattern::engine() {
#if GPUREADY_HAVE_PCRE2
  return "PCRE2 (JIT)";
#else
  return "std::regex";
#endif
}

}  // namespace gpuready::explain
