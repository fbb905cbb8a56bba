// Splitting a paste into the lines explain reads.
#include "explain/log_text.h"

#include <algorithm>
#include <cstring>

#include "parse/ascii.h"

namespace gpuready::explain {
namespace {

bool is_csi_final(char c) { return c >= 0x40 && c <= 0x7e; }

// "[0m", "[31;1m", "[K" at i (a colour sequence whose ESC byte was lost in copying): its length, or 0.
size_t bare_sgr_length(std::string_view s, size_t i) {
  if (s[i] != '[') return 0;
  size_t j = i + 1;
  while (j < s.size() && j - i <= 12 && (parse::is_digit(s[j]) || s[j] == ';')) ++j;
  if (j < s.size() && (s[j] == 'm' || (s[j] == 'K' && j == i + 1))) {
    // "[0m" but not "[m]" or a list index "[3]": the letter ends the sequence.
    if (s[j] == 'm' && j == i + 1) return 0;
    return j - i + 1;
  }
  return 0;
}

}  // namespace

std::string strip_terminal_sequences(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\x1b') {
      if (i + 1 < s.size() && s[i + 1] == '[') {  // CSI: parameters, then a final byte
        size_t j = i + 2;
        while (j < s.size() && !is_csi_final(s[j])) ++j;
        i = j < s.size() ? j + 1 : j;
      } else if (i + 1 < s.size() && s[i + 1] == ']') {  // OSC: up to BEL or ESC '\'
        size_t j = i + 2;
        while (j < s.size() && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
        i = j < s.size() ? (s[j] == '\x07' ? j + 1 : j + 2) : j;
      } else {
        i += 2;  // a two-byte escape
      }
      continue;
    }
    if (c == '[') {
      if (const size_t n = bare_sgr_length(s, i)) {
        i += n;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

// Typographic quotes (U+2018/2019/201C/201D), which chat tools, web pages and word processors put
// in place of the program's own ' and ", back to ASCII: the signatures are written for what the
// program printed.
static std::string plain_quotes(std::string s) {
  // Quotes escaped by a JSON or Go log ("custom device \"/dev/nvidia0\": lstat ..."): the
  // backslashes before a quote go, so the program's own words match.
  if (s.find("\\\"") != std::string::npos) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\') {
        size_t j = i;
        while (j < s.size() && s[j] == '\\') ++j;
        if (j < s.size() && s[j] == '"') {
          i = j - 1;  // drop the run of backslashes; the quote is copied next
          continue;
        }
      }
      out += s[i];
    }
    s = std::move(out);
  }
  if (s.find("\xe2\x80") == std::string::npos) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\xe2' && i + 2 < s.size() && s[i + 1] == '\x80') {
      const char c = s[i + 2];
      if (c == '\x98' || c == '\x99') {
        out += '\'';
        i += 2;
        continue;
      }
      if (c == '\x9c' || c == '\x9d') {
        out += '"';
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

namespace {

// A terminal that wraps a long record cuts it at its width, mid-word: "... unsatisfied condi" / "tion: cuda >=
// 9.0". Two or more consecutive lines of exactly the same width (>= 80 bytes: a terminal's columns; mail and
// forums word-wrap near 72), then a line no wider, are such a record: they become one line, numbered as the
// first. Not when a later line starts as the first does (records of one log: a date, a logger, a host), nor
// for table rows (nvidia-smi's "|" and "+" borders) or lines of one repeated character.
void join_terminal_wraps(std::vector<LogLine>& lines) {
  auto wrappable = [](const LogLine& l) {
    if (l.width < 80 || l.text.empty() || l.text[0] == '|' || l.text[0] == '+') return false;
    return l.text.find_first_not_of(l.text[0]) != std::string::npos;
  };
  bool any = false;  // most logs have none: then nothing is copied
  for (size_t i = 0; i + 1 < lines.size() && !any; ++i)
    any = lines[i].width >= 80 && lines[i + 1].width == lines[i].width;
  if (!any) return;
  std::vector<LogLine> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size();) {
    size_t j = i + 1;  // the run of equal widths is [i, j)
    // Line k goes on from line k - 1 of the paste, and does not start as line i does.
    auto continues = [&](size_t k) {
      return lines[k].number == lines[k - 1].number + 1 && lines[k].text.compare(0, 4, lines[i].text, 0, 4) != 0;
    };
    if (wrappable(lines[i]))
      while (j < lines.size() && lines[j].width == lines[i].width && wrappable(lines[j]) && continues(j)) ++j;
    const bool tail = j < lines.size() && lines[j].width <= lines[i].width && continues(j);
    if (j - i < 2 || !tail) {
      for (; i < j; ++i) out.push_back(std::move(lines[i]));
      continue;
    }
    LogLine joined = std::move(lines[i]);
    for (size_t k = i + 1; k <= j; ++k) {
      if (lines[k].indented) joined.text += ' ';  // the cut fell before a space the trim took away
      joined.text += lines[k].text;
    }
    joined.lower = parse::ascii_lower(joined.text);
    joined.width = joined.text.size();
    out.push_back(std::move(joined));
    i = j + 1;
  }
  lines = std::move(out);
}

}  // namespace

std::vector<LogLine> split_log(std::string_view text) {
  std::vector<LogLine> lines;
  lines.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  size_t number = 1;
  size_t start = 0;
  auto emit = [&](size_t end) {
    std::string_view raw = text.substr(start, end - start);
    const bool has_escape = raw.find('\x1b') != std::string_view::npos ||
                            (raw.find('[') != std::string_view::npos &&
                             (raw.find("[0m") != std::string_view::npos || raw.find("m[") != std::string_view::npos));
    std::string stripped;
    if (has_escape) stripped = strip_terminal_sequences(raw);
    const std::string_view trimmed = parse::trim(has_escape ? std::string_view(stripped) : raw);
    if (!trimmed.empty()) {
      LogLine l;
      l.text = plain_quotes(std::string(trimmed));
      l.lower = parse::ascii_lower(l.text);
      l.number = number;
      l.indented = raw.front() == ' ' || raw.front() == '\t';
      l.width = raw.size();
      lines.push_back(std::move(l));
    }
  };
  // Line ends found with memchr: '\n' ends a line; a '\r' inside one (Keras' progress bar) ends a
  // piece of it, shown with the same line number.
  while (start < text.size()) {
    const void* nl = std::memchr(text.data() + start, '\n', text.size() - start);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    for (const void* cr; (cr = std::memchr(text.data() + start, '\r', end - start)) != nullptr;) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(cr) - text.data());
      emit(at);
      start = at + 1;
    }
    emit(end);
    start = end + 1;
    ++number;
  }
  join_terminal_wraps(lines);
  return lines;
}

}  // namespace gpuready::explain
