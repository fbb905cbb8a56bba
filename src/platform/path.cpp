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

bool is_absolute_path(std::string_view path) {
#ifdef _WIN32
  // "C:\\x" or "C:/x"; "\\\\server\\share", "\\\\?\\C:\\x"; and a path rooted on the current drive
  // ("\\x", "/x": how Wine hands over Unix paths), which may change drive but never names the
  // current folder. Not "C:x" (the current folder of drive C), ".", "bin" or "..\\x".
  if (path.size() >= 3 && ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
      path[1] == ':' && (path[2] == '\\' || path[2] == '/'))
    return true;
  return !path.empty() && (path[0] == '\\' || path[0] == '/');
#else
  return !path.empty() && path[0] == '/';
#endif
}

CleanedPathList clean_search_path_list(std::string_view list, std::string_view separators) {
  CleanedPathList out;
  const char join = separators.empty() ? path_list_separator() : separators[0];
  size_t start = 0;
  for (;;) {
    const size_t end = list.find_first_of(separators, start);
    const std::string_view entry = list.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    // LD_PRELOAD splits on spaces too: a run of them is one separator there, not empty entries.
    const bool blank_between_spaces = entry.empty() && end != std::string_view::npos && list[end] == ' ';
    std::string_view judged = entry;
#ifdef _WIN32
    // cmd and CreateProcess accept a quoted PATH entry ("C:\\Program Files\\x"): judge what is inside.
    if (judged.size() >= 2 && judged.front() == '"' && judged.back() == '"') judged = judged.substr(1, judged.size() - 2);
#endif
    if (is_absolute_path(judged)) {
      if (out.kept++) out.value += join;
      out.value += entry;
    } else if (!blank_between_spaces) {
      out.dropped.emplace_back(entry);
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  // An unset-looking "" list has no entries at all, not one empty entry.
  if (list.empty()) out.dropped.clear();
  return out;
}

const std::vector<std::string>& search_path_variables() {
  static const std::vector<std::string> v = {"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH"};
  return v;
}

std::optional<std::string> read_user_file(const Fs& fs, const std::string& path, size_t max_bytes, std::string* error) {
  std::string why;
  const auto st = fs.stat(path, &why);
  if (!st) {
    if (error) *error = why.empty() ? path + ": cannot be read" : why;
    return std::nullopt;
  }
  if (st->type == FileStat::Type::directory) {
    if (error) *error = path + ": is a folder, not a file";
    return std::nullopt;
  }
  if (st->type != FileStat::Type::regular) {
    if (error) *error = path + ": not a regular file (a device, FIFO or socket); save the text to a file first";
    return std::nullopt;
  }
  if (st->size > max_bytes) {
    if (error)
      *error = path + ": " + std::to_string(st->size) + " bytes, more than the " + std::to_string(max_bytes) +
               " this reads";
    return std::nullopt;
  }
  // Read one byte past the cap: a file that grew after the stat is refused the same way.
  auto data = fs.read_file(path, max_bytes + 1, error);
  if (!data) return std::nullopt;
  if (data->size() > max_bytes) {
    if (error) *error = path + ": more than the " + std::to_string(max_bytes) + " bytes this reads";
    return std::nullopt;
  }
  return data;
}

}  // namespace gpuready
