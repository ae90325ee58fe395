// The fd.ops table (see frontend_ops.h). Frontend bits: 1 legacy nvfuser, 2 nvfuser_direct,
// 4 fusecheck's own export, 8 printed by nvfuser_direct's repro printer without a binding.
#include "io/python/frontend_ops.h"

#include <algorithm>
#include <string>
#include <vector>

namespace fc::py {
namespace {

constexpr FrontendOp kOps[] = {
    {"_matmul_nn", PyForm::Unmodelled, 1, "a,b", ""},
    {"_matmul_nt", PyForm::Unmodelled, 1, "a,b", ""},
    {"_matmul_tn", PyForm::Unmodelled, 1, "a,b", ""},
    {"_matmul_tt", PyForm::Unmodelled, 1, "a,b", ""},
    {"abs", PyForm::Elementwise, 3, "arg", ""},
    {"acos", PyForm::Elementwise, 3, "arg", ""},
    {"acosh", PyForm::Elementwise, 3, "arg", ""},
    {"add", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"add_alpha", PyForm::Elementwise, 1, "lhs,rhs,alpha", ""},
    {"addcmul", PyForm::Elementwise, 3, "arg,tensor1,tensor2,value", ""},
    {"argsort", PyForm::OutputRule, 3, "arg,dim,descending,stable", ""},
    {"asin", PyForm::Elementwise, 3, "arg", ""},
    {"asinh", PyForm::Elementwise, 3, "arg", ""},
    {"at", PyForm::At, 1, "arg,index", ""},
    {"atan", PyForm::Elementwise, 3, "arg", ""},
    {"atan2", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"atanh", PyForm::Elementwise, 3, "arg", ""},
    {"batch_norm", PyForm::OutputRule, 1,
     "arg,weight,bias,running_mean,running_var,momentum,eps,training,channels_last", ""},
    {"bitwise_and", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"bitwise_left_shift", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"bitwise_not", PyForm::Elementwise, 3, "arg", ""},
    {"bitwise_or", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"bitwise_right_shift", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"bitwise_xor", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"broadcast", PyForm::Broadcast, 3, "arg,is_broadcast_dim", ""},
    {"broadcast_in_dim", PyForm::BroadcastInDim, 3, "arg,shape,broadcast_dims", "output_shape>shape"},
    {"cast", PyForm::Cast, 3, "arg,dtype", ""},
    {"cat", PyForm::Cat, 3, "tensors,dim,manual_padding", ""},
    {"ceil", PyForm::Elementwise, 3, "arg", ""},
    {"ceilDiv", PyForm::Elementwise, 8, "lhs,rhs", ""},
    {"clamp", PyForm::Elementwise, 3, "arg,min,max", ""},
    {"complex", PyForm::Elementwise, 2, "real,imag", ""},
    {"cos", PyForm::Elementwise, 3, "arg", ""},
    {"cosh", PyForm::Elementwise, 3, "arg", ""},
    {"cummax", PyForm::OutputRule, 2, "arg,dim,init", ""},
    {"cummin", PyForm::OutputRule, 2, "arg,dim,init", ""},
    {"cumprod", PyForm::OutputRule, 2, "arg,dim,init", ""},
    {"cumsum", PyForm::OutputRule, 3, "arg,dim,init", ""},
    {"cutlass_nvfp4_grouped_mm", PyForm::OutputRule, 3,
     "mat1,mat2,scale1,scale2,alpha,problem_sizes,expert_offsets,sf_offsets,dtype", ""},
    {"div", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"embedding_fwd", PyForm::OutputRule, 3,
     "input,weight,padding_idx,max_norm,norm_type,scale_grad_by_freq,sparse", ""},
    {"eq", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"erf", PyForm::Elementwise, 3, "arg", ""},
    {"erfc", PyForm::Elementwise, 3, "arg", ""},
    {"erfcinv", PyForm::Elementwise, 3, "arg", ""},
    {"erfinv", PyForm::Elementwise, 3, "arg", ""},
    {"exp", PyForm::Elementwise, 3, "arg", ""},
    {"exp2", PyForm::Elementwise, 3, "arg", ""},
    {"expand", PyForm::Expand, 3, "arg,shape", ""},
    {"expm1", PyForm::Elementwise, 3, "arg", ""},
    {"floor", PyForm::Elementwise, 3, "arg", ""},
    {"fmax", PyForm::Reduce, 8, "arg,dims,keepdim,dtype", "keep_dim>keepdim"},
    {"fmin", PyForm::Reduce, 8, "arg,dims,keepdim,dtype", "keep_dim>keepdim"},
    {"fmod", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"frac", PyForm::Elementwise, 3, "arg", ""},
    {"full", PyForm::Full, 3, "shape,fill_value,dtype", "size>shape,arg>fill_value"},
    {"gather", PyForm::OutputRule, 3, "arg1,index,dim", ""},
    {"gcd", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"ge", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"gelu", PyForm::Elementwise, 4, "arg,approximate", ""},
    {"grouped_mm", PyForm::OutputRule, 3,
     "mat1,mat2,offsets,scale1,scale2,alpha,bias,beta,dtype,output_block_scale_size,output_block_scale_dtype,"
     "output_gamma",
     ""},
    {"gt", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"imag", PyForm::Elementwise, 3, "arg", ""},
    {"index_put_accumulate", PyForm::OutputRule, 1, "acc,index,value", ""},
    {"index_select", PyForm::OutputRule, 3, "arg,index,dim", ""},
    {"iota", PyForm::Iota, 3, "length,start,step,dtype", ""},
    {"isfinite", PyForm::Elementwise, 3, "arg", ""},
    {"isinf", PyForm::Elementwise, 3, "arg", ""},
    {"isnan", PyForm::Elementwise, 3, "arg", ""},
    {"isneginf", PyForm::Elementwise, 3, "arg", ""},
    {"isposinf", PyForm::Elementwise, 3, "arg", ""},
    {"isreal", PyForm::Elementwise, 3, "arg", ""},
    {"le", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"lerp", PyForm::Elementwise, 3, "start,end,weight", ""},
    {"lgamma", PyForm::Elementwise, 3, "arg", ""},
    {"linear", PyForm::Linear, 3, "arg1,arg2,bias", ""},
    {"log", PyForm::Elementwise, 3, "arg", ""},
    {"log10", PyForm::Elementwise, 3, "arg", ""},
    {"log1p", PyForm::Elementwise, 3, "arg", ""},
    {"log2", PyForm::Elementwise, 3, "arg", ""},
    {"logical_and", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"logical_not", PyForm::Elementwise, 3, "arg", ""},
    {"logical_or", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"logical_right_shift", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"lt", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"matmul", PyForm::Matmul, 3, "arg1,arg2", ""},
    {"max", PyForm::Reduce, 3, "arg,dims,keepdim,dtype", "axes>dims,keep_dim>keepdim,dim>dims"},
    {"maximum", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"mean", PyForm::Mean, 4, "arg,dims,keepdim", ""},
    {"min", PyForm::Reduce, 3, "arg,dims,keepdim,dtype", "axes>dims,keep_dim>keepdim,dim>dims"},
    {"minimum", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"mod", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"mul", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"ne", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"neg", PyForm::Elementwise, 3, "arg", ""},
    {"nextafter", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"normal", PyForm::Rng, 3, "mean,std,shape,rng_seed,rng_offset,dtype", "size>shape"},
    {"nv_block_quantize", PyForm::OutputRule, 2, "input,global_scale,swizzle_block_scales,block_size,dtype",
     ""},
    {"nv_grouped_block_quantize", PyForm::OutputRule, 2,
     "input,input_offsets,output_offsets,global_scale,block_size,dtype", ""},
    {"ones", PyForm::Full, 4, "shape,dtype", ""},
    {"pad", PyForm::Pad, 3, "arg,pad_widths,value", ""},
    {"permute", PyForm::Permute, 3, "arg,dims", ""},
    {"pow", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"preprocess_grouped_matmul_input_sf", PyForm::OutputRule, 2, "input,input_offsets,output_offsets", ""},
    {"prod", PyForm::Reduce, 3, "arg,dims,keepdim,dtype", "axes>dims,keep_dim>keepdim,dim>dims"},
    {"rand_like", PyForm::OutputRule, 3, "arg,rng_seed,rng_offset", ""},
    {"randn_like", PyForm::OutputRule, 3, "arg,rng_seed,rng_offset", ""},
    {"real", PyForm::Elementwise, 3, "arg", ""},
    {"reciprocal", PyForm::Elementwise, 3, "arg", ""},
    {"relu", PyForm::Elementwise, 3, "arg", ""},
    {"remainder", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"reshape", PyForm::Reshape, 3, "arg,new_shape", ""},
    {"round", PyForm::Elementwise, 3, "arg", ""},
    {"rsqrt", PyForm::Elementwise, 3, "arg", ""},
    {"scaled_mm", PyForm::OutputRule, 3,
     "mat1,mat2,scale1,scale2,alpha,bias,beta,dtype,output_block_scale_size,output_block_scale_dtype,output_"
     "gamma",
     ""},
    {"scatter", PyForm::OutputRule, 3, "arg,index,src,dim", "arg1>arg"},
    {"sdpfa_bwd", PyForm::OutputRule, 3,
     "grad_output,query,key,value,output,logsumexp,dropout_p,is_causal,philox_seed,philox_offset,scale",
     "log_sumexp>logsumexp"},
    {"sdpfa_fwd", PyForm::OutputRule, 3, "query,key,value,bias,mask,dropout_p,is_causal,scale", ""},
    {"segment_set", PyForm::Elementwise, 3, "arg", ""},
    {"select", PyForm::OutputRule, 3, "arg,index,dim", ""},
    {"set", PyForm::Elementwise, 3, "arg", ""},
    {"shape", PyForm::Shape, 3, "arg", ""},
    {"sigmoid", PyForm::Elementwise, 3, "arg", ""},
    {"sign", PyForm::Elementwise, 3, "arg", ""},
    {"signbit", PyForm::Elementwise, 3, "arg", ""},
    {"silu", PyForm::Elementwise, 3, "arg", ""},
    {"sin", PyForm::Elementwise, 3, "arg", ""},
    {"sinh", PyForm::Elementwise, 3, "arg", ""},
    {"size", PyForm::Size, 3, "arg,dim", ""},
    {"slice", PyForm::Slice, 3, "arg,start_indices,end_indices,strides,manual_normalization", ""},
    {"sqrt", PyForm::Elementwise, 3, "arg", ""},
    {"squeeze", PyForm::Squeeze, 3, "arg,dims,squeeze_expanded", ""},
    {"stride_order", PyForm::StrideOrder, 3, "arg,stride_order", ""},
    {"sub", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"sub_alpha", PyForm::Elementwise, 1, "lhs,rhs,alpha", ""},
    {"sum", PyForm::Reduce, 3, "arg,dims,keepdim,dtype", "axes>dims,keep_dim>keepdim,dim>dims"},
    {"take_along_axis", PyForm::OutputRule, 3, "arg1,index,dim", ""},
    {"tan", PyForm::Elementwise, 3, "arg", ""},
    {"tanh", PyForm::Elementwise, 3, "arg", ""},
    {"tensor_sizes", PyForm::TensorSizes, 1, "arg", ""},
    {"threshold", PyForm::Elementwise, 3, "arg,threshold,value", ""},
    {"topk", PyForm::OutputRule, 3, "arg,k,dim,largest,sorted", ""},
    {"triu", PyForm::OutputRule, 3, "input,diagonal", ""},
    {"truediv", PyForm::Elementwise, 3, "lhs,rhs", ""},
    {"trunc", PyForm::Elementwise, 3, "arg", ""},
    {"uniform", PyForm::Rng, 3, "minval,maxval,shape,rng_seed,rng_offset,dtype", "size>shape"},
    {"var", PyForm::Var, 3, "arg,dims,correction,keepdim", "axes>dims,keep_dim>keepdim"},
    {"var_mean", PyForm::Var, 3, "arg,dims,correction,keepdim", "axes>dims,keep_dim>keepdim"},
    {"welford", PyForm::OutputRule, 3, "arg,dims", ""},
    {"where", PyForm::Elementwise, 3, "pred,value1,value2", ""},
    {"zeros", PyForm::Full, 4, "shape,dtype", ""},
};

}  // namespace

std::span<const FrontendOp> frontendOps() { return kOps; }

namespace {

std::vector<std::string> commaList(std::string_view s) {
  std::vector<std::string> r;
  size_t start = 0;
  while (start < s.size()) {
    size_t p = s.find(',', start);
    if (p == std::string_view::npos) p = s.size();
    r.emplace_back(s.substr(start, p - start));
    start = p + 1;
  }
  return r;
}

}  // namespace

std::vector<std::string> paramNames(const FrontendOp& op) { return commaList(op.params); }

std::vector<std::pair<std::string, std::string>> keywordRenames(const FrontendOp& op) {
  std::vector<std::pair<std::string, std::string>> r;
  for (const std::string& pair : commaList(op.renames)) {
    size_t gt = pair.find('>');
    if (gt != std::string::npos) r.emplace_back(pair.substr(0, gt), pair.substr(gt + 1));
  }
  return r;
}

namespace {

// kOps' entry for `name` (the table is sorted by name), or nullptr.
const FrontendOp* tableOp(std::string_view name) {
  auto it = std::lower_bound(std::begin(kOps), std::end(kOps), name,
                             [](const FrontendOp& o, std::string_view n) { return o.name < n; });
  return it != std::end(kOps) && it->name == name ? &*it : nullptr;
}

// The elementwise ops of ops.def (unary and binary call forms) whose Python names kOps does not
// list, with nvFuser's elementwise parameter names: a new ops.def row imports with no edit here.
// Which frontends have such an op is not known: kOwn.
const std::vector<FrontendOp>& derivedOps() {
  static const std::vector<FrontendOp> ops = [] {
    std::vector<FrontendOp> r;
    for (int k = 0; k < numOpKinds(); ++k) {
      const OpInfo& info = opInfo(static_cast<OpKind>(k));
      if (info.python_name.empty() || (info.form != OpForm::Unary && info.form != OpForm::Binary)) continue;
      if (tableOp(info.python_name)) continue;
      r.push_back(
          {info.python_name, PyForm::Elementwise, kOwn, info.form == OpForm::Unary ? "arg" : "lhs,rhs", ""});
    }
    return r;
  }();
  return ops;
}

}  // namespace

const FrontendOp* findFrontendOp(std::string_view name) {
  if (const FrontendOp* op = tableOp(name)) return op;
  for (const FrontendOp& op : derivedOps())
    if (op.name == name) return &op;
  return nullptr;
}

std::optional<OpKind> frontendOpKind(const FrontendOp& op) {
  if (op.form == PyForm::Unmodelled || op.form == PyForm::OutputRule || op.form == PyForm::Size ||
      op.form == PyForm::Shape || op.form == PyForm::TensorSizes || op.form == PyForm::At)
    return std::nullopt;
  if (op.name == "fmax") return OpKind::Max;
  if (op.name == "fmin") return OpKind::Min;
  if (op.name == "stride_order") return OpKind::Set;
  return opByPythonName(op.name);
}

std::string frontendsOf(OpKind k) {
  uint8_t bits = 0;
  for (const FrontendOp& op : kOps)
    if (frontendOpKind(op) == k) bits |= op.frontends;
  std::string s;
  auto add = [&](const char* w) { s += (s.empty() ? "" : ", ") + std::string(w); };
  if (bits & kLegacy) add("legacy");
  if (bits & kDirect) add("direct");
  if (!(bits & (kLegacy | kDirect)) && (bits & kOwn)) add("fusecheck");
  return s;
}

}  // namespace fc::py
