#include "ir/mesh.h"

namespace fc {

int64_t Mesh::sizeFor(ParallelType pt) const {
  int offset;
  switch (pt) {
    case ParallelType::DIDx: offset = 0; break;
    case ParallelType::DIDy: offset = 1; break;
    case ParallelType::DIDz: offset = 2; break;
    default: return -1;
  }
  int nd = static_cast<int>(shape.size());
  if (offset >= nd) return -1;
  return shape[nd - 1 - offset];
}

namespace {
void printLevel(const Mesh& m, size_t dim, size_t& pos, std::string& out) {
  if (dim + 1 == m.shape.size()) {
    for (int64_t i = 0; i < m.shape[dim]; ++i) {
      if (i) out += ' ';
      out += pos < m.devices.size() ? std::to_string(m.devices[pos++]) : std::string("?");
    }
    return;
  }
  for (int64_t i = 0; i < m.shape[dim]; ++i) {
    out += '{';
    printLevel(m, dim + 1, pos, out);
    out += '}';
  }
}
}  // namespace

std::string Mesh::toString(bool head_style) const {
  std::string out = "DeviceMesh{";
  if (!head_style || shape.size() <= 1) {
    for (size_t i = 0; i < devices.size(); ++i) {
      if (i) out += ' ';
      out += std::to_string(devices[i]);
    }
  } else {
    size_t pos = 0;
    printLevel(*this, 0, pos, out);
  }
  out += '}';
  return out;
}

}  // namespace fc
