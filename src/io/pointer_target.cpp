#include "io/pointer_target.h"

#include <charconv>
#include <vector>

namespace fc {
namespace {

std::vector<std::string_view> tokens(std::string_view p) {
  std::vector<std::string_view> out;
  if (p.empty() || p.front() != '/') return out;
  p.remove_prefix(1);
  while (true) {
    size_t slash = p.find('/');
    out.push_back(p.substr(0, slash));
    if (slash == std::string_view::npos) break;
    p.remove_prefix(slash + 1);
  }
  return out;
}

bool index(std::string_view s, size_t& i) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

const std::vector<AxisId>* domain(const Tensor& t, std::string_view name) {
  if (name == "logical") return &t.logical;
  if (name == "root") return &t.root;
  if (name == "allocation") return &t.allocation;
  if (name == "loop") return &t.loop;
  return nullptr;
}

}  // namespace

PointerTarget resolvePointer(const Fusion& f, std::string_view pointer) {
  PointerTarget out;
  std::vector<std::string_view> t = tokens(pointer);
  size_t i = 0;
  if (t.size() >= 2 && t[0] == "tensors" && index(t[1], i) && i < f.tensors.size()) {
    out.tensor = static_cast<TensorId>(i);
    size_t k = 0;
    if (t.size() >= 4 && index(t[3], k))
      if (const std::vector<AxisId>* dom = domain(f.tensors[i], t[2]); dom && k < dom->size())
        out.axis = (*dom)[k];
  } else if (t.size() >= 2 && t[0] == "exprs" && index(t[1], i) && i < f.exprs.size()) {
    out.expr = static_cast<ExprId>(i);
  } else if (t.size() >= 3 && t[0] == "segmentation" && t[1] == "segments" && index(t[2], i)) {
    out.segment = static_cast<int>(i);
  }
  return out;
}

}  // namespace fc
