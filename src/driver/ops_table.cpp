#include "driver/ops_table.h"

#include <ostream>

#include "io/python/frontend_ops.h"
#include "ir/op_kind.h"
#include "ir/op_rules.h"

namespace fc::driver {

namespace {

std::string_view categoryName(OpCategory c) {
  switch (c) {
    case OpCategory::Set: return "Set";
    case OpCategory::Cast: return "Cast";
    case OpCategory::Unary: return "Unary";
    case OpCategory::Binary: return "Binary";
    case OpCategory::Compare: return "Compare";
    case OpCategory::Ternary: return "Ternary";
    case OpCategory::Shape: return "Shape";
    case OpCategory::Reduction: return "Reduction";
    case OpCategory::Factory: return "Factory";
    case OpCategory::Matmul: return "Matmul";
    case OpCategory::Opaque: return "Opaque";
  }
  return "";
}

std::string arity(const OpInfo& info) {
  if (info.max_inputs < 0) return std::to_string(info.min_inputs) + " or more";
  if (info.max_inputs != info.min_inputs)
    return std::to_string(info.min_inputs) + "–" + std::to_string(info.max_inputs);
  return std::to_string(info.min_inputs);
}

std::string orDash(const std::string& s) { return s.empty() ? "—" : s; }

std::string code(std::string_view s) { return s.empty() ? "—" : "`" + std::string(s) + "`"; }

}  // namespace

std::string opTableMarkdown() {
  std::string s =
      "# Ops\n\n"
      "The ops fusecheck models, generated from `src/ir/ops.def` and the op rules (`src/ir/op_rules.h`) by\n"
      "`fusecheck ops --markdown`; a test keeps this page equal to that output. Inputs count tensors and\n"
      "scalars together. *Output dtype* is nvFuser's type promotion (`csrc/type_promotion.cpp`,\n"
      "`csrc/ops/arith.cpp`). *nvFuser IR* is the name nvFuser prints (a symbol prints inline; for a\n"
      "reduction, its reduction op), *Python* the `fd.ops` name, *C++* the `csrc/ops` function.\n"
      "*Python import* names the frontends whose repros fusecheck imports the op from (`legacy`: the\n"
      "`nvfuser` module, `direct`: `nvfuser_direct`; `src/io/python/frontend_ops.cpp`). *Executed*: whether\n"
      "fusecheck's executors compute it; `run` refuses a fusion with an op they do not that an output\n"
      "depends on (FC0909), every other command analyses it with nvFuser's shape and dtype rule.\n"
      "`opaque` is an op fusecheck has no rule for, imported by its name (from printed IR, or with\n"
      "nvFuser's output rule from a frontend call): the analyses follow it by its outputs' extents where\n"
      "nothing they check depends on it, and answer not decided elsewhere (docs/import.md).\n\n"
      "| op | category | inputs | outputs | attributes | output dtype | nvFuser IR | Python | C++ | Python "
      "import | executed |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpInfo& info = opInfo(static_cast<OpKind>(k));
    std::string attrs;
    for (std::string_view a : attrKeys(info.kind)) attrs += (attrs.empty() ? "" : ", ") + code(a);
    s += "| " + code(info.name) + " | " + std::string(categoryName(info.category)) + " | " + arity(info) +
         " | " + (info.num_outputs < 0 ? std::string("1 or more") : std::to_string(info.num_outputs)) +
         " | " + (attrs.empty() ? "—" : attrs) + " | " + std::string(dtypeRuleSummary(info.kind)) + " | " +
         code(info.ir_name) + " | " + code(info.python_name) + " | " + code(info.cpp_name) + " | " +
         orDash(py::frontendsOf(info.kind)) + " | " + (isExecuted(info.kind) ? "yes" : "no") + " |\n";
  }
  return s;
}

int ops(const OpsArgs& a, std::ostream& out) {
  if (a.markdown) {
    out << opTableMarkdown();
    return 0;
  }
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpInfo& info = opInfo(static_cast<OpKind>(k));
    out << info.name << "  " << categoryName(info.category) << "  inputs " << arity(info)
        << "  dtype: " << dtypeRuleSummary(info.kind) << "\n";
  }
  return 0;
}

}  // namespace fc::driver
