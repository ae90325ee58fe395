// What fusecheck's executors can run (see executable.h).
#include "driver/executable.h"

#include <memory>
#include <optional>
#include <vector>

#include "exec/dtype_convert.h"
#include "ir/live_exprs.h"
#include "ir/op_kind.h"
#include "ir/rng_like.h"
#include "ir/uncomputed_scalar.h"

namespace fc {

// Exprs no output depends on are neither run nor computed by the reference, nor are the tensors
// only they touch.
bool allOpsExecuted(const Fusion& f_in, const std::string& file, DiagnosticSink& sink) {
  std::shared_ptr<Fusion> live;
  if (hasDeadExprs(f_in)) live = withoutExprs(f_in, liveExprs(f_in).dead);
  const Fusion& f = live ? *live : f_in;
  const std::vector<uint8_t> used = live ? usedTensors(f) : std::vector<uint8_t>(f.tensors.size(), 1);
  bool ok = true;
  for (TensorId t = 0; t < f.tensors.size(); ++t) {
    DType d = f.tensors[t].dtype;
    if (exec::isComputedDType(d) || !used[t]) continue;
    ok = false;
    sink.error(DiagCode::OpNotExecuted,
               std::string(f.tensorName(t)) + " is " + std::string(dtypeName(d)) +
                   ": fusecheck imports and analyses this dtype but does not compute its values, so `run` "
                   "cannot execute this fusion (check, segment and explain can)",
               Location::at(file, Place::tensor(t)));
  }
  for (size_t i = 0; i < f.exprs.size(); ++i) {
    const ExprId user = userExprId(f, i);
    OpKind k = f.exprs[i].op;
    if (isExecuted(k)) continue;
    ok = false;
    if (isOpaque(k)) {
      sink.error(DiagCode::OpNotExecuted,
                 "expr " + std::to_string(user) + " is the opaque op `" + f.exprs[i].attrs.name +
                     "`: fusecheck has no rule for it and does not compute its values, so `run` cannot "
                     "execute this fusion (import, validate, print and dot can take it)",
                 Location::at(file, Place::expr(user)));
      continue;
    }
    // rand_like / randn_like build a uniform / normal shaped like a tensor (ir/rng_like.h).
    const std::string name(likeCallName(f.exprs[i]).value_or(opInfo(k).python_name));
    sink.error(DiagCode::OpNotExecuted,
               "expr " + std::to_string(user) + " is nvFuser's `" + name +
                   "`: fusecheck imports and analyses it but does not compute its values, so `run` "
                   "cannot execute this fusion (check, segment and explain can)",
               Location::at(file, Place::expr(user)));
  }
  // A value an importer could not compute (ir/uncomputed_scalar.h), read by an expr.
  std::vector<bool> said(f.scalars.size(), false);
  for (size_t i = 0; i < f.exprs.size(); ++i) {
    const ExprId user = userExprId(f, i);
    for (const ValueRef& v : f.exprs[i].inputs) {
      if (!v.isScalar() || said[v.id]) continue;
      std::optional<std::string> call = uncomputedScalarCall(f, v.id);
      if (!call) continue;
      said[v.id] = true;
      ok = false;
      sink.error(DiagCode::OpNotExecuted,
                 "expr " + std::to_string(user) + " reads " + std::string(f.scalarName(v.id)) +
                     ", which stands for `" + *call +
                     "` on scalars: fusecheck does not compute that op, so `run` cannot execute this fusion",
                 Location::at(file, Place::expr(user)));
    }
  }
  return ok;
}

}  // namespace fc
