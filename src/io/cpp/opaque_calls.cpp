// Calls of real nvFuser ops that fusecheck neither analyses nor executes, by their C++ names in
// csrc/ops/*.h (older spellings too): each call's positional arguments are named as the op's
// Python binding names them and handed to the op's output rule (io/opaque_rules.h); a result
// struct (TopKResult, WelfordResult, SdpfaFwdResult, ForwardNormResult, ScaledTensorView,
// BlockQuantizationResults) becomes a Struct value with nvFuser's field names.
#include <algorithm>
#include <iterator>

#include "io/cpp/reader.h"
#include "io/opaque_rules.h"
#include "support/internal_error.h"

namespace fc::cpp_text {
namespace {

// One C++ op: its name, the fd.ops rule it follows, its parameters in C++ order named as the
// rule reads them, and the fields of the struct it returns (none: one TensorView*).
struct CppOpaqueOp {
  std::string_view cpp, rule, params, fields;
};

// Signatures at 81c4b22fd (csrc/ops/indexing.h, arith.h, composite.h, normalization.h); the
// snake_case indexing names (index_select, torch_gather, take_along_axis) are the spellings up to
// their renaming in 2024-2025 (csrc/ops/indexing.h at 2024-08-01).
constexpr CppOpaqueOp kCppOps[] = {
    {"select", "select", "arg,dim,index", ""},
    {"indexSelect", "index_select", "arg,dim,index", ""},
    {"index_select", "index_select", "arg,dim,index", ""},
    {"indexPutAccumulate", "index_put_accumulate", "acc,index,value", ""},
    {"gather", "gather", "arg1,dim,index", ""},
    {"torch_gather", "gather", "arg1,dim,index", ""},
    {"scatter", "scatter", "arg,dim,index,src", ""},
    {"takeAlongAxis", "take_along_axis", "arg1,index,dim", ""},
    {"take_along_axis", "take_along_axis", "arg1,index,dim", ""},
    {"argsort", "argsort", "arg,dim,descending,stable", ""},
    {"topk", "topk", "arg,k,dim,largest,sorted", "values,indices"},
    {"cumsum", "cumsum", "arg,dim", ""},
    {"prefixSum", "cumsum", "arg,dim", ""},
    {"scan", "cumsum", "arg,dim,op,init", ""},
    {"rand_like", "rand_like", "arg,rng_seed,rng_offset", ""},
    {"randn_like", "randn_like", "arg,rng_seed,rng_offset", ""},
    {"triu", "triu", "input,diagonal", ""},
    {"embedding_fwd", "embedding_fwd",
     "input,weight,padding_idx,max_norm,norm_type,scale_grad_by_freq,sparse", ""},
    {"sdpfa_fwd", "sdpfa_fwd", "query,key,value,bias,mask,dropout_p,is_causal,scale",
     "output,logsumexp,philox_seed,philox_offset"},
    {"sdpfa_bwd", "sdpfa_bwd",
     "grad_output,query,key,value,output,logsumexp,dropout_p,is_causal,philox_seed,philox_offset,scale",
     "grad_query,grad_key,grad_value"},
    {"Welford", "welford", "arg,dims", "avg,var_sum,n"},
    {"batch_norm", "batch_norm",
     "arg,weight,bias,running_mean,running_var,training,momentum,eps,channels_last", "output,mean,invstd"},
    {"grouped_mm", "grouped_mm",
     "mat1,mat2,offsets,scale1,scale2,alpha,bias,beta,dtype,output_block_scale_size,output_block_scale_dtype,"
     "output_gamma",
     "tv,block_scaling_factor,global_scaling_factor"},
    {"scaled_mm", "scaled_mm",
     "mat1,mat2,scale1,scale2,alpha,bias,beta,dtype,output_block_scale_size,output_block_scale_dtype,output_"
     "gamma",
     "tv,block_scaling_factor,global_scaling_factor"},
    {"blockQuantize", "nv_block_quantize", "input,global_scale,block_size,swizzle_block_scales,dtype",
     "quantized_tensor,block_scales"},
    {"groupedBlockQuantize", "nv_grouped_block_quantize",
     "input,input_offsets,output_offsets,layout,global_scale,block_size,dtype",
     "quantized_tensor,block_scales"},
    {"preprocessGroupedMatmulInputSf", "preprocess_grouped_matmul_input_sf",
     "input,input_offsets,output_offsets,layout", ""},
    {"cutlass_nvfp4_grouped_mm", "cutlass_nvfp4_grouped_mm",
     "mat1,mat2,scale1,scale2,alpha,problem_sizes,expert_offsets,sf_offsets,dtype", ""},
};

const CppOpaqueOp* findOp(std::string_view fn) {
  for (const CppOpaqueOp& op : kCppOps)
    if (op.cpp == fn) return &op;
  return nullptr;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> r;
  while (!s.empty()) {
    size_t c = s.find(',');
    r.emplace_back(s.substr(0, c));
    s = c == std::string_view::npos ? std::string_view() : s.substr(c + 1);
  }
  return r;
}

// Leaves an opaque-op call after its diagnostic was reported.
struct Stopped {};

// A C++ call's arguments by the rule's parameter names. Conversions report through the reader's
// own (located at the call) and stop the rule.
class CppArgs final : public OpaqueArgs {
 public:
  CppArgs(Reader& r, ImportBuilder& b, std::string fn, const std::vector<Value>& args,
          std::vector<std::string> params, size_t at)
      : OpaqueArgs(b), r_(r), fn_(std::move(fn)), args_(args), params_(std::move(params)), at_(at) {}

  bool has(const char* p) const override {
    const Value* v = get(p);
    return v && v->k != Value::K::None && !(v->k == Value::K::Opaque && v->s == "DataType::Null");
  }
  bool isTensor(const char* p) const override { return has(p) && get(p)->k == Value::K::Tensor; }
  TensorId tensor(const char* p) override {
    TensorId t = kNone;
    if (!r_.toTensor(need(p), t, at_, what(p))) throw Stopped{};
    return t;
  }
  int64_t integer(const char* p, int64_t dflt) override {
    if (!has(p)) return dflt;
    int64_t v = 0;
    if (!r_.toInt(need(p), v, at_, what(p))) throw Stopped{};
    return v;
  }
  std::vector<int64_t> integers(const char* p) override {
    std::vector<int64_t> v;
    if (!r_.toInts(need(p), v, at_, what(p))) throw Stopped{};
    return v;
  }
  bool flag(const char* p, bool dflt) override { return integer(p, dflt ? 1 : 0) != 0; }
  ScalarId scalar(const char* p, DType int_dtype) override { return scalar(need(p), p, int_dtype); }
  std::vector<ScalarId> shape(const char* p) override {
    const Value& v = need(p);
    if (v.k != Value::K::List) {
      r_.opaqueUse(v, at_, what(p));
      throw Stopped{};
    }
    std::vector<ScalarId> out;
    for (const Value& x : v.items) out.push_back(scalar(x, p, DType::Index));
    return out;
  }
  bool seedReachesOp() const override { return true; }
  std::optional<DType> dtype(const char* p) override {
    if (!has(p)) return std::nullopt;
    DType d = DType::Float;
    if (!r_.toDType(need(p), d, at_, what(p))) throw Stopped{};
    return d;
  }

 protected:
  void stop(const std::string& msg, const char* /*p*/) override {
    r_.error(DiagCode::ImportUnsupported, fn_ + ": " + msg, at_);
    throw Stopped{};
  }

 private:
  const Value* get(const char* p) const {
    auto i = static_cast<size_t>(std::find(params_.begin(), params_.end(), p) - params_.begin());
    return i < args_.size() ? &args_[i] : nullptr;
  }
  const Value& need(const char* p) {
    const Value* v = get(p);
    if (!v) {
      r_.error(DiagCode::ImportSyntax, fn_ + "(...) is missing its `" + std::string(p) + "` argument", at_);
      throw Stopped{};
    }
    if (!has(p)) {
      r_.error(DiagCode::ImportUnsupported,
               fn_ + ": `" + std::string(p) + "` is null, which nvFuser requires", at_);
      throw Stopped{};
    }
    return *v;
  }
  std::string what(const char* p) const { return "`" + std::string(p) + "` of " + fn_; }
  ScalarId scalar(const Value& v, const char* p, DType int_dtype) {
    switch (v.k) {
      case Value::K::Scalar: return v.scalar;
      case Value::K::Int: return b().constInt(v.i, int_dtype);
      case Value::K::Bool: return b().constBool(v.i != 0);
      case Value::K::Float: return b().constFloat(v.f, DType::Double);
      default: r_.opaqueUse(v, at_, what(p)); throw Stopped{};
    }
  }

  Reader& r_;
  std::string fn_;
  const std::vector<Value>& args_;
  std::vector<std::string> params_;
  size_t at_;
};

}  // namespace

bool Reader::isOpaqueOp(const std::string& fn) const { return findOp(fn) != nullptr; }

std::optional<Value> Reader::opaqueOp(const std::string& fn, std::vector<Value>& args, size_t at) {
  const CppOpaqueOp& op = *findOp(fn);
  std::vector<std::string> params = split(op.params);
  std::vector<Value> a = args;
  // sdpfa_fwd before #5663 (2026-01-05) took (query, key, value, dropout_p, is_causal, scale): a
  // fourth argument that is no tensor (nor null) is that form's dropout_p.
  if (op.rule == "sdpfa_fwd") {
    const bool six = a.size() > 3 && a[3].k != Value::K::Tensor && a[3].k != Value::K::None;
    if (six) a.insert(a.begin() + 3, 2, Value());
    // The form dates the test (dated_spellings.cpp).
    const std::string form = six ? "(query, key, value, dropout_p, is_causal, scale)"
                                 : "(query, key, value, bias, mask, dropout_p, is_causal, scale)";
    if (std::none_of(spelled_.begin(), spelled_.end(),
                     [&](const KeywordUse& u) { return u.keyword == form; })) {
      const Location l = loc(at);
      spelled_.push_back(KeywordUse{"sdpfa_fwd", form, LineCol{l.line, l.col}});
    }
  }
  // scan(tv, dim, BinaryOpType, init): the cumulative op of its binary op (arith.cpp:2586-2625).
  std::string rule(op.rule);
  if (fn == "scan") {
    const std::string bop = a.size() > 2 && a[2].k == Value::K::Opaque ? a[2].s : "";
    rule = bop == "BinaryOpType::Add"   ? "cumsum"
           : bop == "BinaryOpType::Mul" ? "cumprod"
           : bop == "BinaryOpType::Max" ? "cummax"
           : bop == "BinaryOpType::Min" ? "cummin"
                                        : "";
    if (rule.empty())
      return error(DiagCode::ImportUnsupported,
                   "scan(...) with a binary op other than BinaryOpType::Add, Mul, Max or Min has no output "
                   "rule "
                   "in fusecheck yet",
                   at),
             std::nullopt;
  }
  try {
    // Welford squeezes the Broadcast axes of extent 1 (not expanded) it reduces before WelfordRaw
    // (csrc/ops/arith.cpp:1631-1680).
    if (fn == "Welford" && a.size() >= 2 && a[0].k == Value::K::Tensor) {
      std::vector<int64_t> dims;
      if (!toInts(a[1], dims, at, "the axes of Welford")) return std::nullopt;
      std::vector<AxisId> src = b_.nonReduction(a[0].tensor);
      auto rank = static_cast<int64_t>(src.size());
      Attrs sq;
      std::vector<int64_t> kept;
      for (int64_t d : dims) {
        int64_t n = d < 0 ? d + rank : d;
        if (n < 0 || n >= rank) continue;  // the rule reports it
        const Axis& x = f_.axes[src[static_cast<size_t>(n)]];
        if (x.iter == IterType::Broadcast && x.expanded == kNone && b_.constValue(x.extent) == 1)
          sq.dims.push_back(n);
        else
          kept.push_back(n);
      }
      if (!sq.dims.empty()) {
        if (kept.empty())
          return error(DiagCode::ImportUnsupported,
                       "Welford over only Broadcast axes of extent 1 (nvFuser builds a squeeze and full_like "
                       "instead) has no output rule in fusecheck yet",
                       at),
                 std::nullopt;
        std::sort(sq.dims.begin(), sq.dims.end());
        for (int64_t& k : kept)
          k -= std::count_if(sq.dims.begin(), sq.dims.end(), [&](int64_t s) { return s < k; });
        std::string why;
        auto outs = b_.op(OpKind::Squeeze, {ValueRef::tensor(a[0].tensor)}, std::move(sq), why);
        if (!outs) return error(DiagCode::ImportSyntax, fn + ": " + why, at), std::nullopt;
        expr_tok_.push_back(at);
        a[0] = Value::ofTensor((*outs)[0]);
        a[1].k = Value::K::List;
        a[1].items.clear();
        for (int64_t k : kept) a[1].items.push_back(Value::integer(k));
      }
    }
    CppArgs args_by_name(*this, b_, fn, a, std::move(params), at);
    std::optional<OpaqueCall> found = recordOpaqueOp(rule, args_by_name);
    FC_CHECK(found.has_value(), "kCppOps names the rule `" + rule + "`, which opaque_rules.cpp lacks");
    const OpaqueCall& c = *found;
    expr_tok_.push_back(at);
    std::vector<std::string> fields = split(op.fields);
    if (fields.empty() && c.results.size() == 1) return Value::ofTensor(*c.results[0]);
    Value st;
    st.k = Value::K::Struct;
    for (size_t i = 0; i < c.results.size(); ++i)
      st.fields.push_back(Field{i < fields.size() ? fields[i] : std::to_string(i),
                                c.results[i] ? Value::ofTensor(*c.results[i]) : Value()});
    return st;
  } catch (const Stopped&) {
    return std::nullopt;
  }
}

}  // namespace fc::cpp_text
