// The reader's second phase (reader_internal.h), once the whole text is
// read without error: references used before their declaration are
// resolved and patched, scalar inputs marked, the ranges the IR cannot hold
// checked (meshes, segment exprs), cycles among scalar definitions found,
// and each tensor's first producer recorded.
#include <atomic>
#include <string>

#include "io/reader_internal.h"
#include "support/parallel.h"
#include "support/phase_times.h"

namespace fc::reader_detail {

void Reader::finish() {
  PhaseScope phase("finish (references, definitions)", PhaseScope::Detail{});
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
  for (size_t i = 0; mesh_bound_ > f_.meshes.size() && i < f_.tensors.size(); ++i) {
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
  finishSource();
  if (!pending_.empty()) checkScalarCycles();
  if (errors_ > 0) return;
  // Each tensor's first producer (the verifier reports a second), on
  // every thread for a fusion whose exprs alone would fill
  // parallel_min_bytes of text (~64 bytes each): the smallest id wins.
  const size_t n = f_.exprs.size(), w = n * 64 >= opts_.parallel_min_bytes ? threads_ : 1;
  parallelFor(w, [&](size_t k) {
    for (size_t e = n * k / w; e < n * (k + 1) / w; ++e)
      for (TensorId t : f_.exprs[e].outputs) {
        std::atomic_ref<ExprId> d(f_.tensors[t].definition);
        ExprId cur = d.load(std::memory_order_relaxed);
        while (e < cur && !d.compare_exchange_weak(cur, static_cast<ExprId>(e), std::memory_order_relaxed)) {
        }
      }
  });
}

// Replaces each pending id with what finish() resolved it to.
void Reader::patchPending() {
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
  forEachIdRef(f_, ps, pt, pv);
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
void Reader::checkScalarCycles() {
  size_t n = f_.scalars.size();
  std::vector<uint8_t> color(n, 0);
  std::vector<std::pair<ScalarId, int>> stack;
  auto succ = [&](ScalarId s, int i) -> ScalarId {
    const Scalar& x = f_.scalars[s];
    if (x.kind != ScalarKind::Derived) return kNone;
    if (x.op == ScalarOp::Size) {
      AxisId a = f_.sizeAxis(x);
      if (a == kNone || i > 1) return kNone;
      return i == 0 ? f_.axes[a].extent : f_.axes[a].expanded;
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

}  // namespace fc::reader_detail
