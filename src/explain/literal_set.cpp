// Aho-Corasick: a trie of the literals with failure links, turned into a full transition table
// over byte classes.
#include "explain/literal_set.h"

#include <queue>
#include <stdexcept>

namespace gpuready::explain {

void LiteralSet::add(std::string_view literal, uint32_t id) {
  if (built_) throw std::logic_error("LiteralSet::add after build");
  if (literal.empty()) return;
  pending_.emplace_back(literal);
  pending_ids_.push_back(id);
}

void LiteralSet::build() {
  if (built_) return;
  built_ = true;
  for (const auto& l : pending_)
    for (unsigned char c : l)
      if (!class_of_[c]) class_of_[c] = static_cast<uint8_t>(classes_++);
  const size_t k = classes_;
  nodes_.assign(1, Node{});
  next_.assign(k, -1);
  for (size_t p = 0; p < pending_.size(); ++p) {
    size_t n = 0;
    for (unsigned char c : pending_[p]) {
      int32_t& to = next_[n * k + class_of_[c]];
      if (to < 0) {
        nodes_.push_back(Node{});
        next_.resize(nodes_.size() * k, -1);
        next_[n * k + class_of_[c]] = static_cast<int32_t>(nodes_.size() - 1);  // `to` may dangle after resize
      }
      n = static_cast<size_t>(next_[n * k + class_of_[c]]);
    }
    outputs_.push_back({pending_ids_[p], static_cast<uint32_t>(pending_[p].size()), nodes_[n].out});
    nodes_[n].out = static_cast<int32_t>(outputs_.size() - 1);
  }
  pending_.clear();
  pending_ids_.clear();
  std::queue<size_t> q;
  for (size_t c = 0; c < k; ++c) {
    int32_t& to = next_[c];
    if (to < 0) {
      to = 0;
    } else {
      nodes_[static_cast<size_t>(to)].fail = 0;
      q.push(static_cast<size_t>(to));
    }
  }
  while (!q.empty()) {
    const size_t u = q.front();
    q.pop();
    const auto f = static_cast<size_t>(nodes_[u].fail);
    nodes_[u].dict_link = nodes_[f].out >= 0 ? static_cast<int32_t>(f) : nodes_[f].dict_link;
    for (size_t c = 0; c < k; ++c) {
      const int32_t v = next_[u * k + c];
      if (v < 0) {
        next_[u * k + c] = next_[f * k + c];
      } else {
        nodes_[static_cast<size_t>(v)].fail = next_[f * k + c];
        q.push(static_cast<size_t>(v));
      }
    }
  }
}

std::vector<LiteralSet::Hit> LiteralSet::find_all(std::string_view lower_text) const {
  std::vector<Hit> hits;
  if (!built_ || outputs_.empty()) return hits;
  const size_t k = classes_;
  size_t n = 0;
  for (size_t i = 0; i < lower_text.size(); ++i) {
    n = static_cast<size_t>(next_[n * k + class_of_[static_cast<unsigned char>(lower_text[i])]]);
    for (int32_t m = nodes_[n].out >= 0 ? static_cast<int32_t>(n) : nodes_[n].dict_link; m > 0;
         m = nodes_[static_cast<size_t>(m)].dict_link)
      for (int32_t o = nodes_[static_cast<size_t>(m)].out; o >= 0; o = outputs_[static_cast<size_t>(o)].next)
        hits.push_back({outputs_[static_cast<size_t>(o)].id, i + 1, outputs_[static_cast<size_t>(o)].length});
  }
  return hits;
}

}  // namespace gpuready::explain
