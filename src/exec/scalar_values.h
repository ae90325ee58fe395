// Concrete scalar values for execution: bound symbols and scalar inputs,
// constants, and derived expressions (+ - * / % ceilDiv max min neg size),
// evaluated iteratively (explicit stack, no recursion) and memoized: O(size
// of the expression DAG) in total. Integer arithmetic is overflow-checked;
// float arithmetic is fp64. Unlike analysis/scalar_eval.h (symbolic,
// integer, with provenance) this holds run values, floats included.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/fusion.h"

namespace fc::exec {

struct ScalarValue {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
  double asDouble() const { return is_float ? f : static_cast<double>(i); }
  static ScalarValue ofInt(int64_t v) { return {false, v, 0}; }
  static ScalarValue ofFloat(double v) { return {true, 0, v}; }
};

class ScalarValues {
 public:
  explicit ScalarValues(const Fusion& f);

  // Binds a Symbol or Input scalar. Returns false if it is already bound to
  // a different value (nothing changes then).
  bool bind(ScalarId s, ScalarValue v);
  bool isBound(ScalarId s) const { return state_[s] == kBound; }

  // The value, or nullopt when it depends on an unbound symbol, overflows or
  // divides by zero; `why` (optional) then names the cause.
  std::optional<ScalarValue> eval(ScalarId s, std::string* why = nullptr);
  // eval() as an integer (floats must be integral).
  std::optional<int64_t> evalInt(ScalarId s, std::string* why = nullptr);

  // Materialized size of a tensor's logical axis: its expanded extent when
  // it has one, else its extent.
  std::optional<int64_t> axisSize(AxisId a, std::string* why = nullptr);

 private:
  enum State : uint8_t { kUnknown, kBound, kDone, kFailed };
  bool compute(ScalarId s, std::string& why);
  const Fusion& f_;
  std::vector<State> state_;
  std::vector<ScalarValue> value_;
  std::vector<std::string> why_;
};

// A scalar's display name: its name, or "<expr>" for anonymous ones.
std::string scalarLabel(const Fusion& f, ScalarId s);

}  // namespace fc::exec
