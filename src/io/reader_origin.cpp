// The reader's "origin", "nvfuser" and "source" (reader_internal.h), format /2:
// how the repro was made and run, the nvFuser point it records, and where the
// text it was imported from defines its nodes. The point's text is kept as
// written; the pipeline resolves it.
#include <algorithm>
#include <charconv>
#include <string>

#include "io/json_scan.h"
#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

constexpr std::array<std::string_view, 7> kOriginKeys = {
    "kind", "frontend", "executor", "detail", "keywords", "printed_from", "printed_before"};
constexpr std::array<std::string_view, 3> kKeywordKeys = {"call", "keyword", "at"};
constexpr std::array<std::string_view, 3> kNvfuserKeys = {"point", "version", "commit"};
constexpr std::array<std::string_view, 4> kSourceKeys = {"file", "tensors", "scalars", "exprs"};

// "14:10" -> {14, 10}; {0, 0} when it is no line:col of positive numbers.
LineCol parseLineCol(std::string_view s) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) return {};
  int line = 0, col = 0;
  auto a = std::from_chars(s.data(), s.data() + colon, line);
  auto b = std::from_chars(s.data() + colon + 1, s.data() + s.size(), col);
  if (a.ec != std::errc() || a.ptr != s.data() + colon || b.ec != std::errc() ||
      b.ptr != s.data() + s.size() || line < 1 || col < 1)
    return {};
  return {line, col};
}
constexpr std::array<std::string_view, 6> kOriginKinds = {"python-legacy", "python-direct",  "cpp-test",
                                                          "printed-ir",    "segmented-dump", "json"};
constexpr std::array<std::string_view, 3> kOriginFrontends = {"python", "direct", "cpp"};
constexpr std::array<std::string_view, 4> kOriginExecutors = {"fec", "mde", "mde-fec", "hostir"};

}  // namespace

template <size_t N, class F>
bool Reader::readStringObject(sj::value& v, const std::array<std::string_view, N>& keys, uint32_t& seen,
                              F&& fn) {
  return readObject(v, keys, seen, [&](int k, sj::value& y) {
    std::string_view s;
    if (getString(y, s)) fn(k, s);
  });
}

void Reader::readOrigin(sj::value& v) {
  ReproOrigin r;
  uint32_t seen = 0;
  bool read = readObject(v, kOriginKeys, seen, [&](int k, sj::value& y) {
    if (k == 4) {
      readKeywordUses(y, r.keywords);
      return;
    }
    std::string_view s;
    if (!getString(y, s)) return;
    // The first three keys take a word from a closed set.
    auto closed = [&](const auto& set, const char* what) {
      if (std::find(set.begin(), set.end(), s) != set.end()) return true;
      std::string list;
      for (auto x : set) list += (list.empty() ? "" : ", ") + std::string(x);
      error(DiagCode::BadEnum, "unknown " + std::string(what) + " \"" + jsonscan::clipForMessage(s) +
                                   "\" (expected one of: " + list + ")");
      return false;
    };
    switch (k) {
      case 0:
        if (closed(kOriginKinds, "origin kind")) r.kind = std::string(s);
        return;
      case 1:
        if (closed(kOriginFrontends, "frontend")) r.frontend = std::string(s);
        return;
      case 2:
        if (closed(kOriginExecutors, "executor")) r.executor = std::string(s);
        return;
      case 5:
      case 6:
        // A commit of nvFuser's main, 7 to 40 hex digits; the pipeline resolves it.
        if (s.size() < 7 || s.size() > 40 ||
            s.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
          error(DiagCode::BadEnum, std::string(kOriginKeys[k]) + " \"" + jsonscan::clipForMessage(s) +
                                       "\" is not a commit (7 to 40 lowercase hex digits)");
          return;
        }
        (k == 5 ? r.printed_from : r.printed_before) = std::string(s);
        return;
      default: r.detail = std::string(s); return;
    }
  });
  if (!read || !requireKeys(seen, kOriginKeys, {0})) return;
  f_.origin = std::move(r);
}

// "keywords": [{"call": "fd.ops.sum", "keyword": "axes", "at": "9:24"}, ...]; "at" is optional.
void Reader::readKeywordUses(sj::value& v, std::vector<KeywordUse>& out) {
  eachElementOf(v, [&](size_t, sj::value& x) {
    KeywordUse u;
    uint32_t seen = 0;
    bool ok = true;
    bool read = readStringObject(x, kKeywordKeys, seen, [&](int k, std::string_view s) {
      if (k == 0) u.call = std::string(s);
      if (k == 1) u.keyword = std::string(s);
      if (k == 2) {
        u.at = parseLineCol(s);
        if (u.at.line == 0) {
          error(DiagCode::WrongType,
                "expected \"line:col\" (two numbers from 1), found \"" + jsonscan::clipForMessage(s) + "\"");
          ok = false;
        }
      }
    });
    if (!read || !ok || !requireKeys(seen, kKeywordKeys, {0, 1})) return false;
    out.push_back(std::move(u));
    return true;
  });
}

void Reader::readRecordedPoint(sj::value& v) {
  RecordedPoint r;
  uint32_t seen = 0;
  bool read = readStringObject(v, kNvfuserKeys, seen, [&](int k, std::string_view s) {
    (k == 0 ? r.point : k == 1 ? r.version : r.commit) = std::string(s);
  });
  if (!read) return;
  f_.nvfuser = std::move(r);
}

void Reader::readSource(sj::value& v) {
  SourcePositions p;
  uint32_t seen = 0;
  bool read = readObject(v, kSourceKeys, seen, [&](int k, sj::value& y) {
    if (k == 0) {
      std::string_view s;
      if (getString(y, s)) p.file = std::string(s);
      return;
    }
    std::vector<LineCol>& out = k == 1 ? p.tensors : k == 2 ? source_scalars_ : p.exprs;
    eachElementOf(y, [&](size_t, sj::value& x) {
      sj::json_type t;
      if (!getType(x, t)) return false;
      if (t == sj::json_type::null) {
        out.push_back({});
        return true;
      }
      std::string_view s;
      if (!getString(x, s, "\"line:col\" or null")) return false;
      LineCol lc = parseLineCol(s);
      if (lc.line == 0) {
        error(DiagCode::WrongType, "expected \"line:col\" (two numbers from 1) or null, found \"" +
                                       jsonscan::clipForMessage(s) + "\"");
        return false;
      }
      out.push_back(lc);
      return true;
    });
  });
  if (!read || !requireKeys(seen, kSourceKeys, {0})) return;
  f_.source = std::move(p);
}

// The positions name nodes the repro has; scalars' move from "scalars" order to ids.
void Reader::finishSource() {
  if (!f_.source) return;
  SourcePositions& p = *f_.source;
  auto tooMany = [&](DiagCode code, const char* key, size_t n, size_t have, const char* what) {
    errorAt(code,
            "\"source\" has positions for " + std::to_string(n) + " " + what + "; the repro has " +
                std::to_string(have),
            JsonPointer().key("source").key(key).index(have).str());
  };
  size_t declared = 0;
  for (const Scalar& s : f_.scalars)
    if (s.decl != kNone) declared = std::max<size_t>(declared, s.decl + 1);
  if (p.tensors.size() > f_.tensors.size())
    tooMany(DiagCode::DanglingTensor, "tensors", p.tensors.size(), f_.tensors.size(), "tensors");
  if (source_scalars_.size() > declared)
    tooMany(DiagCode::DanglingScalar, "scalars", source_scalars_.size(), declared, "declared scalars");
  if (p.exprs.size() > f_.exprs.size())
    tooMany(DiagCode::DanglingExpr, "exprs", p.exprs.size(), f_.exprs.size(), "exprs");
  if (source_scalars_.empty()) return;
  p.scalars.assign(f_.scalars.size(), LineCol{});
  for (ScalarId s = 0; s < f_.scalars.size(); ++s)
    if (f_.scalars[s].decl < source_scalars_.size()) p.scalars[s] = source_scalars_[f_.scalars[s].decl];
}

}  // namespace fc::reader_detail
