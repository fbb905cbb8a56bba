// `gpuready explain`: paste an error (as arguments, --file, or on standard input) and get the
// known failure it is, the real cause and the fix, with this machine's facts where they help.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "doctor/explain.h"
#include "doctor/pasted_env.h"
#include "probe/probe.h"

namespace gpuready::cli {
namespace {

struct ExplainCmdOptions {
  std::vector<std::string> text;
  std::string file;
  bool json = false;
  bool no_probe = false;
};

std::string render(const std::vector<doctor::ExplainMatch>& matches) {
  std::string o;
  const size_t problems =
      static_cast<size_t>(std::count_if(matches.begin(), matches.end(), [](const auto& m) { return !m.harmless; }));
  if (problems == 0) {
    if (matches.empty())
      o += "Not recognised: this text matches none of gpuready's known failures, codes or library errors.\n";
    else
      o += "No failure found: every line recognised here needs no action.\n";
    o += "  gpuready doctor                 # what is wrong with this machine, with fixes\n"
         "  gpuready probe --save me.json   # every fact, to send to whoever helps you\n";
  }
  auto block = [&](const doctor::ExplainMatch& m, const std::string& head) {
    o += fmt::format("{}{} [{}]", head, m.title, m.code);
    if (m.line) o += fmt::format(" (line {}{})", m.line, m.count > 1 ? fmt::format(", and {} more", m.count - 1) : "");
    o += "\n   cause: " + m.cause + "\n";
    for (const auto& e : m.evidence) o += "   seen: " + e + "\n";
    if (!m.fix.empty()) o += "   fix:\n";
    for (const auto& f : m.fix) o += "     " + f + "\n";
  };
  int n = 0;
  for (const auto& m : matches) {
    if (m.harmless) continue;
    if (m.root_cause) {
      block(m, "Root cause: ");
    } else {
      if (n == 0) o += problems > 1 ? "\nAlso in this text (often consequences of the root cause):\n" : "\n";
      block(m, fmt::format("{}. ", ++n));
    }
  }
  // Harmless lines in one place, one line each: they need no action.
  size_t harmless = 0;
  for (const auto& m : matches) harmless += m.harmless ? m.count : 0;
  if (harmless) {
    o += fmt::format("\n{} harmless line{} (no action needed):\n", harmless, harmless == 1 ? "" : "s");
    for (const auto& m : matches)
      if (m.harmless) o += fmt::format("   {} [{}]{}\n", m.title, m.code, m.count > 1 ? fmt::format(" x{}", m.count) : "");
  }
  return o;
}

int run_explain_cmd(const ExplainCmdOptions& o) {
  std::string text;
  if (!o.file.empty()) {
    std::string why;
    auto data = read_user_file(real_os().fs, o.file, kMaxExplainBytes, &why);
    if (!data) {
      std::fprintf(stderr, "gpuready explain: cannot read %s\n", why.c_str());
      return kExitUsage;
    }
    text = std::move(*data);
  } else if (!o.text.empty() && !(o.text.size() == 1 && o.text[0] == "-")) {  // "-": standard input, as usual
    for (const auto& t : o.text) text += t + "\n";
  } else {
    if (stdout_wants_color()) std::fputs("Paste the error, then Ctrl-D (Ctrl-Z Enter on Windows):\n", stderr);
    // At most kMaxExplainBytes: `gpuready explain < /dev/zero` stops with words, not out of memory.
    char buf[65536];
    while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
      text.append(buf, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > kMaxExplainBytes) {
        std::fprintf(stderr, "gpuready explain: the input is longer than %zu bytes; pass the part with the error\n",
                     kMaxExplainBytes);
        return kExitUsage;
      }
    }
  }
  std::optional<Snapshot> snap;
  if (!o.no_probe) {
    const Os& os = real_os();
    ProbeOptions opts = isolated_probe_options(os, 10);
    opts.cuda_init = CudaInitPolicy::never;
    snap = run_probe(os, opts);
  }
  const auto matches =
      doctor::explain_paste(doctor::Explainer::embedded(), knowledge::Compat::embedded(), text, snap ? &*snap : nullptr);
  if (o.json) {
    const std::string out = doctor::explain_to_json(matches).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    std::fputs(render(matches).c_str(), stdout);
  }
  // 0: a failure was recognised (its cause and fix are printed); 1: nothing, or only harmless lines.
  const bool failure = std::any_of(matches.begin(), matches.end(), [](const auto& m) { return !m.harmless; });
  return failure ? kExitOk : kExitProblems;
}

}  // namespace

void setup_explain(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExplainCmdOptions>();
  CLI::App* sub = app.add_subcommand(
      "explain", "Paste an error (arguments, --file, or standard input): the known failure it is, its cause and the fix");
  sub->add_option("text", o->text, "The error text (quote it); without it (or with -), --file or standard input is read");
  sub->add_option("--file", o->file, "Read the error text from FILE (a log)")->type_name("FILE");
  sub->add_flag("--json", o->json, "Print the matches as JSON (schema gpuready.explain/1)");
  sub->add_flag("--no-probe", o->no_probe, "Do not look at this machine (only the text is used)");
  sub->callback([o, exit_code] { *exit_code = run_explain_cmd(*o); });
}

}  // namespace gpuready::cli
