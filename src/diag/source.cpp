#include "diag/source.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace fc {

SourceText& SourceText::operator=(SourceText&& o) noexcept {
  if (this == &o) return *this;
  bool in_buffer = o.buffer_.capacity() > 0;
  path_ = std::move(o.path_);
  owned_ = std::move(o.owned_);  // may be a short string: re-point text_ below
  buffer_ = std::move(o.buffer_);
  blocks_ = std::move(o.blocks_);
  arrays_ = std::move(o.arrays_);
  text_ = withoutBom(in_buffer ? buffer_.view() : std::string_view(owned_));
  o.text_ = {};
  o.owned_.clear();
  o.blocks_.clear();
  o.arrays_.clear();
  return *this;
}

void SourceText::recordArray(size_t open, std::vector<size_t> elements) const {
  for (auto& [at, elems] : arrays_) {
    if (at == open) {
      elems = std::move(elements);
      return;
    }
  }
  arrays_.emplace_back(open, std::move(elements));
}

const std::vector<size_t>* SourceText::recordedArray(size_t open) const {
  for (const auto& [at, elems] : arrays_)
    if (at == open) return &elems;
  return nullptr;
}

namespace {

constexpr uint64_t kNewlines = 0x0a0a0a0a0a0a0a0aULL;
constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
constexpr size_t kNpos = static_cast<size_t>(-1);

// 0x80 in each byte of the eight at `p` that is a newline, byte 0 lowest.
uint64_t newlineMask(const char* p) {
  uint64_t w = 0;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  uint64_t x = w ^ kNewlines;                   // newline bytes -> 0
  return ~(((x & kLow7) + kLow7) | x | kLow7);  // exact: no carry crosses a byte
}

size_t countMask(uint64_t m) {  // 0x80 per newline byte -> 1 per byte, summed into the top byte
  return static_cast<size_t>(((m >> 7) * 0x0101010101010101ULL) >> 56);
}

// Newlines in t[lo, hi): branch-free over words (a newline every ~30 bytes
// makes a per-newline branch mispredict constantly).
size_t countNewlines(const char* t, size_t lo, size_t hi) {
  size_t count = 0;
  size_t i = lo;
  for (; i + 8 <= hi; i += 8) count += countMask(newlineMask(t + i));
  for (; i < hi; ++i) count += t[i] == '\n';
  return count;
}

// The first / last newline in t[lo, hi), or kNpos.
size_t firstNewline(const char* t, size_t lo, size_t hi) {
  size_t i = lo;
  for (; i + 8 <= hi; i += 8)
    if (uint64_t m = newlineMask(t + i)) return i + static_cast<size_t>(std::countr_zero(m)) / 8;
  for (; i < hi; ++i)
    if (t[i] == '\n') return i;
  return kNpos;
}

size_t lastNewline(const char* t, size_t lo, size_t hi) {
  size_t i = hi;
  for (; i >= lo + 8; i -= 8)
    if (uint64_t m = newlineMask(t + i - 8)) return i - 8 + static_cast<size_t>(63 - std::countl_zero(m)) / 8;
  while (i > lo)
    if (t[--i] == '\n') return i;
  return kNpos;
}

}  // namespace

void SourceText::index() const {
  if (!blocks_.empty()) return;
  const char* t = text_.data();
  const size_t n = text_.size();
  const size_t nblocks = n / kLineBlock + 1;
  blocks_.resize(nblocks + 1);
  size_t newlines = 0, line_start = 0;
  for (size_t k = 0; k < nblocks; ++k) {
    const size_t lo = k * kLineBlock, hi = std::min(lo + kLineBlock, n);
    const size_t count = countNewlines(t, lo, hi);
    // next_newline is the block's first newline here, or kNpos: fixed below.
    blocks_[k] = LineBlock{newlines, line_start, count > 0 ? firstNewline(t, lo, hi) : kNpos};
    if (count > 0) line_start = lastNewline(t, lo, hi) + 1;
    newlines += count;
  }
  blocks_[nblocks] = LineBlock{newlines, line_start, n};
  for (size_t k = nblocks; k-- > 0;)
    if (blocks_[k].next_newline == kNpos) blocks_[k].next_newline = blocks_[k + 1].next_newline;
}

LineCol SourceText::lineCol(size_t offset) const {
  index();
  const char* t = text_.data();
  offset = std::min(offset, text_.size());
  const size_t k = offset / kLineBlock;
  const size_t lo = k * kLineBlock;
  size_t line = blocks_[k].newlines_before + countNewlines(t, lo, offset) + 1;
  size_t last = lastNewline(t, lo, offset);
  size_t start = last != kNpos ? last + 1 : blocks_[k].line_start;
  return LineCol{static_cast<int>(line), static_cast<int>(offset - start + 1)};
}

std::string_view SourceText::lineText(int line) const {
  index();
  if (line < 1) return {};
  const auto before = static_cast<size_t>(line - 1);  // newlines before the line
  if (before > blocks_.back().newlines_before) return {};
  const char* t = text_.data();
  const size_t n = text_.size();
  size_t start = 0;
  if (before > 0) {
    // The block holding newline number `before`: the last one with fewer before it.
    auto it = std::lower_bound(blocks_.begin(), blocks_.end(), before,
                               [](const LineBlock& b, size_t v) { return b.newlines_before < v; });
    size_t k = static_cast<size_t>(it - blocks_.begin()) - 1;
    size_t need = before - blocks_[k].newlines_before;
    for (size_t i = k * kLineBlock;; ++i) {
      if (t[i] == '\n' && --need == 0) {
        start = i + 1;
        break;
      }
    }
  }
  const size_t kb = start / kLineBlock;
  size_t end = firstNewline(t, start, std::min((kb + 1) * kLineBlock, n));
  if (end == kNpos) end = blocks_[kb + 1].next_newline;
  std::string_view v(t + start, end - start);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

}  // namespace fc
