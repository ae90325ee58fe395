// The generic op builders of csrc/ops/arith.h that name their op by an enum value:
// unaryOp(UnaryOpType::X, v), binaryOp(BinaryOpType::X, a, b) and
// reductionOp(BinaryOpType::X, axes, init, tv[, keep_dim]) (arith.h:39-110 @ 81c4b22fd). The
// named ops (exp, add, sum, ...) are thin wrappers over them, so each call is imported as the
// named op it stands for. Tests of PyTorch's tree (2020-2022) wrote them often.
#include <cctype>
#include <cmath>
#include <string_view>

#include "io/cpp/reader.h"
#include "ir/constant_scalar.h"

namespace fc::cpp_text {
namespace {

// `UnaryOpType::LogicalNot` -> `logical_not`: the named op's C++ spelling, or "" when the value
// names another enum.
std::string namedOp(const Value& v, std::string_view enum_name) {
  if (v.k != Value::K::Opaque) return "";
  const std::string prefix = std::string(enum_name) + "::";
  if (v.s.rfind(prefix, 0) != 0) return "";
  const std::string e = v.s.substr(prefix.size());
  // The spellings that are not the enum's name in snake_case (csrc/ops/arith.h @ 81c4b22fd).
  static const std::pair<std::string_view, std::string_view> kOverrides[] = {
      {"Max", "maximum"},
      {"Min", "minimum"},
      {"FMax", "fmax"},
      {"FMin", "fmin"},
      {"Lshift", "bitwise_left_shift"},
      {"Rshift", "bitwise_right_shift"},
      {"CeilDiv", "ceilDiv"},
      {"GE", "ge"},
      {"GT", "gt"},
      {"LE", "le"},
      {"LT", "lt"},
      {"NE", "ne"},
      {"IsFinite", "isfinite"},
      {"IsInf", "isinf"},
      {"IsNan", "isnan"},
      {"IsNegInf", "isneginf"},
      {"IsPosInf", "isposinf"},
      {"IsReal", "isreal"}};
  for (const auto& [from, to] : kOverrides)
    if (e == from) return std::string(to);
  std::string out;
  for (size_t i = 0; i < e.size(); ++i) {
    const auto c = static_cast<unsigned char>(e[i]);
    if (std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(e[i - 1]))) out += '_';
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

}  // namespace

std::optional<Value> Reader::enumOp(const std::string& fn, std::vector<Value>& args, size_t at) {
  const bool reduction = fn == "reductionOp";
  const std::string_view enum_name = fn == "unaryOp" ? "UnaryOpType" : "BinaryOpType";
  std::string named = args.empty() ? "" : namedOp(args[0], enum_name);
  if (reduction) {
    named = named == "add"       ? "sum"
            : named == "mul"     ? "prod"
            : named == "maximum" ? "max"
            : named == "minimum" ? "min"
                                 : "";
  }
  if (named.empty()) {
    const std::string given = args.empty() || args[0].k != Value::K::Opaque ? "..." : args[0].s;
    return error(DiagCode::ImportUnsupported,
                 "`" + fn + "(" + given + ", ...)` is not read: its first argument must name the op by a " +
                     std::string(enum_name) + " value" +
                     (reduction ? ", and fusecheck reads the reductions of Add, Mul, Max and Min" : ""),
                 at),
           std::nullopt;
  }
  if (!reduction) {
    std::vector<Value> rest(args.begin() + 1, args.end());
    return call(named, rest, at);
  }
  // reductionOp(op, axes, init, tv[, keep_dim[, dtype]]).
  if (args.size() < 4)
    return error(DiagCode::ImportSyntax,
                 "`reductionOp(...)` takes the op, the axes, the initial value and a tensor", at),
           std::nullopt;
  std::vector<Value> rest{args[3], args[1]};
  for (size_t k = 4; k < args.size(); ++k) rest.push_back(args[k]);
  auto out = call(named, rest, at);
  if (!out) return std::nullopt;
  // The initial value joins every reduced element: where it is not the op's identity the result
  // is the named reduction combined with it once (sum + init, max(red, init), ...).
  const Value& init = args[2];
  std::optional<double> c;
  if (init.k == Value::K::Int) c = static_cast<double>(init.i);
  if (init.k == Value::K::Float && !init.is_complex) c = init.f;
  if (init.k == Value::K::Scalar)
    if (auto cv = constantScalarValue(f_, init.scalar))
      c = cv->kind == ConstValue::Kind::Float ? cv->f : static_cast<double>(cv->i);
  const bool identity =
      c && ((named == "sum" && *c == 0) || (named == "prod" && *c == 1) ||
            (named == "max" && std::isinf(*c) && *c < 0) || (named == "min" && std::isinf(*c) && *c > 0));
  if (identity) return out;
  const std::string combine = named == "sum"    ? "add"
                              : named == "prod" ? "mul"
                              : named == "max"  ? "maximum"
                                                : "minimum";
  note("`reductionOp(...)`'s initial value is not the identity of " + named + ": imported as " + named +
           "(...) combined with it by " + combine + ", which is what the reduction computes",
       at);
  std::vector<Value> pair{*out, init};
  return call(combine, pair, at);
}

}  // namespace fc::cpp_text
