// JSON pointer -> byte offset, on the error path only (see json_locate.h).
// locateJsonPointer is one forward scan: O(bytes before the target), no
// recursion (nested values are skipped with a depth counter). With duplicate
// keys the first occurrence wins. fillLocations shares one index of the
// containers it walks (each array's element offsets, each object's keys,
// scanned once), so locating d diagnostics costs O(bytes + d x depth), not
// O(d x bytes), which matters with thousands of findings on a large
// repro; a pointer that does not resolve falls back to its longest
// resolving prefix.
#include "io/json_locate.h"

#include <string>
#include <unordered_map>

#include "io/json_scan.h"
#include "io/place_pointer.h"

namespace fc {

bool splitPointer(std::string_view p, std::vector<std::string>& out) {
  out.clear();
  if (p.empty()) return true;
  if (p[0] != '/') return false;
  std::string cur;
  for (size_t i = 1; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    if (p[i] == '~') {
      if (i + 1 >= p.size()) return false;
      if (p[i + 1] == '0')
        cur += '~';
      else if (p[i + 1] == '1')
        cur += '/';
      else
        return false;
      ++i;
      continue;
    }
    cur += p[i];
  }
  return true;
}

bool parsePointerIndex(std::string_view s, size_t& out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0') || s.size() > 18) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<size_t>(c - '0');
  }
  return true;
}

namespace {

using jsonscan::kNpos;
using jsonscan::skipWs;

size_t skipValue(std::string_view t, size_t i, const SourceText* recorded = nullptr);

// An array the reader recorded is skipped from its last element: O(last
// element), not O(array) (the root object's scan for its keys would
// otherwise pass over the whole `tensors` and `exprs` arrays).
size_t skipRecordedArray(std::string_view t, const std::vector<size_t>& elems, const SourceText* recorded) {
  size_t pos = skipValue(t, elems.back(), recorded);
  if (pos == kNpos) return kNpos;
  pos = skipWs(t, pos);
  return pos < t.size() && t[pos] == ']' ? pos + 1 : kNpos;
}

// Offset just past the value starting at t[i], or kNpos.
size_t skipValue(std::string_view t, size_t i, const SourceText* recorded) {
  if (i >= t.size()) return kNpos;
  char c = t[i];
  if (c == '[' && recorded != nullptr) {
    const std::vector<size_t>* elems = recorded->recordedArray(i);
    if (elems != nullptr && !elems->empty()) {
      size_t end = skipRecordedArray(t, *elems, recorded);
      if (end != kNpos) return end;
    }
  }
  if (c == '"') {
    size_t end = 0;
    return jsonscan::scanString(t, i, end, nullptr) == jsonscan::StrStatus::Ok ? end : kNpos;
  }
  if (c == '{' || c == '[') {
    size_t depth = 0;
    while (i < t.size()) {
      char d = t[i];
      if (d == '"') {
        size_t end = 0;
        if (jsonscan::scanString(t, i, end, nullptr) != jsonscan::StrStatus::Ok) return kNpos;
        i = end;
        continue;
      }
      if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (depth == 0) return kNpos;
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return kNpos;
  }
  // number or literal: up to the next delimiter
  size_t j = i;
  while (j < t.size() && t[j] != ',' && t[j] != '}' && t[j] != ']' && !jsonscan::isWs(t[j])) ++j;
  return j == i ? kNpos : j;
}

// Offsets of the values inside each container visited, filled on first
// visit by one scan of the container (up to its end or a malformed part), or
// taken from the arrays the reader recorded as it walked them.
struct ContainerIndex {
  const SourceText* source = nullptr;
  std::unordered_map<size_t, std::vector<size_t>> arrays;  // '[' offset -> element offsets
  std::unordered_map<size_t, std::unordered_map<std::string, size_t>> objects;  // '{' -> key -> value

  // Where the element after the value at `pos` (and its comma) starts;
  // kNpos at the container's end or on malformed text.
  size_t nextElement(std::string_view t, size_t pos) const {
    pos = skipValue(t, pos, source);
    if (pos == kNpos) return kNpos;
    pos = skipWs(t, pos);
    if (pos >= t.size() || t[pos] != ',') return kNpos;
    return skipWs(t, pos + 1);
  }

  const std::vector<size_t>& array(std::string_view t, size_t open) {
    if (source != nullptr)
      if (const std::vector<size_t>* recorded = source->recordedArray(open)) return *recorded;
    auto [it, fresh] = arrays.try_emplace(open);
    if (!fresh) return it->second;
    std::vector<size_t>& out = it->second;
    size_t pos = skipWs(t, open + 1);
    while (pos < t.size() && t[pos] != ']') {
      out.push_back(pos);
      pos = nextElement(t, pos);
    }
    return out;
  }

  const std::unordered_map<std::string, size_t>& object(std::string_view t, size_t open) {
    auto [it, fresh] = objects.try_emplace(open);
    if (!fresh) return it->second;
    auto& out = it->second;
    size_t pos = skipWs(t, open + 1);
    std::string key;
    while (pos < t.size() && t[pos] == '"') {
      key.clear();
      size_t end = 0;
      if (jsonscan::scanString(t, pos, end, &key) != jsonscan::StrStatus::Ok) break;
      pos = skipWs(t, end);
      if (pos >= t.size() || t[pos] != ':') break;
      pos = skipWs(t, pos + 1);
      out.emplace(key, pos);  // first occurrence wins
      pos = nextElement(t, pos);
    }
    return out;
  }
};

// locateTokens through the index: each container is scanned at most once.
std::optional<size_t> locateIndexed(std::string_view t, ContainerIndex& idx,
                                    const std::vector<std::string>& tokens, size_t ntokens) {
  size_t pos = skipWs(t, 0);
  if (pos >= t.size()) return std::nullopt;
  for (size_t k = 0; k < ntokens; ++k) {
    if (pos >= t.size()) return std::nullopt;
    if (t[pos] == '{') {
      const auto& keys = idx.object(t, pos);
      auto it = keys.find(tokens[k]);
      if (it == keys.end()) return std::nullopt;
      pos = it->second;
    } else if (t[pos] == '[') {
      size_t want = 0;
      if (!parsePointerIndex(tokens[k], want)) return std::nullopt;
      const auto& elems = idx.array(t, pos);
      if (want >= elems.size()) return std::nullopt;
      pos = elems[want];
    } else {
      return std::nullopt;
    }
  }
  if (pos >= t.size()) return std::nullopt;
  return pos;
}

std::optional<size_t> locateTokens(std::string_view t, const std::vector<std::string>& tokens,
                                   size_t ntokens) {
  size_t pos = skipWs(t, 0);
  if (pos >= t.size()) return std::nullopt;
  std::string key;
  for (size_t k = 0; k < ntokens; ++k) {
    const std::string& tok = tokens[k];
    if (pos >= t.size()) return std::nullopt;
    if (t[pos] == '{') {
      pos = skipWs(t, pos + 1);
      bool found = false;
      while (pos < t.size() && t[pos] == '"') {
        key.clear();
        size_t end = 0;
        if (jsonscan::scanString(t, pos, end, &key) != jsonscan::StrStatus::Ok) return std::nullopt;
        pos = skipWs(t, end);
        if (pos >= t.size() || t[pos] != ':') return std::nullopt;
        pos = skipWs(t, pos + 1);
        if (key == tok) {
          found = true;
          break;
        }
        pos = skipValue(t, pos);
        if (pos == kNpos) return std::nullopt;
        pos = skipWs(t, pos);
        if (pos >= t.size() || t[pos] != ',') return std::nullopt;
        pos = skipWs(t, pos + 1);
      }
      if (!found) return std::nullopt;
    } else if (t[pos] == '[') {
      size_t want = 0;
      if (!parsePointerIndex(tok, want)) return std::nullopt;
      pos = skipWs(t, pos + 1);
      if (pos >= t.size() || t[pos] == ']') return std::nullopt;
      for (size_t i = 0; i < want; ++i) {
        pos = skipValue(t, pos);
        if (pos == kNpos) return std::nullopt;
        pos = skipWs(t, pos);
        if (pos >= t.size() || t[pos] != ',') return std::nullopt;
        pos = skipWs(t, pos + 1);
      }
      if (pos >= t.size() || t[pos] == ']') return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (pos >= t.size()) return std::nullopt;
  return pos;
}

}  // namespace

std::optional<size_t> locateJsonPointer(std::string_view json, std::string_view pointer) {
  std::vector<std::string> tokens;
  if (!splitPointer(pointer, tokens)) return std::nullopt;
  return locateTokens(json, tokens, tokens.size());
}

namespace {

void fillOne(Location& loc, const SourceText& source, ContainerIndex& idx) {
  if (loc.line > 0) return;
  if (!(loc.file == source.path() || (loc.file.empty() && !loc.pointer.empty()))) return;
  std::vector<std::string> tokens;
  if (!splitPointer(loc.pointer, tokens)) return;
  std::string_view t = source.text();
  // Longest resolving prefix: the full pointer first, then shorter ones.
  for (size_t n = tokens.size() + 1; n-- > 0;) {
    if (auto off = locateIndexed(t, idx, tokens, n)) {
      LineCol lc = source.lineCol(*off);
      loc.line = lc.line;
      loc.col = lc.col;
      if (loc.file.empty()) loc.file = source.path();
      return;
    }
  }
}

}  // namespace

void fillLocations(std::vector<Diagnostic>& diags, const SourceText& source) {
  renderPlaces(diags);
  ContainerIndex idx;
  idx.source = &source;
  for (Diagnostic& d : diags) {
    fillOne(d.loc, source, idx);
    for (Note& n : d.notes) fillOne(n.loc, source, idx);
  }
}

}  // namespace fc
