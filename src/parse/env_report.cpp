#include "parse/env_report.h"

#include <algorithm>
#include <array>

#include "parse/ascii.h"

namespace gpuready::parse {
namespace {

constexpr size_t kMaxLine = 4096;  // a report's lines are short; a longer one is not a report line

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '\n' && text[i] != '\r') continue;
    out.push_back(text.substr(begin, i - begin));
    if (i + 1 < text.size() && text[i] == '\r' && text[i + 1] == '\n') ++i;
    begin = i + 1;
  }
  return out;
}

bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// A line without the decorations a report gets when pasted: a markdown list marker, backticks, a
// Python or IPython prompt, a table's border.
std::string_view undecorated(std::string_view s) {
  s = trim(s);
  if (s.starts_with("(")) {  // a virtualenv's or conda environment's name before a prompt: "(venv) $ python ..."
    const size_t close = s.find(") ");
    if (close != std::string_view::npos && close < 40 && s.substr(close + 2).find_first_of("$#>") < 60)
      s = trim(s.substr(close + 2));
  }
  if (const size_t dollar = s.find("$ "); dollar != std::string_view::npos && dollar < 60 && s.find('@') < dollar &&
                                          s.find(' ') > s.find('@'))
    s = trim(s.substr(dollar + 2));  // a prompt "me@host:~/dir$ python ..." (no space before the '@')
  for (std::string_view prompt : {">>> ", "... ", "$ ", "# ", "> "})  // "> ": a markdown quote
    if (s.starts_with(prompt)) s = trim(s.substr(prompt.size()));
  if (s.starts_with("In [")) {  // IPython: "In [3]: torch.cuda.is_available()"
    const size_t close = s.find("]: ");
    if (close != std::string_view::npos && close < 10) s = trim(s.substr(close + 3));
  }
  if (s.size() >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ') s = trim(s.substr(2));
  return s;
}

std::string without_backticks(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '`') out += c;
  return out;
}

// "2.1.0+cu121" from "2.1.0+cu121 (True)", "'2.1.0+cpu'", "v2.12.0"; "" when the value does not
// start with a version.
std::string version_word(std::string_view v) {
  v = trim(v);
  while (!v.empty() && (v.front() == '\'' || v.front() == '"' || v.front() == 'v')) v.remove_prefix(1);
  if (v.empty() || !is_digit(v.front())) return "";
  size_t n = 0;
  while (n < v.size() && !is_space(v[n]) && v[n] != '\'' && v[n] != '"' && v[n] != ',' && v[n] != '(' && v[n] != ')')
    ++n;
  std::string out(v.substr(0, n));
  if (out.find('.') == std::string::npos) return "";
  return out;
}

bool is_none_word(std::string_view v) {
  v = trim(v);
  // "No CUDA": collect_env since 2.1 on a build or machine without CUDA.
  for (std::string_view w : {"none", "n/a", "could not collect", "not available", "null", "no cuda"})
    if (iequals(v, w)) return true;
  return false;
}

std::optional<bool> bool_word(std::string_view v) {
  v = trim(v);
  if (iequals(v, "true") || iequals(v, "yes")) return true;
  if (iequals(v, "false") || iequals(v, "no")) return false;
  return std::nullopt;
}

// The "(True)" / "(False)" after a Hugging Face env list's version.
std::optional<bool> parenthesised_bool(std::string_view v) {
  const size_t open = v.rfind('(');
  const size_t close = v.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  return bool_word(v.substr(open + 1, close - open - 1));
}

// The NVIDIA product a GPU list line names: "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)" ->
// "NVIDIA A100-SXM4-80GB"; "" for another vendor's GPU or no name.
std::string nvidia_gpu_name(std::string_view v) {
  v = trim(v);
  if (v.starts_with("GPU ")) {
    const size_t colon = v.find(": ");
    if (colon != std::string_view::npos && colon < 8) v = trim(v.substr(colon + 2));
  }
  const size_t uuid = v.find(" (UUID");
  if (uuid != std::string_view::npos) v = trim(v.substr(0, uuid));
  if (v.empty() || v.size() > 120 || is_none_word(v)) return "";
  const std::string l = ascii_lower(v);
  static constexpr std::array<std::string_view, 9> nvidia = {"nvidia", "geforce", "tesla", "quadro", "titan",
                                                             "rtx ",   "gtx ",    "jetson", "grace"};
  static constexpr std::array<std::string_view, 5> other = {"amd", "radeon", "instinct", "intel", "apple"};
  for (auto w : other)
    if (contains(l, w)) return "";
  for (auto w : nvidia)
    if (contains(l, w)) return std::string(v);
  return "";
}

std::string os_family_of(std::string_view v, bool* wsl) {
  const std::string l = ascii_lower(v);
  if (contains(l, "microsoft-standard") || contains(l, "wsl2")) *wsl = true;
  if (contains(l, "windows")) return "windows";
  if (contains(l, "macos") || contains(l, "mac os") || contains(l, "darwin")) return "macos";
  if (contains(l, "linux") || contains(l, "ubuntu") || contains(l, "debian") || contains(l, "centos") ||
      contains(l, "fedora") || contains(l, "red hat") || contains(l, "rocky") || contains(l, "arch"))
    return "linux";
  return "";
}

class Reader {
 public:
  explicit Reader(std::string_view text) : lines_(split_lines(text)) {}

  EnvReport read() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].size() > kMaxLine) continue;
      const std::string_view raw = lines_[i];
      const std::string_view u = undecorated(raw);
      if (u.empty()) continue;
      nvidia_smi_line(i, raw);
      if (smi_csv_line(i, u)) continue;
      framework_device_line(i, raw);
      tensorflow_build_info(i, raw);
      if (query(i, u) || python_one_liner(i, u)) continue;
      if (package_line(i, u)) continue;
      // TensorFlow's tutorial check: print("GPU is", "available" if tf.config.list_physical_devices("GPU")
      // else "NOT AVAILABLE"); TensorFlow's only when the report names TensorFlow.
      if (u == "GPU is NOT AVAILABLE" || u == "GPU is available") tutorial_answer_ = i;
      key_value(i, u);
    }
    if (tutorial_answer_)
      for (const auto& f : r_.frameworks)
        if (f.framework == "tensorflow") {
          set_sees("tensorflow", lines_[*tutorial_answer_].find("NOT") == std::string_view::npos, *tutorial_answer_);
          break;
        }
    // collect_env writes "No CUDA" / "Could not collect" where nvidia-smi found nothing.
    r_.no_nvidia_said = gpu_none_ && r_.gpus.empty() && r_.driver_version.empty();
    return std::move(r_);
  }

 private:
  ReportedFramework& fw(const std::string& name, size_t i) {
    for (auto& f : r_.frameworks)
      if (f.framework == name) return f;
    r_.frameworks.push_back({});
    r_.frameworks.back().framework = name;
    r_.frameworks.back().line = i + 1;
    return r_.frameworks.back();
  }
  void said(ReportedFramework& f, size_t i) {
    const std::string line(trim(lines_[i]));
    if (f.evidence.size() < 6 && std::find(f.evidence.begin(), f.evidence.end(), line) == f.evidence.end())
      f.evidence.push_back(line);
  }
  void machine(size_t i) {
    const std::string line(trim(lines_[i]));
    if (r_.evidence.size() < 6 && std::find(r_.evidence.begin(), r_.evidence.end(), line) == r_.evidence.end())
      r_.evidence.push_back(line);
  }
  void set_version(const std::string& framework, std::string_view value, size_t i) {
    const std::string v = version_word(value);
    if (v.empty()) return;
    auto& f = fw(framework, i);
    if (f.version.empty()) f.version = v;
    said(f, i);
  }
  void set_sees(const std::string& framework, bool sees, size_t i, bool asked = true) {
    auto& f = fw(framework, i);
    if (!f.sees_gpu) f.sees_gpu = sees;
    f.asked = f.asked || asked;
    said(f, i);
  }
  void add_gpu(std::string_view value, size_t i) {
    const std::string name = nvidia_gpu_name(value);
    if (name.empty()) return;
    if (std::find(r_.gpus.begin(), r_.gpus.end(), name) == r_.gpus.end()) r_.gpus.push_back(name);
    machine(i);
  }

  // nvidia-smi's table: "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |" and a
  // GPU's row "|   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0  On |".
  void nvidia_smi_line(size_t i, std::string_view raw) {
    const size_t dv = raw.find("Driver Version:");
    if (dv != std::string_view::npos && r_.driver_version.empty()) {
      const std::string v = version_word(raw.substr(dv + 15));
      if (!v.empty()) {
        r_.driver_version = v;
        machine(i);
      }
    }
    std::string_view t = trim(raw);
    if (!t.starts_with("|")) return;
    t = trim(t.substr(1));
    size_t n = 0;
    while (n < t.size() && is_digit(t[n])) ++n;
    if (n == 0 || n > 2 || n >= t.size() || t[n] != ' ') return;
    t = trim(t.substr(n));
    const size_t gap = t.find("  ");
    if (gap == std::string_view::npos) return;
    const std::string_view name = t.substr(0, gap);
    const std::string_view after = trim(t.substr(gap));
    for (std::string_view mode : {"On ", "Off ", "On|", "Off|", "WDDM", "TCC", "MCDM"})
      if (after.starts_with(mode)) return add_gpu(name, i);
  }

  // nvidia-smi --query-gpu=name,driver_version,... --format=csv: a header of query fields ("name, driver_version,
  // memory.total [MiB]"), then one row per GPU ("NVIDIA GeForce RTX 3090, 535.104.05, 24576 MiB"). A row has as
  // many ", "-separated values as the header; the first other line ends the table.
  bool smi_csv_line(size_t i, std::string_view u) {
    // Outside a table only a header can start one, and a header's first field is a query name ("name",
    // "index", "pci.bus_id"): most lines of a long log leave here, before anything is split or copied.
    if (csv_fields_.empty()) {
      const size_t comma = u.find(", ");
      if (comma == std::string_view::npos || comma == 0 || comma > 40) return false;
      const std::string_view first = u.substr(0, comma);
      if (!std::all_of(first.begin(), first.begin() + std::min(first.find(' '), first.size()), query_name_char)) return false;
    }
    const auto fields = split_csv(u);
    if (!csv_fields_.empty()) {
      if (fields.size() == csv_fields_.size()) {
        for (size_t k = 0; k < fields.size(); ++k) {
          if (csv_fields_[k] == "name") add_gpu(fields[k], i);
          if (csv_fields_[k] == "driver_version" && r_.driver_version.empty()) {
            const std::string v = version_word(fields[k]);
            if (!v.empty()) {
              r_.driver_version = v;
              machine(i);
            }
          }
        }
        return true;
      }
      csv_fields_.clear();
    }
    if (fields.size() < 2) return false;
    std::vector<std::string> names;
    bool known = false;
    for (std::string_view f : fields) {
      if (const size_t unit = f.find(" ["); unit != std::string_view::npos && f.ends_with("]")) f = f.substr(0, unit);
      if (f.empty() || !std::all_of(f.begin(), f.end(), query_name_char)) return false;
      known = known || f == "name" || f == "driver_version";
      names.emplace_back(f);
    }
    if (!known) return false;
    csv_fields_ = std::move(names);
    return true;
  }
  // A character of an nvidia-smi query field's name ("memory.total", "pci.bus_id").
  static bool query_name_char(char c) { return (c >= 'a' && c <= 'z') || c == '_' || c == '.'; }
  static std::vector<std::string_view> split_csv(std::string_view u) {
    std::vector<std::string_view> out;
    for (size_t from = 0;;) {
      const size_t comma = u.find(", ", from);
      out.push_back(trim(u.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from)));
      if (comma == std::string_view::npos) break;
      from = comma + 2;
    }
    return out;
  }

  // TensorFlow's "Created device /job:localhost/.../device:GPU:0 with 5471 MB memory:  -> device: 0, name:
  // NVIDIA GeForce RTX 3070 Laptop GPU, pci bus id: 0000:01:00.0, compute capability: 8.6": a GPU this
  // machine has, whichever framework the report is about.
  void framework_device_line(size_t i, std::string_view raw) {
    if (!contains(raw, "Created device") && !contains(raw, "Found device")) return;
    const size_t name = raw.find("name: ");
    const size_t bus = raw.find(", pci bus id");
    if (name == std::string_view::npos || bus == std::string_view::npos || bus < name) return;
    add_gpu(raw.substr(name + 6, bus - name - 6), i);
  }

  // A framework's package as pip and conda list it: "torch==2.1.0+cu121" (pip freeze, collect_env's
  // "[pip3] torch==2.1.0+cu121"), "torch    2.1.0+cu121" (pip list), "[conda] pytorch  2.1.0
  // py3.10_cuda12.1_cudnn8.9.2_0  pytorch" (conda list: the build string names the CUDA, or "cpu").
  bool package_line(size_t i, std::string_view u) {
    if (u.starts_with("[pip3]") || u.starts_with("[pip]") || u.starts_with("[conda]")) u = trim(u.substr(u.find(']') + 1));
    size_t n = 0;
    while (n < u.size() && !is_space(u[n]) && u[n] != '=') ++n;
    if (n < 3 || n > 14) return false;  // jax ... tensorflow-gpu: no copy of the other lines' first words
    const std::string name = ascii_lower(u.substr(0, n));
    const char* framework = name == "torch" || name == "pytorch" ? "pytorch"
                            : name == "tensorflow" || name == "tensorflow-gpu" ? "tensorflow"
                            : name == "jax" ? "jax" : nullptr;
    if (!framework) return false;
    std::string_view rest = u.substr(n);
    if (rest.starts_with("==")) rest = rest.substr(2);
    else if (rest.empty() || !is_space(rest.front())) return false;
    rest = trim(rest);
    const std::string v = version_word(rest);
    if (v.empty()) return false;
    // The whole line is the package and its version (and, from conda, a build string and a channel).
    size_t words = 0;
    for (size_t q = 0; q < rest.size();) {
      while (q < rest.size() && is_space(rest[q])) ++q;
      if (q < rest.size()) ++words;
      while (q < rest.size() && !is_space(rest[q])) ++q;
    }
    if (words > 3) return false;
    set_version(framework, rest, i);
    if (words >= 2 && std::string(framework) == "pytorch") {  // a build string: conda's
      auto& f = fw(framework, i);
      const std::string build = ascii_lower(rest);
      const size_t cu = build.find("_cuda");
      if (f.built_cuda) return true;
      if (cu != std::string::npos) {
        size_t e = cu + 5;
        while (e < build.size() && (is_digit(build[e]) || build[e] == '.')) ++e;
        const std::string c = build.substr(cu + 5, e - cu - 5);
        if (c.find('.') != std::string::npos) f.built_cuda = c;
      } else if (contains(build, "_cpu") || contains(build, " cpu_")) {
        f.built_cuda = "none";
      }
    }
    return true;
  }

  // tf.sysconfig.get_build_info(): "OrderedDict([... ('cuda_version', '12.1'), ('cudnn_version', '8'),
  // ('is_cuda_build', True) ...])" (Windows builds write "64_112" for 11.2).
  void tensorflow_build_info(size_t i, std::string_view raw) {
    const size_t cv = raw.find("('cuda_version', '");
    const size_t cb = raw.find("('is_cuda_build', ");
    if (cv == std::string_view::npos && cb == std::string_view::npos) return;
    auto& f = fw("tensorflow", i);
    if (cv != std::string_view::npos && !f.built_cuda) {
      std::string_view v = raw.substr(cv + 18);
      v = v.substr(0, v.find('\''));
      if (const size_t us = v.find('_'); us != std::string_view::npos && all_digits(v.substr(us + 1)) && v.size() - us > 2) {
        const std::string d(v.substr(us + 1));  // "64_112" -> "11.2"
        f.built_cuda = d.substr(0, d.size() - 1) + "." + d.substr(d.size() - 1);
      } else if (!version_word(v).empty()) {
        f.built_cuda = version_word(v);
      }
    }
    if (cb != std::string_view::npos && !f.built_cuda && raw.substr(cb + 18).starts_with("False")) f.built_cuda = "none";
    said(f, i);
  }

  // The next line that is a Python value (True, False, None, [], a number, a quoted string, a
  // device list), skipping the framework's log lines; "" when another prompt or nothing comes first.
  std::string_view answer_after(size_t i, size_t* at) const {
    for (size_t j = i + 1; j < lines_.size() && j <= i + 12; ++j) {
      std::string_view t = trim(lines_[j]);
      if (t.starts_with(">>>") || t.starts_with("In [")) return {};
      if (t.starts_with("Out[")) {
        const size_t close = t.find("]: ");
        if (close != std::string_view::npos) t = trim(t.substr(close + 3));
      }
      if (t.empty() || t.size() > 400) continue;
      if (t == "True" || t == "False" || t == "None" || t.front() == '[' || t.front() == '\'' || t.front() == '"' ||
          all_digits(t)) {
        *at = j;
        return t;
      }
    }
    return {};
  }

  // The usual check as a shell one-liner: `python -c "import torch; print(torch.cuda.is_available())"`, or
  // `print(torch.__version__, torch.cuda.is_available())`, and what it printed on the next line: each printed
  // expression's value, separated by spaces.
  bool python_one_liner(size_t i, std::string_view u) {
    if (!u.starts_with("python") && !u.starts_with("py ")) return false;
    const size_t c = u.find(" -c ");
    if (c == std::string_view::npos) return false;
    std::string_view code = trim(u.substr(c + 4));
    if (code.size() >= 2 && (code.front() == '"' || code.front() == '\'') && code.back() == code.front())
      code = code.substr(1, code.size() - 2);
    const size_t p = code.rfind("print(");
    if (p == std::string_view::npos || !code.ends_with(")")) return false;
    std::vector<std::string> args;  // the printed expressions, spaces dropped, quotes single
    std::string cur;
    int depth = 0;
    for (char ch : code.substr(p + 6, code.size() - p - 7)) {
      if (ch == '(' || ch == '[') ++depth;
      if (ch == ')' || ch == ']') --depth;
      if (ch == ',' && depth == 0) {
        args.push_back(cur);
        cur.clear();
      } else if (ch != ' ') {
        cur += ch == '"' ? '\'' : ch;
      }
    }
    args.push_back(cur);
    size_t j = i + 1;
    while (j < lines_.size() && j <= i + 3 && trim(lines_[j]).empty()) ++j;
    if (j >= lines_.size() || j > i + 3) return false;
    std::vector<std::string_view> values;
    const std::string_view out = trim(lines_[j]);
    for (size_t from = 0; from < out.size();) {
      const size_t sp = out.find(' ', from);
      const std::string_view v = out.substr(from, sp == std::string_view::npos ? std::string_view::npos : sp - from);
      if (!v.empty()) values.push_back(v);
      if (sp == std::string_view::npos) break;
      from = sp + 1;
    }
    if (values.size() != args.size()) return false;
    bool used = false;
    for (size_t k = 0; k < args.size(); ++k) {
      const std::string& a = args[k];
      const std::string_view v = values[k];
      if (const auto recorded = scalar_answer(a, v, i, j)) {
        used = used || *recorded;
      } else if ((a == "len(tf.config.list_physical_devices('GPU'))" ||
                  a == "len(tf.config.experimental.list_physical_devices('GPU'))") &&
                 all_digits(v)) {
        set_sees("tensorflow", v != "0", i), said(fw("tensorflow", i), j), used = true;
      }
    }
    return used;
  }

  // The checks whose answer is one value (a bool, a count, a version), `q` as query() normalises it (no
  // spaces, single quotes): typed at a prompt (query) or printed by a one-liner (python_one_liner).
  static bool is_scalar_query(const std::string& q) {
    for (const char* k : {"torch.cuda.is_available()", "torch.cuda.device_count()", "torch.__version__", "torch.version.cuda",
                          "tf.__version__", "tensorflow.__version__", "tf.test.is_gpu_available()", "tf.test.is_built_with_cuda()"})
      if (q == k) return true;
    return false;
  }
  // Records what value `a` (printed at line `at`) says for check `q` (at line `i`). nullopt: not such a
  // check; else whether the value said something.
  std::optional<bool> scalar_answer(const std::string& q, std::string_view a, size_t i, size_t at) {
    if (!is_scalar_query(q)) return std::nullopt;
    if (q == "torch.cuda.is_available()") {
      const auto b = bool_word(a);
      if (b) set_sees("pytorch", *b, i), said(fw("pytorch", i), at);
      return b.has_value();
    }
    if (q == "torch.cuda.device_count()") {
      if (!all_digits(a)) return false;
      set_sees("pytorch", a != "0", i), said(fw("pytorch", i), at);
      return true;
    }
    if (q == "torch.__version__") {
      if (version_word(a).empty()) return false;
      set_version("pytorch", a, at), said(fw("pytorch", i), i);
      return true;
    }
    if (q == "torch.version.cuda") {
      auto& f = fw("pytorch", i);
      if (a == "None") f.built_cuda = "none";
      else if (!version_word(a).empty()) f.built_cuda = version_word(a);
      else return false;
      said(f, i), said(f, at);
      return true;
    }
    if (q == "tf.__version__" || q == "tensorflow.__version__") {
      if (version_word(a).empty()) return false;
      set_version("tensorflow", a, at), said(fw("tensorflow", i), i);
      return true;
    }
    const auto b = bool_word(a);  // tf.test.is_gpu_available() / is_built_with_cuda()
    if (!b) return false;
    auto& f = fw("tensorflow", i);
    if (q == "tf.test.is_gpu_available()") set_sees("tensorflow", *b, i);
    else if (!*b && !f.built_cuda) f.built_cuda = "none";
    said(f, i), said(f, at);
    return true;
  }

  // A check typed at a prompt or printed by a script, and the answer under it.
  bool query(size_t i, std::string_view u) {
    const std::string_view call = u.starts_with("print(") ? u.substr(6) : u;
    if (!call.starts_with("torch.") && !call.starts_with("tf.") && !call.starts_with("tensorflow.") &&
        !call.starts_with("jax.") && !contains(call, "device_lib."))
      return false;  // most lines: no copy made
    std::string q(u);
    if (q.starts_with("print(") && q.back() == ')') q = q.substr(6, q.size() - 7);
    q.erase(std::remove(q.begin(), q.end(), ' '), q.end());
    std::replace(q.begin(), q.end(), '"', '\'');
    size_t at = 0;
    if (is_scalar_query(q)) {
      const std::string_view a = answer_after(i, &at);
      scalar_answer(q, a, i, at);
      return true;
    }
    const bool tf_list = contains(q, "list_physical_devices('GPU')") || contains(q, "list_physical_devices(device_type='GPU')");
    if (tf_list && (q.starts_with("tf.") || q.starts_with("tensorflow."))) {
      const std::string_view a = answer_after(i, &at);
      if (a == "[]") set_sees("tensorflow", false, i), said(fw("tensorflow", i), at);
      else if (a.starts_with("[PhysicalDevice(") && contains(a, "GPU")) set_sees("tensorflow", true, i), said(fw("tensorflow", i), at);
      return true;
    }
    if (q == "jax.devices()" || q == "jax.default_backend()") {
      const std::string a = ascii_lower(answer_after(i, &at));
      if (a.empty()) return true;
      const bool gpu = contains(a, "cuda") || contains(a, "gpu");
      const bool cpu = contains(a, "cpu");
      if (gpu || cpu) set_sees("jax", gpu, i), said(fw("jax", i), at);
      return true;
    }
    if (contains(q, "device_lib.list_local_devices()")) {
      bool cpu = false, gpu = false;
      size_t last = i;
      for (size_t j = i + 1; j < lines_.size() && j <= i + 80; ++j) {
        const std::string_view t = trim(lines_[j]);
        if (t.starts_with(">>>")) break;
        if (contains(t, "device_type: \"CPU\"")) cpu = true, last = j;
        if (contains(t, "device_type: \"GPU\"")) gpu = true, last = j;
      }
      if (cpu || gpu) set_sees("tensorflow", gpu, i), said(fw("tensorflow", i), last);
      return true;
    }
    return false;
  }

  void key_value(size_t i, std::string_view u) {
    const size_t colon = u.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 60) return;
    // A report's keys start with a letter (or a backtick); a log record's time stamp or level does not, or has
    // digits right after its first letter (glog's "I0821 06:27:34").
    const char c0 = u[0];
    const bool letter = (c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z');
    if (!(letter || c0 == '`') || (colon > 1 && is_digit(u[1]))) return;
    const std::string key = ascii_lower(trim(without_backticks(u.substr(0, colon))));
    const std::string_view value = trim(u.substr(colon + 1));
    if (key == "pytorch version" || key == "torch version" || key == "pytorch" || key == "torch") {
      set_version("pytorch", value, i);
    } else if (key == "cuda used to build pytorch") {
      auto& f = fw("pytorch", i);
      if (!f.built_cuda) {
        if (is_none_word(value)) f.built_cuda = "none";
        else if (!version_word(value).empty()) f.built_cuda = version_word(value);
      }
      said(f, i);
    } else if (key == "rocm used to build pytorch") {
      const std::string v = version_word(value);
      if (!v.empty()) {
        auto& f = fw("pytorch", i);
        f.built_rocm = v;
        said(f, i);
      }
    } else if (key == "is cuda available") {  // collect_env
      if (const auto b = bool_word(value)) set_sees("pytorch", *b, i, false);
    } else if (key == "cuda available" || key == "cuda is available" || key == "torch.cuda.is_available()") {
      if (const auto b = bool_word(value)) set_sees("pytorch", *b, i);
    } else if (key == "pytorch version (gpu?)" || key == "tensorflow version (gpu?)" || key == "jax version" ||
               key == "flax version (cpu?/gpu?/tpu?)") {
      const std::string framework = key.starts_with("pytorch") ? "pytorch" : key.starts_with("tensorflow") ? "tensorflow" : "jax";
      if (version_word(value).empty()) return;
      set_version(framework, value, i);
      if (framework != "jax")
        if (const auto b = parenthesised_bool(value)) set_sees(framework, *b, i, false);
    } else if (key == "jax" && !version_word(value).empty()) {  // jax.print_environment_info()
      set_version("jax", value, i);
    } else if (key.starts_with("jax.devices (")) {  // "jax.devices (1 total, 1 local): [CpuDevice(id=0)]"
      const std::string l = ascii_lower(value);
      if (contains(l, "cpudevice") || contains(l, "cuda") || contains(l, "gpu"))
        set_sees("jax", contains(l, "cuda") || contains(l, "gpu"), i, false);
    } else if (key == "tensorflow version" || key == "tensor flow version" || key == "tf version" ||
               key == "tensorflow") {
      set_version("tensorflow", value, i);
    } else if (key == "built with cuda") {  // print('Built with CUDA:', tf.test.is_built_with_cuda())
      auto& f = fw("tensorflow", i);
      if (bool_word(value) == std::optional<bool>(false) && !f.built_cuda) f.built_cuda = "none";
      said(f, i);
    } else if (key == "num gpus available" || key == "num gpus" || key == "gpus detected") {
      if (all_digits(value)) set_sees("tensorflow", value != "0", i);
    } else if (key == "gpu models and configuration" && is_none_word(value) && i + 1 < lines_.size() &&
               !trim(lines_[i + 1]).starts_with("GPU ")) {
      gpu_none_ = true;
    } else if (key == "gpu models and configuration" || key == "gpu type" || key.starts_with("gpu ")) {
      if (key == "gpu models and configuration" || key == "gpu type") {
        add_gpu(value, i);
      } else if (all_digits(key.substr(4))) {  // "GPU 1: NVIDIA A100-SXM4-80GB" (collect_env, nvidia-smi -L)
        add_gpu(u, i);
      }
    } else if (key == "nvidia driver version" || key == "driver version") {
      const std::string v = version_word(value);
      if (!v.empty() && r_.driver_version.empty()) r_.driver_version = v, machine(i);
    } else if (key == "os" || key == "platform" || key == "python platform") {
      bool wsl = false;
      const std::string family = os_family_of(value, &wsl);
      if (family.empty()) return;
      if (r_.os_family.empty()) r_.os_family = family;
      if (key == "os" && r_.os_name.empty()) r_.os_name = std::string(value.substr(0, 120));
      r_.wsl = r_.wsl || wsl;
      machine(i);
    } else if (key == "python version" || key == "python") {
      const std::string v = version_word(value);
      if (!v.empty() && r_.python_version.empty()) r_.python_version = v;
    }
  }

  std::vector<std::string_view> lines_;
  EnvReport r_;
  std::optional<size_t> tutorial_answer_;
  bool gpu_none_ = false;
  std::vector<std::string> csv_fields_;  // the query fields of an nvidia-smi --format=csv table being read
};

}  // namespace

EnvReport read_env_report(std::string_view text) { return Reader(text).read(); }

}  // namespace gpuready::parse
