// Run inputs from the user's tensors, and tensor files of a run (see
// file_inputs.h).
#include "exec/file_inputs.h"

#include <bit>
#include <cmath>
#include <map>
#include <unordered_map>

#include "exec/exec_error.h"

namespace fc::exec {
namespace {

Place inputPlace(size_t p) { return Place::input(p); }

std::string inputName(const Fusion& f, ValueRef v) {
  return v.isTensor() ? std::string(f.tensorName(v.id)) : scalarLabel(f, v.id);
}

[[noreturn]] void mismatch(const std::string& msg, const Place& where) {
  fail(msg, where, DiagCode::TensorInputMismatch);
}

const ConcreteInput* concreteFor(const Fusion& f, ValueRef v, size_t* index) {
  for (size_t i = 0; i < f.concrete_inputs.size(); ++i)
    if (f.concrete_inputs[i].value == v) {
      *index = i;
      return &f.concrete_inputs[i];
    }
  return nullptr;
}

std::string namesOf(const std::vector<FileTensor>& list) {
  std::string s;
  for (size_t i = 0; i < list.size() && i < 8; ++i) s += (i ? ", " : "") + list[i].name;
  if (list.size() > 8) s += ", ...";
  return s.empty() ? "nothing" : s;
}

// The tensor of `list` for each input position in `eligible` (null where
// none); see the matching rule in file_inputs.h.
std::vector<const FileTensor*> match(const Fusion& f, const std::vector<FileTensor>& list,
                                     const std::vector<size_t>& eligible, const std::string& source) {
  std::vector<const FileTensor*> by_pos(f.inputs.size(), nullptr);
  std::map<std::string, size_t> names;
  std::string all_names;
  size_t tensors = 0;
  for (size_t p : eligible) {
    names[inputName(f, f.inputs[p])] = p;
    all_names += (all_names.empty() ? "" : ", ") + inputName(f, f.inputs[p]);
    tensors += f.inputs[p].isTensor();
  }
  bool by_name = false;
  for (const FileTensor& ft : list) by_name = by_name || names.count(ft.name);
  if (by_name) {
    for (const FileTensor& ft : list) {
      auto it = names.find(ft.name);
      if (it == names.end())
        mismatch(source + ": tensor '" + ft.name +
                     "' names no input of the fusion (its inputs: " + all_names + ")",
                 Place::member(PlaceField::Inputs));
      by_pos[it->second] = &ft;
    }
    for (size_t p : eligible)
      if (f.inputs[p].isTensor() && !by_pos[p])
        mismatch(source + " has no tensor named '" + inputName(f, f.inputs[p]) + "' for input " +
                     std::to_string(p) + " (it holds " + namesOf(list) + ")",
                 inputPlace(p));
    return by_pos;
  }
  if (list.size() == eligible.size()) {
    for (size_t k = 0; k < eligible.size(); ++k) by_pos[eligible[k]] = &list[k];
    return by_pos;
  }
  if (list.size() == tensors) {
    size_t k = 0;
    for (size_t p : eligible)
      if (f.inputs[p].isTensor()) by_pos[p] = &list[k++];
    return by_pos;
  }
  mismatch(source + " holds " + std::to_string(list.size()) + " tensor" + (list.size() == 1 ? "" : "s") +
               " (" + namesOf(list) + "), none named after an input of the fusion (" + all_names +
               "); matched by position it needs " + std::to_string(tensors) +
               (tensors == eligible.size() ? "" : " (tensor inputs) or " + std::to_string(eligible.size())),
           Place::member(PlaceField::Inputs));
}

bool sameDType(DType want, FileDType got) {
  auto d = dtypeOfFile(got);
  if (!d) return false;
  if (want == DType::Index) return *d == DType::Int;
  return *d == want;
}

std::string describe(const FileTensor& ft) {
  return std::string(fileDTypeName(ft.file_dtype)) + " " + shapeString(ft.values.shape());
}

// A scalar input's value from a 0-d (or one-element) tensor.
ScalarValue scalarFrom(const Fusion& f, ValueRef v, const FileTensor& ft, const std::string& what, size_t p) {
  DType want = f.scalars[v.id].dtype;
  if (ft.values.numel() != 1)
    mismatch(what + " is " + describe(ft) + " but scalar input " + scalarLabel(f, v.id) +
                 " takes one value (a 0-d tensor)",
             inputPlace(p));
  auto d = dtypeOfFile(ft.file_dtype);
  bool ok = d && (isFloatingPoint(want) ? isFloatingPoint(*d) : !isFloatingPoint(*d));
  if (!ok)
    mismatch(what + " is " + std::string(fileDTypeName(ft.file_dtype)) + " but scalar input " +
                 scalarLabel(f, v.id) + " is " + std::string(dtypeName(want)),
             inputPlace(p));
  double x = ft.values[0];
  return isFloatingPoint(want) ? ScalarValue::ofFloat(x) : ScalarValue::ofInt(static_cast<int64_t>(x));
}

// Elements of `local` that share a storage offset under `strides` must be
// equal (bitwise, so NaN matches NaN).
void checkStrides(const HostTensor& local, const std::vector<int64_t>& strides, const std::string& what,
                  const Place& where) {
  if (strides.size() != local.shape().size() || strides == contiguousStrides(local.shape())) return;
  std::unordered_map<int64_t, int64_t> first;  // storage offset -> flat index
  std::vector<int64_t> idx(local.shape().size(), 0);
  for (int64_t i = 0; i < local.numel(); ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * strides[d];
    auto [it, fresh] = first.emplace(o, i);
    double a = local[it->second], b = local[i];
    bool same = std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) || (std::isnan(a) && std::isnan(b));
    if (!fresh && !same)
      mismatch(what + ": the repro's concrete strides " + shapeString(strides) + " make " +
                   shapeString(local.index(it->second)) + " and " + shapeString(idx) +
                   " the same element, but the file holds " + std::to_string(local[it->second]) + " and " +
                   std::to_string(local[i]),
               where);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < local.shape()[d]) break;
      idx[d] = 0;
    }
  }
}

// Checks a tensor input's global tensor and binds its extents.
void checkAndBind(const Fusion& f, size_t p, const HostTensor& global, FileDType fdt, const std::string& what,
                  ScalarValues& sv) {
  TensorId t = f.inputs[p].id;
  std::string name(f.tensorName(t));
  DType want = f.tensors[t].dtype;
  if (!sameDType(want, fdt))
    mismatch("input " + name + " is " + std::string(dtypeName(want)) + " but " + what + " is " +
                 std::string(fileDTypeName(fdt)) + " (expected " +
                 std::string(fileDTypeName(fileDTypeOf(want))) + ")",
             inputPlace(p));
  size_t rank = materializedAxes(f, t).size();
  if (global.shape().size() != rank)
    mismatch("input " + name + " has " + std::to_string(rank) + " non-Reduction axes but " + what +
                 " has shape " + shapeString(global.shape()),
             inputPlace(p));
  size_t ci_index = 0;
  if (const ConcreteInput* ci = concreteFor(f, f.inputs[p], &ci_index)) {
    Shape want_global = ci->shape;
    for (const ShardDim& sd : shardDims(f, t))
      if (sd.dim < static_cast<int64_t>(want_global.size())) want_global[sd.dim] *= sd.parts;
    if (want_global != global.shape())
      mismatch("input " + name + ": " + what + " has shape " + shapeString(global.shape()) +
                   " but the repro's concrete_inputs give " + shapeString(want_global) +
                   " (global); the repro was analysed at those sizes",
               Place::concreteInput(ci_index));
  }
  try {
    bindTensorShape(f, t, global.shape(), sv, inputPlace(p), DiagCode::TensorInputMismatch);
  } catch (ExecError& e) {
    e.message = what + ": " + e.message;
    throw;
  }
}

std::vector<int64_t> concreteStrides(const Fusion& f, size_t p) {
  size_t ci_index = 0;
  const ConcreteInput* ci = concreteFor(f, f.inputs[p], &ci_index);
  return ci ? ci->strides : std::vector<int64_t>{};
}

}  // namespace

RunInputs inputsFromTensors(const Fusion& f, const World& world, ScalarValues& sv, const ProvidedInputs& pi,
                            uint64_t seed, int64_t default_extent, MemoryBudget* budget) {
  bool per_rank = !pi.per_rank.empty();
  if (per_rank && static_cast<int64_t>(pi.per_rank.size()) != world.size())
    mismatch("--inputs-per-rank takes one file per rank: the fusion's meshes cover " +
                 std::to_string(world.size()) + " devices, " + std::to_string(pi.per_rank.size()) +
                 " files were given",
             Place::member(PlaceField::Meshes));
  // Match every list first.
  std::vector<size_t> all(f.inputs.size());
  for (size_t p = 0; p < all.size(); ++p) all[p] = p;
  std::vector<const FileTensor*> global_match;
  std::vector<std::vector<const FileTensor*>> rank_match;
  std::vector<bool> provided(f.inputs.size(), false);
  if (!per_rank) {
    global_match = match(f, pi.global, all, pi.source);
    for (size_t p = 0; p < all.size(); ++p) provided[p] = global_match[p] != nullptr;
  } else {
    for (int64_t r = 0; r < world.size(); ++r) {
      std::vector<size_t> here;
      for (size_t p = 0; p < f.inputs.size(); ++p) {
        if (!f.inputs[p].isTensor()) {
          here.push_back(p);
          continue;
        }
        for (int64_t wr : world.ranksOf(f.inputs[p].id))
          if (wr == r) here.push_back(p);
      }
      rank_match.push_back(match(f, pi.per_rank[r], here, pi.rank_sources[r]));
    }
  }

  RunInputs in;
  in.values.resize(f.inputs.size());
  // Scalars given in the file(s) first, then the others as the generator does.
  for (size_t p = 0; p < f.inputs.size(); ++p) {
    ValueRef v = f.inputs[p];
    if (!v.isScalar()) continue;
    const FileTensor* ft = nullptr;
    std::string src = pi.source;
    if (!per_rank) {
      ft = global_match[p];
    } else {
      for (size_t r = 0; r < rank_match.size() && !ft; ++r)
        if (rank_match[r][p]) {
          ft = rank_match[r][p];
          src = pi.rank_sources[r];
        }
    }
    if (!ft) continue;
    provided[p] = true;
    InputValue& iv = in.values[p];
    iv.is_tensor = false;
    iv.dtype = f.scalars[v.id].dtype;
    iv.scalar = scalarFrom(f, v, *ft, src + ": tensor '" + ft->name + "'", p);
    if (!sv.bind(v.id, iv.scalar))
      mismatch(src + ": scalar input " + scalarLabel(f, v.id) + " is bound to another value already (--bind)",
               inputPlace(p));
  }
  generateScalarInputs(f, sv, seed, default_extent, in, &provided);

  for (size_t p = 0; p < f.inputs.size(); ++p) {
    ValueRef v = f.inputs[p];
    if (!v.isTensor()) continue;
    TensorId t = v.id;
    InputValue& iv = in.values[p];
    iv.is_tensor = true;
    iv.dtype = f.tensors[t].dtype;
    std::vector<ShardDim> shards = shardDims(f, t);
    const Mesh* mesh = meshOf(f, t);
    std::vector<int64_t> ranks = world.ranksOf(t);
    std::vector<int64_t> strides = concreteStrides(f, p);
    iv.local.resize(world.size());
    std::string name(f.tensorName(t));
    if (!per_rank) {
      const FileTensor& ft = *global_match[p];
      std::string what = pi.source + ": tensor '" + ft.name + "'";
      checkAndBind(f, p, ft.values, ft.file_dtype, what, sv);
      iv.global = ft.values;
      iv.global.setDType(iv.dtype);
      try {
        localShape(iv.global.shape(), shards, name);
      } catch (ExecError& e) {
        mismatch(what + ": " + e.message, inputPlace(p));
      }
      for (size_t pos = 0; pos < ranks.size(); ++pos) {
        HostTensor local = shardOf(iv.global, shards, mesh, static_cast<int64_t>(pos));
        checkStrides(local, strides, what, inputPlace(p));
        if (ranks[pos] >= 0) iv.local[ranks[pos]] = std::move(local);
      }
      if (ranks.empty()) checkStrides(iv.global, strides, what, inputPlace(p));
      continue;
    }
    std::vector<const HostTensor*> by_pos;
    FileDType fdt = FileDType::F32;
    std::string first_what;
    for (size_t pos = 0; pos < ranks.size(); ++pos) {
      int64_t r = ranks[pos];
      const FileTensor& ft = *rank_match[r][p];
      std::string what = pi.rank_sources[r] + ": tensor '" + ft.name + "'";
      if (pos == 0) {
        fdt = ft.file_dtype;
        first_what = what;
      }
      if (!sameDType(iv.dtype, ft.file_dtype))
        mismatch("input " + name + " is " + std::string(dtypeName(iv.dtype)) + " but " + what + " is " +
                     std::string(fileDTypeName(ft.file_dtype)),
                 inputPlace(p));
      if (pos > 0 && ft.values.shape() != by_pos[0]->shape())
        mismatch("input " + name + ": " + what + " has shape " + shapeString(ft.values.shape()) + " but " +
                     first_what + " has " + shapeString(by_pos[0]->shape()) +
                     "; every rank holds a same-sized shard",
                 inputPlace(p));
      checkStrides(ft.values, strides, what, inputPlace(p));
      HostTensor local = ft.values;
      local.setDType(iv.dtype);
      iv.local[r] = std::move(local);
      by_pos.push_back(&*iv.local[r]);
    }
    std::optional<int64_t> replica_bad;
    iv.global = assemble(by_pos, shards, mesh, budget, &replica_bad);
    if (replica_bad)
      mismatch("input " + name + ": the per-rank files disagree on a replicated element at global index " +
                   shapeString(iv.global.index(*replica_bad)) + "; replicas must hold the same values",
               inputPlace(p));
    checkAndBind(f, p, iv.global, fdt, "the per-rank files' " + name, sv);
  }
  return in;
}

TensorFile inputsToFile(const Fusion& f, const RunInputs& in, uint64_t seed) {
  TensorFile file;
  file.metadata = {
      {"producer", "fusecheck"}, {"fusecheck.role", "inputs"}, {"fusecheck.seed", std::to_string(seed)}};
  for (size_t p = 0; p < f.inputs.size() && p < in.values.size(); ++p) {
    const InputValue& iv = in.values[p];
    FileTensor ft;
    ft.name = inputName(f, f.inputs[p]);
    if (iv.is_tensor) {
      ft.file_dtype = fileDTypeOf(iv.dtype);
      ft.values = iv.global;
    } else {
      // Floating scalars are fp64 values whatever their dtype: F64 keeps them exactly.
      ft.file_dtype = isFloatingPoint(iv.dtype) ? FileDType::F64 : fileDTypeOf(iv.dtype);
      ft.values = HostTensor(dtypeOfFile(ft.file_dtype).value_or(DType::Double), {});
      ft.values[0] = iv.scalar.asDouble();
    }
    file.tensors.push_back(std::move(ft));
  }
  return file;
}

TensorFile tensorsToFile(const std::vector<std::pair<std::string, const HostTensor*>>& tensors,
                         const std::string& role) {
  TensorFile file;
  file.metadata = {{"producer", "fusecheck"}, {"fusecheck.role", role}};
  for (const auto& [name, t] : tensors) {
    FileTensor ft;
    ft.name = name;
    ft.file_dtype = fileDTypeOf(t->dtype());
    ft.values = *t;
    file.tensors.push_back(std::move(ft));
  }
  return file;
}

}  // namespace fc::exec
