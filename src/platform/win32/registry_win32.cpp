// The registry seam on Windows: RegOpenKeyExW / RegQueryValueExW / RegEnumKeyExW on the 64-bit
// view (KEY_WOW64_64KEY), UTF-16 underneath, UTF-8 at the seam. Read only.
#include <cstring>
#include <vector>

#include "platform/win32/win32_os.h"

namespace gpuready {
namespace {

struct Hive {
  const char* long_name;
  const char* short_name;
  HKEY key;
};

const Hive kHives[] = {
    {"HKEY_LOCAL_MACHINE", "HKLM", HKEY_LOCAL_MACHINE},   {"HKEY_CURRENT_USER", "HKCU", HKEY_CURRENT_USER},
    {"HKEY_CLASSES_ROOT", "HKCR", HKEY_CLASSES_ROOT},     {"HKEY_USERS", "HKU", HKEY_USERS},
    {"HKEY_CURRENT_CONFIG", "HKCC", HKEY_CURRENT_CONFIG},
};

bool iequal(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if ((x >= 'a' && x <= 'z' ? x - 32 : x) != (y >= 'a' && y <= 'z' ? y - 32 : y)) return false;
  }
  return true;
}

// Closes the key it holds.
class OpenKey {
 public:
  OpenKey() = default;
  OpenKey(const OpenKey&) = delete;
  OpenKey& operator=(const OpenKey&) = delete;
  ~OpenKey() {
    if (key_) ::RegCloseKey(key_);
  }
  HKEY* out() { return &key_; }
  HKEY get() const { return key_; }

 private:
  HKEY key_ = nullptr;
};

// Opens "HKLM\\SOFTWARE\\X" (also with '/' separators) for reading; false with *error on failure.
bool open_key(const std::string& path, OpenKey& key, std::string* error) {
  std::string p = path;
  for (char& c : p)
    if (c == '/') c = '\\';
  const size_t cut = p.find('\\');
  const std::string hive_name = p.substr(0, cut);
  const std::string rest = cut == std::string::npos ? std::string() : p.substr(cut + 1);
  const Hive* hive = nullptr;
  for (const auto& h : kHives)
    if (iequal(hive_name, h.long_name) || iequal(hive_name, h.short_name)) hive = &h;
  if (!hive) {
    if (error) *error = path + ": not a registry key (it must start with HKEY_LOCAL_MACHINE, HKLM, HKCU, ...)";
    return false;
  }
  const LSTATUS rc = ::RegOpenKeyExW(hive->key, win32::to_wide(rest).c_str(), 0, KEY_READ | KEY_WOW64_64KEY, key.out());
  if (rc != ERROR_SUCCESS) {
    if (error) *error = win32::error_with(path, static_cast<DWORD>(rc));
    return false;
  }
  return true;
}

// REG_SZ data as stored: UTF-16, maybe without its terminator, maybe with several.
std::string wide_text(const std::vector<BYTE>& data, size_t bytes) {
  size_t n = bytes / sizeof(wchar_t);
  const auto* w = reinterpret_cast<const wchar_t*>(data.data());
  while (n > 0 && w[n - 1] == L'\0') --n;
  return win32::to_utf8(w, n);
}

}  // namespace

std::optional<RegistryValue> Win32Registry::value(const std::string& key, const std::string& name,
                                                  std::string* error) const {
  OpenKey k;
  if (!open_key(key, k, error)) return std::nullopt;
  const std::wstring wname = win32::to_wide(name);
  std::vector<BYTE> data(256);
  DWORD type = 0;
  LSTATUS rc = ERROR_MORE_DATA;
  DWORD size = 0;
  // A value may grow between the two calls: retry a few times with the size asked for.
  for (int attempt = 0; attempt < 4 && rc == ERROR_MORE_DATA; ++attempt) {
    size = static_cast<DWORD>(data.size());
    rc = ::RegQueryValueExW(k.get(), wname.c_str(), nullptr, &type, data.data(), &size);
    if (rc == ERROR_MORE_DATA) data.resize(size + sizeof(wchar_t) * 2);
  }
  if (rc != ERROR_SUCCESS) {
    if (error) *error = win32::error_with(key + "\\" + (name.empty() ? "(Default)" : name), static_cast<DWORD>(rc));
    return std::nullopt;
  }
  RegistryValue v;
  switch (type) {
    case REG_SZ:
    case REG_EXPAND_SZ:
      v.type = RegistryValue::Type::kString;
      v.text = wide_text(data, size);
      break;
    case REG_DWORD:
      if (size < 4) break;
      v.type = RegistryValue::Type::kNumber;
      v.number = static_cast<std::uint64_t>(data[0]) | static_cast<std::uint64_t>(data[1]) << 8 |
                 static_cast<std::uint64_t>(data[2]) << 16 | static_cast<std::uint64_t>(data[3]) << 24;
      v.text = std::to_string(v.number);
      return v;
    case REG_QWORD:
      if (size < 8) break;
      v.type = RegistryValue::Type::kNumber;
      for (int i = 7; i >= 0; --i) v.number = v.number << 8 | data[static_cast<size_t>(i)];
      v.text = std::to_string(v.number);
      return v;
    case REG_MULTI_SZ: {
      v.type = RegistryValue::Type::kStrings;
      const auto* w = reinterpret_cast<const wchar_t*>(data.data());
      const size_t n = size / sizeof(wchar_t);
      size_t start = 0;
      for (size_t i = 0; i <= n; ++i) {
        if (i == n || w[i] == L'\0') {
          if (i > start) v.strings.push_back(win32::to_utf8(w + start, i - start));
          start = i + 1;
        }
      }
      return v;
    }
    default:
      break;
  }
  if (type == REG_SZ || type == REG_EXPAND_SZ) return v;
  v.type = RegistryValue::Type::kBinary;
  v.text.assign(reinterpret_cast<const char*>(data.data()), size);
  return v;
}

std::optional<std::vector<std::string>> Win32Registry::subkeys(const std::string& key, std::string* error) const {
  OpenKey k;
  if (!open_key(key, k, error)) return std::nullopt;
  std::vector<std::string> out;
  // Key names are at most 255 characters.
  wchar_t name[256];
  for (DWORD i = 0; i < 100000; ++i) {
    DWORD n = 256;
    const LSTATUS rc = ::RegEnumKeyExW(k.get(), i, name, &n, nullptr, nullptr, nullptr, nullptr);
    if (rc == ERROR_NO_MORE_ITEMS) break;
    if (rc != ERROR_SUCCESS) {
      if (error) *error = win32::error_with(key, static_cast<DWORD>(rc));
      return std::nullopt;
    }
    out.push_back(win32::to_utf8(name, n));
  }
  return out;
}

}  // namespace gpuready
