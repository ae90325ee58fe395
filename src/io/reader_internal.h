// The repro reader's class, shared by the files that define its parts:
//
//   reader.cpp               the entry points and run(): one read of a text, and
//                            when to read it again
//   reader_cursor.h/.cpp     the cursor (the base class): JSON pointer, typed
//                            getters, objects against key tables, located errors
//   reader_names.cpp         names: interning, the name maps, references
//                            used before their declaration
//   reader_values.cpp        scalar values, literals, scalar expressions
//   reader_document.cpp      the top-level object and the small sections
//                            (format, era, provenance, meshes, inputs, outputs,
//                            seed, tolerance)
//   reader_scalars.cpp       "scalars"
//   reader_tensors.cpp       "tensors"
//   reader_axes.cpp          a tensor's domains, axes and transforms
//   reader_exprs.cpp         "exprs"
//   reader_concrete.cpp      "concrete_inputs"
//   reader_segmentation.cpp  "segmentation"
//   reader_chunks.cpp        reading a large array in chunks on several threads
//   reader_merge.cpp         merging the chunks into one Fusion
//   reader_finish.cpp        the second phase: references, ranges, cycles
//
// Design: one forward pass of simdjson On-Demand over the text builds the
// Fusion directly (no DOM). Object fields are visited in document order;
// unknown and duplicate keys are detected per object with a bitmask. Names
// may be used before they are declared: such references get a placeholder
// id (high bit set) and are patched in a second, linear phase; axis
// references inside a tensor are resolved when the tensor's object ends. The
// only recursion is the fixed nesting of the format (top level > tensor >
// domain > axis), so the depth of our own stack never depends on the input;
// simdjson skips unread values iteratively. In a large text the elements of
// "tensors", "exprs" and "concrete_inputs" are read in chunks on several
// threads by the same code that reads them on one (reader_chunks.cpp); the
// result is the one-thread result. Those arrays, and "scalars" (whose
// declarations are read on every thread when they are plain), are found
// first by io/json_split on every core, and the forward pass then iterates
// only the skeleton (the text without their elements), whose offsets map
// back to the text's; anything but a clean read of a split text reads the
// text itself again.
//
// Cost: O(bytes) for the pass, O(entities) for the patch phase (skipped when
// nothing was used before its declaration). No std::string is built per
// value on the success path (names are interned once; JSON pointers are
// built only when a diagnostic is reported). On any error, json_validate
// re-scans the text to classify JSON-level problems and json_locate maps
// pointers to line:col; neither runs for valid files.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/reader.h"
#include "io/reader_cursor.h"
#include "io/scalar_expr.h"
#include "support/internal_error.h"

namespace fc::reader_detail {

// A reference used before its declaration: this bit and an index into the
// reader's pending references (patched by finish()).
constexpr uint32_t kPending = 0x80000000u;
// In a chunk reader (parallel reading, see reader_chunks.cpp), a scalar id
// with this bit names the primary's scalar; one without it a scalar of the
// chunk.
constexpr uint32_t kGlobal = 0x40000000u;

inline bool isPending(uint32_t id) { return id != kNone && (id & kPending) != 0; }

// The arrays that a large text's split hands to the chunk readers, in
// Chunked order, and "scalars".
inline constexpr std::array<std::string_view, 4> kSplitKeys = {"tensors", "exprs", "concrete_inputs",
                                                               "scalars"};
constexpr size_t kScalarsSplit = 3;  // not read by the chunk readers (readSplitScalars)
enum class Chunked { Tensors, Exprs, Concrete };

// What a name reference may name.
enum class Want : uint8_t { Tensor, Scalar, Either };

// Where an axis reference inside a tensor lives, to patch it at the
// tensor's end.
enum class Slot : uint8_t { Root, Logical, Allocation, Loop, TrIn, TrOuter, TrInner, TrOut };

class Reader final : public Cursor, public ScalarNameResolver {
 public:
  Reader(const SourceText& src, DiagnosticSink& sink, const ReadOptions& opts, bool allow_split = true)
      : Cursor(src, sink),
        opts_(opts),
        allow_split_(allow_split),
        tensor_of_name_(own_tensor_of_name_),
        scalar_of_name_(own_scalar_of_name_) {}
  // A chunk reader of `primary` (readInChunks).
  struct ChunkOf {};
  Reader(Reader& primary, ChunkOf)
      : Cursor(primary.src_, primary.sink_),
        opts_(primary.opts_),
        base_(primary.base_),
        capacity_(primary.capacity_),
        primary_(&primary),
        tensor_of_name_(primary.own_tensor_of_name_),
        scalar_of_name_(primary.own_scalar_of_name_) {
    doc_base_ = primary.base_;
    silence();
  }

  // Reads the text: the Fusion, or nullopt after reporting why not.
  std::optional<Fusion> run();

  // ---- ScalarNameResolver (reader_names.cpp)
  std::optional<ScalarId> scalar(std::string_view name) override;
  std::optional<TensorId> tensor(std::string_view name) override;
  std::optional<DType> dtypeOf(ScalarId s) const override;

 private:
  struct Pending {
    NameId name;
    Want want;
    std::string pointer;
    uint32_t resolved = kNone;
    bool is_tensor = false;
  };
  struct AxisRef {
    uint32_t number;
    Slot slot;
    uint32_t index;  // position in the domain, or transform index
  };
  // The tensor being read: its axes by number, and the references to them.
  struct TensorCtx {
    TensorId id = 0;
    size_t index = 0;
    std::vector<std::pair<uint32_t, AxisId>> defs;  // axis number -> axis
    std::vector<AxisRef> refs;
    std::vector<AxisId> domain;  // readDomain's buffer
    void reset(TensorId t, size_t i) {
      id = t;
      index = i;
      defs.clear();
      refs.clear();
    }
  };
  using Chunks = std::vector<std::unique_ptr<Reader>>;

  // ---- names (reader_names.cpp)
  void growNames();
  NameId internName(std::string_view s);  // inline, below
  ScalarId globalScalar(ScalarId s) const { return primary_ != nullptr ? s | kGlobal : s; }
  uint32_t addPending(NameId n, Want w);
  // What name `n` refers to now, or a pending reference to it.
  ValueRef refByName(NameId n, Want w) {
    if (w != Want::Scalar && tensor_of_name_[n] != kNone) return ValueRef::tensor(tensor_of_name_[n]);
    if (w != Want::Tensor && scalar_of_name_[n] != kNone)
      return ValueRef::scalar(globalScalar(scalar_of_name_[n]));
    uint32_t p = addPending(n, w);
    return w == Want::Scalar ? ValueRef::scalar(p) : ValueRef::tensor(p);
  }
  // A name reference (tensor, scalar, or either).
  bool readNameRef(sj::value& v, Want w, ValueRef& out);
  // An array of name references: push(ValueRef) for each.
  template <class F>
  bool readNameRefArray(sj::value& v, Want w, F&& push);

  // The elements of array `a` (its '[' at `open`), each read by element(index, value) and
  // recorded; before them, reserve(n) with their count n when there are some.
  template <class Reserve, class F>
  void readArrayElements(sj::array& a, size_t open, Reserve&& reserve, F&& element);
  // readArrayElements of a top-level array of `what` that this reader reads (readsHere).
  template <class Reserve, class F>
  void readTopArray(sj::value& v, Chunked what, Reserve&& reserve, F&& element);
  // A node's "name", `a_name` ("a tensor name"): a string that isScalarName accepts. False after
  // reporting why not: a value that is no string, or `code` "\"<name>\" is not a valid tensor name
  // (letters, digits and _, not a reserved word<reserved>)".
  bool readNodeName(sj::value& v, std::string_view& name, std::string_view a_name, DiagCode code,
                    std::string_view reserved);  // reader_scalars.cpp

  // ---- values (reader_values.cpp)
  ScalarId constScalar(const ConstValue& c, DType int_dtype);
  ScalarId readScalar(sj::value& v, DType int_dtype, bool fresh_root = false);
  ScalarId parseExpr(std::string_view s, DType int_dtype, bool fresh_root);
  bool readLiteral(sj::value& v, ConstValue& out);
  template <class F>
  bool readIntArray(sj::value& v, int64_t lo, int64_t hi, std::string_view what, F&& push);
  template <class F>
  bool readScalarArray(sj::value& v, DType int_dtype, F&& push);

  // ---- the top level and its small sections (reader_document.cpp)
  void readDocument(sj::document& doc);
  void readProvenance(sj::value& v);
  void readMeshes(sj::value& v);
  void readTolerance(sj::value& v);

  // ---- "scalars" (reader_scalars.cpp)
  void readScalars(sj::value& v);
  bool readScalarElement(size_t i, sj::value& x);
  void readSplitScalars(size_t open, const std::vector<std::string_view>& spans);
  bool readPlainScalars(const std::vector<std::string_view>& spans);
  bool plainScalar(sj::parser& parser, std::string_view text, std::string_view& name, DType& dtype);

  // ---- "tensors" (reader_tensors.cpp) and their axes (reader_axes.cpp)
  void readTensors(sj::value& v);
  // The tensor being read. A chunk reader writes straight into its primary's
  // array, sized beforehand (element i is tensor i): no tensor is moved.
  Tensor& tensorAt(TensorId t) { return primary_ != nullptr ? primary_->f_.tensors[t] : f_.tensors[t]; }
  bool readTensor(size_t i, sj::value& x);
  AxisId readAxisEntry(sj::value& v, Slot slot, uint32_t index);
  std::vector<AxisId>& domainOf(Slot s);
  void readDomain(sj::value& v, Slot slot);
  void readTransforms(sj::value& v);
  bool resolveAxisRefs();

  // ---- "exprs" (reader_exprs.cpp)
  void readExprs(sj::value& v);
  bool readExpr(size_t i, sj::value& x);
  bool readOperand(sj::value& v, std::vector<ValueRef>& out);

  // ---- "concrete_inputs" (reader_concrete.cpp)
  void readConcrete(sj::value& v);
  bool readConcreteInput(size_t i, sj::value& x);

  // ---- "segmentation" (reader_segmentation.cpp)
  void readSegmentation(sj::value& v);
  // readObject of an object whose values are strings: fn(key index, string) for each.
  template <size_t N, class F>
  bool readStringObject(sj::value& v, const std::array<std::string_view, N>& keys, uint32_t& seen,
                        F&& fn);                                     // reader_origin.cpp
  void readOrigin(sj::value& v);                                     // reader_origin.cpp
  void readKeywordUses(sj::value& v, std::vector<KeywordUse>& out);  // reader_origin.cpp
  void readRecordedPoint(sj::value& v);                              // reader_origin.cpp
  void readSource(sj::value& v);                                     // reader_origin.cpp
  void finishSource();                                               // reader_origin.cpp

  // ---- chunks (reader_chunks.cpp)
  bool readsHere(sj::value& v, Chunked what, sj::array& a, size_t& open);
  void sizeArena(Chunked what, size_t n);
  void startArenas();
  size_t splitCount(Chunked what) const;
  bool arenaFree(Chunked what) const;
  bool parallelReady(bool empty_arena) const;
  void giveUpParallel();
  void giveUpSplit();
  const jsonsplit::SplitArray* splitAt(size_t open) const;
  // An element span of the text as a padded view: what follows it inside
  // the padded text is padding enough.
  simdjson::padded_string_view spanView(std::string_view t) const {
    const auto at = reinterpret_cast<uintptr_t>(t.data()), base = reinterpret_cast<uintptr_t>(base_);
    FC_CHECK(at >= base && at + t.size() <= base + capacity_,
             "a span handed to the JSON parser lies outside the padded text it is measured in");
    return simdjson::padded_string_view(t.data(), t.size(),
                                        capacity_ - static_cast<size_t>(t.data() - base_));
  }
  // Parses an element span as a document of its own; false when simdjson
  // refuses it.
  bool iterateSpan(sj::parser& parser, std::string_view span, sj::document& doc,
                   sj::value& x) const;  // inline, below
  void readInChunks(sj::array& a, size_t open, Chunked what);
  void readSpansInChunks(const std::vector<std::string_view>& spans, ArrayRecord& record, Chunked what);
  void readChunk(const std::vector<std::string_view>& spans, size_t lo, size_t hi, Chunked what);

  // ---- merging the chunks (reader_merge.cpp)
  void appendChunkScalars(Chunks& chunks, std::vector<size_t>& base);
  size_t chunkScalarBases(Chunks& chunks, std::vector<size_t>& base) const;
  void copyChunkScalars(Fusion& c, size_t base);
  void mergeTensors(Chunks& chunks);
  void mergeTensorNames(Chunks& chunks);
  void mergeExprs(Chunks& chunks);
  void mergeConcrete(Chunks& chunks);

  // ---- the second phase (reader_finish.cpp)
  void finish();
  void patchPending();
  void checkScalarCycles();

  ReadOptions opts_;
  Fusion f_;
  const char* base_ = nullptr;
  size_t capacity_ = 0;  // readable bytes from base_ (the text and its padding)
  bool allow_split_ = true;
  jsonsplit::Split split_;     // the split of a large text's arrays (skeleton_ is the rest)
  bool reread_whole_ = false;  // the split text did not read cleanly: read the text itself
  unsigned threads_ = 1;
  bool restart_ = false;       // the parallel read gave up: read again on one thread
  Reader* primary_ = nullptr;  // set in a chunk reader: whose names it looks up
  std::vector<uint32_t> own_tensor_of_name_, own_scalar_of_name_;
  // NameId -> tensor / scalar: the reader's own maps; a chunk reader's refer
  // to its primary's, which it only reads.
  std::vector<uint32_t>& tensor_of_name_;
  std::vector<uint32_t>& scalar_of_name_;
  std::vector<Pending> pending_;
  TensorCtx ctx_;
  // A chunk reader's tensor names, in order (merged by mergeTensors).
  std::string chunk_names_;
  std::vector<size_t> chunk_name_ends_;
  size_t chunk_lo_ = 0, chunk_hi_ = 0;  // a chunk reader's elements
  // One more than the largest mesh index a tensor names (0: none names
  // one): finish() checks the tensors' mesh ranges only when it exceeds the
  // meshes, instead of reading every tensor again.
  uint32_t mesh_bound_ = 0;
  // "source"'s scalar positions, by index in "scalars" (finishSource maps them to ids).
  std::vector<LineCol> source_scalars_;
  // The tensor, expr and concrete-input arrays of a split text, sized on
  // threads of their own (startArenas); declared after f_, so that they
  // are waited for before f_ goes.
  std::array<std::future<void>, 3> arenas_;
};

inline bool Reader::iterateSpan(sj::parser& parser, std::string_view span, sj::document& doc,
                                sj::value& x) const {
  return parser.iterate(spanView(span)).get(doc) == simdjson::SUCCESS &&
         doc.get_value().get(x) == simdjson::SUCCESS;
}

// Interning on the hot path: Interner is an open-addressing table over
// chunked character storage (support/interner.h).
inline NameId Reader::internName(std::string_view s) {
  if (primary_ != nullptr) {
    // A chunk only looks names up; a name the primary has not interned
    // would be interned now by the sequential reader, in document order.
    NameId id = primary_->f_.names.find(s);
    if (id == kNoName || id >= tensor_of_name_.size()) {
      fatal_ = true;
      return 0;  // the maps have an entry 0 (readInChunks); the chunk is dropped
    }
    return id;
  }
  NameId id = f_.names.intern(s);
  if (id >= tensor_of_name_.size()) growNames();
  return id;
}

template <class F>
bool Reader::readNameRefArray(sj::value& v, Want w, F&& push) {
  return eachElementOf(v, [&](size_t, sj::value& x) {
    ValueRef r;
    if (!readNameRef(x, w, r)) return false;
    push(r);
    return true;
  });
}

template <class Reserve, class F>
void Reader::readArrayElements(sj::array& a, size_t open, Reserve&& reserve, F&& element) {
  size_t n = countElements(a);
  if (n > 0) reserve(n);
  eachRecordedElement(a, open, n, element);
}

template <class Reserve, class F>
void Reader::readTopArray(sj::value& v, Chunked what, Reserve&& reserve, F&& element) {
  sj::array a;
  size_t open = 0;
  if (readsHere(v, what, a, open)) readArrayElements(a, open, reserve, element);
}

template <class F>
bool Reader::readIntArray(sj::value& v, int64_t lo, int64_t hi, std::string_view what, F&& push) {
  return eachElementOf(v, [&](size_t, sj::value& x) {
    int64_t n = 0;
    if (!getInt(x, n, lo, hi, what)) return false;
    push(n);
    return true;
  });
}

template <class F>
bool Reader::readScalarArray(sj::value& v, DType int_dtype, F&& push) {
  return eachElementOf(v, [&](size_t, sj::value& x) {
    ScalarId s = readScalar(x, int_dtype);
    if (s == kNone) return false;
    push(s);
    return true;
  });
}

}  // namespace fc::reader_detail
