// Tensor files: dtypes, element codecs, safetensors and .npy (see
// tensor_file.h). The zip container of .npz is in tensor_file_npz.cpp.
#include "exec/tensor_file.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "exec/tensor_file_detail.h"
#include "support/atomic_file.h"
#include "support/checked.h"
#include "support/internal_error.h"

namespace fc::exec {

namespace {

struct FileDTypeInfo {
  FileDType t;
  std::string_view name;
  int bytes;
};

constexpr FileDTypeInfo kInfo[] = {
    {FileDType::Bool, "BOOL", 1}, {FileDType::U8, "U8", 1},           {FileDType::I8, "I8", 1},
    {FileDType::I16, "I16", 2},   {FileDType::I32, "I32", 4},         {FileDType::I64, "I64", 8},
    {FileDType::F16, "F16", 2},   {FileDType::BF16, "BF16", 2},       {FileDType::F32, "F32", 4},
    {FileDType::F64, "F64", 8},   {FileDType::F8_E4M3, "F8_E4M3", 1}, {FileDType::F8_E5M2, "F8_E5M2", 1},
};

constexpr double kMaxExactInt = 9007199254740992.0;  // 2^53

[[noreturn]] void malformed(const std::string& what, const std::string& why) {
  fail(what + ": " + why, {}, DiagCode::TensorFileMalformed);
}

}  // namespace

std::string_view fileDTypeName(FileDType t) { return kInfo[static_cast<int>(t)].name; }

std::optional<FileDType> parseFileDType(std::string_view s) {
  for (const FileDTypeInfo& i : kInfo)
    if (i.name == s) return i.t;
  return std::nullopt;
}

int fileDTypeBytes(FileDType t) { return kInfo[static_cast<int>(t)].bytes; }

FileDType fileDTypeOf(DType t) {
  switch (t) {
    case DType::Bool: return FileDType::Bool;
    case DType::Int32: return FileDType::I32;
    case DType::Int:
    case DType::Index: return FileDType::I64;
    case DType::Half: return FileDType::F16;
    case DType::BFloat16: return FileDType::BF16;
    case DType::Float: return FileDType::F32;
    case DType::Double: return FileDType::F64;
    case DType::Float8_e4m3fn: return FileDType::F8_E4M3;
    case DType::Float8_e5m2: return FileDType::F8_E5M2;
    // Never written: `run` refuses a fusion holding one (FC0909).
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn:
    case DType::ComplexFloat:
    case DType::ComplexDouble: break;
  }
  return FileDType::F64;
}

std::optional<DType> dtypeOfFile(FileDType t) {
  switch (t) {
    case FileDType::Bool: return DType::Bool;
    case FileDType::I32: return DType::Int32;
    case FileDType::I64: return DType::Int;
    case FileDType::F16: return DType::Half;
    case FileDType::BF16: return DType::BFloat16;
    case FileDType::F32: return DType::Float;
    case FileDType::F64: return DType::Double;
    case FileDType::F8_E4M3: return DType::Float8_e4m3fn;
    case FileDType::F8_E5M2: return DType::Float8_e5m2;
    case FileDType::U8:
    case FileDType::I8:
    case FileDType::I16: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<TensorFormat> tensorFormatOf(std::string_view path) {
  auto ends = [&](std::string_view ext) {
    return path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends(".safetensors")) return TensorFormat::Safetensors;
  if (ends(".npz")) return TensorFormat::Npz;
  return std::nullopt;
}

namespace detail {

namespace {
uint64_t loadLE(const uint8_t* p, int n, bool big) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t b = p[big ? i : n - 1 - i];
    v = (v << 8) | b;
  }
  return v;
}
void storeLE(uint8_t* p, int n, uint64_t v) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
// The dtype whose bit patterns (fromBits, toBits) a 16- or 8-bit float file
// dtype holds; Double for the others.
DType narrowFloatDType(FileDType t) { return dtypeOfFile(t).value_or(DType::Double); }
}  // namespace

// Decodes `n` elements of `t` from `p` into `out`. Throws on an integer
// beyond 2^53 in magnitude.
void decode(FileDType t, const uint8_t* p, int64_t n, bool big_endian, double* out, const std::string& what) {
  int w = fileDTypeBytes(t);
  DType narrow = narrowFloatDType(t);
  for (int64_t i = 0; i < n; ++i, p += w) {
    uint64_t bits = loadLE(p, w, big_endian);
    double v = 0;
    switch (t) {
      case FileDType::Bool: v = bits != 0 ? 1.0 : 0.0; break;
      case FileDType::U8: v = static_cast<double>(bits); break;
      case FileDType::I8: v = static_cast<int8_t>(bits); break;
      case FileDType::I16: v = static_cast<int16_t>(bits); break;
      case FileDType::I32: v = static_cast<int32_t>(bits); break;
      case FileDType::I64: {
        auto s = static_cast<int64_t>(bits);
        v = static_cast<double>(s);
        if (std::fabs(v) > kMaxExactInt)
          malformed(what, "element " + std::to_string(i) + " is " + std::to_string(s) +
                              ", beyond 2^53: fusecheck holds values in fp64 and cannot keep it exactly");
        break;
      }
      case FileDType::F16:
      case FileDType::BF16:
      case FileDType::F8_E4M3:
      case FileDType::F8_E5M2: v = fromBits(narrow, bits); break;
      case FileDType::F32: v = std::bit_cast<float>(static_cast<uint32_t>(bits)); break;
      case FileDType::F64: v = std::bit_cast<double>(bits); break;
    }
    out[i] = v;
  }
}

// Encodes `n` values (already representable in `t`) little-endian.
void encode(FileDType t, const double* in, int64_t n, uint8_t* p) {
  int w = fileDTypeBytes(t);
  DType narrow = narrowFloatDType(t);
  for (int64_t i = 0; i < n; ++i, p += w) {
    double v = in[i];
    uint64_t bits = 0;
    switch (t) {
      case FileDType::Bool: bits = v != 0 ? 1 : 0; break;
      case FileDType::U8: bits = static_cast<uint8_t>(v); break;
      case FileDType::I8: bits = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
      case FileDType::I16: bits = static_cast<uint16_t>(static_cast<int16_t>(v)); break;
      case FileDType::I32:
        bits = static_cast<uint32_t>(static_cast<int32_t>(roundTo(DType::Int32, v)));
        break;
      case FileDType::I64: bits = static_cast<uint64_t>(static_cast<int64_t>(roundTo(DType::Int, v))); break;
      case FileDType::F16:
      case FileDType::BF16:
      case FileDType::F8_E4M3:
      case FileDType::F8_E5M2: bits = toBits(narrow, v); break;
      case FileDType::F32: bits = std::bit_cast<uint32_t>(static_cast<float>(v)); break;
      case FileDType::F64: bits = std::bit_cast<uint64_t>(v); break;
    }
    storeLE(p, w, bits);
  }
}

HostTensor allocate(FileDType t, const Shape& shape, const std::string& what, MemoryBudget* budget) {
  if (!numelOf(shape)) malformed(what, "the shape " + shapeString(shape) + " is negative or overflows");
  auto dt = dtypeOfFile(t);
  return HostTensor(dt.value_or(DType::Double), shape, budget);
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open tensor file " + path, {}, DiagCode::TensorFileMalformed);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail("cannot read tensor file " + path, {}, DiagCode::TensorFileMalformed);
  return ss.str();
}

}  // namespace detail

using detail::allocate;
using detail::decode;
using detail::encode;

// ---- safetensors

TensorFile parseSafetensors(std::string_view bytes, const std::string& what, MemoryBudget* budget) {
  if (bytes.size() < 8) malformed(what, "shorter than the 8-byte header length of a safetensors file");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  if (n > bytes.size() - 8)
    malformed(what, "the header length " + std::to_string(n) + " exceeds the file (" +
                        std::to_string(bytes.size()) + " bytes); not a safetensors file, or truncated");
  std::string_view header = bytes.substr(8, n);
  std::string_view data = bytes.substr(8 + n);
  nlohmann::ordered_json h;
  try {
    h = nlohmann::ordered_json::parse(header);
  } catch (const nlohmann::json::exception& e) {
    malformed(what, std::string("the header is not valid JSON (") + e.what() + ")");
  }
  if (!h.is_object()) malformed(what, "the header is not a JSON object");
  TensorFile out;
  struct Span {
    uint64_t begin, end;
    std::string name;
  };
  std::vector<Span> spans;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) malformed(what, "__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          malformed(what, "__metadata__ value of '" + m.key() + "' is not a string");
        out.metadata.emplace_back(m.key(), m.value().get<std::string>());
      }
      continue;
    }
    std::string tw = what + ": tensor '" + name + "'";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      malformed(tw, "needs dtype, shape and data_offsets");
    if (!v["dtype"].is_string()) malformed(tw, "dtype is not a string");
    auto dt = parseFileDType(v["dtype"].get<std::string>());
    if (!dt)
      malformed(tw, "dtype " + v["dtype"].get<std::string>() +
                        " is not one fusecheck reads (BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64, "
                        "F8_E4M3, F8_E5M2)");
    Shape shape;
    if (!v["shape"].is_array()) malformed(tw, "shape is not an array");
    for (const auto& s : v["shape"]) {
      if (!s.is_number_unsigned()) malformed(tw, "shape has an entry that is not a non-negative integer");
      shape.push_back(static_cast<int64_t>(s.get<uint64_t>()));
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      malformed(tw, "data_offsets is not a pair of non-negative integers");
    uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
    auto numel = numelOf(shape);
    auto want = numel ? checkedMul(*numel, static_cast<int64_t>(fileDTypeBytes(*dt))) : std::nullopt;
    if (!want) malformed(tw, "the shape " + shapeString(shape) + " overflows");
    if (e < b || e > data.size())
      malformed(tw, "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "] fall outside the " +
                        std::to_string(data.size()) + " data bytes");
    if (e - b != static_cast<uint64_t>(*want))
      malformed(tw, "holds " + std::to_string(e - b) + " bytes but " + std::string(fileDTypeName(*dt)) + " " +
                        shapeString(shape) + " needs " + std::to_string(*want));
    spans.push_back({b, e, name});
    FileTensor ft;
    ft.name = name;
    ft.file_dtype = *dt;
    ft.values = allocate(*dt, shape, tw, budget);
    decode(*dt, reinterpret_cast<const uint8_t*>(data.data()) + b, ft.values.numel(), false, ft.values.data(),
           tw);
    out.tensors.push_back(std::move(ft));
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].begin < spans[i - 1].end)
      malformed(what, "the data of tensors '" + spans[i - 1].name + "' and '" + spans[i].name + "' overlap");
  return out;
}

std::string serializeSafetensors(const TensorFile& file) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [k, v] : file.metadata) m[k] = v;
    h["__metadata__"] = m;
  }
  uint64_t offset = 0;
  for (const FileTensor& t : file.tensors) {
    uint64_t bytes = static_cast<uint64_t>(t.values.numel()) * fileDTypeBytes(t.file_dtype);
    h[t.name] = {{"dtype", std::string(fileDTypeName(t.file_dtype))},
                 {"shape", t.values.shape()},
                 {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string header = h.dump();
  while (header.size() % 8 != 0) header += ' ';
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(n >> (8 * i));
  out += header;
  size_t start = out.size();
  out.resize(start + offset);
  auto* p = reinterpret_cast<uint8_t*>(out.data() + start);
  for (const FileTensor& t : file.tensors) {
    encode(t.file_dtype, t.values.data(), t.values.numel(), p);
    p += static_cast<size_t>(t.values.numel()) * fileDTypeBytes(t.file_dtype);
  }
  return out;
}

// ---- .npy

namespace {

// The header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  Shape shape;
};

class DictParser {
 public:
  DictParser(std::string_view s, const std::string& what) : s_(s), what_(what) {}
  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') break;
      std::string key = str();
      expect(':');
      skip();
      if (key == "descr") {
        h.descr = str();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        bad("unknown header key '" + key + "'");
      }
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != '}') bad("expected ',' or '}'");
    }
    if (!seen_descr || !seen_shape) bad("the header lacks 'descr' or 'shape'");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& why) { malformed(what_, "malformed .npy header: " + why); }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  char peek() {
    if (i_ >= s_.size()) bad("it ends early");
    return s_[i_];
  }
  void expect(char c) {
    skip();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string str() {
    skip();
    char q = peek();
    if (q != '\'' && q != '"') bad("expected a string");
    size_t e = s_.find(q, i_ + 1);
    if (e == std::string_view::npos) bad("unterminated string");
    std::string r(s_.substr(i_ + 1, e - i_ - 1));
    i_ = e + 1;
    return r;
  }
  bool boolean() {
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    bad("expected True or False");
  }
  Shape tuple() {
    Shape r;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') {
        ++i_;
        return r;
      }
      size_t st = i_;
      int64_t v = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        auto m = checkedMul(v, int64_t{10});
        auto a = m ? checkedAdd(*m, static_cast<int64_t>(s_[i_] - '0')) : std::nullopt;
        if (!a) bad("a shape entry overflows");
        v = *a;
        ++i_;
      }
      if (i_ == st) bad("a shape entry is not a non-negative integer");
      r.push_back(v);
      skip();
      if (peek() == ',') ++i_;
    }
  }

  std::string_view s_;
  const std::string& what_;
  size_t i_ = 0;
};

// The numpy descr (byte order, kind, width) fusecheck writes for each file
// dtype numpy holds; it reads the same kinds in any byte order.
struct NpyDescr {
  FileDType t;
  std::string_view descr;
};

constexpr NpyDescr kNpyDescrs[] = {
    {FileDType::Bool, "|b1"}, {FileDType::U8, "|u1"},  {FileDType::I8, "|i1"},
    {FileDType::I16, "<i2"},  {FileDType::I32, "<i4"}, {FileDType::I64, "<i8"},
    {FileDType::F16, "<f2"},  {FileDType::F32, "<f4"}, {FileDType::F64, "<f8"},
};

// numpy descr -> file dtype and byte order.
std::optional<FileDType> npyDType(const std::string& d, bool* big) {
  if (d.size() < 3) return std::nullopt;
  char order = d[0];
  *big = order == '>';
  if (order != '<' && order != '>' && order != '|' && order != '=') return std::nullopt;
  std::string_view k = std::string_view(d).substr(1);
  for (const NpyDescr& n : kNpyDescrs)
    if (n.descr.substr(1) == k) return n.t;
  return std::nullopt;
}

std::string npyDescr(FileDType t) {
  for (const NpyDescr& n : kNpyDescrs)
    if (n.t == t) return std::string(n.descr);
  return "";
}

}  // namespace

FileTensor parseNpy(std::string_view bytes, const std::string& what, MemoryBudget* budget) {
  static constexpr std::string_view kMagic = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic)
    malformed(what, "not a .npy file (no \\x93NUMPY magic)");
  auto major = static_cast<uint8_t>(bytes[6]);
  size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) malformed(what, "truncated .npy header");
    for (int i = 3; i >= 0; --i) hlen = (hlen << 8) | static_cast<uint8_t>(bytes[8 + i]);
    start = 12;
  } else {
    malformed(what, ".npy format version " + std::to_string(major) + " is not one fusecheck reads (1, 2, 3)");
  }
  if (hlen > bytes.size() - start) malformed(what, "truncated .npy header");
  NpyHeader h = DictParser(bytes.substr(start, hlen), what).parse();
  bool big = false;
  auto dt = npyDType(h.descr, &big);
  if (!dt)
    malformed(what, "numpy dtype '" + h.descr +
                        "' is not one fusecheck reads (bool, int8/16/32/64, uint8, float16/32/64); "
                        "bfloat16 and fp8 tensors go in a .safetensors file");
  std::string_view data = bytes.substr(start + hlen);
  FileTensor ft;
  ft.file_dtype = *dt;
  ft.values = allocate(*dt, h.shape, what, budget);
  uint64_t need = static_cast<uint64_t>(ft.values.numel()) * fileDTypeBytes(*dt);
  if (data.size() < need)
    malformed(what, "holds " + std::to_string(data.size()) + " data bytes but " + h.descr + " " +
                        shapeString(h.shape) + " needs " + std::to_string(need));
  if (!h.fortran) {
    decode(*dt, reinterpret_cast<const uint8_t*>(data.data()), ft.values.numel(), big, ft.values.data(),
           what);
    return ft;
  }
  // Fortran order: the first index varies fastest in the file.
  std::vector<double> tmp(static_cast<size_t>(ft.values.numel()));
  decode(*dt, reinterpret_cast<const uint8_t*>(data.data()), ft.values.numel(), big, tmp.data(), what);
  const Shape& s = h.shape;
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t i = 0; i < ft.values.numel(); ++i) {  // i walks Fortran order
    ft.values[ft.values.offset(idx)] = tmp[static_cast<size_t>(i)];
    for (size_t d = 0; d < s.size(); ++d) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
  return ft;
}

std::string serializeNpy(const FileTensor& t) {
  std::string descr = npyDescr(t.file_dtype);
  FC_CHECK(!descr.empty(), "serializeNpy: no numpy dtype");
  std::string shape = "(";
  for (size_t i = 0; i < t.values.shape().size(); ++i) {
    shape += std::to_string(t.values.shape()[i]);
    shape += t.values.shape().size() == 1 ? "," : (i + 1 < t.values.shape().size() ? ", " : "");
  }
  shape += ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + dict.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  out += dict;
  size_t start = out.size();
  out.resize(start + static_cast<size_t>(t.values.numel()) * fileDTypeBytes(t.file_dtype));
  encode(t.file_dtype, t.values.data(), t.values.numel(), reinterpret_cast<uint8_t*>(out.data() + start));
  return out;
}

// ---- files

TensorFile readTensorFile(const std::string& path, MemoryBudget* budget) {
  auto fmt = tensorFormatOf(path);
  if (!fmt)
    fail("tensor file " + path + ": fusecheck reads .safetensors and .npz files (by extension)", {},
         DiagCode::TensorFormatUnsupported);
  if (*fmt == TensorFormat::Npz) return detail::readNpz(path, budget);
  return parseSafetensors(detail::readWholeFile(path), path, budget);
}

void writeTensorFile(const std::string& path, const TensorFile& file) {
  auto fmt = tensorFormatOf(path);
  if (!fmt)
    fail("tensor file " + path + ": fusecheck writes .safetensors and .npz files (by extension)", {},
         DiagCode::TensorFormatUnsupported);
  if (*fmt == TensorFormat::Npz) {
    for (const FileTensor& t : file.tensors)
      if (npyDescr(t.file_dtype).empty())
        fail(path + ": tensor '" + t.name + "' is " + std::string(fileDTypeName(t.file_dtype)) +
                 ", which numpy (and so .npz) cannot hold; write a .safetensors file instead",
             {}, DiagCode::TensorFormatUnsupported);
    detail::writeNpz(path, file);
    return;
  }
  std::string why = writeFileAtomic(path, serializeSafetensors(file));
  if (!why.empty()) fail("cannot write " + path + ": " + why, {}, DiagCode::WriteFailed);
}

}  // namespace fc::exec
