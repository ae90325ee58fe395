// Host programs: `%HostIrContainer { ... }` (see reader.h).
//
// A host program runs the fusion's segments and communications. Read back as the fusion it came
// from:
//   - the program's `(inputs) -> (outputs)` (2025: on the container's line; 2024: `HOST FUSION`
//     or `HOST IRS:`) are the fusion's inputs and outputs;
//   - each `%kernel { ... }` a host unit runs, and each compute expr in the program, is read as is;
//   - a communication (`Communication 3 (type=Gather, ..., Input=T1, Output=T2)`, 2024's
//     `Communication Allgather: { ... }` with its `taking inputs: {T1} and outputs: {T2}`) defines
//     its output from its input: a Reduce, Allreduce or ReduceScatter as a sum over the axis that
//     the output reduces, anything else as a copy (nvFuser lowers such sets and sums to them);
//   - `X = select( Y, ... )` and `X = HirAliasSelect( Y, ... )` make X a name for Y (a stream loop
//     works on slices of Y), so that an op writing into X defines Y;
//   - `X = ALLOCATE(...)`, streams, waits, loops and branches are bookkeeping, skipped with a note.
#include <algorithm>

#include "io/ir/reader.h"

namespace fc::ir_text {

// The token after the tensor print at `i` (its domain, annotations and mesh), or `i` itself.
size_t Reader::skipPrint(size_t i) const {
  if (!atTensor(i)) return i;
  size_t q = i + 1;
  int depth = 0;
  for (; q < end_; ++q) {
    if (isPunct(q, "[")) ++depth;
    if (isPunct(q, "]") && --depth == 0) break;
  }
  if (q >= end_) return i;
  ++q;
  for (int guard = 0; guard < 8; ++guard) {
    bool annot = isIdent(q) && isPunct(q + 1, "(") &&
                 (str(q) == "ca_pos" || str(q) == "produce_pos" || str(q) == "maybe_produce_pos" ||
                  str(q) == "compute_with");
    bool mesh = isPunct(q, "(") && isIdent(q + 1, "DeviceMesh");
    if (!annot && !mesh) break;
    if (annot) ++q;
    int d = 0;
    for (; q < end_; ++q) {
      if (isPunct(q, "(")) ++d;
      if (isPunct(q, ")") && --d == 0) break;
    }
    ++q;
  }
  return q;
}

// `( T0_g[...], T1_g[...] ) -> ( T3_g[...] ) :` at '(' (or nothing: it follows later).
bool Reader::hostSignature() {
  if (!isPunct(p_, "(") || !atTensor(p_ + 1)) return true;
  std::vector<TensorId> ins, outs;
  for (auto* list : {&ins, &outs}) {
    if (!expect("(")) return false;
    while (!eat(")")) {
      auto t = tensor();
      if (!t) return false;
      list->push_back(*t);
      if (!eat(",") && !isPunct(p_, ")")) return expect(")");
    }
    if (list == &ins && !expect("->")) return false;
  }
  eat(":");
  listed_inputs_.clear();
  listed_outputs_.clear();
  for (TensorId t : ins) listed_inputs_.push_back(ValueRef::tensor(t));
  listed_outputs_ = outs;
  host_signature_ = true;
  return true;
}

void Reader::defineFromCommunication(std::string_view type, TensorId in, TensorId out, size_t at) {
  if (in == out) return;
  Pending pd;
  pd.tok = at;
  pd.out = {out};
  pd.in = {ValueRef::tensor(in)};
  bool reduces = type == "Reduce" || type == "Allreduce" || type == "ReduceScatter";
  pd.op = OpKind::Set;
  if (reduces)
    for (int k = 0; k < numOpKinds(); ++k)
      if (opInfo(static_cast<OpKind>(k)).form == OpForm::Reduction &&
          opInfo(static_cast<OpKind>(k)).ir_name == "add")
        pd.op = static_cast<OpKind>(k);
  add(pd);
}

// `Communication 3 (type=Gather, team=(0 1), root=0, Input=T1..., Output=T2..., backend=NCCL)`.
bool Reader::communication() {
  size_t at = p_;
  p_ += 2;
  if (!expect("(")) return false;
  std::string type;
  TensorId in = kNone, out = kNone;
  while (!atEnd() && !eat(")")) {
    if (!isIdent(p_) || !isPunct(p_ + 1, "=")) {
      ++p_;
      continue;
    }
    std::string key(str(p_));
    p_ += 2;
    if (atTensor(p_)) {
      auto t = tensor();
      if (!t) return false;
      if (key == "input" || key == "Input") in = *t;
      if (key == "output" || key == "Output") out = *t;
    } else if (isPunct(p_, "(")) {
      int d = 0;
      for (; p_ < end_; ++p_) {
        if (isPunct(p_, "(")) ++d;
        if (isPunct(p_, ")") && --d == 0) break;
      }
      ++p_;
    } else {
      if (key == "type") type = std::string(str(p_));
      ++p_;
    }
    eat(",");
  }
  if (in != kNone && out != kNone) defineFromCommunication(type, in, out, at);
  return errors_ == 0;
}

// `X = ALLOCATE(...)` of a host program or a lowered kernel's listing (a tensor or a scalar):
// bookkeeping, skipped as text that is not part of a print.
bool Reader::skipAllocation() {
  size_t q = atTensor(p_) ? skipPrint(p_) : (isIdent(p_) ? p_ + 1 : p_);
  if (q == p_ || !isPunct(q, "=") || !isIdent(q + 1, "ALLOCATE") || !isPunct(q + 2, "(")) return false;
  if (host_depth_ < 0 && !listing_noted_) {
    listing_noted_ = true;
    note(
        "the print is a lowered kernel's listing (`ALLOCATE`, `FOR`): its tensor exprs are read, its "
        "allocations, loops and line numbers skipped",
        p_);
  }
  if (skip_from_ == SIZE_MAX) skip_from_ = p_;
  p_ = q + 2;
  int d = 0;
  for (; p_ < end_; ++p_) {
    if (isPunct(p_, "(")) ++d;
    if (isPunct(p_, ")") && --d == 0) break;
  }
  skip_to_ = std::min(p_, end_ - 1);
  ++p_;
  return true;
}

// 2024: `taking inputs: { T1... } and outputs: { T2... }` after a `Communication Allgather: {`.
bool Reader::legacyCommunication() {
  size_t at = p_;
  std::vector<TensorId> lists[2];
  for (int k = 0; k < 2; ++k) {
    while (!atEnd() && !isPunct(p_, "{")) ++p_;
    if (!expect("{")) return false;
    while (!atEnd() && !eat("}")) {
      if (atTensor(p_)) {
        auto t = tensor();
        if (!t) return false;
        lists[k].push_back(*t);
      } else {
        ++p_;
      }
    }
  }
  if (!pending_comm_.empty() && lists[0].size() == 1 && lists[1].size() == 1)
    defineFromCommunication(pending_comm_, lists[0][0], lists[1][0], at);
  pending_comm_.clear();
  return errors_ == 0;
}

bool Reader::hostStep() {
  if (isIdent(p_, "HOST") && (isIdent(p_ + 1, "FUSION") || isIdent(p_ + 1, "IRS"))) {
    flushSkipped();
    p_ += 2;
    eat(":");
    return hostSignature();
  }
  if (isIdent(p_, "Communication") && tok(p_ + 1).kind == Tok::Number && isPunct(p_ + 2, "(")) {
    flushSkipped();
    return communication();
  }
  if (isIdent(p_, "Communication") && isIdent(p_ + 1) && isPunct(p_ + 2, ":") && isPunct(p_ + 3, "{")) {
    pending_comm_ = std::string(str(p_ + 1));
    p_ += 4;
    while (!atEnd() && !eat("}")) ++p_;
    return true;
  }
  if (isIdent(p_, "taking") && isIdent(p_ + 1, "inputs")) return legacyCommunication();
  if (skipAllocation()) return true;
  if (!atTensor(p_)) return false;
  size_t q = skipPrint(p_);
  if (q == p_ || !isPunct(q, "=") || !isIdent(q + 1) || !isPunct(q + 2, "(")) return false;
  std::string_view fn = str(q + 1);
  if (fn != "select" && fn != "HirAliasSelect") return false;
  flushSkipped();
  std::string name;
  {
    std::string_view w = str(p_);
    size_t u = w.find('_');
    name = std::string(w.substr(0, u));
  }
  size_t at = p_;
  p_ = q + 2;
  std::vector<Arg> a;
  if (!args(a, 0)) return false;
  if (a.empty() || a[0].kind != Arg::Kind::Tensor)
    return error(DiagCode::ImportSyntax, std::string(fn) + " needs the tensor it selects from", at);
  if (alias_names_.empty())
    note("the host program works on slices (`" + std::string(fn) +
             "`): each slice is read as the tensor it is taken from",
         at);
  alias_names_[name] = a[0].tensor;
  return true;
}

}  // namespace fc::ir_text
