// Scalar expressions as text (docs/format.md, "Scalars and scalar
// expressions"): a recursive-descent parser that builds scalar nodes in a
// Fusion, and the printer that writes them back so that the parser reads
// the text back to the same nodes (canonical, minimal parentheses).
//
// Parsing is O(length of the text); nesting is limited to kMaxScalarExprDepth
// (deeper input is an error, never a deep recursion). Printing is O(size of
// the tree); named scalars print as their name, so printing never follows a
// name into its definition and the recursion is bounded by the parse depth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/fusion.h"

namespace fc {

inline constexpr int kMaxScalarExprDepth = 200;

// How the parser resolves the names it meets. The reader resolves names that
// are declared later in the document through placeholder ids.
class ScalarNameResolver {
 public:
  virtual ~ScalarNameResolver() = default;
  // A scalar id for NAME (may be a placeholder the caller patches later), or
  // nullopt when the name cannot be resolved at all.
  virtual std::optional<ScalarId> scalar(std::string_view name) = 0;
  // A tensor id for the TENSOR of size(TENSOR, d), or nullopt.
  virtual std::optional<TensorId> tensor(std::string_view name) = 0;
  // The dtype of a scalar id that is not in the Fusion being built (one of
  // the resolver's own ids), or nullopt to let the parser assume an integer.
  virtual std::optional<DType> dtypeOf(ScalarId) const { return std::nullopt; }
};

// Resolves through Fusion::findScalar / findTensor (names must exist).
class FusionNameResolver : public ScalarNameResolver {
 public:
  explicit FusionNameResolver(const Fusion& f) : f_(f) {}
  std::optional<ScalarId> scalar(std::string_view name) override { return f_.findScalar(name); }
  std::optional<TensorId> tensor(std::string_view name) override { return f_.findTensor(name); }

 private:
  const Fusion& f_;
};

struct ScalarParseOptions {
  DType int_dtype = DType::Index;     // dtype of integer literals
  DType float_dtype = DType::Double;  // dtype of float literals
  // The parse defines a named scalar: a bare name is an error (the result
  // must be a new node that can carry the declaration's name).
  bool fresh_root = false;
};

struct ScalarParseResult {
  ScalarId id = kNone;        // kNone on error
  bool out_of_range = false;  // the error is an integer literal beyond int64 (FC0021)
  std::string error;          // empty on success
  size_t error_pos = 0;       // byte offset of the error in the text
  bool ok() const { return id != kNone; }
};

// Parses `text` and appends the nodes it needs to `f`.
ScalarParseResult parseScalarExpr(std::string_view text, Fusion& f, ScalarNameResolver& names,
                                  const ScalarParseOptions& opts = {});

// Parses a literal constant: ['-'] (INT | FLOAT | inf | nan) | true | false.
// Used where only a constant is allowed (concrete scalar values, tolerances).
std::optional<ConstValue> parseScalarLiteral(std::string_view text, bool* out_of_range = nullptr);

// True for [A-Za-z_][A-Za-z0-9_]* that is not a reserved word of the grammar.
bool isScalarName(std::string_view s);

// The canonical text of a scalar: a name for named scalars, a literal for
// constants, an expression otherwise; a constant whose dtype is not its
// literal's default (`int_dtype` for integers, Double, Bool) is written
// typed, `Float(2.5)`, `Int32(3)`. parseScalarExpr(printScalarExpr(s)) with
// the same int_dtype builds an equal node.
std::string printScalarExpr(const Fusion& f, ScalarId s, DType int_dtype = DType::Index);
// True for a constant whose dtype its literal gives where integer literals are `int_dtype`
// (Bool, Double, int_dtype); where they are Index (a size, which nvFuser casts to Index), an Int
// literal counts as well.
bool isLiteralDType(const Scalar& x, DType int_dtype);
// True for an unnamed constant that printScalarExpr writes typed.
bool needsTypedConstant(const Fusion& f, ScalarId s, DType int_dtype);
// The text of a scalar's own definition (for a named derived scalar: its
// expression, not its name), integer literals Index.
std::string printScalarDefinition(const Fusion& f, ScalarId s);
// A constant's literal text: integers in decimal, floats in the shortest
// form that reads back exactly (always with '.', 'e', or as inf / -inf / nan).
std::string printConstValue(const ConstValue& v);

}  // namespace fc
