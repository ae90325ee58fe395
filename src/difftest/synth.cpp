// Synthetic repro generators (see synth.h). Each block is built op by op
// with ImportBuilder; inputs get fresh symbolic extents (as nvFuser's
// define_tensor does) and concrete per-rank sizes in concrete_inputs.
#include "difftest/synth.h"

#include <string>

#include "difftest/rng.h"
#include "io/import_builder.h"
#include "support/internal_error.h"

namespace fc::synth {
namespace {

using difftest::Rng;

class Gen {
 public:
  explicit Gen(Fusion& f) : b_(f), f_(f) {}

  // A fusion input of rank sizes.size() with fresh symbolic extents; per-rank
  // sizes recorded in concrete_inputs. `did0` makes axis 0 DIDx (local size 1).
  TensorId input(DType dt, const std::vector<int64_t>& sizes, MeshId mesh = kNone, bool did0 = false) {
    std::vector<AxisId> axes;
    std::vector<int64_t> local = sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      AxisId a = b_.axis(IterType::Iteration, b_.freshSymbol());
      if (d == 0 && did0) {
        f_.axes[a].parallel = ParallelType::DIDx;
        local[d] = 1;
      }
      axes.push_back(a);
    }
    TensorId t = b_.tensor(dt, axes);
    f_.tensors[t].mesh = mesh;
    f_.inputs.push_back(ValueRef::tensor(t));
    ConcreteInput ci;
    ci.value = ValueRef::tensor(t);
    ci.shape = local;
    f_.concrete_inputs.push_back(ci);
    return t;
  }

  TensorId op(OpKind k, std::vector<ValueRef> in, Attrs attrs = {}) {
    return ops(k, std::move(in), std::move(attrs))[0];
  }

  std::vector<TensorId> ops(OpKind k, std::vector<ValueRef> in, Attrs attrs = {}) {
    std::string err;
    auto outs = b_.op(k, std::move(in), std::move(attrs), err);
    FC_CHECK(outs.has_value(), "synth: builder rejected an op: " + err);
    return *outs;
  }

  static ValueRef T(TensorId t) { return ValueRef::tensor(t); }
  static ValueRef S(ScalarId s) { return ValueRef::scalar(s); }

  Attrs dims(std::vector<int64_t> d) {
    Attrs a;
    a.dims = std::move(d);
    return a;
  }
  Attrs flags(std::vector<bool> fl) {
    Attrs a;
    a.flags = std::move(fl);
    return a;
  }
  Attrs shape(std::vector<ScalarId> s) {
    Attrs a;
    a.shape = std::move(s);
    return a;
  }

  ScalarId extent(TensorId t, size_t d) const { return f_.axes[f_.tensors[t].logical[d]].extent; }
  void parallelize0(TensorId t) { f_.axes[f_.tensors[t].logical[0]].parallel = ParallelType::DIDx; }

  // y = layer_norm(x) * gamma + beta over the last axis of x[S, H].
  TensorId layerNorm(TensorId x, int64_t h, MeshId mesh) {
    Attrs vm = dims({1});
    vm.correction = 0;
    auto vmo = ops(OpKind::VarMean, {T(x)}, vm);  // var[S], mean[S]
    TensorId mean_b = op(OpKind::Broadcast, {T(vmo[1])}, flags({false, true}));
    TensorId xc = op(OpKind::Sub, {T(x), T(mean_b)});
    TensorId ve = op(OpKind::Add, {T(vmo[0]), S(b_.constFloat(1e-5))});
    TensorId rstd = op(OpKind::Rsqrt, {T(ve)});
    TensorId rstd_b = op(OpKind::Broadcast, {T(rstd)}, flags({false, true}));
    TensorId xn = op(OpKind::Mul, {T(xc), T(rstd_b)});
    TensorId gamma = input(DType::Float, {h}, mesh);
    TensorId beta = input(DType::Float, {h}, mesh);
    TensorId g_b = op(OpKind::Broadcast, {T(gamma)}, flags({true, false}));
    TensorId b_b = op(OpKind::Broadcast, {T(beta)}, flags({true, false}));
    TensorId y = op(OpKind::Mul, {T(xn), T(g_b)});
    return op(OpKind::Add, {T(y), T(b_b)});
  }

  // reshape [S, H] -> [S, 2, H/2] -> [S, H], permute there and back.
  TensorId reshapePermute(TensorId x) {
    ScalarId s = extent(x, 0), h = extent(x, 1);
    ScalarId half = b_.derived(ScalarOp::Div, h, b_.constInt(2));
    TensorId r = op(OpKind::Reshape, {T(x)}, shape({s, b_.constInt(2), half}));
    TensorId p = op(OpKind::Permute, {T(r)}, dims({1, 0, 2}));
    TensorId q = op(OpKind::Permute, {T(p)}, dims({1, 0, 2}));
    return op(OpKind::Reshape, {T(q)}, shape({s, h}));
  }

  void block(TensorId& x, Rng& rng, int64_t h, int64_t ffn) {
    TensorId ln = layerNorm(x, h, kNone);
    TensorId w1 = input(DType::Float, {ffn, h});
    TensorId b1 = input(DType::Float, {ffn});
    TensorId a = op(OpKind::Linear, {T(ln), T(w1), T(b1)});
    Attrs g;
    g.approximate_tanh = rng.below(2) == 0;
    TensorId act = op(OpKind::Gelu, {T(a)}, g);
    TensorId w2 = input(DType::Float, {h, ffn});
    TensorId m = op(OpKind::Linear, {T(act), T(w2)});
    TensorId b2 = input(DType::Float, {h});
    TensorId b2b = op(OpKind::Broadcast, {T(b2)}, flags({true, false}));
    TensorId y = op(OpKind::Add, {T(m), T(b2b)});
    if (rng.below(2) == 0) y = reshapePermute(y);
    x = op(OpKind::Add, {T(x), T(y)});
  }

  // Tensor-parallel MLP (Megatron column/row parallel, as nvFuser's
  // MLP_Layer test): W1, b1, W2 sharded on a DIDx axis 0, the row-parallel
  // matmul's partial sums reduced over the DID axis: an Allreduce, or a
  // ReduceScatter over a 2-way split of the token axis followed by an
  // Allgather (a set that drops the DID axis) and a reshape back.
  void shardedBlock(TensorId& x, Rng& rng, int64_t d, int64_t s, int64_t h, int64_t ffn, MeshId mesh) {
    TensorId ln = layerNorm(x, h, mesh);
    TensorId xb = op(OpKind::Broadcast, {T(ln)}, flags({true, false, false}));  // [1, S, H]
    TensorId w1 = input(DType::Float, {d, h, ffn}, mesh, true);
    TensorId b1 = input(DType::Float, {d, ffn}, mesh, true);
    TensorId w2 = input(DType::Float, {d, ffn, h}, mesh, true);
    TensorId m1 = op(OpKind::Matmul, {T(xb), T(w1)});  // [D, S, F, r]
    parallelize0(m1);
    TensorId b1b = op(OpKind::Broadcast, {T(b1)}, flags({false, true, false}));  // [D, 1, F]
    parallelize0(b1b);
    TensorId a = op(OpKind::Add, {T(m1), T(b1b)});
    parallelize0(a);
    Attrs g;
    g.approximate_tanh = true;
    TensorId act = op(OpKind::Gelu, {T(a)}, g);
    parallelize0(act);
    TensorId m2 = op(OpKind::Matmul, {T(act), T(w2)});  // [D, S, H, r]
    parallelize0(m2);
    TensorId y;
    if (rng.below(2) == 0) {
      y = op(OpKind::Sum, {T(m2)}, dims({0}));  // Allreduce: [rD, S, H]
    } else {
      // [D, S, H] -> [D, 2, S/2, H]; sum over D with the 2 on DIDx: ReduceScatter.
      ScalarId ds = extent(m2, 0), ss = extent(m2, 1), hs = extent(m2, 2);
      ScalarId half = b_.derived(ScalarOp::Div, ss, b_.constInt(2));
      TensorId r = op(OpKind::Reshape, {T(m2)}, shape({ds, b_.constInt(d), half, hs}));
      parallelize0(r);
      TensorId rs = op(OpKind::Sum, {T(r)}, dims({0}));  // [rD, 2, S/2, H]
      f_.axes[f_.tensors[rs].logical[1]].parallel = ParallelType::DIDx;
      TensorId ag = op(OpKind::Set, {T(rs)});  // Allgather: the 2 is no longer sharded
      f_.axes[f_.tensors[ag].logical[0]].parallel = ParallelType::Serial;
      (void)s;
      y = op(OpKind::Reshape, {T(ag)}, shape({extent(x, 0), extent(x, 1)}));
    }
    TensorId b2 = input(DType::Float, {h}, mesh);
    TensorId b2b = op(OpKind::Broadcast, {T(b2)}, flags({true, false}));
    TensorId z = op(OpKind::Add, {T(y), T(b2b)});
    x = op(OpKind::Add, {T(x), T(z)});
  }

  // `out` the fusion's one output; memory types and uses set.
  void finish(TensorId out) {
    f_.outputs.push_back(out);
    b_.meshEveryTensorLikeItsInputs();
    b_.finish();
    f_.rebuildUses();
  }

  ImportBuilder b_;
  Fusion& f_;
};

// Names the fusion, its era and where it comes from (provenance "source",
// then `key`: what it is).
void describe(Fusion& f, std::string name, Era era, std::string source, std::string key, std::string text) {
  f.name = std::move(name);
  f.era = era;
  f.provenance.emplace_back("source", std::move(source));
  f.provenance.emplace_back(std::move(key), std::move(text));
}

}  // namespace

Fusion transformer(const TransformerOptions& opts) {
  Fusion f;
  Rng rng{opts.seed};
  describe(f,
           std::string(opts.sharded ? "synth_tp_transformer_" : "synth_transformer_") +
               std::to_string(opts.exprs) + "_seed" + std::to_string(opts.seed),
           opts.sharded ? Era::E2024_07 : Era::Head, "fusecheck-synth", "generator",
           std::string("transformer exprs=") + std::to_string(opts.exprs) +
               " seed=" + std::to_string(opts.seed) + (opts.sharded ? " sharded" : ""));
  f.seed = opts.seed;
  Gen g(f);
  const int64_t d = 2;
  const int64_t s = 8 << rng.below(3);   // 8, 16 or 32 tokens per rank
  const int64_t h = 16 << rng.below(2);  // hidden 16 or 32
  const int64_t ffn = 2 * h;
  MeshId mesh = kNone;
  if (opts.sharded) mesh = f.addMesh({d}, {0, 1});
  TensorId x = g.input(DType::Float, {s, h}, mesh);
  while (f.exprs.size() < opts.exprs) {
    if (opts.sharded)
      g.shardedBlock(x, rng, d, s, h, ffn, mesh);
    else
      g.block(x, rng, h, ffn);
  }
  g.finish(x);
  return f;
}

Fusion linearRelu(uint32_t layers) {
  Fusion f;
  describe(f, "issue3510_linear_relu_" + std::to_string(layers), Era::Head,
           "https://github.com/NVIDIA/Fuser/issues/3510", "note",
           "Written by fusecheck from the issue's public description (x[128,16]; " + std::to_string(layers) +
               " x (Linear with a 16x16 weight and a bias of 16, ReLU)); not nvFuser's own dump. nvFuser's "
               "segmenter took about 300 s on 30 layers (300 ms on 20).");
  Gen g(f);
  TensorId x = g.input(DType::Float, {128, 16});
  for (uint32_t l = 0; l < layers; ++l) {
    TensorId w = g.input(DType::Float, {16, 16});
    TensorId bias = g.input(DType::Float, {16});
    TensorId y = g.op(OpKind::Linear, {Gen::T(x), Gen::T(w), Gen::T(bias)});
    x = g.op(OpKind::Relu, {Gen::T(y)});
  }
  g.finish(x);
  return f;
}

Fusion chainedAdds(uint32_t adds) {
  Fusion f;
  describe(f, "issue1440_adds_" + std::to_string(adds), Era::Head,
           "https://github.com/NVIDIA/Fuser/pull/1440", "note",
           "Written by fusecheck from the PR's public description (" + std::to_string(adds) +
               " chained additions; nvFuser's segmenter took 3.4 s); the input shape is ours, not the PR's.");
  Gen g(f);
  TensorId x = g.input(DType::Float, {64, 64});
  TensorId y = g.input(DType::Float, {64, 64});
  TensorId t = x;
  for (uint32_t k = 0; k < adds; ++k) t = g.op(OpKind::Add, {Gen::T(t), Gen::T(y)});
  g.finish(t);
  return f;
}

}  // namespace fc::synth
