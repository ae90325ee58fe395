// Myers' linear-space diff (E. W. Myers, "An O(ND) Difference Algorithm
// and Its Variations", 1986, §4b): find the middle snake of the shortest
// edit path by searching forward from the start and backward from the end
// at once, split there, and solve both halves. The halves are kept on an
// explicit stack, leftmost first, so the script comes out in order and the
// call depth is constant. Time O((N+M)·D), space O(N+M).
#include "viz/text_diff.h"

#include <algorithm>
#include <unordered_map>

#include "support/internal_error.h"

namespace fc::viz {
namespace {

using Seq = std::vector<uint32_t>;

struct Task {
  bool emit_equal = false;  // a pending common suffix (a_lo, b_lo, count = a_hi - a_lo)
  size_t a_lo = 0, a_hi = 0, b_lo = 0, b_hi = 0;
};

// The split point (x, y), relative to the sub-problem, of a shortest edit
// path from (0,0) to (n,m); n, m >= 1 and the ends differ (prefix and
// suffix already trimmed). Returns false when the two share no line.
bool middleSnake(const Seq& A, const Seq& B, size_t a0, size_t b0, int64_t n, int64_t m, int64_t& sx,
                 int64_t& sy) {
  const int64_t max_d = (n + m + 1) / 2;
  const int64_t off = max_d;
  const int64_t len = 2 * max_d + 2;
  std::vector<int64_t> vf(static_cast<size_t>(len), -1), vb(static_cast<size_t>(len), -1);
  vf[static_cast<size_t>(off + 1)] = 0;
  vb[static_cast<size_t>(off + 1)] = 0;
  const int64_t delta = n - m;
  const bool front = (delta % 2) != 0;
  int64_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
  auto a = [&](int64_t i) { return A[a0 + static_cast<size_t>(i)]; };
  auto b = [&](int64_t j) { return B[b0 + static_cast<size_t>(j)]; };
  // The end (x, y) of the furthest reaching path on diagonal k after d
  // edits in one direction, stored in v (that direction's x per diagonal);
  // same(x, y) says whether lines x and y, counted in that direction, are
  // equal. The diagonal range [kstart, kend] shrinks when the path leaves
  // the board; `on` says whether it stays on it.
  struct Reach {
    int64_t x, y;
    bool on;
  };
  auto reach = [&](std::vector<int64_t>& v, int64_t k, int64_t d, int64_t& kstart, int64_t& kend,
                   auto same) -> Reach {
    const int64_t i = off + k;
    int64_t x = (k == -d || (k != d && v[static_cast<size_t>(i - 1)] < v[static_cast<size_t>(i + 1)]))
                    ? v[static_cast<size_t>(i + 1)]
                    : v[static_cast<size_t>(i - 1)] + 1;
    int64_t y = x - k;
    while (x < n && y < m && same(x, y)) ++x, ++y;
    v[static_cast<size_t>(i)] = x;
    if (x > n)
      kend += 2;
    else if (y > m)
      kstart += 2;
    return {x, y, x <= n && y <= m};
  };
  for (int64_t d = 0; d < max_d; ++d) {
    for (int64_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      auto [x1, y1, on] =
          reach(vf, k1, d, k1start, k1end, [&](int64_t x, int64_t y) { return a(x) == b(y); });
      if (!on || !front) continue;
      const int64_t i2 = off + delta - k1;
      if (i2 >= 0 && i2 < len && vb[static_cast<size_t>(i2)] != -1 && x1 >= n - vb[static_cast<size_t>(i2)]) {
        sx = x1;
        sy = y1;
        return true;
      }
    }
    for (int64_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      auto [x2, y2, on] = reach(vb, k2, d, k2start, k2end,
                                [&](int64_t x, int64_t y) { return a(n - x - 1) == b(m - y - 1); });
      if (!on || front) continue;
      const int64_t i1 = off + delta - k2;
      if (i1 >= 0 && i1 < len && vf[static_cast<size_t>(i1)] != -1) {
        const int64_t x1 = vf[static_cast<size_t>(i1)];
        const int64_t y1 = off + x1 - i1;
        if (x1 >= n - x2) {
          sx = x1;
          sy = y1;
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace

std::vector<DiffLine> diffSequences(const Seq& A, const Seq& B) {
  std::vector<DiffLine> out;
  out.reserve(std::max(A.size(), B.size()));
  auto equal = [&](size_t i, size_t j, size_t count) {
    for (size_t t = 0; t < count; ++t) out.push_back({DiffOp::Equal, i + t, j + t});
  };
  auto del = [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) out.push_back({DiffOp::Delete, i, DiffLine::npos});
  };
  auto ins = [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; ++j) out.push_back({DiffOp::Insert, DiffLine::npos, j});
  };
  std::vector<Task> stack;
  stack.push_back({false, 0, A.size(), 0, B.size()});
  while (!stack.empty()) {
    Task t = stack.back();
    stack.pop_back();
    if (t.emit_equal) {
      equal(t.a_lo, t.b_lo, t.a_hi - t.a_lo);
      continue;
    }
    // Common prefix: emitted now (everything to its left is already out).
    size_t p = 0;
    while (t.a_lo + p < t.a_hi && t.b_lo + p < t.b_hi && A[t.a_lo + p] == B[t.b_lo + p]) ++p;
    equal(t.a_lo, t.b_lo, p);
    t.a_lo += p;
    t.b_lo += p;
    // Common suffix: emitted after the middle.
    size_t s = 0;
    while (t.a_hi - s > t.a_lo && t.b_hi - s > t.b_lo && A[t.a_hi - s - 1] == B[t.b_hi - s - 1]) ++s;
    if (s) stack.push_back({true, t.a_hi - s, t.a_hi, t.b_hi - s, t.b_hi});
    t.a_hi -= s;
    t.b_hi -= s;
    if (t.a_lo == t.a_hi) {
      ins(t.b_lo, t.b_hi);
      continue;
    }
    if (t.b_lo == t.b_hi) {
      del(t.a_lo, t.a_hi);
      continue;
    }
    const int64_t n = static_cast<int64_t>(t.a_hi - t.a_lo);
    const int64_t m = static_cast<int64_t>(t.b_hi - t.b_lo);
    int64_t x = 0, y = 0;
    if (!middleSnake(A, B, t.a_lo, t.b_lo, n, m, x, y)) {
      del(t.a_lo, t.a_hi);
      ins(t.b_lo, t.b_hi);
      continue;
    }
    FC_CHECK(x >= 0 && x <= n && y >= 0 && y <= m && !(x == 0 && y == 0) && !(x == n && y == m),
             "middle snake did not split the problem");
    const size_t xs = static_cast<size_t>(x), ys = static_cast<size_t>(y);
    stack.push_back({false, t.a_lo + xs, t.a_hi, t.b_lo + ys, t.b_hi});  // right half, later
    stack.push_back({false, t.a_lo, t.a_lo + xs, t.b_lo, t.b_lo + ys});  // left half, next
  }
  return out;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

TextDiff diffText(std::string_view old_text, std::string_view new_text) {
  TextDiff d;
  d.a = splitLines(old_text);
  d.b = splitLines(new_text);
  std::unordered_map<std::string_view, uint32_t> ids;
  auto intern = [&](const std::vector<std::string_view>& lines) {
    Seq s;
    s.reserve(lines.size());
    for (std::string_view l : lines)
      s.push_back(ids.emplace(l, static_cast<uint32_t>(ids.size())).first->second);
    return s;
  };
  Seq A = intern(d.a), B = intern(d.b);
  d.script = diffSequences(A, B);
  for (const DiffLine& l : d.script) {
    d.added += l.op == DiffOp::Insert;
    d.removed += l.op == DiffOp::Delete;
  }
  return d;
}

std::vector<DiffHunk> diffHunks(const TextDiff& d, size_t context) {
  std::vector<DiffHunk> hunks;
  const auto& s = d.script;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i].op == DiffOp::Equal) ++i;
    if (i == s.size()) break;
    // A change at i: the hunk starts `context` lines earlier and ends after
    // the last change that is within 2*context unchanged lines of the next.
    size_t begin = i >= context ? i - context : 0;
    if (!hunks.empty() && begin < hunks.back().end) begin = hunks.back().end;
    size_t last_change = i;
    size_t j = i;
    while (j < s.size()) {
      if (s[j].op != DiffOp::Equal) {
        last_change = j;
        ++j;
        continue;
      }
      size_t k = j;
      while (k < s.size() && s[k].op == DiffOp::Equal) ++k;
      if (k == s.size() || k - j > 2 * context) break;
      j = k;
    }
    size_t end = std::min(s.size(), last_change + 1 + context);
    DiffHunk h;
    h.begin = begin;
    h.end = end;
    // Line numbers: the first a / b line at or after `begin`.
    size_t a_before = 0, b_before = 0;
    for (size_t t = 0; t < begin; ++t) {
      a_before += s[t].op != DiffOp::Insert;
      b_before += s[t].op != DiffOp::Delete;
    }
    for (size_t t = begin; t < end; ++t) {
      h.a_count += s[t].op != DiffOp::Insert;
      h.b_count += s[t].op != DiffOp::Delete;
    }
    h.a_start = h.a_count ? a_before + 1 : a_before;
    h.b_start = h.b_count ? b_before + 1 : b_before;
    hunks.push_back(h);
    i = end;
  }
  return hunks;
}

std::string unifiedDiff(const TextDiff& d, std::string_view old_name, std::string_view new_name,
                        size_t context) {
  if (d.identical()) return "";
  std::string out = "--- " + std::string(old_name) + "\n+++ " + std::string(new_name) + "\n";
  for (const DiffHunk& h : diffHunks(d, context)) {
    out += "@@ -" + std::to_string(h.a_start) + "," + std::to_string(h.a_count) + " +" +
           std::to_string(h.b_start) + "," + std::to_string(h.b_count) + " @@\n";
    for (size_t t = h.begin; t < h.end; ++t) {
      const DiffLine& l = d.script[t];
      switch (l.op) {
        case DiffOp::Equal: out += " " + std::string(d.a[l.a]) + "\n"; break;
        case DiffOp::Delete: out += "-" + std::string(d.a[l.a]) + "\n"; break;
        case DiffOp::Insert: out += "+" + std::string(d.b[l.b]) + "\n"; break;
      }
    }
  }
  return out;
}

}  // namespace fc::viz
