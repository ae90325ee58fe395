// nvFuser-style printing (Fusion::printMath and Expr::toString): axes `ideviceIdx.x10{i0}`,
// tensors `T4_g[ ... ] (DeviceMesh{0 1})` (2024) or `T4_g_float[...]`
// (head), exprs over two or three lines, and Fusion::printMath layout.
#pragma once

#include <string>
#include <vector>

#include "ir/fusion.h"

namespace fc {

enum class PrintStyle { Y2024, Head };

std::string scalarToString(const Fusion& f, ScalarId s);                      // i0, 128, ( ceilDiv(i2, 4) )
std::string axisToString(const Fusion& f, AxisId a);                          // rS14{i0}
std::string domainToString(const Fusion& f, const std::vector<AxisId>& dom);  // [rS14{i0}, iS15{i3}]
std::string symbolToString(const Fusion& f, ScalarId s);  // its name (i0), else scalarToString
std::string tensorToString(const Fusion& f, TensorId t, PrintStyle style);
std::string exprToString(const Fusion& f, ExprId e, PrintStyle style);
// Inputs:/Outputs: lists and %kernel_math { ... } as Fusion::printMath.
std::string printFusionMath(const Fusion& f, PrintStyle style);

}  // namespace fc
