// The values of the Python interpreter that runs a repro: Python's own (None, bool, int, float,
// str, list, tuple, dict, functions, classes, instances, modules), the FusionDefinition's
// (fusion tensors, scalars, vectors, device meshes, dtypes, parallel types, an axis of a tensor)
// and torch tensors as `inputs` describe them (sizes, strides, dtype). A value the interpreter
// does not model is Opaque: it may be passed around but not looked into.
#pragma once

#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/python/ast.h"
#include "ir/ids.h"
#include "ir/types.h"

namespace fc::py {

struct Value;
using Ref = std::shared_ptr<Value>;
struct Scope;
class FusionRecorder;

enum class VK : uint8_t {
  None,
  Bool,
  Int,
  Float,
  Complex,  // f: the real part, im: the imaginary part
  Str,
  List,
  Tuple,
  Dict,
  Func,       // a `def` or `lambda`: node, closure scope, bound self
  Class,      // a `class`: attrs, bases
  Instance,   // an instance of a Class: attrs; a FusionDefinition subclass has a recorder
  Builtin,    // a function of the interpreter: name (dotted), bound self
  Module,     // a module or namespace: dotted name ("torch", "nvfuser.DataType")
  FusionDef,  // a FusionDefinition: recorder
  Tensor,     // a fusion tensor: id, recorder
  Scalar,     // a fusion scalar: id, recorder
  Vector,     // a vector of fusion scalars (define_vector, ops.shape): ids
  Mesh,       // a device mesh: shape and devices
  DType,      // nvFuser DataType: dtype, or null (DataType.Null)
  Parallel,   // nvFuser ParallelType: s
  Axis,       // tensor `id`, loop axis `i`
  Torch,      // a torch tensor: sizes, strides, dtype
  TorchDType,
  Opaque,  // s: what it came from; i: 1 for a member of an enum the repro does not define
};

struct Args;

struct Value {
  VK k = VK::None;
  int64_t i = 0;
  double f = 0;
  double im = 0;  // Complex
  std::string s;
  std::vector<Ref> items;                                       // List, Tuple; Dict values
  std::vector<Ref> keys;                                        // Dict keys
  std::shared_ptr<std::unordered_map<std::string, Ref>> attrs;  // Class, Instance, Module
  std::shared_ptr<Scope> scope;                                 // Func: closure
  NodeId node = kNoNode;                                        // Func, Class
  Ref self;                                                     // bound Func / Builtin
  std::shared_ptr<Args> partial;        // Func: functools.partial's arguments, given before the call's
  std::vector<Ref> bases;               // Class
  Ref cls;                              // Instance
  std::shared_ptr<FusionRecorder> rec;  // FusionDef, Instance, Tensor, Scalar
  uint32_t id = kNone;                  // Tensor, Scalar
  std::vector<uint32_t> ids;            // Vector: scalar ids
  std::vector<int64_t> sizes, strides;  // Torch; Mesh: shape / devices
  std::optional<DType> dtype;           // DType, Torch, TorchDType
  bool is_lambda = false;
  uint32_t off = 0;      // Torch: where it was built
  bool strided = false;  // Torch: strides given explicitly (as_strided, empty_strided)
  // Torch: the generated data (make_tensor's low / high, randint's bounds, rand's [0, 1); or every
  // element `fill`: ones, zeros, full), and where the constructor named its dtype (0: it did not;
  // `converted`: a later .to(...) / .half() ... changed it).
  std::optional<std::pair<double, double>> range;
  std::optional<double> fill;
  uint32_t dtype_off = 0;
  bool converted = false;
};

inline Ref mk(VK k) {
  auto v = std::make_shared<Value>();
  v->k = k;
  return v;
}
inline Ref mkInt(int64_t i) {
  Ref v = mk(VK::Int);
  v->i = i;
  return v;
}
inline Ref mkFloat(double f) {
  Ref v = mk(VK::Float);
  v->f = f;
  return v;
}
inline Ref mkComplex(double re, double im) {
  Ref v = mk(VK::Complex);
  v->f = re;
  v->im = im;
  return v;
}
inline Ref mkBool(bool b) {
  Ref v = mk(VK::Bool);
  v->i = b ? 1 : 0;
  return v;
}
inline Ref mkStr(std::string s) {
  Ref v = mk(VK::Str);
  v->s = std::move(s);
  return v;
}
inline Ref mkNone() { return mk(VK::None); }
inline Ref mkSeq(VK k, std::vector<Ref> items) {
  Ref v = mk(k);
  v->items = std::move(items);
  return v;
}
inline Ref mkOpaque(std::string what) {
  Ref v = mk(VK::Opaque);
  v->s = std::move(what);
  return v;
}
// `f` as Python's repr writes it: the shortest text that reads back to it (1e+30, 0.1, 2.0, inf).
inline std::string pyFloatRepr(double f) {
  char buf[32];
  std::string s(buf, std::to_chars(buf, buf + sizeof buf, f).ptr);
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";
  return s;
}
// What a failed statement would have bound: later uses are not reported again.
inline Ref mkPoisoned() { return mkOpaque("\x01poisoned"); }
inline bool isPoisoned(const Value& v) { return v.k == VK::Opaque && v.s == "\x01poisoned"; }
// A member of an enum the repro does not define (Interpreter::undefinedEnumMember).
inline bool isEnumMember(const Value& v) { return v.k == VK::Opaque && v.i == 1; }

inline Ref mkModule(std::string dotted) {
  Ref v = mk(VK::Module);
  v->s = std::move(dotted);
  return v;
}
inline Ref mkBuiltin(std::string name, Ref self = nullptr) {
  Ref v = mk(VK::Builtin);
  v->s = std::move(name);
  v->self = std::move(self);
  return v;
}

// A function scope: its names, the enclosing scope (closures, then globals).
struct Scope {
  std::unordered_map<std::string, Ref> vars;
  std::shared_ptr<Scope> parent;
  Ref find(const std::string& n) const {
    for (const Scope* s = this; s; s = s->parent.get()) {
      auto it = s->vars.find(n);
      if (it != s->vars.end()) return it->second;
    }
    return nullptr;
  }
};

// The arguments of a call, with the offset of each for diagnostics.
struct Args {
  std::vector<Ref> pos;
  std::vector<uint32_t> pos_off;
  std::vector<std::pair<std::string, Ref>> kw;
  std::vector<uint32_t> kw_off;
  uint32_t off = 0;  // the call
};

std::string typeName(const Value& v);  // "int", "list", "fusion tensor", ...

}  // namespace fc::py
