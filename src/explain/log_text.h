// A pasted log, as explain reads it: lines split at "\n", "\r\n" and at a lone "\r" (Keras and
// tqdm redraw their progress bar with "\r", so an error printed after one is a line of its own),
// terminal colour sequences removed, typographic quotes made ASCII, and nothing cut: a line of any length is read whole.
// A record a terminal wrapped at its width (two or more lines of exactly that width, then the rest) is
// one line again.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuready::explain {

struct LogLine {
  std::string text;   // without the line break and colour sequences; never cut
  std::string lower;  // text with ASCII letters lowered (what the literal searches read)
  size_t number = 0;  // 1-based line of the paste ("\r" segments share their line's number)
  bool indented = false;  // the raw line began with white space (a traceback's code, a continued list)
  size_t width = 0;       // the raw line's length in bytes (a terminal's fixed-width wrap shows as equal widths)
  // Bytes explain put into `text` at `added_at` to read the line as what it is (an NCCL warning that
  // PyTorch repeats after "Last error:" without its "NCCL WARN "); evidence shows the line without them.
  size_t added_at = 0;
  size_t added = 0;
};

// The lines of `text` that hold something other than white space.
std::vector<LogLine> split_log(std::string_view text);

// `s` without ANSI/VT100 escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL/ST", and the
// bare "[0m"-style remnants that remain when a log was copied without its ESC bytes).
std::string strip_terminal_sequences(std::string_view s);

}  // namespace gpuready::explain
