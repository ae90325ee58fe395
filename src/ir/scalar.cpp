#include "ir/scalar.h"

#include <algorithm>

#include "support/checked.h"

namespace fc {

std::string_view scalarOpName(ScalarOp op) {
  switch (op) {
    case ScalarOp::None: return "none";
    case ScalarOp::Add: return "add";
    case ScalarOp::Sub: return "sub";
    case ScalarOp::Mul: return "mul";
    case ScalarOp::Div: return "div";
    case ScalarOp::Mod: return "mod";
    case ScalarOp::CeilDiv: return "ceilDiv";
    case ScalarOp::Max: return "max";
    case ScalarOp::Min: return "min";
    case ScalarOp::Neg: return "neg";
    case ScalarOp::Size: return "size";
  }
  return "?";
}

bool isIntArithmetic(ScalarOp op) { return op != ScalarOp::None && op != ScalarOp::Size; }

std::optional<int64_t> foldIntScalarOp(ScalarOp op, int64_t a, int64_t b) {
  switch (op) {
    case ScalarOp::Add: return checkedAdd(a, b);
    case ScalarOp::Sub: return checkedSub(a, b);
    case ScalarOp::Mul: return checkedMul(a, b);
    case ScalarOp::Div: return checkedDiv(a, b);
    case ScalarOp::Mod: return checkedMod(a, b);
    case ScalarOp::CeilDiv: return checkedCeilDiv(a, b);
    case ScalarOp::Max: return std::max(a, b);
    case ScalarOp::Min: return std::min(a, b);
    case ScalarOp::Neg: return checkedSub(0, a);
    case ScalarOp::None:
    case ScalarOp::Size: break;
  }
  return std::nullopt;
}

}  // namespace fc
