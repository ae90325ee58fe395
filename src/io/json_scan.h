// Small JSON token scanners shared by the error-path tools (json_locate,
// json_validate): whitespace, strings (with escape decoding), numbers and
// literals. Each is O(length of the token) and never reads past the text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fc::jsonscan {

inline constexpr size_t kNpos = static_cast<size_t>(-1);

// User text (a key, a number literal) quoted in a message: at most `max`
// bytes, so that a multi-megabyte input does not make a multi-megabyte message.
inline std::string clipForMessage(std::string_view s, size_t max = 64) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "... (" + std::to_string(s.size()) + " bytes)";
}

inline bool isWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline size_t skipWs(std::string_view t, size_t i) {
  while (i < t.size() && isWs(t[i])) ++i;
  return i;
}

inline int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

enum class StrStatus { Ok, Unterminated, BadEscape, ControlChar };

// Scans the string whose opening quote is at t[i]. On Ok, `end` is the offset
// just past the closing quote and `out` (if non-null) holds the decoded text.
// Otherwise `end` is the offset of the problem.
inline StrStatus scanString(std::string_view t, size_t i, size_t& end, std::string* out) {
  ++i;  // opening quote
  while (i < t.size()) {
    auto c = static_cast<unsigned char>(t[i]);
    if (c == '"') {
      end = i + 1;
      return StrStatus::Ok;
    }
    if (c < 0x20) {
      end = i;
      return StrStatus::ControlChar;
    }
    if (c != '\\') {
      if (out) *out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (i + 1 >= t.size()) {
      end = t.size();
      return StrStatus::Unterminated;
    }
    char e = t[i + 1];
    char simple = 0;
    switch (e) {
      case '"': simple = '"'; break;
      case '\\': simple = '\\'; break;
      case '/': simple = '/'; break;
      case 'b': simple = '\b'; break;
      case 'f': simple = '\f'; break;
      case 'n': simple = '\n'; break;
      case 'r': simple = '\r'; break;
      case 't': simple = '\t'; break;
      case 'u': break;
      default: end = i; return StrStatus::BadEscape;
    }
    if (simple) {
      if (out) *out += simple;
      i += 2;
      continue;
    }
    // \uXXXX, possibly a surrogate pair.
    auto hex4 = [&](size_t at, uint32_t& v) {
      if (at + 4 > t.size()) return false;
      v = 0;
      for (size_t k = 0; k < 4; ++k) {
        int h = hexValue(t[at + k]);
        if (h < 0) return false;
        v = v * 16 + static_cast<uint32_t>(h);
      }
      return true;
    };
    uint32_t cp = 0;
    if (!hex4(i + 2, cp)) {
      end = i;
      return i + 6 > t.size() ? StrStatus::Unterminated : StrStatus::BadEscape;
    }
    i += 6;
    if (cp >= 0xD800 && cp < 0xDC00) {
      uint32_t lo = 0;
      if (i + 1 < t.size() && t[i] == '\\' && t[i + 1] == 'u' && hex4(i + 2, lo) && lo >= 0xDC00 &&
          lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      } else {
        end = i - 6;
        return StrStatus::BadEscape;  // lone high surrogate
      }
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      end = i - 6;
      return StrStatus::BadEscape;  // lone low surrogate
    }
    if (out) appendUtf8(*out, cp);
  }
  end = t.size();
  return StrStatus::Unterminated;
}

enum class NumStatus { Ok, Bad, Truncated };

// JSON number grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
inline NumStatus scanNumber(std::string_view t, size_t i, size_t& end) {
  auto digit = [&](size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
  if (i < t.size() && t[i] == '-') ++i;
  if (i >= t.size()) {
    end = i;
    return NumStatus::Truncated;
  }
  if (t[i] == '0') {
    ++i;
  } else if (digit(i)) {
    while (digit(i)) ++i;
  } else {
    end = i;
    return NumStatus::Bad;
  }
  // One or more digits at i (after '.' or the exponent's sign).
  auto digits = [&]() {
    if (i >= t.size()) return NumStatus::Truncated;
    if (!digit(i)) return NumStatus::Bad;
    while (digit(i)) ++i;
    return NumStatus::Ok;
  };
  NumStatus st = NumStatus::Ok;
  if (i < t.size() && t[i] == '.') {
    ++i;
    st = digits();
  }
  if (st == NumStatus::Ok && i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    st = digits();
  }
  end = i;
  return st;
}

}  // namespace fc::jsonscan
