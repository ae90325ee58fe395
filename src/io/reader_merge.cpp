// Merging the chunks (reader_chunks.cpp) into the primary's Fusion: the
// chunks' scalars and axes are appended in chunk order and the ids that
// refer to them renumbered, and the tensor names are interned in document
// order, so that the Fusion is the one the sequential reader builds.
#include <algorithm>
#include <future>

#include "io/reader_internal.h"
#include "support/internal_error.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/prefault.h"

namespace fc::reader_detail {
namespace {

// A chunk's scalar id in the merged Fusion: tagged ids are the primary's.
void globalId(ScalarId& s, size_t base) {
  if (s != kNone) s = (s & kGlobal) != 0 ? s & ~kGlobal : static_cast<ScalarId>(s + base);
}

}  // namespace

// Makes room for the chunks' scalars after the primary's and fills in
// `base`, the id of each chunk's first scalar (copyChunkScalars fills them).
void Reader::appendChunkScalars(Chunks& chunks, std::vector<size_t>& base) {
  resizePrefaulted(f_.scalars, chunkScalarBases(chunks, base), threads_);
}

// Fills in `base`, the id of each chunk's first scalar after the
// primary's; returns the number of scalars with the chunks'.
size_t Reader::chunkScalarBases(Chunks& chunks, std::vector<size_t>& base) const {
  size_t total = f_.scalars.size();
  for (size_t k = 0; k < chunks.size(); ++k) {
    base[k] = total;
    total += chunks[k]->f_.scalars.size();
  }
  FC_CHECK(total < kGlobal, "too many scalars for chunked reading");
  return total;
}

void Reader::mergeTensors(Chunks& chunks) {
  size_t w = chunks.size();
  std::vector<size_t> sb(w), ab(w);
  const size_t scalars = chunkScalarBases(chunks, sb);
  size_t axes = f_.axes.size();
  for (size_t k = 0; k < w; ++k) {
    ab[k] = axes;
    axes += chunks[k]->f_.axes.size();
  }
  // The merged scalars and axes (millions of axes constructed on
  // one thread) are sized on a thread of their own while this one interns
  // the names, which touch neither.
  std::future<void> grown = std::async(std::launch::async, [&] {
    // Room for the exprs' chunk scalars as well (one per expr is a guess;
    // the pages are not touched until used), so that their merge does
    // not move all of these again.
    f_.scalars.reserve(scalars + splitCount(Chunked::Exprs));
    resizePrefaulted(f_.scalars, scalars, threads_);
    resizePrefaulted(f_.axes, axes, threads_);
  });
  mergeTensorNames(chunks);
  grown.get();
  parallelFor(w, [&](size_t k) {
    Reader& r = *chunks[k];
    Fusion& c = r.f_;
    auto ra = [&](AxisId& a) {
      if (a != kNone) a = static_cast<AxisId>(a + ab[k]);
    };
    copyChunkScalars(c, sb[k]);
    for (size_t j = 0; j < c.axes.size(); ++j) {
      Axis x = c.axes[j];
      globalId(x.extent, sb[k]);
      globalId(x.expanded, sb[k]);
      f_.axes[ab[k] + j] = x;
    }
    for (size_t i = r.chunk_lo_; i < r.chunk_hi_; ++i) {
      Tensor& t = f_.tensors[i];
      for (auto* d : {&t.root, &t.logical, &t.allocation, &t.loop})
        for (AxisId& a : *d) ra(a);
      for (AxisTransform& tr : t.transforms) {
        ra(tr.in);
        ra(tr.in2);
        ra(tr.out);
        ra(tr.out2);
        globalId(tr.factor, sb[k]);
      }
    }
    std::vector<Axis>().swap(c.axes);
  });
}

// The tensor names of the chunks, interned as the sequential reader does
// in document order: on every thread when they are new names "T<n>"
// (Interner::internAll).
void Reader::mergeTensorNames(Chunks& chunks) {
  const size_t w = chunks.size();
  PhaseScope names_phase("tensors: merge: names", PhaseScope::Detail{});
  const size_t lo = chunks.front()->chunk_lo_, n = chunks.back()->chunk_hi_ - lo;
  std::vector<std::string_view> names;
  std::vector<NameId> ids;
  names.reserve(n);
  ids.reserve(n);
  const PrefaultBlock blocks[] = {{names.data(), n * sizeof(std::string_view)},
                                  {ids.data(), n * sizeof(NameId)}};
  prefault(blocks, threads_);
  names.resize(n);
  ids.resize(n);
  parallelFor(w, [&](size_t k) {
    const Reader& c = *chunks[k];
    size_t from = 0;
    for (size_t j = 0; j < c.chunk_name_ends_.size(); ++j) {
      names[c.chunk_lo_ - lo + j] =
          std::string_view(c.chunk_names_.data() + from, c.chunk_name_ends_[j] - from);
      from = c.chunk_name_ends_[j];
    }
  });
  for (const auto& c : chunks) mesh_bound_ = std::max(mesh_bound_, c->mesh_bound_);
  const size_t before = f_.names.size();
  f_.names.reserve(before + n);
  const bool distinct = f_.names.internAll(names, ids, threads_);
  if (opts_.stats != nullptr) opts_.stats->names_in_parallel = distinct;
  growNames();
  // A name keeps its first tensor. On the parallel path each new name is
  // one tensor's: those are written on every thread, the rest in order.
  parallelFor(w, [&](size_t k) {
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end; ++i) {
      f_.tensors[lo + i].name = ids[i];
      if (distinct && ids[i] >= before) tensor_of_name_[ids[i]] = static_cast<TensorId>(lo + i);
    }
  });
  for (size_t i = 0; i < n; ++i)
    if ((!distinct || ids[i] < before) && tensor_of_name_[ids[i]] == kNone)
      tensor_of_name_[ids[i]] = static_cast<TensorId>(lo + i);
}

// Copies a chunk's scalars to their place from `base` on (appendChunkScalars).
void Reader::copyChunkScalars(Fusion& c, size_t base) {
  for (size_t j = 0; j < c.scalars.size(); ++j) {
    Scalar x = c.scalars[j];
    globalId(x.lhs, base);
    globalId(x.rhs, base);
    f_.scalars[base + j] = x;
  }
  std::vector<Scalar>().swap(c.scalars);
}

void Reader::mergeExprs(Chunks& chunks) {
  size_t w = chunks.size();
  std::vector<size_t> sb(w);
  appendChunkScalars(chunks, sb);
  for (size_t k = 0; k < w; ++k)
    FC_CHECK(chunks[k]->f_.axes.empty() && chunks[k]->f_.tensors.empty(),
             "an expr chunk made axes or tensors");
  parallelFor(w, [&](size_t k) {
    Reader& r = *chunks[k];
    size_t b = sb[k];
    copyChunkScalars(r.f_, b);
    for (size_t i = r.chunk_lo_; i < r.chunk_hi_; ++i) {
      Expr& e = f_.exprs[i];
      for (ValueRef& v : e.inputs)
        if (v.isScalar()) globalId(v.id, b);
      eachAttrScalar(e.attrs, [b](ScalarId& s) { globalId(s, b); });
    }
  });
}

// A concrete input names a tensor or one of the primary's scalars (a
// chunk makes no scalars of its own: names and literals only).
void Reader::mergeConcrete(Chunks& chunks) {
  size_t w = chunks.size();
  std::vector<size_t> sb(w);
  appendChunkScalars(chunks, sb);
  for (size_t k = 0; k < w; ++k)
    FC_CHECK(chunks[k]->f_.axes.empty() && chunks[k]->f_.tensors.empty() && chunks[k]->f_.scalars.empty(),
             "a concrete-input chunk made axes, tensors or scalars");
  parallelFor(w, [&](size_t k) {
    const Reader& r = *chunks[k];
    for (size_t i = r.chunk_lo_; i < r.chunk_hi_; ++i) {
      ValueRef& v = f_.concrete_inputs[i].value;
      if (v.isScalar()) globalId(v.id, sb[k]);
    }
  });
}

}  // namespace fc::reader_detail
