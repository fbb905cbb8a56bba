#include "core/redact.h"

#include <cctype>
#include <map>
#include <string_view>
#include <vector>

namespace gpuready {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

// Tokens handed out in order of first sight: the same value is the same token everywhere.
struct Tokens {
  explicit Tokens(std::string p) : prefix(std::move(p)) {}
  std::string prefix;
  std::map<std::string, std::string> given;
  std::string operator()(const std::string& value) {
    auto [it, fresh] = given.try_emplace(value);
    if (fresh) it->second = prefix + std::to_string(given.size());
    return it->second;
  }
};

// The folders under which a path's next component is a user's name.
constexpr std::string_view kHomes[] = {"/home/", "/Users/", "\\Users\\", "/users/", "\\users\\", "/var/home/",
                                       "\\Documents and Settings\\"};
// Where that name ends: a separator, a quote, a list separator; on POSIX paths white space too (Windows user names
// may hold spaces: "C:\\Users\\Bob Smith").
size_t name_end(std::string_view s, size_t from, std::string_view home) {
  const bool windows = home.front() == '\\';
  const size_t end = s.find_first_of(windows ? "/\\\"';:,|<>" : "/\\\"';:,|<> \t\n()", from);
  return end == std::string_view::npos ? s.size() : end;
}
// Names under those folders that are nobody's.
bool shared_profile(std::string_view name) {
  const std::string n = lower(name);
  return n.empty() || n == "public" || n == "default" || n == "default user" || n == "all users" || n == "shared" ||
         n == "user-" || n.rfind("user-", 0) == 0;
}

// An 8-4-4-4-12 hex UUID at s[i], not inside a longer hex word.
bool uuid_at(std::string_view s, size_t i) {
  constexpr size_t kLen = 36;
  if (i + kLen > s.size() || (i > 0 && is_hex(s[i - 1])) || (i + kLen < s.size() && is_hex(s[i + kLen]))) return false;
  for (size_t k = 0; k < kLen; ++k) {
    const bool dash = k == 8 || k == 13 || k == 18 || k == 23;
    if (dash ? s[i + k] != '-' : !is_hex(s[i + k])) return false;
  }
  return true;
}

// A dotted IPv4 address at s[i] (four numbers 0-255) placed as addresses are in text: after white space or one of
// ( [ " ' , : / @ < or an assignment's =, and before the end, white space, a port, a closing mark or a sentence's full
// stop. A version is not one: inside a name ("nvidia_cublas-13.1.0.3.dist-info"), after a comparison (==13.1.0.3),
// or a whole field ("13.1.0.3"). Its length, or 0.
size_t ipv4_at(std::string_view s, size_t i) {
  constexpr std::string_view kBefore = " \t\n([=\"',:/@<", kAfter = " \t\n:)],/\"';>";
  if (i > 0 && kBefore.find(s[i - 1]) == std::string_view::npos) return 0;
  // '=' as in an assignment (MASTER_ADDR=10.0.0.12), not a version's comparison (==13.1.0.3, >=13.1.0.3).
  if (i > 0 && s[i - 1] == '=' && (i < 2 || !(is_word(s[i - 2]))))
    return 0;
  size_t k = i;
  for (int part = 0; part < 4; ++part) {
    size_t digits = 0;
    int value = 0;
    while (k < s.size() && is_digit(s[k]) && digits < 4) value = value * 10 + (s[k++] - '0'), ++digits;
    if (digits == 0 || digits > 3 || value > 255) return 0;
    if (part < 3) {
      if (k >= s.size() || s[k] != '.') return 0;
      ++k;
    }
  }
  // A field that is nothing but four dotted numbers is a version ("installed": "13.1.0.3"), not an address.
  if (i == 0 && k == s.size()) return 0;
  if (k == s.size() || kAfter.find(s[k]) != std::string_view::npos) return k - i;
  // A full stop that ends a sentence, not a longer dotted name.
  if (s[k] == '.' && (k + 1 == s.size() || std::isspace(static_cast<unsigned char>(s[k + 1])))) return k - i;
  return 0;
}

class Redactor {
 public:
  explicit Redactor(std::string host) : host_(std::move(host)), host_lower_(lower(host_)) {}

  // First pass: the user names the paths show.
  void collect(const nlohmann::json& j) {
    if (j.is_string()) {
      const std::string& s = j.get_ref<const std::string&>();
      for (std::string_view home : kHomes)
        for (size_t at = s.find(home); at != std::string::npos; at = s.find(home, at + 1)) {
          const size_t from = at + home.size();
          const std::string name = s.substr(from, name_end(s, from, home) - from);
          if (!shared_profile(name)) users_(name);
        }
    } else if (j.is_structured()) {
      for (const auto& v : j) collect(v);
    }
  }

  void rewrite(nlohmann::json& j, bool version_field) {
    if (j.is_string()) {
      j = rewrite(j.get_ref<const std::string&>(), version_field);
    } else if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) rewrite(it.value(), lower(it.key()).find("version") != std::string::npos);
    } else if (j.is_array()) {
      for (auto& v : j) rewrite(v, version_field);
    }
  }

  Redaction counts() const {
    Redaction r;
    r.hosts = host_used_ ? 1 : 0;
    r.users = static_cast<int>(users_.given.size());
    r.uuids = static_cast<int>(uuids_.given.size());
    r.addresses = static_cast<int>(addresses_.given.size());
    return r;
  }

 private:
  std::string rewrite(const std::string& s, bool version_field) {
    std::string o;
    o.reserve(s.size());
    const std::string low = lower(s);
    for (size_t i = 0; i < s.size();) {
      // The host name, as a whole word, in any case.
      const size_t after = i + host_.size();
      if (host_.size() >= 2 && low.compare(i, host_lower_.size(), host_lower_) == 0 && (i == 0 || !is_word(s[i - 1])) &&
          (after >= s.size() || !is_word(s[after]))) {
        o += "host-1";
        host_used_ = true;
        i = after;
        continue;
      }
      // A user's name after a home folder.
      bool done = false;
      for (std::string_view home : kHomes)
        if (s.compare(i, home.size(), home) == 0) {
          const size_t from = i + home.size();
          const size_t end = name_end(s, from, home);
          const std::string name = s.substr(from, end - from);
          o.append(home);
          o += users_.given.count(name) ? users_(name) : name;
          i = end;
          done = true;
          break;
        }
      if (done) continue;
      if (uuid_at(s, i)) {
        o += uuids_(lower(s.substr(i, 36)));
        i += 36;
        continue;
      }
      if (!version_field)
        if (const size_t n = ipv4_at(s, i); n > 0) {
          const std::string ip = s.substr(i, n);
          if (ip != "127.0.0.1" && ip != "0.0.0.0") {
            o += addresses_(ip);
            i += n;
            continue;
          }
        }
      o += s[i++];
    }
    return o;
  }

  std::string host_, host_lower_;
  bool host_used_ = false;
  Tokens users_{"user-"}, uuids_{"uuid-"}, addresses_{"ip-"};
};

std::string counted(int n, const char* one, const char* many) {
  if (n == 0) return std::string("no ") + one;
  return n == 1 ? std::string("1 ") + one : std::to_string(n) + " " + many;
}

}  // namespace

std::string Redaction::summary() const {
  return std::string(hosts ? "the host name, " : "no host name, ") + counted(users, "user name", "user names") + ", " +
         counted(uuids, "UUID", "UUIDs") + " and " + counted(addresses, "IP address", "IP addresses");
}

Snapshot redact(const Snapshot& s, Redaction* what) {
  nlohmann::json j = snapshot_to_json(s);
  Redactor r(s.hostname.value_or(""));
  r.collect(j);
  r.rewrite(j, false);
  if (what) *what = r.counts();
  return snapshot_from_json(j);
}

}  // namespace gpuready
