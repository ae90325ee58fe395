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
          add(kUnsureLeaf);
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

bool uncomputedFromScalarInputs(const Fusion& f, ScalarId s) {
  std::optional<std::string> leaves = uncomputedScalarLeaves(f, s);
  if (!leaves) return false;
  for (std::string_view w : splitWords(*leaves)) {
    std::optional<ScalarId> x = f.findScalar(w);
    if (!x || f.scalars[*x].kind != ScalarKind::Input) return false;
  }
  return true;
}

}  // namespace fc
