// The reader's "segmentation" (reader_internal.h): the segments nvFuser
// made (expr indices, scheduler), the input rewrite, the forwarded extents
// and the fixes applied.
#include <string>

#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

constexpr std::array<std::string_view, 4> kSegKeys = {"segments", "input_rewrite", "forward",
                                                      "applied_fixes"};
constexpr std::array<std::string_view, 2> kSegmentKeys = {"exprs", "scheduler"};
constexpr std::array<std::string_view, 2> kForwardKeys = {"segment", "symbol"};

}  // namespace

void Reader::readSegmentation(sj::value& v) {
  Segmentation seg;
  uint32_t seen = 0;
  bool read = readObject(v, kSegKeys, seen, [&](int k, sj::value& y) {
    switch (k) {
      case 0: {
        eachElementOf(y, [&](size_t, sj::value& x) {
          SegmentSpec spec;
          uint32_t sseen = 0;
          bool read = readObject(x, kSegmentKeys, sseen, [&](int sk, sj::value& z) {
            if (sk == 0) {
              readIntArray(z, 0, INT32_MAX, "an expr index",
                           [&](int64_t n) { spec.exprs.push_back(static_cast<ExprId>(n)); });
            } else {
              std::string_view s;
              if (getString(z, s)) spec.scheduler = std::string(s);
            }
          });
          if (!read || !requireKeys(sseen, kSegmentKeys, {0})) return false;
          seg.segments.push_back(std::move(spec));
          return true;
        });
        return;
      }
      case 1:
        readEnum(y, parseInputRewrite, seg.input_rewrite, DiagCode::BadEnum, "input rewrite",
                 " (keep-reductions or strip-reductions)");
        return;
      case 2: {
        eachElementOf(y, [&](size_t, sj::value& x) {
          ForwardedExtent fe;
          uint32_t fseen = 0;
          bool bad = false;
          bool read = readObject(x, kForwardKeys, fseen, [&](int fk, sj::value& z) {
            if (fk == 0) {
              int64_t n = 0;
              if (getInt(z, n, 0, INT32_MAX, "a segment index"))
                fe.segment = static_cast<uint32_t>(n);
              else
                bad = true;
            } else {
              ValueRef r;
              if (readNameRef(z, Want::Scalar, r))
                fe.symbol = r.id;
              else
                bad = true;
            }
          });
          if (!read || !requireKeys(fseen, kForwardKeys, {0, 1}) || bad) return false;
          seg.forward.push_back(fe);
          return true;
        });
        return;
      }
      case 3: {
        eachElementOf(y, [&](size_t, sj::value& x) {
          std::string_view s;
          if (!getString(x, s)) return false;
          seg.applied_fixes.emplace_back(s);
          return true;
        });
        return;
      }
    }
  });
  if (!read || !requireKeys(seen, kSegKeys, {0})) return;
  f_.segmentation = std::move(seg);
}

}  // namespace fc::reader_detail
