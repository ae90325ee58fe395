// Lazily evaluated values of the CUDA executor (see lazy_tree.h).
#include "exec/cuda/lazy_tree.h"

#include "exec/host_tensor.h"

namespace fc::exec::cuda {

NodeP leafOf(const TensorP& t) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Leaf;
  n->shape = t->shape();
  n->tensor = t;
  n->strides = contiguousStrides(t->shape());
  n->leaves = 1;
  n->dtype = t->dtype();
  return n;
}

NodeP ringLeafOf(const RingP& r) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Leaf;
  n->shape = r->shape;
  n->ring = r;
  n->strides = contiguousStrides(r->shape);
  n->leaves = 1;
  n->dtype = r->dtype;
  return n;
}

NodeP constOf(double v) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Const;
  n->value = v;
  return n;
}

NodeP opOf(OpKind op, DType dtype, const Shape& shape, std::vector<NodeP> kids, bool approx) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Op;
  n->op = op;
  n->dtype = dtype;
  n->shape = shape;
  n->approx = approx;
  n->ops = 1;
  for (const NodeP& k : kids) {
    n->ops += k->ops;
    n->leaves += k->leaves;
  }
  n->kids = std::move(kids);
  return n;
}

NodeP reindex(const NodeP& n, const Shape& shape, const std::vector<int64_t>& src) {
  if (n->kind == Node::Const) return n;
  auto r = std::make_shared<Node>(*n);
  r->shape = shape;
  if (n->kind == Node::Leaf) {
    r->strides.assign(shape.size(), 0);
    for (size_t d = 0; d < shape.size(); ++d)
      if (src[d] >= 0 && n->shape[src[d]] != 1) r->strides[d] = n->strides[src[d]];
    return r;
  }
  for (auto& k : r->kids) k = reindex(k, shape, src);
  return r;
}

NodeP broadcastTo(const NodeP& n, const Shape& shape) {
  if (n->kind == Node::Const || n->shape == shape) return n;
  std::vector<int64_t> src(shape.size(), -1);
  size_t off = shape.size() - n->shape.size();
  for (size_t d = off; d < shape.size(); ++d) src[d] = static_cast<int64_t>(d - off);
  return reindex(n, shape, src);
}

NodeP sliceOf(const NodeP& n, const Shape& shape, const std::vector<int64_t>& start,
              const std::vector<int64_t>& step) {
  if (n->kind == Node::Const) return n;
  auto r = std::make_shared<Node>(*n);
  r->shape = shape;
  if (n->kind == Node::Leaf) {
    for (size_t d = 0; d < shape.size(); ++d) {
      r->offset += start[d] * n->strides[d];
      r->strides[d] = n->strides[d] * step[d];
    }
    return r;
  }
  for (auto& k : r->kids) k = sliceOf(k, shape, start, step);
  return r;
}

DType valueDType(const NodeP& n) { return n->kind == Node::Const ? DType::Double : n->dtype; }

bool isContiguousLeaf(const NodeP& n) {
  if (n->kind != Node::Leaf) return false;
  auto cs = contiguousStrides(n->shape);
  for (size_t d = 0; d < n->shape.size(); ++d)
    if (n->shape[d] != 1 && n->strides[d] != cs[d]) return false;
  return true;
}

}  // namespace fc::exec::cuda
