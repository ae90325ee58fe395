// The reader's "tensors" (reader_internal.h): each element's name, dtype,
// memory type and mesh here; its domains, axes and transforms in
// reader_axes.cpp. Element i is tensor i, read by the one-thread reader or
// by a chunk reader (reader_chunks.cpp) with the same code.
#include <algorithm>
#include <string>

#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

constexpr std::array<std::string_view, 11> kTensorKeys = {"name",        "dtype", "memory",    "mesh",
                                                          "mesh_set_at", "root",  "logical",   "allocation",
                                                          "contiguity",  "loop",  "transforms"};
enum TensorKey {
  kTName,
  kTDType,
  kTMemory,
  kTMesh,
  kTMeshSetAt,
  kTRoot,
  kTLogical,
  kTAlloc,
  kTContig,
  kTLoop,
  kTTransforms
};

}  // namespace

void Reader::readTensors(sj::value& v) {
  readTopArray(
      v, Chunked::Tensors,
      [&](size_t n) {
        f_.tensors.reserve(f_.tensors.size() + n);
        f_.names.reserve(f_.names.size() + n);
        f_.axes.reserve(f_.axes.size() + 4 * n);  // a guess: growth stays amortized when wrong
      },
      [&](size_t i, sj::value& x) { return readTensor(i, x); });
}

// One element of "tensors" (index i).
bool Reader::readTensor(size_t i, sj::value& x) {
  sj::object o;
  if (!getObject(x, o)) return false;
  auto tid = static_cast<TensorId>(primary_ != nullptr ? i : f_.tensors.size());
  if (primary_ == nullptr) f_.tensors.emplace_back();
  ctx_.reset(tid, i);
  uint32_t seen = 0;
  std::string_view name;
  bool bad = false;
  eachField(o, kTensorKeys, seen, [&](int k, sj::value& y) {
    Tensor& t = tensorAt(tid);
    switch (k) {
      case kTName:
        if (!readNodeName(y, name, "a tensor name", DiagCode::WrongType, "")) bad = true;
        return;
      case kTDType: readEnum(y, parseDType, t.dtype, DiagCode::BadEnum, "dtype"); return;
      case kTMemory:
        readEnum(y, parseMemoryType, t.memory, DiagCode::BadEnum, "memory type", " (global, local, shared)");
        return;
      case kTMesh: {
        int64_t n = 0;
        if (getInt(y, n, 0, INT32_MAX, "a mesh index")) {
          t.mesh = static_cast<MeshId>(n);
          mesh_bound_ = std::max(mesh_bound_, t.mesh + 1);
        }
        return;
      }
      case kTMeshSetAt: {
        int64_t n = 0;
        if (getInt(y, n, 0, INT32_MAX, "an expr count")) t.mesh_set_at = static_cast<uint32_t>(n);
        return;
      }
      case kTRoot: return readDomain(y, Slot::Root);
      case kTLogical: return readDomain(y, Slot::Logical);
      case kTAlloc: return readDomain(y, Slot::Allocation);
      case kTLoop: return readDomain(y, Slot::Loop);
      case kTContig: {
        eachElementOf(y, [&](size_t, sj::value& z) {
          sj::json_type jt;
          if (!getType(z, jt)) return false;
          if (jt == sj::json_type::null) {
            tensorAt(tid).contiguity.emplace_back(std::nullopt);
            return true;
          }
          bool b = false;
          if (jt != sj::json_type::boolean) return wrongType(z, "true, false or null");
          if (!getBool(z, b)) return false;
          tensorAt(tid).contiguity.emplace_back(b);
          return true;
        });
        return;
      }
      case kTTransforms: return readTransforms(y);
    }
  });
  if (stop()) return false;
  if (!requireKeys(seen, kTensorKeys, {kTName, kTDType, kTLogical}) || bad) return false;
  if (primary_ != nullptr) {
    // Interned when the chunks are merged, in document order.
    chunk_names_.append(name);
    chunk_name_ends_.push_back(chunk_names_.size());
  } else {
    Tensor& t = tensorAt(tid);
    t.name = internName(name);
    if (tensor_of_name_[t.name] == kNone) tensor_of_name_[t.name] = tid;
  }
  return resolveAxisRefs();
}

}  // namespace fc::reader_detail
