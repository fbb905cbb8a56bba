// Path helpers shared by every OS: separators and PATH-style list splitting.
#include "platform/os.h"

namespace gpuready {

#ifdef _WIN32
char path_separator() { return '\\'; }
char path_list_separator() { return ';'; }
#else
char path_separator() { return '/'; }
char path_list_separator() { return ':'; }
#endif

std::string join_path(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const char last = a.back();
  if (last == '/' || last == '\\') return a + b;
  return a + path_separator() + b;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : list) {
    if (c == path_list_separator()) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string path_file_name(const std::string& path) {
  const size_t sep = path.find_last_of("/\\");
  return sep == std::string::npos ? path : path.substr(sep + 1);
}

std::string path_folder(const std::string& path) {
  const size_t sep = path.find_last_of("/\\");
  return sep == std::string::npos ? std::string() : path.substr(0, sep);
}

}  // namespace gpuready
