// Texts with a map back to the user's file (see text_map.h).
#include "io/text_map.h"

#include <algorithm>

namespace fc {

size_t MappedText::sourceOffset(size_t off) const {
  if (!owned_ || anchors_.empty()) return std::min(off, source_->text().size());
  auto it = std::upper_bound(anchors_.begin(), anchors_.end(), off,
                             [](size_t o, const Anchor& a) { return o < a.at; });
  if (it == anchors_.begin()) return 0;
  --it;
  size_t src = it->synthetic ? it->src : it->src + (off - it->at);
  return std::min(src, source_->text().size());
}

Location MappedText::location(size_t off) const {
  LineCol lc = source_->lineCol(sourceOffset(off));
  return Location{source_->path(), "", lc.line, lc.col};
}

void MappedText::Builder::anchor(size_t base_off, bool synthetic) {
  if (!anchors_.empty() && anchors_.back().at == text_.size()) {
    anchors_.back() = Anchor{text_.size(), base_off, synthetic};
    return;
  }
  if (!synthetic && !anchors_.empty() && !anchors_.back().synthetic &&
      anchors_.back().base + (text_.size() - anchors_.back().at) == base_off)
    return;  // continues the previous copy
  anchors_.push_back(Anchor{text_.size(), base_off, synthetic});
}

void MappedText::Builder::copy(size_t from, size_t len) {
  std::string_view t = base_->text();
  if (from >= t.size() || len == 0) return;
  len = std::min(len, t.size() - from);
  anchor(from, false);
  text_.append(t.substr(from, len));
}

void MappedText::Builder::insert(std::string_view s, size_t at) {
  if (s.empty()) return;
  anchor(at, true);
  text_.append(s);
}

MappedText MappedText::Builder::build() && {
  MappedText m(base_->source());
  m.owned_ = true;
  m.text_ = std::move(text_);
  m.anchors_.reserve(anchors_.size());
  // Compose with the base's own map so that offsets land in the user's file.
  for (const Anchor& a : anchors_) m.anchors_.push_back({a.at, base_->sourceOffset(a.base), a.synthetic});
  if (base_->owned_) {
    // A copied run of a base that is itself edited may cross the base's anchors: split it there.
    std::vector<MappedText::Anchor> fine;
    for (size_t i = 0; i < anchors_.size(); ++i) {
      const Anchor& a = anchors_[i];
      size_t end = i + 1 < anchors_.size() ? anchors_[i + 1].at : m.text_.size();
      fine.push_back({a.at, base_->sourceOffset(a.base), a.synthetic});
      if (a.synthetic) continue;
      for (const MappedText::Anchor& b : base_->anchors_) {
        if (b.at <= a.base || b.at >= a.base + (end - a.at)) continue;
        fine.push_back({a.at + (b.at - a.base), b.src, b.synthetic});
      }
    }
    std::stable_sort(fine.begin(), fine.end(), [](const auto& x, const auto& y) { return x.at < y.at; });
    m.anchors_ = std::move(fine);
  }
  return m;
}

}  // namespace fc
