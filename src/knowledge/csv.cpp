// RFC 4180 CSV parsing for the knowledge tables.
#include "knowledge/csv.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

namespace gpuready::knowledge {

int CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

std::optional<CsvTable> parse_csv(std::string_view text, std::string* error) {
  auto fail = [&](int line, const std::string& what) -> std::optional<CsvTable> {
    if (error) *error = "line " + std::to_string(line) + ": " + what;
    return std::nullopt;
  };
  CsvTable t;
  std::vector<std::string> record;
  std::string cell;
  int line = 1;
  int record_line = 1;
  size_t i = 0;
  bool any = false;  // the current record has started
  auto end_record = [&]() -> bool {
    record.push_back(std::move(cell));
    cell.clear();
    const bool blank = record.size() == 1 && record[0].empty();
    if (!blank) {
      if (t.header.empty()) {
        t.header = std::move(record);
      } else {
        if (record.size() != t.header.size()) return false;
        t.rows.push_back(std::move(record));
        t.lines.push_back(record_line);
      }
    }
    record.clear();
    record.reserve(t.header.size());
    any = false;
    return true;
  };
  auto mismatch = [&] {
    return fail(record_line, std::to_string(record.size()) + " cells, the header has " +
                                 std::to_string(t.header.size()));
  };
  while (i < text.size()) {
    const char c = text[i];
    if (!any) {
      record_line = line;
      any = true;
    }
    if (c == '"' && cell.empty()) {
      // Quoted cell: up to the closing quote; "" is a quote; newlines are part of the cell.
      ++i;
      for (;;) {
        if (i >= text.size()) return fail(record_line, "a quoted cell is never closed");
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        // Up to the next quote in one piece.
        const size_t quote = std::min(text.find('"', i), text.size());
        // Its line breaks counted by memchr hops (a cell holds few of them).
        for (const char* p = text.data() + i, *const stop = text.data() + quote;
             (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(stop - p)))) != nullptr; ++p)
          ++line;
        cell.append(text.substr(i, quote - i));
        i = quote;
      }
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        return fail(line, "text after the closing quote of a cell");
      continue;
    }
    if (c == ',') {
      record.push_back(std::move(cell));
      cell.clear();
      ++i;
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++i;
      ++line;
      if (!end_record()) return mismatch();
    } else {
      // Up to the cell's end in one piece.
      // The bytes that end an unquoted cell, looked up in a table (one load per byte, not four compares).
      static constexpr auto ends_cell = [] {
        std::array<bool, 256> table{};
        for (const char e : {',', '\r', '\n', '"'}) table[static_cast<unsigned char>(e)] = true;
        return table;
      }();
      size_t stop = i;
      while (stop < text.size() && !ends_cell[static_cast<unsigned char>(text[stop])]) ++stop;
      if (stop < text.size() && text[stop] == '"') return fail(line, "a quote inside an unquoted cell");
      cell.append(text.substr(i, stop - i));
      i = stop;
    }
  }
  if (any && !end_record()) return mismatch();
  if (t.header.empty()) return fail(1, "no header row");
  return t;
}

}  // namespace gpuready::knowledge
