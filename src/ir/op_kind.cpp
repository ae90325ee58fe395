#include "ir/op_kind.h"

#include <array>

namespace fc {
namespace {

constexpr OpInfo kOps[] = {
#define FC_OP(E, J, C, MIN, MAX, NOUT, ATTRS, PROMO) \
  OpInfo{OpKind::E,                                  \
         J,                                          \
         OpCategory::C,                              \
         MIN,                                        \
         MAX,                                        \
         NOUT,                                       \
         [] {                                        \
           using enum Attr;                          \
           return uint32_t(ATTRS);                   \
         }(),                                        \
         Promotion::PROMO},
#include "ir/ops.def"
#undef FC_OP
};

}  // namespace

const OpInfo& opInfo(OpKind k) { return kOps[static_cast<size_t>(k)]; }

std::optional<OpKind> parseOpKind(std::string_view s) {
  for (const auto& op : kOps)
    if (op.name == s) return op.kind;
  return std::nullopt;
}

int numOpKinds() { return static_cast<int>(std::size(kOps)); }

}  // namespace fc
