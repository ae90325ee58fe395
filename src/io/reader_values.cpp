// The reader's scalar values (reader_internal.h): a number, a boolean or a
// scalar expression string becomes a Scalar of the Fusion; a literal
// constant becomes a ConstValue.
#include <string>

#include "io/json_scan.h"
#include "io/reader_internal.h"

namespace fc::reader_detail {

ScalarId Reader::constScalar(const ConstValue& c, DType int_dtype) {
  if (c.kind == ConstValue::Kind::Float) return f_.addConstFloat(c.f, DType::Double);
  if (c.kind == ConstValue::Kind::Bool) return f_.addConstBool(c.i != 0);
  return f_.addConstInt(c.i, int_dtype);
}

// A scalar value: JSON number / boolean, or an expression string.
ScalarId Reader::readScalar(sj::value& v, DType int_dtype, bool fresh_root) {
  sj::json_type t;
  if (!getType(v, t)) return kNone;
  if (t == sj::json_type::string) {
    std::string_view s;
    if (auto e = v.get_string().get(s)) {
      typeError(e, "a string");
      return kNone;
    }
    return parseExpr(s, int_dtype, fresh_root);
  }
  if (t == sj::json_type::number) {
    int64_t fast = 0;
    if (v.get_int64().get(fast) == simdjson::SUCCESS) return f_.addConstInt(fast, int_dtype);
    std::string_view raw;
    if (!numberToken(v, raw)) return kNone;
    if (raw.find_first_of(".eE") != std::string_view::npos) {
      double d = 0;
      if (auto e = v.get_double().get(d)) {
        if (e == simdjson::NUMBER_ERROR || e == simdjson::NUMBER_OUT_OF_RANGE)
          error(DiagCode::NumberOutOfRange,
                jsonscan::clipForMessage(raw) + " does not fit a double (write \"inf\" instead)");
        else
          fatal(e);
        return kNone;
      }
      return f_.addConstFloat(d, DType::Double);
    }
    bool oor = false;
    auto c = parseScalarLiteral(raw, &oor);
    if (!c) {
      error(DiagCode::NumberOutOfRange,
            jsonscan::clipForMessage(raw) + " does not fit in a 64-bit signed integer");
      return kNone;
    }
    return constScalar(*c, int_dtype);
  }
  if (t == sj::json_type::boolean) {
    bool b = false;
    if (auto e = v.get_bool().get(b)) {
      typeError(e, "true or false");
      return kNone;
    }
    return f_.addConstBool(b);
  }
  wrongType(v, "a number or a scalar expression string");
  return kNone;
}

ScalarId Reader::parseExpr(std::string_view s, DType int_dtype, bool fresh_root) {
  if (!fresh_root && isScalarName(s)) return *scalar(s);  // fast path: a bare name
  ScalarParseOptions o;
  o.int_dtype = int_dtype;
  o.fresh_root = fresh_root;
  ScalarParseResult r = parseScalarExpr(s, f_, *this, o);
  if (!r.ok()) {
    std::string msg = "bad scalar expression \"" + std::string(s) + "\": " + r.error;
    if (r.error_pos > 0 || s.size() > 1) msg += " (at character " + std::to_string(r.error_pos + 1) + ")";
    error(r.out_of_range ? DiagCode::NumberOutOfRange : DiagCode::BadScalarExpr, std::move(msg));
    return kNone;
  }
  return r.id;
}

// A literal constant: number, boolean, or "inf"/"-inf"/"nan"/big-int string.
bool Reader::readLiteral(sj::value& v, ConstValue& out) {
  sj::json_type t;
  if (!getType(v, t)) return false;
  std::string_view text;
  if (t == sj::json_type::string) {
    if (auto e = v.get_string().get(text)) return typeError(e, "a string");
  } else if (t == sj::json_type::number) {
    text = trimmedToken(v);
    if (text.find_first_of(".eE") != std::string_view::npos) {
      double d = 0;
      if (auto e = v.get_double().get(d)) {
        if (e == simdjson::NUMBER_ERROR || e == simdjson::NUMBER_OUT_OF_RANGE) {
          error(DiagCode::NumberOutOfRange, jsonscan::clipForMessage(text) + " does not fit a double");
          return false;
        }
        fatal(e);
        return false;
      }
      out.kind = ConstValue::Kind::Float;
      out.f = d;
      return true;
    }
  } else if (t == sj::json_type::boolean) {
    bool b = false;
    if (auto e = v.get_bool().get(b)) return typeError(e, "true or false");
    out.kind = ConstValue::Kind::Bool;
    out.i = b;
    return true;
  } else {
    return wrongType(v, "a constant (number, boolean, or \"inf\" / \"-inf\" / \"nan\")");
  }
  bool oor = false;
  auto c = parseScalarLiteral(text, &oor);
  if (!c) {
    if (oor)
      error(DiagCode::NumberOutOfRange,
            jsonscan::clipForMessage(text) + " does not fit in a 64-bit signed integer");
    else
      error(DiagCode::BadScalarExpr, "\"" + jsonscan::clipForMessage(text) + "\" is not a constant");
    return false;
  }
  out = *c;
  return true;
}

}  // namespace fc::reader_detail
