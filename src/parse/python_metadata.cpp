// Core-metadata headers, PEP 503 names, dist-info and conda-meta file names (see python_metadata.h).
#include "parse/python_metadata.h"

#include <cctype>

#include "parse/ascii.h"
#include "parse/clean_text.h"

namespace gpuready::parse {

CoreMetadata core_metadata(std::string_view text) {
  CoreMetadata m;
  // A UTF-8 byte-order mark is tolerated (some Windows tools write one).
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Only a truly empty line ends the headers (email.parser's rule): a folded long field such
    // as a License text has whitespace-only continuation lines.
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') continue;  // continuation of a long field
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string value = clean_text(trim(line.substr(colon + 1)), 200);
    // The first occurrence counts: the headers are unique for these keys.
    if (iequals(key, "Name") && m.name.empty())
      m.name = value;
    else if (iequals(key, "Version") && m.version.empty())
      m.version = value;
    else if (iequals(key, "Metadata-Version") && m.metadata_version.empty())
      m.metadata_version = value;
  }
  // A name or version with spaces inside is not a package name/version: garbage in.
  if (m.name.find(' ') != std::string::npos) m.name.clear();
  if (m.version.find(' ') != std::string::npos) m.version.clear();
  return m;
}

std::string normalize_package_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run) out += '-';
      in_run = true;
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      in_run = false;
    }
  }
  return out;
}

std::optional<DistFolderName> dist_folder_name(std::string_view folder) {
  DistFolderName d;
  std::string_view stem;
  if (folder.ends_with(".dist-info")) {
    d.kind = "dist-info";
    stem = folder.substr(0, folder.size() - 10);
  } else if (folder.ends_with(".egg-info")) {
    d.kind = "egg-info";
    stem = folder.substr(0, folder.size() - 9);
  } else {
    return std::nullopt;
  }
  // The name ends at the first '-' followed by a digit: wheels escape '-' in names to '_',
  // but old tools did not, so "tensorflow-gpu-2.4.0" must still split before "2.4.0".
  size_t split = std::string_view::npos;
  for (size_t i = 0; i + 1 < stem.size(); ++i) {
    if (stem[i] == '-' && std::isdigit(static_cast<unsigned char>(stem[i + 1]))) {
      split = i;
      break;
    }
  }
  if (split == std::string_view::npos) {
    d.name = std::string(stem);
  } else {
    d.name = std::string(stem.substr(0, split));
    std::string_view rest = stem.substr(split + 1);
    // egg-info: "2.4.0-py3.8" -> "2.4.0"
    const size_t dash = rest.find('-');
    if (dash != std::string_view::npos) rest = rest.substr(0, dash);
    d.version = std::string(rest);
  }
  if (d.name.empty()) return std::nullopt;
  d.name = clean_text(d.name, 200);
  d.version = clean_text(d.version, 100);
  return d;
}

std::optional<CondaMetaName> conda_meta_name(std::string_view file_name) {
  if (!file_name.ends_with(".json")) return std::nullopt;
  std::string_view stem = file_name.substr(0, file_name.size() - 5);
  const size_t last = stem.rfind('-');
  if (last == std::string_view::npos || last == 0) return std::nullopt;
  const size_t second = stem.rfind('-', last - 1);
  if (second == std::string_view::npos || second == 0) return std::nullopt;
  CondaMetaName c;
  c.name = clean_text(stem.substr(0, second), 200);
  c.version = clean_text(stem.substr(second + 1, last - second - 1), 100);
  c.build = clean_text(stem.substr(last + 1), 100);
  if (c.name.empty() || c.version.empty()) return std::nullopt;
  return c;
}

std::string local_version_label(std::string_view version) {
  const size_t plus = version.find('+');
  if (plus == std::string_view::npos) return {};
  return std::string(trim(version.substr(plus + 1)));
}

}  // namespace gpuready::parse
