// Typed rows of the knowledge tables and the questions asked of them.
#include "knowledge/compat.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "parse/ascii.h"
#include "parse/pep440.h"

namespace gpuready::knowledge {
namespace {

// "989.4" -> 989.4: digits, optionally a point and more digits. Locale-free (strtod would
// follow the C locale's decimal point); nullopt for anything else, signs and exponents included.
// The digits are read as one integer and divided once by a power of ten, so "989.4" is the
// double nearest 989.4 (at most 15 digits: exact in a double's 53-bit mantissa).
std::optional<double> parse_decimal(std::string_view s) {
  const size_t point = s.find('.');
  const std::string_view whole = s.substr(0, point);
  const std::string_view frac = point == std::string_view::npos ? std::string_view() : s.substr(point + 1);
  if (!parse::all_digits(whole) || whole.size() > 9) return std::nullopt;
  if (point != std::string_view::npos && (!parse::all_digits(frac) || frac.size() > 6)) return std::nullopt;
  double digits = 0, scale = 1;
  for (char c : whole) digits = digits * 10 + (c - '0');
  for (char c : frac) {
    digits = digits * 10 + (c - '0');
    scale *= 10;
  }
  return digits / scale;
}

// Reads cells of one table by column name, recording the first error with its line.
class RowReader {
 public:
  RowReader(const Knowledge& k, const char* table, std::string* error) : name_(table), error_(error) {
    table_ = k.table(table);
    if (!table_) fail(0, "the table is missing");
  }
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] size_t size() const { return table_ ? table_->rows.size() : 0; }
  [[nodiscard]] int line(size_t r) const { return table_->lines[r]; }

  const std::string& text(size_t r, const char* column) {
    static const std::string none;
    if (!ok_) return none;
    const int c = column_index(column);
    if (c < 0) {
      fail(0, std::string("no column `") + column + "`");
      return none;
    }
    return table_->rows[r][static_cast<size_t>(c)];
  }
  std::optional<Version> optional_version(size_t r, const char* column) {
    const std::string& s = text(r, column);
    if (s.empty() || !ok_) return std::nullopt;
    auto v = Version::parse(s);
    if (!v || !v->suffix.empty()) {
      fail(table_->lines[r], std::string(column) + " \"" + s + "\" is not a version");
      return std::nullopt;
    }
    return v;
  }
  Version version(size_t r, const char* column) {
    auto v = optional_version(r, column);
    if (!v && ok_) fail(table_->lines[r], std::string(column) + " is empty");
    return v.value_or(Version{});
  }
  // A whole number; negative ones too (Vulkan's VkResult errors are -1 ... -13, -1000069000 ...).
  long number(size_t r, const char* column) {
    const std::string s = text(r, column);
    if (s.size() > 1 && s.size() <= 12 && s[0] == '-' && parse::all_digits(s.substr(1))) return -std::stol(s.substr(1));
    return version(r, column).major();
  }
  std::set<int> sm_list(size_t r, const char* column) {
    std::set<int> out;
    for (const std::string& w : words(r, column)) {
      if (!parse::all_digits(w) || w.size() > 4) {
        fail(table_->lines[r], std::string(column) + " has \"" + w + "\", not an sm number");
        return {};
      }
      out.insert(std::stoi(w));
    }
    return out;
  }
  // A plain decimal ("989.4", "67"): TFLOP/s in gpu_peaks.csv. Empty is nullopt.
  std::optional<double> optional_decimal(size_t r, const char* column) {
    const std::string& s = text(r, column);
    if (s.empty() || !ok_) return std::nullopt;
    auto d = parse_decimal(s);
    if (!d) fail(table_->lines[r], std::string(column) + " \"" + s + "\" is not a decimal number");
    return d;
  }
  // FLOP per clock per SM in arch_throughput.csv: a whole number, `none` (0: no such math) or
  // empty (nullopt: not computed).
  std::optional<int> rate(size_t r, const char* column) {
    const std::string& s = text(r, column);
    if (s.empty() || !ok_) return std::nullopt;
    if (s == "none") return 0;
    if (!parse::all_digits(s) || s.size() > 6 || s.front() == '0') {
      fail(table_->lines[r], std::string(column) + " \"" + s + "\" is not a rate (a whole number, none or empty)");
      return std::nullopt;
    }
    return std::stoi(s);
  }
  // Marks row r wrong, saying why (a check beyond one cell's type).
  void invalid(size_t r, const std::string& what) { fail(table_->lines[r], what); }
  std::vector<std::string> words(size_t r, const char* column) {  // split at white space
    std::vector<std::string> out;
    const std::string& s = text(r, column);
    for (size_t i = 0; i < s.size();) {
      if (std::isspace(static_cast<unsigned char>(s[i]))) {
        ++i;
        continue;
      }
      size_t e = i;
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
      out.emplace_back(s, i, e - i);
      i = e;
    }
    return out;
  }

 private:
  void fail(int line, const std::string& what) {
    if (!ok_) return;
    ok_ = false;
    if (error_)
      *error_ = std::string(name_) + ".csv" + (line > 0 ? " line " + std::to_string(line) : std::string()) + ": " + what;
  }
  // A column's index, looked up once per column name (the callers pass string literals).
  int column_index(const char* column) {
    for (const auto& [name, index] : columns_)
      if (name == column) return index;
    const int index = table_->column(column);
    columns_.emplace_back(column, index);
    return index;
  }
  const char* name_;
  std::string* error_;
  const CsvTable* table_ = nullptr;
  std::vector<std::pair<const char*, int>> columns_;
  bool ok_ = true;
};

// Lower-case words of a GPU name without the vendor/brand words, as people and nvidia-smi
// write them: "-", "_", "(" and ")" separate words ("A100-SXM4-80GB"), and a series glued to its
// number is two words ("GTX1650" = "GTX 1650", "RTX3060Ti" = "RTX 3060 Ti").
std::vector<std::string> name_words(const std::string& name) {
  std::string spaced = parse::ascii_lower(name);
  for (char& c : spaced)
    if (c == '-' || c == '_' || c == '(' || c == ')' || c == ',' || c == '/') c = ' ';
  std::vector<std::string> out;
  std::istringstream in(spaced);
  for (std::string w; in >> w;) {
    if (w == "nvidia" || w == "geforce") continue;
    for (const char* series : {"gtx", "rtx", "gt", "mx"}) {
      const size_t n = std::strlen(series);
      if (w.size() > n && w.compare(0, n, series) == 0 && parse::is_digit(w[n])) {
        out.emplace_back(series);
        w.erase(0, n);
        break;
      }
    }
    // "3060ti", "1650super": the number and its suffix.
    size_t d = 0;
    while (d < w.size() && parse::is_digit(w[d])) ++d;
    if (d >= 3 && d < w.size() && (w.compare(d, std::string::npos, "ti") == 0 || w.compare(d, std::string::npos, "super") == 0)) {
      out.push_back(w.substr(0, d));
      out.push_back(w.substr(d));
      continue;
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace

std::vector<std::string> split_fix(std::string_view cell, std::string_view separator) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos <= cell.size();) {
    const size_t next = cell.find(separator, pos);
    const std::string_view part = cell.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    const std::string line(parse::trim(part));
    if (!line.empty()) out.push_back(line);
    if (next == std::string_view::npos) break;
    pos = next + separator.size();
  }
  return out;
}

KernelMatch kernels_for(const std::set<int>& sm, bool ptx, int g) {
  for (int s : sm)
    if (s / 10 == g / 10 && s % 10 <= g % 10) return KernelMatch::cubin;
  if (ptx && !sm.empty() && g > *sm.rbegin()) return KernelMatch::ptx;
  return KernelMatch::none;
}

int sm_of(const Version& cc) { return static_cast<int>(cc.major() * 10 + cc.minor()); }

std::string cc_of_sm(int sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); }

std::string sm_list_words(const std::set<int>& sm) {
  std::string list;
  for (int s : sm) list += (list.empty() ? "sm_" : " sm_") + std::to_string(s);
  return list;
}

std::optional<Compat> Compat::from(const Knowledge& k, std::string* error) {
  Compat c;
  {
    RowReader t(k, "cuda_driver", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.cuda_driver.push_back({t.version(r, "cuda_version").major_minor(), t.version(r, "first_release"),
                               t.optional_version(r, "min_driver_linux"), t.optional_version(r, "min_driver_windows")});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "cuda_minor_compat", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.minor_compat.push_back({t.number(r, "cuda_major"), t.optional_version(r, "min_driver_linux"),
                                t.optional_version(r, "min_driver_windows")});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "cuda_arch", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.cuda_arch.push_back({t.version(r, "cuda_version").major_minor(), t.sm_list(r, "sm_list"),
                             static_cast<int>(t.number(r, "min_sm")), static_cast<int>(t.number(r, "max_sm"))});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "gpus", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      GpuRow g{t.text(r, "name"), t.version(r, "cc"), t.text(r, "architecture"), {}};
      for (const auto& id : t.words(r, "pci_device_ids")) {
        if (id.size() != 4 || id.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
          if (error) *error = "gpus.csv line " + std::to_string(t.line(r)) + ": pci id \"" + id + "\" is not 4 hex digits";
          return std::nullopt;
        }
        g.pci_device_ids.push_back(static_cast<std::uint32_t>(std::stoul(id, nullptr, 16)));
      }
      c.gpus.push_back(std::move(g));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "cudnn", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.cudnn.push_back({t.version(r, "cudnn_version"), t.number(r, "cuda_major"), t.optional_version(r, "cuda_min"),
                         t.text(r, "linux_soname"), t.text(r, "windows_dll"), t.words(r, "sub_libraries_linux"),
                         static_cast<int>(t.number(r, "min_sm"))});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "gpu_driver_branches", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.driver_branches.push_back({t.text(r, "architecture"), t.version(r, "cc_min").major_minor(),
                                   t.version(r, "cc_max").major_minor(), t.number(r, "last_branch")});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "rocm_gfx", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      RocmGfxRow g{parse::ascii_lower(t.text(r, "gfx")), t.text(r, "generation"), {}, t.text(r, "kind"),
                   t.optional_version(r, "linux_rocm_first"), t.optional_version(r, "linux_rocm_last"), t.text(r, "override"),
                   t.text(r, "note")};
      const std::string products = t.text(r, "products");
      for (size_t from = 0; from <= products.size();) {
        const size_t bar = std::min(products.find('|', from), products.size());
        if (const auto p = parse::trim(std::string_view(products).substr(from, bar - from)); !p.empty()) g.products.emplace_back(p);
        from = bar + 1;
      }
      if (t.ok() && (g.gfx.size() < 6 || !g.gfx.starts_with("gfx") ||
                     g.gfx.find_first_not_of("0123456789abcdef", 3) != std::string::npos))
        t.invalid(r, "gfx is not a gfx target name");
      c.rocm_gfx.push_back(std::move(g));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "freshness", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.freshness.push_back({t.text(r, "component"), t.version(r, "newest"), t.text(r, "date"), t.text(r, "date_kind"),
                             t.text(r, "notes")});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "python_breaks", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      PythonBreakRow b{t.words(r, "package"),  t.text(r, "package_versions"), t.text(r, "dependency"),
                       t.text(r, "dependency_versions"), t.text(r, "os"), t.text(r, "symptom"), t.text(r, "fix"),
                       t.text(r, "source")};
      if (t.ok() && (!parse::VersionSpecifier::parse(b.package_versions) || !parse::VersionSpecifier::parse(b.dependency_versions)))
        t.invalid(r, "a version column is not a PEP 440 specifier set");
      c.python_breaks.push_back(std::move(b));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "library_names", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.library_names.push_back({t.text(r, "library"), t.number(r, "cuda_major"), t.words(r, "linux_soname"),
                                 t.words(r, "windows_dll")});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "tensorflow", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      TensorflowRow row;
      row.version = t.version(r, "tf_version");
      row.os = t.text(r, "os");
      row.device = t.text(r, "device");
      row.package = t.text(r, "package");
      row.python_min = t.version(r, "python_min");
      row.python_max = t.version(r, "python_max");
      row.cuda = t.optional_version(r, "cuda");
      row.cudnn = t.optional_version(r, "cudnn");
      row.numpy = t.text(r, "numpy_constraint");
      row.and_cuda = t.text(r, "and_cuda") == "yes";
      row.sm = t.sm_list(r, "sm_list");
      row.ptx = t.text(r, "ptx") == "yes";
      row.line = t.ok() ? t.line(r) : 0;
      c.tensorflow.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "pytorch", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      PytorchRow row;
      row.version = t.version(r, "torch_version");
      row.variant = t.text(r, "variant");
      row.cuda = t.optional_version(r, "cuda");
      row.python_min = t.version(r, "python_min");
      row.python_max = t.version(r, "python_max");
      row.cudnn = t.text(r, "cudnn");
      row.sm = t.sm_list(r, "sm_list");
      row.ptx = t.text(r, "ptx") == "yes";
      row.pypi_default = t.text(r, "pypi_default");
      row.index_url = t.text(r, "index_url");
      row.torchvision = t.text(r, "torchvision");
      row.torchaudio = t.text(r, "torchaudio");
      row.platforms = t.words(r, "platforms");
      row.line = t.ok() ? t.line(r) : 0;
      c.pytorch.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "jax", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      JaxRow row;
      row.version = t.version(r, "jax_version");
      row.pip_extra = t.text(r, "pip_extra");
      row.cuda_major = t.number(r, "cuda_major");
      row.cuda_min = t.optional_version(r, "cuda_min");
      row.cudnn_min = t.optional_version(r, "cudnn_min");
      row.python_min = t.version(r, "python_min");
      row.python_max = t.version(r, "python_max");
      row.min_driver_linux = t.optional_version(r, "min_driver_linux");
      row.min_sm = t.optional_version(r, "min_sm");
      row.sm = t.sm_list(r, "sm_list");
      row.ptx = t.text(r, "ptx") == "yes";
      row.platforms = t.words(r, "platforms");
      row.line = t.ok() ? t.line(r) : 0;
      c.jax.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "error_signatures", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      ErrorSignatureRow row;
      row.code = t.text(r, "code");
      row.title = t.text(r, "title");
      row.kind = t.text(r, "kind");
      row.root = t.words(r, "root");
      row.pattern = t.text(r, "pattern");
      row.example = t.text(r, "example");
      row.variant = t.text(r, "variant");
      row.cause = t.text(r, "cause");
      row.fix = split_fix(t.text(r, "fix"));
      row.context = t.text(r, "context");
      row.notes = t.text(r, "notes");
      if (t.ok() && (row.code.empty() || row.pattern.empty())) {
        if (error) *error = "error_signatures.csv line " + std::to_string(t.line(r)) + ": code and pattern are required";
        return std::nullopt;
      }
      if (t.ok() && row.kind != "failure" && row.kind != "harmless" && row.kind != "generic") {
        if (error)
          *error = "error_signatures.csv line " + std::to_string(t.line(r)) + ": kind \"" + row.kind +
                   "\" is not failure, harmless or generic";
        return std::nullopt;
      }
      c.error_signatures.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "error_codes", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      ErrorCodeRow row;
      row.family = t.text(r, "family");
      row.name = t.text(r, "name");
      const std::string n = t.text(r, "number");
      if (!n.empty()) row.number = t.number(r, "number");
      for (const auto& w : t.words(r, "also_numbers")) {
        if (!parse::all_digits(w) || w.size() > 9) {
          if (error) *error = "error_codes.csv line " + std::to_string(t.line(r)) + ": also_numbers \"" + w + "\" is not a number";
          return std::nullopt;
        }
        row.also_numbers.push_back(std::stol(w));
      }
      row.message = t.text(r, "message");
      row.condition = t.text(r, "condition");
      row.meaning = t.text(r, "meaning");
      row.fix = split_fix(t.text(r, "fix"));
      row.notes = t.text(r, "notes");
      if (t.ok() && (row.family.empty() || row.name.empty())) {
        if (error) *error = "error_codes.csv line " + std::to_string(t.line(r)) + ": family and name are required";
        return std::nullopt;
      }
      c.error_codes.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "library_stems", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      LibraryStemRow row{t.text(r, "stem"),          t.text(r, "component"),       t.text(r, "vendor"),
                         t.text(r, "kind"),          t.text(r, "linux_pattern"),   t.text(r, "windows_pattern"),
                         t.text(r, "version_rule"),  t.text(r, "linux_install"),   t.text(r, "windows_install"),
                         t.text(r, "notes")};
      if (t.ok() && (row.stem.empty() || (row.linux_pattern.empty() && row.windows_pattern.empty()))) {
        if (error) *error = "library_stems.csv line " + std::to_string(t.line(r)) + ": a stem and a file pattern are required";
        return std::nullopt;
      }
      c.library_stems.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "library_versions", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r)
      c.library_versions.push_back({t.text(r, "stem"), t.text(r, "os"), t.text(r, "file_name"),
                                    t.text(r, "component_version"), t.text(r, "cuda"), t.text(r, "notes")});
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "gpu_peaks", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      GpuPeakRow row;
      row.name = t.text(r, "name");
      row.fp32 = t.optional_decimal(r, "fp32");
      row.tf32 = t.optional_decimal(r, "tf32");
      row.fp16 = t.optional_decimal(r, "fp16");
      row.bf16 = t.optional_decimal(r, "bf16");
      row.document = t.text(r, "document");
      row.notes = t.text(r, "notes");
      row.line = t.ok() ? t.line(r) : 0;
      if (t.ok() && row.name.empty()) {
        if (error) *error = "gpu_peaks.csv line " + std::to_string(row.line) + ": the name is empty";
        return std::nullopt;
      }
      c.gpu_peaks.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  {
    RowReader t(k, "arch_throughput", error);
    for (size_t r = 0; t.ok() && r < t.size(); ++r) {
      ArchThroughputRow row;
      row.cc = t.version(r, "cc").major_minor();
      row.fp32 = t.rate(r, "fp32");
      row.tf32 = t.rate(r, "tf32");
      row.fp16 = t.rate(r, "fp16");
      row.bf16 = t.rate(r, "bf16");
      row.notes = t.text(r, "notes");
      row.line = t.ok() ? t.line(r) : 0;
      c.arch_throughput.push_back(std::move(row));
    }
    if (!t.ok()) return std::nullopt;
  }
  auto newest_first = [](auto& rows, auto key) {
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return key(a) > key(b); });
  };
  newest_first(c.cuda_driver, [](const CudaDriverRow& r) { return r.cuda; });
  newest_first(c.cuda_arch, [](const CudaArchRow& r) { return r.cuda; });
  newest_first(c.cudnn, [](const CudnnRow& r) { return r.cudnn; });
  newest_first(c.tensorflow, [](const TensorflowRow& r) { return r.version; });
  newest_first(c.pytorch, [](const PytorchRow& r) { return r.version; });
  newest_first(c.jax, [](const JaxRow& r) { return r.version; });
  newest_first(c.arch_throughput, [](const ArchThroughputRow& r) { return r.cc; });
  return c;
}

const Compat& Compat::embedded() {
  static const Compat* const c = new Compat([] {  // never destroyed: see Knowledge::embedded
    std::string error;
    auto out = from(Knowledge::embedded(), &error);
    if (!out) throw std::logic_error("embedded knowledge does not convert: " + error);
    return std::move(*out);
  }());
  return *c;
}

const CudaDriverRow* Compat::cuda_row(const Version& cuda) const {
  const Version mm = cuda.major_minor();
  for (const auto& r : cuda_driver)
    if (r.cuda == mm) return &r;
  return nullptr;
}

const CudaArchRow* Compat::arch_row(const Version& cuda) const {
  const Version mm = cuda.major_minor();
  for (const auto& r : cuda_arch)
    if (r.cuda == mm) return &r;
  return nullptr;
}

const CudaArchRow* Compat::newest_arch_row(long major) const {
  for (const auto& r : cuda_arch)  // newest first
    if (r.cuda.major() == major) return &r;
  return nullptr;
}

std::optional<Version> Compat::full_floor(const Version& cuda, DriverOs os) const {
  const CudaDriverRow* r = cuda_row(cuda);
  if (!r) return std::nullopt;
  if (os == DriverOs::linux) return r->min_linux;
  if (r->min_windows) return r->min_windows;
  // NVIDIA prints N/A for Windows from 13.0 (the display driver is no longer bundled); the
  // Windows drivers of a branch carry the same branch number, so the branch is the floor.
  if (r->min_linux) return Version::of({r->min_linux->major()});
  return std::nullopt;
}

const CudnnRow* Compat::cudnn_row_for(const Version& release, long cuda_major, bool* exact) const {
  const Version mm = release.major_minor();
  for (const auto& r : cudnn) {  // newest first: the first at or below is the nearest
    if (r.cuda_major != cuda_major || r.cudnn.major() != mm.major() || r.cudnn > mm) continue;
    if (exact) *exact = r.cudnn == mm;
    return &r;
  }
  return nullptr;
}

const CudnnRow* Compat::cudnn_after(const Version& release, long cuda_major) const {
  const Version mm = release.major_minor();
  const CudnnRow* next = nullptr;
  for (const auto& r : cudnn)  // newest first: the last newer one is the next
    if (r.cuda_major == cuda_major && r.cudnn.major() == mm.major() && r.cudnn > mm) next = &r;
  return next;
}

std::optional<GpuDriverFloor> Compat::gpu_driver_floor(const Version& cc, DriverOs os) const {
  const int sm = sm_of(cc);
  const CudaArchRow* first = nullptr;
  for (const auto& r : cuda_arch)  // newest first: the last that has it is the oldest
    if (r.sm.count(sm)) first = &r;
  if (!first || first == &cuda_arch.back()) return std::nullopt;
  const auto driver = full_floor(first->cuda, os);
  if (!driver) return std::nullopt;
  return GpuDriverFloor{first->cuda, *driver};
}

const RocmGfxRow* Compat::rocm_gfx_row(std::string_view gfx) const {
  const std::string want = parse::ascii_lower(gfx);
  for (const auto& g : rocm_gfx)
    if (g.gfx == want) return &g;
  return nullptr;
}

const FreshnessRow* Compat::freshness_of(const std::string& component) const {
  for (const auto& r : freshness)
    if (r.component == component) return &r;
  return nullptr;
}

const DriverBranchRow* Compat::gpu_driver_ceiling(const Version& cc) const {
  const Version mm = cc.major_minor();
  for (const auto& r : driver_branches)
    if (mm >= r.cc_min && mm <= r.cc_max) return &r;
  return nullptr;
}

std::optional<Version> Compat::compat_floor(long major, DriverOs os) const {
  for (const auto& r : minor_compat) {
    if (r.cuda_major != major) continue;
    if (os == DriverOs::linux) return r.min_linux;
    if (r.min_windows) return r.min_windows;
    if (r.min_linux) return Version::of({r.min_linux->major()});
  }
  return std::nullopt;
}

std::optional<Version> Compat::required_driver(const Version& cuda, DriverOs os) const {
  if (cuda.major() >= 11)
    if (auto f = compat_floor(cuda.major(), os)) {
      // A floor for a toolkit minor that is lower than the major's compatibility floor
      // (11.0 GA predates minor-version compatibility) still needs the higher one.
      return f;
    }
  return full_floor(cuda, os);
}

Compat::DriverTableReach Compat::driver_table_reach() const {
  DriverTableReach out;
  for (const auto& r : cuda_driver) {
    if (r.cuda > out.cuda) out.cuda = r.cuda;
    if (r.min_linux && *r.min_linux > out.driver) out.driver = *r.min_linux;
  }
  return out;
}

std::optional<Version> Compat::newest_cuda(const Version& driver, DriverOs os) const {
  for (const auto& r : cuda_driver) {  // newest first
    auto f = full_floor(r.cuda, os);
    if (f && driver >= *f) return r.cuda;
  }
  return std::nullopt;
}

const GpuRow* Compat::gpu_by_name(const std::string& name) const {
  const auto want = name_words(name);
  if (want.empty()) return nullptr;
  for (const auto& g : gpus)
    if (name_words(g.name) == want) return &g;
  return nullptr;
}

std::vector<const GpuRow*> Compat::gpus_matching(const std::string& name) const {
  std::vector<const GpuRow*> out;
  const auto want = name_words(name);
  if (want.empty()) return out;
  if (const GpuRow* exact = gpu_by_name(name)) return {exact};  // the exact name first
  for (const auto& g : gpus) {
    const auto have = name_words(g.name);
    if (std::all_of(want.begin(), want.end(), [&](const std::string& w) { return std::find(have.begin(), have.end(), w) != have.end(); }))
      out.push_back(&g);
  }
  return out;
}

std::optional<Version> Compat::gpu_cc(const std::string& name, std::vector<const GpuRow*>* candidates) const {
  const auto rows = gpus_matching(name);
  if (candidates) *candidates = rows;
  if (rows.empty()) return std::nullopt;
  for (const auto* r : rows)
    if (r->cc.major_minor() != rows.front()->cc.major_minor()) return std::nullopt;
  return rows.front()->cc;
}

Version Compat::driver_release(const Version& typed) const {
  std::vector<Version> known;
  for (const auto& r : cuda_driver) {
    if (r.min_linux) known.push_back(*r.min_linux);
    if (r.min_windows) known.push_back(*r.min_windows);
  }
  for (const auto& r : minor_compat) {
    if (r.min_linux) known.push_back(*r.min_linux);
    if (r.min_windows) known.push_back(*r.min_windows);
  }
  for (const auto& v : known) {
    if (v.parts.size() <= typed.parts.size()) continue;
    if (std::equal(typed.parts.begin(), typed.parts.end(), v.parts.begin())) return v;
  }
  return typed;
}

const GpuRow* Compat::gpu_by_pci_id(std::uint32_t device_id) const {
  for (const auto& g : gpus)
    for (auto id : g.pci_device_ids)
      if (id == device_id) return &g;
  return nullptr;
}

std::vector<std::string> Compat::gpu_names_like(const std::string& name, size_t limit) const {
  std::vector<std::string> out;
  const auto want = name_words(name);
  if (want.empty()) return out;
  for (const auto& g : gpus) {
    const std::string have = parse::ascii_lower(g.name);
    bool all = true;
    for (const auto& w : want)
      if (have.find(w) == std::string::npos) all = false;
    if (all) out.push_back(g.name);
    if (out.size() >= limit) break;
  }
  return out;
}

std::string Compat::architecture_of(const Version& cc) const {
  const Version mm = cc.major_minor();
  for (const auto& g : gpus)
    if (g.cc.major_minor() == mm && !g.architecture.empty()) return g.architecture;
  return {};
}

const LibraryNameRow* Compat::library(const std::string& lib, long cuda_major) const {
  for (const auto& r : library_names)
    if (r.library == lib && r.cuda_major == cuda_major) return &r;
  return nullptr;
}

const GpuPeakRow* Compat::gpu_peak(const std::string& nvml_name) const {
  for (const auto& r : gpu_peaks)
    if (r.name == nvml_name) return &r;
  return nullptr;
}

const ArchThroughputRow* Compat::arch_throughput_row(const Version& cc) const {
  const Version mm = cc.major_minor();
  for (const auto& r : arch_throughput)
    if (r.cc == mm) return &r;
  return nullptr;
}

}  // namespace gpuready::knowledge
