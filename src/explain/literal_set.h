// Many literal texts found in one pass over a line (Aho-Corasick over lower-case ASCII bytes):
// which signatures could match it, which vendor messages and library phrases it holds. A log of
// 1 MiB is read once, whatever the number of literals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuready::explain {

class LiteralSet {
 public:
  // Adds a literal (compared with lower-cased text: give it in lower case) standing for `id`.
  void add(std::string_view literal, uint32_t id);
  // Builds the automaton; add() after build() is not allowed. At most `dense_rows` nodes (at
  // least the root) get a full row of moves; the default keeps that table near 1 MiB.
  static constexpr size_t kDenseRows = 4096;
  void build(size_t dense_rows = kDenseRows);

  struct Hit {
    uint32_t id;
    size_t end;  // one past the literal's last byte in the text
    size_t length;
  };
  // Every occurrence of every literal in `lower_text` (already lower-cased).
  [[nodiscard]] std::vector<Hit> find_all(std::string_view lower_text) const;
  // The same into `hits` (cleared first): a caller scanning many lines keeps one buffer.
  void find_all(std::string_view lower_text, std::vector<Hit>& hits) const;
  // Whether `lower_text` holds any of the literals (stops at the first).
  [[nodiscard]] bool contains_any(std::string_view lower_text) const;
  [[nodiscard]] bool empty() const { return outputs_.empty(); }

 private:
  struct Node {
    int32_t fail = 0;
    int32_t out = -1;        // first output of this node (index into outputs_), -1 none
    int32_t dict_link = -1;  // nearest node on the fail chain that has outputs
  };
  struct Output {
    uint32_t id;
    uint32_t length;
    int32_t next;  // the node's next output, -1
  };
  // The literals' bytes each get a class (1..k); every other byte is class 0, which no literal
  // holds, so it always leads back to the root.
  std::vector<std::string> pending_;
  std::vector<uint32_t> pending_ids_;
  uint8_t class_of_[256] = {};
  size_t classes_ = 1;
  // Nodes are numbered breadth first, so shallow nodes come first and a node's children are
  // consecutive. The first dense_ nodes (the shallow ones, where a scan spends nearly all its
  // bytes) have a full row of moves: dense_ * classes_ entries, each (node << 1) | 1 when that
  // node ends a literal or has one on its fail chain. The deeper nodes keep only their children
  // and follow their fail link, as in the textbook automaton: a table of every node would be
  // megabytes, written at every start.
  std::vector<Node> nodes_;
  std::vector<int32_t> next_;
  size_t dense_ = 0;
  std::vector<uint8_t> cls_;          // node -> the class of the byte that leads to it
  std::vector<int32_t> first_child_;  // node -> its first child (children are consecutive)
  std::vector<uint16_t> children_;    // node -> how many children
  // The move from `node` on byte class `c`, as a table entry.
  [[nodiscard]] uint32_t move(size_t node, uint8_t c) const;
  // Calls on_hit(end, output) for each literal found, in text order, until it returns false.
  template <typename OnHit>
  void walk(std::string_view lower_text, OnHit on_hit) const;
  std::vector<Output> outputs_;
  bool built_ = false;
};

}  // namespace gpuready::explain
