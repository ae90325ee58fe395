// The leaves of uncomputed scalars (see uncomputed_scalar.h).
#include "ir/uncomputed_scalar.h"

#include <algorithm>

namespace fc {
namespace {

constexpr std::string_view kUnsureLeaf = "?";

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> r;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) r.push_back(s.substr(i, j - i));
    i = j;
  }
  return r;
}

// Whether symbol `x` is the extent (or expanded extent) of a non-Reduction logical axis of a fusion
// input tensor.
bool isInputExtent(const Fusion& f, ScalarId x) {
  for (const ValueRef& in : f.inputs) {
    if (!in.isTensor()) continue;
    for (AxisId a : f.tensors[in.id].logical) {
      const Axis& ax = f.axes[a];
      if (ax.iter != IterType::Reduction && (ax.extent == x || ax.expanded == x)) return true;
    }
  }
  return false;
}

}  // namespace

void markUncomputedLeaves(Fusion& f, ScalarId s, std::span<const ScalarId> operands) {
  std::vector<std::string> leaves;
  auto add = [&](std::string_view name) {
    if (std::find(leaves.begin(), leaves.end(), name) == leaves.end()) leaves.emplace_back(name);
  };
  std::vector<ScalarId> stack(operands.begin(), operands.end());
  std::vector<uint8_t> seen(f.scalars.size(), 0);
  while (!stack.empty()) {
    const ScalarId x = stack.back();
    stack.pop_back();
    if (x >= f.scalars.size()) {
      add(kUnsureLeaf);
      continue;
    }
    if (seen[x]) continue;
    seen[x] = 1;
    const Scalar& sc = f.scalars[x];
    switch (sc.kind) {
      case ScalarKind::Constant: break;
      case ScalarKind::Input: add(f.scalarName(x)); break;
      case ScalarKind::Derived:
        if (sc.op == ScalarOp::Size) {
          // The extent nvFuser's size(T, d) returns: the Val of T's axis (expanded, if it is).
          const AxisId a = f.sizeAxis(sc);
          if (a == kNone)
            add(kUnsureLeaf);
          else
            stack.push_back(f.axes[a].expanded != kNone ? f.axes[a].expanded : f.axes[a].extent);
        } else {
          stack.push_back(sc.lhs);
          if (sc.rhs != kNone) stack.push_back(sc.rhs);
        }
        break;
      case ScalarKind::Symbol:
        if (!uncomputedScalarCall(f, x)) {
          add(f.scalarName(x));
        } else if (std::optional<std::string> inner = uncomputedScalarLeaves(f, x)) {
          for (std::string_view w : splitWords(*inner)) add(w);
        } else {
          add(kUnsureLeaf);
        }
        break;
    }
  }
  std::string text;
  for (const std::string& l : leaves) text += (text.empty() ? "" : " ") + l;
  f.provenance.emplace_back(std::string(kUncomputedLeaves) + std::string(f.scalarName(s)), std::move(text));
}

bool uncomputedFromInputs(const Fusion& f, ScalarId s, bool input_extents) {
  std::optional<std::string> leaves = uncomputedScalarLeaves(f, s);
  if (!leaves) return false;
  for (std::string_view w : splitWords(*leaves)) {
    std::optional<ScalarId> x = f.findScalar(w);
    if (!x) return false;
    if (f.scalars[*x].kind == ScalarKind::Input) continue;
    if (input_extents && f.scalars[*x].kind == ScalarKind::Symbol && isInputExtent(f, *x)) continue;
    return false;
  }
  return true;
}

}  // namespace fc
