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
  // Builds the automaton; add() after build() is not allowed.
  void build();

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
  // holds: transitions are nodes x (k+1), not nodes x 256.
  std::vector<std::string> pending_;
  std::vector<uint32_t> pending_ids_;
  uint8_t class_of_[256] = {};
  size_t classes_ = 1;
  std::vector<Node> nodes_;
  // node * classes_ + class -> (node << 1) | 1 when that node ends a literal or has one on its
  // fail chain, so the scan reads only this table for the usual byte that completes nothing.
  // In 16 bits when the node numbers fit (most sets), else 32: one of the two is filled.
  std::vector<int32_t> next_;
  std::vector<uint16_t> next16_;
  // The trie and its transition table, from pending_; `total` bounds the node count.
  template <typename T>
  void fill_table(std::vector<T>& next, size_t total);
  // Calls on_hit(end, output) for each literal found, in text order, until it returns false.
  template <typename OnHit>
  void walk(std::string_view lower_text, OnHit on_hit) const;
  template <typename T, typename OnHit>
  void walk_table(const T* next, std::string_view lower_text, OnHit& on_hit) const;
  std::vector<Output> outputs_;
  bool built_ = false;
};

}  // namespace gpuready::explain
