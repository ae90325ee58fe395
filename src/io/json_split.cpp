#include "io/json_split.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/prefault.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fc::jsonsplit {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool allSpace(std::string_view t, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (!isSpace(t[i])) return false;
  return true;
}

// Set bits of a 64-bit mask. Without the POPCNT instruction enabled (the
// build targets plain x86-64) std::popcount is a call into libgcc, which
// profiled at ~2.5% of a 1M `check`; the inline bit count is a dozen
// instructions without a call.
inline int bitCount(uint64_t x) {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(_M_X64))
  return std::popcount(x);
#else
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

// What pass 1 learns of a block, scanning it as if it began outside a string.
struct Count {
  uint64_t quotes = 0;      // unescaped quotes
  int64_t balance[2] = {};  // openers minus closers, outside / inside a string
};

// A structural byte at depth 2 or less, as pass 2 records it: the offset,
// the depth (of the container it opens, closes or separates in: 0 for the
// top-level braces) and which byte.
struct Event {
  uint64_t bits;
  static constexpr uint64_t kOpen = 0, kClose = 1, kComma = 2, kColon = 3;
  static Event make(size_t pos, int depth, uint64_t kind) {
    return Event{(static_cast<uint64_t>(pos) << 4) | (static_cast<uint64_t>(depth) << 2) | kind};
  }
  size_t pos() const { return static_cast<size_t>(bits >> 4); }
  int depth() const { return static_cast<int>((bits >> 2) & 3); }
  uint64_t kind() const { return bits & 3; }
};

// The bytes of one 64-byte stretch that matter here, a bit per byte.
struct Masks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0, comma = 0, colon = 0;
};

Masks classify(const char* p) {
  Masks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  // '{' and '[' differ in bit 0x20 only, as do '}' and ']'.
  const __m128i bit = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  const __m128i comma = _mm_set1_epi8(','), colon = _mm_set1_epi8(':');
  for (int j = 0; j < 4; ++j) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * j));
    __m128i folded = _mm_or_si128(v, bit);
    auto bits = [&](__m128i eq) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(eq))) << (16 * j);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, quote));
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
    m.open |= bits(_mm_cmpeq_epi8(folded, open));
    m.close |= bits(_mm_cmpeq_epi8(folded, close));
    m.comma |= bits(_mm_cmpeq_epi8(v, comma));
    m.colon |= bits(_mm_cmpeq_epi8(v, colon));
  }
#else
  for (int i = 0; i < 64; ++i) {
    const uint64_t b = uint64_t{1} << i;
    switch (p[i]) {
      case '"': m.quote |= b; break;
      case '\\': m.backslash |= b; break;
      case '{':
      case '[': m.open |= b; break;
      case '}':
      case ']': m.close |= b; break;
      case ',': m.comma |= b; break;
      case ':': m.colon |= b; break;
      default: break;
    }
  }
#endif
  return m;
}

// The bytes escaped by a backslash (the rule of strings, applied
// everywhere: see the header). `carry`: the stretch's first byte is escaped
// on entry; on return, the next stretch's first byte is.
uint64_t escapedBytes(uint64_t backslash, uint64_t& carry) {
  uint64_t escaped = carry;
  carry = 0;
  uint64_t b = backslash & ~escaped;
  while (b != 0) {
    const uint64_t low = b & (~b + 1);  // the first backslash not escaped itself
    const uint64_t next = low << 1;     // the byte it escapes
    if (next == 0) carry = 1;
    escaped |= next;
    b &= ~(low | next);
  }
  return escaped;
}

// Bit i set when byte i lies inside a string (its opening quote included),
// from the unescaped quotes; `in`: inside a string on entry, and on return.
uint64_t insideStrings(uint64_t quotes, bool& in) {
  uint64_t s = quotes;
  for (int shift = 1; shift < 64; shift *= 2) s ^= s << shift;
  if (in) s = ~s;
  in = (s >> 63) != 0;
  return s;
}

// Walks [lo, hi) a stretch at a time; the last, short stretch is read from a
// copy padded with spaces.
template <class F>
void eachStretch(const char* p, size_t lo, size_t hi, F&& fn) {
  size_t i = lo;
  for (; i + 64 <= hi; i += 64) fn(i, classify(p + i));
  if (i < hi) {
    char tail[64];
    std::memset(tail, ' ', sizeof tail);
    std::memcpy(tail, p + i, hi - i);
    fn(i, classify(tail));
  }
}

Count countBlock(const char* p, size_t lo, size_t hi) {
  Count c;
  uint64_t carry = 0;
  bool in = false;
  eachStretch(p, lo, hi, [&](size_t, const Masks& m) {
    const uint64_t escaped = escapedBytes(m.backslash, carry);
    const uint64_t quotes = m.quote & ~escaped;
    const uint64_t inside = insideStrings(quotes, in);
    const uint64_t open = m.open & ~escaped, close = m.close & ~escaped;
    c.quotes += static_cast<uint64_t>(bitCount(quotes));
    c.balance[0] += bitCount(open & ~inside) - bitCount(close & ~inside);
    c.balance[1] += bitCount(open & inside) - bitCount(close & inside);
  });
  return c;
}

// Pass 2's record of a block: the events at depth 0 and 1 (the top-level
// object's own), and those at depth 2 (inside its values: the elements of
// the arrays to split, among others).
struct Events {
  std::vector<Event> top, inner;
};

// Pass 2 over [lo, hi) from its true state. False when the depth goes below
// zero (then the text is not split).
bool recordBlock(const char* p, size_t lo, size_t hi, bool in, int64_t depth, Events& out) {
  out.inner.reserve((hi - lo) / 32);
  uint64_t carry = 0;
  bool ok = true;
  auto put = [&](size_t pos, int64_t d, uint64_t kind) {
    (d == 2 ? out.inner : out.top).push_back(Event::make(pos, static_cast<int>(d), kind));
  };
  eachStretch(p, lo, hi, [&](size_t at, const Masks& m) {
    const uint64_t escaped = escapedBytes(m.backslash, carry);
    const uint64_t inside = insideStrings(m.quote & ~escaped, in);
    const uint64_t outside = ~inside & ~escaped;
    const uint64_t open = m.open & outside, close = m.close & outside;
    // Deep inside an element with no closer here: nothing to record.
    if (depth >= 3 && close == 0) {
      depth += bitCount(open);
      return;
    }
    // The brackets one by one; the commas and colons only between two
    // brackets where the depth is 1 or 2 (most lie deeper, inside elements).
    const uint64_t seps = (m.comma | m.colon) & outside;
    auto separators = [&](int from, int to) {  // bytes from+1 .. to-1, all at `depth`
      if (depth < 1 || depth > 2 || seps == 0) return;
      uint64_t span = to >= 64 ? ~uint64_t{0} : (uint64_t{1} << to) - 1;
      span &= from + 1 >= 64 ? 0 : ~((uint64_t{1} << (from + 1)) - 1);
      for (uint64_t x = seps & span; x != 0; x &= x - 1) {
        const int i = std::countr_zero(x);
        const size_t pos = at + static_cast<size_t>(i);
        if ((m.comma >> i) & 1)
          put(pos, depth, Event::kComma);
        else if (depth == 1)
          put(pos, 1, Event::kColon);
      }
    };
    int prev = -1;
    for (uint64_t x = open | close; x != 0; x &= x - 1) {
      const int i = std::countr_zero(x);
      separators(prev, i);
      prev = i;
      const size_t pos = at + static_cast<size_t>(i);
      if ((open >> i) & 1) {
        if (depth <= 2) put(pos, depth, Event::kOpen);
        ++depth;
      } else {
        --depth;
        if (depth < 0) {
          ok = false;
          depth = 0;
        }
        if (depth <= 2) put(pos, depth, Event::kClose);
      }
    }
    separators(prev, 64);
  });
  return ok;
}

// The top-level object's keys, from its own events: which values are arrays
// to split, and where each opens and closes. Their contents are checked by
// checkArrays.
bool findArrays(std::string_view text, const std::vector<Events>& events,
                std::span<const std::string_view> keys, Split& out) {
  const char* p = text.data();
  std::vector<uint8_t> seen(keys.size(), 0);
  bool opened = false, closed = false, in_array = false;
  size_t last_sep = 0;  // the top-level '{' or the last ',' at depth 1
  int want = -1;        // a matched key's index, until its value's '['
  size_t colon = 0;
  for (const Events& block : events) {
    for (Event e : block.top) {
      const size_t pos = e.pos();
      const int d = e.depth();
      const uint64_t kind = e.kind();
      if (closed) return false;  // something after the top-level object
      if (!opened) {
        if (d != 0 || kind != Event::kOpen || p[pos] != '{') return false;
        opened = true;
        last_sep = pos;
      } else if (in_array) {
        // Only depth-2 events lie between a split array's brackets.
        if (d != 1 || kind != Event::kClose || p[pos] != ']') return false;
        out.arrays.back().close = pos;
        in_array = false;
      } else if (d == 0) {
        if (kind != Event::kClose || p[pos] != '}') return false;
        closed = true;
      } else if (kind == Event::kComma) {
        last_sep = pos;
        want = -1;
      } else if (kind == Event::kColon) {
        want = -1;
        colon = pos;
        size_t lo = last_sep + 1, hi = pos;
        while (lo < hi && isSpace(p[lo])) ++lo;
        while (hi > lo && isSpace(p[hi - 1])) --hi;
        std::string_view key = text.substr(lo, hi - lo);
        if (key.size() < 2 || key.front() != '"' || key.back() != '"') continue;
        key = key.substr(1, key.size() - 2);
        for (size_t i = 0; i < keys.size(); ++i)
          if (key == keys[i]) {
            if (seen[i] != 0) return false;  // a repeated key: the ordinary reader reports it
            seen[i] = 1;
            want = static_cast<int>(i);
          }
      } else if (want >= 0) {
        // A matched key's value: split only an array.
        if (kind != Event::kOpen || p[pos] != '[' || !allSpace(text, colon + 1, pos)) return false;
        out.arrays.push_back(SplitArray{static_cast<size_t>(want), pos, 0, {}});
        in_array = true;
        want = -1;
      }
      // Anything else opens or closes a value that is not split.
    }
  }
  return opened && closed && !in_array && want < 0;
}

// Inside each split array the depth-2 events must read
// ('{' '}' (',' '{' '}')*)? with whitespace only around the commas and next
// to the brackets. Every check needs only the event before in the same
// array, so each block checks its own events (the one before its first is
// the last of an earlier block) and collects the elements that close in it.
bool checkArrays(std::string_view text, const std::vector<Events>& events, Split& out) {
  const char* p = text.data();
  const size_t w = events.size();
  const size_t m = out.arrays.size();
  // Each block's previous depth-2 event in document order; such an event
  // never has all bits zero, so 0 stands for none.
  std::vector<uint64_t> before(w, 0);
  for (size_t k = 1; k < w; ++k)
    before[k] = events[k - 1].inner.empty() ? before[k - 1] : events[k - 1].inner.back().bits;
  // The array holding `pos`, or m.
  auto arrayOf = [&](size_t pos) {
    auto it = std::upper_bound(out.arrays.begin(), out.arrays.end(), pos,
                               [](size_t at, const SplitArray& a) { return at < a.open; });
    if (it == out.arrays.begin()) return m;
    size_t j = static_cast<size_t>(it - out.arrays.begin()) - 1;
    return pos < out.arrays[j].close ? j : m;
  };
  std::vector<std::vector<std::string_view>> found(w);
  std::vector<std::vector<size_t>> counts(w);
  std::vector<uint8_t> ok(w, 1);
  parallelFor(w, [&](size_t k) {
    Event prev{before[k]};
    // Filled here and moved once: the blocks' vectors share cache lines.
    std::vector<std::string_view> elements;
    std::vector<size_t> count(m, 0);
    elements.reserve(events[k].inner.size() / 3 + 1);
    for (Event e : events[k].inner) {
      const size_t pos = e.pos();
      const size_t j = arrayOf(pos);
      if (j < m) {
        const SplitArray& a = out.arrays[j];
        const bool first = prev.bits == 0 || prev.pos() < a.open;
        bool good = false;
        switch (e.kind()) {
          case Event::kOpen:
            good = p[pos] == '{' &&
                   (first ? allSpace(text, a.open + 1, pos)
                          : prev.kind() == Event::kComma && allSpace(text, prev.pos() + 1, pos));
            break;
          case Event::kClose:
            good = p[pos] == '}' && !first && prev.kind() == Event::kOpen;
            if (good) {
              elements.push_back(text.substr(prev.pos(), pos - prev.pos() + 1));
              ++count[j];
            }
            break;
          case Event::kComma:
            good = !first && prev.kind() == Event::kClose && allSpace(text, prev.pos() + 1, pos);
            break;
          default: break;
        }
        if (!good) {
          ok[k] = 0;
          return;
        }
      }
      prev = e;
    }
    found[k] = std::move(elements);
    counts[k] = std::move(count);
  });
  if (std::find(ok.begin(), ok.end(), 0) != ok.end()) return false;
  // Each array's end: its last event closes an element, or it has none.
  for (SplitArray& a : out.arrays) {
    size_t k = w;
    while (k > 0 && (events[k - 1].inner.empty() || events[k - 1].inner.front().pos() > a.close)) --k;
    size_t last = SIZE_MAX;
    uint64_t kind = Event::kOpen;
    if (k > 0) {
      const auto& in = events[k - 1].inner;
      auto it = std::upper_bound(in.begin(), in.end(), a.close,
                                 [](size_t at, const Event& e) { return at < e.pos(); });
      if (it != in.begin()) {
        last = std::prev(it)->pos();
        kind = std::prev(it)->kind();
      }
    }
    if (last == SIZE_MAX || last < a.open) {
      if (!allSpace(text, a.open + 1, a.close)) return false;  // no element: only whitespace
    } else if (kind != Event::kClose || !allSpace(text, last + 1, a.close)) {
      return false;
    }
  }
  // The elements of array j, block by block.
  std::vector<std::vector<size_t>> at(w + 1, std::vector<size_t>(m, 0));
  for (size_t k = 0; k < w; ++k)
    for (size_t j = 0; j < m; ++j) at[k + 1][j] = at[k][j] + counts[k][j];
  // Millions of elements: their pages are faulted in on every thread before
  // this one sizes the vectors (support/prefault.h).
  for (size_t j = 0; j < m; ++j) resizePrefaulted(out.arrays[j].elements, at[w][j], static_cast<unsigned>(w));
  parallelFor(w, [&](size_t k) {
    size_t from = 0;
    for (size_t j = 0; j < m; ++j) {
      std::copy_n(found[k].begin() + static_cast<std::ptrdiff_t>(from), counts[k][j],
                  out.arrays[j].elements.begin() + static_cast<std::ptrdiff_t>(at[k][j]));
      from += counts[k][j];
    }
  });
  return true;
}

}  // namespace

std::optional<Split> splitTopLevelArrays(std::string_view text, std::span<const std::string_view> keys,
                                         unsigned threads, size_t min_block) {
  const size_t n = text.size();
  const char* p = text.data();
  size_t w = std::max<size_t>(1, std::min<size_t>(threadsFor(threads), n / std::max<size_t>(min_block, 1)));
  // Block bounds; none right after a backslash, so no escape crosses one.
  std::vector<size_t> at(w + 1);
  at[0] = 0;
  at[w] = n;
  for (size_t k = 1; k < w; ++k) {
    size_t b = std::max(at[k - 1], n / w * k);
    while (b < n && b > 0 && p[b - 1] == '\\') ++b;
    at[k] = b;
  }
  PhaseScope count_phase("pass 1: quotes and depth", PhaseScope::Detail{});
  std::vector<Count> counts(w);
  parallelFor(w, [&](size_t k) { counts[k] = countBlock(p, at[k], at[k + 1]); });
  count_phase.stop();
  std::vector<uint8_t> start_in(w);
  std::vector<int64_t> start_depth(w);
  bool in = false;
  int64_t depth = 0;
  for (size_t k = 0; k < w; ++k) {
    start_in[k] = in ? 1 : 0;
    start_depth[k] = depth;
    depth += counts[k].balance[in ? 1 : 0];
    in = in != ((counts[k].quotes & 1) != 0);
  }
  if (in || depth != 0) return std::nullopt;
  PhaseScope record_phase("pass 2: brackets at depth 2 or less", PhaseScope::Detail{});
  std::vector<Events> events(w);
  std::vector<uint8_t> ok(w, 0);
  parallelFor(w, [&](size_t k) {
    Events mine;  // filled here and moved once: the vectors' headers share cache lines
    ok[k] = recordBlock(p, at[k], at[k + 1], start_in[k] != 0, start_depth[k], mine) ? 1 : 0;
    events[k] = std::move(mine);
  });
  if (std::find(ok.begin(), ok.end(), 0) != ok.end()) return std::nullopt;
  record_phase.stop();
  PhaseScope check_phase("keys and elements", PhaseScope::Detail{});
  Split out;
  if (!findArrays(text, events, keys, out) || !checkArrays(text, events, out)) return std::nullopt;
  return out;
}

Skeleton::Skeleton(std::string_view text, const Split& split) {
  size_t removed = 0;
  for (const SplitArray& a : split.arrays) removed += a.close - a.open - 1;
  text_.reserve(text.size() - removed + 64);
  size_t from = 0;
  removed = 0;
  for (const SplitArray& a : split.arrays) {
    text_.append(text.substr(from, a.open + 1 - from));
    removed += a.close - a.open - 1;
    cuts_.emplace_back(text_.size(), removed);
    from = a.close;
  }
  text_.append(text.substr(from));
}

size_t Skeleton::original(size_t offset) const {
  auto it = std::upper_bound(cuts_.begin(), cuts_.end(), offset,
                             [](size_t off, const std::pair<size_t, size_t>& c) { return off < c.first; });
  return it == cuts_.begin() ? offset : offset + std::prev(it)->second;
}

}  // namespace fc::jsonsplit
