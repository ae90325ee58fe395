// Helpers shared by the exporters (see export_common.h).
#include "io/export_common.h"

#include <cmath>
#include <cstdio>

#include "ir/topo_order.h"

namespace fc {

std::string doubleLiteral(double v, const char* nan, const char* inf, const char* neg_inf) {
  if (std::isnan(v)) return nan;
  if (std::isinf(v)) return v < 0 ? neg_inf : inf;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::vector<ExprId> definitionOrder(const Fusion& f) {
  ProducerWalk walk(f);
  for (ExprId e = 0; e < f.exprs.size(); ++e) walk.visit(e);
  return walk.take();
}

}  // namespace fc
