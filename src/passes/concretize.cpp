#include "passes/concretize.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

#include "ir/printer.h"
#include "ir/uncomputed_scalar.h"
#include "support/epoch_marks.h"
#include "support/parallel.h"
#include "support/step_counters.h"

namespace fc {
namespace {

Location tensorAxisLoc(const std::string& file, TensorId t, size_t pos) {
  return Location::at(file, Place::tensor(t).at(PlaceField::Logical, pos));
}
// The expr's attribute `field`, or element `idx` of it.
Location exprLoc(const std::string& file, ExprId e, PlaceField field, size_t idx = SIZE_MAX) {
  Place p = Place::expr(e);
  return Location::at(file, idx == SIZE_MAX ? p.key(field) : p.at(field, idx));
}

size_t logicalIndex(const Fusion& f, TensorId t, AxisId a) {
  const auto& L = f.tensors[t].logical;
  for (size_t i = 0; i < L.size(); ++i)
    if (L[i] == a) return i;
  return 0;
}

bool isConstNonZero(const Fusion& f, ScalarId s) {
  const Scalar& sc = f.scalars[s];
  return sc.kind == ScalarKind::Constant && !(sc.value.kind == ConstValue::Kind::Int && sc.value.i == 0);
}

// A product of extents read as a constant times a multiset of scalars, with
// size(T, d) read as the extent of T's d-th non-Reduction logical axis. Two
// products with equal factors are equal for every binding; that is all the
// symbolic comparison claims.
struct Product {
  int64_t constant = 1;
  std::vector<ScalarId> factors;
};

// Adds the factors of `s` to `p`; false when `s` is not a product of
// constants and scalars (a sum, a division, an overflow).
bool addFactors(const Fusion& f, ScalarId s, Product& p) {
  const Scalar& sc = f.scalars[s];
  if (sc.kind == ScalarKind::Constant)
    return sc.value.kind == ConstValue::Kind::Int &&
           !__builtin_mul_overflow(p.constant, sc.value.i, &p.constant);
  if (sc.kind == ScalarKind::Derived && sc.op == ScalarOp::Mul)
    return addFactors(f, sc.lhs, p) && addFactors(f, sc.rhs, p);
  if (sc.kind == ScalarKind::Derived && sc.op == ScalarOp::Size) {
    const AxisId a = f.sizeAxis(sc);
    return a != kNone && addFactors(f, f.axes[a].extent, p);
  }
  p.factors.push_back(s);
  return true;
}

// Whether `part` divides `whole` for every binding: its constant divides and
// its factors are among whole's.
bool dividesSymbolically(Product part, Product whole) {
  if (part.constant == 0 || whole.constant % part.constant != 0) return false;
  std::sort(part.factors.begin(), part.factors.end());
  std::sort(whole.factors.begin(), whole.factors.end());
  return std::includes(whole.factors.begin(), whole.factors.end(), part.factors.begin(), part.factors.end());
}

}  // namespace

// The analysis of one view, or of one chunk of its exprs (analyzeInChunks).
struct Analysis {
  const Fusion& f;
  ScalarEval& ev;
  DidBindingRule did;
  DiagnosticSink& sink;
  const std::string& file;
  EpochMarks& visited;        // tensors already visited
  bool shared_marks = false;  // a chunk: `visited` is the view's, read-only
  ConcretizationInfo info;
  // Symbols a reshape already reported (FC0303): nvFuser fails there first.
  std::vector<ScalarId> reported;

  void need(ScalarId s, UnboundUse use) {
    if (s == kNone || ev.isKnown(s)) return;
    for (ScalarId sym : ScalarEval::freeSymbols(f, s)) {
      if (ev.isKnown(sym)) continue;
      use.symbol = sym;
      use.scalar = s;
      info.unbound.push_back(use);
    }
  }

  void visitAxes(TensorId t, const std::vector<AxisId>& dom, bool on_input) {
    for (AxisId a : dom) {
      const Axis& ax = f.axes[a];
      ScalarId e = ax.expanded != kNone ? ax.expanded : ax.extent;
      if (e == kNone || isConstNonZero(f, e)) continue;
      ++info.checked_extents;
      UnboundUse u;
      u.tensor = t;
      u.axis = a;
      u.pos = logicalIndex(f, t, a);
      u.on_input = on_input;
      u.reduction_axis = ax.iter == IterType::Reduction;
      need(e, u);
      if (auto v = ev.value(e); v && *v == 0)
        info.empty_extents.push_back(std::string(f.tensorName(t)) + " axis " + std::to_string(u.pos) + " (" +
                                     axisToString(f, a) + ") = 0");
      if (ax.iter == IterType::Symbolic) {
        auto v = ev.value(e);
        if (v)
          info.decisions.push_back(std::string(f.tensorName(t)) + " axis " + std::to_string(u.pos) +
                                   ": Symbolic -> " + (*v == 1 ? "Broadcast" : "Iteration") + " (extent " +
                                   std::to_string(*v) + ")");
      }
      // Where binding gives a DID axis the mesh size, a DID axis of a
      // produced tensor must span the mesh too.
      if (did == DidBindingRule::MeshSizeLocalOne && isDeviceDim(ax.parallel) && f.tensors[t].mesh != kNone) {
        const Mesh& m = f.meshes[f.tensors[t].mesh];
        int64_t want = m.size();
        auto v = ev.value(ax.extent);
        if (v && want > 0 && *v != want && !on_input) {
          auto& d = sink.error(DiagCode::DidMeshMismatch,
                               std::string(f.tensorName(t)) + " axis " + std::to_string(u.pos) + " (" +
                                   axisToString(f, a) + ") is parallelized on " +
                                   std::string(parallelTypeName(ax.parallel)) + " with extent " +
                                   std::to_string(*v) + ", but its mesh " + m.toString(false) + " has " +
                                   std::to_string(want) + " devices there",
                               tensorAxisLoc(file, t, u.pos));
          d.note("a logical DID axis spans the mesh: its extent must be the mesh size");
        }
      }
    }
  }

  // A reshape whose sizes are bound but whose validity depends on values no
  // input gives: nvFuser concretizes it at run time; fusecheck cannot say
  // whether the element counts agree.
  void undecidedReshape(ExprId eid) {
    const Expr& e = f.exprs[eid];
    std::string shape;
    for (ScalarId s : e.attrs.shape) shape += (shape.empty() ? "" : ", ") + scalarToString(f, s);
    auto& d = sink.report(Severity::NotDecided, DiagCode::NotDecided,
                          "whether reshape of " + std::string(f.tensorName(e.inputs[0].id)) + " into [" +
                              shape + "] keeps the element count depends on the input sizes",
                          exprLoc(file, eid, PlaceField::Shape));
    d.note(
        "its sizes are bound by the inputs' extents, so nvFuser concretizes it; without sizes the counts "
        "are compared only as products of the same extents");
    d.note("pass the input sizes (concrete_inputs, or --bind NAME=VALUE) to decide it");
  }

  void visitExpr(ExprId eid) {
    const Expr& e = f.exprs[eid];
    // Scalars used as values: operands and attributes.
    for (size_t i = 0; i < e.inputs.size(); ++i)
      if (e.inputs[i].isScalar()) {
        UnboundUse u;
        u.expr = eid;
        need(e.inputs[i].id, u);
      }
    const Attrs& at = e.attrs;
    // A fill value / iota start or step needs its integer symbols (an extent
    // used as a value, e.g. full(..., i0 * 0.5)), whatever the value's own
    // dtype; floating scalar inputs are runtime values, not extents.
    for (ScalarId s : {at.value, at.start, at.step}) {
      if (s == kNone || ev.isKnown(s)) continue;
      for (ScalarId sym : ScalarEval::freeSymbols(f, s)) {
        if (ev.isKnown(sym) || f.scalars[sym].dtype == DType::Double || f.scalars[sym].dtype == DType::Float)
          continue;
        UnboundUse u;
        u.expr = eid;
        u.symbol = sym;
        u.scalar = s;
        info.unbound.push_back(u);
      }
    }
    for (TensorId t : e.outputs) {
      if (visited.test(t)) continue;
      if (!shared_marks) visited.set(t);  // chunks: a verified fusion's outputs are unique
      visitAxes(t, f.tensors[t].logical, false);
    }
    // Dynamic reshape (nvFuser's analyzeReshapes).
    if (e.op == OpKind::Reshape) {
      int64_t out_numel = 1;
      bool out_known = true;
      int minus_one = -1;
      // Sizes that are bound but have no value (no input sizes given): the
      // reshape concretizes, and its validity is decided symbolically.
      Product out_product;
      bool symbolic = false, out_factored = true, unevaluable = false;
      for (size_t i = 0; i < at.shape.size(); ++i) {
        ScalarId s = at.shape[i];
        const Scalar& sc = f.scalars[s];
        auto v = ev.value(s);
        if (!v && ev.isKnown(s)) {
          out_known = false;
          symbolic = true;
          out_factored = out_factored && addFactors(f, s, out_product);
          continue;
        }
        if (!v) {
          out_known = false;
          out_factored = false;
          unevaluable = true;
          std::optional<std::string> call;
          for (ScalarId sym : ScalarEval::freeSymbols(f, s)) {
            reported.push_back(sym);
            if (!call) call = uncomputedScalarCall(f, sym);
          }
          if (call) {
            // A value nvFuser computes from its operands and fusecheck does not compute
            // (ir/uncomputed_scalar.h): whether the reshape concretizes is not decided.
            auto& d = sink.report(
                Severity::NotDecided, DiagCode::NotDecided,
                "reshape size " + std::to_string(i) + " (" + scalarToString(f, s) + ") needs `" + *call +
                    "`, which fusecheck does not compute, so whether nvFuser concretizes this "
                    "reshape is not decided",
                exprLoc(file, eid, PlaceField::Shape, i));
            d.note("nvFuser evaluates the size from its operands when the fusion runs");
            continue;
          }
          auto& d = sink.error(DiagCode::ReshapeUnevaluable,
                               "reshape size " + std::to_string(i) + " (" + scalarToString(f, s) +
                                   ") cannot be evaluated from the bound inputs",
                               exprLoc(file, eid, PlaceField::Shape, i));
          d.note("nvFuser raises \"Cannot evaluate the extent of an output domain to reshape\"");
          continue;
        }
        if (*v == -1) {
          if (sc.kind != ScalarKind::Constant) {
            auto& d = sink.error(DiagCode::ReshapeUnevaluable,
                                 "reshape size " + std::to_string(i) + " (" + scalarToString(f, s) +
                                     ") evaluates to -1 but is not a constant",
                                 exprLoc(file, eid, PlaceField::Shape, i));
            d.note("nvFuser raises \"Values of -1 passed to reshape must be constant at definition.\"");
          }
          minus_one = static_cast<int>(i);
          continue;
        }
        if (__builtin_mul_overflow(out_numel, *v, &out_numel)) out_known = false;
        out_factored = out_factored && addFactors(f, s, out_product);
      }
      if (symbolic && out_factored && !e.inputs.empty() && e.inputs[0].isTensor()) {
        // With a -1, the other sizes must divide the input's element count.
        Product in_product;
        bool in_factored = true;
        for (AxisId a : f.tensors[e.inputs[0].id].logical) {
          if (f.axes[a].iter == IterType::Reduction) continue;
          const Axis& ax = f.axes[a];
          in_factored =
              in_factored && addFactors(f, ax.expanded != kNone ? ax.expanded : ax.extent, in_product);
        }
        const bool valid = in_factored && (minus_one >= 0 ? dividesSymbolically(out_product, in_product)
                                                          : dividesSymbolically(out_product, in_product) &&
                                                                dividesSymbolically(in_product, out_product));
        if (!valid) undecidedReshape(eid);
      } else if (symbolic && !unevaluable) {
        undecidedReshape(eid);
      }
      if (out_known && !e.inputs.empty() && e.inputs[0].isTensor()) {
        int64_t in_numel = 1;
        bool in_known = true;
        for (AxisId a : f.tensors[e.inputs[0].id].logical) {
          if (f.axes[a].iter == IterType::Reduction) continue;
          auto v = ev.value(f.axes[a].expanded != kNone ? f.axes[a].expanded : f.axes[a].extent);
          if (!v || __builtin_mul_overflow(in_numel, *v, &in_numel)) in_known = false;
        }
        if (in_known) {
          bool bad =
              minus_one < 0 ? in_numel != out_numel : (out_numel == 0 ? true : in_numel % out_numel != 0);
          if (bad) {
            auto& d = sink.error(
                minus_one >= 0 && in_numel == 0 ? DiagCode::EmptyExtent : DiagCode::ReshapeUnevaluable,
                "reshape of " + std::to_string(in_numel) + " elements into shape with " +
                    (minus_one >= 0 ? "a -1 and " : "") + std::to_string(out_numel) +
                    " elements is impossible",
                exprLoc(file, eid, PlaceField::Shape));
            d.note(minus_one >= 0 && in_numel == 0 ? "a -1 cannot be inferred for an empty tensor"
                                                   : "the element counts must agree");
          }
        }
      }
    }
    // Expand (nvFuser's analyzeExpands).
    if (e.op == OpKind::Expand && !e.inputs.empty() && e.inputs[0].isTensor()) {
      std::vector<AxisId> in = f.tensors[e.inputs[0].id].logical;
      in.erase(std::remove_if(in.begin(), in.end(),
                              [&](AxisId a) { return f.axes[a].iter == IterType::Reduction; }),
               in.end());
      for (size_t i = 0; i < at.shape.size() && i < in.size(); ++i) {
        auto want = ev.value(at.shape[i]);
        const Axis& ia = f.axes[in[i]];
        auto have = ev.value(ia.expanded != kNone ? ia.expanded : ia.extent);
        if (!want || !have || *want == -1 || *want == *have) continue;
        if (ia.iter == IterType::Broadcast && ia.expanded == kNone) continue;  // 1 -> n is the point
        // A Symbolic axis of extent 1 concretizes to Broadcast; one of constant extent 1 the expand
        // built as an expanded Broadcast axis already.
        if (*have == 1 && (ia.iter != IterType::Iteration || constIntOf(f, ia.extent) == 1)) continue;
        auto& d =
            sink.error(DiagCode::ExpandMismatch,
                       "expand changes axis " + std::to_string(i) + " of " +
                           std::string(f.tensorName(e.inputs[0].id)) + " from " + std::to_string(*have) +
                           " to " + std::to_string(*want) + ", which is not a broadcast",
                       exprLoc(file, eid, PlaceField::Shape, i));
        d.note("nvFuser raises \"Mismatch in sizes when concretizing expand\"");
      }
    }
  }
};

ConcretizationInfo analyzeConcretization(const Fusion& f, const ViewSpec& view, ScalarEval& ev,
                                         DidBindingRule did, DiagnosticSink& sink, const std::string& file,
                                         EpochMarks* scratch, unsigned threads) {
  // Called once per compute segment: with the caller's scratch the marks are
  // cleared in O(1), not allocated per call (that was O(segments x tensors)).
  EpochMarks local;
  EpochMarks& visited = scratch != nullptr ? *scratch : local;
  visited.reset(f.tensors.size());
  Analysis head{f, ev, did, sink, file, visited, false, {}, {}};
  for (const BoundInput& in : view.inputs) {
    visited.set(in.tensor);
    head.visitAxes(in.tensor, in.domain, true);
  }
  const size_t n = view.exprs.size(), w = std::min<size_t>(threads, n);
  if (w <= 1) {
    for (ExprId eid : view.exprs) head.visitExpr(eid);
  } else {
    // The exprs in chunks of the view's order, one per thread, each with its
    // own findings, appended in chunk order: the one-thread order. The
    // evaluator is shared: every scalar is evaluated first, so that reading
    // it writes nothing. The marks are shared too, read-only: they hold the
    // view's inputs, and the exprs of a verified fusion produce each tensor
    // once, so no chunk meets an output another visited.
    ev.evaluateAll();
    std::vector<DiagnosticSink> sinks(w);
    std::vector<std::optional<Analysis>> chunks(w);
    std::vector<steps::Counters> counters(w);
    parallelFor(w, [&](size_t k) {
      Analysis& a = chunks[k].emplace(Analysis{f, ev, did, sinks[k], file, visited, true, {}, {}});
      for (size_t i = n * k / w; i < n * (k + 1) / w; ++i) a.visitExpr(view.exprs[i]);
      if (k > 0) counters[k] = steps::counters;  // task 0 counts on this thread already
    });
    for (size_t k = 0; k < w; ++k) {
      Analysis& a = *chunks[k];
      auto append = [](auto& to, auto& from) {
        to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
      };
      append(head.info.unbound, a.info.unbound);
      append(head.info.empty_extents, a.info.empty_extents);
      append(head.info.decisions, a.info.decisions);
      head.info.checked_extents += a.info.checked_extents;
      append(head.reported, a.reported);
      sink.append(std::move(sinks[k]));
      steps::counters += counters[k];
    }
  }
  ConcretizationInfo& info = head.info;
  const std::vector<ScalarId>& reported = head.reported;
  info.unbound.erase(std::remove_if(info.unbound.begin(), info.unbound.end(),
                                    [&](const UnboundUse& u) {
                                      return std::find(reported.begin(), reported.end(), u.symbol) !=
                                             reported.end();
                                    }),
                     info.unbound.end());
  return std::move(head.info);
}

}  // namespace fc
