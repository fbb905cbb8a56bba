// Aho-Corasick: a trie of the literals with failure links, turned into a full transition table
// over byte classes.
#include "explain/literal_set.h"

#include <algorithm>
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
  size_t total = 1;  // nodes at most: the root and one per literal byte
  for (const auto& l : pending_) total += l.size();
  if (total >= (size_t{1} << 30)) throw std::length_error("LiteralSet: too many literal bytes");
  if (total * 2 <= 0xffff)
    fill_table(next16_, total);  // most sets: half the bytes to write and to read
  else
    fill_table(next_, total);
  pending_.clear();
  pending_ids_.clear();
}

template <typename T>
void LiteralSet::fill_table(std::vector<T>& next, size_t total) {
  const size_t k = classes_;
  // The trie as flat arrays (each node's first child, next sibling and class): no per-node
  // lists to allocate.
  std::vector<int32_t> first_child(1, -1), sibling(1, -1);
  std::vector<uint8_t> cls(1, 0);
  first_child.reserve(total);
  sibling.reserve(total);
  cls.reserve(total);
  nodes_.assign(1, Node{});
  nodes_.reserve(total);
  for (size_t p = 0; p < pending_.size(); ++p) {
    size_t n = 0;
    for (unsigned char ch : pending_[p]) {
      const uint8_t c = class_of_[ch];
      int32_t to = first_child[n];
      while (to >= 0 && cls[static_cast<size_t>(to)] != c) to = sibling[static_cast<size_t>(to)];
      if (to < 0) {
        to = static_cast<int32_t>(nodes_.size());
        nodes_.push_back(Node{});
        cls.push_back(c);
        first_child.push_back(-1);
        sibling.push_back(first_child[n]);
        first_child[n] = to;
      }
      n = static_cast<size_t>(to);
    }
    outputs_.push_back({pending_ids_[p], static_cast<uint32_t>(pending_[p].size()), nodes_[n].out});
    nodes_[n].out = static_cast<int32_t>(outputs_.size() - 1);
  }
  // Breadth first, each node's row is its fail node's row (already complete) with its own
  // children written over it: the full transition table, one copy per node. A move is stored
  // flagged, (node << 1) | 1 when a literal ends at that node or on its fail chain; a node's fail
  // node is shallower, so its links are known when the node is reached.
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
  std::vector<int32_t> queue;
  queue.reserve(nodes_.size());
  for (int32_t v = first_child[0]; v >= 0; v = sibling[static_cast<size_t>(v)]) {
    link(v, 0);
    next[cls[static_cast<size_t>(v)]] = flagged(v);
    queue.push_back(v);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const auto u = static_cast<size_t>(queue[head]);
    T* row = &next[u * k];
    std::copy_n(&next[static_cast<size_t>(nodes_[u].fail) * k], k, row);
    for (int32_t v = first_child[u]; v >= 0; v = sibling[static_cast<size_t>(v)]) {
      const uint8_t c = cls[static_cast<size_t>(v)];
      link(v, static_cast<int32_t>(row[c] >> 1));  // the fail node's move on c
      row[c] = flagged(v);
      queue.push_back(v);
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
