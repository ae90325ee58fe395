// The printed-IR reader behind importIr and importSegments: reads the tokens of one dump (see
// dumps.h) into a Fusion. Its parts, one file each:
//   scalars.cpp    extents and scalar operands, scalar statements (`i10 = ...;`)
//   tensors.cpp    tensors, axes, meshes, the TransformPrinter section
//   exprs.cpp      statements, call arguments, each op form
//   hostir.cpp     HostIrContainer programs (communications, aliases of selects, buffers)
//   segments.cpp   the group blocks of a segmented-fusion dump
//   infer.cpp      what a print leaves out: inputs, outputs, attributes, dtypes
//
// Text that is no print (log lines, prose, host-program bookkeeping) is skipped token by token;
// one note per skipped stretch says where. Errors are located diagnostics (FC0601 syntax, FC0602
// a construct fusecheck does not model, FC0603 names that do not resolve); after an error the
// reader resumes at the next line, up to 50 errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "diag/diagnostic.h"
#include "io/import_text.h"
#include "io/ir/lexer.h"
#include "io/source_map.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc::ir_text {

struct ReadOptions {
  bool segmented = false;  // read `g{(...)` group blocks into an explicit segmentation
};

class Reader : private lex::TokenCursor<Lexer, Token> {
 public:
  // Reads tokens [begin, end) of `lex` (a lexer over `text`).
  Reader(const MappedText& text, const Lexer& lex, size_t begin, size_t end, DiagnosticSink& sink,
         ReadOptions opts);
  std::optional<Fusion> run();
  // After run(): where each tensor was first printed and each expr's statement starts, in the
  // user's file.
  const SourceMap& sourceMap() const { return map_; }

  // A value in a call's argument list.
  struct Arg {
    enum class Kind : uint8_t { Tensor, Scalar, Word, List, Domain };
    Kind kind = Kind::Scalar;
    std::string key;  // `key = value`; empty for a positional argument
    size_t tok = 0;   // first token of the value
    TensorId tensor = kNone;
    ScalarId scalar = kNone;
    std::string word;              // an identifier given as a value (`add`, `Streaming`, `true`)
    std::vector<Arg> items;        // List
    std::vector<AxisId> domain;    // Domain: a bracketed domain printed without a tensor name
    std::string domain_signature;  // Domain
  };

  // An expr being read: its op, operands, outputs and attributes.
  struct Pending {
    OpKind op = OpKind::Set;
    std::vector<ValueRef> in;
    std::vector<TensorId> out;
    Attrs attrs;
    size_t tok = 0;                   // first token of the statement
    std::optional<DType> in_dtype;    // the operand's dtype, from a cast's name
    std::optional<DType> init_dtype;  // a reduction's initial value dtype
  };

 private:
  // ------------------------------------------------------------ tokens (TokenCursor, reader.cpp)
  const Token& cur() const { return tok(p_); }
  bool atEnd() const { return p_ >= end_; }
  bool expect(std::string_view punct);
  bool eatWord(std::string_view w);
  std::string found() const;
  void skipLine();                 // to the next token that starts a line
  size_t lineEnd(size_t i) const;  // the first token after i's line
  size_t column(size_t i) const;   // 0-based byte column of token i
  void resync(size_t start);       // after an error in the statement at `start`

  // ------------------------------------------------------------ diagnostics (reader.cpp)
  Location loc(size_t tok_index) const;
  bool error(DiagCode c, std::string msg, size_t tok_index);
  void warning(DiagCode c, std::string msg, size_t tok_index);
  void note(std::string msg, size_t tok_index);
  void flushSkipped();

  // ------------------------------------------------------------ the main loop (reader.cpp)
  bool step();
  bool listEntry();
  bool lineIsLabel(size_t i) const;

  // ------------------------------------------------------------ scalars (scalars.cpp)
  class ScalarReader;
  friend class ScalarReader;
  std::optional<ScalarId> scalar();  // an extent or scalar operand; unmodelled text -> x<n>
  // kNone when the expression is one the fusion cannot hold; `text` is its print. Then `leaves`,
  // when given, gets the scalars its names stand for, or nullopt when it reads something else (a
  // tensor, metadata).
  std::optional<ScalarId> parseScalar(std::string& text,
                                      std::optional<std::vector<ScalarId>>* leaves = nullptr);
  bool atScalarStatement() const;
  bool scalarStatement();
  void collectScalarStatements();
  ScalarId symbol(std::string_view name);
  std::optional<ScalarId> named(std::string_view name, size_t at);
  std::optional<int64_t> intValue(ScalarId s) const;
  bool isZero(ScalarId s) const;
  // A fresh symbol standing for unmodelled `text`, computed from `leaves` when they are known.
  ScalarId opaque(const std::string& text, size_t at, const std::optional<std::vector<ScalarId>>& leaves);

  // ------------------------------------------------------------ tensors (tensors.cpp)
  bool atTensor(size_t i) const;
  std::optional<TensorId> tensor();
  std::optional<AxisId> axis(std::string& sig);
  std::optional<MeshId> mesh();
  bool domain(std::vector<AxisId>& axes, std::string& sig, bool allow_mesh, MeshId* mesh_out);
  void setDType(TensorId t, DType d);
  std::vector<AxisId> nonReduction(TensorId t) const;
  void transformSection();
  bool transformDomain(std::vector<std::string>& names);

  // ------------------------------------------------------------ exprs (exprs.cpp)
  bool statement();
  bool rhs(Pending& pd);
  bool args(std::vector<Arg>& out, int depth);
  bool value(Arg& a, int depth);
  bool call(std::string_view fn, size_t at, Pending& pd);
  bool applyForm(OpKind op, std::string_view fn, size_t at, std::vector<Arg>& a, Pending& pd);
  bool recoverOperand(Arg& a, const Pending& pd);
  bool add(Pending& pd);
  // A tensor op's scalar operand: an integer literal is an Int, the dtype nvFuser gives a
  // constant made from an int64_t (csrc/type.h:417 getDataType @ 81c4b22fd), as its frontends make
  // `fd.define_scalar(1)` and `IrBuilder::create<Val>(1L)`; the print does not say which.
  ScalarId valueOperand(ScalarId s);
  bool argScalar(const Arg& a, ScalarId& out);
  bool argInt(const Arg& a, int64_t& out);
  // A list argument `{...}`: item(element, value) converts each element, appended to `out`.
  template <class T, class Item>
  bool argList(const Arg& a, std::vector<T>& out, Item&& item);  // exprs.cpp
  bool argInts(const Arg& a, std::vector<int64_t>& out);
  bool argScalars(const Arg& a, std::vector<ScalarId>& out);
  bool argBools(const Arg& a, std::vector<bool>& out);
  bool argTensor(const Arg& a, TensorId& out, std::string_view fn);

  // ------------------------------------------------------------ host programs (hostir.cpp)
  bool hostStep();
  bool skipAllocation();
  bool hostSignature();
  bool communication();
  bool legacyCommunication();
  void defineFromCommunication(std::string_view type, TensorId in, TensorId out, size_t at);
  size_t skipPrint(size_t i) const;

  // ------------------------------------------------------------ segmented dumps (segments.cpp)
  bool segmentStep();
  void addToGroup(ExprId e);
  void finishSegments();

  // ------------------------------------------------------------ inference (infer.cpp)
  void finish();
  void inferDTypes(std::vector<char>& known);
  // Forward through nvFuser's promotion, backward through ops that keep their operands' dtype.
  void propagateDTypes(std::vector<char>& known);
  void setKnown(std::vector<char>& known, TensorId t, DType d);

  // ------------------------------------------------------------ state
  const MappedText& text_;
  size_t begin_;
  DiagnosticSink& sink_;
  ReadOptions opts_;
  int errors_ = 0;
  Fusion f_;

  struct Printed {          // the first print of a tensor
    std::string signature;  // its domain as printed, normalised
    size_t tok = 0;
    bool dtype_known = false;
  };
  std::unordered_map<std::string, TensorId> tensors_;
  std::vector<Printed> printed_;  // per TensorId
  std::unordered_map<std::string, ScalarId> symbols_;
  std::unordered_map<std::string, ScalarId> opaque_;     // unmodelled scalar text -> its symbol
  std::unordered_map<std::string, size_t> scalar_defs_;  // `name = ...;` -> token of its value
  std::vector<std::string> resolving_;                   // scalar statements being resolved

  // Lists: `Inputs:` / `Outputs:` of printMath, a group's `inputs:` / `outputs:`.
  enum class Mode : uint8_t { None, Inputs, Outputs, GroupInputs, GroupOutputs };
  Mode mode_ = Mode::None;
  std::vector<ValueRef> listed_inputs_;
  std::vector<TensorId> listed_outputs_;

  std::vector<std::optional<DType>> expr_in_dtype_;  // per expr: the operand dtype a cast names
  std::vector<std::optional<DType>> expr_init_dtype_;
  std::vector<size_t> expr_tok_;  // per expr: the first token of its statement
  SourceMap map_;

  // Skipped text, reported as one note per stretch.
  size_t skip_from_ = SIZE_MAX, skip_to_ = 0;
  int skip_notes_ = 0;

  // TransformPrinter: logical domains given for tensors whose print shows a scheduled loop.
  bool in_transforms_ = false;

  // Host programs.
  int host_depth_ = -1;         // brace depth of the HostIrContainer block, -1 outside
  bool listing_noted_ = false;  // a lowered kernel's listing was said to be one
  int brace_depth_ = 0;
  std::unordered_map<std::string, TensorId> alias_names_;  // a select's output -> what it views
  bool host_signature_ = false;                            // the program's (inputs) -> (outputs) were read
  std::string pending_comm_;  // a 2024 `Communication Allgather: {...}` awaiting its tensors

  // Segmented dumps.
  bool details_ = false;
  int group_ = -1;
  std::vector<SegmentSpec> groups_;
  std::vector<std::vector<TensorId>> group_outputs_;
  std::vector<std::vector<TensorId>> group_inputs_;
  std::vector<size_t> group_tok_;  // each group's heading
  // A group that lists inputs and outputs but shows no expr becomes one opaque expr.
  void opaqueGroups();
};

// Type names nvFuser prints (`float`, `__half`, `int64_t`, `nvfuser_index_t`, ...).
std::optional<DType> cppDType(std::string_view s);

}  // namespace fc::ir_text
