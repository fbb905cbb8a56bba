// explain on real texts: tests/fixtures/explain_corpus (1,330 texts from public threads, labelled
// with the root cause; README.md there). Scored per part: `tune` (the patterns were written
// looking at it) and `holdout` (never read while writing them: only its totals are printed).
//   failure   right when the root cause gpuready names (the first match) stands for one of the
//             entry's root tokens (a vendor code, a condition, a library file name)
//   harmless  right when something is recognised and none of it is a failure
//   unrelated right when no failure is claimed
// The floors below are what the recognisers reach today: a change that loses ground fails here.
// GPUREADY_EXPLAIN_MISSES=1 prints the tune part's misses (never the holdout's; of it only counts
// of the kinds of miss).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "doctor/pasted_env.h"
#include "explain/explainer.h"
#include "parse/ascii.h"

using namespace gpuready;

namespace {

struct Score {
  int right = 0, total = 0;
  [[nodiscard]] double rate() const { return total ? static_cast<double>(right) / total : 1.0; }
};

struct Scores {
  std::map<std::string, Score> by;  // "tune/failure", "holdout/unrelated", ...
  std::map<std::string, int> failure_misses;  // "holdout: nothing recognised" ...: counts only, no texts
  std::map<std::string, int> harmless_misses;
  std::string misses;
};

bool names_root(const explain::Match& m, const nlohmann::json& root) {
  for (const auto& want : root)
    for (const auto& have : m.root)
      if (parse::iequals(have, want.get<std::string>())) return true;
  return false;
}

const Scores& scores() {
  static const Scores s = [] {
    Scores out;
    const bool show = std::getenv("GPUREADY_EXPLAIN_MISSES") != nullptr;
    for (const char* file : {"cuda.jsonl", "libraries.jsonl", "platform.jsonl"}) {
      std::ifstream in(std::string(GPUREADY_FIXTURES) + "/explain_corpus/" + file);
      EXPECT_TRUE(in.good()) << file;
      std::string line;
      while (std::getline(in, line)) {
        const auto e = nlohmann::json::parse(line);
        const std::string split = e.at("split"), kind = e.at("expect").at("kind");
        const auto m = doctor::explain_paste(explain::Explainer::embedded(), knowledge::Compat::embedded(),
                                             e.at("text").get<std::string>(), nullptr);
        const bool claims_failure = std::any_of(m.begin(), m.end(), [](const auto& x) { return !x.harmless; });
        bool right = false;
        if (kind == "failure") right = !m.empty() && !m.front().harmless && names_root(m.front(), e.at("expect").at("root"));
        else if (kind == "harmless") right = !m.empty() && !claims_failure;
        else right = !claims_failure;
        if (kind == "failure" && !right) {
          const char* why = m.empty()              ? "nothing recognised"
                            : m.front().harmless   ? "called harmless"
                                                   : "another root cause";
          ++out.failure_misses[split + ": " + why];
        }
        if (kind == "harmless" && !right) ++out.harmless_misses[split + (m.empty() ? ": nothing recognised" : ": a failure claimed")];
        Score& sc = out.by[split + "/" + kind];
        ++sc.total;
        sc.right += right ? 1 : 0;
        if (!right && split == "tune" && show) {
          std::string got;
          for (const auto& x : m) {
            got += x.code + (x.harmless ? "(harmless)" : "") + "{";
            for (const auto& r : x.root) got += r + " ";
            got += "} ";
          }
          out.misses += e.at("id").get<std::string>() + " [" + e.at("family").get<std::string>() + "/" + kind +
                        "] want " + e.at("expect").at("root").dump() + " got " + (got.empty() ? "nothing" : got) + "\n";
        }
      }
    }
    return out;
  }();
  return s;
}

double rate(const std::string& key) {
  auto it = scores().by.find(key);
  return it == scores().by.end() ? 0 : it->second.rate();
}

}  // namespace

TEST(ExplainCorpus, Scores) {
  const Scores& s = scores();
  std::string table;
  for (const auto& [k, v] : s.by) table += k + ": " + std::to_string(v.right) + "/" + std::to_string(v.total) + "\n";
  for (const auto& [k, n] : s.failure_misses) table += "failures missed, " + k + ": " + std::to_string(n) + "\n";
  for (const auto& [k, n] : s.harmless_misses) table += "harmless missed, " + k + ": " + std::to_string(n) + "\n";
  std::printf("%s", table.c_str());
  if (!s.misses.empty()) std::printf("tune misses:\n%s", s.misses.c_str());
  ASSERT_GE(s.by.size(), 6u) << "the corpus has both parts and three kinds";
  EXPECT_GE(s.by.at("tune/failure").total + s.by.at("holdout/failure").total, 300) << "at least 300 real failure texts";
}

TEST(ExplainCorpus, TuneFloors) {
  // 0.95 until batches 39-46 (2026-12-07): 138 texts gathered only from tune repositories of the weakest families
  // (ROCm, NCCL, drivers and containers, WSL set-up, Slurm, vendor troubleshooting pages), right for 49 of 111
  // failures on first contact; after the rows they taught, 1,721 of 1,838 (93.6 %) failures and 423 of 450
  // (94.0 %) harmless lines.
  EXPECT_GE(rate("tune/failure"), 0.93);
  EXPECT_GE(rate("tune/harmless"), 0.935);
  EXPECT_GE(rate("tune/unrelated"), 0.95);
}

TEST(ExplainCorpus, HoldoutFloors) {
  // A regression guard, not the target (0.90). 0.82 until batches 47-55 (2026-12-07): their 41 holdout failures were
  // right for 16 on first contact and still 16 after the rows their tune part taught (none of those rows reached a
  // holdout text), so the whole holdout went from 758 of 910 (83.3 %) to 776 of 951 (81.6 %). Before: 720 of 874 (82.4 %) after batches 29-32 (2026-12-06; their 36
  // holdout failures: 26 right on first contact); 657 of 794 (82.7 %) after batch 23 (2026-12-06; its 8 holdout
  // failures, from clusters, clouds and Metal/Vulkan/Intel GPUs: 2 right on first contact, 2 after the tune
  // part's rows, never read); 653 of 786 (83.1 %) after batch 22 (2026-12-05; its 13 holdout
  // failures: 6 right on first contact); 647 of 773 after batch 21 (8 of its 13); 635 of 760 after batch 20,
  // whose 57 holdout failures were right for 36 on first contact (Apple MPS, Intel XPU, cloud quotas and
  // Slurm/MPI launch errors the tables did not have); 0.84 on the 703 after batch 19, 0.85 on the 648 before.
  EXPECT_GE(rate("holdout/failure"), 0.81);
  // 24 of 32 (2026-12-03): the 10 harmless texts added that day, new to the catalogue, were right
  // for 6 of 11 on first contact; the floor was 0.85 on the 22 before.
  EXPECT_GE(rate("holdout/harmless"), 0.75);
  EXPECT_GE(rate("holdout/unrelated"), 0.95);
}
