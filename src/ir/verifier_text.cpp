#include "ir/verifier_text.h"

#include <string_view>

#include "ir/op_kind.h"

namespace fc::verify {

std::string num(size_t v) { return std::to_string(v); }

std::string tensorDesc(const Fusion& f, TensorId t) {
  std::string_view n = f.tensorName(t);
  return n.empty() ? "tensor #" + num(t) : std::string(n);
}

std::string exprDesc(const Fusion& f, ExprId e) {
  const Expr& x = f.exprs[e];
  if (isOpaque(x.op) && !x.attrs.name.empty()) return "expr " + num(e) + " (opaque `" + x.attrs.name + "`)";
  return "expr " + num(e) + " (" + std::string(opName(x.op)) + ")";
}

std::string axisDesc(const Fusion& f, AxisId a) {
  const Axis& ax = f.axes[a];
  return std::string(1, iterTypeLetter(ax.iter)) + std::string(parallelTypePrinted(ax.parallel)) +
         num(ax.number);
}

}  // namespace fc::verify
