// The C++-test reader behind importCppTest: runs the statements of a gtest body against a
// recording fusion, the way nvFuser's test would build it. Its parts, one file each:
//   statements.cpp   the test frame, statements, declarations, `for` / `if`, the notes on skipped
//                    statements
//   expressions.cpp  expressions: literals, names, operators, calls and members dispatched
//   calls.cpp        free functions: the tensor builders, nvFuser's ops (by their C++ names in
//                    ops.def, arguments laid out by form), IrBuilder, DeviceMesh, ATen factories
//   opaque_calls.cpp the ops fusecheck imports through their output rules (io/opaque_rules.h)
//   methods.cpp      members: TensorView (axis, split, reorder, setDeviceMesh, ...), IterDomain
//                    (parallelize, extent), Fusion (addInput, addOutput), TensorViewBuilder,
//                    at::Tensor and its options, the executors and their params
//
// A value the fusion cannot follow (an unknown function's result, a lambda, an evaluator) is
// Opaque: it may be passed around and is skipped with a note; an op or builder that gets one is an
// error naming the construct it came from.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "diag/diagnostic.h"
#include "io/cpp/lexer.h"
#include "io/import_builder.h"
#include "io/import_text.h"
#include "io/source_map.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc::cpp_text {

struct Field;

struct Value {
  enum class K : uint8_t {
    None,
    Int,
    Float,
    Bool,
    String,
    Tensor,    // a TensorView
    Scalar,    // a Val* of the fusion
    Axis,      // tv->axis(i): tensor and loop position
    List,      // an initializer list, a vector, a tuple
    Struct,    // named fields (variance_mean's result)
    Mesh,      // a DeviceMesh
    DType,     // DataType::Half, at::kHalf
    Parallel,  // ParallelType::DIDx
    Fusion,    // the Fusion (or a pointer to it)
    Builder,   // a TensorViewBuilder in progress
    Options,   // at::TensorOptions
    Aten,      // an at::Tensor: sizes, strides, dtype
    Executor,  // FusionExecutorCache, MultiDeviceExecutor, ...
    Params,    // MultiDeviceExecutorParams and other structs of flags
    Opaque,    // anything else
  };
  K k = K::None;
  int64_t i = 0;
  double f = 0;
  double im = 0;            // Float made by std::complex<T>(re, im): the imaginary part
  bool is_complex = false;  // Float: a std::complex
  TensorId tensor = kNone;
  ScalarId scalar = kNone;
  MeshId mesh = kNone;
  DType dtype = DType::Float;
  ParallelType parallel = ParallelType::Serial;
  std::string s;  // String text; Opaque: the construct it came from; Executor: its class
  std::vector<Value> items;
  std::vector<Field> fields;            // Struct, Params, Builder settings
  std::vector<int64_t> shape, strides;  // Aten
  size_t tok = 0;                       // where it was made

  static Value integer(int64_t v);
  static Value ofTensor(TensorId t);
  static Value opaque(std::string what, size_t tok);
  const Value* field(std::string_view name) const;
};

// A named field of a Struct, Params or Builder value.
struct Field {
  std::string name;
  Value value;
};

// Defined after Field: Value's members need it complete.
inline Value Value::integer(int64_t v) {
  Value x;
  x.k = K::Int;
  x.i = v;
  return x;
}

inline Value Value::ofTensor(TensorId t) {
  Value x;
  x.k = K::Tensor;
  x.tensor = t;
  return x;
}

inline Value Value::opaque(std::string what, size_t tok) {
  Value x;
  x.k = K::Opaque;
  x.s = std::move(what);
  x.tok = tok;
  return x;
}

inline const Value* Value::field(std::string_view name) const {
  for (const Field& x : fields)
    if (x.name == name) return &x.value;
  return nullptr;
}

// The parameter structs of nvFuser's executors and segmenter, which tests fill field by field or
// with designated initializers (MultiDeviceExecutorParams, hir::HostIrExecutorParams, ...).
inline bool isParamsType(std::string_view s) {
  return s == "MultiDeviceExecutorParams" || s == "HostIrExecutorParams" || s == "HostIrEvaluatorParams" ||
         s == "SegmentCandidateFinderOptions";
}

class Reader : public lex::TokenCursor<Lexer, Token> {
 public:
  Reader(const MappedText& text, const Lexer& lex, DiagnosticSink& sink);
  // After run(): where each tensor and expr was built (the statement's first token) in the user's file.
  const SourceMap& sourceMap() const { return map_; }
  std::optional<Fusion> run();

  // ------------------------------------------------------------ tokens (TokenCursor) and diagnostics
  bool expect(std::string_view p);
  // The `;` that ends a statement, or a line end where a paste lost it (a warning).
  bool endStatement();
  // Whether token `i` is the first of its line (a line break lies between it and the token before).
  bool startsLine(size_t i) const;
  size_t matching(size_t open) const;  // the token closing the bracket at `open`, or end_
  Location loc(size_t i) const { return text_.location(tok(i).off); }
  bool error(DiagCode c, std::string msg, size_t at);
  void note(std::string msg, size_t at);
  std::string found() const;
  std::string snippet(size_t from, size_t to) const;  // the source of tokens [from, to), shortened

  // ------------------------------------------------------------ around the body (file_scope.cpp)
  // Reads the namespace-scope constants, the fixture's device-count member and the suite's
  // INSTANTIATE_TEST_SUITE_P around the test's body at [body_open, body_close].
  void fileScope(size_t body_open, size_t body_close);
  // The test's fixture class: its members' initializers and its SetUp(), run before the body.
  void fixtureClass();
  // Reads the declaration in tokens [from, to) (its type ends at `type_end`) quietly: one the
  // import cannot evaluate leaves no name behind and no diagnostic. Leaves p_ and end_ moved.
  void quietDeclaration(size_t from, size_t type_end, size_t to);
  bool opensNamespace(size_t brace) const;
  void instantiation(size_t at);
  std::optional<Value> firstParam(size_t from, size_t to);
  // GetParam(): the first value of the suite's generator, with a note; nullopt when unknown.
  std::optional<Value> testParam(size_t at);
  // A speculative read: what it reported and counted is taken back by quietEnd.
  struct Quiet {
    size_t diagnostics;
    int errors, skip_notes;
    size_t skipped_kinds;
    bool devices_noted;
  };
  Quiet quietStart() const;
  void quietEnd(const Quiet& q);

  // ------------------------------------------------------------ statements (statements.cpp)
  bool findBody();
  bool block(size_t end);
  bool statement();
  // Whether the statement at p_ runs past the end of the text (a bracket it opens never closes,
  // or no `;` ends it).
  bool cutStatement() const;
  bool declaration(size_t type_end);
  // `{.use_fusion_executor_cache = true, .executor = {.a = 1}}` at p_: the designated initializer of
  // an executor's parameter struct, its fields flattened with dotted names ("executor.a") into
  // `into`.
  bool designatedInit(const std::string& prefix, Value& into);
  size_t typeEnd(size_t i) const;  // the first token after a type at i, or i when none
  // Whether the type at [i, te) followed by `[` opens a structured binding (`const auto& [a, b]`):
  // its type is `auto`; `outputs[1] = ...` is an expression.
  bool structuredBinding(size_t i, size_t te) const;
  bool forStatement();
  bool ifStatement();
  // `std::transform(a.begin(), a.end(), out, [](T x) { return E; });` over a list; false
  // (nothing read) when the call has another shape.
  bool transformStatement();
  // `auto [a, b] = v` / `std::tie(a, b) = v`: each name takes its element of v (a list's item, a
  // struct's field), else an opaque value of the statement since `at`; empty names are skipped.
  void bindElements(const std::vector<std::string>& names, const Value& v, size_t at);
  void skipStatement(const std::string& why, size_t from);
  // Evaluates tokens [from, to) as an expression (p_ ends after it).
  std::optional<Value> exprIn(size_t from, size_t to);
  bool condition(size_t from, size_t to, std::optional<bool>& value);
  void skippedStatement(size_t from, const std::string& what);

  // ------------------------------------------------------------ expressions (expressions.cpp)
  std::optional<Value> expr(int depth = 0);
  std::optional<Value> assignment(int depth);
  std::optional<Value> ternary(int depth);
  // Moves past one arm of a `?:` without evaluating it: to the `:` that ends it, or to the end of
  // the expression (`;`, `,` or a closing bracket).
  void skipArm();
  std::optional<Value> binary(int depth, int level);
  std::optional<Value> unary(int depth);
  std::optional<Value> postfix(int depth);
  std::optional<Value> primary(int depth);
  std::optional<Value> qualified(std::string name, size_t at, int depth);
  // Whether the `<` at `open` starts a template's arguments: types and numbers up to a `>` that a
  // call or a `::` follows (`IndexValidator<GetReference>::validate(...)`), not a comparison.
  bool templateArguments(size_t open) const;
  bool callArgs(std::vector<Value>& out, int depth);
  std::optional<Value> arith(std::string_view op, const Value& a, const Value& b, size_t at);
  std::optional<Value> lookup(const std::string& name, size_t at);

  // ------------------------------------------------------------ free functions (calls.cpp)
  std::optional<Value> call(const std::string& fn, std::vector<Value>& args, size_t at);
  std::optional<Value> makeTensor(const std::string& fn, std::vector<Value>& args, size_t at);
  std::optional<Value> castScalar(const std::string& fn, ScalarId s, DType to, size_t at);
  std::optional<Value> op(OpKind k, const std::string& fn, std::vector<Value>& args, size_t at);
  std::optional<Value> sizeOf(std::vector<Value>& args, size_t at);
  std::optional<Value> scalarOp(const std::string& fn, std::vector<Value>& args, size_t at);
  std::optional<Value> aten(const std::string& fn, std::vector<Value>& args, size_t at);
  std::optional<Value> meshOf(const Value& v, size_t at, const std::vector<int64_t>* given_shape = nullptr);
  // reorderParallelizedToFront(tv): Stream, DIDz, DIDy, DIDx axes of the loop domain to the front.
  std::optional<Value> reorderParallelizedToFront(std::vector<Value>& args, size_t at);
  // ------------------------------------------------------------ enum-named ops (enum_ops.cpp)
  // unaryOp, binaryOp and reductionOp: the named op their UnaryOpType / BinaryOpType stands for.
  std::optional<Value> enumOp(const std::string& fn, std::vector<Value>& args, size_t at);
  // ------------------------------------------------------------ opaque ops (opaque_calls.cpp)
  // Whether `fn` is an nvFuser op imported through its output rule (io/opaque_rules.h).
  bool isOpaqueOp(const std::string& fn) const;
  std::optional<Value> opaqueOp(const std::string& fn, std::vector<Value>& args, size_t at);
  // ------------------------------------------------------------ composite ops (composite_calls.cpp)
  // layer_norm, rms_norm and dropout, built from the ops nvFuser builds them from.
  bool isCompositeOp(const std::string& fn) const;
  std::optional<Value> compositeOp(const std::string& fn, std::vector<Value>& args, size_t at);
  // arange(end), arange(start, end), arange(start, end, step), each with an optional dtype: the
  // iota nvFuser builds (composite_calls.cpp).
  std::optional<Value> arange(std::vector<Value>& args, size_t at);
  // A name the test neither defines nor the import knows (lookup's opaque value for it).
  static constexpr std::string_view kUndefinedName = ", a name the test does not define";
  static bool undefinedName(const Value& v);
  std::vector<std::string> symbolic_sizes_;  // undefined size names already noted

  // ------------------------------------------------------------ members (methods.cpp)
  std::optional<Value> method(Value& obj, const std::string& name, std::vector<Value>& args, size_t at,
                              const std::string& target);
  std::optional<Value> tensorMethod(Value& obj, const std::string& name, std::vector<Value>& args, size_t at);
  std::optional<Value> atenMethod(Value& obj, const std::string& name, std::vector<Value>& args, size_t at);
  std::optional<Value> member(Value& obj, const std::string& name, size_t at);
  void recordRun(const Value& inputs, size_t at);
  void recordExecutor(const std::string& cls, const std::vector<Value>& args, size_t at);

  // ------------------------------------------------------------ conversions
  bool toInt(const Value& v, int64_t& out, size_t at, std::string_view what);
  // C++'s conversion of a double to an integer type (toward zero); a value outside int64's range
  // (whose conversion is undefined) is a located error.
  std::optional<Value> truncatedInt(double f, size_t at, std::string_view what);
  bool toInts(const Value& v, std::vector<int64_t>& out, size_t at, std::string_view what);
  bool toScalar(const Value& v, ScalarId& out, size_t at, std::string_view what);
  bool toTensor(const Value& v, TensorId& out, size_t at, std::string_view what);
  bool toDType(const Value& v, DType& out, size_t at, std::string_view what);
  bool opaqueUse(const Value& v, size_t at, std::string_view what);
  int64_t numDevices(size_t at);

  // ------------------------------------------------------------ state
  const MappedText& text_;
  DiagnosticSink& sink_;
  int errors_ = 0;
  bool returned_ = false;
  bool cut_ = false;  // the text ends inside the test's body (a cut paste)
  Fusion f_;
  ImportBuilder b_;
  std::unordered_map<std::string, Value> vars_;
  std::string test_name_;
  size_t whole_end_ = 0;                                // the end of the whole text's tokens
  size_t param_from_ = SIZE_MAX, param_to_ = SIZE_MAX;  // the suite's generator, if found
  size_t param_used_at_ = SIZE_MAX;                     // where GetParam() was last read
  int param_instantiations_ = 0;                        // INSTANTIATE_TEST_SUITE_P of the test's suite seen
  bool in_test_param_ = false;  // reading the generator: a GetParam() inside it is no value
  std::string executor_, executor_detail_;
  std::vector<KeywordUse> spelled_;  // dated spellings of the C++ API (ir/dated_spellings.h), first use each
  // The first construct of nvFuser's C++ API in PyTorch's tree (before nvFuser's own repository)
  // the test uses: `makeDummyTensor(...)`, `new Float(...)`; "" if none.
  std::string pre_repo_;
  void markPreRepo(const std::string& what, size_t at);
  bool devices_noted_ = false;
  std::vector<std::string> skipped_kinds_;  // notes already given, by kind
  int skip_notes_ = 0;
  std::vector<size_t> expr_tok_;
  SourceMap map_;
  bool ran_ = false;
};

}  // namespace fc::cpp_text
