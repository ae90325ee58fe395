// The repro reader (see reader.h; the format is docs/format.md).
//
// One forward pass of simdjson On-Demand over the text builds the Fusion
// directly (no DOM). Object fields are visited in document order; unknown
// and duplicate keys are detected per object with a bitmask. Names may be
// used before they are declared: such references get a placeholder id (high
// bit set) and are patched in a second, linear phase; axis references inside
// a tensor are resolved when the tensor's object ends. The only recursion is
// the fixed nesting of the format (top level > tensor > domain > axis), so
// the depth of our own stack never depends on the input.
//
// Cost: O(bytes) for the pass, O(entities) for the patch phase (skipped when
// nothing was used before its declaration). No std::string is built per
// value on the success path (names are interned once; JSON pointers are
// built only when a diagnostic is reported). On any error, json_validate
// re-scans the text to classify JSON-level problems and json_locate maps
// pointers to line:col; neither runs for valid files.
#include "io/reader.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "io/json_locate.h"
#include "io/json_scan.h"
#include "io/json_validate.h"
#include "io/scalar_expr.h"
#include "support/internal_error.h"

namespace fc {
namespace {

namespace sj = simdjson::ondemand;

constexpr uint32_t kPending = 0x80000000u;
constexpr size_t kMaxErrors = 100;
constexpr std::string_view kFormat = "fusecheck.fusion/1";

bool isPending(uint32_t id) { return id != kNone && (id & kPending) != 0; }

template <size_t N>
int keyIndex(std::string_view k, const std::array<std::string_view, N>& keys) {
  for (size_t i = 0; i < N; ++i)
    if (keys[i] == k) return static_cast<int>(i);
  return -1;
}

constexpr std::array<std::string_view, 14> kTopKeys = {
    "format", "name",   "era",     "provenance",      "meshes", "scalars",   "tensors",
    "exprs",  "inputs", "outputs", "concrete_inputs", "seed",   "tolerance", "segmentation"};
enum TopKey {
  kFormatK,
  kNameK,
  kEraK,
  kProvK,
  kMeshesK,
  kScalarsK,
  kTensorsK,
  kExprsK,
  kInputsK,
  kOutputsK,
  kConcreteK,
  kSeedK,
  kTolK,
  kSegK
};

constexpr std::array<std::string_view, 2> kMeshKeys = {"shape", "devices"};
constexpr std::array<std::string_view, 3> kScalarKeys = {"name", "dtype", "value"};
constexpr std::array<std::string_view, 10> kTensorKeys = {
    "name", "dtype", "memory", "mesh", "root", "logical", "allocation", "contiguity", "loop", "transforms"};
enum TensorKey {
  kTName,
  kTDType,
  kTMemory,
  kTMesh,
  kTRoot,
  kTLogical,
  kTAlloc,
  kTContig,
  kTLoop,
  kTTransforms
};
constexpr std::array<std::string_view, 6> kAxisKeys = {"id",     "iter",     "parallel",
                                                       "extent", "expanded", "rfactor"};
constexpr std::array<std::string_view, 7> kTransformKeys = {"op",    "in",    "factor", "inner_split",
                                                            "outer", "inner", "out"};
// Expr keys: op, inputs, outputs, then the attributes in Attr bit order.
constexpr std::array<std::string_view, 16> kExprKeys = {
    "op",     "inputs", "outputs", "dtype", "approximate", "flags",      "shape", "dims",
    "ranges", "pad",    "value",   "dim",   "keepdim",     "correction", "start", "step"};
constexpr int kFirstAttrKey = 3;
constexpr std::array<std::string_view, 3> kRangeKeys = {"start", "stop", "step"};
constexpr std::array<std::string_view, 4> kConcreteKeys = {"input", "shape", "strides", "value"};
constexpr std::array<std::string_view, 2> kTolKeys = {"rtol", "atol"};
constexpr std::array<std::string_view, 4> kSegKeys = {"segments", "input_rewrite", "forward",
                                                      "applied_fixes"};
constexpr std::array<std::string_view, 2> kSegmentKeys = {"exprs", "scheduler"};
constexpr std::array<std::string_view, 2> kForwardKeys = {"segment", "symbol"};

// Where an axis reference inside a tensor lives, to patch it at the
// tensor's end.
enum class Slot : uint8_t { Root, Logical, Allocation, Loop, TrIn, TrOuter, TrInner, TrOut };

struct PathSeg {
  std::string_view key;
  size_t index = 0;
  bool is_index = false;
};

class Reader final : public ScalarNameResolver {
 public:
  Reader(const SourceText& src, DiagnosticSink& sink) : src_(src), sink_(sink) {}

  std::optional<Fusion> run() {
    size_t first_diag = sink_.all().size();
    const std::string& text = src_.text();
    simdjson::padded_string copy;
    simdjson::padded_string_view view;
    if (text.capacity() >= text.size() + simdjson::SIMDJSON_PADDING) {
      view = simdjson::padded_string_view(text.data(), text.size(), text.capacity());
    } else {
      copy = simdjson::padded_string(text.data(), text.size());
      view = copy;
    }
    base_ = view.data();
    sj::parser parser;
    sj::document doc;
    if (auto e = parser.iterate(view).get(doc)) {
      fatal(e);
    } else {
      readDocument(doc);
    }
    if (!fatal_ && errors_ == 0) finish();

    if (fatal_ || errors_ > 0) {
      // JSON-level problems take precedence over what we made of the text.
      if (auto p = validateJson(text)) {
        sink_.all().resize(first_diag);
        Diagnostic& d = sink_.error(p->code, p->message, Location{src_.path(), p->pointer});
        LineCol lc = src_.lineCol(p->offset);
        d.loc.line = lc.line;
        d.loc.col = lc.col;
      } else if (fatal_ && sink_.all().size() == first_diag) {
        // simdjson refused something the validator accepts: report it as is.
        sink_.error(DiagCode::JsonSyntax, "the JSON text cannot be read: " + fatal_message_,
                    Location{src_.path(), fatal_pointer_});
      }
      std::vector<Diagnostic> mine(sink_.all().begin() + static_cast<std::ptrdiff_t>(first_diag),
                                   sink_.all().end());
      fillLocations(mine, src_);
      std::copy(mine.begin(), mine.end(), sink_.all().begin() + static_cast<std::ptrdiff_t>(first_diag));
      return std::nullopt;
    }
    return std::move(f_);
  }

  // ---- ScalarNameResolver ----
  std::optional<ScalarId> scalar(std::string_view name) override {
    NameId n = f_.names.intern(name);
    growNames();
    if (scalar_of_name_[n] != kNone) return scalar_of_name_[n];
    return addPending(n, Want::Scalar);
  }
  std::optional<TensorId> tensor(std::string_view name) override {
    NameId n = f_.names.intern(name);
    growNames();
    if (tensor_of_name_[n] != kNone) return tensor_of_name_[n];
    return addPending(n, Want::Tensor);
  }

 private:
  enum class Want : uint8_t { Tensor, Scalar, Either };
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

  // ------------------------------------------------------------ plumbing
  class PathGuard {
   public:
    PathGuard(std::vector<PathSeg>& p, std::string_view key) : p_(p) { p_.push_back(PathSeg{key, 0, false}); }
    PathGuard(std::vector<PathSeg>& p, size_t index) : p_(p) { p_.push_back(PathSeg{{}, index, true}); }
    ~PathGuard() { p_.pop_back(); }
    PathGuard(const PathGuard&) = delete;
    PathGuard& operator=(const PathGuard&) = delete;

   private:
    std::vector<PathSeg>& p_;
  };

  std::string pointer() const {
    JsonPointer p;
    for (const PathSeg& s : path_) p = s.is_index ? p.index(s.index) : p.key(s.key);
    return p.str();
  }

  bool stop() const { return fatal_ || errors_ >= kMaxErrors; }

  Diagnostic* error(DiagCode code, std::string msg) { return errorAt(code, std::move(msg), pointer()); }
  Diagnostic* errorAt(DiagCode code, std::string msg, std::string ptr) {
    if (errors_ >= kMaxErrors) return nullptr;
    ++errors_;
    Diagnostic& d = sink_.error(code, std::move(msg), Location{src_.path(), std::move(ptr)});
    if (errors_ == kMaxErrors) d.note("too many errors; reading stopped here");
    return &d;
  }

  void fatal(simdjson::error_code e) {
    if (fatal_) return;
    fatal_ = true;
    fatal_message_ = simdjson::error_message(e);
    fatal_pointer_ = pointer();
  }

  // Classifies a simdjson error on reading a value: false when reading
  // stopped (a reported error), true never (callers return on false).
  bool typeError(simdjson::error_code e, std::string_view expected) {
    if (e == simdjson::INCORRECT_TYPE) {
      error(DiagCode::WrongType, "expected " + std::string(expected));
    } else if (e == simdjson::NUMBER_OUT_OF_RANGE) {
      error(DiagCode::NumberOutOfRange, "the number is out of range for " + std::string(expected));
    } else {
      fatal(e);
    }
    return false;
  }

  void growNames() {
    if (tensor_of_name_.size() < f_.names.size()) {
      tensor_of_name_.resize(f_.names.size(), kNone);
      scalar_of_name_.resize(f_.names.size(), kNone);
    }
  }

  uint32_t addPending(NameId n, Want w) {
    pending_.push_back(Pending{n, w, pointer()});
    return kPending | static_cast<uint32_t>(pending_.size() - 1);
  }

  // ------------------------------------------------------------ typed getters
  std::string_view jsonTypeName(sj::json_type t) {
    switch (t) {
      case sj::json_type::array: return "an array";
      case sj::json_type::object: return "an object";
      case sj::json_type::number: return "a number";
      case sj::json_type::string: return "a string";
      case sj::json_type::boolean: return "a boolean";
      case sj::json_type::null: return "null";
    }
    return "a value";
  }

  bool getType(sj::value& v, sj::json_type& t) {
    if (auto e = v.type().get(t)) {
      fatal(e);
      return false;
    }
    return true;
  }

  bool wrongType(sj::value& v, std::string_view expected) {
    sj::json_type t;
    if (!getType(v, t)) return false;
    error(DiagCode::WrongType,
          "expected " + std::string(expected) + ", found " + std::string(jsonTypeName(t)));
    return false;
  }

  bool getString(sj::value& v, std::string_view& out, std::string_view what = "a string") {
    sj::json_type t;
    if (!getType(v, t)) return false;
    if (t != sj::json_type::string) return wrongType(v, what);
    if (auto e = v.get_string().get(out)) return typeError(e, what);
    return true;
  }

  bool getBool(sj::value& v, bool& out) {
    sj::json_type t;
    if (!getType(v, t)) return false;
    if (t != sj::json_type::boolean) return wrongType(v, "true or false");
    if (auto e = v.get_bool().get(out)) return typeError(e, "true or false");
    return true;
  }

  // Integer: exact, within [lo, hi]; non-integers are FC0012, others FC0021.
  bool getInt(sj::value& v, int64_t& out, int64_t lo, int64_t hi, std::string_view what) {
    sj::json_type t;
    if (!getType(v, t)) return false;
    if (t != sj::json_type::number) return wrongType(v, what);
    std::string_view raw = trimmedToken(v);
    size_t end = 0;
    if (jsonscan::scanNumber(raw, 0, end) != jsonscan::NumStatus::Ok || end != raw.size()) {
      fatal(simdjson::NUMBER_ERROR);
      return false;
    }
    if (raw.find_first_of(".eE") != std::string_view::npos) {
      error(DiagCode::WrongType, "expected " + std::string(what) + ", found a non-integer number");
      return false;
    }
    bool oor = false;
    auto c = parseScalarLiteral(raw, &oor);
    if (!c || c->kind != ConstValue::Kind::Int || c->i < lo || c->i > hi) {
      if (c && c->kind == ConstValue::Kind::Int && c->i < 0 && lo >= 0)
        error(DiagCode::NumberOutOfRange, "expected " + std::string(what) + ", found a negative number");
      else
        error(DiagCode::NumberOutOfRange, std::string(raw) + " is out of range for " + std::string(what));
      return false;
    }
    out = c->i;
    return true;
  }

  std::string_view trimmedToken(sj::value& v) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() && jsonscan::isWs(raw.back())) raw.remove_suffix(1);
    return raw;
  }

  bool getArray(sj::value& v, sj::array& a, std::string_view what = "an array") {
    sj::json_type t;
    if (!getType(v, t)) return false;
    if (t != sj::json_type::array) return wrongType(v, what);
    if (auto e = v.get_array().get(a)) return typeError(e, what);
    return true;
  }

  bool getObject(sj::value& v, sj::object& o, std::string_view what = "an object") {
    sj::json_type t;
    if (!getType(v, t)) return false;
    if (t != sj::json_type::object) return wrongType(v, what);
    if (auto e = v.get_object().get(o)) return typeError(e, what);
    return true;
  }

  // Iterates an array; fn(index, value) returns false to stop.
  template <class F>
  bool eachElement(sj::array& a, F&& fn) {
    size_t i = 0;
    for (auto r : a) {
      sj::value v;
      if (auto e = std::move(r).get(v)) {
        fatal(e);
        return false;
      }
      PathGuard g(path_, i);
      if (!fn(i, v) && stop()) return false;
      if (stop()) return false;
      ++i;
    }
    return !stop();
  }

  // Iterates an object's fields against a key table; fn(key index, value).
  template <size_t N, class F>
  bool eachField(sj::object& o, const std::array<std::string_view, N>& keys, uint32_t& seen, F&& fn) {
    static_assert(N <= 32);
    for (auto r : o) {
      sj::field field;
      if (auto e = std::move(r).get(field)) {
        fatal(e);
        return false;
      }
      const char* raw_key = field.key().raw();
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) {
        fatal(e);
        return false;
      }
      PathGuard g(path_, key);
      int idx = keyIndex(key, keys);
      if (idx < 0) {
        error(DiagCode::UnknownKey, "unknown key \"" + std::string(key) + "\"" + keyHint(keys));
      } else if (seen & (1u << idx)) {
        if (Diagnostic* d = error(DiagCode::DuplicateKey, "duplicate key \"" + std::string(key) + "\"")) {
          LineCol lc = src_.lineCol(static_cast<size_t>(raw_key - base_) - 1);
          d->loc.line = lc.line;
          d->loc.col = lc.col;
        }
      } else {
        seen |= 1u << idx;
        sj::value v = field.value();
        fn(idx, v);
      }
      if (stop()) return false;
    }
    return !stop();
  }

  template <size_t N>
  static std::string keyHint(const std::array<std::string_view, N>& keys) {
    std::string s = " (expected one of:";
    for (auto k : keys) {
      s += ' ';
      s += k;
    }
    return s + ")";
  }

  template <size_t N>
  bool requireKeys(uint32_t seen, const std::array<std::string_view, N>& keys,
                   std::initializer_list<int> req) {
    bool ok = true;
    for (int k : req)
      if (!(seen & (1u << k))) {
        error(DiagCode::MissingKey, "missing required key \"" + std::string(keys[k]) + "\"");
        ok = false;
      }
    return ok;
  }

  // ------------------------------------------------------------ scalars
  ScalarId constScalar(const ConstValue& c, DType int_dtype) {
    if (c.kind == ConstValue::Kind::Float) return f_.addConstFloat(c.f, DType::Double);
    if (c.kind == ConstValue::Kind::Bool) return f_.addConstBool(c.i != 0);
    return f_.addConstInt(c.i, int_dtype);
  }

  // A scalar value: JSON number / boolean, or an expression string.
  ScalarId readScalar(sj::value& v, DType int_dtype, bool fresh_root = false) {
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
      std::string_view raw = trimmedToken(v);
      size_t end = 0;
      if (jsonscan::scanNumber(raw, 0, end) != jsonscan::NumStatus::Ok || end != raw.size()) {
        fatal(simdjson::NUMBER_ERROR);
        return kNone;
      }
      if (raw.find_first_of(".eE") != std::string_view::npos) {
        double d = 0;
        if (auto e = v.get_double().get(d)) {
          if (e == simdjson::NUMBER_ERROR || e == simdjson::NUMBER_OUT_OF_RANGE)
            error(DiagCode::NumberOutOfRange,
                  std::string(raw) + " does not fit a double (write \"inf\" instead)");
          else
            fatal(e);
          return kNone;
        }
        return f_.addConstFloat(d, DType::Double);
      }
      bool oor = false;
      auto c = parseScalarLiteral(raw, &oor);
      if (!c) {
        error(DiagCode::NumberOutOfRange, std::string(raw) + " does not fit in a 64-bit signed integer");
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

  ScalarId parseExpr(std::string_view s, DType int_dtype, bool fresh_root) {
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
  bool readLiteral(sj::value& v, ConstValue& out) {
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
            error(DiagCode::NumberOutOfRange, std::string(text) + " does not fit a double");
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
        error(DiagCode::NumberOutOfRange, std::string(text) + " does not fit in a 64-bit signed integer");
      else
        error(DiagCode::BadScalarExpr, "\"" + std::string(text) + "\" is not a constant");
      return false;
    }
    out = *c;
    return true;
  }

  template <class F>
  bool readIntArray(sj::value& v, int64_t lo, int64_t hi, std::string_view what, F&& push) {
    sj::array a;
    if (!getArray(v, a)) return false;
    return eachElement(a, [&](size_t, sj::value& x) {
      int64_t n = 0;
      if (!getInt(x, n, lo, hi, what)) return false;
      push(n);
      return true;
    });
  }

  template <class F>
  bool readScalarArray(sj::value& v, DType int_dtype, F&& push) {
    sj::array a;
    if (!getArray(v, a)) return false;
    return eachElement(a, [&](size_t, sj::value& x) {
      ScalarId s = readScalar(x, int_dtype);
      if (s == kNone) return false;
      push(s);
      return true;
    });
  }

  // A name reference (tensor, scalar, or either).
  bool readNameRef(sj::value& v, Want w, ValueRef& out) {
    std::string_view s;
    if (!getString(v, s, "a name")) return false;
    if (!isScalarName(s)) {
      error(w == Want::Scalar ? DiagCode::DanglingScalar : DiagCode::DanglingTensor,
            "\"" + std::string(s) + "\" is not a name");
      return false;
    }
    NameId n = f_.names.intern(s);
    growNames();
    if (w != Want::Scalar && tensor_of_name_[n] != kNone) {
      out = ValueRef::tensor(tensor_of_name_[n]);
    } else if (w != Want::Tensor && scalar_of_name_[n] != kNone) {
      out = ValueRef::scalar(scalar_of_name_[n]);
    } else {
      uint32_t p = addPending(n, w);
      out = w == Want::Scalar ? ValueRef::scalar(p) : ValueRef::tensor(p);
    }
    return true;
  }

  // ------------------------------------------------------------ document
  void readDocument(sj::document& doc) {
    sj::object root;
    {
      sj::json_type t;
      if (auto e = doc.type().get(t)) return fatal(e);
      if (t != sj::json_type::object) {
        error(DiagCode::WrongType, "the repro must be a JSON object, found " + std::string(jsonTypeName(t)));
        return;
      }
      if (auto e = doc.get_object().get(root)) return fatal(e);
    }
    uint32_t seen = 0;
    eachField(root, kTopKeys, seen, [&](int k, sj::value& v) {
      switch (k) {
        case kFormatK: {
          std::string_view s;
          if (!getString(v, s)) return;
          if (s != kFormat) {
            error(DiagCode::FormatVersion, "unsupported format \"" + std::string(s) +
                                               "\" (this fusecheck reads \"" + std::string(kFormat) + "\")");
            fatal_ = true;  // nothing else is meaningful in another format
            fatal_message_ = "format";
            return;
          }
          return;
        }
        case kNameK: {
          std::string_view s;
          if (getString(v, s)) f_.name = std::string(s);
          return;
        }
        case kEraK: {
          std::string_view s;
          if (!getString(v, s)) return;
          if (auto e = parseEra(s))
            f_.era = *e;
          else
            error(DiagCode::BadEnum,
                  "unknown era \"" + std::string(s) + "\" (expected 2024-06, 2024-07 or head)");
          return;
        }
        case kProvK: return readProvenance(v);
        case kMeshesK: return readMeshes(v);
        case kScalarsK: return readScalars(v);
        case kTensorsK: return readTensors(v);
        case kExprsK: return readExprs(v);
        case kInputsK: {
          sj::array a;
          if (!getArray(v, a)) return;
          eachElement(a, [&](size_t, sj::value& x) {
            ValueRef r;
            if (!readNameRef(x, Want::Either, r)) return false;
            f_.inputs.push_back(r);
            return true;
          });
          return;
        }
        case kOutputsK: {
          sj::array a;
          if (!getArray(v, a)) return;
          eachElement(a, [&](size_t, sj::value& x) {
            ValueRef r;
            if (!readNameRef(x, Want::Tensor, r)) return false;
            f_.outputs.push_back(r.id);
            return true;
          });
          return;
        }
        case kConcreteK: return readConcrete(v);
        case kSeedK: {
          sj::json_type t;
          if (!getType(v, t)) return;
          if (t != sj::json_type::number) {
            wrongType(v, "an unsigned integer");
            return;
          }
          uint64_t u = 0;
          if (auto e = v.get_uint64().get(u)) {
            std::string_view raw = trimmedToken(v);
            if (raw.find_first_of(".eE") != std::string_view::npos)
              error(DiagCode::WrongType, "expected an unsigned integer, found a non-integer number");
            else if (!raw.empty() && raw[0] == '-')
              error(DiagCode::NumberOutOfRange, "the seed must not be negative");
            else
              typeError(e, "an unsigned 64-bit integer");
            return;
          }
          f_.seed = u;
          return;
        }
        case kTolK: return readTolerance(v);
        case kSegK: return readSegmentation(v);
      }
    });
    if (stop()) return;
    if (!(seen & (1u << kFormatK))) {
      errorAt(DiagCode::FormatVersion, "missing \"format\" (expected \"" + std::string(kFormat) + "\")", "");
      return;
    }
    requireKeys(seen, kTopKeys, {kTensorsK, kExprsK, kInputsK, kOutputsK});
    if (stop()) return;
    auto loc = doc.current_location();
    if (loc.error() == simdjson::SUCCESS) {
      fatal(simdjson::TRAILING_CONTENT);
    }
  }

  void readProvenance(sj::value& v) {
    sj::object o;
    if (!getObject(v, o)) return;
    std::unordered_set<std::string_view> keys;
    for (auto r : o) {
      sj::field field;
      if (auto e = std::move(r).get(field)) return fatal(e);
      const char* raw_key = field.key().raw();
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return fatal(e);
      PathGuard g(path_, key);
      if (!keys.insert(key).second) {
        if (Diagnostic* d = error(DiagCode::DuplicateKey, "duplicate key \"" + std::string(key) + "\"")) {
          LineCol lc = src_.lineCol(static_cast<size_t>(raw_key - base_) - 1);
          d->loc.line = lc.line;
          d->loc.col = lc.col;
        }
        if (stop()) return;
        continue;
      }
      std::string_view s;
      if (getString(field.value(), s)) f_.provenance.emplace_back(std::string(key), std::string(s));
      if (stop()) return;
    }
  }

  void readMeshes(sj::value& v) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t, sj::value& x) {
      sj::object o;
      if (!getObject(x, o)) return false;
      Mesh m;
      uint32_t seen = 0;
      eachField(o, kMeshKeys, seen, [&](int k, sj::value& y) {
        auto& dst = k == 0 ? m.shape : m.devices;
        readIntArray(y, k == 0 ? 0 : INT64_MIN, INT64_MAX, k == 0 ? "a mesh size" : "a device id",
                     [&](int64_t n) { dst.push_back(n); });
      });
      if (stop()) return false;
      requireKeys(seen, kMeshKeys, {0, 1});
      f_.meshes.push_back(std::move(m));
      return true;
    });
  }

  void readScalars(sj::value& v) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t i, sj::value& x) {
      sj::object o;
      if (!getObject(x, o)) return false;
      uint32_t seen = 0;
      std::string_view name;
      DType dtype = DType::Index;
      ScalarId value = kNone;
      bool bad = false;
      eachField(o, kScalarKeys, seen, [&](int k, sj::value& y) {
        if (k == 0) {
          if (!getString(y, name, "a scalar name")) {
            bad = true;
          } else if (!isScalarName(name)) {
            error(DiagCode::BadScalarExpr, "\"" + std::string(name) +
                                               "\" is not a valid scalar name (letters, digits and _, not a "
                                               "reserved word such as inf, nan, max, size)");
            bad = true;
          }
        } else if (k == 1) {
          std::string_view s;
          if (!getString(y, s)) {
            bad = true;
          } else if (auto d = parseDType(s)) {
            dtype = *d;
          } else {
            error(DiagCode::BadEnum, "unknown dtype \"" + std::string(s) + "\"");
            bad = true;
          }
        } else {
          value = readScalar(y, DType::Index, /*fresh_root=*/true);
          if (value == kNone) bad = true;
        }
      });
      if (stop()) return false;
      if (!requireKeys(seen, kScalarKeys, {0}) || bad) return false;
      ScalarId id = value;
      if (id == kNone) {
        id = f_.addSymbol(name, dtype);
      } else {
        Scalar& s = f_.scalars[id];
        s.name = f_.names.intern(name);
        s.dtype = dtype;
      }
      f_.scalars[id].decl = static_cast<uint32_t>(i);
      NameId n = f_.scalars[id].name;
      growNames();
      if (scalar_of_name_[n] == kNone) scalar_of_name_[n] = id;
      return true;
    });
  }

  // ------------------------------------------------------------ tensors
  struct TensorCtx {
    TensorId id = 0;
    size_t index = 0;
    std::vector<std::pair<uint32_t, AxisId>> defs;  // axis number -> axis
    std::vector<AxisRef> refs;
    void reset(TensorId t, size_t i) {
      id = t;
      index = i;
      defs.clear();
      refs.clear();
    }
  };

  void readTensors(sj::value& v) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t i, sj::value& x) {
      sj::object o;
      if (!getObject(x, o)) return false;
      auto tid = static_cast<TensorId>(f_.tensors.size());
      f_.tensors.emplace_back();
      ctx_.reset(tid, i);
      uint32_t seen = 0;
      std::string_view name;
      bool bad = false;
      eachField(o, kTensorKeys, seen, [&](int k, sj::value& y) {
        Tensor& t = f_.tensors[tid];
        switch (k) {
          case kTName:
            if (!getString(y, name, "a tensor name")) {
              bad = true;
            } else if (!isScalarName(name)) {
              error(DiagCode::WrongType, "\"" + std::string(name) +
                                             "\" is not a valid tensor name (letters, digits and _, not a "
                                             "reserved word)");
              bad = true;
            }
            return;
          case kTDType: {
            std::string_view s;
            if (!getString(y, s)) return;
            if (auto d = parseDType(s))
              t.dtype = *d;
            else
              error(DiagCode::BadEnum, "unknown dtype \"" + std::string(s) + "\"");
            return;
          }
          case kTMemory: {
            std::string_view s;
            if (!getString(y, s)) return;
            if (auto m = parseMemoryType(s))
              t.memory = *m;
            else
              error(DiagCode::BadEnum,
                    "unknown memory type \"" + std::string(s) + "\" (global, local, shared)");
            return;
          }
          case kTMesh: {
            int64_t n = 0;
            if (getInt(y, n, 0, INT32_MAX, "a mesh index")) t.mesh = static_cast<MeshId>(n);
            return;
          }
          case kTRoot: return readDomain(y, Slot::Root);
          case kTLogical: return readDomain(y, Slot::Logical);
          case kTAlloc: return readDomain(y, Slot::Allocation);
          case kTLoop: return readDomain(y, Slot::Loop);
          case kTContig: {
            sj::array c;
            if (!getArray(y, c)) return;
            eachElement(c, [&](size_t, sj::value& z) {
              sj::json_type jt;
              if (!getType(z, jt)) return false;
              if (jt == sj::json_type::null) {
                f_.tensors[tid].contiguity.emplace_back(std::nullopt);
                return true;
              }
              bool b = false;
              if (jt != sj::json_type::boolean) return wrongType(z, "true, false or null");
              if (!getBool(z, b)) return false;
              f_.tensors[tid].contiguity.emplace_back(b);
              return true;
            });
            return;
          }
          case kTTransforms: return readTransforms(y);
        }
      });
      if (stop()) return false;
      if (!requireKeys(seen, kTensorKeys, {kTName, kTDType, kTLogical}) || bad) return false;
      Tensor& t = f_.tensors[tid];
      t.name = f_.names.intern(name);
      growNames();
      if (tensor_of_name_[t.name] == kNone) tensor_of_name_[t.name] = tid;
      return resolveAxisRefs();
    });
  }

  // Domain entry: an axis object (defines an axis) or an integer axis id
  // (refers to an axis defined anywhere in this tensor).
  AxisId readAxisEntry(sj::value& v, Slot slot, uint32_t index) {
    sj::json_type t;
    if (!getType(v, t)) return kNone;
    if (t == sj::json_type::number) {
      int64_t n = 0;
      if (!getInt(v, n, 0, INT32_MAX, "an axis id")) return kNone;
      ctx_.refs.push_back(AxisRef{static_cast<uint32_t>(n), slot, index});
      return kPending;
    }
    if (t != sj::json_type::object) {
      wrongType(v, "an axis object or an integer axis id");
      return kNone;
    }
    sj::object o;
    if (auto e = v.get_object().get(o)) {
      typeError(e, "an object");
      return kNone;
    }
    Axis ax;
    ax.owner = ctx_.id;
    uint32_t seen = 0;
    bool bad = false;
    eachField(o, kAxisKeys, seen, [&](int k, sj::value& y) {
      switch (k) {
        case 0: {
          int64_t n = 0;
          if (getInt(y, n, 0, INT32_MAX, "an axis id"))
            ax.number = static_cast<uint32_t>(n);
          else
            bad = true;
          return;
        }
        case 1: {
          std::string_view s;
          if (!getString(y, s)) return void(bad = true);
          if (auto it = parseIterType(s)) {
            ax.iter = *it;
          } else {
            error(DiagCode::UnknownIterType, "unknown iter type \"" + std::string(s) + "\"");
            bad = true;
          }
          return;
        }
        case 2: {
          std::string_view s;
          if (!getString(y, s)) return void(bad = true);
          if (auto pt = parseParallelType(s)) {
            ax.parallel = *pt;
          } else {
            error(DiagCode::UnknownParallelType, "unknown parallel type \"" + std::string(s) + "\"");
            bad = true;
          }
          return;
        }
        case 3:
          ax.extent = readScalar(y, DType::Index);
          if (ax.extent == kNone) bad = true;
          return;
        case 4:
          ax.expanded = readScalar(y, DType::Index);
          if (ax.expanded == kNone) bad = true;
          return;
        case 5:
          if (!getBool(y, ax.rfactor)) bad = true;
          return;
      }
    });
    if (stop()) return kNone;
    if (!requireKeys(seen, kAxisKeys, {0, 3}) || bad) return kNone;
    f_.axes.push_back(ax);
    auto id = static_cast<AxisId>(f_.axes.size() - 1);
    ctx_.defs.emplace_back(ax.number, id);
    return id;
  }

  std::vector<AxisId>& domainOf(Slot s) {
    Tensor& t = f_.tensors[ctx_.id];
    switch (s) {
      case Slot::Root: return t.root;
      case Slot::Allocation: return t.allocation;
      case Slot::Loop: return t.loop;
      default: return t.logical;
    }
  }

  void readDomain(sj::value& v, Slot slot) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t i, sj::value& x) {
      AxisId id = readAxisEntry(x, slot, static_cast<uint32_t>(i));
      if (id == kNone) return false;
      domainOf(slot).push_back(id);
      return true;
    });
  }

  void readTransforms(sj::value& v) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t i, sj::value& x) {
      sj::object o;
      if (!getObject(x, o)) return false;
      AxisTransform tr;
      auto ti = static_cast<uint32_t>(i);
      std::string_view op;
      uint32_t seen = 0;
      bool bad = false;
      // What outer / inner mean depends on op, which may come later: read
      // the keys into neutral slots and assign them once op is known.
      AxisId in = kNone, outer = kNone, inner = kNone, out = kNone;
      eachField(o, kTransformKeys, seen, [&](int k, sj::value& y) {
        switch (k) {
          case 0: bad |= !getString(y, op); return;
          case 1: bad |= (in = readAxisEntry(y, Slot::TrIn, ti)) == kNone; return;
          case 2: bad |= (tr.factor = readScalar(y, DType::Index)) == kNone; return;
          case 3: bad |= !getBool(y, tr.inner_split); return;
          case 4: bad |= (outer = readAxisEntry(y, Slot::TrOuter, ti)) == kNone; return;
          case 5: bad |= (inner = readAxisEntry(y, Slot::TrInner, ti)) == kNone; return;
          case 6: bad |= (out = readAxisEntry(y, Slot::TrOut, ti)) == kNone; return;
        }
      });
      if (stop()) return false;
      if (!requireKeys(seen, kTransformKeys, {0}) || bad) return false;
      auto notFor = [&](std::initializer_list<int> keys, const char* what) {
        bool ok = true;
        for (int k : keys)
          if (seen & (1u << k)) {
            PathGuard g(path_, kTransformKeys[k]);
            error(DiagCode::UnknownKey,
                  std::string("a ") + what + " has no \"" + std::string(kTransformKeys[k]) + "\"");
            ok = false;
          }
        return ok;
      };
      if (op == "split") {
        if (!notFor({6}, "split") || !requireKeys(seen, kTransformKeys, {1, 2, 4, 5})) return false;
        tr.kind = AxisTransform::Kind::Split;
        tr.in = in;
        tr.out = outer;
        tr.out2 = inner;
      } else if (op == "merge") {
        if (!notFor({1, 2, 3}, "merge") || !requireKeys(seen, kTransformKeys, {4, 5, 6})) return false;
        tr.kind = AxisTransform::Kind::Merge;
        tr.in = outer;
        tr.in2 = inner;
        tr.out = out;
      } else {
        PathGuard g(path_, "op");
        error(DiagCode::BadEnum, "unknown transform \"" + std::string(op) + "\" (expected split or merge)");
        return false;
      }
      f_.tensors[ctx_.id].transforms.push_back(tr);
      return true;
    });
  }

  // Patches the axis references of the current tensor; FC0111 for a number
  // the tensor does not define.
  bool resolveAxisRefs() {
    bool ok = true;
    Tensor& t = f_.tensors[ctx_.id];
    for (const AxisRef& r : ctx_.refs) {
      AxisId found = kNone;
      for (const auto& [num, id] : ctx_.defs)
        if (num == r.number) {
          found = id;
          break;
        }
      if (found == kNone) {
        JsonPointer p = JsonPointer().key("tensors").index(ctx_.index);
        switch (r.slot) {
          case Slot::Root: p = p.key("root").index(r.index); break;
          case Slot::Logical: p = p.key("logical").index(r.index); break;
          case Slot::Allocation: p = p.key("allocation").index(r.index); break;
          case Slot::Loop: p = p.key("loop").index(r.index); break;
          case Slot::TrIn: p = p.key("transforms").index(r.index).key("in"); break;
          case Slot::TrOuter: p = p.key("transforms").index(r.index).key("outer"); break;
          case Slot::TrInner: p = p.key("transforms").index(r.index).key("inner"); break;
          case Slot::TrOut: p = p.key("transforms").index(r.index).key("out"); break;
        }
        errorAt(DiagCode::DanglingAxis,
                "axis " + std::to_string(r.number) + " is not defined in tensor " +
                    std::string(f_.names.size() > t.name ? f_.names.str(t.name) : std::string_view("?")),
                p.str());
        ok = false;
        continue;
      }
      switch (r.slot) {
        case Slot::Root:
        case Slot::Logical:
        case Slot::Allocation:
        case Slot::Loop: {
          auto& d = domainOf(r.slot);
          if (r.index < d.size()) d[r.index] = found;
          break;
        }
        default: {
          if (r.index >= t.transforms.size()) break;
          AxisTransform& tr = t.transforms[r.index];
          bool split = tr.kind == AxisTransform::Kind::Split;
          if (r.slot == Slot::TrIn)
            tr.in = found;
          else if (r.slot == Slot::TrOuter)
            (split ? tr.out : tr.in) = found;
          else if (r.slot == Slot::TrInner)
            (split ? tr.out2 : tr.in2) = found;
          else
            tr.out = found;
        }
      }
    }
    return ok;
  }

  // ------------------------------------------------------------ exprs
  void readExprs(sj::value& v) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t, sj::value& x) {
      sj::object o;
      if (!getObject(x, o)) return false;
      Expr e;
      uint32_t seen = 0;
      std::string_view opname;
      bool bad = false;
      eachField(o, kExprKeys, seen, [&](int k, sj::value& y) {
        Attrs& at = e.attrs;
        bool ok = true;
        switch (k) {
          case 0: ok = getString(y, opname); break;
          case 1: {
            sj::array ins;
            if (!getArray(y, ins)) return void(bad = true);
            ok = eachElement(ins, [&](size_t, sj::value& z) { return readOperand(z, e.inputs); });
            break;
          }
          case 2: {
            sj::array outs;
            if (!getArray(y, outs)) return void(bad = true);
            ok = eachElement(outs, [&](size_t, sj::value& z) {
              ValueRef r;
              if (!readNameRef(z, Want::Tensor, r)) return false;
              e.outputs.push_back(r.id);
              return true;
            });
            break;
          }
          case 3: {
            std::string_view s;
            if (!getString(y, s)) return void(bad = true);
            if (auto d = parseDType(s)) {
              at.dtype = *d;
            } else {
              error(DiagCode::BadEnum, "unknown dtype \"" + std::string(s) + "\"");
              ok = false;
            }
            break;
          }
          case 4: {
            std::string_view s;
            if (!getString(y, s)) return void(bad = true);
            if (s == "tanh" || s == "none") {
              at.approximate_tanh = s == "tanh";
            } else {
              error(DiagCode::BadEnum, "unknown approximation \"" + std::string(s) + "\" (none or tanh)");
              ok = false;
            }
            break;
          }
          case 5: {
            sj::array fl;
            if (!getArray(y, fl)) return void(bad = true);
            ok = eachElement(fl, [&](size_t, sj::value& z) {
              bool b = false;
              if (!getBool(z, b)) return false;
              at.flags.push_back(b);
              return true;
            });
            break;
          }
          case 6: ok = readScalarArray(y, DType::Index, [&](ScalarId s) { at.shape.push_back(s); }); break;
          case 7:
            ok = readIntArray(y, INT32_MIN, INT32_MAX, "an axis index",
                              [&](int64_t n) { at.dims.push_back(n); });
            break;
          case 8: {
            sj::array rs;
            if (!getArray(y, rs)) return void(bad = true);
            ok = eachElement(rs, [&](size_t, sj::value& z) {
              sj::object ro;
              if (!getObject(z, ro)) return false;
              SliceRange r;
              uint32_t rseen = 0;
              bool rbad = false;
              eachField(ro, kRangeKeys, rseen, [&](int rk, sj::value& w) {
                ScalarId s = readScalar(w, DType::Index);
                if (s == kNone) rbad = true;
                (rk == 0 ? r.start : rk == 1 ? r.stop : r.step) = s;
              });
              if (stop() || rbad || !requireKeys(rseen, kRangeKeys, {0, 1})) return false;
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
        }
        if (!ok) bad = true;
      });
      if (stop()) return false;
      if (!requireKeys(seen, kExprKeys, {0, 2}) || bad) return false;
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
      f_.exprs.push_back(std::move(e));
      return true;
    });
  }

  bool readOperand(sj::value& v, std::vector<ValueRef>& out) {
    sj::json_type t;
    if (!getType(v, t)) return false;
    if (t == sj::json_type::string) {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return typeError(e, "a string");
      if (isScalarName(s)) {
        NameId n = f_.names.intern(s);
        growNames();
        if (tensor_of_name_[n] != kNone)
          out.push_back(ValueRef::tensor(tensor_of_name_[n]));
        else if (scalar_of_name_[n] != kNone)
          out.push_back(ValueRef::scalar(scalar_of_name_[n]));
        else
          out.push_back(ValueRef::tensor(addPending(n, Want::Either)));
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

  // ------------------------------------------------------------ the rest
  void readConcrete(sj::value& v) {
    sj::array a;
    if (!getArray(v, a)) return;
    eachElement(a, [&](size_t, sj::value& x) {
      sj::object o;
      if (!getObject(x, o)) return false;
      ConcreteInput ci;
      uint32_t seen = 0;
      bool bad = false;
      eachField(o, kConcreteKeys, seen, [&](int k, sj::value& y) {
        bool ok = true;
        switch (k) {
          case 0: ok = readNameRef(y, Want::Either, ci.value); break;
          case 1:
            ok = readIntArray(y, INT64_MIN, INT64_MAX, "a size", [&](int64_t n) { ci.shape.push_back(n); });
            break;
          case 2:
            ok = readIntArray(y, INT64_MIN, INT64_MAX, "a stride",
                              [&](int64_t n) { ci.strides.push_back(n); });
            break;
          case 3: {
            ConstValue c;
            ok = readLiteral(y, c);
            if (ok) ci.scalar = c;
            break;
          }
        }
        if (!ok) bad = true;
      });
      if (stop()) return false;
      if (!requireKeys(seen, kConcreteKeys, {0}) || bad) return false;
      f_.concrete_inputs.push_back(std::move(ci));
      return true;
    });
  }

  void readTolerance(sj::value& v) {
    sj::object o;
    if (!getObject(v, o)) return;
    uint32_t seen = 0;
    eachField(o, kTolKeys, seen, [&](int k, sj::value& y) {
      ConstValue c;
      if (!readLiteral(y, c)) return;
      double d = c.kind == ConstValue::Kind::Float ? c.f : static_cast<double>(c.i);
      if (c.kind == ConstValue::Kind::Bool || !(d >= 0)) {
        error(DiagCode::NumberOutOfRange, "a tolerance must be a non-negative number");
        return;
      }
      (k == 0 ? f_.tolerance.rtol : f_.tolerance.atol) = d;
    });
  }

  void readSegmentation(sj::value& v) {
    sj::object o;
    if (!getObject(v, o)) return;
    Segmentation seg;
    uint32_t seen = 0;
    eachField(o, kSegKeys, seen, [&](int k, sj::value& y) {
      switch (k) {
        case 0: {
          sj::array a;
          if (!getArray(y, a)) return;
          eachElement(a, [&](size_t, sj::value& x) {
            sj::object so;
            if (!getObject(x, so)) return false;
            SegmentSpec spec;
            uint32_t sseen = 0;
            eachField(so, kSegmentKeys, sseen, [&](int sk, sj::value& z) {
              if (sk == 0) {
                readIntArray(z, 0, INT32_MAX, "an expr index",
                             [&](int64_t n) { spec.exprs.push_back(static_cast<ExprId>(n)); });
              } else {
                std::string_view s;
                if (getString(z, s)) spec.scheduler = std::string(s);
              }
            });
            if (stop() || !requireKeys(sseen, kSegmentKeys, {0})) return false;
            seg.segments.push_back(std::move(spec));
            return true;
          });
          return;
        }
        case 1: {
          std::string_view s;
          if (!getString(y, s)) return;
          if (auto r = parseInputRewrite(s))
            seg.input_rewrite = *r;
          else
            error(DiagCode::BadEnum,
                  "unknown input rewrite \"" + std::string(s) + "\" (keep-reductions or strip-reductions)");
          return;
        }
        case 2: {
          sj::array a;
          if (!getArray(y, a)) return;
          eachElement(a, [&](size_t, sj::value& x) {
            sj::object fo;
            if (!getObject(x, fo)) return false;
            ForwardedExtent fe;
            uint32_t fseen = 0;
            bool bad = false;
            eachField(fo, kForwardKeys, fseen, [&](int fk, sj::value& z) {
              if (fk == 0) {
                int64_t n = 0;
                if (getInt(z, n, 0, INT32_MAX, "a segment index"))
                  fe.segment = static_cast<uint32_t>(n);
                else
                  bad = true;
              } else {
                ValueRef r;
                if (readNameRef(z, Want::Scalar, r))
                  fe.symbol = r.id;
                else
                  bad = true;
              }
            });
            if (stop() || !requireKeys(fseen, kForwardKeys, {0, 1}) || bad) return false;
            seg.forward.push_back(fe);
            return true;
          });
          return;
        }
        case 3: {
          sj::array a;
          if (!getArray(y, a)) return;
          eachElement(a, [&](size_t, sj::value& x) {
            std::string_view s;
            if (!getString(x, s)) return false;
            seg.applied_fixes.emplace_back(s);
            return true;
          });
          return;
        }
      }
    });
    if (stop()) return;
    if (!requireKeys(seen, kSegKeys, {0})) return;
    f_.segmentation = std::move(seg);
  }

  // ------------------------------------------------------------ second phase
  void finish() {
    growNames();
    if (!pending_.empty()) {
      for (Pending& p : pending_) {
        uint32_t t = tensor_of_name_[p.name], s = scalar_of_name_[p.name];
        std::string nm(f_.names.str(p.name));
        if (p.want == Want::Tensor) {
          if (t == kNone) errorAt(DiagCode::DanglingTensor, "no tensor is named \"" + nm + "\"", p.pointer);
          p.resolved = t;
          p.is_tensor = true;
        } else if (p.want == Want::Scalar) {
          if (s == kNone) errorAt(DiagCode::DanglingScalar, "no scalar is named \"" + nm + "\"", p.pointer);
          p.resolved = s;
        } else {
          if (t == kNone && s == kNone)
            errorAt(DiagCode::DanglingTensor, "no tensor or scalar is named \"" + nm + "\"", p.pointer);
          p.is_tensor = t != kNone;
          p.resolved = t != kNone ? t : s;
        }
      }
      if (errors_ > 0) return;
      patchPending();
    }
    // Scalar inputs.
    for (const ValueRef& r : f_.inputs)
      if (r.isScalar() && f_.scalars[r.id].kind == ScalarKind::Symbol)
        f_.scalars[r.id].kind = ScalarKind::Input;
    // Range checks the IR cannot hold.
    for (size_t i = 0; i < f_.tensors.size(); ++i) {
      MeshId m = f_.tensors[i].mesh;
      if (m != kNone && m >= f_.meshes.size())
        errorAt(DiagCode::DanglingMesh,
                "mesh " + std::to_string(m) + " does not exist (" + std::to_string(f_.meshes.size()) +
                    " mesh(es) declared)",
                JsonPointer().key("tensors").index(i).key("mesh").str());
    }
    if (f_.segmentation) {
      const auto& segs = f_.segmentation->segments;
      for (size_t i = 0; i < segs.size(); ++i)
        for (size_t j = 0; j < segs[i].exprs.size(); ++j)
          if (segs[i].exprs[j] >= f_.exprs.size())
            errorAt(DiagCode::DanglingExpr,
                    "expr " + std::to_string(segs[i].exprs[j]) + " does not exist (" +
                        std::to_string(f_.exprs.size()) + " exprs)",
                    JsonPointer().key("segmentation").key("segments").index(i).key("exprs").index(j).str());
    }
    if (!pending_.empty()) checkScalarCycles();
    if (errors_ > 0) return;
    for (ExprId e = 0; e < f_.exprs.size(); ++e)
      for (TensorId t : f_.exprs[e].outputs)
        if (f_.tensors[t].definition == kNone) f_.tensors[t].definition = e;
    f_.rebuildUses();
  }

  void patchPending() {
    auto ps = [&](ScalarId& s) {
      if (isPending(s)) s = pending_[s & ~kPending].resolved;
    };
    auto pt = [&](TensorId& t) {
      if (isPending(t)) t = pending_[t & ~kPending].resolved;
    };
    auto pv = [&](ValueRef& r) {
      if (!isPending(r.id)) return;
      const Pending& p = pending_[r.id & ~kPending];
      r = p.is_tensor ? ValueRef::tensor(p.resolved) : ValueRef::scalar(p.resolved);
    };
    for (Scalar& s : f_.scalars) {
      ps(s.lhs);
      ps(s.rhs);
      pt(s.size_of);
    }
    for (Axis& a : f_.axes) {
      ps(a.extent);
      ps(a.expanded);
    }
    for (Tensor& t : f_.tensors)
      for (AxisTransform& tr : t.transforms) ps(tr.factor);
    for (Expr& e : f_.exprs) {
      for (ValueRef& r : e.inputs) pv(r);
      for (TensorId& t : e.outputs) pt(t);
      Attrs& a = e.attrs;
      for (ScalarId& s : a.shape) ps(s);
      for (ScalarId& s : a.pad) ps(s);
      for (SliceRange& r : a.ranges) {
        ps(r.start);
        ps(r.stop);
        ps(r.step);
      }
      ps(a.value);
      ps(a.start);
      ps(a.step);
    }
    for (ValueRef& r : f_.inputs) pv(r);
    for (TensorId& t : f_.outputs) pt(t);
    for (ConcreteInput& c : f_.concrete_inputs) pv(c.value);
    if (f_.segmentation)
      for (ForwardedExtent& fe : f_.segmentation->forward) ps(fe.symbol);
    // Anonymous derived nodes whose operands were pending: recompute dtypes
    // (operands always precede in id order except named ones, which carry
    // their declared dtype).
    for (Scalar& s : f_.scalars) {
      if (s.kind != ScalarKind::Derived || s.name != kNoName || s.op == ScalarOp::Size) continue;
      DType a = f_.scalars[s.lhs].dtype;
      DType b = s.rhs != kNone ? f_.scalars[s.rhs].dtype : a;
      if (isFloatingPoint(a) || isFloatingPoint(b)) s.dtype = DType::Double;
    }
  }

  // A name used before its declaration can close a cycle among scalar
  // definitions (a = b + 1, b = a + 1), possibly through size(T, d) and T's
  // extents. Iterative three-colour DFS; FC0105 at the declaration.
  void checkScalarCycles() {
    size_t n = f_.scalars.size();
    std::vector<uint8_t> color(n, 0);
    std::vector<std::pair<ScalarId, int>> stack;
    auto succ = [&](ScalarId s, int i) -> ScalarId {
      const Scalar& x = f_.scalars[s];
      if (x.kind != ScalarKind::Derived) return kNone;
      if (x.op == ScalarOp::Size) {
        if (x.size_of >= f_.tensors.size()) return kNone;
        const Tensor& t = f_.tensors[x.size_of];
        if (i == 0 && static_cast<size_t>(x.size_dim) < t.logical.size()) {
          const Axis& a = f_.axes[t.logical[static_cast<size_t>(x.size_dim)]];
          return a.extent;
        }
        if (i == 1 && static_cast<size_t>(x.size_dim) < t.logical.size())
          return f_.axes[t.logical[static_cast<size_t>(x.size_dim)]].expanded;
        return kNone;
      }
      return i == 0 ? x.lhs : i == 1 ? x.rhs : kNone;
    };
    for (ScalarId root = 0; root < n; ++root) {
      if (color[root]) continue;
      stack.push_back({root, 0});
      color[root] = 1;
      while (!stack.empty()) {
        auto& [s, i] = stack.back();
        if (i >= 2) {
          color[s] = 2;
          stack.pop_back();
          continue;
        }
        ScalarId nx = succ(s, i++);
        if (nx == kNone || nx >= n) continue;
        if (color[nx] == 1) {
          // Report at the first declared scalar on the cycle.
          ScalarId at = nx;
          for (auto& fr : stack)
            if (f_.scalars[fr.first].decl != kNone) {
              at = fr.first;
              break;
            }
          bool on = false;
          for (auto& fr : stack) {
            if (fr.first == nx) on = true;
            if (on && f_.scalars[fr.first].decl != kNone) {
              at = fr.first;
              break;
            }
          }
          std::string ptr = f_.scalars[at].decl != kNone
                                ? JsonPointer().key("scalars").index(f_.scalars[at].decl).key("value").str()
                                : std::string();
          errorAt(DiagCode::Cycle,
                  "scalar \"" + std::string(f_.scalarName(at)) + "\" is defined in terms of itself", ptr);
          return;
        }
        if (color[nx] == 0) {
          color[nx] = 1;
          stack.push_back({nx, 0});
        }
      }
    }
  }

  const SourceText& src_;
  DiagnosticSink& sink_;
  Fusion f_;
  const char* base_ = nullptr;
  std::vector<PathSeg> path_;
  size_t errors_ = 0;
  bool fatal_ = false;
  std::string fatal_message_;
  std::string fatal_pointer_;
  std::vector<uint32_t> tensor_of_name_, scalar_of_name_;
  std::vector<Pending> pending_;
  TensorCtx ctx_;
};

}  // namespace

std::optional<Fusion> readFusion(const SourceText& source, DiagnosticSink& sink, const ReadOptions& opts) {
  if (opts.max_bytes > 0 && source.text().size() > opts.max_bytes) {
    sink.error(DiagCode::FileTooLarge,
               "the file has " + std::to_string(source.text().size()) + " bytes, more than --max-bytes " +
                   std::to_string(opts.max_bytes),
               Location{source.path(), ""});
    return std::nullopt;
  }
  return Reader(source, sink).run();
}

std::optional<Fusion> readFusionFile(const std::string& path, DiagnosticSink& sink, SourceText& source_out,
                                     const ReadOptions& opts) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    sink.error(DiagCode::FileUnreadable, "cannot read " + path + ": " + ec.message(), Location{path, ""});
    return std::nullopt;
  }
  if (opts.max_bytes > 0 && size > opts.max_bytes) {
    sink.error(DiagCode::FileTooLarge,
               "the file has " + std::to_string(size) + " bytes, more than --max-bytes " +
                   std::to_string(opts.max_bytes),
               Location{path, ""});
    return std::nullopt;
  }
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) {
    sink.error(DiagCode::FileUnreadable, "cannot open " + path + ": " + std::strerror(errno),
               Location{path, ""});
    return std::nullopt;
  }
  std::string text;
  text.reserve(static_cast<size_t>(size) + simdjson::SIMDJSON_PADDING + 1);
  text.resize(static_cast<size_t>(size));
  size_t got = size > 0 ? std::fread(text.data(), 1, text.size(), fp) : 0;
  bool read_err = std::ferror(fp) != 0;
  std::fclose(fp);
  if (read_err || got != text.size()) {
    sink.error(DiagCode::FileUnreadable, "cannot read " + path + ": short read", Location{path, ""});
    return std::nullopt;
  }
  source_out = SourceText(path, std::move(text));
  return readFusion(source_out, sink, opts);
}

}  // namespace fc
