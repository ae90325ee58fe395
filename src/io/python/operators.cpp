// Python's operators over the interpreter's values (see interpreter.h): integer and float
// arithmetic with Python's floor division and modulo, string and list concatenation and
// repetition, comparisons, membership, identity, subscripts and slices. On fusion tensors and
// scalars the arithmetic and comparison operators record the fd.ops call they stand for, as
// the frontends' Tensor and Scalar classes do.
#include <cmath>
#include <complex>

#include "io/python/interpreter.h"
#include "support/checked.h"

namespace fc::py {
namespace {

bool isNum(const Value& v) { return v.k == VK::Int || v.k == VK::Bool || v.k == VK::Float; }
bool isFusion(const Value& v) { return v.k == VK::Tensor || v.k == VK::Scalar; }
// A number or a complex number, with at least one of the two complex.
bool isComplexPair(const Value& l, const Value& r) {
  return (l.k == VK::Complex || r.k == VK::Complex) && (isNum(l) || l.k == VK::Complex) &&
         (isNum(r) || r.k == VK::Complex);
}
std::complex<double> asComplexNumber(const Value& v) {
  if (v.k == VK::Complex) return {v.f, v.im};
  return {v.k == VK::Float ? v.f : static_cast<double>(v.i), 0.0};
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// The fd.ops name an operator records on fusion values.
const char* opsName(const std::string& op) {
  if (op == "+") return "add";
  if (op == "-") return "sub";
  if (op == "*") return "mul";
  if (op == "/") return "div";
  if (op == "//") return "div";
  if (op == "%") return "fmod";
  if (op == "**") return "pow";
  if (op == "&") return "bitwise_and";
  if (op == "|") return "bitwise_or";
  if (op == "^") return "bitwise_xor";
  if (op == "<<") return "bitwise_left_shift";
  if (op == ">>") return "bitwise_right_shift";
  if (op == "@") return "matmul";
  if (op == "==") return "eq";
  if (op == "!=") return "ne";
  if (op == "<") return "lt";
  if (op == "<=") return "le";
  if (op == ">") return "gt";
  if (op == ">=") return "ge";
  return nullptr;
}

}  // namespace

Ref Interpreter::binary(const std::string& op, const Ref& l, const Ref& r, uint32_t off) {
  if (isFusion(*l) || isFusion(*r)) {
    const char* name = opsName(op);
    if (!name) fail("operator `" + op + "` on fusion values", off);
    auto rec = isFusion(*l) ? l->rec : r->rec;
    Args a;
    a.off = off;
    a.pos = {l, r};
    a.pos_off = {off, off};
    return opsCall(rec, name, a);
  }
  if (l->k == VK::Opaque || r->k == VK::Opaque)
    return mkOpaque((l->k == VK::Opaque ? l->s : r->s) + " " + op + " ...");
  if (isComplexPair(*l, *r)) {
    // Python's complex arithmetic (the literal `3.0 + 0.5j` of a repro's scalars).
    const std::complex<double> a = asComplexNumber(*l), b = asComplexNumber(*r);
    std::complex<double> v;
    if (op == "+")
      v = a + b;
    else if (op == "-")
      v = a - b;
    else if (op == "*")
      v = a * b;
    else if (op == "/") {
      if (b == 0.0) fail("complex division by zero", off);
      v = a / b;
    } else if (op == "**")
      v = std::pow(a, b);
    else
      fail("operator `" + op + "` on complex numbers", off);
    return mkComplex(v.real(), v.imag());
  }
  if (isNum(*l) && isNum(*r)) {
    bool fl = l->k == VK::Float || r->k == VK::Float;
    if (!fl && op != "/" && op != "**") {
      int64_t a = l->i, b = r->i;
      std::optional<int64_t> v;
      if (op == "+")
        v = checkedAdd(a, b);
      else if (op == "-")
        v = checkedSub(a, b);
      else if (op == "*")
        v = checkedMul(a, b);
      else if (op == "//" || op == "%") {
        if (b == 0) fail("integer division by zero", off);
        if (a == INT64_MIN && b == -1) fail("integer overflow", off);
        int64_t q = floorDiv(a, b);
        v = op == "//" ? q : a - q * b;
      } else if (op == "&")
        v = a & b;
      else if (op == "|")
        v = a | b;
      else if (op == "^")
        v = a ^ b;
      else if (op == "<<")
        v = (b >= 0 && b < 63 && a >= 0 && a < (INT64_C(1) << (62 - b))) ? std::optional(a << b)
                                                                         : std::nullopt;
      else if (op == ">>")
        v = b >= 0 ? (b > 63 ? (a < 0 ? -1 : 0) : a >> b) : 0;
      else
        fail("operator `" + op + "` on integers", off);
      if (!v) fail("integer overflow in `" + op + "`", off);
      return mkInt(*v);
    }
    if (!fl && op == "**" && r->i >= 0) {
      int64_t acc = 1;
      for (int64_t k = 0; k < r->i; ++k) {
        auto m = checkedMul(acc, l->i);
        if (!m) fail("integer overflow in `**`", off);
        acc = *m;
      }
      return mkInt(acc);
    }
    double a = l->k == VK::Float ? l->f : static_cast<double>(l->i);
    double b = r->k == VK::Float ? r->f : static_cast<double>(r->i);
    if (op == "+") return mkFloat(a + b);
    if (op == "-") return mkFloat(a - b);
    if (op == "*") return mkFloat(a * b);
    if (op == "/") {
      if (b == 0) fail("division by zero", off);
      return mkFloat(a / b);
    }
    if (op == "//") {
      if (b == 0) fail("division by zero", off);
      return mkFloat(std::floor(a / b));
    }
    if (op == "%") {
      if (b == 0) fail("division by zero", off);
      return mkFloat(a - std::floor(a / b) * b);
    }
    if (op == "**") return mkFloat(std::pow(a, b));
    fail("operator `" + op + "` on floats", off);
  }
  if (op == "+" && l->k == r->k && (l->k == VK::Str)) return mkStr(l->s + r->s);
  if (op == "+" && l->k == r->k && (l->k == VK::List || l->k == VK::Tuple)) {
    std::vector<Ref> items = l->items;
    items.insert(items.end(), r->items.begin(), r->items.end());
    return mkSeq(l->k, std::move(items));
  }
  if (op == "*" && (l->k == VK::List || l->k == VK::Tuple || l->k == VK::Str) && r->k == VK::Int) {
    if (r->i > 65536 ||
        static_cast<int64_t>(l->items.size() + l->s.size()) * std::max<int64_t>(r->i, 0) > 1 << 20)
      fail("a repetition too long to model", off);
    if (l->k == VK::Str) {
      std::string s;
      for (int64_t k = 0; k < r->i; ++k) s += l->s;
      return mkStr(s);
    }
    std::vector<Ref> items;
    for (int64_t k = 0; k < r->i; ++k) items.insert(items.end(), l->items.begin(), l->items.end());
    return mkSeq(l->k, std::move(items));
  }
  if (op == "*" && l->k == VK::Int && (r->k == VK::List || r->k == VK::Tuple || r->k == VK::Str))
    return binary(op, r, l, off);
  if (op == "%" && l->k == VK::Str) return mkStr(l->s);  // printf-style formatting: the text is not needed
  if (l->k == VK::Torch || r->k == VK::Torch) {
    Ref t = torchArithmetic(op, l, r);
    if (t->k == VK::Torch) t->off = off;
    return t;
  }
  fail("operator `" + op + "` between a " + typeName(*l) + " and a " + typeName(*r), off);
}

Ref Interpreter::unary(const std::string& op, const Ref& v, uint32_t off) {
  if (op == "not") return mkBool(!truthy(v, off));
  if (isFusion(*v)) {
    if (op == "+") return v;
    Args a;
    a.off = off;
    a.pos = {v};
    a.pos_off = {off};
    return opsCall(v->rec, op == "-" ? "neg" : "bitwise_not", a);
  }
  if (v->k == VK::Int || v->k == VK::Bool) {
    if (op == "-") {
      if (v->i == INT64_MIN) fail("integer overflow", off);
      return mkInt(-v->i);
    }
    if (op == "~") return mkInt(~v->i);
    return mkInt(v->i);
  }
  if (v->k == VK::Float) return mkFloat(op == "-" ? -v->f : v->f);
  if (v->k == VK::Complex && op != "~") return op == "-" ? mkComplex(-v->f, -v->im) : v;
  if (v->k == VK::Opaque) return mkOpaque(op + v->s);
  if (v->k == VK::Torch) {
    // -t and ~t keep t's sizes and dtype (-t of Bool and ~t of a floating tensor raise in torch).
    if (op == "+") return v;
    if (*v->dtype == DType::Bool && op == "-") return mkOpaque("torch tensor arithmetic");
    Ref t = torchArithmetic(op == "-" ? "*" : "&", v, op == "-" ? mkInt(1) : v);
    if (t->k == VK::Torch) t->off = off;
    return t;
  }
  fail("operator `" + op + "` on a " + typeName(*v), off);
}

bool Interpreter::equal(const Ref& l, const Ref& r) {
  if (l.get() == r.get()) return true;
  if (isComplexPair(*l, *r)) return asComplexNumber(*l) == asComplexNumber(*r);
  if (isNum(*l) && isNum(*r)) {
    if (l->k == VK::Float || r->k == VK::Float)
      return (l->k == VK::Float ? l->f : static_cast<double>(l->i)) ==
             (r->k == VK::Float ? r->f : static_cast<double>(r->i));
    return l->i == r->i;
  }
  if (l->k != r->k) return false;
  switch (l->k) {
    case VK::None: return true;
    case VK::Str:
    case VK::Module:
    case VK::Parallel: return l->s == r->s;
    case VK::DType:
    case VK::TorchDType: return l->dtype == r->dtype;
    case VK::Opaque: return isEnumMember(*l) && isEnumMember(*r) && l->s == r->s;
    case VK::List:
    case VK::Tuple:
      if (l->items.size() != r->items.size()) return false;
      for (size_t i = 0; i < l->items.size(); ++i)
        if (!equal(l->items[i], r->items[i])) return false;
      return true;
    default: return false;
  }
}

Ref Interpreter::compare(const std::string& op, const Ref& l, const Ref& r, uint32_t off) {
  if (op == "is") return mkBool(l.get() == r.get() || (l->k == VK::None && r->k == VK::None));
  if (op == "is not") return mkBool(!(l.get() == r.get() || (l->k == VK::None && r->k == VK::None)));
  if (op == "in" || op == "not in") {
    if (r->k == VK::Opaque) skip("membership in `" + r->s + "`", off);
    bool found = false;
    if (r->k == VK::Str && l->k == VK::Str)
      found = r->s.find(l->s) != std::string::npos;
    else
      for (const Ref& x : iterate(r, off)) found = found || equal(l, x);
    return mkBool(op == "in" ? found : !found);
  }
  if (isFusion(*l) || isFusion(*r)) return binary(op, l, r, off);
  // A comparison of torch tensors is a Bool tensor of the broadcast sizes (a mask built for the
  // inputs: `torch.rand(...) < 0.8`).
  if ((l->k == VK::Torch || r->k == VK::Torch) && op != "in" && op != "not in") {
    Ref t = torchArithmetic("+", l, r);
    if (t->k == VK::Torch) {
      t->dtype = DType::Bool;
      t->off = off;
      return t;
    }
  }
  const bool members = isEnumMember(*l) && isEnumMember(*r);
  if ((l->k == VK::Opaque && !members) || (r->k == VK::Opaque && !members) || l->k == VK::Torch ||
      r->k == VK::Torch)
    skip("a comparison with a value that is not about the fusion", off);
  if (op == "==") return mkBool(equal(l, r));
  if (op == "!=") return mkBool(!equal(l, r));
  int c = 0;
  if (isNum(*l) && isNum(*r)) {
    double a = l->k == VK::Float ? l->f : static_cast<double>(l->i);
    double b = r->k == VK::Float ? r->f : static_cast<double>(r->i);
    if (l->k != VK::Float && r->k != VK::Float)
      c = l->i < r->i ? -1 : l->i > r->i ? 1 : 0;
    else
      c = a < b ? -1 : a > b ? 1 : 0;
  } else if (l->k == VK::Str && r->k == VK::Str) {
    c = l->s.compare(r->s) < 0 ? -1 : l->s == r->s ? 0 : 1;
  } else {
    fail("cannot order a " + typeName(*l) + " and a " + typeName(*r), off);
  }
  if (op == "<") return mkBool(c < 0);
  if (op == "<=") return mkBool(c <= 0);
  if (op == ">") return mkBool(c > 0);
  return mkBool(c >= 0);
}

Ref Interpreter::subscript(const Ref& obj, const Ref& idx, uint32_t off) {
  auto norm = [&](int64_t i, size_t n) {
    int64_t j = i < 0 ? i + static_cast<int64_t>(n) : i;
    if (j < 0 || j >= static_cast<int64_t>(n)) fail("index " + std::to_string(i) + " is out of range", off);
    return static_cast<size_t>(j);
  };
  switch (obj->k) {
    case VK::List:
    case VK::Tuple:
    case VK::Str: {
      size_t n = obj->k == VK::Str ? obj->s.size() : obj->items.size();
      if (idx->k == VK::Int || idx->k == VK::Bool) {
        size_t j = norm(idx->i, n);
        return obj->k == VK::Str ? mkStr(std::string(1, obj->s[j])) : obj->items[j];
      }
      if (idx->k == VK::Opaque && idx->s == "slice") {
        auto part = [&](size_t k, int64_t dflt) {
          return idx->items[k]->k == VK::None ? dflt : asInt(idx->items[k], off, "a slice bound");
        };
        int64_t step = part(2, 1);
        if (step == 0) fail("slice step cannot be zero", off);
        auto sn = static_cast<int64_t>(n);
        auto clampIdx = [&](int64_t v, int64_t lo, int64_t hi) {
          if (v < 0) v += sn;
          return std::max(lo, std::min(hi, v));
        };
        int64_t lo = idx->items[0]->k == VK::None
                         ? (step > 0 ? 0 : sn - 1)
                         : clampIdx(part(0, 0), step > 0 ? 0 : -1, step > 0 ? sn : sn - 1);
        int64_t hi = idx->items[1]->k == VK::None
                         ? (step > 0 ? sn : -1)
                         : clampIdx(part(1, 0), step > 0 ? 0 : -1, step > 0 ? sn : sn - 1);
        std::vector<Ref> items;
        std::string s;
        for (int64_t k = lo; step > 0 ? k < hi : k > hi; k += step) {
          if (obj->k == VK::Str)
            s += obj->s[static_cast<size_t>(k)];
          else
            items.push_back(obj->items[static_cast<size_t>(k)]);
        }
        return obj->k == VK::Str ? mkStr(s) : mkSeq(obj->k, std::move(items));
      }
      fail("a " + typeName(*obj) + " index must be an integer or a slice", off);
    }
    case VK::Dict:
      for (size_t i = 0; i < obj->keys.size(); ++i)
        if (equal(obj->keys[i], idx)) return obj->items[i];
      fail("the dict has no such key", off);
    case VK::Vector: {
      size_t j = norm(asInt(idx, off, "a vector index"), obj->ids.size());
      Ref s = mk(VK::Scalar);
      s->id = obj->ids[j];
      s->rec = obj->rec;
      return s;
    }
    case VK::Torch: return torchIndex(obj, idx, off);
    case VK::Opaque: return mkOpaque(obj->s + "[...]");
    case VK::Tensor:
      fail("indexing a fusion tensor (`T[...]`) is not an nvFuser frontend op; use fd.ops.slice", off);
    default: fail("a " + typeName(*obj) + " cannot be indexed", off);
  }
}

}  // namespace fc::py
