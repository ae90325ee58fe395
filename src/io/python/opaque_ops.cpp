// fd.ops calls of real nvFuser ops that fusecheck neither analyses nor executes (PyForm::OutputRule
// in frontend_ops.cpp): the call's arguments bound by the binding's parameter names and handed to
// the op's output rule (io/opaque_rules.h), its results returned as Python values.
#include <algorithm>
#include <string>
#include <vector>

#include "io/opaque_rules.h"
#include "io/python/bind.h"
#include "io/python/frontend_ops.h"
#include "io/python/interpreter.h"
#include "io/python/recorder.h"

namespace fc::py {
namespace {

// The bound arguments of one fd.ops call, read by the binding's parameter names.
class OpArgs final : public OpaqueArgs {
 public:
  OpArgs(Interpreter& in, const std::shared_ptr<FusionRecorder>& rec, const FrontendOp& op, const Args& args)
      : OpaqueArgs(rec->b),
        in_(in),
        rec_(rec),
        fname_("fd.ops." + std::string(op.name)),
        params_(paramNames(op)),
        off_(args.off),
        a_(bind(in, args, fname_, params_, keywordRenames(op), rec.get())) {}

  void stop(const std::string& msg, const char* p) override {
    in_.fail(fname_ + ": " + msg, p ? offOf(p) : off_);
  }
  bool has(const char* p) const override { return a_.has(idx(p)); }
  // python/python_frontend/python_bindings.cpp:1673-1708 @ 99b644647: the seeded record calls
  // the one-argument function; nvfuser_direct binds only that one (python/python_direct/ops.cpp:
  // 766-795 @ 81c4b22fd).
  bool seedReachesOp() const override { return false; }
  bool isTensor(const char* p) const override { return has(p) && a_.v[idx(p)]->k == VK::Tensor; }
  TensorId tensor(const char* p) override {
    const Ref& v = need(p);
    if (v->k != VK::Tensor) fail("`" + std::string(p) + "` must be a tensor, not a " + typeName(*v), p);
    if (v->rec != rec_) fail("the tensor belongs to another FusionDefinition", p);
    return v->id;
  }
  int64_t integer(const char* p, int64_t dflt) override {
    return has(p) ? in_.asInt(need(p), offOf(p), p) : dflt;
  }
  std::vector<int64_t> integers(const char* p) override {
    std::vector<int64_t> r;
    for (const Ref& x : in_.asList(need(p), offOf(p), fname_ + " " + p))
      r.push_back(in_.asInt(x, offOf(p), p));
    return r;
  }
  bool flag(const char* p, bool dflt) override {
    if (!has(p)) return dflt;
    const Ref& v = need(p);
    if (v->k == VK::Scalar) fail("`" + std::string(p) + "` must be a Python bool, not a fusion scalar", p);
    return in_.truthy(v, offOf(p));
  }
  ScalarId scalar(const char* p, DType int_dtype) override { return scalar(need(p), offOf(p), int_dtype); }
  std::vector<ScalarId> shape(const char* p) override {
    const Ref& v = need(p);
    if (v->k == VK::Vector) return {v->ids.begin(), v->ids.end()};
    std::vector<ScalarId> r;
    for (const Ref& x : in_.asList(v, offOf(p), fname_ + " " + p))
      r.push_back(scalar(x, offOf(p), DType::Index));
    return r;
  }
  std::optional<DType> dtype(const char* p) override {
    if (!has(p)) return std::nullopt;
    const Ref& v = need(p);
    if (v->k != VK::DType && v->k != VK::TorchDType) fail("`" + std::string(p) + "` must be a DataType", p);
    return v->dtype;
  }

  // The Python value of a recorded call: its expr and new tensors noted at the call, a tuple for
  // several results.
  Ref value(const OpaqueCall& c) {
    rec_->noteExprs(off_);
    for (TensorId t : c.outputs) rec_->noteTensor(t, off_);
    std::vector<Ref> items;
    for (const std::optional<TensorId>& t : c.results)
      items.push_back(t ? tensorValue(rec_, *t) : mk(VK::None));
    if (items.size() == 1) return items[0];
    return mkSeq(VK::Tuple, items);
  }

 private:
  size_t idx(const char* p) const {
    return static_cast<size_t>(std::find(params_.begin(), params_.end(), p) - params_.begin());
  }
  uint32_t offOf(const char* p) const { return a_.off[std::min(idx(p), a_.off.size() - 1)]; }
  const Ref& need(const char* p) {
    size_t i = idx(p);
    if (i >= a_.v.size() || !a_.v[i])
      in_.fail(fname_ + " is missing its `" + p + "` argument", off_, DiagCode::ImportSyntax);
    return a_.v[i];
  }
  ScalarId scalar(const Ref& v, uint32_t off, DType int_dtype) {
    switch (v->k) {
      case VK::Scalar:
        if (v->rec != rec_) in_.fail(fname_ + ": the scalar belongs to another FusionDefinition", off);
        return v->id;
      case VK::Int: return b().constInt(v->i, int_dtype);
      case VK::Bool: return b().constBool(v->i != 0);
      case VK::Float: return b().constFloat(v->f, DType::Double);
      case VK::Complex: return b().constComplex(v->f, v->im);
      default: in_.fail(fname_ + ": expected a scalar or a number, not a " + typeName(*v), off);
    }
  }

  Interpreter& in_;
  std::shared_ptr<FusionRecorder> rec_;
  std::string fname_;
  std::vector<std::string> params_;
  uint32_t off_;
  Bound a_;
};

}  // namespace

Ref Interpreter::opaqueOpCall(const std::shared_ptr<FusionRecorder>& rec, const FrontendOp& op, Args& args) {
  const std::string_view n = op.name;
  // sdpfa_fwd before #5663 (2026-01-05) took (query, key, value, dropout_p, is_causal, scale): a
  // fourth positional argument that is no tensor is that form's dropout_p.
  if (n == "sdpfa_fwd" && args.pos.size() > 3 && args.pos[3]->k != VK::Tensor && args.pos[3]->k != VK::None) {
    args.pos.insert(args.pos.begin() + 3, 2, mk(VK::None));
    args.pos_off.insert(args.pos_off.begin() + 3, 2, args.pos_off[3]);
  }
  OpArgs a(*this, rec, op, args);
  std::optional<OpaqueCall> c = recordOpaqueOp(n, a);
  if (!c) fail("`fd.ops." + std::string(n) + "` has no output rule in fusecheck yet", args.off);
  return a.value(*c);
}

}  // namespace fc::py
