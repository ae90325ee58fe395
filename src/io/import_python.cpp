// Python repro importer (see import_python.h): parse with recovery, run, pick the fusion,
// attach its concrete inputs.
#include "io/import_python.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "io/packed_fp4.h"
#include "io/python/interpreter.h"
#include "io/python/parser.h"
#include "ir/history_start.h"

namespace fc {
namespace {

using py::Ref;
using py::VK;

constexpr int kMaxRecoveries = 64;

// A line of prose at the top level: a word that is no Python keyword followed by another word
// ("Error executing nvFuser FusionDefinition:"), or a character no Python statement starts with.
bool looksLikeProse(std::string_view line) {
  if (line.empty()) return false;
  unsigned char c = static_cast<unsigned char>(line[0]);
  if (c == ' ' || c == '\t') return false;
  if (!(std::isalnum(c) || c == '_' || c == '#' || c == '\'' || c == '"' || c == '(' || c == '[' ||
        c == '{' || c == '@' || c == '-' || c == '+' || c == '~' || c == '.' || c == '\r'))
    return true;
  size_t i = 0;
  auto word_char = [&](size_t k) {
    return k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '_');
  };
  while (word_char(i)) ++i;
  std::string_view word = line.substr(0, i);
  // An English contraction (`Here's`, `don't`): no Python reads a word, a quote and a letter unless
  // the word is a string prefix (r'', b'', f'', u'', rb'', ...).
  static constexpr std::string_view prefixes[] = {"r", "b", "f", "u", "rb", "br", "fr", "rf", "t"};
  auto lower = [](std::string_view w) {
    std::string l(w);
    for (char& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return l;
  };
  if (i > 0 && i + 1 < line.size() && line[i] == '\'' &&
      std::isalpha(static_cast<unsigned char>(line[i + 1])) &&
      std::find(std::begin(prefixes), std::end(prefixes), lower(word)) == std::end(prefixes))
    for (++i; word_char(i);) ++i;
  static constexpr std::string_view kw[] = {
      "def",     "class",  "import", "from",  "with",   "for",      "if",    "while",   "try",  "return",
      "assert",  "del",    "raise",  "pass",  "global", "print",    "async", "elif",    "else", "except",
      "finally", "lambda", "not",    "yield", "await",  "nonlocal", "break", "continue"};
  for (std::string_view k : kw)
    if (word == k) return false;
  // A word, spaces and another word (log lines align their fields with several spaces).
  size_t j = i;
  while (j < line.size() && line[j] == ' ') ++j;
  return j > i && j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_');
}

bool stopsTheParse(const std::string& message) {
  return message.find("is never closed") != std::string::npos ||
         message.find("unterminated string") != std::string::npos;
}

// Where the outermost bracket that is never closed opens (text.size() when every one closes);
// strings and comments are skipped as Python reads them, triple quotes included.
size_t outermostUnclosedBracket(std::string_view t) {
  std::vector<size_t> open;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '#') {
      while (i < t.size() && t[i] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      const bool triple = t.substr(i, 3) == std::string(3, c);
      const std::string_view end = triple ? t.substr(i, 3) : t.substr(i, 1);
      for (i += end.size(); i < t.size() && t.substr(i, end.size()) != end; ++i) {
        if (t[i] == '\\') ++i;
        if (!triple && t[i] == '\n') break;
      }
      i += end.size() - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      open.push_back(i);
    } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
  }
  return open.empty() ? t.size() : open.front();
}

ConstValue constOf(const py::Value& v) {
  ConstValue cv;
  if (v.k == VK::Float) {
    cv.kind = ConstValue::Kind::Float;
    cv.f = v.f;
  } else {
    cv.kind = v.k == VK::Bool ? ConstValue::Kind::Bool : ConstValue::Kind::Int;
    cv.i = v.i;
  }
  return cv;
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size(), 1);
  int64_t acc = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = acc;
    acc *= std::max<int64_t>(sizes[d], 1);
  }
  return st;
}

}  // namespace

std::optional<Fusion> importPython(const SourceText& source, DiagnosticSink& sink, SourceMap* map) {
  const size_t errors_before = sink.errorCount();
  const size_t diags_before = sink.all().size();
  auto where = [&](uint32_t off) {
    LineCol lc = source.lineCol(off);
    return Location{source.path(), "", lc.line, lc.col};
  };
  // Parse; on a syntax error blank the offending line and parse again, so that prose lines are
  // skipped and later problems still reported.
  std::string text(source.text());
  // A traceback pasted after the script (its frames quote source lines, some with brackets they
  // never close) is not Python: the text is read up to it. The first one at a line start decides.
  for (size_t at = text.find("Traceback (most recent call last)"); at != std::string::npos;
       at = text.find("Traceback (most recent call last)", at + 1)) {
    if (at == 0 || text[at - 1] != '\n') continue;
    // Not when a definition follows it (a traceback pasted before the repro).
    const std::string_view rest = std::string_view(text).substr(at);
    if (rest.find("define_tensor") != std::string_view::npos ||
        rest.find("\ndef ") != std::string_view::npos ||
        rest.find("FusionDefinition()") != std::string_view::npos)
      break;
    sink.report(Severity::Note, DiagCode::ImportSyntax,
                "skipped the Python traceback pasted after the script (from here to the end of the text)",
                where(static_cast<uint32_t>(at)));
    for (size_t i = at; i < text.size(); ++i)
      if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
    break;
  }
  std::vector<std::string> dropped;
  py::Module m;
  for (int attempt = 0;; ++attempt) {
    py::ParseError pe;
    if (py::parseModule(text, m, pe)) break;
    size_t ls = text.rfind('\n', pe.off == 0 ? 0 : pe.off - 1);
    ls = ls == std::string::npos || pe.off == 0 ? 0 : ls + 1;
    if (pe.off > 0 && text[pe.off - 1] == '\n') ls = pe.off;
    size_t le = text.find('\n', ls);
    if (le == std::string::npos) le = text.size();
    std::string_view line(text.data() + ls, le - ls);
    bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    bool prose = !blank && looksLikeProse(line);
    // A paste cut inside its last statement: a bracket still open where the text ends (the
    // statement starts on the line of the outermost one), a string still open on the last line,
    // or any error on the last line (`with Fus`).
    const bool last_line =
        std::string_view(text).substr(le).find_first_not_of(" \t\r\n") == std::string_view::npos;
    const bool cut = pe.message.find("is never closed") != std::string::npos ||
                     (last_line && pe.message.find("unterminated string") != std::string::npos);
    const size_t open = outermostUnclosedBracket(text);
    if (cut && open < text.size()) {
      size_t st = open == 0 ? 0 : text.rfind('\n', open - 1);
      ls = st == std::string::npos || open == 0 ? 0 : st + 1;
    }
    if ((cut || last_line) && !blank && !prose && ls < text.size() && text[ls] != ' ' && text[ls] != '\t' &&
        std::string_view(text).substr(ls).find("fd.") == std::string_view::npos) {
      // A top-level statement that builds nothing of the fusion (`inputs = [` ...): left out.
      sink.report(Severity::Warning, DiagCode::ImportSyntax,
                  std::string("the text ends inside this statement") +
                      (open < text.size() ? ", whose brackets are never closed" : "") +
                      ": a cut paste? The statement is left out; the fusion before it is imported",
                  where(static_cast<uint32_t>(ls)));
      for (size_t i = ls; i < text.size(); ++i)
        if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
      continue;
    }
    // A prose line's quote (`Here's a script`) opens a string that never ends: the line is still prose.
    const bool prose_quote = prose && pe.message.find("unterminated string") != std::string::npos;
    if (prose && (!stopsTheParse(pe.message) || prose_quote)) {
      sink.report(Severity::Note, DiagCode::ImportSyntax, "skipped a line that is not Python",
                  where(static_cast<uint32_t>(ls)));
    } else {
      auto& d = sink.error(DiagCode::ImportSyntax, pe.message, where(pe.off));
      if (cut)
        d.note(
            "the text ends inside this statement: if the repro was cut when it was pasted, paste it whole");
      if (blank || stopsTheParse(pe.message) || attempt >= kMaxRecoveries) return std::nullopt;
    }
    if (attempt >= kMaxRecoveries) {
      sink.error(DiagCode::ImportSyntax,
                 "stopped after skipping " + std::to_string(kMaxRecoveries + 1) +
                     " lines that are not Python: the text does not read as a Python repro",
                 where(static_cast<uint32_t>(ls)));
      return std::nullopt;
    }
    // The names the dropped line assigns (`T2 = ...`, `a, b = ...`).
    size_t eq = line.find('=');
    if (!prose && eq != std::string_view::npos && eq + 1 < line.size() && line[eq + 1] != '=') {
      std::string_view lhs = line.substr(0, eq);
      size_t i = 0;
      while (i < lhs.size()) {
        while (i < lhs.size() && !(std::isalnum(static_cast<unsigned char>(lhs[i])) || lhs[i] == '_')) ++i;
        size_t st = i;
        while (i < lhs.size() && (std::isalnum(static_cast<unsigned char>(lhs[i])) || lhs[i] == '_')) ++i;
        if (i > st) dropped.emplace_back(lhs.substr(st, i - st));
      }
    }
    for (size_t i = ls; i < le; ++i)
      if (text[i] != '\r') text[i] = ' ';
  }
  // A test that skips with the device count the import assumes (`if d % 4 != 0: pytest.skip(...)`)
  // runs again with the next count; one that skips with each runs with the first as if it did not.
  constexpr int64_t kDeviceCounts[] = {2, 4, 8};
  constexpr size_t kCounts = std::size(kDeviceCounts);
  const size_t run_mark = sink.all().size();
  std::unique_ptr<py::Interpreter> in;
  std::vector<std::shared_ptr<py::FusionRecorder>> recs;
  std::optional<uint32_t> first_skip;
  for (size_t k = 0; k <= kCounts; ++k) {
    const bool last = k == kCounts;
    const int64_t devices = kDeviceCounts[last ? 0 : k];
    sink.all().erase(sink.all().begin() + static_cast<std::ptrdiff_t>(run_mark), sink.all().end());
    in = std::make_unique<py::Interpreter>(source, m, sink);
    in->dropped(dropped);
    in->assumeDevices(devices, !last);
    recs = in->run();
    if (in->skippedAt()) {
      first_skip = first_skip ? first_skip : in->skippedAt();
      continue;
    }
    if (first_skip && !last)
      sink.report(Severity::Note, DiagCode::ImportUnsupported,
                  "with " + std::to_string(kDeviceCounts[0]) +
                      " devices the test skips here: the import assumes " + std::to_string(devices) +
                      ", the first of 2, 4 and 8 it runs with",
                  where(*first_skip));
    else if (first_skip)
      sink.report(Severity::Note, DiagCode::ImportUnsupported,
                  "the test skips here with 2, 4 and 8 devices: the import assumes 2 and runs past the skip",
                  where(*first_skip));
    break;
  }
  std::shared_ptr<py::FusionRecorder> rec;
  size_t recorded = 0;
  for (const auto& r : recs)
    if (r->recorded && (!r->f.exprs.empty() || !r->f.outputs.empty() || !r->f.inputs.empty())) {
      if (!rec) rec = r;
      ++recorded;
    }
  if (!rec) {
    if (sink.errorCount() == errors_before) {
      // A definition the interpreter tried and skipped (a parameter the script never binds, a
      // failing line) was found: say that no fusion was recorded, not that none was written.
      std::optional<Location> skipped;  // the first definition skipped
      for (size_t i = diags_before; i < sink.all().size() && !skipped; ++i)
        if (sink.all()[i].severity == Severity::Note && sink.all()[i].message.rfind("skipped: ", 0) == 0)
          skipped = sink.all()[i].loc;
      // Whether the script defines anything that would take a FusionDefinition at all.
      const std::string_view t = source.text();
      const bool takes_fd = t.find("(fd") != std::string_view::npos ||
                            t.find(", fd") != std::string_view::npos ||
                            t.find("FusionDefinition") != std::string_view::npos ||
                            t.find("fusion_definition") != std::string_view::npos;
      if (skipped && takes_fd)
        sink.error(DiagCode::ImportSyntax,
                   "no fusion recorded: the definitions that take `fd` were skipped (the notes say why)",
                   *skipped);
      else if (skipped)
        sink.error(DiagCode::ImportSyntax,
                   "no fusion recorded: the script builds no FusionDefinition and defines nothing that "
                   "takes `fd` (the notes say what it ran and skipped)",
                   *skipped);
      else
        sink.error(DiagCode::ImportSyntax, "no `def ...(fd : FusionDefinition)` definition found", where(0));
    }
    return std::nullopt;
  }
  if (recorded > 1)
    sink.report(Severity::Note, DiagCode::ImportUnsupported,
                "the script defines " + std::to_string(recorded) + " fusions; this is the first",
                where(rec->off));
  Fusion& f = rec->f;
  if (f.outputs.empty() && sink.errorCount() == errors_before)
    sink.report(Severity::Warning, DiagCode::ImportUnsupported,
                "the definition adds no output (no `fd.add_output(...)`)", where(rec->off));
  if (sink.errorCount() != errors_before) return std::nullopt;

  // Concrete inputs: what fd.execute(...) was given, else a top-level list named `inputs`.
  std::vector<Ref> values = rec->inputs;
  uint32_t list_off = rec->inputs_off;
  if (!rec->executed) {
    Ref g = in->global("inputs");
    if (g && g->k == VK::List) {
      values = g->items;
      list_off = in->globalOff("inputs");
    }
  }
  if (rec->executed || !values.empty()) {
    // A list or tuple entry gives its items, one input each, as nvFuser's execute reads its inputs
    // (from_pyiterable, python/python_direct/direct_utils.cpp:34-47 @ 81c4b22fd; the legacy
    // frontend's execute, python/python_frontend/python_bindings.cpp:1032 @ 99b644647): a
    // define_vector's sizes come as one list or spread.
    std::vector<Ref> flat;
    for (const Ref& v : values) {
      if (v->k == VK::List || v->k == VK::Tuple)
        flat.insert(flat.end(), v->items.begin(), v->items.end());
      else
        flat.push_back(v);
    }
    values = std::move(flat);
    if (values.size() != f.inputs.size()) {
      sink.error(DiagCode::BadConcreteInput,
                 "`inputs` has " + std::to_string(values.size()) + " values but the fusion has " +
                     std::to_string(f.inputs.size()) + " inputs",
                 where(list_off));
      return std::nullopt;
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const py::Value& v = *values[i];
      ValueRef in_ref = f.inputs[i];
      ConcreteInput ci;
      ci.value = in_ref;
      uint32_t off = v.off ? v.off : list_off;
      if (in_ref.isScalar()) {
        if (v.k != VK::Int && v.k != VK::Float && v.k != VK::Bool) {
          sink.error(DiagCode::BadConcreteInput,
                     "input " + std::to_string(i) + " must be a number for scalar " +
                         std::string(f.scalarName(in_ref.id)) + ", not a " + py::typeName(v),
                     where(off));
          continue;
        }
        ci.scalar = constOf(v);
        f.concrete_inputs.push_back(ci);
        continue;
      }
      if (v.k != VK::Torch) {
        sink.error(DiagCode::BadConcreteInput,
                   "input " + std::to_string(i) + " must be a torch tensor for " +
                       std::string(f.tensorName(in_ref.id)) + ", not a " + py::typeName(v),
                   where(off));
        continue;
      }
      size_t rank = rec->b.nonReduction(in_ref.id).size();
      if (v.sizes.size() != rank) {
        sink.error(DiagCode::BadConcreteInput,
                   "input " + std::to_string(i) + " has rank " + std::to_string(v.sizes.size()) + " but " +
                       std::string(f.tensorName(in_ref.id)) + " has rank " + std::to_string(rank),
                   where(off));
        continue;
      }
      // A packed FP4 tensor (torch.float4_e2m1fn_x2, two values a byte) for a Float4_e2m1fn input
      // binds with nvFuser's sizes and strides (packed_fp4.h).
      std::vector<int64_t> sizes = v.sizes, strides = v.strides;
      const bool packed =
          v.dtype == DType::Float4_e2m1fn_x2 && f.tensors[in_ref.id].dtype == DType::Float4_e2m1fn;
      if (packed) {
        SizesAndStrides bound = unpackFp4(f, in_ref.id, {sizes, strides});
        sizes = std::move(bound.sizes);
        strides = std::move(bound.strides);
      }
      if (!packed && v.dtype_off && !v.converted && v.dtype && *v.dtype != f.tensors[in_ref.id].dtype) {
        sink.error(DiagCode::BadConcreteInput,
                   "the input is made as " + std::string(dtypeName(*v.dtype)) + " but " +
                       std::string(f.tensorName(in_ref.id)) + " is " +
                       std::string(dtypeName(f.tensors[in_ref.id].dtype)),
                   where(v.dtype_off));
        continue;
      }
      ci.shape = sizes;
      if (v.strided || strides != contiguousStrides(sizes)) ci.strides = strides;
      ci.range = v.range;
      ci.fill = v.fill;
      f.concrete_inputs.push_back(ci);
    }
    if (sink.errorCount() != errors_before) return std::nullopt;
  }
  rec->b.finish();
  f.provenance.emplace_back("imported_from", "nvfuser-python");
  // Origin: the frontend the script imports, and the `# nvfuser version: V` header nvFuser's
  // legacy repro printer writes (kept as written; the change-point code resolves it).
  bool direct = rec->frontend == py::Frontend::Direct;
  f.origin = ReproOrigin{
      direct ? "python-direct" : "python-legacy", direct ? "direct" : "python", "", "", {}, "", ""};
  for (const py::FusionRecorder::Spelled& k : rec->spelled)
    f.origin->keywords.push_back(KeywordUse{k.call, k.keyword, source.lineCol(k.off)});
  // A script for nvFuser's frontend in PyTorch's tree ran only before nvFuser's own repository,
  // whose first commit starts the modelled history: its points are all before it.
  if (!rec->pre_repo.empty()) {
    f.origin->printed_before = std::string(kHistoryFirstCommit);
    f.origin->detail = "written for nvFuser's frontend in PyTorch's tree (torch._C._nvfuser; it uses " +
                       rec->pre_repo + "), before nvFuser's own repository";
    sink.report(Severity::Note, DiagCode::ImportNote,
                "the script uses " + rec->pre_repo +
                    " of nvFuser's frontend in PyTorch's tree (torch._C._nvfuser, 2022), which nvFuser's own "
                    "repository (from 2023-03-13) never bound: it is dated before that",
                where(rec->pre_repo_off));
  }
  std::string_view src_text = source.text();
  for (size_t at = src_text.find("nvfuser version:"); at != std::string_view::npos;
       at = src_text.find("nvfuser version:", at + 1)) {
    size_t ls = src_text.rfind('\n', at);
    ls = ls == std::string_view::npos ? 0 : ls + 1;
    if (src_text.substr(ls, at - ls).find_first_not_of("# \t") != std::string_view::npos) continue;
    if (src_text.substr(ls, at - ls).find('#') == std::string_view::npos) continue;
    size_t vs = src_text.find_first_not_of(" \t", at + 16);
    size_t ve = src_text.find_first_of("\r\n", at);
    if (vs == std::string_view::npos || vs >= ve) continue;
    std::string_view v = src_text.substr(vs, (ve == std::string_view::npos ? src_text.size() : ve) - vs);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    if (!v.empty()) f.nvfuser = RecordedPoint{"", std::string(v), ""};
    break;
  }
  if (!rec->name.empty()) f.name = rec->name;
  if (map) {
    auto fill = [](std::vector<uint32_t> v, size_t n) {
      v.resize(n, SourceMap::kUnknown);
      return v;
    };
    map->tensors = fill(rec->tensor_off, f.tensors.size());
    map->scalars = fill(rec->scalar_off, f.scalars.size());
    map->exprs = fill(rec->expr_off, f.exprs.size());
  }
  return std::move(rec->f);
}

}  // namespace fc
