// Aho-Corasick: a trie of the literals with failure links, turned into a full transition table
// over byte classes.
#include "explain/literal_set.h"

#include <algorithm>
#include <queue>
#include <utility>
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
  size_t total = 1;
  for (const auto& l : pending_) total += l.size();
  // The trie: each node's children as (class, child), in insertion order.
  std::vector<std::vector<std::pair<uint8_t, int32_t>>> children(1);
  children.reserve(total);
  nodes_.reserve(total);
  nodes_.assign(1, Node{});
  for (size_t p = 0; p < pending_.size(); ++p) {
    size_t n = 0;
    for (unsigned char ch : pending_[p]) {
      const uint8_t c = class_of_[ch];
      int32_t to = -1;
      for (const auto& [cc, child] : children[n])
        if (cc == c) to = child;
      if (to < 0) {
        to = static_cast<int32_t>(nodes_.size());
        nodes_.push_back(Node{});
        children.emplace_back();
        children[n].emplace_back(c, to);
      }
      n = static_cast<size_t>(to);
    }
    outputs_.push_back({pending_ids_[p], static_cast<uint32_t>(pending_[p].size()), nodes_[n].out});
    nodes_[n].out = static_cast<int32_t>(outputs_.size() - 1);
  }
  pending_.clear();
  pending_ids_.clear();
  if (nodes_.size() >= (size_t{1} << 30)) throw std::length_error("LiteralSet: too many literal bytes");
  if (nodes_.size() * 2 <= 0xffff)
    fill_table(next16_, children);  // most sets: half the bytes to write and to read
  else
    fill_table(next_, children);
}

template <typename T>
void LiteralSet::fill_table(std::vector<T>& next, const std::vector<std::vector<std::pair<uint8_t, int32_t>>>& children) {
  // Breadth first, each node's row is its fail node's row (already complete) with its own
  // children written over it: the full transition table, one copy per node. A move is stored
  // flagged, (node << 1) | 1 when a literal ends at that node or on its fail chain; a node's fail
  // node is shallower, so its links are known when the node is reached.
  const size_t k = classes_;
  auto flagged = [&](int32_t to) {
    const Node& n = nodes_[static_cast<size_t>(to)];
    return static_cast<T>((to << 1) | ((n.out >= 0 || n.dict_link > 0) ? 1 : 0));
  };
  auto link = [&](int32_t v, int32_t fail) {
    Node& n = nodes_[static_cast<size_t>(v)];
    n.fail = fail;
    const Node& f = nodes_[static_cast<size_t>(fail)];
    n.dict_link = f.out >= 0 ? fail : f.dict_link;
  };
  next.assign(nodes_.size() * k, 0);
  std::queue<size_t> q;
  for (const auto& [c, v] : children[0]) {
    link(v, 0);
    next[c] = flagged(v);
    q.push(static_cast<size_t>(v));
  }
  while (!q.empty()) {
    const size_t u = q.front();
    q.pop();
    T* row = &next[u * k];
    std::copy_n(&next[static_cast<size_t>(nodes_[u].fail) * k], k, row);
    for (const auto& [c, v] : children[u]) {
      link(v, static_cast<int32_t>(row[c] >> 1));  // the fail node's move on c
      row[c] = flagged(v);
      q.push(static_cast<size_t>(v));
    }
  }
}

std::vector<LiteralSet::Hit> LiteralSet::find_all(std::string_view lower_text) const {
  std::vector<Hit> hits;
  find_all(lower_text, hits);
  return hits;
}

void LiteralSet::find_all(std::string_view lower_text, std::vector<Hit>& hits) const {
  hits.clear();
  walk(lower_text, [&](size_t end, const Output& o) {
    hits.push_back({o.id, end, o.length});
    return true;
  });
}

bool LiteralSet::contains_any(std::string_view lower_text) const {
  bool found = false;
  walk(lower_text, [&](size_t, const Output&) {
    found = true;
    return false;
  });
  return found;
}

template <typename OnHit>
void LiteralSet::walk(std::string_view lower_text, OnHit on_hit) const {
  if (!built_ || outputs_.empty()) return;
  if (!next16_.empty())
    walk_table(next16_.data(), lower_text, on_hit);
  else
    walk_table(next_.data(), lower_text, on_hit);
}

template <typename T, typename OnHit>
void LiteralSet::walk_table(const T* next, std::string_view lower_text, OnHit& on_hit) const {
  const size_t k = classes_;
  size_t n = 0;
  for (size_t i = 0; i < lower_text.size(); ++i) {
    const auto to = static_cast<uint32_t>(next[n * k + class_of_[static_cast<unsigned char>(lower_text[i])]]);
    n = to >> 1;
    if (!(to & 1)) continue;  // nothing ends here
    for (int32_t m = nodes_[n].out >= 0 ? static_cast<int32_t>(n) : nodes_[n].dict_link; m > 0;
         m = nodes_[static_cast<size_t>(m)].dict_link)
      for (int32_t o = nodes_[static_cast<size_t>(m)].out; o >= 0; o = outputs_[static_cast<size_t>(o)].next)
        if (!on_hit(i + 1, outputs_[static_cast<size_t>(o)])) return;
  }
}

}  // namespace gpuready::explain
