// Fact<T>: a value a collector found, or the reason it could not be found.
// Every fact in a Snapshot is a Fact; nothing is silently missing.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

namespace gpuready {

template <class T>
class Fact {
 public:
  Fact() : why_("not collected") {}
  static Fact known(T value) {
    Fact f;
    f.value_ = std::move(value);
    f.why_.clear();
    return f;
  }
  static Fact unknown(std::string why) {
    Fact f;
    f.why_ = std::move(why);
    return f;
  }
  // Implicit from anything T is made from, so collectors can write `info.model = "Xeon";`.
  template <class U>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, Fact>)
  Fact(U&& value) : value_(std::forward<U>(value)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has() const { return value_.has_value(); }
  explicit operator bool() const { return has(); }
  [[nodiscard]] const T& value() const { return *value_; }
  [[nodiscard]] T& value() { return *value_; }
  [[nodiscard]] const T* get() const { return value_ ? &*value_ : nullptr; }
  [[nodiscard]] T value_or(T fallback) const { return value_ ? *value_ : std::move(fallback); }
  // Why the value is unknown; empty when it is known.
  [[nodiscard]] const std::string& why() const { return why_; }

  friend bool operator==(const Fact& a, const Fact& b) { return a.value_ == b.value_ && a.why_ == b.why_; }

 private:
  std::optional<T> value_;
  std::string why_;
};

// JSON: a known fact is its plain value; an unknown one is {"unknown": "why"}.
template <class T>
void to_json(nlohmann::json& j, const Fact<T>& f) {
  if (f.has()) {
    j = f.value();
  } else {
    j = nlohmann::json{{"unknown", f.why()}};
  }
}

template <class T>
void from_json(const nlohmann::json& j, Fact<T>& f) {
  if (j.is_object() && j.size() == 1 && j.contains("unknown") && j["unknown"].is_string()) {
    f = Fact<T>::unknown(j["unknown"].get<std::string>());
  } else {
    f = Fact<T>::known(j.get<T>());
  }
}

}  // namespace gpuready
