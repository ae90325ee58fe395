#include "ir/scalar.h"

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

}  // namespace fc
