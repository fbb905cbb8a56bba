// The HTML page of `gpuready report`: the same order as the doctor's console (verdict, what to do, the three CUDA
// versions), what verify measured (charts: better seen than read), then the facts a helper asks for (GPUs, driver,
// toolkits, libraries and the copy the loader picks, Python environments and frameworks), then the snapshot as JSON. Nothing is judged here.
#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "report/console.h"
#include "report/html.h"

namespace gpuready {
namespace {

using html::escape;

template <class T>
std::string fact_text(const Fact<T>& f) {
  if (!f.has()) return "unknown (" + f.why() + ")";
  if constexpr (std::is_same_v<T, std::string>) {
    return f.value();
  } else if constexpr (std::is_same_v<T, bool>) {
    return f.value() ? "yes" : "no";
  } else {
    return fmt::format("{}", f.value());
  }
}

std::string mib(const Fact<std::uint64_t>& b) {
  return b.has() ? fmt::format("{:.0f} MiB", static_cast<double>(b.value()) / (1 << 20)) : "unknown";
}

// A table: the header cells, then rows of cells (every cell escaped here).
std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::string o = "<div class=\"scroll\"><table><thead><tr>";
  for (const auto& h : head) o += "<th>" + escape(h) + "</th>";
  o += "</tr></thead><tbody>";
  for (const auto& r : rows) {
    o += "<tr>";
    for (const auto& c : r) o += "<td>" + escape(c) + "</td>";
    o += "</tr>";
  }
  return o + "</tbody></table></div>";
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string o;
  for (size_t i = 0; i < v.size(); ++i) o += (i ? sep : "") + v[i];
  return o;
}

constexpr const char* kStyle = R"css(
:root { --fg: #1b1f23; --bg: #ffffff; --muted: #57606a; --line: #d0d7de; --code: #f6f8fa;
        --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --info: #0969da; --bar: #0969da; --limit: #1b1f23; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --line: #30363d; --code: #161b22;
          --ok: #3fb950; --bad: #f85149; --warn: #d29922; --info: #58a6ff; --bar: #58a6ff; --limit: #e6edf3; }
}
@media print { :root { --fg: #000; --bg: #fff; --code: #fff; } section { break-inside: avoid-page; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; font: 15px/1.45 system-ui, sans-serif;
       color: var(--fg); background: var(--bg); overflow-wrap: break-word; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem;
  border-bottom: 1px solid var(--line); } h3 { font-size: 1rem; margin: 0 0 .3rem; }
.muted { color: var(--muted); }
.verdict { font-size: 1.3rem; font-weight: 700; } .ready { color: var(--ok); } .not-ready { color: var(--bad); }
.scroll { overflow-x: auto; } table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid var(--line); }
code, pre { font: .85rem/1.4 ui-monospace, monospace; background: var(--code); }
pre { padding: .5rem; overflow-x: auto; white-space: pre-wrap; border: 1px solid var(--line); border-radius: 4px; }
ol.findings { padding-left: 1.4rem; } li.finding { margin: 0 0 1rem; }
.sev { font-size: .75rem; font-weight: 700; text-transform: uppercase; padding: 0 .35rem; border-radius: 3px;
       border: 1px solid currentColor; }
.sev.error { color: var(--bad); } .sev.warn { color: var(--warn); } .sev.info { color: var(--info); }
figure { margin: 1rem 0; } figcaption { font-weight: 600; }
svg.chart { width: 100%; height: auto; max-width: 40rem; display: block; margin: .5rem 0 1rem; }
svg.chart text { font: 11px system-ui, sans-serif; fill: var(--fg); } svg.chart text.value { fill: var(--muted); }
svg.chart rect.bar { fill: var(--bar); } svg.chart rect.bar.fail { fill: var(--bad); }
svg.chart rect.bar.warn { fill: var(--warn); } svg.chart line.limit { stroke: var(--limit); stroke-width: 2;
  stroke-dasharray: 3 2; }
)css";

std::string finding_html(const doctor::Finding& f) {
  const std::string sev = doctor::severity_name(f.severity);
  std::string o = fmt::format("<li class=\"finding {}\" data-code=\"{}\"><h3><span class=\"sev {}\">{}</span> {} "
                              "<code class=\"code\">{}</code></h3>",
                              escape(sev), escape(f.code), escape(sev), escape(sev), escape(f.title), escape(f.code));
  if (!f.python.empty()) o += "<p class=\"muted\">Python: <code>" + escape(f.python) + "</code></p>";
  if (!f.evidence.empty()) {
    o += "<p>Seen:</p><ul class=\"evidence\">";
    for (const auto& e : f.evidence) o += "<li>" + escape(e) + "</li>";
    o += "</ul>";
  }
  if (!f.fix.empty()) {
    o += "<p>Do:</p><pre class=\"fix\"><code>";
    for (const auto& x : f.fix) o += escape(x) + "\n";
    o += "</code></pre>";
  }
  return o + "</li>";
}

// What verify measured, as charts: one per family of checks (copies, matrix products, cuDNN, memory), each bar
// against the limit the hardware should reach.
std::string measurements_html(const std::vector<Measurement>& ms) {
  std::vector<std::pair<std::string, html::BarChart>> charts;  // in the order verify ran them
  // The families whose numbers are rates worth comparing; the memory test's error count and nvcc's seconds stay
  // in the table.
  const std::map<std::string, std::string> titles = {{"copy", "Copies over the link against its limit"},
                                                     {"copy-memory", "Copies within the GPU's memory against its limit"},
                                                     {"gemm", "Matrix products against the datasheet peak"},
                                                     {"cudnn", "cuDNN convolutions"}};
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : ms) {
    rows.push_back({m.key, m.status, m.value.has() ? fmt::format("{:.4g} {}", m.value.value(), m.unit) : "",
                    m.limit.has() ? fmt::format("{:.4g} {}", m.limit.value(), m.unit) : "",
                    m.ratio.has() ? fmt::format("{:.2f}", m.ratio.value()) : "", m.detail});
    // A copy within the GPU's memory runs two orders of magnitude above the link: a chart of its own.
    const std::string family = m.key == "copy.d2d" ? "copy-memory" : m.key.substr(0, m.key.find('.'));
    const auto t = titles.find(family);
    if (!m.value.has() || m.unit.empty() || t == titles.end()) continue;
    const std::string key = family + "|" + m.unit;
    auto at = std::find_if(charts.begin(), charts.end(), [&](const auto& kc) { return kc.first == key; });
    if (at == charts.end()) at = charts.insert(charts.end(), {key, html::BarChart{}});
    auto& c = at->second;
    c.title = t->second + " (" + m.unit + ")";
    c.unit = m.unit;
    std::string text = fmt::format("{:.4g} {}", m.value.value(), m.unit);
    if (m.ratio.has()) text += fmt::format(" ({:.2f} of the limit)", m.ratio.value());
    c.bars.push_back({m.key.substr(m.key.find('.') == std::string::npos ? 0 : m.key.find('.') + 1), m.value.value(),
                      m.limit.value_or(0), text, m.status});
  }
  std::string o;
  for (const auto& [key, c] : charts)
    o += "<figure><figcaption>" + escape(c.title) + "</figcaption>" + html::svg_bar_chart(c) + "</figure>";
  return o + table({"check", "status", "value", "limit", "ratio", "why"}, rows);
}

// `gpuready bench --json`'s report: the epoch time and the images per second of each device that ran, as charts,
// the speedup (or why the GPU is not faster) in words, every run in a table.
std::string bench_html(const nlohmann::json& b) {
  auto num = [](const nlohmann::json& j, const char* k) -> std::optional<double> {
    return j.is_object() && j.contains(k) && j.at(k).is_number() ? std::optional<double>(j.at(k).get<double>())
                                                                  : std::nullopt;
  };
  auto str = [](const nlohmann::json& j, const char* k) {
    return j.is_object() && j.contains(k) && j.at(k).is_string() ? j.at(k).get<std::string>() : std::string();
  };
  std::string o = "<section id=\"bench\"><h2>The walkthrough's CNN: one epoch on the CPU and on the GPU</h2>";
  const nlohmann::json none = nlohmann::json::object();
  const auto& model = b.contains("model") ? b.at("model") : none;
  const auto& data = b.contains("dataset") ? b.at("dataset") : none;
  o += "<p class=\"muted\">" +
       escape(str(model, "layers") + "; input " + str(model, "input") + "; " + str(data, "source") + ", " +
              (data.contains("train") ? data.at("train").dump() : std::string("?")) + " training images") +
       "</p>";
  if (const auto speedup = num(b, "speedup"))
    o += "<p class=\"speedup\">" + escape(fmt::format("The GPU trains {:.1f}x as fast as the CPU.", *speedup)) + "</p>";
  if (const std::string why = str(b, "gpu_not_faster_because"); !why.empty())
    o += "<p class=\"why\">Why the GPU is not faster: " + escape(why) + "</p>";
  html::BarChart time{"Seconds per epoch (less is faster)", "s", {}}, rate{"Images per second", "images/s", {}};
  std::vector<std::vector<std::string>> rows;
  if (b.contains("runs") && b.at("runs").is_array())
    for (const auto& run : b.at("runs")) {
      const std::string device = str(run, "device"), engine = str(run, "engine"), error = str(run, "error");
      const auto epoch = num(run, "epoch_seconds"), first = num(run, "first_epoch_seconds");
      const auto ips = num(run, "images_per_second"), acc = num(run, "accuracy");
      rows.push_back({device, engine, str(run, "precision"), epoch ? fmt::format("{:.3f} s", *epoch) : "",
                      first ? fmt::format("{:.3f} s", *first) : "", ips ? fmt::format("{:.0f}", *ips) : "",
                      acc ? fmt::format("{:.1f} %", *acc * 100) : "", error});
      if (!error.empty() || !epoch || !ips) continue;
      const std::string label = device + (engine.empty() ? "" : ": " + engine);
      time.bars.push_back({label, *epoch, 0, fmt::format("{:.3f} s per epoch", *epoch), ""});
      rate.bars.push_back({label, *ips, 0, fmt::format("{:.0f} images/s", *ips), ""});
    }
  for (const auto* c : {&time, &rate})
    if (!c->bars.empty())
      o += "<figure><figcaption>" + escape(c->title) + "</figcaption>" + html::svg_bar_chart(*c) + "</figure>";
  o += table({"device", "engine", "precision", "epoch", "first epoch", "images/s", "held-out accuracy", "error"}, rows);
  o += "<script type=\"application/json\" id=\"gpuready-bench\">" + html::script_json(b) + "</script>";
  return o + "</section>\n";
}

}  // namespace

std::string default_report_name(const Snapshot& s, const std::string& when) {
  std::string host;
  for (char c : s.hostname.value_or("host"))
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') host += c;
  if (host.empty()) host = "host";
  if (host.size() > 64) host.resize(64);
  std::string date = when.substr(0, 10);
  for (char& c : date)
    if (!std::isdigit(static_cast<unsigned char>(c))) c = '-';
  return "gpuready-report-" + host + "-" + date + ".html";
}

std::string render_html_report(const doctor::Report& r, const Snapshot& s, const std::string& when,
                               const nlohmann::json* bench) {
  const std::string gpu = gpu_headline(s);
  const std::string host = s.hostname.value_or("this machine");
  const std::string osname = s.os.name.value_or(r.os);
  const std::string driver = s.nvidia.driver_version.has() ? "driver " + s.nvidia.driver_version.value() : "no driver";

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                  "'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">"
                  "<meta name=\"color-scheme\" content=\"light dark\">";
  o += "<title>gpuready report: " + escape(host) + "</title><style>" + kStyle + "</style></head><body>\n";
  o += "<header><h1>gpuready report: " + escape(host) + "</h1><p class=\"muted\">" +
       escape(osname + " · " + gpu + " · " + driver) + "<br>made " + escape(when) + " by gpuready " +
       escape(s.gpuready_version) + " (snapshot of " + escape(s.created_utc) + ")</p></header>\n";

  // The verdict, per framework.
  o += fmt::format("<section id=\"verdict\"><h2>Verdict</h2><p class=\"verdict {}\" data-ready=\"{}\">{}</p>",
                   r.ready ? "ready" : "not-ready", r.ready ? "true" : "false",
                   r.ready ? "READY for GPU deep learning" : "NOT READY for GPU deep learning");
  if (r.frameworks.empty()) {
    o += "<p>No TensorFlow, PyTorch or JAX found in the Python environments (<code>gpuready plan</code> says what "
         "to install).</p>";
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& v : r.frameworks)
      rows.push_back({v.name, v.version.empty() ? "not installed" : v.version, v.ready ? "ready" : "not ready",
                      join(v.blocking), v.python, v.check_summary});
    o += table({"framework", "version", "state", "stopped by", "Python", "imported (--deep)"}, rows);
  }
  o += "</section>\n";

  // What to do, in order; then what is worth knowing.
  o += "<section id=\"findings\"><h2>Do this, in order</h2>";
  int todo = 0;
  for (const auto& f : r.findings) todo += f.severity != doctor::Severity::info;
  if (todo == 0) o += "<p>Nothing to fix.</p>";
  o += "<ol class=\"findings\">";
  for (const auto& f : r.findings)
    if (f.severity != doctor::Severity::info) o += finding_html(f);
  o += "</ol>";
  if (todo < static_cast<int>(r.findings.size())) {
    o += "<h2>Worth knowing</h2><ol class=\"findings\" start=\"" + std::to_string(todo + 1) + "\">";
    for (const auto& f : r.findings)
      if (f.severity == doctor::Severity::info) o += finding_html(f);
    o += "</ol>";
  }
  o += "</section>\n";

  // The three CUDA versions.
  o += "<section id=\"cuda\"><h2>CUDA versions (three different things)</h2><dl>";
  o += "<dt>The driver runs CUDA up to (nvidia-smi's \"CUDA Version\")</dt><dd>" +
       escape(r.cuda.driver_newest.empty() ? std::string("unknown") : r.cuda.driver_newest) + "</dd>";
  o += "<dt>Toolkits installed</dt><dd>" +
       escape(r.cuda.toolkits.empty() ? std::string("none (frameworks' pip wheels bring their own CUDA)")
                                      : join(r.cuda.toolkits, "; ")) +
       "</dd>";
  o += "<dt>Frameworks built for</dt><dd>" +
       escape(r.cuda.frameworks.empty() ? std::string("no framework found") : join(r.cuda.frameworks, "; ")) +
       "</dd></dl></section>\n";

  if (!s.measurements.empty())
    o += "<section id=\"measured\"><h2>What verify measured</h2>" + measurements_html(s.measurements) +
         "</section>\n";

  if (bench) o += bench_html(*bench);

  // GPUs and the driver.
  o += "<section id=\"gpus\"><h2>GPUs and driver</h2>";
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& g : s.nvidia.gpus)
      rows.push_back({std::to_string(g.index), fact_text(g.name), fact_text(g.compute_capability),
                      mib(g.memory_total_bytes),
                      fmt::format("Gen{} x{} (max Gen{} x{})", g.pcie_gen_current.value_or(0),
                                  g.pcie_width_current.value_or(0), g.pcie_gen_max.value_or(0),
                                  g.pcie_width_max.value_or(0)),
                      fact_text(g.pci_bus_id)});
    if (!rows.empty()) o += table({"#", "GPU", "compute capability", "memory", "PCIe", "bus"}, rows);
    std::vector<std::vector<std::string>> pci;
    for (const auto& p : s.pci_gpus)
      pci.push_back({p.address, p.vendor, fmt::format("{:04x}:{:04x}", p.vendor_id, p.device_id),
                     fact_text(p.kernel_driver)});
    if (!pci.empty()) o += "<h3>On the PCI bus</h3>" + table({"address", "vendor", "id", "kernel driver"}, pci);
    o += table({"driver fact", "value"},
               {{"driver version", fact_text(s.nvidia.driver_version)},
                {"newest CUDA it runs", fact_text(s.nvidia.cuda_driver_version)},
                {"kernel module", fact_text(s.nvidia.kernel_module_version)},
                {"NVML library", fact_text(s.nvidia.nvml_library)},
                {"CUDA driver library", fact_text(s.nvidia.cuda_library)},
                {"CUDA_VISIBLE_DEVICES", fact_text(s.nvidia.cuda_visible_devices)}});
    std::vector<std::vector<std::string>> steps;
    for (const auto& st : s.nvidia.steps)
      steps.push_back({st.name, st.ok ? "ok" : "failed", st.code, st.message, fmt::format("{:.0f} ms", st.ms)});
    if (!steps.empty()) o += "<h3>How the driver answered</h3>" + table({"step", "", "code", "said", "took"}, steps);
  }
  o += "</section>\n";

  // Toolkits and libraries.
  o += "<section id=\"toolkits\"><h2>CUDA toolkits</h2>";
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : s.toolkits)
      rows.push_back({t.root, fact_text(t.version), join(t.found_by), t.nvcc.value_or("")});
    o += rows.empty() ? "<p>None found.</p>" : table({"folder", "version", "found by", "nvcc"}, rows);
  }
  o += "</section>\n<section id=\"libraries\"><h2>Libraries and the copy the loader picks</h2>";
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : s.libraries.resolutions)
      rows.push_back({l.soname, l.path.has() ? l.path.value() : "not found by the loader", l.via});
    if (!rows.empty()) o += table({"name a program asks for", "the file the loader maps", "through"}, rows);
    std::vector<std::vector<std::string>> copies;
    for (const auto& c : s.libraries.copies)
      copies.push_back({c.library, c.version.value_or(""), c.path, c.origin + (c.origin_detail.empty() ? "" : " (" +
                                                                                   c.origin_detail + ")")});
    o += copies.empty() ? "<p>No CUDA library found.</p>"
                        : "<h3>Every copy on this machine</h3>" +
                              table({"library", "version", "file", "where from"}, copies);
  }
  o += "</section>\n";

  // Python and the frameworks.
  o += "<section id=\"python\"><h2>Python environments</h2>";
  if (s.python.empty()) o += "<p>No Python interpreter found.</p>";
  for (const auto& env : s.python) {
    o += "<h3><code>" + escape(env.interpreter) + "</code></h3><p class=\"muted\">Python " +
         escape(fact_text(env.version)) + (env.error.empty() ? "" : " · " + escape(env.error)) + "</p>";
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : env.packages) {
      std::string details;
      for (const auto& [k, v] : p.details) details += (details.empty() ? "" : ", ") + k + " " + v;
      rows.push_back({p.name, p.version, details});
    }
    if (!rows.empty()) o += table({"package", "version", "built for"}, rows);
  }
  if (!s.frameworks.empty()) {
    o += "<h3>Imported and run (--deep)</h3>";
    std::vector<std::vector<std::string>> rows;
    for (const auto& k : s.frameworks)
      rows.push_back({k.framework, k.python, k.status, doctor::check_summary(k)});
    o += table({"framework", "Python", "status", "what it showed"}, rows);
  }
  o += "</section>\n";

  if (!s.notes.empty()) {
    o += "<section id=\"notes\"><h2>Notes from the probe</h2><ul>";
    for (const auto& n : s.notes) o += "<li>" + escape(n) + "</li>";
    o += "</ul></section>\n";
  }

  o += "<footer><p class=\"muted\">The snapshot this page shows is inside it: <code>gpuready doctor --replay "
       "this-page.html</code> diagnoses it again, with a newer gpuready too.</p></footer>\n";
  o += "<script type=\"application/json\" id=\"gpuready-snapshot\">" + html::script_json(snapshot_to_json(s)) +
       "</script>\n</body></html>\n";
  return o;
}

}  // namespace gpuready
