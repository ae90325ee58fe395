#include "ir/op_rules.h"

#include <algorithm>

#include "ir/fusion.h"
#include "support/checked.h"

namespace fc {

int64_t normalizeDim(int64_t d, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (d < -r || d >= r) return -1;
  return d < 0 ? d + r : d;
}

namespace {

constexpr uint8_t kAll = iterBit(IterType::Iteration) | iterBit(IterType::Broadcast) |
                         iterBit(IterType::Symbolic) | iterBit(IterType::Stride) |
                         iterBit(IterType::GatherScatter) | iterBit(IterType::VectorComponent);
constexpr uint8_t kNotBroadcast = kAll & static_cast<uint8_t>(~iterBit(IterType::Broadcast));

// Buffers a RuleBuilder fills and drops: one set per thread, reused by every
// rule built on it (outputShape runs once per expr on the binding and
// verifying paths, so fresh vectors cost heap traffic per expr).
struct RuleScratch {
  static constexpr size_t kCache = 4;
  std::vector<AxisId> axes[kCache];  // operand i's non-Reduction axes (the last slot shared)
  std::vector<size_t> tensors;       // elementwise: the tensor operands
  std::vector<char> marks;           // reduction: the reduced dims
  bool busy = false;                 // a builder on this thread holds it
};

// Builds a ShapeRule for one expr over the fusion's operands.
class RuleBuilder {
 public:
  RuleBuilder(const Fusion& f, const Expr& e, const KnownValues& v, RuleMode mode, ShapeRule& r,
              RuleScratch& s)
      : f_(f), e_(e), v_(v), mode_(mode), r_(r), s_(s) {}

  void run() {
    r_.axes.clear();
    r_.from.clear();
    r_.root_from.clear();
    r_.perm.clear();
    r_.outputs = 1;
    r_.issues.clear();
    switch (opInfo(e_.op).category) {
      case OpCategory::Set:
      case OpCategory::Cast:
      case OpCategory::Unary:
      case OpCategory::Binary:
      case OpCategory::Compare:
      case OpCategory::Ternary: elementwise(); break;
      case OpCategory::Shape: shape(); break;
      case OpCategory::Reduction: reduction(); break;
      case OpCategory::Factory: factory(); break;
      case OpCategory::Matmul: matmul(); break;
      case OpCategory::Opaque: fail(ShapeIssue::Kind::NoRule); break;
    }
  }

 private:
  // ---- helpers
  bool isTensor(size_t i) const {
    return i < e_.inputs.size() && e_.inputs[i].isTensor() && e_.inputs[i].id < f_.tensors.size();
  }
  // The operand's non-Reduction logical axes.
  const std::vector<AxisId>& axesOf(size_t i) {
    auto& v = s_.axes[std::min<size_t>(i, kCache - 1)];
    if (cached_[std::min<size_t>(i, kCache - 1)] != static_cast<int64_t>(i)) {
      v.clear();
      for (AxisId a : f_.tensors[e_.inputs[i].id].logical)
        if (f_.axes[a].iter != IterType::Reduction) v.push_back(a);
      cached_[std::min<size_t>(i, kCache - 1)] = static_cast<int64_t>(i);
    }
    return v;
  }
  IterType iterOf(size_t i, size_t pos) { return f_.axes[axesOf(i)[pos]].iter; }
  std::optional<int64_t> value(ScalarId s) const {
    return s == kNone || s >= f_.scalars.size() ? std::nullopt : v_.intValue(s);
  }
  bool fail(ShapeIssue::Kind k, uint32_t index = 0, int64_t a = 0, int64_t b = 0) {
    r_.issues.push_back(ShapeIssue{k, index, a, b});
    return false;
  }
  bool needTensor(size_t i) {
    return isTensor(i) || fail(ShapeIssue::Kind::NotATensor, static_cast<uint32_t>(i));
  }

  AxisRule& add(AxisRule::Extent x, IterType make, uint8_t allowed, int attr = -1) {
    AxisRule r;
    r.extent = x;
    r.make = make;
    r.allowed = allowed;
    r.attr = static_cast<int16_t>(attr);
    r.from_begin = static_cast<uint16_t>(r_.from.size());
    r_.axes.push_back(r);
    return r_.axes.back();
  }
  void map(size_t operand, size_t pos) {
    r_.from.push_back({static_cast<uint16_t>(operand), static_cast<uint16_t>(pos)});
    ++r_.axes.back().from_count;
  }
  // An output axis that copies operand axis (i, pos).
  void copyOf(size_t i, size_t pos, uint8_t allowed = kAll) {
    IterType it = iterOf(i, pos);
    add(AxisRule::Extent::Operand, it == IterType::Reduction ? IterType::Iteration : it, allowed);
    map(i, pos);
  }
  // Broadcast target d of expand / broadcast_in_dim: an expanded broadcast
  // unless the size is the constant 1 or -1 (keep the operand's axis).
  bool expandsTo(ScalarId size) const {
    auto c = value(size);
    return !(c && (*c == 1 || *c == -1));
  }

  // ---- categories
  void elementwise() {
    std::optional<size_t> rank;
    std::vector<size_t>& tensors = s_.tensors;
    tensors.clear();
    for (size_t i = 0; i < e_.inputs.size(); ++i)
      if (isTensor(i)) {
        tensors.push_back(i);
        size_t n = axesOf(i).size();
        if (!rank) rank = n;
        if (n != *rank)
          fail(ShapeIssue::Kind::RankMismatch, static_cast<uint32_t>(i), static_cast<int64_t>(n),
               static_cast<int64_t>(*rank));
      }
    if (!rank) {
      fail(ShapeIssue::Kind::ScalarsOnly);
      return;
    }
    if (!r_.ok()) return;
    for (size_t d = 0; d < *rank; ++d) {
      // nvFuser keeps the first operand axis that is not a broadcast, else
      // the last expanded one, else the first.
      size_t pick = tensors[0];
      bool any_iteration = false;
      for (size_t i : tensors) {
        IterType it = iterOf(i, d);
        if (it != IterType::Broadcast) {
          pick = i;
          break;
        }
        if (f_.axes[axesOf(i)[d]].expanded != kNone) pick = i;
      }
      for (size_t i : tensors) any_iteration = any_iteration || iterOf(i, d) == IterType::Iteration;
      IterType it = iterOf(pick, d);
      add(AxisRule::Extent::Operand, it == IterType::Reduction ? IterType::Iteration : it,
          any_iteration ? kNotBroadcast : kAll);
      map(pick, d);
      for (size_t i : tensors)
        if (i != pick) map(i, d);
    }
  }

  void shape() {
    if (!needTensor(0)) return;
    const size_t n = axesOf(0).size();
    const Attrs& at = e_.attrs;
    switch (e_.op) {
      case OpKind::Broadcast: {
        size_t kept = static_cast<size_t>(std::count(at.flags.begin(), at.flags.end(), false));
        if (kept != n) {
          fail(ShapeIssue::Kind::FlagsKept, 0, static_cast<int64_t>(kept), static_cast<int64_t>(n));
          return;
        }
        size_t j = 0;
        for (bool b : at.flags) {
          if (b)
            add(AxisRule::Extent::One, IterType::Broadcast, iterBit(IterType::Broadcast));
          else
            copyOf(0, j++);
        }
        return;
      }
      case OpKind::BroadcastInDim: {
        const size_t rank = at.shape.size();
        if (at.dims.size() != n) {
          fail(ShapeIssue::Kind::BidDimsCount, 0, static_cast<int64_t>(at.dims.size()),
               static_cast<int64_t>(n));
          return;
        }
        std::vector<int64_t> src(rank, -1);
        int64_t prev = -1;
        for (size_t k = 0; k < at.dims.size(); ++k) {
          int64_t d = at.dims[k];
          if (d <= prev || d >= static_cast<int64_t>(rank)) {
            fail(ShapeIssue::Kind::BidDimsOrder, static_cast<uint32_t>(k), d, static_cast<int64_t>(rank));
            return;
          }
          prev = d;
          src[static_cast<size_t>(d)] = static_cast<int64_t>(k);
        }
        for (size_t d = 0; d < rank; ++d) {
          if (src[d] >= 0) {
            auto pos = static_cast<size_t>(src[d]);
            if (iterOf(0, pos) == IterType::Broadcast && expandsTo(at.shape[d])) {
              add(AxisRule::Extent::Expanded, IterType::Broadcast, kAll, static_cast<int>(d));
              map(0, pos);
            } else {
              copyOf(0, pos);
            }
          } else if (auto c = value(at.shape[d]); c && *c == 1) {
            add(AxisRule::Extent::One, IterType::Broadcast, iterBit(IterType::Broadcast));
          } else {
            add(AxisRule::Extent::Expanded, IterType::Broadcast, iterBit(IterType::Broadcast),
                static_cast<int>(d));
          }
        }
        return;
      }
      case OpKind::Expand: {
        if (at.shape.size() != n) {
          fail(ShapeIssue::Kind::ShapeCount, 0, static_cast<int64_t>(at.shape.size()),
               static_cast<int64_t>(n));
          return;
        }
        // Any axis of constant extent 1 given another size becomes an expanded Broadcast axis
        // (csrc/ops/alias.cpp:1117-1133 @ 81c4b22fd; before #1535 a Broadcast axis only, and the
        // frontend steps report the others).
        for (size_t d = 0; d < n; ++d) {
          const auto extent = value(f_.axes[axesOf(0)[d]].extent);
          if ((iterOf(0, d) == IterType::Broadcast || (extent && *extent == 1)) && expandsTo(at.shape[d])) {
            add(AxisRule::Extent::Expanded, IterType::Broadcast, kAll, static_cast<int>(d));
            map(0, d);
          } else {
            copyOf(0, d);
          }
        }
        return;
      }
      case OpKind::Squeeze: {
        std::vector<char> drop(n, 0);
        if (!dims(n, drop, /*tolerate_repeats=*/false)) return;
        for (size_t k = 0; k < at.dims.size(); ++k) {
          size_t d = static_cast<size_t>(normalizeDim(at.dims[k], n));
          AxisId a = axesOf(0)[d];
          auto c = value(f_.axes[a].extent);
          if (f_.axes[a].iter != IterType::Broadcast && c && *c != 1)
            fail(ShapeIssue::Kind::SqueezeNotOne, static_cast<uint32_t>(k), *c);
        }
        for (size_t d = 0; d < n; ++d)
          if (!drop[d]) copyOf(0, d);
        return;
      }
      case OpKind::Permute: {
        if (at.dims.size() != n) {
          fail(ShapeIssue::Kind::PermuteCount, 0, static_cast<int64_t>(at.dims.size()),
               static_cast<int64_t>(n));
          return;
        }
        std::vector<char> seen(n, 0);
        for (size_t k = 0; k < n; ++k) {
          int64_t d = normalizeDim(at.dims[k], n);
          if (d < 0 || seen[static_cast<size_t>(d)]) {
            fail(ShapeIssue::Kind::NotAPermutation, static_cast<uint32_t>(k), at.dims[k], d < 0 ? 0 : 1);
            return;
          }
          seen[static_cast<size_t>(d)] = 1;
          r_.perm.push_back(d);
        }
        for (size_t j = 0; j < n; ++j) r_.root_from.push_back({0, static_cast<uint16_t>(j)});
        for (int64_t d : r_.perm) copyOf(0, static_cast<size_t>(d));
        return;
      }
      case OpKind::Reshape: reshape(n); return;
      case OpKind::Slice: {
        if (at.ranges.size() > n) {
          fail(ShapeIssue::Kind::SliceRanges, 0, static_cast<int64_t>(at.ranges.size()),
               static_cast<int64_t>(n));
          return;
        }
        for (size_t d = 0; d < n; ++d) {
          if (d >= at.ranges.size()) {
            copyOf(0, d);
          } else if (isWhole(at.ranges[d], axesOf(0)[d])) {
            copyOf(0, d);
            r_.axes.back().extent = AxisRule::Extent::Sliced;
            r_.axes.back().attr = static_cast<int16_t>(d);
            r_.axes.back().whole = true;
          } else {
            const SliceRange& sr = at.ranges[d];
            ScalarId stop = sr.stop == kNone ? f_.axes[axesOf(0)[d]].extent : sr.stop;
            auto c0 = sr.start == kNone ? std::optional<int64_t>(0) : value(sr.start);
            auto c1 = value(stop);
            auto c2 = sr.step == kNone ? std::optional<int64_t>(1) : value(sr.step);
            bool constant = c0 && c1 && c2;
            add(AxisRule::Extent::Sliced, constant ? IterType::Iteration : IterType::Symbolic, kAll,
                static_cast<int>(d));
            map(0, d);
          }
          r_.axes.back().resized = true;
        }
        return;
      }
      case OpKind::Pad: {
        if (at.pad.size() % 2 != 0 || at.pad.size() > 2 * n) {
          fail(ShapeIssue::Kind::PadWidths, 0, static_cast<int64_t>(at.pad.size()), static_cast<int64_t>(n));
          return;
        }
        const size_t padded = at.pad.size() / 2;
        for (size_t d = 0; d < n; ++d) {
          const size_t from_inner = n - 1 - d;
          if (from_inner >= padded) {
            copyOf(0, d);
          } else {
            bool constant = value(at.pad[2 * from_inner]) && value(at.pad[2 * from_inner + 1]) &&
                            value(f_.axes[axesOf(0)[d]].extent);
            add(AxisRule::Extent::Padded, constant ? IterType::Iteration : IterType::Symbolic, kAll,
                static_cast<int>(from_inner));
            map(0, d);
          }
          r_.axes.back().resized = true;
        }
        return;
      }
      case OpKind::Cat: {
        for (size_t i = 0; i < e_.inputs.size(); ++i) {
          if (!isTensor(i)) {
            fail(ShapeIssue::Kind::NotATensor, static_cast<uint32_t>(i));
            continue;
          }
          size_t ni = axesOf(i).size();
          if (ni != n)
            fail(ShapeIssue::Kind::CatRank, static_cast<uint32_t>(i), static_cast<int64_t>(ni),
                 static_cast<int64_t>(n));
        }
        if (!r_.ok()) return;
        int64_t dim = normalizeDim(at.dim, n);
        if (dim < 0) {
          fail(ShapeIssue::Kind::CatDim, 0, at.dim, static_cast<int64_t>(n));
          return;
        }
        for (size_t d = 0; d < n; ++d) {
          if (static_cast<int64_t>(d) != dim) {
            copyOf(0, d);
          } else {
            bool constant = true;
            for (size_t i = 0; i < e_.inputs.size(); ++i)
              constant = constant && value(f_.axes[axesOf(i)[d]].extent).has_value();
            add(AxisRule::Extent::Concat, constant ? IterType::Iteration : IterType::Symbolic, kAll);
            map(0, d);
          }
          for (size_t i = 1; i < e_.inputs.size(); ++i) map(i, d);
          r_.axes.back().resized = true;
        }
        return;
      }
      default: return;
    }
  }

  bool isWhole(const SliceRange& sr, AxisId a) const {
    auto c0 = sr.start == kNone ? std::optional<int64_t>(0) : value(sr.start);
    auto c1 = sr.step == kNone ? std::optional<int64_t>(1) : value(sr.step);
    ScalarId stop = sr.stop == kNone ? f_.axes[a].extent : sr.stop;
    return c0 && *c0 == 0 && c1 && *c1 == 1 && stop == f_.axes[a].extent;
  }

  void reshape(size_t n) {
    const Attrs& at = e_.attrs;
    bool dynamic = false;
    int minus_one = -1;
    for (size_t d = 0; d < at.shape.size(); ++d) {
      auto c = value(at.shape[d]);
      if (!c) {
        dynamic = true;
      } else if (*c == -1) {
        if (minus_one >= 0) {
          fail(ShapeIssue::Kind::ReshapeTwoMinusOne, static_cast<uint32_t>(d));
          return;
        }
        minus_one = static_cast<int>(d);
      } else if (*c < 0) {
        fail(ShapeIssue::Kind::ReshapeNegative, static_cast<uint32_t>(d), *c);
        return;
      }
    }
    // The -1 entry is numel / the other sizes: constant when every input
    // extent and every other size is.
    std::optional<int64_t> inferred;
    if (minus_one >= 0) {
      // From the original sizes when the reshape was given them.
      std::optional<int64_t> numel = 1, others = 1;
      if (at.original_shape.empty()) {
        for (AxisId a : axesOf(0)) {
          auto c = value(f_.axes[a].extent);
          numel = numel && c ? checkedMul(*numel, *c) : std::nullopt;
        }
      } else {
        for (int64_t c : at.original_shape) numel = numel ? checkedMul(*numel, c) : std::nullopt;
      }
      for (size_t d = 0; d < at.shape.size(); ++d)
        if (static_cast<int>(d) != minus_one) {
          auto c = value(at.shape[d]);
          others = others && c ? checkedMul(*others, *c) : std::nullopt;
        }
      if (numel && others) inferred = checkedDiv(*numel, *others);
    }
    // A dynamic reshape's output axes are Symbolic until concretization.
    dynamic = dynamic || !isStaticReshape(f_, e_, v_);
    // A non-constant -1 makes its axis and the ones after it Symbolic.
    for (size_t d = 0; d < at.shape.size(); ++d) {
      auto c = static_cast<int>(d) == minus_one ? inferred : value(at.shape[d]);
      dynamic = dynamic || !c;
      IterType it = dynamic ? IterType::Symbolic : *c == 1 ? IterType::Broadcast : IterType::Iteration;
      add(AxisRule::Extent::Reshaped, it, kAll, static_cast<int>(d));
    }
    for (size_t j = 0; j < n; ++j) r_.root_from.push_back({0, static_cast<uint16_t>(j)});
  }

  // Normalizes the dims attribute against `n`, marking `mark`. Reports every
  // bad entry (out of range, or repeated unless tolerated).
  bool dims(size_t n, std::vector<char>& mark, bool tolerate_repeats) {
    bool ok = true;
    for (size_t k = 0; k < e_.attrs.dims.size(); ++k) {
      int64_t d = normalizeDim(e_.attrs.dims[k], n);
      if (d < 0) {
        fail(ShapeIssue::Kind::DimOutOfRange, static_cast<uint32_t>(k), e_.attrs.dims[k],
             static_cast<int64_t>(n));
        ok = false;
        continue;
      }
      if (mark[static_cast<size_t>(d)] && !tolerate_repeats) {
        fail(ShapeIssue::Kind::DimRepeated, static_cast<uint32_t>(k), e_.attrs.dims[k]);
        ok = false;
        continue;
      }
      mark[static_cast<size_t>(d)] = 1;
    }
    return ok;
  }

  void reduction() {
    if (!needTensor(0)) return;
    const size_t n = axesOf(0).size();
    std::vector<char>& reduced = s_.marks;
    reduced.assign(n, 0);
    if (e_.attrs.dims.empty()) {
      if (mode_ == RuleMode::Check) {
        fail(ShapeIssue::Kind::NoDims);
        return;
      }
      std::fill(reduced.begin(), reduced.end(), 1);
    } else if (!dims(n, reduced, /*tolerate_repeats=*/mode_ == RuleMode::Build)) {
      return;
    }
    for (size_t d = 0; d < n; ++d) {
      if (!reduced[d]) {
        copyOf(0, d, kAll);
      } else if (e_.attrs.keepdim) {
        add(AxisRule::Extent::One, IterType::Broadcast, iterBit(IterType::Broadcast));
        map(0, d);
      } else {
        add(AxisRule::Extent::Reduced, IterType::Reduction, iterBit(IterType::Reduction));
        map(0, d);
      }
    }
    r_.outputs = static_cast<size_t>(opInfo(e_.op).num_outputs);
  }

  void factory() {
    const Attrs& at = e_.attrs;
    if (e_.op == OpKind::Iota && at.shape.size() != 1)
      fail(ShapeIssue::Kind::IotaLength, 0, static_cast<int64_t>(at.shape.size()));
    if (e_.op == OpKind::Full && at.value == kNone) fail(ShapeIssue::Kind::FullNoValue);
    // rand_like / randn_like (ops.def): the operand's IterTypes, one flag per axis, true for
    // Broadcast (ops::newOutputTV, csrc/ops/utils.cpp); never Symbolic.
    const bool like = !at.flags.empty();
    if (like && at.flags.size() != at.shape.size())
      fail(ShapeIssue::Kind::LikeFlagsCount, 0, static_cast<int64_t>(at.flags.size()),
           static_cast<int64_t>(at.shape.size()));
    for (size_t d = 0; d < at.shape.size(); ++d) {
      auto c = value(at.shape[d]);
      if (c && *c < 0) fail(ShapeIssue::Kind::NegativeSize, static_cast<uint32_t>(d), *c);
      IterType it = !c ? IterType::Symbolic : *c == 1 ? IterType::Broadcast : IterType::Iteration;
      if (like && d < at.flags.size()) {
        if (at.flags[d] && c != 1)
          fail(ShapeIssue::Kind::LikeBroadcastSize, static_cast<uint32_t>(d), c.value_or(-1));
        it = at.flags[d] ? IterType::Broadcast : IterType::Iteration;
      }
      add(AxisRule::Extent::Shape, it, like ? iterBit(it) : kAll, static_cast<int>(d));
    }
  }

  void matmul() {
    if (!needTensor(0) || !needTensor(1)) return;
    const std::vector<AxisId> a = axesOf(0);
    const std::vector<AxisId> b = axesOf(1);
    if (e_.op == OpKind::Matmul && (a.empty() || b.empty()))
      fail(ShapeIssue::Kind::MatmulRankZero, a.empty() ? 0 : 1);
    // linear: input {*_i, K}, weight {*_wb, N, K} (or {K}), bias {*_wb, N} (or {N}, or a scalar):
    // output {*_wb, *_i, N, rK} (csrc/ops/composite.cpp:114-170 newForLinear and
    // csrc/ops/utils.cpp:254-318 mapLinearOpIterDomains @ 81c4b22fd). Which ranks nvFuser takes
    // depends on the date (#3073): the pipeline checks that (pipeline.cpp frontendSteps).
    const size_t nbias = e_.inputs.size() == 3 && isTensor(2) ? axesOf(2).size() : 0;
    const size_t wb = b.size() > 2 ? b.size() - 2 : 0;
    if (e_.op == OpKind::Linear) {
      if (a.empty()) fail(ShapeIssue::Kind::MatmulRankZero, 0);
      if (b.empty()) fail(ShapeIssue::Kind::LinearWeightRank, 1, 0);
      if (nbias > 0 && nbias != 1 && nbias != wb + 1)
        fail(ShapeIssue::Kind::LinearBiasRank, 2, static_cast<int64_t>(nbias));
    }
    if (!r_.ok()) return;
    if (e_.op == OpKind::Linear) {
      for (size_t i = 0; i < wb; ++i) {
        copyOf(1, i);
        if (nbias == wb + 1) map(2, i);
      }
      for (size_t i = 0; i + 1 < a.size(); ++i) copyOf(0, i);
      if (b.size() >= 2) {
        copyOf(1, b.size() - 2);
        if (nbias >= 1) map(2, nbias - 1);
      }
      add(AxisRule::Extent::Reduced, IterType::Reduction, iterBit(IterType::Reduction));
      map(0, a.size() - 1);
      map(1, b.size() - 1);
      return;
    }
    // matmul, torch semantics: [batch..., (M), (N), rK]; batch axes broadcast right-aligned.
    const size_t na = a.size() >= 2 ? a.size() - 2 : 0, nb = b.size() >= 2 ? b.size() - 2 : 0;
    const size_t batch = std::max(na, nb);
    for (size_t i = 0; i < batch; ++i) {
      std::optional<size_t> x, y;
      if (i + na >= batch) x = i + na - batch;
      if (i + nb >= batch) y = i + nb - batch;
      if (x && (!y || f_.axes[a[*x]].iter != IterType::Broadcast)) {
        copyOf(0, *x);
        if (y) map(1, *y);
      } else {
        copyOf(1, *y);
        if (x) map(0, *x);
      }
    }
    if (a.size() >= 2) copyOf(0, a.size() - 2);
    if (b.size() >= 2) copyOf(1, b.size() - 1);
    add(AxisRule::Extent::Reduced, IterType::Reduction, iterBit(IterType::Reduction));
    map(0, a.size() - 1);
    map(1, b.size() >= 2 ? b.size() - 2 : 0);
  }

  static constexpr size_t kCache = RuleScratch::kCache;
  const Fusion& f_;
  const Expr& e_;
  const KnownValues& v_;
  RuleMode mode_;
  ShapeRule& r_;
  RuleScratch& s_;
  int64_t cached_[kCache] = {-1, -1, -1, -1};
};

}  // namespace

bool isStaticReshape(const Fusion& f, const Expr& e, const KnownValues& values) {
  auto constant = [&](ScalarId s) { return s != kNone && s < f.scalars.size() && values.intValue(s); };
  for (ScalarId s : e.attrs.shape)
    if (!constant(s)) return false;
  if (!e.attrs.original_shape.empty()) return true;
  if (e.inputs.empty() || !e.inputs[0].isTensor() || e.inputs[0].id >= f.tensors.size()) return false;
  for (AxisId a : f.tensors[e.inputs[0].id].logical) {
    const Axis& ax = f.axes[a];
    if (ax.iter != IterType::Reduction && !constant(ax.expanded != kNone ? ax.expanded : ax.extent))
      return false;
  }
  return true;
}

void outputShape(const Fusion& f, const Expr& e, const KnownValues& values, RuleMode mode, ShapeRule& out) {
  thread_local RuleScratch scratch;
  if (scratch.busy) {  // a rule built while another is (a KnownValues that builds rules)
    RuleScratch own;
    own.busy = true;
    RuleBuilder(f, e, values, mode, out, own).run();
    return;
  }
  scratch.busy = true;
  struct Release {
    RuleScratch& s;
    ~Release() { s.busy = false; }
  } release{scratch};
  RuleBuilder(f, e, values, mode, out, scratch).run();
}

std::string describeIssue(OpKind k, const ShapeIssue& is, const Attrs& attrs) {
  using K = ShapeIssue::Kind;
  const std::string name(opName(k));
  const std::string a = std::to_string(is.a), b = std::to_string(is.b);
  switch (is.kind) {
    case K::NotATensor: return name + ": operand " + std::to_string(is.index) + " must be a tensor";
    case K::ScalarsOnly: return name + " of scalars only is a scalar op, not a tensor op";
    case K::RankMismatch:
      return name + ": operands have different ranks (" + b + " and " + a +
             "); nvFuser needs an explicit broadcast";
    case K::FlagsKept:
      return "broadcast: is_broadcast_dim has " + std::to_string(attrs.flags.size()) +
             " entries, which does not fit an input of rank " + b;
    case K::BidDimsCount:
      return "broadcast_in_dim: broadcast_dims has " + a + " entries, the input has rank " + b;
    case K::BidDimsOrder:
      return "broadcast_in_dim: broadcast_dims must be increasing and within the output rank";
    case K::ShapeCount: return "expand: shape has " + a + " entries, the input has rank " + b;
    case K::DimOutOfRange: return name + ": dim out of range for an input of rank " + b;
    case K::DimRepeated: return name + ": dim " + a + " is listed twice";
    case K::SqueezeNotOne:
      return "squeeze: dim " + std::to_string(attrs.dims[is.index]) + " has size " + a + ", not 1";
    case K::PermuteCount: return "permute: dims has " + a + " entries, the input has rank " + b;
    case K::NotAPermutation: return "permute: dims is not a permutation";
    case K::ReshapeTwoMinusOne: return "reshape: more than one -1 in new_shape";
    case K::ReshapeNegative: return "reshape: negative size " + a;
    case K::SliceRanges: return "slice: more ranges than input axes";
    case K::PadWidths: return "pad: pad_widths needs an even number of entries, at most two per input axis";
    case K::CatRank: return "cat: operands must be tensors of one rank";
    case K::CatDim: return "cat: dim out of range";
    case K::NegativeSize: return name + ": negative size " + a;
    case K::LikeFlagsCount: return name + ": flags has " + a + " entries for " + b + " sizes";
    case K::LikeBroadcastSize:
      return name + ": flags[" + std::to_string(is.index) + "] marks a Broadcast axis, but its size is " +
             (is.a < 0 ? std::string("not the constant 1") : a + ", not 1");
    case K::IotaLength: return "iota takes one length";
    case K::FullNoValue: return "full needs a fill_value";
    case K::MatmulRankZero: return name + ": operands must have rank >= 1";
    case K::LinearWeightRank: return "linear: the weight must have rank 1 or more";
    case K::LinearBiasRank: return "linear: the bias must have rank 0, 1 or the weight's rank - 1";
    case K::NoRule:
      return "`" + (attrs.name.empty() ? name : attrs.name) + "`: fusecheck has no shape rule for this op";
    case K::NoDims:
    case K::FlagsCount:
    case K::BidShapeCount:
    case K::None: break;
  }
  return name + ": the operands do not fit the op";
}

void normalizeAttrs(const Fusion& f, OpKind op, std::span<const ValueRef> inputs, Attrs& attrs) {
  if (inputs.empty() || !inputs[0].isTensor() || inputs[0].id >= f.tensors.size()) return;
  const size_t n = f.nonReductionRank(inputs[0].id);
  switch (opInfo(op).category) {
    case OpCategory::Reduction: {
      for (int64_t& d : attrs.dims)
        if (int64_t k = normalizeDim(d, n); k >= 0) d = k;
      if (attrs.dims.empty())
        for (size_t d = 0; d < n; ++d) attrs.dims.push_back(static_cast<int64_t>(d));
      std::sort(attrs.dims.begin(), attrs.dims.end());
      attrs.dims.erase(std::unique(attrs.dims.begin(), attrs.dims.end()), attrs.dims.end());
      return;
    }
    case OpCategory::Shape:
      if (op == OpKind::Squeeze || op == OpKind::Permute)
        for (int64_t& d : attrs.dims)
          if (int64_t k = normalizeDim(d, n); k >= 0) d = k;
      if (op == OpKind::Cat)
        if (int64_t k = normalizeDim(attrs.dim, n); k >= 0) attrs.dim = k;
      return;
    default: return;
  }
}

}  // namespace fc

// ---------------------------------------------------------------- dtypes
//
// nvFuser's type promotion, from csrc/type_promotion.cpp and csrc/type.h
// (promoteType) @ 81c4b22fd750; unchanged in substance since the initial
// commit 831821f3a (2023-03-12).

namespace fc {
namespace {

// csrc/type.h:864-925 promoteType: Index absorbs integers; Double with ComplexFloat is ComplexDouble
// (ATen's rule, where C++'s would give ComplexFloat); C++'s common type for the native types (bool,
// int, int64_t, float, double, std::complex<float>, std::complex<double>); Double absorbs the other
// floating types; two other floating types give Float; a complex type absorbs a floating one; a
// floating type absorbs integers and Bool.
std::optional<DType> promotePair(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::Index && isIntegral(b)) || (b == DType::Index && isIntegral(a))) return DType::Index;
  if ((a == DType::Double && b == DType::ComplexFloat) || (b == DType::Double && a == DType::ComplexFloat))
    return DType::ComplexDouble;
  // C++ common_type over bool < int < int64_t < float < double < complex<float> < complex<double>.
  auto native = [](DType t) -> int {
    switch (t) {
      case DType::Bool: return 0;
      case DType::Int32: return 1;
      case DType::Int: return 2;
      case DType::Float: return 3;
      case DType::Double: return 4;
      case DType::ComplexFloat: return 5;
      case DType::ComplexDouble: return 6;
      default: return -1;
    }
  };
  if (native(a) >= 0 && native(b) >= 0) return native(a) >= native(b) ? a : b;
  if ((a == DType::Double && isFloatingPoint(b)) || (b == DType::Double && isFloatingPoint(a)))
    return DType::Double;
  if (isFloatingPoint(a) && isFloatingPoint(b)) return DType::Float;
  if (isComplex(a)) return a;
  if (isComplex(b)) return b;
  if (isFloatingPoint(a)) return a;
  if (isFloatingPoint(b)) return b;
  return std::nullopt;  // nvFuser: "Expected promotable DataTypes"
}

std::optional<DType> promoteSkip(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return promotePair(*a, *b);
}

// csrc/type_promotion.cpp:75-97 combineCategories: a complex category wins; a complex lower one
// takes a floating higher one's precision (getComplexTypeFromType; Half has none, and nvFuser
// raises "Only support Float and Double").
std::optional<DType> combineCategories(std::optional<DType> higher, std::optional<DType> lower) {
  if (higher && isComplex(*higher)) return higher;
  if (lower && isComplex(*lower)) {
    if (higher && isFloatingPoint(*higher)) return complexDTypeOf(*higher);
    return lower;
  }
  if (higher && isFloatingPoint(*higher)) return higher;
  if ((higher && *higher == DType::Bool) || (lower && isFloatingPoint(*lower)))
    return promoteSkip(higher, lower);
  if (higher) return higher;
  return lower;
}

// The dtypes computeTypes' cast_half_to_float step makes Float (csrc/type_promotion.cpp:204-212 @
// 81c4b22fd), and that a wrapped scalar counts as Float (:64-68): Float4_e2m1fn among them,
// though it is not a floating-point type.
bool isLowPrecisionFloat(DType t) {
  return (isFloatingPoint(t) && t != DType::Float && t != DType::Double) || t == DType::Float4_e2m1fn;
}

// csrc/type_promotion.cpp computeTypes, with its cast_half_to_float step.
std::optional<DType> computeTypes(std::span<const PromotionOperand> ops, bool int_to_float,
                                  bool half_to_float) {
  if (ops.empty()) return std::nullopt;
  std::optional<DType> common = ops[0].dtype;
  bool different = false;
  for (const auto& o : ops) different = different || o.dtype != *common;
  if (different) {
    // Tensors of rank > 0, zero-dim tensors and scalars ("wrapped numbers")
    // are promoted apart, then combined by category. A low-precision float
    // scalar counts as Float.
    std::optional<DType> dim, zero, wrapped;
    for (const auto& o : ops) {
      if (o.tensor && o.zero_dim) {
        zero = promoteSkip(zero, o.dtype);
        if (!zero) return std::nullopt;
      } else if (o.tensor) {
        dim = promoteSkip(dim, o.dtype);
        if (!dim) return std::nullopt;
      } else {
        wrapped = promoteSkip(wrapped, isLowPrecisionFloat(o.dtype) ? DType::Float : o.dtype);
        if (!wrapped) return std::nullopt;
      }
    }
    common = combineCategories(dim, combineCategories(zero, wrapped));
    if (!common) return std::nullopt;
  }
  // promote_integer_inputs_to_float (:141-145): integers and Bool only; complex dtypes stay.
  if (int_to_float && (isIntegral(*common) || *common == DType::Bool)) common = DType::Float;
  if (half_to_float && isLowPrecisionFloat(*common)) common = DType::Float;
  return common;
}

PromotionOperand operandOf(const Fusion& f, const ValueRef& v) {
  if (v.isTensor()) return {f.tensors[v.id].dtype, true, f.tensors[v.id].logical.empty()};
  return {f.scalars[v.id].dtype, false};
}

}  // namespace

std::optional<DType> promoteTypes(std::span<const PromotionOperand> operands, bool int_to_float) {
  return computeTypes(operands, int_to_float, /*half_to_float=*/true);
}

std::optional<DType> torchResultType(std::span<const PromotionOperand> operands, bool int_to_float) {
  return computeTypes(operands, int_to_float, /*half_to_float=*/false);
}

DType derivedScalarDType(DType a, DType b, DType fallback) {
  const PromotionOperand ops[] = {{a, false}, {b, false}};
  if (std::optional<DType> d = promoteTypes(ops)) return *d;
  if (isFloatingPoint(a) || isFloatingPoint(b)) return DType::Double;
  return isIntegral(a) ? a : fallback;
}

DTypeRule outputDType(const Fusion& f, const Expr& e, size_t out) {
  auto operand = [&](size_t i) { return operandOf(f, e.inputs[i]); };
  const OpInfo& info = opInfo(e.op);
  switch (info.category) {
    case OpCategory::Set: return {operand(0).dtype, "a copy keeps the dtype"};
    case OpCategory::Cast: return {e.attrs.dtype, "its target dtype"};
    case OpCategory::Compare: return {DType::Bool, "comparisons and logical ops produce Bool"};
    case OpCategory::Unary: {
      const PromotionOperand in[] = {operand(0)};
      switch (info.promotion) {
        case Promotion::Keep: return {in[0].dtype, "the op keeps its operand's dtype"};
        case Promotion::Bool: return {DType::Bool, "logical ops produce Bool"};
        case Promotion::Float:
          return {computeTypes(in, true, true), "floating-point math promotes integers and Half to Float"};
        case Promotion::Default:
          return {computeTypes(in, false, true), "the op computes Half and BFloat16 in Float"};
        case Promotion::Part:
          if (std::optional<DType> part = complexPartDType(in[0].dtype))
            return {*part, "a complex operand gives its parts' dtype"};
          return {in[0].dtype, "the op keeps a real operand's dtype"};
        case Promotion::Complex: return {};
        case Promotion::DoubleScalar: {
          // gelu: x * (0.5 * (1 + erf(x * 1/sqrt(2)))) with Double constants.
          const PromotionOperand with[] = {in[0], {DType::Double, false}};
          return {computeTypes(with, false, true), "gelu multiplies by Double constants"};
        }
      }
      return {};
    }
    case OpCategory::Binary: {
      const PromotionOperand in[] = {operand(0), operand(1)};
      if (info.promotion == Promotion::Complex) {
        // complex(r, i): "real and imag data type should be same in complex()", then
        // getComplexTypeFromType (Float or Double only), csrc/ops/arith.cpp:655-663 @ 81c4b22fd.
        if (in[0].dtype != in[1].dtype) return {std::nullopt, "complex() takes two operands of one dtype"};
        return {complexDTypeOf(in[0].dtype), "the complex dtype of its Float or Double operands"};
      }
      return {computeTypes(in, info.promotion == Promotion::Float, true),
              "the promoted dtype of its operands"};
    }
    case OpCategory::Ternary: {
      if (info.promotion == Promotion::Keep) return {operand(0).dtype, "the op keeps its input's dtype"};
      if (e.op != OpKind::Where) {
        // lerp: the three operands cast to their default_op_config dtype.
        const PromotionOperand in[] = {operand(0), operand(1), operand(2)};
        return {computeTypes(in, false, true), "the promoted dtype of its operands"};
      }
      // where: the two values only, and Half stays Half (cast_half_to_float = false).
      const PromotionOperand in[] = {operand(1), operand(2)};
      return {computeTypes(in, false, false), "the promoted dtype of its value operands"};
    }
    case OpCategory::Shape: return {operand(0).dtype, "the op keeps its input's dtype"};
    case OpCategory::Reduction: {
      if (e.attrs.dtype) return {e.attrs.dtype, "its \"dtype\" attribute"};
      DType in = operand(0).dtype;
      switch (e.op) {
        case OpKind::Sum:
        case OpKind::Prod:
          // Bool and integers are summed as Int (csrc/ops/arith.cpp:1470-1489 @ 81c4b22fd).
          if (isIntegral(in) || in == DType::Bool) return {DType::Int, "integer sums accumulate in Int"};
          return {in, "reductions keep their input's dtype"};
        case OpKind::Mean:
          // sum, then div by the Index count (csrc/ops/normalization.cpp mean).
          if (isIntegral(in) || in == DType::Bool)
            return {DType::Int, "the mean of integers divides an Int sum"};
          return {isLowPrecisionFloat(in) ? DType::Float : in, "the mean divides in Float"};
        case OpKind::Welford:
          // newForReduction(tv, axes) for avg and var_sum, (tv, axes, DataType::Index) for N
          // (csrc/ops/arith.cpp:1612-1614 @ 81c4b22fd).
          if (out == 2) return {DType::Index, "Welford's count N is Index"};
          return {in, "Welford's avg and var_sum keep the operand's dtype"};
        case OpKind::Var:
        case OpKind::VarMean:
          // variance_mean of a complex tensor: the var is real (the sum of the parts' variances), the
          // mean complex (csrc/ops/normalization.cpp:112-122 @ 81c4b22fd); variance keeps the dtype.
          if (isComplex(in)) {
            if (e.op == OpKind::VarMean && out == 0)
              return {*complexPartDType(in), "the variance of a complex tensor is real"};
            return {in, "the mean of a complex tensor is complex"};
          }
          if (!isFloatingPoint(in)) return {DType::Float, "the variance of integers is Float"};
          return {isLowPrecisionFloat(in) ? DType::Float : in, "the variance computes in Float"};
        default: return {in, "reductions keep their input's dtype"};
      }
    }
    case OpCategory::Factory:
      return {e.attrs.dtype ? e.attrs.dtype : (e.op == OpKind::Iota ? DType::Int : DType::Float),
              "its \"dtype\" attribute"};
    case OpCategory::Matmul: return {operand(0).dtype, "the dtype of its operands"};
    case OpCategory::Opaque: return {};
  }
  (void)out;
  return {};
}

std::string_view dtypeRuleSummary(OpKind op) {
  const OpInfo& info = opInfo(op);
  switch (info.category) {
    case OpCategory::Set: return "the operand's";
    case OpCategory::Cast: return "`dtype`";
    case OpCategory::Compare: return "Bool";
    case OpCategory::Ternary:
      if (info.promotion == Promotion::Keep) return "the input's";
      if (op != OpKind::Where) return "promoted; Half and BFloat16 computed in Float";
      return "the values' promoted (Half stays Half)";
    case OpCategory::Shape: return "the operand's";
    case OpCategory::Reduction:
      switch (info.form) {
        case OpForm::Mean: return "Float for Half and BFloat16; Int for integers";
        case OpForm::Var: return "Float for integers, Half and BFloat16";
        case OpForm::VarMean:
          return "Float for integers, Half and BFloat16; the var of a complex operand: its parts'";
        case OpForm::Welford: return "the operand's (avg, var_sum); Index (N)";
        default: return "`dtype`, else the operand's; Int for integers and Bool (sum, prod)";
      }
    case OpCategory::Factory: return "`dtype`";
    case OpCategory::Matmul: return "the operands' (equal)";
    case OpCategory::Opaque: return "as the repro declares it (no rule)";
    case OpCategory::Unary:
    case OpCategory::Binary: break;
  }
  switch (info.promotion) {
    case Promotion::Keep: return "the operand's";
    case Promotion::Bool: return "Bool";
    case Promotion::Float: return "promoted; integers, Bool and Half to Float";
    case Promotion::Default: return "promoted; Half and BFloat16 computed in Float";
    case Promotion::DoubleScalar: return "promoted with a Double constant; Half and BFloat16 to Float";
    case Promotion::Part: return "the parts' of a complex operand (Float, Double); else the operand's";
    case Promotion::Complex: return "the complex of its operands' (equal, Float or Double)";
  }
  return "";
}

std::vector<std::string_view> attrKeys(OpKind op) {
  static constexpr std::pair<Attr, std::string_view> kKeys[] = {{Attr::DType, "dtype"},
                                                                {Attr::Approximate, "approximate"},
                                                                {Attr::Flags, "flags"},
                                                                {Attr::Shape, "shape"},
                                                                {Attr::Dims, "dims"},
                                                                {Attr::Ranges, "ranges"},
                                                                {Attr::Pad, "pad"},
                                                                {Attr::Value, "value"},
                                                                {Attr::Dim, "dim"},
                                                                {Attr::Keepdim, "keepdim"},
                                                                {Attr::Correction, "correction"},
                                                                {Attr::Start, "start"},
                                                                {Attr::Step, "step"},
                                                                {Attr::Name, "name"},
                                                                {Attr::OriginalShape, "original_shape"}};
  std::vector<std::string_view> out;
  for (const auto& [a, key] : kKeys)
    if (opAccepts(op, a)) out.push_back(key);
  return out;
}

}  // namespace fc
