// Aho-Corasick: a trie of the literals with failure links, numbered breadth first; the shallow
// nodes' moves in a full table over byte classes, the deep nodes' through their children and
// fail links.
#include "explain/literal_set.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gpuready::explain {

void LiteralSet::add(std::string_view literal, uint32_t id) {
  if (built_) throw std::logic_error("LiteralSet::add after build");
  if (literal.empty()) return;
  pending_.emplace_back(literal);
  pending_ids_.push_back(id);
}

void LiteralSet::build(size_t dense_rows) {
  if (built_) return;
  built_ = true;
  for (const auto& l : pending_)
    for (unsigned char c : l)
      if (!class_of_[c]) class_of_[c] = static_cast<uint8_t>(classes_++);
  size_t total = 1;  // nodes at most: the root and one per literal byte
  for (const auto& l : pending_) total += l.size();
  if (total >= (size_t{1} << 30)) throw std::length_error("LiteralSet: too many literal bytes");
  const size_t k = classes_;

  // The trie in insertion order, as flat arrays (each node's first child, next sibling, class).
  std::vector<int32_t> first(1, -1), sibling(1, -1);
  std::vector<uint8_t> cls(1, 0);
  std::vector<int32_t> out(1, -1);
  first.reserve(total);
  sibling.reserve(total);
  cls.reserve(total);
  out.reserve(total);
  for (size_t p = 0; p < pending_.size(); ++p) {
    size_t n = 0;
    for (unsigned char ch : pending_[p]) {
      const uint8_t c = class_of_[ch];
      int32_t to = first[n];
      while (to >= 0 && cls[static_cast<size_t>(to)] != c) to = sibling[static_cast<size_t>(to)];
      if (to < 0) {
        to = static_cast<int32_t>(cls.size());
        cls.push_back(c);
        out.push_back(-1);
        first.push_back(-1);
        sibling.push_back(first[n]);
        first[n] = to;
      }
      n = static_cast<size_t>(to);
    }
    outputs_.push_back({pending_ids_[p], static_cast<uint32_t>(pending_[p].size()), out[n]});
    out[n] = static_cast<int32_t>(outputs_.size() - 1);
  }
  pending_.clear();
  pending_.shrink_to_fit();
  pending_ids_.clear();

  // Renumbered breadth first: order[new] = old. A node's children get consecutive numbers.
  const size_t count = cls.size();
  std::vector<int32_t> order;
  order.reserve(count);
  order.push_back(0);
  first_child_.assign(count, 0);
  children_.assign(count, 0);
  cls_.assign(count, 0);
  nodes_.assign(count, Node{});
  for (size_t u = 0; u < order.size(); ++u) {
    const auto old = static_cast<size_t>(order[u]);
    first_child_[u] = static_cast<int32_t>(order.size());
    for (int32_t v = first[old]; v >= 0; v = sibling[static_cast<size_t>(v)]) {
      cls_[order.size()] = cls[static_cast<size_t>(v)];
      order.push_back(v);
      ++children_[u];
    }
    nodes_[u].out = out[old];
  }

  // Fail links breadth first (a node's fail node is shallower, so complete when it is reached),
  // and the dense rows: each a copy of its fail node's row (a shallower node, so a dense one)
  // with its own children written over it.
  dense_ = std::clamp<size_t>(dense_rows, 1, count);
  next_.assign(dense_ * k, 0);
  auto flagged = [&](size_t v) {
    const Node& n = nodes_[v];
    return static_cast<int32_t>((v << 1) | ((n.out >= 0 || n.dict_link > 0) ? 1U : 0U));
  };
  for (size_t u = 0; u < count; ++u) {
    const auto begin = static_cast<size_t>(first_child_[u]);
    for (size_t v = begin; v < begin + children_[u]; ++v) {
      const int32_t fail = u == 0 ? 0 : static_cast<int32_t>(move(static_cast<size_t>(nodes_[u].fail), cls_[v]) >> 1);
      Node& n = nodes_[v];
      n.fail = fail;
      const Node& f = nodes_[static_cast<size_t>(fail)];
      n.dict_link = f.out >= 0 ? fail : f.dict_link;
    }
    if (u < dense_) {
      int32_t* row = &next_[u * k];
      if (u != 0) std::copy_n(&next_[static_cast<size_t>(nodes_[u].fail) * k], k, row);
      for (size_t v = begin; v < begin + children_[u]; ++v) row[cls_[v]] = flagged(v);
    }
  }
}

uint32_t LiteralSet::move(size_t node, uint8_t c) const {
  if (c == 0) return 0;  // a byte no literal holds: back to the root, where nothing ends
  for (;;) {
    if (node < dense_) return static_cast<uint32_t>(next_[node * classes_ + c]);
    const auto begin = static_cast<size_t>(first_child_[node]);
    for (size_t v = begin; v < begin + children_[node]; ++v)
      if (cls_[v] == c) {
        const Node& n = nodes_[v];
        return static_cast<uint32_t>((v << 1) | ((n.out >= 0 || n.dict_link > 0) ? 1U : 0U));
      }
    node = static_cast<size_t>(nodes_[node].fail);
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
  const size_t k = classes_;
  const size_t dense = dense_;
  const int32_t* next = next_.data();
  const uint8_t* class_of = class_of_;
  size_t n = 0;
  for (size_t i = 0; i < lower_text.size(); ++i) {
    const uint8_t c = class_of[static_cast<unsigned char>(lower_text[i])];
    const auto to = n < dense ? static_cast<uint32_t>(next[n * k + c]) : move(n, c);
    n = to >> 1;
    if (!(to & 1)) continue;  // nothing ends here
    for (int32_t m = nodes_[n].out >= 0 ? static_cast<int32_t>(n) : nodes_[n].dict_link; m > 0;
         m = nodes_[static_cast<size_t>(m)].dict_link)
      for (int32_t o = nodes_[static_cast<size_t>(m)].out; o >= 0; o = outputs_[static_cast<size_t>(o)].next)
        if (!on_hit(i + 1, outputs_[static_cast<size_t>(o)])) return;
  }
}

}  // namespace gpuready::explain
