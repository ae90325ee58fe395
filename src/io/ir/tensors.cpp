// Tensors, axes and meshes of printed IR, and the TransformPrinter section (see reader.h).
//
// A tensor prints as `T<n>_<memory>[_<dtype>][ <axes> ]` then optional `ca_pos( n )`,
// `produce_pos( n )`, `maybe_produce_pos( n )`, `compute_with( ... )` and `(DeviceMesh{...})`.
// Every era's spacing reads: `T4_g[ iS11{i3} ]`, `T4_g_float[iS11{i3}]`, the late-2024 mix
// `T3_l___half[ iS12{16} ]`, a host program's `T0_g      [ ... ]`, an empty domain `T0_g[ ]`. An
// axis is `<iter><parallel><number>{<extent>[ ex <expanded>]}[rf][_p][_c]`; meshes are
// `DeviceMesh{0 1}`, `DeviceMesh{0, 1, }` and `DeviceMesh{{0 1}{2 3}}`, the closing ')' optional
// (pastes lose it).
#include <algorithm>
#include <cstring>

#include "io/import_builder.h"
#include "io/ir/reader.h"

namespace fc::ir_text {
namespace {

struct NameParts {
  bool ok = false;
  std::string name;  // "T4"
  MemoryType mem = MemoryType::Local;
  std::string dtype;  // "float", "__half", "" when not printed
};

// Splits `T4_g`, `T0_g_float`, `T3_l___half`, `T2_sym_float`.
NameParts splitName(std::string_view s) {
  NameParts r;
  if (s.size() < 4 || s[0] != 'T') return r;
  size_t i = 1;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 1 || i >= s.size() || s[i] != '_') return r;
  r.name = std::string(s.substr(0, i));
  std::string_view rest = s.substr(i + 1);
  size_t mlen = 0;
  if (rest.rfind("sym", 0) == 0 && (rest.size() == 3 || rest[3] == '_')) {
    mlen = 3;
    r.mem = MemoryType::Global;
  } else if (!rest.empty() && std::strchr("glst", rest[0]) && (rest.size() == 1 || rest[1] == '_')) {
    mlen = 1;
    r.mem = rest[0] == 'g' ? MemoryType::Global : rest[0] == 's' ? MemoryType::Shared : MemoryType::Local;
  } else {
    return r;
  }
  if (rest.size() > mlen) r.dtype = std::string(rest.substr(mlen + 1));
  r.ok = true;
  return r;
}

struct ParallelName {
  const char* text;
  ParallelType pt;
  bool dotted;  // followed by `.x` / `.y` / `.z`
};

// Longest first. The stream type printed `Stream` until #4148 (287ede2fe, 2025-04-28),
// `StreamIdx` until #5096 (d70540f96, 2025-09-04), `streamIdx` since (csrc/type.cpp).
const ParallelName kParallel[] = {
    {"deviceIdx", ParallelType::DIDx, true},    {"blockIdx", ParallelType::BIDx, true},
    {"threadIdx", ParallelType::TIDx, true},    {"streamIdx", ParallelType::Stream, false},
    {"StreamIdx", ParallelType::Stream, false}, {"Stream", ParallelType::Stream, false},
    {"MMA", ParallelType::Mma, false},          {"UR", ParallelType::Unroll, false},
    {"US", ParallelType::Unswitch, false},      {"S", ParallelType::Serial, false},
    {"V", ParallelType::Vectorize, false},      {"G", ParallelType::Group, false},
    {"B", ParallelType::Bulk, false},
};

ParallelType withAxis(ParallelType base, char xyz) {
  int k = xyz == 'y' ? 1 : xyz == 'z' ? 2 : 0;
  return static_cast<ParallelType>(static_cast<int>(base) + k);
}

bool allDigits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

bool Reader::atTensor(size_t i) const {
  if (i >= end_ || toks_[i].kind != Tok::Ident) return false;
  if (!isPunct(i + 1, "[")) return false;
  return splitName(str(i)).ok;
}

// ---------------------------------------------------------------- axes

std::optional<AxisId> Reader::axis(std::string& sig) {
  size_t start = p_;
  IterType it;
  std::string rest;
  if (isPunct(p_, "?") && isIdent(p_ + 1) && !tok(p_ + 1).space_before) {
    it = IterType::Symbolic;
    rest = std::string(str(p_ + 1));
    p_ += 2;
  } else if (isIdent(p_)) {
    std::string w(str(p_));
    switch (w[0]) {
      case 'i': it = IterType::Iteration; break;
      case 'r': it = IterType::Reduction; break;
      case 'b': it = IterType::Broadcast; break;
      case 's': it = IterType::Stride; break;
      case 'n': it = IterType::GatherScatter; break;
      case 'v': it = IterType::VectorComponent; break;
      case 'g':
        error(DiagCode::ImportUnsupported,
              "the Gather iter type `g` (removed in nvFuser #2502) is not modeled", p_);
        return std::nullopt;
      default:
        error(DiagCode::ImportSyntax, "expected an axis such as iS11{i3}" + found(), p_);
        return std::nullopt;
    }
    rest = w.substr(1);
    ++p_;
  } else {
    error(DiagCode::ImportSyntax, "expected an axis such as iS11{i3}" + found(), p_);
    return std::nullopt;
  }
  std::optional<ParallelType> pt;
  std::string number;
  for (const ParallelName& pn : kParallel) {
    size_t n = std::strlen(pn.text);
    if (rest.compare(0, n, pn.text) != 0) continue;
    if (pn.dotted) {
      if (rest.size() != n || !isPunct(p_, ".") || !isIdent(p_ + 1)) continue;
      std::string xyz(str(p_ + 1));
      if (xyz.size() < 2 || !std::strchr("xyz", xyz[0]) || !allDigits(xyz.substr(1))) continue;
      pt = withAxis(pn.pt, xyz[0]);
      number = xyz.substr(1);
      p_ += 2;
    } else {
      if (!allDigits(rest.substr(n))) continue;
      pt = pn.pt;
      number = rest.substr(n);
    }
    break;
  }
  if (!pt) {
    if (rest.empty() && atEnd())
      error(DiagCode::ImportSyntax,
            "the text ends inside an axis (`" + std::string(str(start)) +
                "`): a cut paste? Paste the whole print",
            start);
    else
      error(DiagCode::ImportSyntax, "unknown parallel type or axis number in `" + rest + "`", start);
    return std::nullopt;
  }
  if (!expect("{")) return std::nullopt;
  size_t ext_tok = p_;
  auto ext = scalar();
  if (!ext) return std::nullopt;
  if (isPunct(p_, ":")) {
    error(DiagCode::ImportUnsupported, "axes with a start or stop offset are not modeled", p_);
    return std::nullopt;
  }
  ScalarId expanded = kNone;
  if (eatWord("ex")) {
    auto e = scalar();
    if (!e) return std::nullopt;
    expanded = *e;
  }
  size_t ext_end = p_;
  if (!expect("}")) return std::nullopt;
  bool rf = false;
  if (isIdent(p_) && !tok(p_).space_before) {
    std::string suf(str(p_));
    std::string s = suf;
    if (s.rfind("rf", 0) == 0) {
      rf = true;
      s = s.substr(2);
    }
    while (s.rfind("_p", 0) == 0 || s.rfind("_c", 0) == 0) s = s.substr(2);
    if (s.empty()) ++p_;
  }
  sig += std::string(1, iterTypeLetter(it)) + std::string(parallelTypePrinted(*pt)) + number + "{";
  for (size_t k = ext_tok; k < ext_end; ++k) sig += std::string(str(k)) + " ";
  sig += rf ? "}rf," : "},";
  AxisId a = f_.addAxis(static_cast<uint32_t>(std::stoul(number)), it, *pt, *ext, expanded);
  f_.axes[a].rfactor = rf;
  return a;
}

// ---------------------------------------------------------------- meshes

std::optional<MeshId> Reader::mesh() {
  size_t start = p_;
  if (!eatWord("DeviceMesh")) return std::nullopt;
  if (!expect("{")) return std::nullopt;
  std::vector<int64_t> devices, rows;
  int depth = 1;
  int64_t row_len = 0;
  while (p_ < end_ && depth > 0) {
    if (eat("{")) {
      if (++depth > 2) {
        error(DiagCode::ImportUnsupported, "meshes of more than two dimensions are not read", p_ - 1);
        return std::nullopt;
      }
      row_len = 0;
    } else if (eat("}")) {
      if (depth == 2) rows.push_back(row_len);
      --depth;
    } else if (eat(",")) {
    } else if (tok(p_).kind == Tok::Number) {
      std::string_view d = str(p_);
      if (d.size() > 18 || d.find_first_not_of("0123456789") != std::string_view::npos) {
        error(DiagCode::ImportSyntax, "device id " + std::string(d.substr(0, 64)) + " is not a device number",
              p_);
        return std::nullopt;
      }
      devices.push_back(std::stoll(std::string(d)));
      ++row_len;
      ++p_;
    } else {
      error(DiagCode::ImportSyntax, "unexpected text in DeviceMesh" + found(), p_);
      return std::nullopt;
    }
  }
  if (depth > 0) {
    error(DiagCode::ImportSyntax, "unclosed DeviceMesh{", start);
    return std::nullopt;
  }
  std::vector<int64_t> shape = rows.empty()
                                   ? std::vector<int64_t>{static_cast<int64_t>(devices.size())}
                                   : std::vector<int64_t>{static_cast<int64_t>(rows.size()), rows[0]};
  if (!rows.empty())
    for (int64_t r : rows)
      if (r != rows[0]) {
        error(DiagCode::ImportSyntax, "the rows of a 2-D DeviceMesh differ in length", start);
        return std::nullopt;
      }
  for (MeshId m = 0; m < f_.meshes.size(); ++m)
    if (f_.meshes[m].devices == devices && f_.meshes[m].shape == shape) return m;
  DiagCode code{};
  std::string why = importedMeshProblem(devices, code);  // once per distinct mesh
  if (!why.empty()) {
    error(code, why, start);
    return std::nullopt;
  }
  return f_.addMesh(shape, devices);
}

// ---------------------------------------------------------------- tensors

// `[ axes ]`, at its '['. `allow_mesh`: a mesh written inside the brackets (a paste's slip).
bool Reader::domain(std::vector<AxisId>& axes, std::string& sig, bool allow_mesh, MeshId* mesh_out) {
  if (!expect("[")) return false;
  if (eat("]")) return true;
  if (tok(p_).kind == Tok::Number && str(p_) == "0" &&
      isPunct(p_ + 1, "]")) {  // 2022-23: `T2_g[ 0 ]`, no axes
    p_ += 2;
    return true;
  }
  while (true) {
    if (allow_mesh && isIdent(p_, "DeviceMesh")) {
      auto m = mesh();
      if (!m) return false;
      if (mesh_out) *mesh_out = *m;
      // A bare domain pasted with its mesh inside and its `]` lost: `[iS5{i6} DeviceMesh{0 1})`.
      if (isPunct(p_, ")")) {
        note("the domain's closing `]` is missing before this `)`; it is read as closed here", p_);
        return true;
      }
      return expect("]");
    }
    auto a = axis(sig);
    if (!a) return false;
    axes.push_back(*a);
    if (eat(",")) continue;
    if (allow_mesh && isIdent(p_, "DeviceMesh")) continue;
    return expect("]");
  }
}

std::optional<TensorId> Reader::tensor() {
  size_t start = p_;
  if (!atTensor(p_)) {
    error(DiagCode::ImportSyntax, "expected a tensor such as T0_g[ iS0{i0} ]" + found(), p_);
    return std::nullopt;
  }
  NameParts np = splitName(str(p_));
  if (np.name.size() > 10) {
    error(DiagCode::ImportSyntax,
          "the tensor number of `" + np.name.substr(0, 12) + "...` has more than 9 digits", p_);
    return std::nullopt;
  }
  std::optional<DType> dt;
  if (!np.dtype.empty()) {
    dt = cppDType(np.dtype);
    if (!dt) {
      error(DiagCode::ImportUnsupported, "dtype `" + np.dtype + "` of " + np.name + " is not modeled", p_);
      return std::nullopt;
    }
  }
  ++p_;
  size_t axes_before = f_.axes.size();
  std::vector<AxisId> axes;
  std::string sig;
  MeshId m = kNone;
  if (!domain(axes, sig, false, nullptr)) return std::nullopt;
  // Scheduling annotations, then the mesh.
  for (int guard = 0; guard < 8; ++guard) {
    if (isIdent(p_) && isPunct(p_ + 1, "(") &&
        (str(p_) == "ca_pos" || str(p_) == "produce_pos" || str(p_) == "maybe_produce_pos" ||
         str(p_) == "compute_with")) {
      p_ += 2;
      int depth = 1;
      while (p_ < end_ && depth > 0) {
        if (isPunct(p_, "(")) ++depth;
        if (isPunct(p_, ")")) --depth;
        ++p_;
      }
      continue;
    }
    break;
  }
  if (isPunct(p_, "(") && isIdent(p_ + 1, "DeviceMesh")) {
    ++p_;
    auto mm = mesh();
    if (!mm) return std::nullopt;
    m = *mm;
    if (!eat(")"))
      note("the `)` after " + np.name + "'s mesh is missing; the mesh is read as closed here", p_);
  }
  auto al = alias_names_.find(np.name);
  if (al != alias_names_.end()) {  // a host program's view of another tensor
    f_.axes.resize(axes_before);
    return al->second;
  }
  auto it = tensors_.find(np.name);
  if (it != tensors_.end()) {
    TensorId t = it->second;
    f_.axes.resize(axes_before);  // a re-print: its axes are the first print's
    Printed& pr = printed_[t];
    if (pr.signature != sig) {
      error(DiagCode::ImportUnresolved,
            np.name + " is printed again with a different domain (first at line " +
                std::to_string(loc(pr.tok).line) + ")",
            start);
      return std::nullopt;
    }
    if (dt) setDType(t, *dt);
    if (m != kNone) f_.tensors[t].mesh = m;
    return t;
  }
  TensorId t = f_.addTensor(np.name, dt.value_or(DType::Float), np.mem, axes, m);
  tensors_.emplace(np.name, t);
  printed_.push_back(Printed{sig, start, dt.has_value()});
  return t;
}

void Reader::setDType(TensorId t, DType d) {
  printed_[t].dtype_known = true;
  f_.tensors[t].dtype = d;
}

std::vector<AxisId> Reader::nonReduction(TensorId t) const {
  std::vector<AxisId> r;
  for (AxisId a : f_.tensors[t].logical)
    if (f_.axes[a].iter != IterType::Reduction) r.push_back(a);
  return r;
}

// ---------------------------------------------------------------- TransformPrinter

// `TransformPrinter :` then per tensor its print and lines ` root domain : (...)`,
// ` logical domain : (...)`, ` rfactor domain : (...)`, ` allocation domain : (...)`,
// ` contiguity: t n`, `Split: ...`, `Merge: ...`, `Resize: ...`, ` loop domain : (...)`. Where the
// print shows a scheduled loop domain, the logical domain given here (logical, else rfactor, else
// root) becomes the tensor's logical domain, with a note.
void Reader::transformSection() {
  in_transforms_ = true;
  TensorId current = kNone;
  std::vector<AxisId> chosen;
  std::string chosen_sig;
  int chosen_rank = 0;  // 1 root, 2 rfactor or logical
  size_t chosen_at = 0;
  auto apply = [&] {
    if (current != kNone && chosen_rank > 0 && chosen_sig != printed_[current].signature) {
      // The print showed the loop domain; this is the logical one.
      Tensor& tv = f_.tensors[current];
      for (AxisId a : chosen) f_.axes[a].owner = current;
      tv.logical = chosen;
      tv.root.clear();
      note(std::string(f_.tensorName(current)) +
               "'s print shows a scheduled loop domain; its logical domain is taken from the "
               "TransformPrinter section",
           chosen_at);
    }
    chosen.clear();
    chosen_sig.clear();
    chosen_rank = 0;
  };
  while (p_ < end_ && errors_ == 0) {
    if (isPunct(p_, "}") || (isPunct(p_, "%") && isIdent(p_ + 1))) break;
    if (atTensor(p_) && tok(p_).line_start) {
      apply();
      auto t = tensor();
      if (!t) return;
      current = *t;
      p_ = std::max(p_, lineEnd(p_ - 1));
      continue;
    }
    if (isIdent(p_) && isIdent(p_ + 1, "domain") && isPunct(p_ + 2, ":") && isPunct(p_ + 3, "(")) {
      std::string which(str(p_));
      size_t at = p_;
      p_ += 4;
      std::vector<AxisId> axes;
      std::string sig;
      size_t axes_before = f_.axes.size();
      if (!eat(")")) {
        while (true) {
          auto a = axis(sig);
          if (!a) return;
          axes.push_back(*a);
          if (eat(",")) continue;
          if (!expect(")")) return;
          break;
        }
      }
      int rank = which == "logical" || which == "rfactor" ? 2 : which == "root" ? 1 : 0;
      if (rank > chosen_rank) {
        chosen = axes;
        chosen_sig = sig;
        chosen_rank = rank;
        chosen_at = at;
      } else {
        f_.axes.resize(axes_before);
      }
      p_ = std::max(p_, lineEnd(p_ - 1));
      continue;
    }
    p_ = lineEnd(p_);
  }
  apply();
  in_transforms_ = false;
}

}  // namespace fc::ir_text
