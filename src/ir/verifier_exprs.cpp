// The checks of exprs: references and arity, definitions and uses of
// tensors, fusion inputs and outputs, cycles (and the topological order the
// op checks follow), and an explicit segmentation.
#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/op_kind.h"
#include "ir/verifier_checks.h"

namespace fc::verify {

// ------------------------------------------------------------ expr references
void Checks::checkExprRefs(Reporter& r) {
  st_.expr_ok.assign(f_.exprs.size(), 1);
  checkExprRefs(0, f_.exprs.size(), r);
}

// checkExprRefs for exprs [b, e).
void Checks::checkExprRefs(size_t b, size_t e, Reporter& r) {
  for (size_t x = b; x < e; ++x) checkExprRef(static_cast<ExprId>(x), r);
}

void Checks::checkExprRef(ExprId e, Reporter& r) {
  const Expr& x = f_.exprs[e];
  auto p = [&] { return ep(e); };
  const OpInfo& info = opInfo(x.op);
  for (size_t k = 0; k < x.inputs.size(); ++k) {
    const ValueRef& v = x.inputs[k];
    if (v.isTensor() && !tensorValid(v.id)) {
      r.error(DiagCode::DanglingTensor, exprDesc(e) + " names a tensor that does not exist",
              p().at(F::Inputs, k));
      st_.expr_ok[e] = 0;
    } else if (v.isScalar() && (v.id == kNone || v.id >= f_.scalars.size())) {
      r.error(DiagCode::DanglingScalar, exprDesc(e) + " names a scalar that does not exist",
              p().at(F::Inputs, k));
      st_.expr_ok[e] = 0;
    }
  }
  for (size_t k = 0; k < x.outputs.size(); ++k)
    if (!tensorValid(x.outputs[k])) {
      r.error(DiagCode::DanglingTensor, exprDesc(e) + " names an output tensor that does not exist",
              p().at(F::Outputs, k));
      st_.expr_ok[e] = 0;
    }
  const int nin = static_cast<int>(x.inputs.size());
  if (nin < info.min_inputs || (info.max_inputs >= 0 && nin > info.max_inputs)) {
    std::string want = info.min_inputs == info.max_inputs ? std::to_string(info.min_inputs)
                       : info.max_inputs < 0
                           ? "at least " + std::to_string(info.min_inputs)
                           : std::to_string(info.min_inputs) + " to " + std::to_string(info.max_inputs);
    r.error(DiagCode::ArityMismatch,
            std::string(info.name) + " takes " + want + " input(s) but " + exprDesc(e) + " has " + num(nin),
            info.max_inputs >= 0 && nin > info.max_inputs ? p().at(F::Inputs, info.max_inputs)
                                                          : p().key(F::Inputs));
    st_.expr_ok[e] = 0;
  }
  if (info.num_outputs < 0 && x.outputs.empty()) {
    r.error(DiagCode::ArityMismatch,
            std::string(info.name) + " has at least 1 output but " + exprDesc(e) + " lists none",
            p().key(F::Outputs));
    st_.expr_ok[e] = 0;
  } else if (info.num_outputs >= 0 && static_cast<int>(x.outputs.size()) != info.num_outputs) {
    r.error(DiagCode::ArityMismatch,
            std::string(info.name) + " has " + std::to_string(info.num_outputs) + " output(s) but " +
                exprDesc(e) + " lists " + num(x.outputs.size()),
            x.outputs.size() > static_cast<size_t>(info.num_outputs) ? p().at(F::Outputs, info.num_outputs)
                                                                     : p().key(F::Outputs));
    st_.expr_ok[e] = 0;
  }
  if (isOpaque(x.op) && x.attrs.name.empty()) {
    r.error(DiagCode::BadAttribute,
            exprDesc(e) + " has no \"name\": an opaque op keeps the name it was given", p());
    st_.expr_ok[e] = 0;
  }
  if (!st_.expr_ok[e]) return;
  // Which operands must be tensors.
  auto needTensor = [&](size_t k) {
    if (k < x.inputs.size() && !x.inputs[k].isTensor()) {
      r.error(DiagCode::ArityMismatch,
              "input " + num(k) + " of " + exprDesc(e) + " must be a tensor, not the scalar " +
                  scalarDesc(x.inputs[k].id),
              p().at(F::Inputs, k));
      st_.expr_ok[e] = 0;
    }
  };
  switch (info.category) {
    case OpCategory::Set:
    case OpCategory::Cast:
    case OpCategory::Unary:
    case OpCategory::Shape:
    case OpCategory::Reduction:
      if (x.op == OpKind::Cat)
        for (size_t k = 0; k < x.inputs.size(); ++k) needTensor(k);
      else
        needTensor(0);
      break;
    case OpCategory::Matmul:
      for (size_t k = 0; k < x.inputs.size(); ++k) needTensor(k);
      break;
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Ternary: {
      bool any = false;
      for (const ValueRef& v : x.inputs) any = any || v.isTensor();
      if (!any) {
        r.error(DiagCode::ArityMismatch, exprDesc(e) + " has no tensor operand", p().key(F::Inputs));
        st_.expr_ok[e] = 0;
      }
      break;
    }
    case OpCategory::Factory:
    case OpCategory::Opaque: break;
  }
}

// ------------------------------------------------------------ definitions and uses
void Checks::checkDefinitions(Reporter& r) {
  const size_t nt = f_.tensors.size();
  st_.producer.assign(nt, kNone);
  st_.producer_slot.assign(nt, kNone);
  st_.input_pos.assign(nt, kNone);
  st_.undefined_reported.assign(nt, 0);
  checkProducers(0, f_.exprs.size(), r);
  std::vector<char> scalar_input(f_.scalars.size(), 0);
  checkFusionInputs(0, f_.inputs.size(), scalar_input, r);
  checkUses(0, f_.exprs.size(), r);
  checkFusionOutputs(0, f_.outputs.size(), r);
}

// The outputs of exprs [b, e): the first producer of a tensor is its
// definition; a second one is a finding.
void Checks::checkProducers(size_t b, size_t e, Reporter& r) {
  const bool speculative = r.speculative();
  const size_t nt = f_.tensors.size();
  const Expr* exprs = f_.exprs.data();
  ExprId* producer = st_.producer.data();
  uint32_t* producer_slot = st_.producer_slot.data();
  for (size_t i = b; i < e; ++i) {
    const ExprId x = static_cast<ExprId>(i);
    const std::vector<TensorId>& outs = exprs[x].outputs;
    for (size_t k = 0; k < outs.size(); ++k) {
      const TensorId t = outs[k];
      if (t >= nt) continue;  // an expr reference's finding
      const ExprId first = claim(producer[t], x, speculative);
      if (first == kNone)
        producer_slot[t] = static_cast<uint32_t>(k);
      else
        reportProducer(x, k, first, r);
    }
  }
}

// Output k of expr x is produced by `first` already.
void Checks::reportProducer(ExprId x, size_t k, ExprId first, Reporter& r) {
  const TensorId t = f_.exprs[x].outputs[k];
  // The first producer's slot, found in its outputs (another thread may be
  // writing st_.producer_slot[t]).
  const std::vector<TensorId>& first_outs = f_.exprs[first].outputs;
  const size_t first_slot = std::find(first_outs.begin(), first_outs.end(), t) - first_outs.begin();
  r.error(DiagCode::MultipleDefinitions,
          tname(t) + " is produced by " + exprDesc(first) + " and again by " + exprDesc(x),
          ep(x).at(F::Outputs, k))
      .note("first definition", r.at(ep(first).at(F::Outputs, first_slot)));
}

// Fusion inputs [b, e): each names a tensor no expr produces, or a
// scalar, once.
void Checks::checkFusionInputs(size_t b, size_t e, std::vector<char>& scalar_input, Reporter& r) {
  for (size_t k = b; k < e; ++k) {
    const ValueRef& v = f_.inputs[k];
    auto ptr = [k] { return Place::input(k); };  // for a diagnostic only
    if (v.isTensor()) {
      if (!tensorValid(v.id)) {
        r.error(DiagCode::DanglingTensor, "fusion input " + num(k) + " names a tensor that does not exist",
                ptr());
        continue;
      }
      const uint32_t first = claim(st_.input_pos[v.id], static_cast<uint32_t>(k), r.speculative());
      if (first != kNone) {
        r.error(DiagCode::DuplicateInput, tname(v.id) + " is listed twice as a fusion input", ptr())
            .note("first listed here", r.at(Place::input(first)));
        continue;
      }
      if (st_.producer[v.id] != kNone)
        r.error(DiagCode::InputProduced,
                tname(v.id) + " is a fusion input but " + exprDesc(st_.producer[v.id]) + " produces it",
                ep(st_.producer[v.id]).at(F::Outputs, st_.producer_slot[v.id]))
            .note(tname(v.id) + " is declared a fusion input here", r.at(ptr()));
    } else {
      if (v.id == kNone || v.id >= f_.scalars.size()) {
        r.error(DiagCode::DanglingScalar, "fusion input " + num(k) + " names a scalar that does not exist",
                ptr());
        continue;
      }
      if (!markOnce(scalar_input[v.id], r.speculative())) {
        r.error(DiagCode::DuplicateInput, scalarDesc(v.id) + " is listed twice as a fusion input", ptr());
        continue;
      }
    }
  }
}

// The tensor inputs of exprs [b, e): each is produced or a fusion input;
// a tensor that is neither is reported at its first use. Returns whether
// every producer of those inputs has a lower id than its consumer.
bool Checks::checkUses(size_t b, size_t e, Reporter& r) {
  const size_t nt = f_.tensors.size();
  const Expr* exprs = f_.exprs.data();
  const ExprId* producer = st_.producer.data();
  const uint32_t* input_pos = st_.input_pos.data();
  bool ordered = true;
  for (size_t i = b; i < e; ++i) {
    const ExprId x = static_cast<ExprId>(i);
    const ValueRef* ins = exprs[x].inputs.data();
    const size_t nin = exprs[x].inputs.size();
    for (size_t k = 0; k < nin; ++k) {
      const ValueRef& v = ins[k];
      if (!v.isTensor() || v.id >= nt) continue;
      const ExprId p = producer[v.id];
      if (p != kNone && p >= x) ordered = false;
      if (p != kNone || input_pos[v.id] != kNone) continue;
      if (markOnce(st_.undefined_reported[v.id], r.speculative())) reportUndefined(x, k, r);
    }
  }
  return ordered;
}

// Input k of expr x is a tensor no expr produces and no fusion input is.
void Checks::reportUndefined(ExprId x, size_t k, Reporter& r) {
  const TensorId t = f_.exprs[x].inputs[k].id;
  r.error(DiagCode::UndefinedTensor,
          exprDesc(x) + " uses " + tname(t) + ", which no expr produces and which is not a fusion input",
          ep(x).at(F::Inputs, k))
      .note(tname(t) + " is declared here", r.at(tp(t)));
}

// Fusion outputs [b, e): each is produced or a fusion input.
void Checks::checkFusionOutputs(size_t b, size_t e, Reporter& r) {
  for (size_t k = b; k < e; ++k) {
    const TensorId t = f_.outputs[k];
    auto ptr = [k] { return Place::output(k); };  // for a diagnostic only
    if (!tensorValid(t)) {
      r.error(DiagCode::DanglingTensor, "fusion output " + num(k) + " names a tensor that does not exist",
              ptr());
      continue;
    }
    if (st_.producer[t] != kNone || st_.input_pos[t] != kNone) continue;
    if (!markOnce(st_.undefined_reported[t], r.speculative())) continue;
    r.error(DiagCode::OutputNotProduced,
            "fusion output " + tname(t) + " is produced by no expr and is not a fusion input", ptr())
        .note(tname(t) + " is declared here", r.at(tp(t)));
  }
}

// ------------------------------------------------------------ cycles
// Kahn's algorithm over exprs; what remains lies on or after a cycle.
// Each remaining expr is then walked backwards along remaining producers
// once: a walk that meets itself has found a new cycle (reported once),
// a walk that meets an earlier walk is downstream of a known one.
void Checks::checkCycles(Reporter& r) {
  const std::vector<char> done = buildOrder();
  reportCycles(done, r);
}

// st_.order (Kahn, FIFO from id order, then what is left in id order);
// returns which exprs Kahn's walk reached.
std::vector<char> Checks::buildOrder() {
  const size_t ne = f_.exprs.size();
  std::vector<uint32_t> indeg(ne, 0);
  auto prodOf = [&](const ValueRef& v) -> ExprId {
    if (!v.isTensor() || !tensorValid(v.id)) return kNone;
    return st_.producer[v.id];
  };
  // Successor lists in one flat array (CSR), in the order a vector per
  // expr would hold them: a million small heap vectors cost more than the
  // sort itself.
  std::vector<uint32_t> succ_begin(ne + 1, 0);
  for (ExprId e = 0; e < ne; ++e)
    for (const ValueRef& v : f_.exprs[e].inputs) {
      ExprId p = prodOf(v);
      if (p == kNone) continue;
      ++indeg[e];
      ++succ_begin[p + 1];
    }
  for (size_t i = 0; i < ne; ++i) succ_begin[i + 1] += succ_begin[i];
  std::vector<ExprId> succ(succ_begin[ne]);
  {
    std::vector<uint32_t> fill(succ_begin.begin(), succ_begin.end() - 1);
    for (ExprId e = 0; e < ne; ++e)
      for (const ValueRef& v : f_.exprs[e].inputs) {
        ExprId p = prodOf(v);
        if (p != kNone) succ[fill[p]++] = e;
      }
  }
  std::vector<char> done(ne, 0);
  st_.order.clear();
  st_.order.reserve(ne);
  for (ExprId e = 0; e < ne; ++e)
    if (indeg[e] == 0) st_.order.push_back(e);
  for (size_t head = 0; head < st_.order.size(); ++head) {
    ExprId e = st_.order[head];
    done[e] = 1;
    for (uint32_t k = succ_begin[e]; k < succ_begin[e + 1]; ++k)
      if (--indeg[succ[k]] == 0) st_.order.push_back(succ[k]);
  }
  for (ExprId e = 0; e < ne; ++e)
    if (!done[e]) st_.order.push_back(e);
  st_.order_ready = true;
  return done;
}

void Checks::reportCycles(const std::vector<char>& done, Reporter& r) {
  const size_t ne = f_.exprs.size();
  auto prodOf = [&](const ValueRef& v) -> ExprId {
    if (!v.isTensor() || !tensorValid(v.id)) return kNone;
    return st_.producer[v.id];
  };
  std::vector<uint32_t> walk(ne, kNone);
  uint32_t walk_id = 0;
  for (ExprId start = 0; start < ne; ++start) {
    if (done[start] || walk[start] != kNone) continue;
    ++walk_id;
    std::vector<std::pair<ExprId, size_t>> path;  // expr, input slot taken backwards
    ExprId cur = start;
    while (cur != kNone && walk[cur] == kNone) {
      walk[cur] = walk_id;
      ExprId next = kNone;
      size_t slot = 0;
      const Expr& x = f_.exprs[cur];
      for (size_t k = 0; k < x.inputs.size(); ++k) {
        ExprId p = prodOf(x.inputs[k]);
        if (p != kNone && !done[p]) {
          next = p;
          slot = k;
          break;
        }
      }
      path.push_back({cur, slot});
      cur = next;
    }
    if (cur == kNone || walk[cur] != walk_id) continue;  // reached an older walk
    // The cycle is the suffix of `path` starting at `cur`.
    size_t from = 0;
    while (path[from].first != cur) ++from;
    auto [e0, s0] = path[from];
    const ValueRef& v0 = f_.exprs[e0].inputs[s0];
    Diagnostic& d = r.error(DiagCode::Cycle,
                            "the exprs form a cycle: " + exprDesc(e0) + " uses " + tname(v0.id) +
                                ", which depends on " + exprDesc(e0) + "'s own output",
                            ep(e0).at(F::Inputs, s0));
    constexpr size_t kMaxHops = 16;
    for (size_t i = from; i < path.size(); ++i) {
      if (i - from == kMaxHops) {
        d.note("... and " + num(path.size() - i) + " more exprs on the cycle");
        break;
      }
      auto [e, s] = path[i];
      TensorId t = f_.exprs[e].inputs[s].id;
      d.note(exprDesc(e) + " uses " + tname(t) + ", produced by " + exprDesc(st_.producer[t]),
             r.at(ep(st_.producer[t]).at(F::Outputs, st_.producer_slot[t])));
    }
  }
}

// ------------------------------------------------------------ segmentation
void Checks::checkSegmentation(Reporter& r) {
  if (!f_.segmentation) return;
  const Segmentation& sg = *f_.segmentation;
  const size_t ne = f_.exprs.size();
  std::vector<uint32_t> seg_of(ne, kNone);
  std::vector<uint32_t> pos_of(ne, kNone);
  bool complete = true;
  for (size_t s = 0; s < sg.segments.size(); ++s) {
    const Place sp = Place::segment(s);
    if (sg.segments[s].exprs.empty())
      r.error(DiagCode::BadSegmentation, "segment " + num(s) + " has no exprs", sp.key(F::Exprs));
    for (size_t k = 0; k < sg.segments[s].exprs.size(); ++k) {
      ExprId e = sg.segments[s].exprs[k];
      const Place ptr = sp.at(F::Exprs, k);
      if (e >= ne) {
        r.error(DiagCode::DanglingExpr,
                "segment " + num(s) + " names expr " + num(e) + " but the fusion has " + num(ne) + " exprs",
                ptr);
        complete = false;
        continue;
      }
      if (seg_of[e] != kNone) {
        r.error(DiagCode::BadSegmentation,
                exprDesc(e) + " is in segment " + num(seg_of[e]) + " and again in segment " + num(s), ptr)
            .note("first listed here", r.at(Place::segment(seg_of[e]).at(F::Exprs, pos_of[e])));
        complete = false;
        continue;
      }
      seg_of[e] = static_cast<uint32_t>(s);
      pos_of[e] = static_cast<uint32_t>(k);
    }
  }
  std::string missing;
  size_t nmissing = 0;
  for (ExprId e = 0; e < ne; ++e)
    if (seg_of[e] == kNone) {
      if (nmissing++ < 8) missing += (missing.empty() ? "" : ", ") + num(e);
    }
  if (nmissing) {
    r.error(DiagCode::BadSegmentation,
            "the segmentation leaves " + num(nmissing) + " expr(s) in no segment: " + missing +
                (nmissing > 8 ? ", ..." : ""),
            Place::member(F::Segmentation).key(F::Segments));
    complete = false;
  }
  // Run order: a segment may only use tensors produced by itself or earlier segments.
  if (complete) {
    for (ExprId e = 0; e < ne; ++e) {
      const Expr& x = f_.exprs[e];
      for (size_t k = 0; k < x.inputs.size(); ++k) {
        const ValueRef& v = x.inputs[k];
        if (!v.isTensor() || !tensorValid(v.id) || st_.producer[v.id] == kNone) continue;
        ExprId p = st_.producer[v.id];
        if (seg_of[p] > seg_of[e]) {
          r.error(DiagCode::BadSegmentation,
                  "segment " + num(seg_of[e]) + " runs " + exprDesc(e) + ", which uses " + tname(v.id) +
                      ", but " + tname(v.id) + " is produced later, in segment " + num(seg_of[p]),
                  Place::segment(seg_of[e]).at(F::Exprs, pos_of[e]))
              .note(tname(v.id) + "'s producer is listed here",
                    r.at(Place::segment(seg_of[p]).at(F::Exprs, pos_of[p])));
        }
      }
    }
  }
  for (size_t k = 0; k < sg.forward.size(); ++k) {
    const Place ptr = Place::member(F::Segmentation).at(F::Forward, k);
    if (sg.forward[k].segment >= sg.segments.size())
      r.error(DiagCode::BadSegmentation,
              "forward names segment " + num(sg.forward[k].segment) + " but there are " +
                  num(sg.segments.size()) + " segments",
              ptr.key(F::Segment));
    if (sg.forward[k].symbol == kNone || sg.forward[k].symbol >= f_.scalars.size())
      r.error(DiagCode::DanglingScalar, "forward names a scalar that does not exist", ptr.key(F::Symbol));
  }
}

}  // namespace fc::verify
