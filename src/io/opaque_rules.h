// The output rules of real nvFuser ops that fusecheck neither analyses nor executes, shared by the
// importers of Python repros (fd.ops calls) and of C++ tests (csrc/ops/*.h calls). Each op
// imports as an opaque op (OpKind::Opaque named by its fd.ops name) whose outputs have the rank,
// extents, IterTypes and dtypes nvFuser's definition gives them, so that import, validate,
// segment, dot and export see the fusion as nvFuser built it. `check` answers "not decided" on a
// fusion holding one (FC1001) and `run` refuses it (FC0909).
//
// A rule reads its arguments by the parameter names of nvFuser's Python bindings through
// OpaqueArgs; each frontend maps its own call form (keywords, C++ positions) onto those names
// and reports a rule's failure at the argument it names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/import_builder.h"

namespace fc {

// The bound arguments of one opaque-op call, read by parameter name.
class OpaqueArgs {
 public:
  explicit OpaqueArgs(ImportBuilder& b) : b_(b) {}
  OpaqueArgs(const OpaqueArgs&) = delete;
  OpaqueArgs& operator=(const OpaqueArgs&) = delete;
  virtual ~OpaqueArgs() = default;

  ImportBuilder& b() { return b_; }
  Fusion& f() { return b_.fusion(); }

  virtual bool has(const char* p) const = 0;
  // Whether argument `p` is given and is a tensor (not a scalar or a number).
  virtual bool isTensor(const char* p) const = 0;
  // Each of these fails (through fail(), never returning) when `p` is missing or of the wrong kind.
  virtual TensorId tensor(const char* p) = 0;
  virtual int64_t integer(const char* p, int64_t dflt) = 0;
  virtual std::vector<int64_t> integers(const char* p) = 0;
  // A truth value the binding takes as a plain bool (not a fusion scalar).
  virtual bool flag(const char* p, bool dflt) = 0;
  // A scalar operand: a fusion scalar, or a literal made a constant of `int_dtype` / Double / Bool.
  virtual ScalarId scalar(const char* p, DType int_dtype) = 0;
  virtual std::vector<ScalarId> shape(const char* p) = 0;
  virtual std::optional<DType> dtype(const char* p) = 0;
  // Whether a seeded random op's rng_seed / rng_offset reach nvFuser's function: the C++ API
  // passes them; the legacy Python record of rand_like calls the unseeded function.
  virtual bool seedReachesOp() const = 0;
  // Stops the import with `msg`, located at argument `p` (at the call when null), through stop().
  [[noreturn]] void fail(const std::string& msg, const char* p);

  std::optional<TensorId> optTensor(const char* p) {
    if (!has(p)) return std::nullopt;
    return tensor(p);
  }
  // `dim` of tensor `t` normalized against its rank (negative counts from the end).
  size_t dim(const char* p, TensorId t, int64_t dflt = 0);
  // Output axes: copies of `t`'s (Reduction axes dropped, as every op's output does).
  std::vector<AxisId> copyAxes(TensorId t);
  DType dtypeOf(TensorId t) const { return b_.fusion().tensors[t].dtype; }

 protected:
  // Reports `msg` at argument `p` and leaves the call (by the frontend's exception); never returns.
  virtual void stop(const std::string& msg, const char* p) = 0;

 private:
  ImportBuilder& b_;
};

// One recorded opaque op: its new tensors, and what the frontend's call returns, each a tensor
// (an output, or an operand the op hands back) or None.
struct OpaqueCall {
  std::vector<TensorId> outputs;
  std::vector<std::optional<TensorId>> results;
};

// Records fd.ops op `name` with the arguments of `a`; a call nvFuser would refuse stops through
// a.fail(). Nothing when `name` has no output rule here.
std::optional<OpaqueCall> recordOpaqueOp(std::string_view name, OpaqueArgs& a);

}  // namespace fc
