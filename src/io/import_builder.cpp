// Op-by-op Fusion construction with nvFuser's shape inference (see import_builder.h).
#include "io/import_builder.h"

#include <algorithm>

#include "support/checked.h"

namespace fc {
namespace {

char dtypePrefix(DType t) {
  switch (t) {
    case DType::Bool: return 'b';
    case DType::Double: return 'd';
    case DType::Float:
    case DType::Half:
    case DType::BFloat16:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2: return 'f';
    default: return 'i';
  }
}

int floatRank(DType t) {
  switch (t) {
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2: return 1;
    case DType::Half:
    case DType::BFloat16: return 2;
    case DType::Float: return 3;
    case DType::Double: return 4;
    default: return 0;
  }
}

bool isFloatOnlyUnary(OpKind k) {
  switch (k) {
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Reciprocal:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Erf: return true;
    default: return false;
  }
}

int64_t normDim(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

}  // namespace

std::string importedMeshProblem(const std::vector<int64_t>& devices, DiagCode& code) {
  code = DiagCode::BadMesh;
  if (devices.empty()) {
    code = DiagCode::EmptyMesh;
    return "the device mesh has no devices";
  }
  std::vector<int64_t> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0) return "the device mesh has the negative device " + std::to_string(sorted.front());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) return "the device mesh lists device " + std::to_string(*dup) + " twice";
  return {};
}

ScalarId ImportBuilder::freshSymbol() {
  return f_.addSymbol("i" + std::to_string(next_other_++), DType::Index);
}

ScalarId ImportBuilder::scalarInput(DType dtype) {
  return f_.addScalarInput(std::string(1, dtypePrefix(dtype)) + std::to_string(next_other_++), dtype);
}

ScalarId ImportBuilder::constInt(int64_t v, DType dtype) { return f_.addConstInt(v, dtype); }
ScalarId ImportBuilder::constFloat(double v, DType dtype) { return f_.addConstFloat(v, dtype); }
ScalarId ImportBuilder::constBool(bool v) { return f_.addConstBool(v); }

std::optional<int64_t> ImportBuilder::constValue(ScalarId s) const {
  if (s >= f_.scalars.size()) return std::nullopt;
  const Scalar& sc = f_.scalars[s];
  if (sc.kind != ScalarKind::Constant || sc.value.kind != ConstValue::Kind::Int) return std::nullopt;
  return sc.value.i;
}

ScalarId ImportBuilder::derived(ScalarOp op, ScalarId a, ScalarId b) {
  auto ca = constValue(a);
  auto cb = b == kNone ? std::optional<int64_t>() : constValue(b);
  if (ca && (op == ScalarOp::Neg || cb)) {
    std::optional<int64_t> r;
    switch (op) {
      case ScalarOp::Add: r = checkedAdd(*ca, *cb); break;
      case ScalarOp::Sub: r = checkedSub(*ca, *cb); break;
      case ScalarOp::Mul: r = checkedMul(*ca, *cb); break;
      case ScalarOp::Div: r = checkedDiv(*ca, *cb); break;
      case ScalarOp::Mod: r = checkedMod(*ca, *cb); break;
      case ScalarOp::CeilDiv: r = checkedCeilDiv(*ca, *cb); break;
      case ScalarOp::Max: r = std::max(*ca, *cb); break;
      case ScalarOp::Min: r = std::min(*ca, *cb); break;
      case ScalarOp::Neg: r = checkedSub(0, *ca); break;
      default: break;
    }
    if (r) return constInt(*r, f_.scalars[a].dtype);
  }
  // x + 0, x * 1, x / 1 keep x.
  if (cb && ((op == ScalarOp::Add || op == ScalarOp::Sub) && *cb == 0)) return a;
  if (cb && ((op == ScalarOp::Mul || op == ScalarOp::Div || op == ScalarOp::CeilDiv) && *cb == 1)) return a;
  if (ca && op == ScalarOp::Add && *ca == 0) return b;
  if (ca && op == ScalarOp::Mul && *ca == 1) return b;
  return f_.addDerived(op, a, b, f_.scalars[a].dtype);
}

AxisId ImportBuilder::axis(IterType iter, ScalarId extent, ScalarId expanded) {
  return f_.addAxis(next_axis_++, iter, ParallelType::Serial, extent, expanded);
}

TensorId ImportBuilder::tensor(DType dtype, std::vector<AxisId> logical) {
  return f_.addTensor("T" + std::to_string(next_tensor_++), dtype, MemoryType::Local, std::move(logical));
}

std::vector<AxisId> ImportBuilder::nonReduction(TensorId t) const {
  std::vector<AxisId> r;
  for (AxisId a : f_.tensors[t].logical)
    if (f_.axes[a].iter != IterType::Reduction) r.push_back(a);
  return r;
}

AxisId ImportBuilder::cloneAxis(AxisId a) {
  Axis src = f_.axes[a];
  IterType it = src.iter == IterType::Reduction ? IterType::Iteration : src.iter;
  return axis(it, src.extent, src.expanded);
}

DType ImportBuilder::promote(const std::vector<ValueRef>& in) const {
  // nvFuser's promoteType: tensors decide within a category; a scalar only lifts the category
  // (bool < integer < floating); mixing two low-precision floats gives Float.
  int cat = 0;  // 0 bool, 1 int, 2 float
  std::optional<DType> best;
  bool any_tensor = false;
  auto category = [](DType t) { return t == DType::Bool ? 0 : floatRank(t) ? 2 : 1; };
  for (const ValueRef& v : in)
    if (v.isTensor()) {
      any_tensor = true;
      DType t = f_.tensors[v.id].dtype;
      if (!best) {
        best = t;
      } else if (category(t) > category(*best)) {
        best = t;
      } else if (category(t) == category(*best) && t != *best) {
        if (category(t) == 2) {
          int rt = floatRank(t), rb = floatRank(*best);
          if (rt == rb)
            best = DType::Float;  // Half with BFloat16
          else if (rt > rb)
            best = t;
        } else if (t == DType::Int || *best == DType::Int || t == DType::Index || *best == DType::Index) {
          best = t == DType::Index || *best == DType::Index ? DType::Index : DType::Int;
        }
      }
    }
  for (const ValueRef& v : in)
    if (v.isScalar()) cat = std::max(cat, category(f_.scalars[v.id].dtype));
  if (!any_tensor) {
    DType r = DType::Bool;
    for (const ValueRef& v : in)
      if (v.isScalar() && category(f_.scalars[v.id].dtype) >= category(r)) r = f_.scalars[v.id].dtype;
    return r;
  }
  if (cat > category(*best)) return cat == 2 ? DType::Float : DType::Int;
  return *best;
}

std::optional<std::vector<TensorId>> ImportBuilder::op(OpKind k, std::vector<ValueRef> in, Attrs attrs,
                                                       std::string& err) {
  const OpInfo& info = opInfo(k);
  int n_in = static_cast<int>(in.size());
  if (n_in < info.min_inputs || (info.max_inputs >= 0 && n_in > info.max_inputs)) {
    err = std::string(info.name) + " takes " + std::to_string(info.min_inputs) +
          (info.max_inputs == info.min_inputs ? "" : " or more") + " operand(s), got " + std::to_string(n_in);
    return std::nullopt;
  }
  std::vector<TensorId> tins;
  for (const ValueRef& v : in)
    if (v.isTensor()) tins.push_back(v.id);
  auto needTensor = [&](size_t i) -> bool {
    if (i < in.size() && in[i].isTensor()) return true;
    err = std::string(info.name) + ": operand " + std::to_string(i) + " must be a tensor";
    return false;
  };
  std::vector<AxisId> out_axes;
  std::vector<AxisId> out_root;
  DType dt = DType::Float;

  switch (info.category) {
    case OpCategory::Set:
    case OpCategory::Cast:
    case OpCategory::Unary: {
      if (!needTensor(0)) return std::nullopt;
      for (AxisId a : nonReduction(in[0].id)) out_axes.push_back(cloneAxis(a));
      dt = f_.tensors[in[0].id].dtype;
      if (k == OpKind::Cast) {
        if (!attrs.dtype) {
          err = "cast needs a dtype";
          return std::nullopt;
        }
        dt = *attrs.dtype;
      } else if (k == OpKind::LogicalNot) {
        dt = DType::Bool;
      } else if (isFloatOnlyUnary(k) && !isFloatingPoint(dt)) {
        dt = DType::Float;
      }
      break;
    }
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Ternary: {
      if (tins.empty()) {
        err = std::string(info.name) + " of scalars only is a scalar op, not a tensor op";
        return std::nullopt;
      }
      size_t rank = nonReduction(tins[0]).size();
      for (TensorId t : tins)
        if (nonReduction(t).size() != rank) {
          err = std::string(info.name) + ": operands have different ranks (" + std::to_string(rank) +
                " and " + std::to_string(nonReduction(t).size()) + "); nvFuser needs an explicit broadcast";
          return std::nullopt;
        }
      for (size_t d = 0; d < rank; ++d) {
        AxisId pick = nonReduction(tins[0])[d];
        for (TensorId t : tins) {
          AxisId a = nonReduction(t)[d];
          if (f_.axes[a].iter != IterType::Broadcast) {
            pick = a;
            break;
          }
          if (f_.axes[a].expanded != kNone) pick = a;
        }
        out_axes.push_back(cloneAxis(pick));
      }
      if (info.category == OpCategory::Compare) {
        dt = DType::Bool;
      } else if (k == OpKind::Where) {
        dt = promote({in[1], in[2]});
        if (!in[1].isTensor() && !in[2].isTensor()) dt = promote(in);
      } else {
        dt = promote(in);
      }
      break;
    }
    case OpCategory::Shape: {
      if (!needTensor(0)) return std::nullopt;
      std::vector<AxisId> src = nonReduction(in[0].id);
      dt = f_.tensors[in[0].id].dtype;
      switch (k) {
        case OpKind::Broadcast: {
          size_t j = 0;
          for (bool b : attrs.flags) {
            if (b) {
              out_axes.push_back(axis(IterType::Broadcast, constInt(1)));
            } else if (j < src.size()) {
              out_axes.push_back(cloneAxis(src[j++]));
            } else {
              j = src.size() + 1;
              break;
            }
          }
          if (j != src.size()) {
            err = "broadcast: is_broadcast_dim has " + std::to_string(attrs.flags.size()) +
                  " entries, which does not fit an input of rank " + std::to_string(src.size());
            return std::nullopt;
          }
          break;
        }
        case OpKind::BroadcastInDim: {
          size_t rank = attrs.shape.size();
          if (attrs.dims.size() != src.size()) {
            err = "broadcast_in_dim: broadcast_dims has " + std::to_string(attrs.dims.size()) +
                  " entries, the input has rank " + std::to_string(src.size());
            return std::nullopt;
          }
          std::vector<int64_t> from(rank, -1);
          for (size_t i = 0; i < attrs.dims.size(); ++i) {
            int64_t d = attrs.dims[i];
            if (d < 0 || static_cast<size_t>(d) >= rank || from[static_cast<size_t>(d)] >= 0 ||
                (i > 0 && d <= attrs.dims[i - 1])) {
              err = "broadcast_in_dim: broadcast_dims must be increasing and within the output rank";
              return std::nullopt;
            }
            from[static_cast<size_t>(d)] = static_cast<int64_t>(i);
          }
          for (size_t d = 0; d < rank; ++d) {
            ScalarId s = attrs.shape[d];
            auto c = constValue(s);
            if (from[d] >= 0) {
              AxisId a = src[static_cast<size_t>(from[d])];
              if (f_.axes[a].iter == IterType::Broadcast && !(c && (*c == 1 || *c == -1)))
                out_axes.push_back(axis(IterType::Broadcast, constInt(1), s));
              else
                out_axes.push_back(cloneAxis(a));
            } else if (c && *c == 1) {
              out_axes.push_back(axis(IterType::Broadcast, constInt(1)));
            } else {
              out_axes.push_back(axis(IterType::Broadcast, constInt(1), s));
            }
          }
          break;
        }
        case OpKind::Expand: {
          if (attrs.shape.size() != src.size()) {
            err = "expand: shape has " + std::to_string(attrs.shape.size()) +
                  " entries, the input has rank " + std::to_string(src.size());
            return std::nullopt;
          }
          for (size_t d = 0; d < src.size(); ++d) {
            auto c = constValue(attrs.shape[d]);
            if (f_.axes[src[d]].iter == IterType::Broadcast && !(c && (*c == 1 || *c == -1)))
              out_axes.push_back(axis(IterType::Broadcast, constInt(1), attrs.shape[d]));
            else
              out_axes.push_back(cloneAxis(src[d]));
          }
          break;
        }
        case OpKind::Squeeze: {
          std::vector<bool> drop(src.size(), false);
          for (int64_t& d : attrs.dims) {
            d = normDim(d, src.size());
            if (d < 0 || static_cast<size_t>(d) >= src.size()) {
              err = "squeeze: dim out of range for an input of rank " + std::to_string(src.size());
              return std::nullopt;
            }
            drop[static_cast<size_t>(d)] = true;
          }
          for (size_t d = 0; d < src.size(); ++d)
            if (!drop[d]) out_axes.push_back(cloneAxis(src[d]));
          break;
        }
        case OpKind::Permute: {
          if (attrs.dims.size() != src.size()) {
            err = "permute: dims has " + std::to_string(attrs.dims.size()) + " entries, the input has rank " +
                  std::to_string(src.size());
            return std::nullopt;
          }
          for (AxisId a : src) out_root.push_back(cloneAxis(a));
          std::vector<bool> seen(src.size(), false);
          for (int64_t& d : attrs.dims) {
            d = normDim(d, src.size());
            if (d < 0 || static_cast<size_t>(d) >= src.size() || seen[static_cast<size_t>(d)]) {
              err = "permute: dims is not a permutation";
              return std::nullopt;
            }
            seen[static_cast<size_t>(d)] = true;
            out_axes.push_back(out_root[static_cast<size_t>(d)]);
          }
          break;
        }
        case OpKind::Reshape: {
          // -1 takes numel(input) / product(other sizes); non-constant sizes make the output
          // axes Symbolic (a dynamic reshape, concretized at run time).
          bool dynamic = false;
          int minus_one = -1;
          for (size_t d = 0; d < attrs.shape.size(); ++d) {
            auto c = constValue(attrs.shape[d]);
            if (!c)
              dynamic = true;
            else if (*c == -1) {
              if (minus_one >= 0) {
                err = "reshape: more than one -1 in new_shape";
                return std::nullopt;
              }
              minus_one = static_cast<int>(d);
            } else if (*c < 0) {
              err = "reshape: negative size " + std::to_string(*c);
              return std::nullopt;
            }
          }
          for (size_t d = 0; d < attrs.shape.size(); ++d) {
            ScalarId e = attrs.shape[d];
            if (static_cast<int>(d) == minus_one) {
              ScalarId numel = constInt(1);
              for (AxisId a : src) numel = derived(ScalarOp::Mul, numel, f_.axes[a].extent);
              ScalarId others = constInt(1);
              for (size_t o = 0; o < attrs.shape.size(); ++o)
                if (o != d) others = derived(ScalarOp::Mul, others, attrs.shape[o]);
              e = derived(ScalarOp::Div, numel, others);
              if (!constValue(e)) dynamic = true;
            }
            auto c = constValue(e);
            IterType it = dynamic          ? IterType::Symbolic
                          : (c && *c == 1) ? IterType::Broadcast
                                           : IterType::Iteration;
            AxisId na = axis(it, e);
            f_.axes[na].rfactor = true;
            out_axes.push_back(na);
          }
          for (AxisId a : src) out_root.push_back(cloneAxis(a));
          break;
        }
        case OpKind::Slice: {
          if (attrs.ranges.size() > src.size()) {
            err = "slice: more ranges than input axes";
            return std::nullopt;
          }
          for (size_t d = 0; d < src.size(); ++d) {
            if (d >= attrs.ranges.size()) {
              out_axes.push_back(cloneAxis(src[d]));
              continue;
            }
            SliceRange& r = attrs.ranges[d];
            if (r.start == kNone) r.start = constInt(0);
            if (r.stop == kNone) r.stop = f_.axes[src[d]].extent;
            if (r.step == kNone) r.step = constInt(1);
            auto c0 = constValue(r.start), c1 = constValue(r.step);
            if (c0 && *c0 == 0 && c1 && *c1 == 1 && r.stop == f_.axes[src[d]].extent) {
              out_axes.push_back(cloneAxis(src[d]));
              continue;
            }
            ScalarId ext = derived(ScalarOp::CeilDiv, derived(ScalarOp::Sub, r.stop, r.start), r.step);
            auto c = constValue(ext);
            if (c && *c < 0) ext = constInt(0);
            AxisId na = axis(c ? IterType::Iteration : IterType::Symbolic, ext);
            f_.axes[na].rfactor = true;
            out_axes.push_back(na);
          }
          break;
        }
        case OpKind::Pad: {
          if (attrs.pad.size() % 2 != 0 || attrs.pad.size() / 2 > src.size()) {
            err = "pad: pad_widths needs an even number of entries, at most two per input axis";
            return std::nullopt;
          }
          size_t padded = attrs.pad.size() / 2;
          for (size_t d = 0; d < src.size(); ++d) {
            size_t from_inner = src.size() - 1 - d;
            if (from_inner >= padded) {
              out_axes.push_back(cloneAxis(src[d]));
              continue;
            }
            ScalarId ext = derived(ScalarOp::Add,
                                   derived(ScalarOp::Add, attrs.pad[2 * from_inner], f_.axes[src[d]].extent),
                                   attrs.pad[2 * from_inner + 1]);
            AxisId na = axis(constValue(ext) ? IterType::Iteration : IterType::Symbolic, ext);
            f_.axes[na].rfactor = true;
            out_axes.push_back(na);
          }
          break;
        }
        case OpKind::Cat: {
          for (const ValueRef& v : in)
            if (!v.isTensor() || nonReduction(v.id).size() != src.size()) {
              err = "cat: operands must be tensors of one rank";
              return std::nullopt;
            }
          attrs.dim = normDim(attrs.dim, src.size());
          if (attrs.dim < 0 || static_cast<size_t>(attrs.dim) >= src.size()) {
            err = "cat: dim out of range";
            return std::nullopt;
          }
          for (size_t d = 0; d < src.size(); ++d) {
            if (static_cast<int64_t>(d) != attrs.dim) {
              out_axes.push_back(cloneAxis(src[d]));
              continue;
            }
            ScalarId ext = f_.axes[src[d]].extent;
            for (size_t i = 1; i < in.size(); ++i)
              ext = derived(ScalarOp::Add, ext, f_.axes[nonReduction(in[i].id)[d]].extent);
            AxisId na = axis(constValue(ext) ? IterType::Iteration : IterType::Symbolic, ext);
            f_.axes[na].rfactor = true;
            out_axes.push_back(na);
          }
          dt = promote(in);
          break;
        }
        default: break;
      }
      break;
    }
    case OpCategory::Reduction: {
      if (!needTensor(0)) return std::nullopt;
      std::vector<AxisId> src = nonReduction(in[0].id);
      std::vector<bool> red(src.size(), attrs.dims.empty());
      for (int64_t& d : attrs.dims) {
        d = normDim(d, src.size());
        if (d < 0 || static_cast<size_t>(d) >= src.size()) {
          err = std::string(info.name) + ": dim out of range for an input of rank " +
                std::to_string(src.size());
          return std::nullopt;
        }
        red[static_cast<size_t>(d)] = true;
      }
      if (attrs.dims.empty())
        for (size_t d = 0; d < src.size(); ++d) attrs.dims.push_back(static_cast<int64_t>(d));
      std::sort(attrs.dims.begin(), attrs.dims.end());
      attrs.dims.erase(std::unique(attrs.dims.begin(), attrs.dims.end()), attrs.dims.end());
      for (size_t d = 0; d < src.size(); ++d) {
        if (!red[d]) {
          out_axes.push_back(cloneAxis(src[d]));
        } else if (attrs.keepdim) {
          out_axes.push_back(axis(IterType::Broadcast, constInt(1)));
        } else {
          out_axes.push_back(axis(IterType::Reduction, f_.axes[src[d]].extent));
        }
      }
      dt = f_.tensors[in[0].id].dtype;
      if (k == OpKind::Sum || k == OpKind::Prod) {
        if (attrs.dtype)
          dt = *attrs.dtype;
        else if (!isFloatingPoint(dt))
          dt = DType::Int;
      } else if (k == OpKind::Mean || k == OpKind::Var || k == OpKind::VarMean) {
        if (!isFloatingPoint(dt)) dt = DType::Float;
      }
      if (k == OpKind::VarMean) {
        std::vector<AxisId> second;
        for (AxisId a : out_axes)
          second.push_back(axis(f_.axes[a].iter, f_.axes[a].extent, f_.axes[a].expanded));
        out_root = std::move(second);  // reused as the second output's logical domain
      }
      break;
    }
    case OpCategory::Factory: {
      dt = attrs.dtype.value_or(DType::Float);
      if (k == OpKind::Iota) {
        dt = attrs.dtype.value_or(DType::Int);
        if (attrs.shape.size() != 1) {
          err = "iota takes one length";
          return std::nullopt;
        }
      }
      if (k == OpKind::Full && attrs.value == kNone) {
        err = "full needs a fill_value";
        return std::nullopt;
      }
      for (ScalarId s : attrs.shape) {
        auto c = constValue(s);
        if (c && *c < 0) {
          err = std::string(info.name) + ": negative size " + std::to_string(*c);
          return std::nullopt;
        }
        IterType it = !c ? IterType::Symbolic : *c == 1 ? IterType::Broadcast : IterType::Iteration;
        out_axes.push_back(axis(it, s));
      }
      break;
    }
    case OpCategory::Matmul: {
      if (!needTensor(0) || !needTensor(1)) return std::nullopt;
      std::vector<AxisId> a = nonReduction(in[0].id), b = nonReduction(in[1].id);
      if (a.empty() || b.empty()) {
        err = std::string(info.name) + ": operands must have rank >= 1";
        return std::nullopt;
      }
      dt = promote({in[0], in[1]});
      if (k == OpKind::Matmul) {
        AxisId kax = a.back();
        std::vector<AxisId> ab(a.begin(), a.end() - (a.size() >= 2 ? 2 : 1));
        std::vector<AxisId> bb(b.begin(), b.end() - (b.size() >= 2 ? 2 : 1));
        size_t nb = std::max(ab.size(), bb.size());
        for (size_t i = 0; i < nb; ++i) {
          // right-aligned batch broadcasting
          std::optional<AxisId> x, y;
          if (i + ab.size() >= nb) x = ab[i + ab.size() - nb];
          if (i + bb.size() >= nb) y = bb[i + bb.size() - nb];
          AxisId pick = x ? *x : *y;
          if (x && y && f_.axes[*x].iter == IterType::Broadcast) pick = *y;
          out_axes.push_back(cloneAxis(pick));
        }
        if (a.size() >= 2) out_axes.push_back(cloneAxis(a[a.size() - 2]));
        if (b.size() >= 2) out_axes.push_back(cloneAxis(b.back()));
        out_axes.push_back(axis(IterType::Reduction, f_.axes[kax].extent));
      } else {
        if (b.size() > 2) {
          err = "linear: the weight must have rank 1 or 2";
          return std::nullopt;
        }
        for (size_t i = 0; i + 1 < a.size(); ++i) out_axes.push_back(cloneAxis(a[i]));
        if (b.size() == 2) out_axes.push_back(cloneAxis(b[0]));
        out_axes.push_back(axis(IterType::Reduction, f_.axes[a.back()].extent));
      }
      break;
    }
  }

  TensorId out = tensor(dt, out_axes);
  std::vector<TensorId> outs{out};
  if (k == OpKind::Permute || k == OpKind::Reshape) {
    f_.tensors[out].root = out_root;
    for (AxisId a : out_root) f_.axes[a].owner = out;
  }
  if (k == OpKind::VarMean) outs.push_back(tensor(dt, out_root));
  f_.addExpr(k, std::move(in), outs, std::move(attrs));
  return outs;
}

void ImportBuilder::finish() {
  for (Tensor& t : f_.tensors) t.memory = MemoryType::Local;
  for (const ValueRef& v : f_.inputs)
    if (v.isTensor() && v.id < f_.tensors.size()) f_.tensors[v.id].memory = MemoryType::Global;
  for (TensorId t : f_.outputs)
    if (t < f_.tensors.size()) f_.tensors[t].memory = MemoryType::Global;
  for (const Expr& e : f_.exprs) {
    MeshId m = kNone;
    for (const ValueRef& v : e.inputs)
      if (v.isTensor() && f_.tensors[v.id].mesh != kNone) {
        m = f_.tensors[v.id].mesh;
        break;
      }
    if (m == kNone) continue;
    for (TensorId o : e.outputs)
      if (f_.tensors[o].mesh == kNone) f_.tensors[o].mesh = m;
  }
}

}  // namespace fc
