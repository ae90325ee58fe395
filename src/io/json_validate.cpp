// Error-path JSON validator (see json_validate.h). One forward pass with an
// explicit stack of open containers; O(n) time, O(depth) memory.
#include "io/json_validate.h"

#include <vector>

#include "io/json_scan.h"

namespace fc {
namespace {

// Length of the UTF-8 sequence at t[i] if valid, 0 if invalid, and sets
// `truncated` when the sequence is a valid prefix cut by the end of text.
size_t utf8Seq(std::string_view t, size_t i, bool& truncated) {
  truncated = false;
  auto b = [&](size_t k) { return static_cast<unsigned char>(t[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= t.size()) {
      truncated = true;
      return 0;
    }
    unsigned char d = b(i + k);
    unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (d < l || d > h) return 0;
  }
  return n;
}

struct Frame {
  bool object = false;
  size_t index = 0;
  bool has_key = false;
  std::string key;
};

std::string pointerOf(const std::vector<Frame>& st) {
  JsonPointer p;
  for (const Frame& f : st) {
    if (f.object) {
      if (!f.has_key) break;
      p = p.key(f.key);
    } else {
      p = p.index(f.index);
    }
  }
  return p.str();
}

}  // namespace

std::optional<size_t> findInvalidUtf8(std::string_view t) {
  size_t i = 0;
  while (i < t.size()) {
    if (static_cast<unsigned char>(t[i]) < 0x80) {
      ++i;
      continue;
    }
    bool trunc = false;
    size_t n = utf8Seq(t, i, trunc);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::optional<JsonProblem> validateJson(std::string_view t) {
  using namespace jsonscan;
  std::vector<Frame> st;
  auto problem = [&](DiagCode code, size_t off, std::string msg) {
    return JsonProblem{code, off, pointerOf(st), std::move(msg)};
  };
  auto truncated = [&](std::string what) {
    return problem(DiagCode::JsonTruncated, t.size(), "the JSON text ends " + what);
  };

  if (auto bad = findInvalidUtf8(t)) {
    bool trunc = false;
    utf8Seq(t, *bad, trunc);
    if (!trunc) return JsonProblem{DiagCode::InvalidUtf8, *bad, "", "invalid UTF-8 byte sequence"};
    // A multi-byte character cut by the end of the file: the file is truncated
    // (the structural scan below says where).
  }

  enum class St { Value, ArrValueOrEnd, ObjKeyOrEnd, ObjKey, AfterValue };
  St s = St::Value;
  size_t pos = 0;
  // The innermost array or object ends at `pos`, which a comma or the end of its parent may follow.
  auto close = [&] {
    st.pop_back();
    ++pos;
    s = St::AfterValue;
  };
  // `close` where the container may end before its first element (`[]`, `{}`, state `where`).
  auto closesEmpty = [&](St where, char closer) {
    if (s != where || t[pos] != closer) return false;
    close();
    return true;
  };
  pos = skipWs(t, 0);
  if (pos >= t.size()) return truncated("before any value (the file is empty)");
  while (true) {
    pos = skipWs(t, pos);
    switch (s) {
      case St::Value:
      case St::ArrValueOrEnd: {
        if (pos >= t.size()) return truncated("where a value was expected");
        if (closesEmpty(St::ArrValueOrEnd, ']')) break;
        char c = t[pos];
        if (c == '{' || c == '[') {
          if (st.size() >= kMaxJsonDepth)
            return problem(DiagCode::JsonTooDeep, pos,
                           "the JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
          st.push_back(Frame{c == '{', 0, false, {}});
          ++pos;
          s = c == '{' ? St::ObjKeyOrEnd : St::ArrValueOrEnd;
          break;
        }
        if (c == '"') {
          size_t end = 0;
          StrStatus ss = scanString(t, pos, end, nullptr);
          if (ss == StrStatus::Unterminated) return truncated("inside a string");
          if (ss == StrStatus::BadEscape)
            return problem(DiagCode::JsonSyntax, end, "invalid escape in a string");
          if (ss == StrStatus::ControlChar)
            return problem(DiagCode::JsonSyntax, end, "unescaped control character in a string");
          pos = end;
          s = St::AfterValue;
          break;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
          size_t end = 0;
          NumStatus ns = scanNumber(t, pos, end);
          if (ns == NumStatus::Truncated) return truncated("inside a number");
          if (ns == NumStatus::Bad) return problem(DiagCode::JsonSyntax, end, "malformed number");
          pos = end;
          s = St::AfterValue;
          break;
        }
        if (c == 't' || c == 'f' || c == 'n') {
          std::string_view lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
          std::string_view have = t.substr(pos, lit.size());
          if (have == lit) {
            pos += lit.size();
            s = St::AfterValue;
            break;
          }
          if (have.size() < lit.size() && lit.substr(0, have.size()) == have)
            return truncated("inside a literal");
          return problem(DiagCode::JsonSyntax, pos, "invalid literal (expected true, false or null)");
        }
        return problem(DiagCode::JsonSyntax, pos, std::string("expected a JSON value, found '") + c + "'");
      }
      case St::ObjKeyOrEnd:
      case St::ObjKey: {
        if (pos >= t.size()) return truncated("inside an object");
        if (closesEmpty(St::ObjKeyOrEnd, '}')) break;
        char c = t[pos];
        if (c != '"')
          return problem(DiagCode::JsonSyntax, pos, std::string("expected a string key, found '") + c + "'");
        Frame& f = st.back();
        f.key.clear();
        size_t end = 0;
        StrStatus ss = scanString(t, pos, end, &f.key);
        if (ss == StrStatus::Unterminated) return truncated("inside an object key");
        if (ss != StrStatus::Ok) return problem(DiagCode::JsonSyntax, end, "invalid object key");
        f.has_key = true;
        pos = skipWs(t, end);
        if (pos >= t.size()) return truncated("after an object key");
        if (t[pos] != ':')
          return problem(DiagCode::JsonSyntax, pos,
                         std::string("expected ':' after an object key, found '") + t[pos] + "'");
        ++pos;
        s = St::Value;
        break;
      }
      case St::AfterValue: {
        if (st.empty()) {
          if (pos < t.size())
            return problem(DiagCode::JsonSyntax, pos, "unexpected text after the JSON document");
          return std::nullopt;
        }
        if (pos >= t.size()) return truncated(st.back().object ? "inside an object" : "inside an array");
        char c = t[pos];
        Frame& f = st.back();
        if (c == ',') {
          ++pos;
          ++f.index;
          if (f.object) {
            f.has_key = false;
            s = St::ObjKey;
          } else {
            s = St::Value;
          }
          break;
        }
        if (c == (f.object ? '}' : ']')) {
          close();
          break;
        }
        return problem(DiagCode::JsonSyntax, pos,
                       std::string("expected ',' or '") + (f.object ? '}' : ']') + "', found '" + c + "'");
      }
    }
  }
}

}  // namespace fc
