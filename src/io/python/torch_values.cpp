// torch tensors as a repro's `inputs` build them (see interpreter.h): the constructors
// (randn, rand, zeros, ones, empty, full, randint, arange, tensor, empty_strided, *_like,
// torch.testing.make_tensor) and the view methods (clone, contiguous, expand, as_strided, t,
// permute, transpose, view / reshape, unsqueeze, squeeze, narrow, select, slicing) with torch's
// own stride rules, plus dtype and device conversions. Only sizes, strides and dtype are kept;
// no element is ever computed.
#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "io/python/interpreter.h"
#include "ir/op_rules.h"
#include "ir/sharding.h"
#include "support/checked.h"

namespace fc::py {
namespace {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size(), 1);
  int64_t acc = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = acc;
    acc = checkedMul(acc, std::max<int64_t>(sizes[d], 1)).value_or(INT64_MAX / 2);
  }
  return st;
}

// Dense and non-overlapping: torch's preserve_format keeps such a tensor's strides.
bool denseNonOverlapping(const Value& t) {
  std::vector<size_t> order(t.sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return t.strides[a] < t.strides[b]; });
  int64_t expect = 1;
  for (size_t d : order) {
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

Ref torchTensor(std::vector<int64_t> sizes, std::vector<int64_t> strides, DType dt) {
  Ref v = mk(VK::Torch);
  v->sizes = std::move(sizes);
  v->strides = std::move(strides);
  v->dtype = dt;
  return v;
}

const Ref* kw(const Args& a, std::string_view name) {
  for (const auto& [k, v] : a.kw)
    if (k == name) return &v;
  return nullptr;
}

}  // namespace

// A shape given as `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(size=(2, 3))`, from positional
// argument `first` on.
static std::vector<int64_t> shapeArgs(Interpreter& in, const Args& a, size_t first, const char* what) {
  std::vector<Ref> items;
  if (const Ref* s = kw(a, "size"))
    items = in.asList(*s, a.off, what);
  else if (const Ref* s2 = kw(a, "shape"))
    items = in.asList(*s2, a.off, what);
  else if (a.pos.size() == first + 1 && (a.pos[first]->k == VK::List || a.pos[first]->k == VK::Tuple))
    items = a.pos[first]->items;
  else
    items.assign(a.pos.begin() + static_cast<long>(std::min(first, a.pos.size())), a.pos.end());
  std::vector<int64_t> r;
  for (const Ref& x : items) {
    int64_t v = in.asInt(x, a.off, what);
    if (v < 0)
      in.fail(std::string(what) + ": negative size " + std::to_string(v), a.off, DiagCode::BadConcreteInput);
    r.push_back(v);
  }
  return r;
}

// The data a constructor describes: make_tensor's low / high (its defaults for an unbounded side:
// -9 and 9 for floats, -9 and 10 for integers), randint's bounds, rand's [0, 1), the fill of ones,
// zeros and full, and where it names the dtype.
void Interpreter::describeData(const std::string& f, Args& args, Value& t) {
  for (size_t i = 0; i < args.kw.size(); ++i)
    if (args.kw[i].first == "dtype" &&
        (args.kw[i].second->k == VK::TorchDType || args.kw[i].second->k == VK::DType))
      t.dtype_off = i < args.kw_off.size() ? args.kw_off[i] + 6 : args.off;  // the value after `dtype=`
  auto number = [&](const Ref& v, const char* what) {
    if (v->k != VK::Int && v->k != VK::Float && v->k != VK::Bool)
      fail(std::string(what) + " must be a number", args.off, DiagCode::BadConcreteInput);
    return asFloat(v, args.off, what);
  };
  if (f == "testing.make_tensor") {
    const Ref* lo = kw(args, "low");
    const Ref* hi = kw(args, "high");
    if (lo && (*lo)->k == VK::None) lo = nullptr;
    if (hi && (*hi)->k == VK::None) hi = nullptr;
    if (lo || hi) {
      bool integral = t.dtype && !isFloatingPoint(*t.dtype);
      t.range = std::make_pair(lo ? number(*lo, "make_tensor low") : -9.0,
                               hi ? number(*hi, "make_tensor high") : (integral ? 10.0 : 9.0));
    }
  }
  if (f == "rand") t.range = std::make_pair(0.0, 1.0);
  if (f == "ones") t.fill = 1.0;
  if (f == "zeros") t.fill = 0.0;
  if (f == "full") {
    const Ref* v = args.pos.size() > 1 ? &args.pos[1] : kw(args, "fill_value");
    if (!v) fail("torch.full takes a fill value", args.off, DiagCode::BadConcreteInput);
    t.fill = number(*v, "torch.full's fill value");
  }
  if (f == "randint") {  // randint(high, size) or randint(low, high, size)
    std::vector<Ref> bounds;
    for (const Ref& a : args.pos)
      if (a->k == VK::Int || a->k == VK::Float)
        bounds.push_back(a);
      else
        break;
    if (bounds.size() == 1) t.range = std::make_pair(0.0, number(bounds[0], "randint high"));
    if (bounds.size() >= 2)
      t.range = std::make_pair(number(bounds[0], "randint low"), number(bounds[1], "randint high"));
  }
}

Ref Interpreter::torchCall(const std::string& fn, Args& args) {
  Ref r = torchConstruct(fn, args);
  if (r && r->k == VK::Torch) describeData(fn.substr(6), args, *r);
  return r;
}

Ref Interpreter::torchConstruct(const std::string& fn, Args& args) {
  std::string f = fn.substr(6);  // after "torch."
  auto dtypeKw = [&](DType dflt) {
    if (const Ref* d = kw(args, "dtype")) {
      if ((*d)->k == VK::TorchDType || (*d)->k == VK::DType) return (*d)->dtype.value_or(dflt);
      if ((*d)->k != VK::None) fail("dtype must be a torch dtype", args.off);
    }
    return dflt;
  };
  if (f == "randn" || f == "rand" || f == "zeros" || f == "ones" || f == "empty" ||
      f == "testing.make_tensor" || f == "normal") {
    std::vector<int64_t> s = shapeArgs(*this, args, 0, fn.c_str());
    return torchTensor(s, contiguousStrides(s), dtypeKw(DType::Float));
  }
  if (f == "full") {
    if (args.pos.empty()) fail("torch.full takes a size", args.off);
    std::vector<int64_t> s =
        shapeArgs(*this, Args{{args.pos[0]}, {args.off}, {}, {}, args.off}, 0, "torch.full");
    DType dflt = DType::Float;
    if (args.pos.size() > 1)
      dflt = args.pos[1]->k == VK::Bool ? DType::Bool : args.pos[1]->k == VK::Int ? DType::Int : DType::Float;
    return torchTensor(s, contiguousStrides(s), dtypeKw(dflt));
  }
  if (f == "randint") {
    size_t first = 0;
    for (size_t i = 0; i < args.pos.size(); ++i)
      if (args.pos[i]->k == VK::List || args.pos[i]->k == VK::Tuple) first = i;
    std::vector<int64_t> s;
    if (kw(args, "size"))
      s = shapeArgs(*this, args, args.pos.size(), "torch.randint");
    else if (first < args.pos.size() && (args.pos[first]->k == VK::List || args.pos[first]->k == VK::Tuple))
      s = shapeArgs(*this, Args{{args.pos[first]}, {args.off}, {}, {}, args.off}, 0, "torch.randint");
    else
      fail("torch.randint: cannot find the size", args.off);
    return torchTensor(s, contiguousStrides(s), dtypeKw(DType::Int));
  }
  if (f == "arange") {
    double lo = 0, hi = 0, step = 1;
    bool fl = false;
    for (const Ref& x : args.pos) fl = fl || x->k == VK::Float;
    if (args.pos.size() == 1)
      hi = asFloat(args.pos[0], args.off, "arange");
    else if (args.pos.size() >= 2) {
      lo = asFloat(args.pos[0], args.off, "arange");
      hi = asFloat(args.pos[1], args.off, "arange");
      if (args.pos.size() > 2) step = asFloat(args.pos[2], args.off, "arange");
    }
    if (step == 0) fail("arange step cannot be zero", args.off);
    auto n = checkedTruncToInt64(std::max(0.0, std::ceil((hi - lo) / step)));
    if (!n) fail("arange: its length is not an integer fusecheck can hold", args.off);
    return torchTensor(std::vector<int64_t>{*n}, std::vector<int64_t>{1},
                       dtypeKw(fl ? DType::Float : DType::Int));
  }
  if (f == "tensor" || f == "as_tensor") {
    if (args.pos.empty()) fail("torch.tensor takes data", args.off);
    std::vector<int64_t> s;
    Ref cur = args.pos[0];
    DType dt = DType::Int;
    while (cur->k == VK::List || cur->k == VK::Tuple) {
      s.push_back(static_cast<int64_t>(cur->items.size()));
      if (cur->items.empty()) break;
      cur = cur->items[0];
    }
    if (cur->k == VK::Float) dt = DType::Float;
    if (cur->k == VK::Bool) dt = DType::Bool;
    return torchTensor(s, contiguousStrides(s), dtypeKw(dt));
  }
  if (f == "empty_strided") {
    if (args.pos.size() < 2) fail("torch.empty_strided takes sizes and strides", args.off);
    std::vector<int64_t> s = shapeArgs(*this, Args{{args.pos[0]}, {args.off}, {}, {}, args.off}, 0, "sizes");
    std::vector<int64_t> st;
    for (const Ref& x : asList(args.pos[1], args.off, "strides")) st.push_back(asInt(x, args.off, "strides"));
    if (st.size() != s.size())
      fail("torch.empty_strided: sizes and strides differ in length", args.off, DiagCode::BadConcreteInput);
    Ref r = torchTensor(s, st, dtypeKw(DType::Float));
    r->strided = true;
    return r;
  }
  if (f.ends_with("_like") && !args.pos.empty() && args.pos[0]->k == VK::Torch) {
    const Value& t = *args.pos[0];
    auto st = denseNonOverlapping(t) ? t.strides : contiguousStrides(t.sizes);
    return torchTensor(t.sizes, st, dtypeKw(*t.dtype));
  }
  // torch.as_strided(x, size, stride) and torch.topk(x, k, dim): the tensor methods.
  if ((f == "as_strided" || f == "topk") && !args.pos.empty() && args.pos[0]->k == VK::Torch) {
    Args rest = args;
    rest.pos.erase(rest.pos.begin());
    if (!rest.pos_off.empty()) rest.pos_off.erase(rest.pos_off.begin());
    return torchMethod(args.pos[0], f, rest);
  }
  // torch.nn.Parameter(x): the same data, a parameter for autograd.
  if (f == "nn.Parameter" && !args.pos.empty() && args.pos[0]->k == VK::Torch) return args.pos[0];
  if (f == "Size") {
    std::vector<Ref> items =
        args.pos.empty() ? std::vector<Ref>{} : asList(args.pos[0], args.off, "torch.Size");
    return mkSeq(VK::Tuple, items);
  }
  if (f == "device") return mkOpaque("torch.device");
  if (Ref r = torchElementwise(f, args)) return r;
  if (recording()) fail("`" + fn + "` is not modelled by fusecheck", args.off);
  skip("`" + fn + "` is not about the fusion", args.off);
}

Ref Interpreter::torchAttr(const Ref& t, const std::string& name, uint32_t off) {
  if (name == "shape") {
    std::vector<Ref> r;
    for (int64_t s : t->sizes) r.push_back(mkInt(s));
    return mkSeq(VK::Tuple, r);
  }
  if (name == "ndim") return mkInt(static_cast<int64_t>(t->sizes.size()));
  if (name == "dtype") {
    Ref d = mk(VK::TorchDType);
    d->dtype = t->dtype;
    return d;
  }
  if (name == "T" || name == "mT") {
    Args a;
    a.off = off;
    if (name == "mT" || t->sizes.size() == 2) {
      if (t->sizes.size() < 2) fail("mT of a tensor of rank below 2", off);
      a.pos = {mkInt(-2), mkInt(-1)};
      a.pos_off = {off, off};
      return torchMethod(t, "transpose", a);
    }
    std::vector<Ref> dims;
    for (size_t d = t->sizes.size(); d-- > 0;) dims.push_back(mkInt(static_cast<int64_t>(d)));
    a.pos = dims;
    a.pos_off.assign(dims.size(), off);
    return torchMethod(t, "permute", a);
  }
  if (name == "device" || name == "is_cuda" || name == "requires_grad" || name == "grad" || name == "data")
    return name == "data" ? t : mkOpaque("tensor." + name);
  return mkBuiltin("torch." + name, t);
}

Ref Interpreter::torchMethod(const Ref& t, const std::string& m, Args& args) {
  const Value& v = *t;
  const size_t rank = v.sizes.size();
  auto dim = [&](const Ref& x) {
    int64_t d = asInt(x, args.off, "dim");
    int64_t r = static_cast<int64_t>(rank);
    if (d < -std::max<int64_t>(r, 1) || d >= std::max<int64_t>(r, 1))
      fail("dim " + std::to_string(d) + " is out of range for a tensor of rank " + std::to_string(rank),
           args.off, DiagCode::BadConcreteInput);
    return static_cast<size_t>(d < 0 ? d + r : d);
  };
  auto withDtype = [&](DType d) { return torchTensor(v.sizes, v.strides, d); };
  if (m == "cuda" || m == "cpu" || m == "requires_grad_" || m == "detach" || m == "contiguous_" ||
      m == "fill_" || m == "normal_" || m == "uniform_" || m == "zero_" || m == "random_" ||
      m == "bernoulli_" || m == "share_memory_" || m == "pin_memory" || m == "retain_grad")
    return t;
  if (m == "float") return withDtype(DType::Float);
  if (m == "half") return withDtype(DType::Half);
  if (m == "bfloat16") return withDtype(DType::BFloat16);
  if (m == "double") return withDtype(DType::Double);
  if (m == "long") return withDtype(DType::Int);
  if (m == "int") return withDtype(DType::Int32);
  if (m == "bool") return withDtype(DType::Bool);
  if (m == "topk") {
    // topk(k, dim=-1, largest=True, sorted=True): (values, indices), both of the input's shape with
    // k along `dim`; the indices are Int, each in [0, the input's extent along `dim`).
    const Ref* kr = args.pos.empty() ? kw(args, "k") : &args.pos[0];
    if (!kr) fail("topk takes k", args.off);
    const Ref* dr = args.pos.size() > 1 ? &args.pos[1] : kw(args, "dim");
    const size_t d = dr ? dim(*dr) : (rank ? rank - 1 : 0);
    const int64_t k = asInt(*kr, args.off, "topk's k");
    std::vector<int64_t> sizes = v.sizes;
    if (rank && (k < 0 || k > sizes[d]))
      fail("topk: k = " + std::to_string(k) + " is out of range for a dimension of size " +
               std::to_string(sizes[d]),
           args.off, DiagCode::BadConcreteInput);
    const int64_t extent = rank ? sizes[d] : 1;
    if (rank) sizes[d] = k;
    Ref values = torchTensor(sizes, contiguousStrides(sizes), *v.dtype);
    Ref indices = torchTensor(sizes, contiguousStrides(sizes), DType::Int);
    indices->range = std::make_pair(0.0, static_cast<double>(extent));
    return mkSeq(VK::Tuple, {values, indices});
  }
  if (m == "cfloat") return withDtype(DType::ComplexFloat);
  if (m == "cdouble") return withDtype(DType::ComplexDouble);
  if (m == "to" || m == "type") {
    for (const Ref& a : args.pos)
      if (a->k == VK::TorchDType)
        return withDtype(*a->dtype);
      else if (a->k == VK::Torch)
        return withDtype(*a->dtype);
    if (const Ref* d = kw(args, "dtype"))
      if ((*d)->k == VK::TorchDType) return withDtype(*(*d)->dtype);
    return t;
  }
  if (m == "clone")
    return torchTensor(v.sizes, denseNonOverlapping(v) ? v.strides : contiguousStrides(v.sizes), *v.dtype);
  if (m == "contiguous") return torchTensor(v.sizes, contiguousStrides(v.sizes), *v.dtype);
  if (m == "size" || m == "stride") {
    const auto& src = m == "size" ? v.sizes : v.strides;
    if (!args.pos.empty()) return mkInt(src[dim(args.pos[0])]);
    std::vector<Ref> r;
    for (int64_t s : src) r.push_back(mkInt(s));
    return mkSeq(VK::Tuple, r);
  }
  if (m == "dim" || m == "ndimension") return mkInt(static_cast<int64_t>(rank));
  if (m == "numel") {
    int64_t n = 1;
    for (int64_t s : v.sizes) n *= s;
    return mkInt(n);
  }
  if (m == "element_size") return mkInt(dtypeBytes(*v.dtype));
  if (m == "is_contiguous") return mkBool(v.strides == contiguousStrides(v.sizes));
  if (m == "data_ptr" || m == "item" || m == "tolist" || m == "numpy") return mkOpaque("tensor." + m);
  if (m == "as_strided") {
    // as_strided(size, stride, storage_offset=None), positional or by keyword.
    const Ref* size_arg = !args.pos.empty() ? &args.pos[0] : kw(args, "size");
    const Ref* stride_arg = args.pos.size() > 1 ? &args.pos[1] : kw(args, "stride");
    if (!size_arg || !stride_arg)
      fail("as_strided takes sizes and strides", args.off, DiagCode::BadConcreteInput);
    std::vector<int64_t> s =
        shapeArgs(*this, Args{{*size_arg}, {args.off}, {}, {}, args.off}, 0, "as_strided sizes");
    std::vector<int64_t> st;
    for (const Ref& x : asList(*stride_arg, args.off, "as_strided strides"))
      st.push_back(asInt(x, args.off, "strides"));
    if (st.size() != s.size())
      fail("as_strided: sizes and strides differ in length", args.off, DiagCode::BadConcreteInput);
    Ref r = torchTensor(s, st, *v.dtype);
    r->strided = true;
    return r;
  }
  if (m == "expand" || m == "expand_as") {
    std::vector<int64_t> target;
    if (m == "expand_as") {
      if (args.pos.empty() || args.pos[0]->k != VK::Torch) fail("expand_as takes a tensor", args.off);
      target = args.pos[0]->sizes;
    } else {
      std::vector<Ref> items =
          args.pos.size() == 1 && (args.pos[0]->k == VK::List || args.pos[0]->k == VK::Tuple)
              ? args.pos[0]->items
              : args.pos;
      for (const Ref& x : items) target.push_back(asInt(x, args.off, "expand size"));
    }
    if (target.size() < rank)
      fail("expand: fewer sizes than the tensor's rank", args.off, DiagCode::BadConcreteInput);
    size_t lead = target.size() - rank;
    std::vector<int64_t> s(target.size()), st(target.size());
    for (size_t d = 0; d < target.size(); ++d) {
      if (d < lead) {
        if (target[d] < 0) fail("expand: -1 for a new dimension", args.off, DiagCode::BadConcreteInput);
        s[d] = target[d];
        st[d] = 0;
        continue;
      }
      int64_t cur = v.sizes[d - lead];
      int64_t want = target[d] == -1 ? cur : target[d];
      if (cur != want && cur != 1)
        fail("expand: size " + std::to_string(cur) + " cannot expand to " + std::to_string(want), args.off,
             DiagCode::BadConcreteInput);
      s[d] = want;
      st[d] = cur == want ? v.strides[d - lead] : 0;
    }
    return torchTensor(s, st, *v.dtype);
  }
  if (m == "t") {
    if (rank > 2) fail("t() expects a tensor of rank 2 or less", args.off, DiagCode::BadConcreteInput);
    if (rank < 2) return t;
    return torchTensor({v.sizes[1], v.sizes[0]}, {v.strides[1], v.strides[0]}, *v.dtype);
  }
  if (m == "permute") {
    std::vector<Ref> items =
        args.pos.size() == 1 && (args.pos[0]->k == VK::List || args.pos[0]->k == VK::Tuple)
            ? args.pos[0]->items
            : args.pos;
    if (items.size() != rank)
      fail("permute: the number of dims differs from the rank", args.off, DiagCode::BadConcreteInput);
    std::vector<int64_t> s, st;
    std::vector<bool> seen(rank, false);
    for (const Ref& x : items) {
      size_t d = dim(x);
      if (seen[d]) fail("permute: a dim repeats", args.off, DiagCode::BadConcreteInput);
      seen[d] = true;
      s.push_back(v.sizes[d]);
      st.push_back(v.strides[d]);
    }
    return torchTensor(s, st, *v.dtype);
  }
  if (m == "transpose" || m == "swapaxes" || m == "swapdims") {
    if (args.pos.size() < 2) fail("transpose takes two dims", args.off);
    if (rank == 0) return t;
    size_t a = dim(args.pos[0]), b = dim(args.pos[1]);
    std::vector<int64_t> s = v.sizes, st = v.strides;
    std::swap(s[a], s[b]);
    std::swap(st[a], st[b]);
    return torchTensor(s, st, *v.dtype);
  }
  if (m == "view" || m == "reshape" || m == "flatten" || m == "view_as" || m == "reshape_as") {
    int64_t numel = 1;
    for (int64_t s : v.sizes) numel *= s;
    std::vector<int64_t> s;
    if (m == "flatten" && args.pos.empty())
      s = {numel};
    else if (m == "view_as" || m == "reshape_as") {
      if (args.pos.empty() || args.pos[0]->k != VK::Torch) fail(m + " takes a tensor", args.off);
      s = args.pos[0]->sizes;
    } else if (m == "flatten") {
      size_t a = dim(args.pos[0]), b = args.pos.size() > 1 ? dim(args.pos[1]) : rank - 1;
      for (size_t d = 0; d < a; ++d) s.push_back(v.sizes[d]);
      int64_t p = 1;
      for (size_t d = a; d <= b; ++d) p *= v.sizes[d];
      s.push_back(p);
      for (size_t d = b + 1; d < rank; ++d) s.push_back(v.sizes[d]);
    } else {
      if (!args.pos.empty() && args.pos[0]->k == VK::TorchDType) return withDtype(*args.pos[0]->dtype);
      std::vector<Ref> items =
          args.pos.size() == 1 && (args.pos[0]->k == VK::List || args.pos[0]->k == VK::Tuple)
              ? args.pos[0]->items
              : args.pos;
      int64_t known = 1;
      int minus = -1;
      for (size_t i = 0; i < items.size(); ++i) {
        int64_t x = asInt(items[i], args.off, "view size");
        s.push_back(x);
        if (x == -1)
          minus = static_cast<int>(i);
        else
          known *= x;
      }
      if (minus >= 0) s[static_cast<size_t>(minus)] = known == 0 ? 0 : numel / known;
    }
    int64_t n2 = 1;
    for (int64_t x : s) n2 *= x;
    if (n2 != numel)
      fail(m + ": the new shape has " + std::to_string(n2) + " elements, the tensor " + std::to_string(numel),
           args.off, DiagCode::BadConcreteInput);
    // A view of a non-contiguous tensor keeps the layout only in cases torch's computeStride
    // finds; fusecheck models the contiguous result (a reshape's copy).
    return torchTensor(s, contiguousStrides(s), *v.dtype);
  }
  if (m == "unsqueeze") {
    int64_t d = asInt(args.pos.empty() ? mkInt(0) : args.pos[0], args.off, "dim");
    if (d < 0) d += static_cast<int64_t>(rank) + 1;
    if (d < 0 || d > static_cast<int64_t>(rank))
      fail("unsqueeze: dim out of range", args.off, DiagCode::BadConcreteInput);
    auto ud = static_cast<size_t>(d);
    std::vector<int64_t> s = v.sizes, st = v.strides;
    int64_t stride = ud < rank ? v.sizes[ud] * v.strides[ud] : 1;
    s.insert(s.begin() + d, 1);
    st.insert(st.begin() + d, stride);
    return torchTensor(s, st, *v.dtype);
  }
  if (m == "squeeze") {
    std::vector<int64_t> s, st;
    std::optional<size_t> only;
    if (!args.pos.empty()) only = dim(args.pos[0]);
    for (size_t d = 0; d < rank; ++d) {
      if (v.sizes[d] == 1 && (!only || *only == d)) continue;
      s.push_back(v.sizes[d]);
      st.push_back(v.strides[d]);
    }
    return torchTensor(s, st, *v.dtype);
  }
  if (m == "narrow") {
    if (args.pos.size() < 3) fail("narrow takes dim, start, length", args.off);
    size_t d = dim(args.pos[0]);
    std::vector<int64_t> s = v.sizes;
    s[d] = asInt(args.pos[2], args.off, "length");
    return torchTensor(s, v.strides, *v.dtype);
  }
  if (m == "select") {
    if (args.pos.size() < 2) fail("select takes dim and index", args.off);
    size_t d = dim(args.pos[0]);
    std::vector<int64_t> s = v.sizes, st = v.strides;
    s.erase(s.begin() + static_cast<long>(d));
    st.erase(st.begin() + static_cast<long>(d));
    return torchTensor(s, st, *v.dtype);
  }
  // Arithmetic and reductions on inputs are reference computations.
  return mkOpaque("tensor." + m + "(...)");
}

Ref Interpreter::torchIndex(const Ref& t, const Ref& idx, uint32_t off) {
  std::vector<Ref> parts = idx->k == VK::Tuple ? idx->items : std::vector<Ref>{idx};
  std::vector<int64_t> s, st;
  const Value& v = *t;
  size_t d = 0;
  size_t used = 0;
  for (const Ref& p : parts)
    if (p->k != VK::None && !(p->k == VK::Opaque && p->s == "...")) ++used;
  for (const Ref& p : parts) {
    if (p->k == VK::None) {
      s.push_back(1);
      st.push_back(d < v.sizes.size() ? v.sizes[d] * v.strides[d] : 1);
      continue;
    }
    if (p->k == VK::Opaque && p->s == "...") {
      while (d < v.sizes.size() - std::min(v.sizes.size(), used - std::min(used, d))) {
        s.push_back(v.sizes[d]);
        st.push_back(v.strides[d]);
        ++d;
      }
      continue;
    }
    if (d >= v.sizes.size())
      fail("too many indices for a tensor of rank " + std::to_string(v.sizes.size()), off,
           DiagCode::BadConcreteInput);
    if (p->k == VK::Int || p->k == VK::Bool) {
      ++d;  // the dim goes away
      continue;
    }
    if (p->k == VK::Opaque && p->s == "slice") {
      int64_t n = v.sizes[d];
      auto bound = [&](size_t k, int64_t dflt) {
        if (p->items[k]->k == VK::None) return dflt;
        int64_t x = asInt(p->items[k], off, "a slice bound");
        if (x < 0) x += n;
        return std::clamp<int64_t>(x, 0, n);
      };
      int64_t step = p->items[2]->k == VK::None ? 1 : asInt(p->items[2], off, "a slice step");
      if (step <= 0) fail("a tensor slice step must be positive", off, DiagCode::BadConcreteInput);
      int64_t lo = bound(0, 0), hi = bound(1, n);
      s.push_back(hi > lo ? (hi - lo + step - 1) / step : 0);
      st.push_back(v.strides[d] * step);
      ++d;
      continue;
    }
    return mkOpaque("tensor[...]");  // advanced indexing: a reference computation
  }
  for (; d < v.sizes.size(); ++d) {
    s.push_back(v.sizes[d]);
    st.push_back(v.strides[d]);
  }
  return torchTensor(s, st, *v.dtype);
}

Ref Interpreter::narrowPrecisionCall(const std::string& fn, Args& args) {
  const bool quantize = fn == "pytorch_nvfp4_quantize" || fn.ends_with(".pytorch_nvfp4_quantize");
  const bool to_fp4 = fn.ends_with("narrow_precision.to_fp4") || fn.ends_with("direct_utils.to_fp4");
  if (!quantize && !to_fp4) return nullptr;
  const std::string name = quantize ? "pytorch_nvfp4_quantize" : "to_fp4";
  if (args.pos.empty() || args.pos[0]->k != VK::Torch) fail(name + " takes a torch tensor", args.off);
  const std::vector<int64_t>& sizes = args.pos[0]->sizes;
  // to_fp4 packs pairs of the last dim; pytorch_nvfp4_quantize scales blocks of 16 of it first.
  const int64_t block = quantize ? 16 : 2;
  if (sizes.empty() || sizes.back() % block != 0)
    fail(name + ": the last dim must divide by " + std::to_string(block), args.off);
  std::vector<int64_t> packed = sizes;
  packed.back() /= 2;
  Ref fp4 = torchTensor(packed, contiguousStrides(packed), DType::Float4_e2m1fn_x2);
  fp4->off = args.off;
  if (!quantize) return fp4;
  // The block scales: one Float8_e4m3fn per 16 elements, [sizes[0], numel / sizes[0] / 16].
  int64_t numel = 1;
  for (int64_t d : sizes) {
    auto n = checkedMul(numel, d);
    if (!n) fail(name + ": the tensor has more elements than fusecheck can count", args.off);
    numel = *n;
  }
  const std::vector<int64_t> scale_sizes{sizes[0], sizes[0] == 0 ? 0 : numel / sizes[0] / 16};
  Ref scale = torchTensor(scale_sizes, contiguousStrides(scale_sizes), DType::Float8_e4m3fn);
  scale->off = args.off;
  Ref r = mk(VK::Tuple);
  r->items = {fp4, scale};
  return r;
}

// A rank's shard of an unsharded torch tensor, as nvFuser's multi-device test fixtures make it:
// `shard_tensor(t, tv)` slices each axis the fusion tensor's mesh and parallelization shard
// (nvfuser_direct.multidevice.shard_tensor, tests/python/multidevice/conftest.py:73-98 @
// 81c4b22fd), `shard_tensor(t, dim, mesh)` / `shard_tensor_1d(t, dim, mesh)` and
// `mesh.shard_tensor(t, dim)` slice `dim` by the mesh's size. The shard is copied to the rank's
// device (`.cuda(local_rank)`): contiguous. Rank 0's shard: a size that does not divide gives
// rank 0 the larger part, as torch.chunk does.
Ref Interpreter::shardTensor(const std::string& callee, const Ref& mesh_self, Args& args) {
  auto get = [&](size_t i, std::string_view name) -> Ref {
    if (i < args.pos.size()) return args.pos[i];
    if (const Ref* r = kw(args, name)) return *r;
    return nullptr;
  };
  Ref t = get(0, "t");
  if (!t) t = get(0, "tensor");
  if (!t || t->k != VK::Torch) fail("`" + callee + "` takes a torch tensor first", args.off);
  std::vector<int64_t> sizes = t->sizes;
  auto shard = [&](size_t d, int64_t parts) {
    if (parts > 1 && sizes[d] > 0) sizes[d] = (sizes[d] + parts - 1) / parts;
  };
  Ref second = mesh_self ? nullptr : get(1, "tv");
  if (second && second->k == VK::Tensor) {
    const Fusion& f = second->rec->f;
    const Tensor& tv = f.tensors[second->id];
    size_t k = 0;
    for (size_t pos = 0; pos < tv.logical.size(); ++pos) {
      if (f.axes[tv.logical[pos]].iter == IterType::Reduction) continue;
      if (k >= sizes.size())
        fail("`" + callee + "`: the torch tensor has rank " + std::to_string(sizes.size()) +
                 ", fewer than the fusion tensor's axes",
             args.off, DiagCode::BadConcreteInput);
      // Each DID type sharding the axis divides it (an axis split twice, by DIDx and DIDy).
      if (isDeviceDim(shardingOf(f, second->id, pos))) {
        if (tv.mesh == kNone || tv.mesh >= f.meshes.size())
          fail("`" + callee + "`: the fusion tensor is sharded but has no device mesh", args.off);
        shard(k, shardCount(f, second->id, pos, f.meshes[tv.mesh]));
      }
      ++k;
    }
  } else {
    Ref dim = get(1, "dim");
    Ref mesh = mesh_self ? mesh_self : get(2, "mesh");
    if (!dim || !mesh || mesh->k != VK::Mesh)
      fail("`" + callee + "` takes (tensor, fusion tensor) or (tensor, dim, mesh)", args.off);
    int64_t d = asInt(dim, args.off, "dim");
    const auto rank = static_cast<int64_t>(sizes.size());
    if (d < -rank || d >= rank)
      fail("dim " + std::to_string(d) + " is out of range for a tensor of rank " + std::to_string(rank),
           args.off, DiagCode::BadConcreteInput);
    int64_t parts = 1;
    for (int64_t s : mesh->sizes) parts *= s;
    shard(static_cast<size_t>(d < 0 ? d + rank : d), parts);
  }
  Ref r = torchTensor(sizes, contiguousStrides(sizes), *t->dtype);
  r->off = args.off;
  r->range = t->range;
  r->fill = t->fill;
  r->dtype_off = t->dtype_off;
  r->converted = t->converted;
  return r;
}

// An elementwise op on torch tensors and Python numbers (`0.1 * torch.randn(...)` in an inputs
// list): the broadcast sizes, contiguous, of PyTorch's result dtype. The values are not followed.
// Opaque where the interpreter does not know the result (matmul, sizes that do not broadcast,
// bitwise ops on floating values, an operand that is neither).
Ref Interpreter::torchArithmetic(const std::string& op, const Ref& l, const Ref& r) {
  auto opaque = [] { return mkOpaque("torch tensor arithmetic"); };
  if (op == "@") return opaque();
  auto operand = [](const Value& v) -> std::optional<PromotionOperand> {
    switch (v.k) {
      case VK::Torch: return PromotionOperand{*v.dtype, true, v.sizes.empty()};
      case VK::Bool: return PromotionOperand{DType::Bool, false};
      case VK::Int: return PromotionOperand{DType::Int, false};
      case VK::Float: return PromotionOperand{DType::Float, false};
      case VK::Complex: return PromotionOperand{DType::ComplexFloat, false};
      default: return std::nullopt;
    }
  };
  const std::optional<PromotionOperand> a = operand(*l), b = operand(*r);
  if (!a || !b) return opaque();
  const bool bitwise = op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>";
  const PromotionOperand both[] = {*a, *b};
  const std::optional<DType> dtype = torchResultType(both, op == "/");
  if (!dtype || (bitwise && (isFloatingPoint(*dtype) || isComplex(*dtype)))) return opaque();
  const std::vector<int64_t> none;
  const std::vector<int64_t>& ls = l->k == VK::Torch ? l->sizes : none;
  const std::vector<int64_t>& rs = r->k == VK::Torch ? r->sizes : none;
  std::vector<int64_t> sizes(std::max(ls.size(), rs.size()), 1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t x = i < ls.size() ? ls[ls.size() - 1 - i] : 1;
    const int64_t y = i < rs.size() ? rs[rs.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return opaque();
    sizes[sizes.size() - 1 - i] = x == 1 ? y : x;
  }
  return torchTensor(sizes, contiguousStrides(sizes), *dtype);
}

// torch's elementwise functions on tensors and numbers (the reference computations that build a
// repro's inputs: `torch.lt(torch.rand(...), 0.8)` for a dropout mask, `softmax(x, dim=-1)`):
// sizes broadcast, PyTorch's result dtype, contiguous. Null for any other function, and where an
// operand is neither a tensor nor a number.
Ref Interpreter::torchElementwise(const std::string& f, Args& args) {
  static const std::unordered_map<std::string_view, std::string_view> kBinary = {
      {"add", "+"},           {"sub", "-"},       {"subtract", "-"},    {"mul", "*"},
      {"multiply", "*"},      {"div", "/"},       {"divide", "/"},      {"true_divide", "/"},
      {"floor_divide", "//"}, {"remainder", "%"}, {"fmod", "%"},        {"pow", "**"},
      {"maximum", "+"},       {"minimum", "+"},   {"bitwise_and", "&"}, {"bitwise_or", "|"},
      {"bitwise_xor", "^"}};
  static const std::unordered_set<std::string_view> kCompare = {
      "lt", "gt", "le", "ge", "eq", "ne", "less", "greater", "logical_and", "logical_or", "logical_xor"};
  // Unary functions that keep the dtype, and those that compute in a floating type.
  static const std::unordered_set<std::string_view> kKeep = {
      "abs",   "neg",  "negative", "relu",  "nn.functional.relu",   "clone", "square", "sign",
      "floor", "ceil", "round",    "trunc", "nn.functional.dropout"};
  static const std::unordered_set<std::string_view> kFloat = {"exp",
                                                              "log",
                                                              "sqrt",
                                                              "rsqrt",
                                                              "sin",
                                                              "cos",
                                                              "tanh",
                                                              "sigmoid",
                                                              "erf",
                                                              "reciprocal",
                                                              "log1p",
                                                              "expm1",
                                                              "softmax",
                                                              "log_softmax",
                                                              "nn.functional.softmax",
                                                              "nn.functional.log_softmax",
                                                              "nn.functional.gelu",
                                                              "nn.functional.silu",
                                                              "nn.functional.sigmoid",
                                                              "nn.functional.tanh",
                                                              "special.expit"};
  const bool binary = kBinary.contains(f), compare = kCompare.contains(f) || f == "logical_not";
  if (!binary && !compare && !kKeep.contains(f) && !kFloat.contains(f)) return nullptr;
  if (args.pos.empty() || args.pos[0]->k != VK::Torch) return nullptr;
  if (binary || (compare && f != "logical_not")) {
    const Ref* other = args.pos.size() > 1 ? &args.pos[1] : kw(args, "other");
    if (!other) return nullptr;
    std::string op(binary ? kBinary.at(f) : "+");
    if (op == "/" && kw(args, "rounding_mode") && (*kw(args, "rounding_mode"))->k == VK::Str) op = "//";
    Ref r = torchArithmetic(compare ? "+" : op, args.pos[0], *other);
    if (r->k != VK::Torch) return nullptr;
    if (compare) r->dtype = DType::Bool;
    return r;
  }
  const Value& t = *args.pos[0];
  DType dt = *t.dtype;
  if (f == "logical_not") dt = DType::Bool;
  if (kFloat.contains(f) && !isFloatingPoint(dt) && !isComplex(dt)) dt = DType::Float;
  if (const Ref* d = kw(args, "dtype");
      d && ((*d)->k == VK::TorchDType || (*d)->k == VK::DType) && (*d)->dtype)
    dt = *(*d)->dtype;
  return torchTensor(t.sizes, denseNonOverlapping(t) ? t.strides : contiguousStrides(t.sizes), dt);
}

}  // namespace fc::py
