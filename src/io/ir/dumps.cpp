// Dumps in a printed-IR text (see dumps.h).
#include "io/ir/dumps.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace fc::ir_text {
namespace {

bool isTensorName(std::string_view s) {
  if (s.size() < 4 || s[0] != 'T') return false;
  size_t i = 1;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > 1 && i + 1 < s.size() && s[i] == '_' && std::strchr("glst", s[i + 1]);
}

bool contains(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

}  // namespace

std::string_view dumpKindName(Dump::Kind k) {
  switch (k) {
    case Dump::Kind::Symbolic: return "symbolic";
    case Dump::Kind::Concretized: return "concretized";
    case Dump::Kind::HostProgram: return "host program";
    case Dump::Kind::Segments: return "segments";
  }
  return "?";
}

std::vector<Dump> findDumps(const Lexer& lex) {
  const auto& t = lex.tokens();
  const size_t n = t.size() - 1;  // without End
  std::vector<Dump> out;
  Dump cur;
  bool content = false, closed = false, host = false;
  int depth = 0;
  std::vector<int> blocks;  // depths of open %kernel / host blocks
  std::unordered_set<std::string_view> names;
  auto isP = [&](size_t i, std::string_view s) {
    return i < n && t[i].kind == Tok::Punct && lex.str(i) == s;
  };
  auto isI = [&](size_t i, std::string_view s) {
    return i < n && t[i].kind == Tok::Ident && lex.str(i) == s;
  };
  auto lineEnd = [&](size_t i) {
    ++i;
    while (i < n && !t[i].line_start) ++i;
    return i;
  };
  // Closes the current dump at token i when it has printed a tensor; a header names the next one.
  auto startNew = [&](size_t i, std::string label) {
    if (content) {
      cur.end = i;
      cur.tensors = names.size();
      out.push_back(cur);
      cur = Dump();
      cur.begin = i;
      content = closed = host = false;
      names.clear();
    }
    if (!label.empty()) cur.label = std::move(label);
  };
  for (size_t i = 0; i < n; ++i) {
    const Token& k = t[i];
    if (k.line_start) {
      size_t e = lineEnd(i);
      // A header: a short line without tensors that names a fusion, ending with ':' or ':{'.
      bool fusion = false, tensor = false;
      for (size_t j = i; j < e; ++j) {
        std::string_view s = lex.str(j);
        if (contains(s, "usion") || s == "Segment") fusion = true;
        if (isTensorName(s)) tensor = true;
      }
      bool colon = isP(e - 1, ":") || (e - i >= 2 && isP(e - 2, ":") && isP(e - 1, "{"));
      if (fusion && !tensor && colon && e - i <= 16 && blocks.empty()) {
        startNew(i, std::string(lex.text().substr(t[i].off, t[e - 1].off + t[e - 1].len - t[i].off)));
        continue;
      }
      if (isI(i, "Inputs") && isP(i + 1, ":") && !host && content && (closed || blocks.empty()))
        startNew(i, "");
    }
    if (isP(i, "%") && i + 1 < n && t[i + 1].kind == Tok::Ident) {
      std::string_view w = lex.str(i + 1);
      if (w == "HostIrContainer") {
        if (!host) startNew(i, "");
        host = true;
        cur.kind = Dump::Kind::HostProgram;
      } else if ((w == "kernel_math" || w == "kernel" || w == "Kernel") && !host && closed) {
        startNew(i, "");  // a second block after a closed one
      }
      if ((w == "HostIrContainer" || w == "kernel_math" || w == "kernel" || w == "Kernel") &&
          isP(i + 2, "{")) {
        blocks.push_back(depth);
      }
    }
    if (isP(i, "{")) ++depth;
    if (isP(i, "}")) {
      if (depth > 0) --depth;
      if (!blocks.empty() && depth <= blocks.back()) {
        blocks.pop_back();
        if (blocks.empty() && content) closed = true;
      }
    }
    if (k.kind == Tok::Ident && isTensorName(lex.str(i)) && isP(i + 1, "[")) {
      content = true;
      names.insert(lex.str(i).substr(0, lex.str(i).find('_')));
    }
    if (isI(i, "group") && isI(i + 1, "details")) cur.kind = Dump::Kind::Segments;
  }
  cur.end = n;
  cur.tensors = names.size();
  if (content || out.empty())
    out.push_back(cur);
  else
    out.back().end = n;  // trailing text without a print belongs to the last dump
  for (Dump& d : out) {
    std::string l = d.label;
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (d.kind == Dump::Kind::Symbolic && contains(l, "concretized") && !contains(l, "before"))
      d.kind = Dump::Kind::Concretized;
    if (d.kind == Dump::Kind::Symbolic && contains(l, "segments")) d.kind = Dump::Kind::Segments;
  }
  return out;
}

std::optional<size_t> pickDump(const std::vector<Dump>& dumps, std::string_view which, std::string& why) {
  if (dumps.empty()) {
    why = "the text holds no dump";
    return std::nullopt;
  }
  if (which == "all") return dumps.size();
  if (which == "first") return 0;
  if (which == "last") return dumps.size() - 1;
  if (which.empty() || which == "before-concretization") {
    for (size_t i = 0; i < dumps.size(); ++i)
      if (dumps[i].kind == Dump::Kind::Symbolic || dumps[i].kind == Dump::Kind::HostProgram) return i;
    if (which.empty()) return 0;
    why = "no dump before concretization (no `Fusion before concretization:` or unlabelled print)";
    return std::nullopt;
  }
  if (which == "after-concretization" || which == "concretized") {
    for (size_t i = 0; i < dumps.size(); ++i)
      if (dumps[i].kind == Dump::Kind::Concretized) return i;
    why = "no concretized dump (`Concretized Fusion:`) in the text";
    return std::nullopt;
  }
  if (!which.empty() && which.find_first_not_of("0123456789") == std::string_view::npos && which.size() < 9) {
    size_t k = static_cast<size_t>(std::strtoul(std::string(which).c_str(), nullptr, 10));
    if (k >= 1 && k <= dumps.size()) return k - 1;
    why = "dump " + std::string(which) + " does not exist: the text holds " + std::to_string(dumps.size()) +
          " dump(s)";
    return std::nullopt;
  }
  why = "--dump takes a number, first, last, before-concretization, after-concretization or all";
  return std::nullopt;
}

}  // namespace fc::ir_text
