// Printed-IR importer (see import_ir.h): a character-level recursive-descent reader of nvFuser's
// print forms, with inference of the facts a print leaves out.
#include "io/import_ir.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/import_builder.h"
#include "io/scalar_expr.h"
#include "ir/op_rules.h"

namespace fc {
namespace {

constexpr int kMaxDepth = 64;

std::optional<DType> cppDType(const std::string& s) {
  static const std::map<std::string, DType> m = {
      {"float", DType::Float},          {"double", DType::Double},     {"__half", DType::Half},
      {"__bfloat", DType::BFloat16},    {"int64_t", DType::Int},       {"int", DType::Int32},
      {"int32_t", DType::Int32},        {"bool", DType::Bool},         {"nvfuser_index_t", DType::Index},
      {"__e4m3", DType::Float8_e4m3fn}, {"__e5m2", DType::Float8_e5m2}};
  auto it = m.find(s);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::optional<DType> castPart(const std::string& s) {
  static const std::map<std::string, DType> m = {
      {"half", DType::Half},        {"float", DType::Float}, {"double", DType::Double},
      {"bfloat", DType::BFloat16},  {"int", DType::Int},     {"int32", DType::Int32},
      {"index", DType::Index},      {"bool", DType::Bool},   {"e4m3", DType::Float8_e4m3fn},
      {"e5m2", DType::Float8_e5m2}, {"uint", DType::Int},    {"uint32", DType::Int32}};
  auto it = m.find(s);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

// `__half2float` / `half2float` / `__e4m32float` -> (from, to).
std::optional<std::pair<DType, DType>> castFunc(std::string n) {
  if (n.rfind("__", 0) == 0) n = n.substr(2);
  for (const char* src : {"half", "float", "double", "bfloat", "int", "bool", "e4m3", "e5m2"}) {
    std::string p = std::string(src) + "2";
    if (n.rfind(p, 0) != 0) continue;
    auto to = castPart(n.substr(p.size()));
    auto from = castPart(src);
    if (to && from) return std::make_pair(*from, *to);
  }
  return std::nullopt;
}

struct TensorText {
  std::string name;
  MemoryType mem = MemoryType::Local;
  std::optional<DType> dtype;
  std::vector<AxisId> axes;
  std::string signature;  // the domain as printed, normalised, for re-print checks
  MeshId mesh = kNone;
  size_t off = 0;
};

class IrImporter {
 public:
  IrImporter(const SourceText& src, DiagnosticSink& sink, bool segmented)
      : src_(src), t_(src.text()), sink_(sink), segmented_(segmented) {}

  std::optional<Fusion> run() {
    enum Mode { None, Inputs, Outputs, GroupIO } mode = None;
    while (p_ < t_.size() && errors_ < 50) {
      skipWs();
      if (p_ >= t_.size()) break;
      size_t line_start = p_;
      if (startsWith("Inputs:")) {
        mode = Inputs;
        skipLine();
        continue;
      }
      if (startsWith("Outputs:")) {
        mode = Outputs;
        skipLine();
        continue;
      }
      if (segmented_) {
        // NVFUSER_DUMP=segmented_fusion: "group details:" then per group `g{(scheduler)`,
        // `inputs:` / `outputs:` lists (`T0_g[ ... ] __half`) and the group's exprs.
        if (startsWith("group details:")) {
          details_ = true;
          skipLine();
          continue;
        }
        if (startsWith("} //Segmented_Fusion")) {
          details_ = false;
          group_ = -1;
          skipLine();
          continue;
        }
        if (details_ && startsWith("g{")) {
          p_ += 2;
          std::string sched = "none";
          if (peekIs('(')) {
            size_t s0 = ++p_;
            while (p_ < t_.size() && t_[p_] != ')' && t_[p_] != '\n') ++p_;
            sched = t_.substr(s0, p_ - s0);
            // nvFuser prints a scheduler type name here (`pointwise`, `expr_eval`, ...). Anything
            // else is not a dump, and could carry bytes that a JSON repro cannot (invalid UTF-8).
            bool ident = !sched.empty();
            for (char c : sched) ident &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
            if (!ident)
              error(DiagCode::ImportSyntax,
                    "expected a scheduler name (letters, digits, '_') in `g{(...)`, the group's heading", s0);
          }
          groups_.push_back(SegmentSpec{{}, sched});
          group_ = static_cast<int>(groups_.size()) - 1;
          mode = None;
          skipLine();
          continue;
        }
        if (details_ && (startsWith("inputs:") || startsWith("outputs:"))) {
          mode = GroupIO;
          skipLine();
          continue;
        }
      }
      if (!atTensor()) {
        if (mode != None && (std::isalpha(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_') &&
            !startsWith("%")) {
          // A scalar input/output entry: `i0, int64_t` (2024) or `i0` (head).
          size_t at = p_;
          std::string name = ident();
          skipSpaces();
          std::optional<DType> dt;
          if (peekIs(',')) {
            ++p_;
            skipSpaces();
            std::string d = ident();
            dt = cppDType(d);
          }
          skipSpaces();
          if (!name.empty() && (p_ >= t_.size() || t_[p_] == '\n' || t_[p_] == '\r')) {
            if (!isScalarName(name)) {  // `true`, `inf`, `size`, ...: a repro could not name it
              error(DiagCode::ImportSyntax, "`" + name + "` cannot name a scalar (a reserved word)", at);
              continue;
            }
            ScalarId sc = symbol(name);
            f_.scalars[sc].kind = ScalarKind::Input;
            if (dt) f_.scalars[sc].dtype = *dt;
            ValueRef v = ValueRef::scalar(sc);
            if (mode == Inputs &&
                std::find(listed_order_.begin(), listed_order_.end(), v) == listed_order_.end())
              listed_order_.push_back(v);
            continue;
          }
          p_ = at;
        }
        mode = startsWith("%kernel") || startsWith("}") ? None : mode;
        skipLine();
        continue;
      }
      std::optional<TensorId> t = tensor();
      if (!t) {
        recover(line_start);
        continue;
      }
      skipSpaces();
      if (mode == GroupIO) {
        // `T0_g[ ... ] __half` lists a segment input/output; anything else starts the exprs.
        size_t save = p_;
        std::string d = ident();
        skipSpaces();
        if (!d.empty() && (p_ >= t_.size() || t_[p_] == '\n' || t_[p_] == '\r')) {
          if (auto dt = cppDType(d)) setDType(*t, *dt);
          continue;
        }
        p_ = save;
        mode = None;
      }
      if (mode != None && !peekIs('=') && !peekIs('(')) {
        // An Inputs:/Outputs: entry: `T0_g[ ... ], __half`.
        if (peekIs(',')) {
          ++p_;
          skipSpaces();
          std::string d = ident();
          if (auto dt = cppDType(d)) setDType(*t, *dt);
        }
        auto& list = mode == Inputs ? listed_inputs_ : listed_outputs_;
        if (std::find(list.begin(), list.end(), *t) == list.end()) {  // several dumps: list once
          list.push_back(*t);
          if (mode == Inputs) listed_order_.push_back(ValueRef::tensor(*t));
        }
        skipLine();
        continue;
      }
      mode = None;
      if (!statement(*t, line_start)) recover(line_start);
    }
    if (f_.tensors.empty()) error(DiagCode::ImportSyntax, "no printed tensor (`T0_g[ ... ]`) found", 0);
    if (errors_) return std::nullopt;
    finish();
    if (errors_) return std::nullopt;
    return std::move(f_);
  }

 private:
  // ---------------------------------------------------------------- diagnostics
  Location loc(size_t off) const {
    LineCol lc = src_.lineCol(off);
    return Location{src_.path(), "", lc.line, lc.col};
  }
  bool error(DiagCode c, std::string m, size_t off) {
    ++errors_;
    sink_.error(c, std::move(m), loc(off));
    return false;
  }
  void warning(DiagCode c, std::string m, size_t off) {
    sink_.report(Severity::Warning, c, std::move(m), loc(off));
  }
  void recover(size_t) { skipLine(); }

  // ---------------------------------------------------------------- characters
  bool startsWith(const char* s) const { return t_.compare(p_, std::strlen(s), s) == 0; }
  bool peekIs(char c) const { return p_ < t_.size() && t_[p_] == c; }
  void skipLine() {
    while (p_ < t_.size() && t_[p_] != '\n') ++p_;
  }
  void skipWs() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  void skipSpaces() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\r')) ++p_;
  }
  bool eat(char c) {
    skipWs();
    if (peekIs(c)) {
      ++p_;
      return true;
    }
    return false;
  }
  bool expect(char c) {
    if (eat(c)) return true;
    return error(DiagCode::ImportSyntax, std::string("expected '") + c + "'" + found(), p_);
  }
  bool eatWord(const char* w) {
    skipWs();
    if (startsWith(w)) {
      p_ += std::strlen(w);
      return true;
    }
    return false;
  }
  std::string found() const {
    if (p_ >= t_.size()) return ", found end of text";
    size_t e = p_;
    while (e < t_.size() && e < p_ + 12 && t_[e] != '\n') ++e;
    return ", found '" + t_.substr(p_, e - p_) + "'";
  }
  std::string ident() {
    skipWs();
    size_t s = p_;
    while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_')) ++p_;
    return t_.substr(s, p_ - s);
  }
  bool atTensor() const {
    size_t i = p_;
    if (i >= t_.size() || t_[i] != 'T') return false;
    ++i;
    size_t d = i;
    while (i < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i]))) ++i;
    return i > d && i + 1 < t_.size() && t_[i] == '_' && std::strchr("gls", t_[i + 1]) && t_[i + 1] != 0;
  }

  // ---------------------------------------------------------------- scalars
  ScalarId symbol(const std::string& name) {
    auto it = symbols_.find(name);
    if (it != symbols_.end()) return it->second;
    DType dt = DType::Index;
    if (name[0] == 'd')
      dt = DType::Double;
    else if (name[0] == 'f')
      dt = DType::Float;
    else if (name[0] == 'b')
      dt = DType::Bool;
    ScalarId s = f_.addSymbol(name, dt);
    symbols_[name] = s;
    return s;
  }

  std::optional<ScalarId> number() {
    size_t s = p_;
    if (peekIs('-')) ++p_;
    bool is_float = false;
    while (p_ < t_.size() &&
           (std::isdigit(static_cast<unsigned char>(t_[p_])) || t_[p_] == '.' ||
            ((t_[p_] == 'e' || t_[p_] == 'E') && p_ > s) ||
            ((t_[p_] == '-' || t_[p_] == '+') && (t_[p_ - 1] == 'e' || t_[p_ - 1] == 'E')))) {
      if (!std::isdigit(static_cast<unsigned char>(t_[p_]))) is_float = true;
      ++p_;
    }
    std::string lit = t_.substr(s, p_ - s);
    if (lit.empty() || lit == "-") {
      error(DiagCode::ImportSyntax, "expected a number" + found(), s);
      return std::nullopt;
    }
    errno = 0;
    if (is_float) return f_.addConstFloat(std::strtod(lit.c_str(), nullptr), DType::Double);
    long long v = std::strtoll(lit.c_str(), nullptr, 10);
    if (errno == ERANGE) {
      error(DiagCode::ImportSyntax, "integer " + lit + " does not fit in 64 bits", s);
      return std::nullopt;
    }
    return f_.addConstInt(v, DType::Index);
  }

  // i3 | 128 | -7 | float(0) | __half(-inf) | true | ( a + b ) | ( ceilDiv(a, b) ) | ( -a ) | ( size(T0, 1) )
  std::optional<ScalarId> scalar(int depth = 0) {
    if (depth > kMaxDepth) {
      error(DiagCode::ImportSyntax, "scalar expression nested too deeply", p_);
      return std::nullopt;
    }
    skipWs();
    size_t start = p_;
    if (p_ >= t_.size()) {
      error(DiagCode::ImportSyntax, "expected a scalar" + found(), p_);
      return std::nullopt;
    }
    char c = t_[p_];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '-' && p_ + 1 < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_ + 1]))))
      return number();
    if (c == '(') {
      ++p_;
      skipWs();
      std::optional<ScalarId> r;
      size_t save = p_;
      std::string fn = ident();
      skipWs();
      if (!fn.empty() && peekIs('(') && fn != "float" && fn != "double" && fn != "__half" &&
          fn != "__bfloat") {
        ++p_;
        if (fn == "size") {
          skipWs();
          std::string tn = ident();
          auto it = tensors_.find(tn);
          if (it == tensors_.end()) {
            error(DiagCode::ImportUnresolved, "size() of unknown tensor `" + tn + "`", p_);
            return std::nullopt;
          }
          if (!expect(',')) return std::nullopt;
          skipWs();
          auto d = number();
          if (!d) return std::nullopt;
          if (!expect(')')) return std::nullopt;
          r = f_.addSize(it->second, static_cast<int32_t>(f_.scalars[*d].value.i));
        } else {
          ScalarOp op;
          if (fn == "ceilDiv")
            op = ScalarOp::CeilDiv;
          else if (fn == "max" || fn == "fmax")
            op = ScalarOp::Max;
          else if (fn == "min" || fn == "fmin")
            op = ScalarOp::Min;
          else {
            error(DiagCode::ImportUnsupported, "unsupported scalar function `" + fn + "`", save);
            return std::nullopt;
          }
          auto a = scalar(depth + 1);
          if (!a || !expect(',')) return std::nullopt;
          auto b = scalar(depth + 1);
          if (!b || !expect(')')) return std::nullopt;
          r = f_.addDerived(op, *a, *b, f_.scalars[*a].dtype);
        }
      } else {
        p_ = save;
        if (peekIs('-')) {
          ++p_;
          auto a = scalar(depth + 1);
          if (!a) return std::nullopt;
          r = f_.addDerived(ScalarOp::Neg, *a, kNone, f_.scalars[*a].dtype);
        } else {
          auto a = scalar(depth + 1);
          if (!a) return std::nullopt;
          skipWs();
          ScalarOp op;
          switch (p_ < t_.size() ? t_[p_] : 0) {
            case '+': op = ScalarOp::Add; break;
            case '-': op = ScalarOp::Sub; break;
            case '*': op = ScalarOp::Mul; break;
            case '/': op = ScalarOp::Div; break;
            case '%': op = ScalarOp::Mod; break;
            default:
              error(DiagCode::ImportSyntax, "expected a scalar operator" + found(), p_);
              return std::nullopt;
          }
          ++p_;
          auto b = scalar(depth + 1);
          if (!b) return std::nullopt;
          r = f_.addDerived(op, *a, *b, f_.scalars[*a].dtype);
        }
      }
      if (!expect(')')) return std::nullopt;
      return r;
    }
    std::string id = ident();
    if (id.empty()) {
      error(DiagCode::ImportSyntax, "expected a scalar" + found(), start);
      return std::nullopt;
    }
    if (id == "true" || id == "false") return f_.addConstBool(id == "true");
    skipSpaces();
    if (peekIs('(')) {  // typed constant: float(0), __half(-inf)
      auto dt = cppDType(id);
      if (!dt) {
        error(DiagCode::ImportUnsupported, "unsupported constant type `" + id + "`", start);
        return std::nullopt;
      }
      ++p_;
      skipWs();
      double v = 0;
      bool neg = eat('-');
      skipWs();
      if (startsWith("inf")) {
        p_ += 3;
        v = INFINITY;
      } else if (startsWith("nan")) {
        p_ += 3;
        v = NAN;
      } else {
        size_t s = p_;
        while (p_ < t_.size() &&
               (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '.' ||
                ((t_[p_] == '-' || t_[p_] == '+') && (t_[p_ - 1] == 'e' || t_[p_ - 1] == 'E'))))
          ++p_;
        std::string lit = t_.substr(s, p_ - s);
        char* endp = nullptr;
        v = std::strtod(lit.c_str(), &endp);
        if (lit.empty() || (endp && *endp)) {
          error(DiagCode::ImportSyntax, "bad constant `" + lit + "`", s);
          return std::nullopt;
        }
      }
      if (!expect(')')) return std::nullopt;
      if (neg) v = -v;
      if (isFloatingPoint(*dt)) return f_.addConstFloat(v, *dt);
      return f_.addConstInt(static_cast<int64_t>(v), *dt);
    }
    if (!isScalarName(id)) {  // `inf`, `size`, ...: a repro could not name it
      error(DiagCode::ImportSyntax, "`" + id + "` cannot name a scalar (a reserved word)", start);
      return std::nullopt;
    }
    return symbol(id);
  }

  // ---------------------------------------------------------------- tensors
  std::optional<ParallelType> parallel() {
    static const std::vector<std::pair<const char*, ParallelType>> pts = {{"deviceIdx.x", ParallelType::DIDx},
                                                                          {"deviceIdx.y", ParallelType::DIDy},
                                                                          {"deviceIdx.z", ParallelType::DIDz},
                                                                          {"blockIdx.x", ParallelType::BIDx},
                                                                          {"blockIdx.y", ParallelType::BIDy},
                                                                          {"blockIdx.z", ParallelType::BIDz},
                                                                          {"threadIdx.x", ParallelType::TIDx},
                                                                          {"threadIdx.y", ParallelType::TIDy},
                                                                          {"threadIdx.z", ParallelType::TIDz},
                                                                          {"streamIdx", ParallelType::Stream},
                                                                          {"MMA", ParallelType::Mma},
                                                                          {"UR", ParallelType::Unroll},
                                                                          {"US", ParallelType::Unswitch},
                                                                          {"S", ParallelType::Serial},
                                                                          {"V", ParallelType::Vectorize},
                                                                          {"G", ParallelType::Group},
                                                                          {"B", ParallelType::Bulk}};
    for (const auto& [s, pt] : pts)
      if (startsWith(s)) {
        p_ += std::strlen(s);
        return pt;
      }
    return std::nullopt;
  }

  std::optional<AxisId> axis(std::string& sig) {
    skipWs();
    size_t start = p_;
    if (p_ >= t_.size()) {
      error(DiagCode::ImportSyntax, "expected an axis" + found(), p_);
      return std::nullopt;
    }
    IterType it;
    switch (t_[p_]) {
      case 'i': it = IterType::Iteration; break;
      case 'r': it = IterType::Reduction; break;
      case 'b': it = IterType::Broadcast; break;
      case '?': it = IterType::Symbolic; break;
      case 's': it = IterType::Stride; break;
      case 'n': it = IterType::GatherScatter; break;
      case 'v': it = IterType::VectorComponent; break;
      case 'g':
        error(DiagCode::ImportUnsupported, "Gather iter type `g` (removed in nvFuser #2502) is not modeled",
              p_);
        return std::nullopt;
      default:
        error(DiagCode::ImportSyntax, "expected an axis such as iS11{i3}" + found(), p_);
        return std::nullopt;
    }
    ++p_;
    auto pt = parallel();
    if (!pt) {
      error(DiagCode::ImportSyntax, "unknown parallel type in axis" + found(), p_);
      return std::nullopt;
    }
    size_t ns = p_;
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    if (ns == p_ || p_ - ns > 9) {
      error(DiagCode::ImportSyntax, "expected the axis number" + found(), p_);
      return std::nullopt;
    }
    uint32_t number = static_cast<uint32_t>(std::strtoul(t_.substr(ns, p_ - ns).c_str(), nullptr, 10));
    if (!expect('{')) return std::nullopt;
    auto ext = scalar();
    if (!ext) return std::nullopt;
    skipWs();
    if (peekIs(':')) {
      error(DiagCode::ImportUnsupported, "axes with a start or stop offset are not modeled", p_);
      return std::nullopt;
    }
    ScalarId expanded = kNone;
    if (eatWord("ex ")) {
      auto e = scalar();
      if (!e) return std::nullopt;
      expanded = *e;
    }
    if (!expect('}')) return std::nullopt;
    bool rf = false;
    if (startsWith("rf")) {
      p_ += 2;
      rf = true;
    }
    while (startsWith("_p") || startsWith("_c")) p_ += 2;
    sig += t_.substr(start, p_ - start) + ",";
    AxisId a = f_.addAxis(number, it, *pt, *ext, expanded);
    f_.axes[a].rfactor = rf;
    return a;
  }

  std::optional<MeshId> mesh() {
    // (DeviceMesh{0 1}) or (DeviceMesh{{0 1}{2 3}}); the closing ')' may be missing in pastes.
    size_t start = p_;
    ++p_;  // '('
    skipWs();
    if (!eatWord("DeviceMesh")) {
      p_ = start;
      return std::nullopt;
    }
    if (!expect('{')) return std::nullopt;
    std::vector<int64_t> devices;
    std::vector<int64_t> rows;
    int depth = 1;
    int64_t row_len = 0;
    while (p_ < t_.size() && depth > 0) {
      skipSpaces();
      char c = t_[p_];
      if (c == '{') {
        if (++depth > 3) {
          error(DiagCode::ImportUnsupported, "meshes of more than two dimensions are not read", p_);
          return std::nullopt;
        }
        row_len = 0;
        ++p_;
      } else if (c == '}') {
        if (depth == 2) rows.push_back(row_len);
        --depth;
        ++p_;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t s = p_;
        while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
        if (p_ - s > 18) {
          error(DiagCode::ImportSyntax,
                "device id " + t_.substr(s, std::min<size_t>(p_ - s, 64)) + " is too large", s);
          return std::nullopt;
        }
        devices.push_back(std::strtoll(t_.substr(s, p_ - s).c_str(), nullptr, 10));
        ++row_len;
      } else {
        error(DiagCode::ImportSyntax, "unexpected text in DeviceMesh" + found(), p_);
        return std::nullopt;
      }
    }
    skipSpaces();
    if (peekIs(')')) ++p_;
    std::vector<int64_t> shape = rows.empty()
                                     ? std::vector<int64_t>{static_cast<int64_t>(devices.size())}
                                     : std::vector<int64_t>{static_cast<int64_t>(rows.size()), rows[0]};
    for (MeshId m = 0; m < f_.meshes.size(); ++m)
      if (f_.meshes[m].devices == devices && f_.meshes[m].shape == shape) return m;
    DiagCode code{};
    std::string why = importedMeshProblem(devices, code);  // once per distinct mesh
    if (!why.empty()) error(code, why, start);
    return f_.addMesh(shape, devices);
  }

  // T4_g[ ... ] (DeviceMesh{0 1}), T0_g_float[...]: registers the tensor on first sight and
  // checks that a re-print agrees.
  std::optional<TensorId> tensor() {
    skipWs();
    size_t start = p_;
    if (!atTensor()) {
      error(DiagCode::ImportSyntax, "expected a tensor such as T0_g[ ... ]" + found(), p_);
      return std::nullopt;
    }
    size_t s = p_;
    ++p_;
    while (std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    std::string name = t_.substr(s, p_ - s);
    ++p_;  // '_'
    MemoryType mem = t_[p_] == 'g'   ? MemoryType::Global
                     : t_[p_] == 's' ? MemoryType::Shared
                                     : MemoryType::Local;
    ++p_;
    std::optional<DType> dt;
    if (peekIs('_')) {
      size_t ds = ++p_;
      while (p_ < t_.size() && t_[p_] != '[' && !std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
      dt = cppDType(t_.substr(ds, p_ - ds));
      if (!dt) {
        error(DiagCode::ImportUnsupported, "unsupported dtype `" + t_.substr(ds, p_ - ds) + "` in " + name,
              ds);
        return std::nullopt;
      }
    }
    if (!expect('[')) return std::nullopt;
    std::vector<AxisId> axes;
    std::string sig;
    skipWs();
    if (!peekIs(']')) {
      while (true) {
        auto a = axis(sig);
        if (!a) return std::nullopt;
        axes.push_back(*a);
        if (eat(',')) continue;
        break;
      }
    }
    if (!expect(']')) return std::nullopt;
    skipSpaces();
    MeshId m = kNone;
    if (peekIs('(')) {
      size_t save = p_;
      auto mm = mesh();
      if (errors_) return std::nullopt;
      if (mm)
        m = *mm;
      else
        p_ = save;
    }
    auto it = tensors_.find(name);
    if (it != tensors_.end()) {
      TensorText& tt = texts_[it->second];
      if (tt.signature != sig) {
        error(DiagCode::ImportUnresolved,
              name + " is printed again with a different domain (first at line " +
                  std::to_string(src_.lineCol(tt.off).line) + ")",
              start);
        return std::nullopt;
      }
      if (dt) setDType(it->second, *dt);
      if (m != kNone) f_.tensors[it->second].mesh = m;
      // The axes just parsed are duplicates; drop them (they are the last ones added).
      f_.axes.resize(f_.axes.size() - axes.size());
      return it->second;
    }
    TensorId t = f_.addTensor(name, dt.value_or(DType::Float), mem, axes, m);
    tensors_[name] = t;
    TensorText tt;
    tt.name = name;
    tt.mem = mem;
    tt.dtype = dt;
    tt.axes = axes;
    tt.signature = sig;
    tt.mesh = m;
    tt.off = start;
    texts_.push_back(tt);
    return t;
  }

  void setDType(TensorId t, DType d) {
    texts_[t].dtype = d;
    f_.tensors[t].dtype = d;
  }

  std::vector<AxisId> nonRed(TensorId t) const {
    std::vector<AxisId> r;
    for (AxisId a : f_.tensors[t].logical)
      if (f_.axes[a].iter != IterType::Reduction) r.push_back(a);
    return r;
  }

  // An operand: a tensor or a scalar.
  std::optional<ValueRef> operand() {
    skipWs();
    if (atTensor()) {
      auto t = tensor();
      if (!t) return std::nullopt;
      return ValueRef::tensor(*t);
    }
    auto s = scalar();
    if (!s) return std::nullopt;
    return ValueRef::scalar(*s);
  }

  std::optional<TensorId> tensorOperand() {
    skipWs();
    auto t = tensor();
    return t;
  }

  // ---------------------------------------------------------------- statements
  struct Pending {
    OpKind op;
    std::vector<ValueRef> in;
    std::vector<TensorId> out;
    Attrs attrs;
    size_t off;
    std::optional<DType> in_dtype;  // from a cast name
  };

  bool statement(TensorId first, size_t off) {
    std::vector<TensorId> outs{first};
    skipSpaces();
    if (startsWith("(Var)")) p_ += 5;
    if (eat(',')) {
      auto t2 = tensorOperand();
      if (!t2) return false;
      outs.push_back(*t2);
      if (startsWith("(Avg)")) p_ += 5;
    }
    if (!expect('=')) return false;
    Pending pd;
    pd.out = outs;
    pd.off = off;
    if (!rhs(pd)) return false;
    skipSpaces();
    if (peekIs(';')) ++p_;
    return add(pd);
  }

  bool rhs(Pending& pd) {
    skipWs();
    size_t at = p_;
    if (peekIs('-') || peekIs('!')) {
      bool neg = peekIs('-');
      size_t save = p_;
      ++p_;
      skipWs();
      if (atTensor()) {
        auto t = tensor();
        if (!t) return false;
        pd.op = neg ? OpKind::Neg : OpKind::LogicalNot;
        pd.in = {ValueRef::tensor(*t)};
        return true;
      }
      p_ = save;
    }
    if (peekIs('(')) {  // C-style cast: (float)(T0_g[...])
      size_t save = p_;
      ++p_;
      std::string ty = ident();
      if (eat(')') && eat('(')) {
        auto dt = ty == "int32_t" ? std::optional<DType>(DType::Int32) : cppDType(ty);
        if (!dt) return error(DiagCode::ImportUnsupported, "unsupported cast `(" + ty + ")`", save);
        auto v = operand();
        if (!v || !expect(')')) return false;
        pd.op = OpKind::Cast;
        pd.in = {*v};
        pd.attrs.dtype = *dt;
        return true;
      }
      p_ = save;
    }
    if (!atTensor()) {
      size_t save = p_;
      std::string fn = ident();
      if (fn == "Set" && peekIs('.')) {
        ++p_;
        fn += "." + ident();
      }
      skipSpaces();
      if (!fn.empty() && peekIs('(')) {
        ++p_;
        return call(fn, pd, save);
      }
      p_ = save;
    }
    // inline binary: a op b
    auto a = operand();
    if (!a) return false;
    skipWs();
    static const std::vector<std::pair<const char*, OpKind>> ops = {
        {"==", OpKind::Eq},         {"!=", OpKind::Ne},        {"<=", OpKind::Le}, {">=", OpKind::Ge},
        {"&&", OpKind::LogicalAnd}, {"||", OpKind::LogicalOr}, {"<", OpKind::Lt},  {">", OpKind::Gt},
        {"+", OpKind::Add},         {"-", OpKind::Sub},        {"*", OpKind::Mul}, {"/", OpKind::Div}};
    for (const auto& [s, k] : ops)
      if (startsWith(s)) {
        p_ += std::strlen(s);
        auto b = operand();
        if (!b) return false;
        pd.op = k;
        pd.in = {*a, *b};
        return true;
      }
    return error(DiagCode::ImportUnsupported, "unsupported expression form" + found(), at);
  }

  bool boolList(std::vector<bool>& out) {
    if (!expect('{')) return false;
    skipWs();
    if (eat('}')) return true;
    while (true) {
      std::string w = ident();
      if (w != "true" && w != "false")
        return error(DiagCode::ImportSyntax, "expected true or false" + found(), p_);
      out.push_back(w == "true");
      if (eat(',')) continue;
      return expect('}');
    }
  }

  bool scalarList(std::vector<ScalarId>& out) {
    if (!expect('{')) return false;
    skipWs();
    if (eat('}')) return true;
    while (true) {
      auto s = scalar();
      if (!s) return false;
      out.push_back(*s);
      if (eat(',')) continue;
      return expect('}');
    }
  }

  bool intList(std::vector<int64_t>& out) {
    std::vector<ScalarId> s;
    if (!scalarList(s)) return false;
    for (ScalarId x : s) out.push_back(f_.scalars[x].value.i);
    return true;
  }

  // `, key = value` pairs until ')'.
  bool keyed(Pending& pd, bool allow_value) {
    while (eat(',')) {
      skipWs();
      size_t at = p_;
      std::string key = ident();
      if (key == "initial") {
        if (!eatWord("value")) return error(DiagCode::ImportSyntax, "expected `initial value`", at);
        key = "initial value";
      }
      if (key == "cache_op") {
        if (!expect('=')) return false;
        ident();
        continue;
      }
      if (!expect('=')) return false;
      skipWs();
      if (key == "op") {
        std::string op = ident();
        if (op == "add")
          pd.op = OpKind::Sum;
        else if (op == "mul")
          pd.op = OpKind::Prod;
        else if (op == "max" || op == "fmax")
          pd.op = OpKind::Max;
        else if (op == "min" || op == "fmin")
          pd.op = OpKind::Min;
        else
          return error(DiagCode::ImportUnsupported, "unsupported reduction op `" + op + "`", at);
      } else if (key == "initial value") {
        auto s = scalar();
        if (!s) return false;
        init_ = *s;
      } else if (key == "allreduce") {
        ident();
      } else if (key == "keepdim") {
        pd.attrs.keepdim = ident() == "true";
      } else if (key == "dims") {
        if (!intList(pd.attrs.dims)) return false;
      } else if (key == "correction") {
        auto s = scalar();
        if (!s) return false;
        pd.attrs.correction = f_.scalars[*s].value.i;
      } else if (key == "flags") {
        if (!boolList(pd.attrs.flags)) return false;
      } else if (key == "value" && allow_value) {
        auto s = scalar();
        if (!s) return false;
        pd.attrs.value = *s;
      } else {
        return error(DiagCode::ImportUnsupported, "unsupported argument `" + key + "`", at);
      }
    }
    return true;
  }

  bool call(const std::string& fn, Pending& pd, size_t at) {
    auto unaryOf = [](std::string n) -> std::optional<OpKind> {
      static const std::map<std::string, OpKind> m = {{"abs", OpKind::Abs},
                                                      {"exp", OpKind::Exp},
                                                      {"log", OpKind::Log},
                                                      {"sqrt", OpKind::Sqrt},
                                                      {"rsqrt", OpKind::Rsqrt},
                                                      {"tanh", OpKind::Tanh},
                                                      {"sigmoid", OpKind::Sigmoid},
                                                      {"relu", OpKind::Relu},
                                                      {"gelu", OpKind::Gelu},
                                                      {"silu", OpKind::Silu},
                                                      {"reciprocal", OpKind::Reciprocal},
                                                      {"sin", OpKind::Sin},
                                                      {"cos", OpKind::Cos},
                                                      {"erf", OpKind::Erf},
                                                      {"floor", OpKind::Floor},
                                                      {"ceil", OpKind::Ceil},
                                                      {"neg", OpKind::Neg},
                                                      {"logical_not", OpKind::LogicalNot}};
      auto it = m.find(n);
      if (it == m.end() && n.size() > 1 && n.back() == 'f') it = m.find(n.substr(0, n.size() - 1));
      if (it == m.end()) return std::nullopt;
      return it->second;
    };
    if (fn == "Set" || fn == "Set.Permute" || fn == "SegmenterSet") {
      auto t = tensorOperand();
      if (!t) return false;
      pd.in = {ValueRef::tensor(*t)};
      pd.op = fn == "SegmenterSet" ? OpKind::SegmentSet : fn == "Set" ? OpKind::Set : OpKind::Permute;
      if (!keyed(pd, false)) return false;
      return expect(')');
    }
    if (auto c = castFunc(fn)) {
      auto v = operand();
      if (!v || !expect(')')) return false;
      pd.op = OpKind::Cast;
      pd.in = {*v};
      pd.attrs.dtype = c->second;
      pd.in_dtype = c->first;
      return true;
    }
    if (fn == "tanh_gelu") {
      auto v = operand();
      if (!v || !expect(')')) return false;
      pd.op = OpKind::Gelu;
      pd.attrs.approximate_tanh = true;
      pd.in = {*v};
      return true;
    }
    if (auto u = unaryOf(fn)) {
      auto v = operand();
      if (!v || !expect(')')) return false;
      pd.op = *u;
      pd.in = {*v};
      return true;
    }
    static const std::map<std::string, OpKind> binfn = {{"fmax", OpKind::Maximum},
                                                        {"max", OpKind::Maximum},
                                                        {"fmin", OpKind::Minimum},
                                                        {"min", OpKind::Minimum},
                                                        {"pow", OpKind::Pow}};
    if (binfn.count(fn) || fn == "where") {
      size_t n = fn == "where" ? 3 : 2;
      for (size_t i = 0; i < n; ++i) {
        if (i && !expect(',')) return false;
        auto v = operand();
        if (!v) return false;
        pd.in.push_back(*v);
      }
      if (!expect(')')) return false;
      pd.op = fn == "where" ? OpKind::Where : binfn.at(fn);
      return true;
    }
    if (fn == "broadcast" || fn == "squeeze" || fn == "view" || fn == "reshape" || fn == "expand" ||
        fn == "reduction" || fn == "mean" || fn == "var" || fn == "var_mean" || fn == "slice" ||
        fn == "pad") {
      auto t = tensorOperand();
      if (!t) return false;
      pd.in = {ValueRef::tensor(*t)};
      if (fn == "broadcast")
        pd.op = OpKind::Broadcast;
      else if (fn == "squeeze")
        pd.op = OpKind::Squeeze;
      else if (fn == "view" || fn == "reshape")
        pd.op = OpKind::Reshape;
      else if (fn == "expand")
        pd.op = OpKind::Expand;
      else if (fn == "reduction")
        pd.op = OpKind::Sum;
      else if (fn == "mean")
        pd.op = OpKind::Mean;
      else if (fn == "var")
        pd.op = OpKind::Var;
      else if (fn == "var_mean")
        pd.op = OpKind::VarMean;
      else if (fn == "slice")
        pd.op = OpKind::Slice;
      else
        pd.op = OpKind::Pad;
      if (fn == "expand" && eat(',')) {
        if (!scalarList(pd.attrs.shape)) return false;
      }
      if (fn == "slice") {
        if (!expect(',') || !expect('{')) return false;
        while (eat('{')) {
          auto a = scalar();
          if (!a || !expect(',')) return false;
          auto b = scalar();
          if (!b || !expect(',')) return false;
          auto c = scalar();
          if (!c || !expect('}')) return false;
          pd.attrs.ranges.push_back(SliceRange{*a, *b, *c});
        }
        if (!expect('}')) return false;
      }
      if (fn == "pad") {
        if (!expect(',')) return false;
        std::vector<ScalarId> w;
        if (!scalarList(w)) return false;
        // printed: every axis, outermost first, (left, right); ours: innermost first, trimmed.
        size_t pairs = w.size() / 2;
        for (size_t i = pairs; i-- > 0;) {
          pd.attrs.pad.push_back(w[2 * i]);
          pd.attrs.pad.push_back(w[2 * i + 1]);
        }
        while (pd.attrs.pad.size() >= 2 && isZero(pd.attrs.pad[pd.attrs.pad.size() - 1]) &&
               isZero(pd.attrs.pad[pd.attrs.pad.size() - 2]))
          pd.attrs.pad.resize(pd.attrs.pad.size() - 2);
      }
      init_ = kNone;
      if (!keyed(pd, fn == "pad")) return false;
      if (fn == "reduction" && init_ != kNone) reduction_init_[pd.out[0]] = f_.scalars[init_].dtype;
      return expect(')');
    }
    if (fn == "cat") {
      while (true) {
        skipWs();
        if (!atTensor()) break;
        auto t = tensor();
        if (!t || !expect(',')) return false;
        pd.in.push_back(ValueRef::tensor(*t));
      }
      auto d = scalar();
      if (!d || !expect(')')) return false;
      pd.op = OpKind::Cat;
      pd.attrs.dim = f_.scalars[*d].value.i;
      return true;
    }
    if (fn == "matmul" || fn == "linear") {
      auto a = tensorOperand();
      if (!a || !expect(',')) return false;
      auto b = tensorOperand();
      if (!b) return false;
      pd.in = {ValueRef::tensor(*a), ValueRef::tensor(*b)};
      if (fn == "linear" && eat(',')) {
        auto c = tensorOperand();
        if (!c) return false;
        pd.in.push_back(ValueRef::tensor(*c));
      }
      if (!expect(')')) return false;
      pd.op = fn == "matmul" ? OpKind::Matmul : OpKind::Linear;
      return true;
    }
    if (fn == "full") {
      if (!scalarList(pd.attrs.shape)) return false;
      eat(',');
      auto v = scalar();
      if (!v || !expect(')')) return false;
      pd.op = OpKind::Full;
      pd.attrs.value = *v;
      return true;
    }
    if (fn == "iota") {
      auto len = scalar();
      if (!len || !expect(',')) return false;
      auto st = scalar();
      if (!st || !expect(',')) return false;
      auto sp = scalar();
      if (!sp || !expect(',')) return false;
      std::string ty = ident();
      auto dt = cppDType(ty);
      if (!dt) return error(DiagCode::ImportUnsupported, "unsupported iota dtype `" + ty + "`", p_);
      if (!expect(')')) return false;
      pd.op = OpKind::Iota;
      pd.attrs.shape = {*len};
      pd.attrs.start = *st;
      pd.attrs.step = *sp;
      pd.attrs.dtype = *dt;
      return true;
    }
    return error(DiagCode::ImportUnsupported, "unsupported op `" + fn + "`", at);
  }

  bool isZero(ScalarId s) const {
    const Scalar& sc = f_.scalars[s];
    return sc.kind == ScalarKind::Constant && sc.value.kind == ConstValue::Kind::Int && sc.value.i == 0;
  }

  // Derives the attributes a print leaves implicit, then appends the expr.
  bool add(Pending& pd) {
    for (TensorId o : pd.out) {
      if (f_.tensors[o].definition != kNone) {
        const Expr& prev = f_.exprs[f_.tensors[o].definition];
        if (prev.op == pd.op && prev.inputs == pd.in) {  // the same expr printed again
          addToGroup(f_.tensors[o].definition);
          return true;
        }
        return error(DiagCode::ImportUnresolved,
                     std::string(f_.tensorName(o)) + " is defined twice by different exprs", pd.off);
      }
    }
    TensorId out = pd.out[0];
    Attrs& a = pd.attrs;
    TensorId in0 = !pd.in.empty() && pd.in[0].isTensor() ? pd.in[0].id : kNone;
    const auto& ol = f_.tensors[out].logical;
    switch (pd.op) {
      case OpKind::Permute: {
        // Output axes were cloned from the input in order: their numbers give the permutation.
        std::vector<AxisId> sorted = ol;
        std::sort(sorted.begin(), sorted.end(),
                  [&](AxisId x, AxisId y) { return f_.axes[x].number < f_.axes[y].number; });
        for (AxisId x : ol) a.dims.push_back(std::find(sorted.begin(), sorted.end(), x) - sorted.begin());
        f_.tensors[out].root = sorted;
        break;
      }
      case OpKind::Sum:
      case OpKind::Prod:
      case OpKind::Max:
      case OpKind::Min:
      case OpKind::Mean:
      case OpKind::Var:
      case OpKind::VarMean:
        if (!a.keepdim && a.dims.empty())
          for (size_t i = 0; i < ol.size(); ++i)
            if (f_.axes[ol[i]].iter == IterType::Reduction) a.dims.push_back(static_cast<int64_t>(i));
        break;
      case OpKind::Broadcast:
        if (a.flags.empty() && in0 != kNone) {
          // 2024 prints no flags: align the input's axes with the output's, new axes are
          // Broadcast axes the input does not have at that position.
          std::vector<AxisId> src = nonRed(in0);
          size_t j = 0;
          for (size_t i = 0; i < ol.size(); ++i) {
            size_t left_out = ol.size() - i, left_in = src.size() - j;
            bool is_new = f_.axes[ol[i]].iter == IterType::Broadcast &&
                          (left_in == 0 || left_out > left_in) &&
                          (left_in == 0 || f_.axes[src[j]].iter != IterType::Broadcast || left_out > left_in);
            a.flags.push_back(is_new);
            if (!is_new) ++j;
          }
        }
        break;
      case OpKind::Squeeze:
        if (in0 != kNone) {
          std::vector<AxisId> src = nonRed(in0);
          if (!a.flags.empty()) {
            for (size_t i = 0; i < a.flags.size(); ++i)
              if (a.flags[i]) a.dims.push_back(static_cast<int64_t>(i));
            a.flags.clear();
          } else {
            size_t j = 0;
            for (size_t i = 0; i < src.size(); ++i) {
              size_t left_in = src.size() - i, left_out = ol.size() - j;
              if (f_.axes[src[i]].iter == IterType::Broadcast && left_in > left_out)
                a.dims.push_back(i);
              else
                ++j;
            }
          }
        }
        break;
      case OpKind::Expand:
        if (a.shape.empty())
          for (AxisId x : ol)
            a.shape.push_back(f_.axes[x].expanded != kNone ? f_.axes[x].expanded : f_.axes[x].extent);
        break;
      case OpKind::Reshape:
        for (AxisId x : ol) a.shape.push_back(f_.axes[x].extent);
        break;
      default: break;
    }
    pending_in_dtype_.emplace_back(pd.in_dtype);
    addToGroup(f_.addExpr(pd.op, pd.in, pd.out, pd.attrs));
    return true;
  }

  void addToGroup(ExprId e) {
    if (!segmented_ || group_ < 0) return;
    auto& ex = groups_[static_cast<size_t>(group_)].exprs;
    if (std::find(ex.begin(), ex.end(), e) == ex.end()) ex.push_back(e);
  }

  // ---------------------------------------------------------------- inference
  void finish() {
    const size_t nt = f_.tensors.size();
    std::vector<char> used(nt, 0);
    for (const Expr& e : f_.exprs)
      for (const ValueRef& v : e.inputs)
        if (v.isTensor()) used[v.id] = 1;
    // Inputs and outputs.
    if (!listed_order_.empty()) {
      f_.inputs = listed_order_;
    } else {
      for (TensorId t = 0; t < nt; ++t)
        if (f_.tensors[t].definition == kNone) f_.inputs.push_back(ValueRef::tensor(t));
    }
    if (!listed_outputs_.empty()) {
      f_.outputs = listed_outputs_;
    } else {
      for (TensorId t = 0; t < nt; ++t)
        if (f_.tensors[t].definition != kNone && !used[t]) f_.outputs.push_back(t);
    }
    // Scalar symbols used as values (not extents) are scalar inputs.
    std::vector<char> is_extent(f_.scalars.size(), 0);
    for (const Axis& ax : f_.axes) {
      if (ax.extent < is_extent.size()) is_extent[ax.extent] = 1;
      if (ax.expanded < is_extent.size()) is_extent[ax.expanded] = 1;
    }
    for (const Expr& e : f_.exprs)
      for (const ValueRef& v : e.inputs)
        if (v.isScalar() && f_.scalars[v.id].kind == ScalarKind::Symbol && !is_extent[v.id]) {
          f_.scalars[v.id].kind = ScalarKind::Input;
          if (std::find(f_.inputs.begin(), f_.inputs.end(), v) == f_.inputs.end()) f_.inputs.push_back(v);
        }
    // Dtypes: known ones, cast sources, reduction initial values, then forward through the ops.
    std::vector<char> known(nt, 0);
    for (TensorId t = 0; t < nt; ++t) known[t] = texts_[t].dtype.has_value();
    for (ExprId e = 0; e < f_.exprs.size(); ++e) {
      const Expr& ex = f_.exprs[e];
      if (ex.op == OpKind::Cast && ex.attrs.dtype) set(known, ex.outputs[0], *ex.attrs.dtype);
      if (pending_in_dtype_[e] && !ex.inputs.empty() && ex.inputs[0].isTensor())
        set(known, ex.inputs[0].id, *pending_in_dtype_[e]);
      auto ri = reduction_init_.find(ex.outputs[0]);
      if (ri != reduction_init_.end() && ri->second != DType::Index) set(known, ex.outputs[0], ri->second);
      if (ex.op == OpKind::Full && ex.attrs.value != kNone && !known[ex.outputs[0]])
        set(known, ex.outputs[0], f_.scalars[ex.attrs.value].dtype);
      if (ex.op == OpKind::Iota && ex.attrs.dtype) set(known, ex.outputs[0], *ex.attrs.dtype);
    }
    for (int pass = 0; pass < 3; ++pass)
      for (const Expr& ex : f_.exprs) {
        const OpInfo& info = opInfo(ex.op);
        std::optional<DType> dt;
        bool operands_known = true;
        for (const ValueRef& v : ex.inputs) operands_known = operands_known && (!v.isTensor() || known[v.id]);
        if (operands_known && !ex.inputs.empty()) {
          dt = outputDType(f_, ex, 0).dtype;  // nvFuser's type promotion
        } else if (info.category == OpCategory::Compare || info.promotion == Promotion::Bool) {
          dt = DType::Bool;
        } else {
          for (size_t i = ex.op == OpKind::Where ? 1 : 0; i < ex.inputs.size(); ++i) {
            const ValueRef& v = ex.inputs[i];
            if (v.isTensor() && known[v.id]) {
              DType d = f_.tensors[v.id].dtype;
              if (!dt || (isFloatingPoint(d) && dtypeBytes(d) > dtypeBytes(*dt))) dt = d;
            }
          }
        }
        if (!dt) continue;
        for (TensorId o : ex.outputs)
          if (!known[o]) set(known, o, *dt);
        // Same-dtype ops tell their inputs' dtype too.
        if (info.category == OpCategory::Shape || info.category == OpCategory::Set)
          for (const ValueRef& v : ex.inputs)
            if (v.isTensor() && !known[v.id]) set(known, v.id, *dt);
      }
    // Backward: ops that keep their operands' dtype give unknown operands the output's dtype.
    for (int pass = 0; pass < 4; ++pass)
      for (size_t i = f_.exprs.size(); i-- > 0;) {
        const Expr& ex = f_.exprs[i];
        const OpInfo& info = opInfo(ex.op);
        if (ex.outputs.empty() || !known[ex.outputs[0]]) continue;
        bool keeps = info.category == OpCategory::Set || info.category == OpCategory::Shape ||
                     info.category == OpCategory::Matmul || info.category == OpCategory::Binary ||
                     ex.op == OpKind::Max || ex.op == OpKind::Min ||
                     ((ex.op == OpKind::Sum || ex.op == OpKind::Prod) && !ex.attrs.dtype) ||
                     (info.category == OpCategory::Unary && ex.op != OpKind::LogicalNot);
        if (!keeps) continue;
        DType d = f_.tensors[ex.outputs[0]].dtype;
        for (const ValueRef& v : ex.inputs)
          if (v.isTensor() && !known[v.id]) set(known, v.id, d);
        // and forward again from what became known
        for (const Expr& ex2 : f_.exprs) {
          const OpInfo& i2 = opInfo(ex2.op);
          if (i2.category != OpCategory::Set && i2.category != OpCategory::Shape) continue;
          if (!ex2.inputs.empty() && ex2.inputs[0].isTensor() && known[ex2.inputs[0].id])
            for (TensorId o : ex2.outputs)
              if (!known[o]) set(known, o, f_.tensors[ex2.inputs[0].id].dtype);
        }
      }
    for (const Expr& ex : f_.exprs)
      if ((ex.op == OpKind::Sum || ex.op == OpKind::Prod) && !ex.inputs.empty() && ex.inputs[0].isTensor() &&
          known[ex.inputs[0].id] && known[ex.outputs[0]] &&
          f_.tensors[ex.inputs[0].id].dtype != f_.tensors[ex.outputs[0]].dtype)
        const_cast<Expr&>(ex).attrs.dtype = f_.tensors[ex.outputs[0]].dtype;
    for (Expr& ex : f_.exprs)
      if (ex.op == OpKind::Full) ex.attrs.dtype = f_.tensors[ex.outputs[0]].dtype;
    if (segmented_) {
      if (groups_.empty()) {
        error(DiagCode::ImportSyntax, "no `group details:` section with `g{...}` groups found", 0);
        return;
      }
      std::vector<int> seen(f_.exprs.size(), 0);
      for (const SegmentSpec& g : groups_)
        for (ExprId e : g.exprs) ++seen[e];
      for (ExprId e = 0; e < f_.exprs.size(); ++e)
        if (seen[e] != 1)
          error(DiagCode::ImportUnresolved,
                "the expr defining " + std::string(f_.tensorName(f_.exprs[e].outputs[0])) +
                    (seen[e] ? " is listed in more than one group" : " is in no group of the dump"),
                0);
      Segmentation seg;
      seg.segments = groups_;
      f_.segmentation = seg;
    }
    for (TensorId t = 0; t < nt; ++t)
      if (!known[t])
        warning(DiagCode::ImportUnsupported,
                "the dtype of " + std::string(f_.tensorName(t)) +
                    " cannot be inferred from the print; assuming float",
                texts_[t].off);
  }

  void set(std::vector<char>& known, TensorId t, DType d) {
    if (known[t]) return;
    known[t] = 1;
    f_.tensors[t].dtype = d;
  }

  const SourceText& src_;
  const std::string t_;  // a copy: import inputs are small hand-written or dumped files
  DiagnosticSink& sink_;
  size_t p_ = 0;
  int errors_ = 0;
  Fusion f_;
  std::unordered_map<std::string, TensorId> tensors_;
  std::unordered_map<std::string, ScalarId> symbols_;
  std::vector<TensorText> texts_;
  std::vector<TensorId> listed_inputs_, listed_outputs_;
  std::vector<ValueRef> listed_order_;  // Inputs: entries in order, tensors and scalars
  std::vector<std::optional<DType>> pending_in_dtype_;
  std::unordered_map<TensorId, DType> reduction_init_;
  ScalarId init_ = kNone;
  bool segmented_ = false;
  bool details_ = false;
  int group_ = -1;
  std::vector<SegmentSpec> groups_;
};

}  // namespace

std::optional<Fusion> importIr(const SourceText& source, DiagnosticSink& sink) {
  auto f = IrImporter(source, sink, false).run();
  if (f) f->provenance.emplace_back("imported_from", "nvfuser-ir");
  return f;
}

namespace detail {
std::optional<Fusion> importPrinted(const SourceText& source, DiagnosticSink& sink, bool segmented_dump) {
  return IrImporter(source, sink, segmented_dump).run();
}
}  // namespace detail

}  // namespace fc
