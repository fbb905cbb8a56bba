// Test doubles for the OS seams (see test_os.h).
#include "support/test_os.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "parse/ascii.h"

namespace fs = std::filesystem;

namespace gpuready::test {

std::string fixture(const std::string& relative) { return std::string(GPUREADY_FIXTURES) + "/" + relative; }

Snapshot fixture_snapshot(const std::string& name) {
  std::ifstream f(fixture("snapshots/" + name));
  return snapshot_from_json(nlohmann::json::parse(f));
}

RootedFs::RootedFs(std::string root) : root_(std::move(root)) {}

std::string RootedFs::real(const std::string& path) const {
  std::string p = path;
  // "C:\\Program Files\\X" -> "/C/Program Files/X": Windows layouts live under <root>/C/...
  if (p.size() >= 2 && p[1] == ':') p = "/" + std::string(1, p[0]) + p.substr(2);
  for (char& c : p)
    if (c == '\\') c = '/';
  if (p.empty() || p[0] != '/') p = "/" + p;
  return root_ + p;
}

// The real file system of the machine the tests run on (POSIX, or Win32 under Wine / on Windows).
static const Fs& host_fs() { return real_os().fs; }

std::optional<std::string> RootedFs::read_file(const std::string& path, size_t max_bytes, std::string* error) const {
  auto r = host_fs().read_file(real(path), max_bytes, error);
  if (!r && error) *error = path + error->substr(error->find(':'));
  return r;
}

std::optional<std::string> RootedFs::read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                                  std::string* error) const {
  auto r = host_fs().read_file_at(real(path), offset, max_bytes, error);
  if (!r && error) *error = path + error->substr(error->find(':'));
  return r;
}

std::optional<std::vector<DirEntry>> RootedFs::list_dir(const std::string& path, std::string* error) const {
  auto r = host_fs().list_dir(real(path), error);
  if (!r && error) *error = path + error->substr(error->find(':'));
  return r;
}

bool RootedFs::exists(const std::string& path) const { return host_fs().exists(real(path)); }
bool RootedFs::is_dir(const std::string& path) const { return host_fs().is_dir(real(path)); }

std::optional<FileStat> RootedFs::stat(const std::string& path, std::string* error) const {
  auto st = host_fs().stat(real(path), error);
  if (!st && error) *error = path + ": no such file";
  return st;
}

std::optional<std::string> RootedFs::read_link(const std::string& path) const {
  return host_fs().read_link(real(path));
}

std::optional<std::string> RootedFs::canonical(const std::string& path) const {
  auto r = host_fs().canonical(real(path));
  if (!r) return std::nullopt;
  auto root = host_fs().canonical(root_);
  if (root && r->rfind(*root, 0) == 0) {
    std::string inside = r->substr(root->size());
#ifdef _WIN32
    for (char& c : inside)
      if (c == '\\') c = '/';  // the probe sees the fixture's paths as on Linux: "/C/Program Files/..."
#endif
    return inside.empty() ? std::string("/") : inside;
  }
  return r;
}

std::optional<std::string> MapEnv::get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

ProcResult ScriptedProc::run(const std::vector<std::string>& argv, const ProcOptions& options) const {
  {
    std::lock_guard<std::mutex> lock(calls_mutex_);
    calls.push_back(argv);
  }
  if (!handler_) {
    ProcResult r;
    r.error = argv.empty() ? "no program" : argv[0] + ": No such file or directory";
    return r;
  }
  return handler_(argv, options);
}

FixtureOs::FixtureOs(const std::string& fixture_tree, std::map<std::string, std::string> vars,
                     ScriptedProc::Handler handler)
    : fs(fixture(fixture_tree)), env(std::move(vars)), proc(std::move(handler)) {
  if (auto text = host_fs().read_file(fixture(fixture_tree) + "/registry.reg", 1 << 20, nullptr)) {
    std::string error;
    if (!reg.load_reg_file(*text, &error)) throw std::runtime_error(fixture_tree + "/registry.reg: " + error);
  }
}

// ---------------------------------------------------------------- MapRegistry

namespace {

// UTF-16LE (regedit's export encoding) to UTF-8; surrogate pairs included.
std::string utf16le_to_utf8(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    std::uint32_t c = static_cast<unsigned char>(bytes[i]) | static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (c >= 0xD800 && c < 0xDC00 && i + 3 < bytes.size()) {
      const std::uint32_t lo = static_cast<unsigned char>(bytes[i + 2]) | static_cast<unsigned char>(bytes[i + 3]) << 8;
      if (lo >= 0xDC00 && lo < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
        i += 2;
      }
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | c >> 6);
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | c >> 12);
      out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | c >> 18);
      out += static_cast<char>(0x80 | (c >> 12 & 0x3F));
      out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// "41,00,42,00" -> bytes; false on anything else.
bool hex_bytes(const std::string& list, std::string& out) {
  std::string cur;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == ' ' || c == '\t') continue;
    if (c != ',') {
      cur += c;
      continue;
    }
    if (cur.empty() && i == list.size()) break;
    if (cur.size() != 2 || !std::isxdigit(static_cast<unsigned char>(cur[0])) ||
        !std::isxdigit(static_cast<unsigned char>(cur[1])))
      return false;
    out += static_cast<char>(std::stoi(cur, nullptr, 16));
    cur.clear();
  }
  return true;
}

// A quoted .reg string starting at text[i] == '"': unescapes \\ and \"; i ends past the quote.
bool quoted(const std::string& text, size_t& i, std::string& out) {
  if (i >= text.size() || text[i] != '"') return false;
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[++i];
    } else if (text[i] == '"') {
      ++i;
      return true;
    } else {
      out += text[i];
    }
  }
  return false;
}

}  // namespace

std::string MapRegistry::canon(const std::string& key) {
  std::string k = parse::ascii_lower(key);
  for (char& c : k)
    if (c == '/') c = '\\';
  while (!k.empty() && k.back() == '\\') k.pop_back();
  const std::pair<const char*, const char*> hives[] = {{"hkey_local_machine", "hklm"},
                                                       {"hkey_current_user", "hkcu"},
                                                       {"hkey_classes_root", "hkcr"},
                                                       {"hkey_users", "hku"},
                                                       {"hkey_current_config", "hkcc"}};
  for (const auto& [full, brief] : hives) {
    const std::string f = full;
    if (k.rfind(f, 0) == 0 && (k.size() == f.size() || k[f.size()] == '\\')) return brief + k.substr(f.size());
  }
  return k;
}

void MapRegistry::set(const std::string& key, const std::string& name, RegistryValue v) {
  // Create the key and its parents, each listed once under its parent.
  std::string k;
  std::string original = key;
  for (char& c : original)
    if (c == '/') c = '\\';
  size_t start = 0;
  while (start <= original.size()) {
    const size_t end = std::min(original.find('\\', start), original.size());
    const std::string part = original.substr(start, end - start);
    if (!part.empty()) {
      const std::string parent = canon(k);
      k += (k.empty() ? "" : "\\") + part;
      auto& kids = children_[parent];
      if (!parent.empty() && keys_.find(canon(k)) == keys_.end() &&
          std::find_if(kids.begin(), kids.end(), [&](const std::string& x) { return parse::iequals(x, part); }) ==
              kids.end())
        kids.push_back(part);
      keys_[canon(k)];
    }
    start = end + 1;
  }
  if (!name.empty() || v.type != RegistryValue::Type::kBinary || !v.text.empty())
    keys_[canon(key)][parse::ascii_lower(name)] = std::move(v);
}

void MapRegistry::set_text(const std::string& key, const std::string& name, const std::string& text) {
  RegistryValue v;
  v.text = text;
  set(key, name, std::move(v));
}

void MapRegistry::set_number(const std::string& key, const std::string& name, std::uint64_t n) {
  RegistryValue v;
  v.type = RegistryValue::Type::kNumber;
  v.number = n;
  v.text = std::to_string(n);
  set(key, name, std::move(v));
}

std::optional<RegistryValue> MapRegistry::value(const std::string& key, const std::string& name,
                                                std::string* error) const {
  const auto k = keys_.find(canon(key));
  if (k == keys_.end()) {
    if (error) *error = key + ": The system cannot find the file specified.";
    return std::nullopt;
  }
  const auto v = k->second.find(parse::ascii_lower(name));
  if (v == k->second.end()) {
    if (error) *error = key + "\\" + name + ": The system cannot find the file specified.";
    return std::nullopt;
  }
  return v->second;
}

std::optional<std::vector<std::string>> MapRegistry::subkeys(const std::string& key, std::string* error) const {
  const std::string c = canon(key);
  if (keys_.find(c) == keys_.end()) {
    if (error) *error = key + ": The system cannot find the file specified.";
    return std::nullopt;
  }
  const auto kids = children_.find(c);
  return kids == children_.end() ? std::vector<std::string>{} : kids->second;
}

bool MapRegistry::load_reg_file(const std::string& raw, std::string* error) {
  std::string text = raw;
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0xFF && static_cast<unsigned char>(text[1]) == 0xFE)
    text = utf16le_to_utf8(text.substr(2));
  else if (text.rfind("\xEF\xBB\xBF", 0) == 0)
    text = text.substr(3);
  // Logical lines: a trailing '\\' continues a hex list on the next line.
  std::vector<std::string> lines;
  std::string cur;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t lead = 0;
    if (!cur.empty())
      while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
    cur += line.substr(lead);
    if (!cur.empty() && cur.back() == '\\' && cur.find("=hex") != std::string::npos) {
      cur.pop_back();
      continue;
    }
    lines.push_back(cur);
    cur.clear();
  }
  if (!cur.empty()) lines.push_back(cur);
  if (lines.empty() || (lines[0] != "Windows Registry Editor Version 5.00" && lines[0] != "REGEDIT4")) {
    if (error) *error = "not a regedit export (the first line must be \"Windows Registry Editor Version 5.00\")";
    return false;
  }
  std::string key;
  for (size_t n = 1; n < lines.size(); ++n) {
    const std::string& l = lines[n];
    auto fail = [&](const std::string& why) {
      if (error) *error = "line " + std::to_string(n + 1) + ": " + why + ": " + l;
      return false;
    };
    if (l.empty() || l[0] == ';') continue;
    if (l[0] == '[') {
      if (l.back() != ']') return fail("a key must end with ]");
      key = l.substr(1, l.size() - 2);
      if (key.empty() || key[0] == '-') return fail("deleting keys is not supported");
      set(key, "", RegistryValue{RegistryValue::Type::kBinary, "", 0, {}});
      continue;
    }
    if (key.empty()) return fail("a value before any [key]");
    std::string name;
    size_t i = 0;
    if (l[0] == '@') {
      i = 1;
    } else if (!quoted(l, i, name)) {
      return fail("a value name must be quoted");
    }
    if (i >= l.size() || l[i] != '=') return fail("expected =");
    const std::string data = l.substr(i + 1);
    RegistryValue v;
    if (!data.empty() && data[0] == '"') {
      size_t j = 0;
      if (!quoted(data, j, v.text) || j != data.size()) return fail("a string value must be one quoted string");
    } else if (data.rfind("dword:", 0) == 0) {
      const std::string h = data.substr(6);
      if (h.size() != 8 || h.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        return fail("dword: takes 8 hex digits");
      v.type = RegistryValue::Type::kNumber;
      v.number = std::stoull(h, nullptr, 16);
      v.text = std::to_string(v.number);
    } else if (data.rfind("hex", 0) == 0) {
      const size_t colon = data.find(':');
      if (colon == std::string::npos) return fail("hex data needs a ':'");
      const std::string kind = data.substr(0, colon);
      std::string bytes;
      if (!hex_bytes(data.substr(colon + 1), bytes)) return fail("hex data must be two-digit bytes");
      if (kind == "hex(b)") {
        if (bytes.size() != 8) return fail("hex(b) takes 8 bytes");
        v.type = RegistryValue::Type::kNumber;
        for (int b = 7; b >= 0; --b)
          v.number = v.number << 8 | static_cast<unsigned char>(bytes[static_cast<size_t>(b)]);
        v.text = std::to_string(v.number);
      } else if (kind == "hex(7)") {
        v.type = RegistryValue::Type::kStrings;
        const std::string all = utf16le_to_utf8(bytes);
        size_t s0 = 0;
        for (size_t p = 0; p <= all.size(); ++p) {
          if (p == all.size() || all[p] == '\0') {
            if (p > s0) v.strings.push_back(all.substr(s0, p - s0));
            s0 = p + 1;
          }
        }
      } else if (kind == "hex(2)") {
        v.text = utf16le_to_utf8(bytes);
        while (!v.text.empty() && v.text.back() == '\0') v.text.pop_back();
      } else if (kind == "hex" || kind == "hex(3)") {
        v.type = RegistryValue::Type::kBinary;
        v.text = bytes;
      } else {
        return fail("unknown value type " + kind);
      }
    } else if (data == "-") {
      return fail("deleting values is not supported");
    } else {
      return fail("unknown value data");
    }
    set(key, name, std::move(v));
  }
  return true;
}

bool can_create_symlinks(std::string* why) {
  const fs::path dir = fs::temp_directory_path() / "gpuready-symlink-probe";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  fs::create_symlink("target", dir / "link", ec);
  const bool ok = !ec;
  if (!ok && why) *why = "this system cannot create symlinks here (" + ec.message() + ")";
  fs::remove_all(dir, ec);
  return ok;
}

int nvidia_smi_gpus(std::string* why) {
  ProcOptions o;
  o.timeout = std::chrono::seconds(30);
  const ProcResult r = real_os().proc.run({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, o);
  if (!r.ok()) {
    *why = "nvidia-smi did not answer: " + (r.error.empty() ? r.err : r.error);
    return 0;
  }
  int n = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) ++n;
  if (n == 0) *why = "nvidia-smi listed no GPU";
  return n;
}

}  // namespace gpuready::test
