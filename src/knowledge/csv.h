// CSV as the knowledge tables under data/ write it: RFC 4180 (commas, double-quoted cells with
// "" for a quote, CRLF or LF), one header row. A pure parser that reports the first error
// with its line instead of throwing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::knowledge {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // every row has header.size() cells
  std::vector<int> lines;                      // source line of each row (for messages)

  // Index of a column, or -1.
  [[nodiscard]] int column(std::string_view name) const;
};

// Parses text; on failure returns nullopt and sets *error ("line 12: 5 cells, the header has 6").
std::optional<CsvTable> parse_csv(std::string_view text, std::string* error);

}  // namespace gpuready::knowledge
