// GitHub pastes (see import_paste.h).
#include "io/import_paste.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "io/import_detect.h"

namespace fc {
namespace {

struct Line {
  size_t begin = 0, end = 0;  // [begin, end) without the newline
};

std::vector<Line> splitLines(std::string_view t) {
  std::vector<Line> out;
  size_t p = 0;
  while (p <= t.size()) {
    size_t e = t.find('\n', p);
    if (e == std::string_view::npos) e = t.size();
    out.push_back(Line{p, e});
    if (e == t.size()) break;
    p = e + 1;
  }
  return out;
}

std::string_view lineText(std::string_view t, const Line& l) { return t.substr(l.begin, l.end - l.begin); }

// Bytes of `>` quote markers (and the space after each) at the start of a line. A Python REPL
// prompt (`>>> `, or `>>>` ending the line) is no quote marker (io/session_prompts.h reads it).
size_t quotePrefix(std::string_view s) {
  size_t i = 0, marks = 0;
  while (true) {
    size_t j = i;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t') && j - i < 4) ++j;
    if (s.compare(j, 3, ">>>") == 0 && (j + 3 == s.size() || s[j + 3] == ' ' || s[j + 3] == '\r')) break;
    if (j < s.size() && s[j] == '>') {
      i = j + 1;
      if (i < s.size() && s[i] == ' ') ++i;
      ++marks;
      continue;
    }
    break;
  }
  return marks ? i : 0;
}

// A fence line: optional indentation, then ``` or ~~~ (three or more), then an info string. A
// backslash-escaped fence (\```python) counts too: GitHub users escape the fences of a log that
// nests nvFuser's printed repro ("Here's a script to reproduce the error:") inside their own block.
struct Fence {
  char ch = 0;
  size_t len = 0;
  std::string info;
};
std::optional<Fence> fenceOf(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t') && i < 8) ++i;
  if (i + 1 < s.size() && s[i] == '\\' && s[i + 1] == '`') ++i;
  if (i >= s.size() || (s[i] != '`' && s[i] != '~')) return std::nullopt;
  char c = s[i];
  size_t j = i;
  while (j < s.size() && s[j] == c) ++j;
  if (j - i < 3) return std::nullopt;
  Fence f;
  f.ch = c;
  f.len = j - i;
  std::string_view rest = s.substr(j);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.remove_suffix(1);
  if (c == '`' && rest.find('`') != std::string_view::npos) return std::nullopt;  // inline code
  f.info = std::string(rest);
  return f;
}

bool isDiffLine(std::string_view s) {
  return s.rfind("diff --git", 0) == 0 || s.rfind("@@ ", 0) == 0 || s.rfind("+++ ", 0) == 0 ||
         s.rfind("--- ", 0) == 0 || s.rfind("index ", 0) == 0;
}

bool looksLikeDiff(std::string_view t) {
  size_t plus = 0, lines = 0, headers = 0;
  for (const Line& l : splitLines(t)) {
    std::string_view s = lineText(t, l);
    if (s.empty()) continue;
    ++lines;
    if (isDiffLine(s)) ++headers;
    if (s[0] == '+' && (s.size() < 2 || s[1] != '+')) ++plus;
  }
  return headers > 0 || (lines >= 3 && plus * 2 >= lines);
}

// The form a block holds, by the same content test import_detect uses.
enum class Form { Python, Cpp, Segments, Ir, Other };

Form formOf(std::string_view t) {
  auto has = [&](std::string_view s) { return t.find(s) != std::string_view::npos; };
  if (has("fd.define_tensor") || has("fd.ops.") || has("FusionDefinition") || has("define_tensor("))
    return Form::Python;
  if (has("makeSymbolicTensor") || has("makeContigTensor") || has("makeConcreteTensor") ||
      has("makeContigConcreteTensor") || has("TensorViewBuilder") || has("FusionGuard") ||
      has("->addInput(") || has(".addInput(") || has("TEST_F(") || has("TEST_P("))
    return Form::Cpp;
  if (has("group details:") || has("Segmented_Fusion") || has("g{(")) return Form::Segments;
  // A tensor print such as T0_g[ or T3_l___half[.
  for (size_t p = t.find('T'); p != std::string_view::npos; p = t.find('T', p + 1)) {
    size_t i = p + 1;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    if (i == p + 1 || i + 1 >= t.size() || t[i] != '_' || !std::strchr("glst", t[i + 1])) continue;
    size_t k = t.find('[', i);
    if (k != std::string_view::npos && k - i < 24) return Form::Ir;
  }
  return Form::Other;
}

const char* formName(Form f) {
  switch (f) {
    case Form::Python: return "a Python repro";
    case Form::Cpp: return "a C++ test";
    case Form::Segments: return "a segmented-fusion dump";
    case Form::Ir: return "printed IR";
    case Form::Other: return "text";
  }
  return "text";
}

void note(DiagnosticSink& sink, std::string msg, Location loc) {
  sink.report(Severity::Note, DiagCode::ImportNote, std::move(msg), std::move(loc));
}

struct Block {
  std::vector<size_t> lines;  // line indices of the content (fences excluded)
  bool fenced = false;
  std::string info;
  Form form = Form::Other;
};

}  // namespace

bool looksLikePaste(std::string_view text) {
  size_t lines = 0, quoted = 0;
  for (const Line& l : splitLines(text)) {
    std::string_view s = lineText(text, l);
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    ++lines;
    size_t q = quotePrefix(s);
    if (fenceOf(s.substr(q))) return true;
    if (q) ++quoted;
  }
  if (lines > 0 && quoted * 2 > lines) return true;
  return looksLikeDiff(text);
}

// How much line `s` opens brackets minus how much it closes them (quotes and comments skipped
// roughly: a bracket inside a one-line string literal or after `#` / `//` does not count).
int bracketBalance(std::string_view s) {
  int d = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '#' || (c == '/' && i + 1 < s.size() && s[i + 1] == '/'))
      break;
    else if (c == '(' || c == '[' || c == '{')
      ++d;
    else if (c == ')' || c == ']' || c == '}')
      --d;
  }
  return d;
}

// The context lines that start each hunk up to the last one closing brackets opened before the
// hunk (`].flatten(),` then `)` when the hunk starts inside a call): they are no statement.
std::vector<bool> danglingContext(std::string_view t, const std::vector<Line>& lines) {
  std::vector<bool> drop(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lineText(t, lines[i]).rfind("@@ ", 0) != 0) continue;
    int depth = 0;
    size_t last = i;
    for (size_t j = i + 1; j < lines.size(); ++j) {
      std::string_view s = lineText(t, lines[j]);
      if (!s.empty() && s[0] != ' ') break;  // the first changed line ends the leading context
      depth += bracketBalance(s.empty() ? s : s.substr(1));
      if (depth < 0) {
        last = j;
        depth = 0;
      }
    }
    for (size_t j = i + 1; j <= last; ++j) drop[j] = true;
  }
  return drop;
}

MappedText undiff(const MappedText& text, DiagnosticSink& sink) {
  std::string_view t = text.text();
  if (!looksLikeDiff(t)) return text;
  MappedText::Builder b(text);
  int dropped = 0, first = 0, dangling = 0;
  const std::vector<Line> lines = splitLines(t);
  const std::vector<bool> drop = danglingContext(t, lines);
  for (size_t li = 0; li < lines.size(); ++li) {
    const Line& l = lines[li];
    std::string_view s = lineText(t, l);
    if (drop[li]) {
      ++dangling;
      b.insert("\n", l.begin);
      continue;
    }
    if (isDiffLine(s) || (!s.empty() && s[0] == '-') || s.rfind("\\ No newline", 0) == 0) {
      if (!first) first = text.location(l.begin).line;
      ++dropped;
      b.insert("\n", l.begin);  // keep the line count
      continue;
    }
    if (!s.empty() && (s[0] == '+' || s[0] == ' ')) {
      b.copy(l.begin + 1, l.end - l.begin - 1);
    } else {
      b.copy(l.begin, l.end - l.begin);
    }
    if (l.end < t.size()) b.copy(l.end, 1);
  }
  note(sink,
       "the text is a diff: its new side is read (the `+` and context lines without their first column; " +
           std::to_string(dropped) + " header and removed lines skipped" +
           (dangling ? ", and " + std::to_string(dangling) +
                           " context lines at the start of a hunk that close brackets opened before it"
                     : std::string()) +
           ")",
       text.location(0));
  return std::move(b).build();
}

MappedText repairPrintedIr(const MappedText& text, DiagnosticSink& sink) {
  std::string_view t = text.text();
  // Cheap test first: most prints need nothing.
  static const char* kCasts[] = {"half2", "float2", "bfloat2", "double2", "int2", "bool2", "e4m32", "e5m22"};
  bool damage = t.find("**") != std::string_view::npos || t.find("\xE2\x80\xA2") != std::string_view::npos ||
                t.find("\\_") != std::string_view::npos || t.find("\\*") != std::string_view::npos;
  if (!damage)
    for (const char* c : kCasts)
      for (size_t p = t.find(c); p != std::string_view::npos && !damage; p = t.find(c, p + 1))
        damage = p == 0 || t[p - 1] != '_';
  if (!damage) return text;
  MappedText::Builder b(text);
  int bold = 0, bullets = 0, casts = 0, escapes = 0;
  Location bold_at, bullet_at, cast_at, escape_at;
  size_t p = 0;
  while (p < t.size()) {
    if (t.compare(p, 2, "**") == 0) {
      if (!bold++) bold_at = text.location(p);
      p += 2;
      continue;
    }
    if (t.compare(p, 3, "\xE2\x80\xA2") == 0) {  // U+2022 BULLET
      if (!bullets++) bullet_at = text.location(p);
      b.insert("+", p);
      p += 3;
      continue;
    }
    if (t[p] == '\\' && p + 1 < t.size() && (t[p + 1] == '_' || t[p + 1] == '*')) {
      if (!escapes++) escape_at = text.location(p);
      ++p;
      continue;
    }
    bool word_start = p == 0 || !(std::isalnum(static_cast<unsigned char>(t[p - 1])) || t[p - 1] == '_');
    if (word_start) {
      for (const char* c : kCasts)
        if (t.compare(p, std::strlen(c), c) == 0) {
          size_t e = p + std::strlen(c);
          while (e < t.size() && std::isalnum(static_cast<unsigned char>(t[e]))) ++e;
          if (e < t.size() && t[e] == '(') {
            if (!casts++) cast_at = text.location(p);
            b.insert("__", p);
          }
          break;
        }
    }
    b.copy(p, 1);
    ++p;
  }
  if (bold) note(sink, "removed " + std::to_string(bold) + " markdown bold marker(s) `**`", bold_at);
  if (bullets)
    note(sink,
         "read " + std::to_string(bullets) +
             " bullet(s) `\xE2\x80\xA2` as `+` (a paste's rendering of the operator)",
         bullet_at);
  if (casts)
    note(sink,
         "restored the `__` of " + std::to_string(casts) +
             " cast name(s) such as `__half2float` (Markdown took `__` for bold)",
         cast_at);
  if (escapes) note(sink, "removed " + std::to_string(escapes) + " markdown escape(s) `\\`", escape_at);
  return std::move(b).build();
}

namespace {

// Splits Python lines that terminal wrapping joined: a statement, a run of 8 or more spaces, and
// the next statement.
MappedText splitJoinedPython(const MappedText& text, DiagnosticSink& sink) {
  std::string_view t = text.text();
  MappedText::Builder b(text);
  int splits = 0;
  Location first;
  for (const Line& l : splitLines(t)) {
    std::string_view s = lineText(t, l);
    size_t indent = s.find_first_not_of(' ');
    size_t from = l.begin;
    bool in_str = false;
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (in_str) {
        if (c == quote) in_str = false;
        continue;
      }
      if (c == '"' || c == '\'') {
        in_str = true;
        quote = c;
        continue;
      }
      if (c == '#') break;
      if (c != ' ' || i == 0 || (s[i - 1] != ')' && s[i - 1] != ']')) continue;
      size_t j = i;
      while (j < s.size() && s[j] == ' ') ++j;
      if (j - i < 8 || j >= s.size() || !(std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_'))
        continue;
      b.copy(from, l.begin + i - from);
      b.insert("\n" + std::string(indent == std::string_view::npos ? 0 : indent, ' '), l.begin + i);
      from = l.begin + j;
      if (!splits++) first = text.location(l.begin + j);
      i = j - 1;
    }
    b.copy(from, l.end - from);
    if (l.end < t.size()) b.copy(l.end, 1);
  }
  if (!splits) return text;
  note(sink, "split " + std::to_string(splits) + " line(s) that terminal wrapping joined", first);
  return std::move(b).build();
}

}  // namespace

// The nvFuser a reporter names in the prose, on a line of its own (`nvfuser commit: d75fc93`,
// `nvFuser version: 0.2.7+git1026f67`, possibly as a list item or in bold): the commit or the
// version, and the line's index.
struct ProsePoint {
  RecordedPoint point;
  size_t line = 0;
  std::string said;
};

std::optional<ProsePoint> prosePoint(std::string_view t, const std::vector<Line>& lines,
                                     const std::vector<Block>& blocks) {
  auto lower = [](std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
  };
  auto isMark = [](char c) {
    return c == ' ' || c == '\t' || c == '>' || c == '*' || c == '-' || c == '#' || c == '`' || c == '_';
  };
  for (const Block& b : blocks) {
    if (b.fenced) continue;
    for (size_t i : b.lines) {
      std::string_view s = lineText(t, lines[i]);
      size_t p = 0;
      while (p < s.size() && isMark(s[p])) ++p;
      const std::string l = lower(s.substr(p));
      const bool commit = l.starts_with("nvfuser commit");
      if (!commit && !l.starts_with("nvfuser version")) continue;
      size_t q = std::string_view(l).find_first_of(":=");
      if (q > 20) continue;  // none (npos), or not right after the key
      ++q;
      while (q < l.size() && isMark(l[q])) ++q;
      size_t e = q;
      while (e < l.size() &&
             (std::isalnum(static_cast<unsigned char>(l[e])) || l[e] == '.' || l[e] == '+' || l[e] == '_'))
        ++e;
      const std::string v(s.substr(p + q, e - q));
      if (v.empty()) continue;
      const bool hex = v.size() >= 7 && v.size() <= 40 && std::all_of(v.begin(), v.end(), [](char c) {
                         return std::isxdigit(static_cast<unsigned char>(c));
                       });
      if (commit && !hex) continue;
      if (!commit && !std::isdigit(static_cast<unsigned char>(v[0]))) continue;
      ProsePoint r;
      r.point = commit ? RecordedPoint{"", "", v} : RecordedPoint{"", v, ""};
      r.line = i;
      r.said = std::string(commit ? "commit " : "version ") + v;
      return r;
    }
  }
  return std::nullopt;
}

std::optional<Fusion> importPaste(const MappedText& text, DiagnosticSink& sink, const ImportOptions& opts) {
  std::string_view t = text.text();
  std::vector<Line> lines = splitLines(t);
  // Blocks: fenced code, and the prose around it.
  std::vector<Block> blocks;
  Block prose;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view s = lineText(t, lines[i]);
    size_t q = quotePrefix(s);
    auto f = fenceOf(s.substr(q));
    if (!f) {
      prose.lines.push_back(i);
      continue;
    }
    if (!prose.lines.empty()) blocks.push_back(std::move(prose));
    prose = Block();
    Block code;
    code.fenced = true;
    code.info = f->info;
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      std::string_view u = lineText(t, lines[j]);
      auto g = fenceOf(u.substr(quotePrefix(u)));
      // A closing fence: the same character, at least as long, no info string. An opening fence
      // inside (a paste nesting one block in another) starts a new block.
      if (g && g->ch == f->ch && g->len >= f->len && g->info.empty()) break;
      if (g && !g->info.empty()) break;
      code.lines.push_back(j);
    }
    blocks.push_back(std::move(code));
    // Past the closing fence; an opening fence that ended the block is read again.
    bool reopen = false;
    if (j < lines.size()) {
      std::string_view u = lineText(t, lines[j]);
      auto g = fenceOf(u.substr(quotePrefix(u)));
      reopen = g && !g->info.empty();
    }
    i = reopen ? j - 1 : j;
  }
  if (!prose.lines.empty()) blocks.push_back(std::move(prose));
  bool any_fence = false;
  for (const Block& bl : blocks) any_fence = any_fence || bl.fenced;
  // The text of a block with its quote markers and common indentation removed.
  auto blockText = [&](const Block& bl, int& quoted, int& dedented) {
    MappedText::Builder b(text);
    size_t common = SIZE_MAX;
    for (size_t li : bl.lines) {
      std::string_view s = lineText(t, lines[li]);
      s.remove_prefix(quotePrefix(s));
      size_t ind = s.find_first_not_of(" \t");
      if (ind != std::string_view::npos) common = std::min(common, ind);
    }
    if (common == SIZE_MAX) common = 0;
    for (size_t li : bl.lines) {
      const Line& l = lines[li];
      std::string_view s = lineText(t, l);
      size_t q = quotePrefix(s);
      if (q) ++quoted;
      size_t skip = q + std::min(common, s.size() - q);
      if (skip > q && s.find_first_not_of(" \t", q) != std::string_view::npos) ++dedented;
      b.copy(l.begin + skip, l.end - l.begin - skip);
      b.insert("\n", l.end);
    }
    return std::move(b).build();
  };
  // The blocks that hold a repro, best first: by form priority; of two Python blocks, one that
  // defines tensors before one that only names nvFuser (the error banner nvFuser prints above its
  // repro, fenced together with it); else in the paste's order.
  struct Candidate {
    size_t block;
    bool defines;
  };
  std::vector<Candidate> ranked;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (any_fence && !blocks[i].fenced) continue;
    std::string body;
    for (size_t li : blocks[i].lines) {
      std::string_view s = lineText(t, lines[li]);
      body.append(s.substr(quotePrefix(s)));
      body += '\n';
    }
    blocks[i].form = formOf(body);
    if (blocks[i].form == Form::Other) continue;
    ranked.push_back(Candidate{i, body.find("define_tensor(") != std::string::npos ||
                                      body.find("from_pytorch(") != std::string::npos});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Candidate& a, const Candidate& b) {
    const Form fa = blocks[a.block].form, fb = blocks[b.block].form;
    if (fa != fb) return static_cast<int>(fa) < static_cast<int>(fb);
    return fa == Form::Python && a.defines && !b.defines;
  });
  if (ranked.empty()) {
    sink.error(
        DiagCode::ImportSyntax,
        any_fence
            ? "no code block of the paste holds a repro (a Python definition, a C++ test, printed IR "
              "or a segmented dump)"
            : "the text holds no repro (a Python definition, a C++ test, printed IR or a segmented dump)",
        text.location(0));
    return std::nullopt;
  }
  // Printed IR may be split over several blocks (one per segment, one per piece of the fusion):
  // those of the chosen block's form after it are read with it.
  auto blockGroup = [&](size_t best) {
    Block chosen = blocks[best];
    if (chosen.form == Form::Ir || chosen.form == Form::Segments)
      for (size_t i = best + 1; i < blocks.size(); ++i)
        if (blocks[i].form == chosen.form)
          chosen.lines.insert(chosen.lines.end(), blocks[i].lines.begin(), blocks[i].lines.end());
    return chosen;
  };
  auto firstLine = [&](const Block& b) {
    return text.location(lines[b.lines.empty() ? 0 : b.lines.front()].begin);
  };
  // Imports block `best` (with the blocks read with it) into `out`.
  auto importBlock = [&](size_t best, DiagnosticSink& out) -> std::optional<Fusion> {
    const Block chosen = blockGroup(best);
    const Form form = chosen.form;
    int others = 0;
    for (size_t i = 0; i < blocks.size(); ++i)
      if (i != best && blocks[i].form != Form::Other && blocks[i].form != form) ++others;
    if (any_fence)
      note(
          out,
          std::string("the paste's code block at line ") + std::to_string(firstLine(chosen).line) +
              " holds " + formName(form) + "; it is imported" +
              (others ? " (" + std::to_string(others) + " other block(s) of another form are skipped)" : "") +
              "; prose and other blocks are skipped",
          firstLine(chosen));
    int quoted = 0, dedented = 0;
    MappedText body = blockText(chosen, quoted, dedented);
    if (quoted)
      note(out, "removed the `>` quote markers of " + std::to_string(quoted) + " line(s)", firstLine(chosen));
    if (dedented && form == Form::Python)
      note(out, "removed an indentation common to every line of the block", firstLine(chosen));
    MappedText plain = undiff(body, out);
    ImportFormat fmt = ImportFormat::NvfuserIr;
    switch (form) {
      case Form::Python: fmt = ImportFormat::NvfuserPython; break;
      case Form::Cpp: fmt = ImportFormat::NvfuserCppTest; break;
      case Form::Segments: fmt = ImportFormat::NvfuserSegments; break;
      default: break;
    }
    if (form == Form::Python) return importMapped(splitJoinedPython(plain, out), out, fmt, opts);
    return importMapped(plain, out, fmt, opts);
  };
  const size_t mark = sink.all().size();
  const size_t best = ranked.front().block;
  std::optional<Fusion> f = importBlock(best, sink);
  // The best block does not import: a block of another form that imports without an error is
  // taken instead (a paste holding the script and the IR nvFuser printed for it), with a note
  // naming the first error of the block it replaces.
  if (!f)
    for (size_t k = 1; k < ranked.size(); ++k) {
      const size_t alt = ranked[k].block;
      if (blocks[alt].form == blocks[best].form) continue;
      DiagnosticSink trial;
      std::optional<Fusion> g = importBlock(alt, trial);
      if (!g || trial.hasErrors()) continue;
      std::string why;
      for (size_t d = mark; d < sink.all().size() && why.empty(); ++d)
        if (sink.all()[d].severity == Severity::Error)
          why = "line " + std::to_string(sink.all()[d].loc.line) + ": " + sink.all()[d].message;
      sink.all().erase(sink.all().begin() + static_cast<std::ptrdiff_t>(mark), sink.all().end());
      note(sink,
           "the paste's code block at line " + std::to_string(firstLine(blocks[best]).line) + " (" +
               formName(blocks[best].form) + ") does not import (" + why + "): the block at line " +
               std::to_string(firstLine(blocks[alt]).line) + " (" + formName(blocks[alt].form) +
               ") is imported instead",
           firstLine(blocks[best]));
      sink.append(std::move(trial));
      f = std::move(g);
      break;
    }
  if (f && !f->nvfuser)
    if (auto pp = prosePoint(t, lines, blocks)) {
      f->nvfuser = pp->point;
      note(sink,
           "the paste names nvFuser " + pp->said + ": checks replay that point (--nvfuser replays another)",
           text.location(lines[pp->line].begin));
    }
  if (f) {
    f->provenance.emplace_back("pasted", "a GitHub paste (markdown repaired, prose skipped)");
    if (f->origin)
      f->origin->detail += std::string(f->origin->detail.empty() ? "" : "; ") + "from a GitHub paste";
  }
  return f;
}

}  // namespace fc
