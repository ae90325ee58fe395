// HTML formatting of a ReportModel (see report.h): one document with
// inline CSS, a small inline script (tabs, graph highlighting) and the
// graphs' inline SVG; nothing is fetched. Every text is escaped; tensor and
// segment names in diagnostics link to the graph's SVG element ids.
// O(size of the model + the diffs' scripts).
#include <set>
#include <sstream>

#include "viz/markup.h"
#include "viz/report.h"
#include "viz/text_diff.h"

namespace fc::viz {
namespace {

const char* kCss = R"CSS(
:root { --fg:#1d2330; --muted:#5b6475; --line:#d9dee8; --bg:#f6f7fa; --card:#fff; --red:#c62828;
        --green:#1b7f3a; --amber:#9a6700; --blue:#2457a6; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif; color:var(--fg);
       background:var(--bg); }
header { background:#1f2a3d; color:#fff; padding:18px 28px 14px; }
header h1 { margin:0; font-size:21px; font-weight:600; }
header .meta { color:#c5cee0; margin-top:4px; font-size:13px; }
nav { position:sticky; top:0; z-index:5; background:#fff; border-bottom:1px solid var(--line); padding:8px 28px; }
nav a { margin-right:18px; color:var(--blue); text-decoration:none; font-weight:500; }
main { padding:8px 28px 40px; max-width:1500px; }
main, section.block, .diag, .summary-grid > div { min-width:0; overflow-wrap:anywhere; }
section.block { background:var(--card); border:1px solid var(--line); border-radius:8px; margin:18px 0;
                padding:14px 18px; }
h2 { font-size:17px; margin:0 0 10px; }
h3 { font-size:14px; margin:14px 0 6px; }
.badge { display:inline-block; border-radius:10px; padding:1px 9px; font-size:12px; font-weight:600;
         vertical-align:1px; margin-left:6px; }
.badge.fail { background:#fde7e7; color:var(--red); border:1px solid #f3b9b9; }
.badge.ok { background:#e3f4e8; color:var(--green); border:1px solid #b4dfc1; }
.badge.info { background:#eef1f7; color:var(--muted); border:1px solid var(--line); }
.summary-grid { display:grid; grid-template-columns: 180px minmax(0, 1fr); gap:6px 14px; }
header .verdict { margin-left:10px; font-size:15px; }
.summary-grid .k { color:var(--muted); }
ul.plain { margin:4px 0; padding-left:18px; }
code, pre, .mono { font-family: ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace;
                   font-size:12.5px; }
pre { background:#f8f9fb; border:1px solid var(--line); border-radius:6px; padding:8px 10px; margin:6px 0;
      white-space:pre-wrap; overflow-wrap:anywhere; }
.legend span { margin-right:16px; font-size:12.5px; color:var(--muted); }
.legend .red { color:var(--red); font-weight:600; } .legend .green { color:var(--green); font-weight:600; }
.tabs button { border:1px solid var(--line); background:#f3f5f9; padding:5px 12px; border-radius:6px 6px 0 0;
               cursor:pointer; font:inherit; margin-right:4px; }
.tabs button.active { background:#fff; border-bottom-color:#fff; font-weight:600; }
.graph-panel { border:1px solid var(--line); border-radius:0 6px 6px 6px; padding:8px; overflow:auto;
               max-height:88vh; background:#fff; }
.graph-panel.hidden { display:none; }
.graph-panel svg { display:block; margin:0 auto; }
.graph-panel.fit svg { max-width:100%; height:auto; }
.graph-panel svg text { font-size-adjust:none; }
.zoom { float:right; font-size:12.5px; }
.note { color:var(--muted); font-style:italic; }
g.hl > polygon, g.hl > ellipse, g.hl > path, g.hl a > polygon, g.hl a > ellipse, g.hl a > path {
  stroke:#e040fb !important; stroke-width:4px !important; }
.step { border:1px solid var(--line); border-radius:6px; margin:6px 0; }
.step > .head { padding:6px 10px; background:#f3f5f9; border-radius:6px; cursor:pointer; color:var(--fg); margin:0; }
.step[open] > .head { border-bottom:1px solid var(--line); border-radius:6px 6px 0 0; }
.step.failing { border-color:#e59a9a; }
.step.failing > .head { background:#fdecec; }
.step .body { padding:4px 10px 8px; }
.step .num { color:var(--muted); font-weight:600; margin-right:6px; }
.step .pass { font-weight:600; }
table.diff { border-collapse:collapse; width:100%; margin:6px 0; table-layout:fixed; }
table.diff td { padding:0 6px; vertical-align:top; white-space:pre-wrap; overflow-wrap:anywhere;
                font-family:ui-monospace,Menlo,Consolas,monospace; font-size:12.5px; }
table.diff td.ln { color:#98a1b3; text-align:right; width:4.5em; user-select:none; }
table.diff td.sg { width:1.5em; color:#98a1b3; user-select:none; }
table.diff tr.diff-add td { background:#e6f6ea; } table.diff tr.diff-add td.sg { color:var(--green); }
table.diff tr.diff-del td { background:#fdeaea; } table.diff tr.diff-del td.sg { color:var(--red); }
table.diff tr.diff-gap td { color:#98a1b3; background:#f6f7fa; font-style:italic; }
.diffstat { font-size:12px; color:var(--muted); margin-left:6px; }
.diffstat .a { color:var(--green); } .diffstat .r { color:var(--red); }
details > summary { cursor:pointer; color:var(--blue); margin:4px 0; }
.diag { border-left:4px solid var(--red); background:#fff8f8; padding:8px 12px; margin:10px 0; border-radius:0 6px 6px 0; }
.diag.warning { border-left-color:var(--amber); background:#fffbf0; }
.diag.note { border-left-color:var(--muted); background:#f8f9fb; }
.diag .hdr { font-weight:600; }
.diag .code { color:var(--red); margin-right:6px; }
.diag .loc { color:var(--muted); font-size:12.5px; }
.diag ul { margin:6px 0 0; padding-left:18px; }
.diag li.fix { color:var(--green); }
.diag .kind { color:var(--muted); font-weight:600; }
a.node-link { color:var(--blue); text-decoration:none; border-bottom:1px dotted var(--blue); }
table.num { border-collapse:collapse; margin:8px 0; max-width:100%; }
table.num th, table.num td { border:1px solid var(--line); padding:4px 8px; text-align:left; font-size:13px; }
table.num th { background:#f3f5f9; }
table.num td.pass { color:var(--green); font-weight:600; } table.num td.fail { color:var(--red); font-weight:600; }
.fix-action { margin:6px 0; }
.fix-action .name { color:var(--green); font-weight:600; }
footer { color:var(--muted); font-size:12px; padding:0 28px 24px; }
)CSS";

const char* kScript = R"JS(
(function () {
  function showPanelOf(el) {
    var panel = el.closest ? el.closest('.graph-panel') : null;
    if (panel && panel.classList.contains('hidden')) selectTab(panel.id);
  }
  function selectTab(id) {
    document.querySelectorAll('.graph-panel').forEach(function (p) { p.classList.toggle('hidden', p.id !== id); });
    document.querySelectorAll('.tabs button').forEach(function (b) { b.classList.toggle('active', b.dataset.tab === id); });
  }
  function highlight(id) {
    document.querySelectorAll('g.hl').forEach(function (g) { g.classList.remove('hl'); });
    var el = document.getElementById(id);
    if (!el) return false;
    el.classList.add('hl');
    showPanelOf(el);
    el.scrollIntoView({block: 'center', inline: 'center'});
    return true;
  }
  document.querySelectorAll('.tabs button').forEach(function (b) {
    b.addEventListener('click', function () { selectTab(b.dataset.tab); });
  });
  document.querySelectorAll('a.node-link').forEach(function (a) {
    a.addEventListener('click', function (ev) { if (highlight(a.dataset.node)) ev.preventDefault(); });
  });
  var zoom = document.getElementById('zoom-toggle');
  if (zoom) zoom.addEventListener('click', function () {
    var fit = false;
    document.querySelectorAll('.graph-panel').forEach(function (p) { fit = p.classList.toggle('fit'); });
    zoom.textContent = fit ? 'actual size' : 'fit to width';
  });
  document.documentElement.dataset.ready = '1';
})();
)JS";

std::string esc(std::string_view s) { return escapeHtml(s); }

class Html {
 public:
  explicit Html(const ReportModel& m) : m_(m) {
    for (const std::string& n : m.tensor_names) tensors_.insert(n);
    has_graph_ = !m.graphs.empty() && !m.graphs.front().svg.empty();
  }

  std::string render() {
    os_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<title>fusecheck report: " << esc(title()) << " — " << esc(verdict()) << "</title>\n<style>"
        << kCss << "</style>\n</head>\n<body>\n";
    header();
    os_ << "<nav><a href=\"#summary\">Summary</a><a href=\"#graph\">Graph</a><a href=\"#steps\">Steps</a>"
        << "<a href=\"#fix\">Fix</a><a href=\"#diagnostics\">Diagnostics</a><a "
           "href=\"#numerics\">Numerics</a></nav>\n"
        << "<main>\n";
    summary();
    graph();
    stepsSection();
    fix();
    diagnostics();
    numerics();
    os_ << "</main>\n<footer>Generated by fusecheck " << esc(m_.version)
        << ". Self-contained: no network access is needed to view this file.</footer>\n<script>" << kScript
        << "</script>\n</body>\n</html>\n";
    return os_.str();
  }

 private:
  const ReportModel& m_;
  std::ostringstream os_;
  std::set<std::string> tensors_;
  bool has_graph_ = false;

  std::string title() const { return m_.name.empty() ? m_.file : m_.name; }
  std::string verdict() const { return m_.verdict.empty() ? std::string("clean") : m_.verdict; }

  // Escapes `text`, writing `...` spans as code (prose from the model
  // quotes commands that way).
  static std::string prose(std::string_view text) {
    std::string out;
    bool code = false;
    size_t i = 0;
    while (i < text.size()) {
      size_t tick = text.find('`', i);
      std::string_view part =
          text.substr(i, tick == std::string_view::npos ? std::string_view::npos : tick - i);
      out += esc(part);
      if (tick == std::string_view::npos) break;
      out += code ? "</code>" : "<code>";
      code = !code;
      i = tick + 1;
    }
    if (code) out += "</code>";
    return out;
  }

  size_t errorCount() const {
    size_t n = 0;
    for (const Diagnostic& d : m_.diagnostics) n += d.severity == Severity::Error;
    return n;
  }

  // Escapes `text`, linking tensor names and "segment N" to the graph.
  std::string linkify(std::string_view text) const {
    std::string out;
    size_t i = 0;
    auto word = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    while (i < text.size()) {
      if (!word(text[i])) {
        out += esc(text.substr(i, 1));
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && word(text[j])) ++j;
      std::string_view w = text.substr(i, j - i);
      if (has_graph_ && tensors_.count(std::string(w))) {
        std::string id = "tensor_" + safeId(w);
        out += "<a class=\"node-link\" href=\"#" + id + "\" data-node=\"" + id + "\">" + esc(w) + "</a>";
      } else if (has_graph_ && w == "segment" && j + 1 < text.size() && text[j] == ' ' &&
                 text[j + 1] >= '0' && text[j + 1] <= '9') {
        size_t k = j + 1;
        while (k < text.size() && text[k] >= '0' && text[k] <= '9') ++k;
        std::string_view num = text.substr(j + 1, k - j - 1);
        std::string id = "segment_" + std::string(num);
        out += "<a class=\"node-link\" href=\"#" + id + "\" data-node=\"" + id + "\">segment " + esc(num) +
               "</a>";
        j = k;
      } else {
        out += esc(w);
      }
      i = j;
    }
    return out;
  }

  void header() {
    os_ << "<header><h1>fusecheck report: " << esc(title()) << "<span class=\"badge verdict "
        << (errorCount() ? "fail" : "ok") << "\" id=\"verdict\">" << esc(verdict())
        << "</span></h1><div class=\"meta\">" << esc(m_.file) << " · " << esc(m_.era) << " · "
        << esc(m_.order) << "</div></header>\n";
  }

  const ReportStep* failingStep() const {
    for (const ReportStep& s : m_.steps)
      if (s.failing) return &s;
    return nullptr;
  }

  void summary() {
    size_t errors = errorCount();
    os_ << "<section class=\"block\" id=\"summary\"><h2>Summary"
        << (errors ? "<span class=\"badge fail\">FAIL</span>" : "<span class=\"badge ok\">CLEAN</span>")
        << "</h2>\n<div class=\"summary-grid\">\n";
    os_ << "<div class=\"k\">nvFuser</div><div>" << esc(m_.era) << " — " << esc(m_.order) << "</div>\n";
    os_ << "<div class=\"k\">segments</div><div><ul class=\"plain\">";
    for (const std::string& s : m_.segments) os_ << "<li>" << linkify(s) << "</li>";
    os_ << "</ul></div>\n";
    os_ << "<div class=\"k\">diagnostics</div><div>";
    if (m_.diagnostics.empty()) os_ << "none";
    for (size_t i = 0; i < m_.diagnostics.size(); ++i) {
      const Diagnostic& d = m_.diagnostics[i];
      os_ << "<div><a href=\"#diag-" << i << "\">" << esc(severityName(d.severity)) << "["
          << esc(diagCodeInfo(d.code).id) << "]</a> " << linkify(d.message) << "</div>";
    }
    os_ << "</div>\n";
    if (const ReportStep* s = failingStep())
      os_ << "<div class=\"k\">fails at</div><div><a href=\"#step-" << s->index << "\">step " << s->index
          << ": " << esc(s->pass) << " (" << esc(s->scope) << ")</a></div>\n";
    os_ << "<div class=\"k\">fix</div><div>";
    if (m_.fix_changed) {
      for (const FixAction& a : m_.fix_actions)
        os_ << "<div><span class=\"mono\">fix[" << esc(a.fix) << "]</span> " << linkify(a.change) << "</div>";
      os_ << "<div>re-check of " << esc(m_.fixed_name) << ": "
          << (m_.fixed_clean ? "<span class=\"badge ok\">clean</span>"
                             : "<span class=\"badge fail\">still failing</span>")
          << " — <a href=\"#fix\">see the diff</a></div>";
    } else {
      os_ << (errors ? "no fix applies" : "nothing to fix");
    }
    os_ << "</div>\n<div class=\"k\">numerics</div><div>";
    if (m_.run)
      os_ << (m_.run->passed ? "<span class=\"badge ok\">PASS</span>"
                             : "<span class=\"badge fail\">FAIL</span>")
          << " <a href=\"#numerics\">" << esc(m_.run->source) << "</a>";
    else
      os_ << "<span class=\"note\">" << prose(m_.run_note.empty() ? "not run" : m_.run_note) << "</span>";
    if (m_.run && !m_.run_note.empty()) os_ << " <span class=\"note\">" << prose(m_.run_note) << "</span>";
    os_ << "</div>\n</div></section>\n";
  }

  void graph() {
    os_ << "<section class=\"block\" id=\"graph\"><h2>Graph</h2>\n";
    os_ << "<div class=\"legend\"><span>boxes: tensors (printed domain)</span><span>ellipses: exprs</span>"
        << "<span>clusters: segments (kind · executor)</span><span class=\"red\">red: an axis whose extent "
           "the "
           "segment cannot evaluate</span><span class=\"red\">dashed red: provenance (birth → failing "
           "tensor)</span><span class=\"green\">green: an edge repaired by a recorded fix</span></div>\n";
    if (has_graph_)
      os_ << "<div class=\"zoom\"><button type=\"button\" id=\"zoom-toggle\">fit to width</button></div>";
    if (m_.graphs.size() > 1) {
      os_ << "<div class=\"tabs\">";
      for (size_t i = 0; i < m_.graphs.size(); ++i)
        os_ << "<button type=\"button\" data-tab=\"graph-panel-" << i << "\""
            << (i == 0 ? " class=\"active\"" : "") << ">" << esc(m_.graphs[i].caption) << "</button>";
      os_ << "</div>\n";
    }
    for (size_t i = 0; i < m_.graphs.size(); ++i) {
      const ReportGraph& g = m_.graphs[i];
      // Actual size by default (readable text); the panel scrolls inside itself, never the page.
      os_ << "<div class=\"graph-panel" << (i ? " hidden" : "") << "\" id=\"graph-panel-" << i << "\">";
      if (m_.graphs.size() == 1) os_ << "<div class=\"note\">" << esc(g.caption) << "</div>";
      if (!g.svg.empty()) os_ << g.svg;
      if (!g.note.empty()) os_ << "<p class=\"note\">" << prose(g.note) << "</p>";
      os_ << "</div>\n";
    }
    os_ << "</section>\n";
  }

  void diffTable(const TextDiff& d, size_t context = 3) {
    if (d.identical()) {
      os_ << "<p class=\"note\">no change</p>\n";
      return;
    }
    std::vector<DiffHunk> hunks = diffHunks(d, context);
    os_ << "<table class=\"diff\">";
    size_t shown_to = 0;
    for (const DiffHunk& h : hunks) {
      if (h.begin > shown_to)
        os_ << "<tr class=\"diff-gap\"><td class=\"ln\"></td><td class=\"ln\"></td><td "
               "class=\"sg\"></td><td>⋯ "
            << (h.begin - shown_to) << " unchanged line" << (h.begin - shown_to == 1 ? "" : "s")
            << "</td></tr>";
      for (size_t t = h.begin; t < h.end; ++t) {
        const DiffLine& l = d.script[t];
        const char* cls = l.op == DiffOp::Insert   ? "diff-add"
                          : l.op == DiffOp::Delete ? "diff-del"
                                                   : "diff-ctx";
        const char* sg = l.op == DiffOp::Insert ? "+" : l.op == DiffOp::Delete ? "−" : "";
        std::string_view text = l.op == DiffOp::Insert ? d.b[l.b] : d.a[l.a];
        os_ << "<tr class=\"" << cls << "\"><td class=\"ln\">"
            << (l.a != DiffLine::npos ? std::to_string(l.a + 1) : "") << "</td><td class=\"ln\">"
            << (l.b != DiffLine::npos ? std::to_string(l.b + 1) : "") << "</td><td class=\"sg\">" << sg
            << "</td><td>" << esc(text) << "</td></tr>";
      }
      shown_to = h.end;
    }
    if (shown_to < d.script.size())
      os_ << "<tr class=\"diff-gap\"><td class=\"ln\"></td><td class=\"ln\"></td><td class=\"sg\"></td><td>⋯ "
          << (d.script.size() - shown_to) << " unchanged line" << (d.script.size() - shown_to == 1 ? "" : "s")
          << "</td></tr>";
    os_ << "</table>\n";
  }

  void diffStat(const TextDiff& d) {
    os_ << "<span class=\"diffstat\"><span class=\"a\">+" << d.added << "</span> <span class=\"r\">−"
        << d.removed << "</span></span>";
  }

  void stepsSection() {
    os_ << "<section class=\"block\" id=\"steps\"><h2>Pipeline steps</h2>\n<p>Each pass's printed state, in "
           "the "
           "order "
        << esc(m_.era)
        << " runs them. A step is compared with the previous step of the same pass (the same kind of state: "
           "bindings with bindings, concretizations with concretizations), so a segment's view shows what "
           "it lost against the whole fusion's.</p>\n";
    for (const ReportStep& s : m_.steps) {
      // Steps are collapsed to one line each, except the one where the era fails.
      os_ << "<details class=\"step" << (s.failing ? " failing" : "") << "\" id=\"step-" << s.index
          << "\" data-pass=\"" << esc(s.pass) << "\" data-scope=\"" << esc(s.scope) << "\""
          << (s.failing ? " open" : "") << ">\n<summary class=\"head\"><span class=\"num\">#" << s.index
          << "</span><span class=\"pass\">" << esc(s.pass) << "</span> · " << esc(s.scope);
      if (s.failing) os_ << "<span class=\"badge fail\">fails here</span>";
      std::optional<TextDiff> d;
      if (s.previous && *s.previous >= 1 && *s.previous <= m_.steps.size()) {
        const ReportStep& prev = m_.steps[*s.previous - 1];
        d = diffText(prev.text, s.text);
        os_ << " <span class=\"diffstat\">vs #" << *s.previous << " (" << esc(prev.scope) << ")</span>";
        diffStat(*d);
      } else {
        os_ << "<span class=\"badge info\">first " << esc(s.pass) << " step</span>";
      }
      os_ << "</summary>\n<div class=\"body\">";
      if (s.failing)
        os_ << "<p><a href=\"#diagnostics\">the diagnostic</a> explains why this step fails.</p>";
      if (d) {
        os_ << "<div class=\"step-diff\">";
        diffTable(*d);
        os_ << "</div><details><summary>printed state after this step</summary><pre>" << esc(s.text)
            << "</pre></details>";
      } else {
        os_ << "<pre>" << esc(s.text) << "</pre>";
      }
      os_ << "</div></details>\n";
    }
    if (m_.steps.empty()) os_ << "<p class=\"note\">the pipeline recorded no steps</p>\n";
    os_ << "</section>\n";
  }

  void fix() {
    os_ << "<section class=\"block\" id=\"fix\"><h2>The fix</h2>\n";
    if (!m_.fix_changed) {
      os_ << "<p class=\"note\">" << (errorCount() ? "no fix applies to these findings" : "nothing to fix")
          << "</p>\n";
      for (const Diagnostic& d : m_.fix_refusals) diagnostic(d, std::string());
      os_ << "</section>\n";
      return;
    }
    for (const FixAction& a : m_.fix_actions)
      os_ << "<div class=\"fix-action\"><span class=\"name mono\">fix[" << esc(a.fix) << "]</span> "
          << linkify(a.change) << "<br><span class=\"note\">obligation: " << esc(a.obligation)
          << "</span></div>\n";
    for (const Diagnostic& d : m_.fix_refusals) diagnostic(d, std::string());
    os_ << "<p><code>fusecheck fix</code> records the repair in the repro (segmentation and edge handling; "
           "the complete "
           "fusion is unchanged) and writes <span class=\"mono\">"
        << esc(m_.fixed_name) << "</span>. Re-check: "
        << (m_.fixed_clean ? "<span class=\"badge ok\">clean</span>"
                           : "<span class=\"badge fail\">still failing</span>")
        << "</p>\n";
    TextDiff check = diffText(m_.check_before, m_.check_after);
    os_ << "<h3 id=\"fix-check\">check: " << esc(m_.file) << " → " << esc(m_.fixed_name);
    diffStat(check);
    os_ << "</h3>\n";
    diffTable(check, 1000000);
    TextDiff inputs = diffText(m_.inputs_before, m_.inputs_after);
    os_ << "<h3 id=\"fix-inputs\">segment inputs, before → after";
    diffStat(inputs);
    os_ << "</h3>\n";
    diffTable(inputs, 1000000);
    TextDiff repro = diffText(m_.repro_before, m_.repro_after);
    os_ << "<h3 id=\"fix-repro\">the repro (canonical JSON), before → after";
    diffStat(repro);
    os_ << "</h3>\n";
    diffTable(repro);
    os_ << "</section>\n";
  }

  void diagnostic(const Diagnostic& d, const std::string& id) {
    std::string sev(severityName(d.severity));
    os_ << "<div class=\"diag " << esc(sev) << "\"" << (id.empty() ? "" : " id=\"" + id + "\"")
        << " data-code=\"" << esc(diagCodeInfo(d.code).id) << "\"><div class=\"hdr\"><span class=\"code\">"
        << esc(sev) << "[" << esc(diagCodeInfo(d.code).id) << "] " << esc(diagCodeInfo(d.code).slug)
        << "</span>" << linkify(d.message) << "</div>";
    if (!d.loc.file.empty() || !d.loc.pointer.empty()) {
      os_ << "<div class=\"loc\">" << esc(d.loc.file);
      if (d.loc.known()) os_ << ":" << d.loc.line << ":" << d.loc.col;
      if (!d.loc.pointer.empty()) os_ << " <span class=\"mono\">" << esc(d.loc.pointer) << "</span>";
      os_ << "</div>";
    }
    if (!d.notes.empty()) {
      os_ << "<ul>";
      for (const Note& n : d.notes) {
        bool fix = n.kind.rfind("fix[", 0) == 0;
        os_ << "<li" << (fix ? " class=\"fix\"" : "") << "><span class=\"kind\">" << esc(n.kind)
            << ":</span> " << linkify(n.message) << "</li>";
      }
      os_ << "</ul>";
    }
    os_ << "</div>\n";
  }

  void diagnostics() {
    os_ << "<section class=\"block\" id=\"diagnostics\"><h2>Diagnostics";
    size_t errors = errorCount();
    os_ << (errors ? "<span class=\"badge fail\">" + std::to_string(errors) + " error" +
                         (errors == 1 ? "" : "s") + "</span>"
                   : "<span class=\"badge ok\">none</span>")
        << "</h2>\n";
    if (m_.diagnostics.empty()) os_ << "<p class=\"note\">the pipeline reports nothing</p>\n";
    for (size_t i = 0; i < m_.diagnostics.size(); ++i)
      diagnostic(m_.diagnostics[i], "diag-" + std::to_string(i));
    os_ << "</section>\n";
  }

  void numerics() {
    os_ << "<section class=\"block\" id=\"numerics\"><h2>Numerics";
    if (!m_.run) {
      os_ << "</h2>\n<p class=\"note\">"
          << prose(m_.run_note.empty() ? "no numerics: pass --results RUN.json (the output of `fusecheck run "
                                         "--format json`) or --run"
                                       : m_.run_note)
          << "</p></section>\n";
      return;
    }
    const RunTable& t = *m_.run;
    os_ << (t.passed ? "<span class=\"badge ok\">PASS</span>" : "<span class=\"badge fail\">FAIL</span>")
        << "</h2>\n<p>" << esc(t.source) << ": device " << esc(t.device) << ", nvFuser " << esc(t.era) << ", "
        << esc(t.reference) << " reference, " << esc(t.ranks) << " rank(s), seed " << esc(t.seed)
        << (t.communicator.empty() ? "" : ", communicator " + esc(t.communicator))
        << (t.fix ? ", with fixes" : "") << "</p>\n";
    if (!m_.run_note.empty()) os_ << "<p class=\"note\">" << prose(m_.run_note) << "</p>\n";
    if (!t.fix_actions.empty()) {
      os_ << "<ul class=\"plain\">";
      for (const std::string& a : t.fix_actions) os_ << "<li>fix " << linkify(a) << "</li>";
      os_ << "</ul>\n";
    }
    if (!t.segments.empty()) {
      os_ << "<table class=\"num\" "
             "id=\"run-segments\"><tr><th>segment</th><th>kind</th><th>summary</th><th>status</th></tr>";
      for (const RunSegmentRow& s : t.segments)
        os_ << "<tr><td>" << esc(s.id) << "</td><td>" << esc(s.kind) << "</td><td>" << linkify(s.summary)
            << "</td><td>" << esc(s.status) << "</td></tr>";
      os_ << "</table>\n";
    }
    os_ << "<table class=\"num\" "
           "id=\"run-outputs\"><tr><th>output</th><th>dtype</th><th>shape</th><th>result</th>"
           "<th>max abs error</th><th>max rel error</th><th>max ULP</th><th>beyond "
           "tolerance</th><th>tolerance</th></tr>";
    for (const RunOutputRow& o : t.outputs) {
      os_ << "<tr><td>" << linkify(o.name) << "</td><td>" << esc(o.dtype) << "</td><td class=\"mono\">"
          << esc(o.shape) << "</td><td class=\"" << (o.passed ? "pass\">ok" : "fail\">MISMATCH")
          << "</td><td>" << esc(o.max_abs) << "</td><td>" << esc(o.max_rel) << "</td><td>" << esc(o.max_ulp)
          << "</td><td>" << esc(o.mismatches) << " of " << esc(o.numel) << "</td><td>rtol " << esc(o.rtol)
          << ", atol " << esc(o.atol) << (o.policy.empty() ? "" : " (" + esc(o.policy) + ")") << "</td></tr>";
      for (const std::string& w : o.worst)
        os_ << "<tr><td></td><td colspan=\"8\" class=\"mono\">" << esc(w) << "</td></tr>";
      if (!o.note.empty()) os_ << "<tr><td></td><td colspan=\"8\">" << esc(o.note) << "</td></tr>";
    }
    os_ << "</table>\n";
    for (const std::string& d : t.diagnostics) os_ << "<div class=\"diag\">" << linkify(d) << "</div>\n";
    os_ << "</section>\n";
  }
};

}  // namespace

std::string renderHtml(const ReportModel& m) { return Html(m).render(); }

}  // namespace fc::viz
