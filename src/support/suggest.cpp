#include "support/suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace fc {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

size_t threshold(size_t len) { return len <= 4 ? 1 : len <= 8 ? 2 : 3; }

bool startsWith(std::string_view s, std::string_view prefix) {
  if (prefix.size() > s.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (lower(s[i]) != lower(prefix[i])) return false;
  return true;
}

}  // namespace

size_t editDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  // Three rows: the one before the previous is needed for transpositions.
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  std::iota(prev.begin(), prev.end(), size_t{0});
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::vector<std::string> suggest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t max) {
  struct Scored {
    size_t distance;
    size_t order;
  };
  std::vector<Scored> hits;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    if (c.size() == word.size() && startsWith(c, word)) return {c};
    size_t d = editDistance(word, c);
    bool prefix = std::min(c.size(), word.size()) >= 3 && (startsWith(c, word) || startsWith(word, c));
    if (d <= threshold(std::max(word.size(), c.size())) || prefix)
      hits.push_back({prefix ? std::min<size_t>(d, 1) : d, i});
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const Scored& x, const Scored& y) { return x.distance < y.distance; });
  std::vector<std::string> out;
  for (const Scored& s : hits) {
    if (out.size() == max) break;
    if (std::find(out.begin(), out.end(), candidates[s.order]) == out.end())
      out.push_back(candidates[s.order]);
  }
  return out;
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::vector<std::string> s = suggest(word, candidates);
  if (s.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < s.size(); ++i) out += (i == 0 ? "" : i + 1 == s.size() ? " or " : ", ") + s[i];
  return out + "?)";
}

}  // namespace fc
