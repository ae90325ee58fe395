// Exprs: an op kind, operands, outputs and the op's attributes.
// Communications are not exprs: they are derived from the shardings of an
// expr's input and output.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ids.h"
#include "ir/op_kind.h"
#include "ir/types.h"

namespace fc {

struct SliceRange {
  ScalarId start = kNone;
  ScalarId stop = kNone;
  ScalarId step = kNone;
};

// The attributes an op may carry; which ones are legal is in ops.def.
struct Attrs {
  std::string name;                // opaque: the op's name as the repro gives it
  std::vector<int64_t> dims;       // reduce / permute / squeeze / broadcast_in_dim axes
  std::vector<bool> flags;         // broadcast flags, one per output axis
  std::vector<ScalarId> shape;     // reshape / expand / factory / broadcast_in_dim sizes
  std::vector<ScalarId> pad;       // pad widths, innermost axis first (lo, hi pairs)
  std::vector<SliceRange> ranges;  // slice, one per input axis
  std::optional<DType> dtype;      // cast target; reduction / factory dtype
  ScalarId value = kNone;          // fill / pad value
  ScalarId start = kNone;          // iota
  ScalarId step = kNone;           // iota
  int64_t dim = 0;                 // cat axis
  int64_t correction = 1;          // var / var_mean
  bool keepdim = false;
  bool approximate_tanh = false;  // gelu(approximate="tanh")
  // reshape(x, original_sizes, new_sizes): the sizes the reshape was analysed for at definition
  // (a static reshape, never Symbolic); empty for reshape(x, new_sizes).
  std::vector<int64_t> original_shape;
};

struct Expr {
  OpKind op = OpKind::Set;
  std::vector<ValueRef> inputs;
  std::vector<TensorId> outputs;
  Attrs attrs;
};

// An opaque expr that stands for a whole segment of a segmented dump that shows the segment's
// inputs and outputs but not its exprs (io/ir/segments.cpp names it "segment(<scheduler>)").
inline bool isOpaqueSegment(const Expr& x) {
  return isOpaque(x.op) && std::string_view(x.attrs.name).starts_with("segment(");
}

// The op's name as a reader knows it: an opaque op's own name, else the op kind's.
inline std::string_view exprOpName(const Expr& x) {
  return isOpaque(x.op) && !x.attrs.name.empty() ? std::string_view(x.attrs.name) : opName(x.op);
}

// Calls f(ScalarId&) on every scalar id that an expr's attributes hold.
template <class F>
void eachAttrScalar(Attrs& a, F&& f) {
  for (ScalarId& s : a.shape) f(s);
  for (ScalarId& s : a.pad) f(s);
  for (SliceRange& r : a.ranges) {
    f(r.start);
    f(r.stop);
    f(r.step);
  }
  f(a.value);
  f(a.start);
  f(a.step);
}

}  // namespace fc
