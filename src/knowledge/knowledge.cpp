// Loading and checking the knowledge tables (embedded copy or a data folder).
#include "knowledge/knowledge.h"

#include <stdexcept>

#include "knowledge/embedded.h"

namespace gpuready::knowledge {

bool Knowledge::add(const std::string& name, std::string_view text, std::string* error) {
  std::string err;
  auto t = parse_csv(text, &err);
  if (!t) {
    if (error) *error = name + ".csv: " + err;
    return false;
  }
  const int source = t->column("source");
  if (source < 0) {
    if (error) *error = name + ".csv: no `source` column";
    return false;
  }
  for (size_t r = 0; r < t->rows.size(); ++r) {
    if (t->rows[r][static_cast<size_t>(source)].empty()) {
      if (error) *error = name + ".csv: line " + std::to_string(t->lines[r]) + ": the row has no source";
      return false;
    }
  }
  tables_[name] = std::move(*t);
  return true;
}

const Knowledge& Knowledge::embedded() {
  // Built once and never destroyed (as the explainer and the converted tables): freeing tens of
  // thousands of cells at exit costs more than a short command's whole work.
  static const Knowledge* const k = new Knowledge([] {
    Knowledge out;
    out.origin_ = "embedded";
    for (const auto& f : embedded_data()) {
      std::string name = f.name;
      name = name.substr(0, name.size() - 4);  // drop ".csv"
      std::string error;
      if (!out.add(name, f.text(), &error)) throw std::logic_error("embedded knowledge is broken: " + error);
    }
    return out;
  }());
  return *k;
}

std::optional<Knowledge> Knowledge::load_dir(const Fs& fs, const std::string& dir, std::string* error) {
  Knowledge out;
  out.origin_ = dir;
  for (const char* name : kTableNames) {
    const std::string path = join_path(dir, std::string(name) + ".csv");
    std::string err;
    auto text = fs.read_file(path, 16u << 20, &err);
    if (!text) {
      if (error) *error = "cannot read " + err;
      return std::nullopt;
    }
    if (!out.add(name, *text, error)) return std::nullopt;
  }
  return out;
}

const CsvTable* Knowledge::table(const std::string& name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : &it->second;
}

}  // namespace gpuready::knowledge
