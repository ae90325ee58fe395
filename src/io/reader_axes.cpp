// The reader's tensor domains (reader_internal.h): the axes a tensor
// defines in its root, logical, allocation and loop domains and in its
// transforms, and the references by axis number that are patched when the
// tensor's object ends.
#include <string>

#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

constexpr std::array<std::string_view, 6> kAxisKeys = {"id",     "iter",     "parallel",
                                                       "extent", "expanded", "rfactor"};
constexpr std::array<std::string_view, 7> kTransformKeys = {"op",    "in",    "factor", "inner_split",
                                                            "outer", "inner", "out"};

}  // namespace

// Domain entry: an axis object (defines an axis) or an integer axis id
// (refers to an axis defined anywhere in this tensor).
AxisId Reader::readAxisEntry(sj::value& v, Slot slot, uint32_t index) {
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
      case 1:
        if (!readEnum(y, parseIterType, ax.iter, DiagCode::UnknownIterType, "iter type")) bad = true;
        return;
      case 2:
        if (!readEnum(y, parseParallelType, ax.parallel, DiagCode::UnknownParallelType, "parallel type"))
          bad = true;
        return;
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

std::vector<AxisId>& Reader::domainOf(Slot s) {
  Tensor& t = tensorAt(ctx_.id);
  switch (s) {
    case Slot::Root: return t.root;
    case Slot::Allocation: return t.allocation;
    case Slot::Loop: return t.loop;
    default: return t.logical;
  }
}

// The entries are gathered in a reused buffer and appended at once: one
// allocation of the exact size per domain instead of one per growth.
void Reader::readDomain(sj::value& v, Slot slot) {
  sj::array a;
  if (!getArray(v, a)) return;
  std::vector<AxisId>& entries = ctx_.domain;
  entries.clear();
  eachElement(a, [&](size_t i, sj::value& x) {
    AxisId id = readAxisEntry(x, slot, static_cast<uint32_t>(i));
    if (id == kNone) return false;
    entries.push_back(id);
    return true;
  });
  std::vector<AxisId>& dom = domainOf(slot);
  dom.insert(dom.end(), entries.begin(), entries.end());
}

void Reader::readTransforms(sj::value& v) {
  eachElementOf(v, [&](size_t i, sj::value& x) {
    AxisTransform tr;
    auto ti = static_cast<uint32_t>(i);
    std::string_view op;
    uint32_t seen = 0;
    bool bad = false;
    // What outer / inner mean depends on op, which may come later: read
    // the keys into neutral slots and assign them once op is known.
    AxisId in = kNone, outer = kNone, inner = kNone, out = kNone;
    bool read = readObject(x, kTransformKeys, seen, [&](int k, sj::value& y) {
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
    if (!read || !requireKeys(seen, kTransformKeys, {0}) || bad) return false;
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
    tensorAt(ctx_.id).transforms.push_back(tr);
    return true;
  });
}

// Patches the axis references of the current tensor; FC0111 for a number
// the tensor does not define.
bool Reader::resolveAxisRefs() {
  bool ok = true;
  Tensor& t = tensorAt(ctx_.id);
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

}  // namespace fc::reader_detail
