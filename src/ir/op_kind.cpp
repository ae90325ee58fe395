#include "ir/op_kind.h"

#include <array>

namespace fc {
namespace {

constexpr OpInfo kOps[] = {
#define FC_OP(E, J, C, MIN, MAX, NOUT, ATTRS, PROMO, FORM, IR, PY, CPP, FLAGS) \
  OpInfo{OpKind::E,                                                            \
         J,                                                                    \
         OpCategory::C,                                                        \
         MIN,                                                                  \
         MAX,                                                                  \
         NOUT,                                                                 \
         [] {                                                                  \
           using enum Attr;                                                    \
           return uint32_t(ATTRS);                                             \
         }(),                                                                  \
         Promotion::PROMO,                                                     \
         OpForm::FORM,                                                         \
         IR,                                                                   \
         PY,                                                                   \
         CPP,                                                                  \
         [] {                                                                  \
           using enum OpFlag;                                                  \
           return uint32_t(FLAGS);                                             \
         }()},
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

std::optional<OpKind> opByPythonName(std::string_view s) {
  for (const auto& op : kOps)
    if (!op.python_name.empty() && op.python_name == s) return op.kind;
  return std::nullopt;
}

std::optional<OpKind> opByCppName(std::string_view s) {
  for (const auto& op : kOps)
    if (!op.cpp_name.empty() && op.cpp_name == s) return op.kind;
  return std::nullopt;
}

int numOpKinds() { return static_cast<int>(std::size(kOps)); }

}  // namespace fc
