// Dating a print by its style (see style.h).
#include "io/ir/style.h"

#include <algorithm>
#include <cstring>

namespace fc::ir_text {
namespace {

// The merges that changed the print (first-parent commits of nvFuser's main).
constexpr const char* kStructuredSize = "f685a9f174691e52662364604768b2af7c6553e4";  // #684
constexpr const char* kDtypeInName = "8147bfdd52a84e448c3fc893545b17c2b7bec40e";     // #2889
constexpr const char* kTightBrackets = "c154e90919c40bfe2202b432c2a38e106d1a5444";   // #3444

}  // namespace

PrintEra detectPrintEra(const Lexer& lex, size_t begin, size_t end) {
  const auto& t = lex.tokens();
  end = std::min(end, t.size() - 1);
  int padded = 0, tight = 0, dtype = 0, plain = 0, size_extent = 0;
  for (size_t i = begin; i + 2 < end; ++i) {
    if (t[i].kind != Tok::Ident) continue;
    std::string_view s = lex.str(i);
    if (s.size() > 3 && s[0] == 'T' && i + 1 < end && lex.str(i + 1) == "[" &&
        s.find('_') != std::string_view::npos) {
      size_t u = s.find('_');
      bool named_dtype = s.find('_', u + 1) != std::string_view::npos;
      (named_dtype ? dtype : plain)++;
      if (lex.str(i + 2) == "]") continue;  // an empty domain says nothing about padding
      (t[i + 2].space_before ? padded : tight)++;
    }
    if (s.size() > 1 && s[0] == 'T' && lex.str(i + 1) == "." && i + 2 < end && lex.str(i + 2) == "size")
      ++size_extent;
  }
  PrintEra e;
  if (padded + tight == 0 && dtype + plain == 0) return e;
  bool pad = padded >= tight, dt = dtype > plain;
  if (size_extent > 0 && !dt) {
    e.style = "padded brackets, extents written T0.size[0]";
    e.before = "2023-08-19";
    e.before_commit = kStructuredSize;
    e.evidence = "nvFuser #684 replaced the named sizes T0.size[0] by getMetaData(T0).logical_size[0]";
  } else if (pad && !dt) {
    e.style = "padded brackets, no dtype in names";
    e.before = "2024-09-04";
    e.before_commit = kDtypeInName;
    e.evidence = "nvFuser #2889 added the dtype to tensor names";
  } else if (pad && dt) {
    e.style = "padded brackets, dtype in names";
    e.after = "2024-09-04";
    e.before = "2024-11-30";
    e.from_commit = kDtypeInName;
    e.before_commit = kTightBrackets;
    e.evidence = "nvFuser #2889 added the dtype to names, #3444 removed the padding";
  } else if (!pad && dt) {
    e.style = "tight brackets, dtype in names";
    e.after = "2024-11-30";
    e.from_commit = kTightBrackets;
    e.evidence = "nvFuser #3444 removed the padding";
  } else {
    e.style = "tight brackets, no dtype in names";
    e.evidence = "no nvFuser print has this style (a hand-edited print)";
  }
  return e;
}

std::string describePrintEra(const PrintEra& e) {
  std::string when;
  if (!e.after.empty() && !e.before.empty())
    when = "between " + e.after + " and " + e.before;
  else if (!e.after.empty())
    when = "on or after " + e.after;
  else if (!e.before.empty())
    when = "before " + e.before;
  else
    when = "at an unknown date";
  return "printed " + when + " (" + e.style + "; " + e.evidence + ")";
}

}  // namespace fc::ir_text
