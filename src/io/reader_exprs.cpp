// The reader's "exprs" (reader_internal.h): each element's op, operands,
// outputs and attributes, and the attributes its op does not take. Element i
// is expr i, read by the one-thread reader or by a chunk reader
// (reader_chunks.cpp) with the same code.
#include <string>

#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

// Expr keys: op, inputs, outputs, then the attributes in Attr bit order.
constexpr std::array<std::string_view, 18> kExprKeys = {
    "op",  "inputs", "outputs", "dtype",   "approximate", "flags", "shape", "dims", "ranges",
    "pad", "value",  "dim",     "keepdim", "correction",  "start", "step",  "name", "original_shape"};
constexpr int kFirstAttrKey = 3;
constexpr std::array<std::string_view, 3> kRangeKeys = {"start", "stop", "step"};

// "approximate": whether it is "tanh" (or "none").
std::optional<bool> parseApproximation(std::string_view s) {
  if (s == "tanh" || s == "none") return s == "tanh";
  return std::nullopt;
}

}  // namespace

void Reader::readExprs(sj::value& v) {
  readTopArray(
      v, Chunked::Exprs, [&](size_t n) { f_.exprs.reserve(f_.exprs.size() + n); },
      [&](size_t, sj::value& x) { return readExpr(0, x); });
}

// One element of "exprs" (index i).
bool Reader::readExpr(size_t i, sj::value& x) {
  Expr e;
  uint32_t seen = 0;
  std::string_view opname;
  bool bad = false;
  bool read = readObject(x, kExprKeys, seen, [&](int k, sj::value& y) {
    Attrs& at = e.attrs;
    bool ok = true;
    switch (k) {
      case 0: ok = getString(y, opname); break;
      case 1: {
        sj::array ins;
        if (!getArray(y, ins)) return void(bad = true);
        e.inputs.reserve(2);  // most ops are unary or binary: one allocation
        ok = eachElement(ins, [&](size_t, sj::value& z) { return readOperand(z, e.inputs); });
        break;
      }
      case 2: ok = readNameRefArray(y, Want::Tensor, [&](ValueRef r) { e.outputs.push_back(r.id); }); break;
      case 3: ok = readEnum(y, parseDType, at.dtype, DiagCode::BadEnum, "dtype"); break;
      case 4:
        ok = readEnum(y, parseApproximation, at.approximate_tanh, DiagCode::BadEnum, "approximation",
                      " (none or tanh)");
        break;
      case 5: {
        ok = eachElementOf(y, [&](size_t, sj::value& z) {
          bool b = false;
          if (!getBool(z, b)) return false;
          at.flags.push_back(b);
          return true;
        });
        break;
      }
      case 6: ok = readScalarArray(y, DType::Index, [&](ScalarId s) { at.shape.push_back(s); }); break;
      case 7:
        ok = readIntArray(y, INT32_MIN, INT32_MAX, "an axis index", [&](int64_t n) { at.dims.push_back(n); });
        break;
      case 8: {
        ok = eachElementOf(y, [&](size_t, sj::value& z) {
          SliceRange r;
          uint32_t rseen = 0;
          bool rbad = false;
          bool read = readObject(z, kRangeKeys, rseen, [&](int rk, sj::value& w) {
            ScalarId s = readScalar(w, DType::Index);
            if (s == kNone) rbad = true;
            (rk == 0 ? r.start : rk == 1 ? r.stop : r.step) = s;
          });
          if (!read || rbad || !requireKeys(rseen, kRangeKeys, {0, 1})) return false;
          at.ranges.push_back(r);
          return true;
        });
        break;
      }
      case 9: ok = readScalarArray(y, DType::Index, [&](ScalarId s) { at.pad.push_back(s); }); break;
      case 10: ok = (at.value = readScalar(y, DType::Int)) != kNone; break;
      case 11: {
        int64_t n = 0;
        ok = getInt(y, n, INT32_MIN, INT32_MAX, "an axis index");
        at.dim = n;
        break;
      }
      case 12: ok = getBool(y, at.keepdim); break;
      case 13: {
        int64_t n = 0;
        ok = getInt(y, n, INT32_MIN, INT32_MAX, "a correction");
        at.correction = n;
        break;
      }
      case 14: ok = (at.start = readScalar(y, DType::Int)) != kNone; break;
      case 15: ok = (at.step = readScalar(y, DType::Int)) != kNone; break;
      case 16: {
        std::string_view name;
        ok = getString(y, name);
        at.name = std::string(name);
        break;
      }
      case 17:
        ok = readIntArray(y, INT64_MIN, INT64_MAX, "a size",
                          [&](int64_t n) { at.original_shape.push_back(n); });
        break;
    }
    if (!ok) bad = true;
  });
  if (!read || !requireKeys(seen, kExprKeys, {0, 2}) || bad) return false;
  std::optional<OpKind> op = parseOpKind(opname);
  if (!op) {
    PathGuard g(path_, "op");
    error(DiagCode::UnknownOp, "unknown op \"" + std::string(opname) + "\"");
    return false;
  }
  e.op = *op;
  // Attributes this op does not take.
  bool attrs_ok = true;
  for (int k = kFirstAttrKey; k < static_cast<int>(kExprKeys.size()); ++k) {
    if (!(seen & (1u << k))) continue;
    auto bit = static_cast<Attr>(1u << (k - kFirstAttrKey));
    if (!opAccepts(e.op, bit)) {
      PathGuard g(path_, kExprKeys[k]);
      error(DiagCode::BadAttribute,
            "op " + std::string(opname) + " takes no \"" + std::string(kExprKeys[k]) + "\" attribute");
      attrs_ok = false;
    }
  }
  if (!attrs_ok) return false;
  if (primary_ != nullptr)
    primary_->f_.exprs[i] = std::move(e);
  else
    f_.exprs.push_back(std::move(e));
  return true;
}

// An operand: a tensor or scalar name, a constant, or a scalar expression.
bool Reader::readOperand(sj::value& v, std::vector<ValueRef>& out) {
  sj::json_type t;
  if (!getType(v, t)) return false;
  if (t == sj::json_type::string) {
    std::string_view s;
    if (auto e = v.get_string().get(s)) return typeError(e, "a string");
    if (isScalarName(s)) {
      out.push_back(refByName(internName(s), Want::Either));
      return true;
    }
    ScalarId id = parseExpr(s, DType::Int, false);
    if (id == kNone) return false;
    out.push_back(ValueRef::scalar(id));
    return true;
  }
  if (t == sj::json_type::number || t == sj::json_type::boolean) {
    ScalarId id = readScalar(v, DType::Int);
    if (id == kNone) return false;
    out.push_back(ValueRef::scalar(id));
    return true;
  }
  return wrongType(v, "a tensor or scalar name, or a constant");
}

}  // namespace fc::reader_detail
