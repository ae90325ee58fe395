// Python's builtins, the methods of str / list / tuple / dict, and module attributes and calls
// (see interpreter.h): enough of Python for the code repros wrap around a definition. A call
// into a module the interpreter does not model is skipped outside a definition and an error
// inside one.
#include <algorithm>
#include <cmath>
#include <functional>

#include "io/import_text.h"
#include "io/python/frontend_ops.h"
#include "io/python/interpreter.h"
#include "support/checked.h"

namespace fc::py {
namespace {

std::string str(const Value& v) {
  switch (v.k) {
    case VK::Str: return v.s;
    case VK::Int: return std::to_string(v.i);
    case VK::Bool: return v.i ? "True" : "False";
    case VK::Float: return std::to_string(v.f);
    case VK::Complex: return "(" + std::to_string(v.f) + "+" + std::to_string(v.im) + "j)";
    case VK::None: return "None";
    default: return "<" + typeName(v) + ">";
  }
}

const Ref* kwArg(const Args& a, std::string_view name) {
  for (const auto& [k, v] : a.kw)
    if (k == name) return &v;
  return nullptr;
}

// "nvfuser_direct.X" / "nvfuser.X" -> "X"; "" for other modules.
std::string nvfuserMember(const std::string& dotted) {
  for (std::string_view pre : {"nvfuser_direct.", "nvfuser.", "torch._C._nvfuser."})
    if (dotted.rfind(pre, 0) == 0) return dotted.substr(pre.size());
  return {};
}

}  // namespace

Ref Interpreter::undefinedEnumMember(const Node& attr, const std::shared_ptr<Scope>& sc) {
  const Node& base = m_[attr.a[0]];
  if (base.k != NK::Name || base.s.empty() || !std::isupper(static_cast<unsigned char>(base.s[0])))
    return nullptr;
  const bool caps = std::any_of(attr.s.begin(), attr.s.end(), [](char c) { return std::isupper(c) != 0; }) &&
                    std::none_of(attr.s.begin(), attr.s.end(), [](char c) { return std::islower(c) != 0; });
  if (!caps || findName(base, sc)) return nullptr;
  if (undefined_enums_.insert(base.s).second)
    report(Severity::Note, DiagCode::ImportUnresolved,
           "`" + base.s + "` is not defined: `" + base.s + "." + attr.s +
               "` and its other members are taken as constants, each equal only to itself",
           base.off);
  Ref v = mkOpaque(base.s + "." + attr.s);
  v->i = 1;
  return v;
}

Ref Interpreter::moduleAttr(const Ref& mod, const std::string& name, uint32_t off) {
  const std::string& m = mod->s;
  if (m == "fd.ops" || m == "fd.sched") {
    // As in Python, naming an op that does not exist fails where it is named, called or not.
    if (m == "fd.ops" && name != "view" && !findFrontendOp(name)) failUnknownOp(name, off);
    Ref b = mkBuiltin(m + "." + name, mod);
    b->rec = mod->rec;
    return b;
  }
  if (m == "builtins") {
    static const char* py[] = {"print",
                               "range",
                               "len",
                               "list",
                               "tuple",
                               "dict",
                               "int",
                               "float",
                               "complex",
                               "bool",
                               "str",
                               "enumerate",
                               "zip",
                               "min",
                               "max",
                               "sum",
                               "abs",
                               "isinstance",
                               "getattr",
                               "hasattr",
                               "super",
                               "sorted",
                               "reversed",
                               "any",
                               "all",
                               "round",
                               "set",
                               "type",
                               "repr",
                               "map",
                               "filter",
                               "divmod",
                               "open",
                               "exit",
                               "id",
                               "iter",
                               "next",
                               "object",
                               "Exception",
                               "ValueError",
                               "RuntimeError",
                               "NotImplementedError",
                               "AssertionError",
                               "input"};
    for (const char* p : py)
      if (name == p) return mkBuiltin(name);
    // Used without an import: the frontend the script shows otherwise (the direct tests' fixture).
    if (name == "FusionDefinition" || name == "DataType" || name == "ParallelType" || name == "DeviceMesh")
      return mkModule((imported_ == Frontend::Direct ? "nvfuser_direct." : "nvfuser.") + name);
    if (name == "Fusion") return mkModule("torch._C._nvfuser.Fusion");  // PyTorch's tree (2022)
    if (name == "make_tensor") return mkModule("torch.testing.make_tensor");
    // A test copied out of its file keeps what the file imported: `partial` (nvFuser's frontend
    // tests import it from functools), `pytest.skip(...)`, `itertools.product(...)`.
    if (name == "partial") return mkModule("functools.partial");
    if (name == "torch" || name == "nvfuser" || name == "math" || name == "nvfuser_direct" ||
        name == "pytest" || name == "itertools" || name == "functools")
      return mkModule(name);
    return nullptr;
  }
  std::string member = nvfuserMember(m);
  if (member == "DataType") {
    Ref d = mk(VK::DType);
    if (name == "Null") return d;
    std::string n = name == "Bfloat16" ? "BFloat16" : name == "Int64" ? "Int" : name;
    if (auto t = parseDType(n)) {
      d->dtype = *t;
      return d;
    }
    std::string known;
    for (int i = 0; i < kNumDTypes; ++i)
      known += (i ? ", " : "") + std::string(dtypeName(static_cast<DType>(i)));
    fail("`DataType." + name + "` is not modelled by fusecheck (its dtypes: " + known + ")", off);
  }
  if (member == "ParallelType") {
    Ref p = mk(VK::Parallel);
    p->s = name;
    return p;
  }
  if (m == "torch") {
    static constexpr lex::Spelling<DType> kTorchAliases[] = {{"half", DType::Half},
                                                             {"float", DType::Float},
                                                             {"double", DType::Double},
                                                             {"int", DType::Int32},
                                                             {"long", DType::Int},
                                                             {"cfloat", DType::ComplexFloat},
                                                             {"cdouble", DType::ComplexDouble}};
    if (auto t = lex::dtypeSpelled(name, dtypeTorchName, kTorchAliases)) {
      Ref d = mk(VK::TorchDType);
      d->dtype = *t;
      d->s = name;
      return d;
    }
  }
  if (m == "math") {
    if (name == "pi") return mkFloat(M_PI);
    if (name == "e") return mkFloat(M_E);
    if (name == "inf") return mkFloat(INFINITY);
    if (name == "nan") return mkFloat(NAN);
  }
  return mkModule(m + "." + name);
}

Ref Interpreter::moduleCall(const std::string& dotted, Args& args) {
  std::string member = nvfuserMember(dotted);
  Frontend fe = dotted.rfind("nvfuser_direct", 0) == 0 ? Frontend::Direct : Frontend::Legacy;
  // PyTorch's tree (torch._C._nvfuser, 2022): a Fusion object that FusionDefinition(fusion) records
  // into and that executes; nvFuser's own repository never bound either.
  if (member == "Fusion") {
    Ref fusion = newFusionDefinition(args.off, Frontend::Legacy, nullptr);
    fusion->rec->markPreRepo("`Fusion()`", args.off);
    return fusion;
  }
  if (member == "FusionDefinition" && !args.pos.empty() && args.pos[0]->k == VK::FusionDef) {
    Ref fd = mk(VK::FusionDef);
    fd->rec = args.pos[0]->rec;
    return fd;
  }
  if (member == "FusionDefinition") return newFusionDefinition(args.off, fe, nullptr);
  if (member == "DeviceMesh" || member == "multidevice.DeviceMesh") return makeMesh(args);
  if (member == "multidevice.shard_tensor") return shardTensor(dotted, nullptr, args);
  if (dotted.ends_with("torch_dtype_to_nvfuser_dtype")) {
    if (args.pos.empty()) fail("torch_dtype_to_nvfuser_dtype takes a torch dtype", args.off);
    Ref d = mk(VK::DType);
    const Ref& t = args.pos[0];
    if (t->k != VK::TorchDType && t->k != VK::DType)
      fail("torch_dtype_to_nvfuser_dtype takes a torch dtype", args.off);
    d->dtype = t->dtype;
    return d;
  }
  if (dotted == "functools.partial") {
    // partial(f, *args, **kw): f with those arguments given first (its keywords overridable).
    if (args.pos.empty() || args.pos[0]->k != VK::Func)
      skip("`functools.partial` of a value that is not a function", args.off);
    Ref p = std::make_shared<Value>(*args.pos[0]);
    auto bound = std::make_shared<Args>(p->partial ? *p->partial : Args{});
    bound->pos.insert(bound->pos.end(), args.pos.begin() + 1, args.pos.end());
    bound->pos_off.insert(bound->pos_off.end(), args.pos_off.begin() + (args.pos_off.empty() ? 0 : 1),
                          args.pos_off.end());
    bound->kw.insert(bound->kw.end(), args.kw.begin(), args.kw.end());
    bound->kw_off.insert(bound->kw_off.end(), args.kw_off.begin(), args.kw_off.end());
    p->partial = std::move(bound);
    return p;
  }
  // torch.distributed's world size and rank, as a test's fixture gives them.
  if (dotted == "torch.distributed.get_world_size" && args.pos.empty() && args.kw.empty())
    return assumedDevices(dotted + "()", args.off);
  if (dotted == "torch.distributed.get_rank" && args.pos.empty() && args.kw.empty())
    return assumedRank(dotted + "()", args.off);
  if (dotted.rfind("torch.", 0) == 0) {
    Ref r = torchCall(dotted, args);
    if (r->k == VK::Torch && r->off == 0) r->off = args.off;
    return r;
  }
  if (dotted.rfind("math.", 0) == 0 && args.pos.size() >= 1) {
    std::string fn = dotted.substr(5);
    if (fn == "prod") {
      int64_t p = 1;
      for (const Ref& x : iterate(args.pos[0], args.off)) {
        auto q = checkedMul(p, asInt(x, args.off, "math.prod"));
        if (!q)
          fail("math.prod: the product is not an integer fusecheck can hold (beyond 64 bits)", args.off);
        p = *q;
      }
      return mkInt(p);
    }
    double x = asFloat(args.pos[0], args.off, dotted);
    if (fn == "ceil" || fn == "floor") {
      auto i = checkedTruncToInt64(fn == "ceil" ? std::ceil(x) : std::floor(x));
      if (!i) fail(dotted + " of " + pyFloatRepr(x) + ": not an integer fusecheck can hold", args.off);
      return mkInt(*i);
    }
    if (fn == "sqrt") return mkFloat(std::sqrt(x));
    if (fn == "log2") return mkFloat(std::log2(x));
  }
  if (dotted == "pytest.skip" && stop_at_skip_ && devices_read_) {
    skipped_at_ = args.off;
    throw PyError{DiagCode::ImportUnsupported, "the test skips", args.off, false, false, true};
  }
  if (Ref r = narrowPrecisionCall(dotted, args)) return r;
  if (dotted == "enum.auto" && args.pos.empty()) return mkInt(++enum_auto_);  // 1, 2, ... in a class body
  if (dotted == "itertools.product" || dotted == "itertools.permutations" ||
      dotted == "itertools.combinations")
    return itertoolsCall(dotted.substr(10), args);
  if (recording()) fail("`" + dotted + "` is not modelled by fusecheck", args.off);
  skip("`" + dotted + "` is not about the fusion", args.off);
}

// itertools.product(*iterables, repeat=1), permutations(iterable, r=None), combinations(iterable, r),
// in Python's order, as a list of tuples (tests loop a definition over them). At most kMaxItems
// tuples: a script that asks for more stops here.
Ref Interpreter::itertoolsCall(const std::string& fn, Args& args) {
  constexpr size_t kMaxItems = 1 << 16;
  std::vector<Ref> out;
  auto push = [&](std::vector<Ref> items) {
    if (out.size() >= kMaxItems)
      fail("itertools." + fn + " gives more than " + std::to_string(kMaxItems) + " tuples", args.off);
    out.push_back(mkSeq(VK::Tuple, std::move(items)));
  };
  auto kwInt = [&](const char* key, int64_t dflt) {
    for (const auto& [k, v] : args.kw)
      if (k == key) return asInt(v, args.off, key);
    return dflt;
  };
  if (fn == "product") {
    std::vector<std::vector<Ref>> pools;
    const int64_t repeat = kwInt("repeat", 1);
    if (repeat < 0 || repeat > 16) fail("itertools.product: repeat out of range", args.off);
    for (int64_t r = 0; r < repeat; ++r)
      for (const Ref& a : args.pos) pools.push_back(iterate(a, args.off));
    std::vector<size_t> idx(pools.size(), 0);
    for (const auto& p : pools)
      if (p.empty()) return mkSeq(VK::List, {});
    while (true) {
      std::vector<Ref> t;
      for (size_t i = 0; i < pools.size(); ++i) t.push_back(pools[i][idx[i]]);
      push(std::move(t));
      size_t i = pools.size();
      while (i > 0 && ++idx[i - 1] == pools[i - 1].size()) idx[--i] = 0;
      if (i == 0) break;
    }
    return mkSeq(VK::List, std::move(out));
  }
  if (args.pos.empty()) fail("itertools." + fn + " takes an iterable", args.off);
  const std::vector<Ref> pool = iterate(args.pos[0], args.off);
  const int64_t n = static_cast<int64_t>(pool.size());
  int64_t r =
      args.pos.size() > 1 ? asInt(args.pos[1], args.off, "r") : kwInt("r", fn == "permutations" ? n : -1);
  if (r < 0) fail("itertools." + fn + " needs r", args.off);
  if (r > n) return mkSeq(VK::List, {});
  // Index tuples in lexicographic order: combinations increasing, permutations distinct.
  std::vector<int64_t> idx;
  std::function<void()> rec = [&] {
    if (static_cast<int64_t>(idx.size()) == r) {
      std::vector<Ref> t;
      for (int64_t i : idx) t.push_back(pool[static_cast<size_t>(i)]);
      push(std::move(t));
      return;
    }
    for (int64_t i = fn == "combinations" && !idx.empty() ? idx.back() + 1 : 0; i < n; ++i) {
      if (fn == "permutations" && std::find(idx.begin(), idx.end(), i) != idx.end()) continue;
      idx.push_back(i);
      rec();
      idx.pop_back();
    }
  };
  rec();
  return mkSeq(VK::List, std::move(out));
}

Ref Interpreter::builtinCall(const Value& f, Args& args) {
  const std::string& n = f.s;
  if (n.rfind("fd.ops.", 0) == 0) return opsCall(f.rec, n.substr(7), args);
  if (n.rfind("fd.sched.", 0) == 0) return schedCall(f.rec, n.substr(9), args);
  if (n.rfind("fd.", 0) == 0) return fdCall(f.self->rec, n.substr(3), args);
  if (n.rfind("tensor.", 0) == 0) return tensorMethod(f.self, n.substr(7), args);
  if (n.rfind("torch.", 0) == 0) {
    Ref r = torchMethod(f.self, n.substr(6), args);
    if (r->k == VK::Torch && r != f.self) {  // a view or copy keeps the data's description
      r->off = args.off;
      r->range = f.self->range;
      r->fill = f.self->fill;
      r->dtype_off = f.self->dtype_off;
      r->converted = f.self->converted || r->dtype != f.self->dtype;
    }
    return r;
  }
  auto arg = [&](size_t i) -> const Ref& {
    if (i >= args.pos.size()) fail("`" + n + "` is missing an argument", args.off);
    return args.pos[i];
  };
  // ---- methods of Python values
  const Ref& self = f.self;
  if (n == "list.append") return self->items.push_back(arg(0)), mkNone();
  if (n == "list.extend") {
    for (const Ref& x : iterate(arg(0), args.off)) self->items.push_back(x);
    return mkNone();
  }
  if (n == "list.insert") {
    int64_t i =
        std::clamp<int64_t>(asInt(arg(0), args.off, "index"), 0, static_cast<int64_t>(self->items.size()));
    self->items.insert(self->items.begin() + i, arg(1));
    return mkNone();
  }
  if (n == "list.pop") {
    if (self->items.empty()) fail("pop from an empty list", args.off);
    const auto size = static_cast<int64_t>(self->items.size());
    int64_t i = args.pos.empty() ? size - 1 : asInt(arg(0), args.off, "index");
    if (i < 0) i += size;
    if (i < 0 || i >= size) fail("pop index out of range", args.off);
    Ref r = self->items[static_cast<size_t>(i)];
    self->items.erase(self->items.begin() + i);
    return r;
  }
  if (n == "list.remove") {
    for (auto it = self->items.begin(); it != self->items.end(); ++it)
      if (equal(*it, arg(0))) {
        self->items.erase(it);
        return mkNone();
      }
    fail("list.remove(x): x not in list", args.off);
  }
  if (n == "list.clear" || n == "dict.clear") {
    self->items.clear();
    self->keys.clear();
    return mkNone();
  }
  if (n == "list.count" || n == "tuple.count")
    return mkInt(std::count_if(self->items.begin(), self->items.end(),
                               [&](const Ref& x) { return equal(x, arg(0)); }));
  if (n == "list.reverse") return std::reverse(self->items.begin(), self->items.end()), mkNone();
  if (n == "list.sort") {
    if (kwArg(args, "key")) fail("list.sort(key=...) is not modelled", args.off);
    std::stable_sort(self->items.begin(), self->items.end(), [&](const Ref& a, const Ref& b) {
      return truthy(compare("<", a, b, args.off), args.off);
    });
    if (const Ref* r = kwArg(args, "reverse"); r && truthy(*r, args.off))
      std::reverse(self->items.begin(), self->items.end());
    return mkNone();
  }
  if (n == "list.copy") return mkSeq(VK::List, self->items);
  if (n == "list.index" || n == "tuple.index") {
    for (size_t i = 0; i < self->items.size(); ++i)
      if (equal(self->items[i], arg(0))) return mkInt(static_cast<int64_t>(i));
    fail("the value is not in the list", args.off);
  }
  if (n == "dict.get") {
    for (size_t i = 0; i < self->keys.size(); ++i)
      if (equal(self->keys[i], arg(0))) return self->items[i];
    return args.pos.size() > 1 ? args.pos[1] : mkNone();
  }
  if (n == "dict.items") {
    std::vector<Ref> r;
    for (size_t i = 0; i < self->keys.size(); ++i)
      r.push_back(mkSeq(VK::Tuple, {self->keys[i], self->items[i]}));
    return mkSeq(VK::List, r);
  }
  if (n == "dict.pop" || n == "dict.setdefault") {
    for (size_t i = 0; i < self->keys.size(); ++i)
      if (equal(self->keys[i], arg(0))) {
        Ref r = self->items[i];
        if (n == "dict.pop") {
          self->keys.erase(self->keys.begin() + static_cast<std::ptrdiff_t>(i));
          self->items.erase(self->items.begin() + static_cast<std::ptrdiff_t>(i));
        }
        return r;
      }
    if (n == "dict.pop" && args.pos.size() < 2) fail("dict.pop: the key is not in the dict", args.off);
    Ref dflt = args.pos.size() > 1 ? args.pos[1] : mkNone();
    if (n == "dict.setdefault") self->keys.push_back(arg(0)), self->items.push_back(dflt);
    return dflt;
  }
  if (n == "dict.update") {
    auto put = [&](const Ref& k, const Ref& v) {
      for (size_t i = 0; i < self->keys.size(); ++i)
        if (equal(self->keys[i], k)) return void(self->items[i] = v);
      self->keys.push_back(k);
      self->items.push_back(v);
    };
    if (!args.pos.empty()) {
      if (arg(0)->k != VK::Dict) fail("dict.update of a " + typeName(*arg(0)), args.off);
      for (size_t i = 0; i < arg(0)->keys.size(); ++i) put(arg(0)->keys[i], arg(0)->items[i]);
    }
    for (const auto& [k, v] : args.kw) put(mkStr(k), v);
    return mkNone();
  }
  if (n == "dict.copy") {
    Ref d = mk(VK::Dict);
    d->keys = self->keys;
    d->items = self->items;
    return d;
  }
  if (n == "dict.keys") return mkSeq(VK::List, self->keys);
  if (n == "dict.values") return mkSeq(VK::List, self->items);
  if (n.rfind("str.", 0) == 0) {
    std::string m = n.substr(4);
    if (m == "join") {
      std::string s;
      bool first = true;
      for (const Ref& x : iterate(arg(0), args.off)) {
        if (!first) s += self->s;
        s += str(*x);
        first = false;
      }
      return mkStr(s);
    }
    if (m == "startswith") return mkBool(self->s.rfind(str(*arg(0)), 0) == 0);
    if (m == "endswith") return mkBool(self->s.ends_with(str(*arg(0))));
    if (m == "split") {
      std::vector<Ref> parts;
      std::string sep = args.pos.empty() ? " " : str(*arg(0));
      size_t start = 0;
      while (true) {
        size_t p = sep.empty() ? std::string::npos : self->s.find(sep, start);
        parts.push_back(mkStr(self->s.substr(start, p - start)));
        if (p == std::string::npos) break;
        start = p + sep.size();
      }
      return mkSeq(VK::List, parts);
    }
    return mkStr(self->s);  // format, strip, lower, replace, ...: the text is never about the fusion
  }
  // ---- builtins
  if (n == "print") skip("`print` is not about the fusion", args.off);
  if (n == "super") return mkOpaque("super()");
  if (n == "len") {
    const Ref& x = arg(0);
    if (x->k == VK::Str) return mkInt(static_cast<int64_t>(x->s.size()));
    if (x->k == VK::Vector) return mkInt(static_cast<int64_t>(x->ids.size()));
    if (x->k == VK::Torch) {
      if (x->sizes.empty()) fail("len() of a 0-d tensor", args.off);
      return mkInt(x->sizes[0]);
    }
    return mkInt(static_cast<int64_t>(iterate(x, args.off).size()));
  }
  if (n == "range") {
    int64_t lo = 0, hi = 0, step = 1;
    if (args.pos.size() == 1)
      hi = asInt(arg(0), args.off, "range");
    else {
      lo = asInt(arg(0), args.off, "range");
      hi = asInt(arg(1), args.off, "range");
      if (args.pos.size() > 2) step = asInt(arg(2), args.off, "range");
    }
    if (step == 0) fail("range() step cannot be zero", args.off);
    std::vector<Ref> r;
    for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
      tick(args.off);
      r.push_back(mkInt(i));
    }
    return mkSeq(VK::List, r);
  }
  if (n == "list" || n == "tuple" || n == "set" || n == "sorted" || n == "reversed") {
    std::vector<Ref> items = args.pos.empty() ? std::vector<Ref>{} : iterate(arg(0), args.off);
    if (n == "sorted")
      std::stable_sort(items.begin(), items.end(), [&](const Ref& a, const Ref& b) {
        return truthy(compare("<", a, b, args.off), args.off);
      });
    if (n == "reversed") std::reverse(items.begin(), items.end());
    return mkSeq(n == "tuple" ? VK::Tuple : VK::List, items);
  }
  if (n == "dict") {
    Ref d = mk(VK::Dict);
    for (size_t k = 0; k < args.kw.size(); ++k) {
      d->keys.push_back(mkStr(args.kw[k].first));
      d->items.push_back(args.kw[k].second);
    }
    return d;
  }
  if (n == "int") {
    if (args.pos.empty()) return mkInt(0);
    const Ref& x = arg(0);
    if (x->k == VK::Float) {
      auto i = checkedTruncToInt64(x->f);
      if (!i) fail("int() of " + pyFloatRepr(x->f) + ": not an integer fusecheck can hold", args.off);
      return mkInt(*i);
    }
    if (x->k == VK::Str) return mkInt(std::strtoll(x->s.c_str(), nullptr, 10));
    return mkInt(asInt(x, args.off, "int()"));
  }
  if (n == "float") {
    if (args.pos.empty()) return mkFloat(0);
    const Ref& x = arg(0);
    if (x->k == VK::Str) {
      std::string s = x->s;
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (s == "inf" || s == "+inf" || s == "infinity") return mkFloat(INFINITY);
      if (s == "-inf" || s == "-infinity") return mkFloat(-INFINITY);
      if (s == "nan") return mkFloat(NAN);
      char* end = nullptr;
      double v = std::strtod(x->s.c_str(), &end);
      if (end && *end == 0 && !x->s.empty()) return mkFloat(v);
      fail("float() of `" + x->s + "`", args.off);
    }
    return mkFloat(asFloat(x, args.off, "float()"));
  }
  if (n == "complex") {
    // complex(real=0, imag=0): each part a number or a complex number, real + imag * 1j.
    if (args.pos.size() > 2) fail("complex() takes at most 2 arguments", args.off);
    double re = 0, im = 0;
    for (size_t k = 0; k < args.pos.size(); ++k) {
      const Ref& x = arg(k);
      const double xr = x->k == VK::Complex ? x->f : asFloat(x, args.off, "complex()");
      const double xi = x->k == VK::Complex ? x->im : 0.0;
      if (k == 0) {  // real
        re += xr;
        im += xi;
      } else {  // imag, times 1j
        re -= xi;
        im += xr;
      }
    }
    return mkComplex(re, im);
  }
  if (n == "bool") return mkBool(!args.pos.empty() && truthy(arg(0), args.off));
  if (n == "str" || n == "repr") return mkStr(args.pos.empty() ? "" : str(*arg(0)));
  if (n == "abs") {
    const Ref& x = arg(0);
    if (x->k == VK::Float) return mkFloat(std::fabs(x->f));
    if (x->k == VK::Complex) return mkFloat(std::hypot(x->f, x->im));
    if (x->k == VK::Tensor || x->k == VK::Scalar) return opsCall(x->rec, "abs", args);
    return mkInt(std::llabs(asInt(x, args.off, "abs()")));
  }
  if (n == "round") return mkInt(static_cast<int64_t>(std::llround(asFloat(arg(0), args.off, "round()"))));
  if (n == "min" || n == "max" || n == "sum" || n == "any" || n == "all") {
    std::vector<Ref> items = args.pos.size() == 1 ? iterate(arg(0), args.off) : args.pos;
    if (n == "any" || n == "all") {
      bool r = n == "all";
      for (const Ref& x : items) r = n == "all" ? (r && truthy(x, args.off)) : (r || truthy(x, args.off));
      return mkBool(r);
    }
    if (n == "sum") {
      Ref acc = args.pos.size() > 1 ? args.pos[1] : mkInt(0);
      for (const Ref& x : args.pos.size() == 1 || args.pos.size() == 2 ? iterate(arg(0), args.off) : items)
        acc = binary("+", acc, x, args.off);
      return acc;
    }
    if (items.empty()) fail(n + "() of an empty sequence", args.off);
    Ref best = items[0];
    for (size_t i = 1; i < items.size(); ++i)
      if (truthy(compare(n == "min" ? "<" : ">", items[i], best, args.off), args.off)) best = items[i];
    return best;
  }
  if (n == "enumerate" || n == "zip") {
    std::vector<Ref> r;
    if (n == "enumerate") {
      int64_t start = args.pos.size() > 1 ? asInt(args.pos[1], args.off, "start") : 0;
      for (const Ref& x : iterate(arg(0), args.off)) r.push_back(mkSeq(VK::Tuple, {mkInt(start++), x}));
    } else {
      std::vector<std::vector<Ref>> cols;
      size_t len = SIZE_MAX;
      for (const Ref& a : args.pos) {
        cols.push_back(iterate(a, args.off));
        len = std::min(len, cols.back().size());
      }
      for (size_t i = 0; i < len && !cols.empty(); ++i) {
        std::vector<Ref> row;
        for (auto& c : cols) row.push_back(c[i]);
        r.push_back(mkSeq(VK::Tuple, row));
      }
    }
    return mkSeq(VK::List, r);
  }
  if (n == "map") {
    std::vector<Ref> r;
    for (const Ref& x : iterate(arg(1), args.off)) {
      Args a;
      a.off = args.off;
      a.pos = {x};
      a.pos_off = {args.off};
      r.push_back(call(arg(0), a));
    }
    return mkSeq(VK::List, r);
  }
  if (n == "divmod") {
    Ref q = binary("//", arg(0), arg(1), args.off);
    return mkSeq(VK::Tuple, {q, binary("%", arg(0), arg(1), args.off)});
  }
  if (n == "isinstance") {
    const Ref& x = arg(0);
    const Ref& t = arg(1);
    if (t->k == VK::Builtin) {
      const std::string& tn = t->s;
      return mkBool((tn == "int" && x->k == VK::Int) || (tn == "float" && x->k == VK::Float) ||
                    (tn == "complex" && x->k == VK::Complex) || (tn == "bool" && x->k == VK::Bool) ||
                    (tn == "str" && x->k == VK::Str) || (tn == "list" && x->k == VK::List) ||
                    (tn == "tuple" && x->k == VK::Tuple) || (tn == "dict" && x->k == VK::Dict));
    }
    skip("isinstance() with a type fusecheck does not model", args.off);
  }
  if (n == "getattr" || n == "hasattr") {
    if (arg(1)->k != VK::Str) fail(n + "() needs an attribute name", args.off);
    if (n == "hasattr") {
      try {
        getAttr(arg(0), arg(1)->s, args.off);
        return mkBool(true);
      } catch (const PyError& e) {
        if (e.fatal) throw;
        return mkBool(false);
      }
    }
    try {
      return getAttr(arg(0), arg(1)->s, args.off);
    } catch (const PyError& e) {
      if (args.pos.size() > 2 && !e.fatal) return args.pos[2];
      throw;
    }
  }
  if (n == "type" || n == "id" || n == "iter" || n == "next" || n == "object" || n == "open" || n == "input")
    skip("`" + n + "()` is not about the fusion", args.off);
  if (n == "exit") skip("`exit()`", args.off);
  if (n.ends_with("Error") || n == "Exception") return mkOpaque(n);
  if (kwArg(args, "") != nullptr) return mkNone();
  fail("`" + n + "` is not modelled by fusecheck", args.off);
}

void Interpreter::enumMembers(const Ref& cls) {
  const bool is_enum = std::any_of(cls->bases.begin(), cls->bases.end(), [](const Ref& b) {
    return b->k == VK::Module && (b->s == "enum.Enum" || b->s == "enum.IntEnum" || b->s == "enum.StrEnum" ||
                                  b->s == "enum.Flag" || b->s == "enum.IntFlag");
  });
  if (!is_enum) return;
  for (auto& [name, v] : *cls->attrs) {
    if (name.empty() || name[0] == '_' || v->k == VK::Func || v->k == VK::Class || v->k == VK::Builtin)
      continue;
    Ref member = mk(VK::Instance);
    member->cls = cls;
    member->attrs = newAttrs({{"name", mkStr(name)}, {"value", v}});
    v = member;
  }
}

}  // namespace fc::py
