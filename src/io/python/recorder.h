// One FusionDefinition being recorded: the Fusion it builds (through ImportBuilder, so outputs
// get nvFuser's shape and dtype rules), where each tensor, scalar and expr was defined in the
// script, the concrete inputs `fd.execute(...)` was given, and the frontend it came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/import_builder.h"
#include "io/python/value.h"
#include "ir/dated_spellings.h"
#include "ir/fusion.h"

namespace fc::py {

enum class Frontend : uint8_t { Unknown, Legacy, Direct };

class FusionRecorder {
 public:
  FusionRecorder() : b(f) {}
  FusionRecorder(const FusionRecorder&) = delete;
  FusionRecorder& operator=(const FusionRecorder&) = delete;

  Fusion f;
  ImportBuilder b;
  Frontend frontend = Frontend::Unknown;
  std::string name;       // the definition function's name
  uint32_t off = 0;       // where the FusionDefinition was created
  bool recorded = false;  // a definition ran into it
  // Entered: by `with`, as a definition (a subclass's definition(), a function handed the
  // FusionDefinition by a harness) or by `__enter__` / `_setup_definition`; nvFuser refuses the
  // define calls of one never entered.
  bool opened = false;
  // The first construct of nvFuser's frontend in PyTorch's tree (torch._C._nvfuser, before nvFuser's
  // own repository) the script uses: `Fusion()`, `fd.add_input`, `fd.ops.view`; "" if none.
  std::string pre_repo;
  uint32_t pre_repo_off = 0;
  void markPreRepo(std::string what, uint32_t at) {
    if (!pre_repo.empty()) return;
    pre_repo = std::move(what);
    pre_repo_off = at;
  }
  int added_inputs = 0;     // fd.add_input calls: the inputs' order is theirs
  bool executed = false;    // fd.execute(...) gave concrete inputs
  std::vector<Ref> inputs;  // the values fd.execute(...) was given
  uint32_t inputs_off = 0;
  // Keywords (and forms of an argument list) that date the script: call, keyword, offset of the
  // first use of each.
  struct Spelled {
    std::string call, keyword;
    uint32_t off = 0;
  };
  std::vector<Spelled> spelled;
  // Notes `keyword` of `call` when it dates the script (ir/dated_spellings.h).
  void spell(const std::string& call, const std::string& keyword, uint32_t at) {
    if (!datesScript(frontend == Frontend::Direct ? "python-direct" : "python-legacy", call, keyword)) return;
    for (const Spelled& s : spelled)
      if (s.call == call && s.keyword == keyword) return;
    spelled.push_back({call, keyword, at});
  }
  // Source map: the offset of the call that defined each tensor / scalar / expr.
  std::vector<uint32_t> tensor_off, scalar_off, expr_off;

  void noteTensor(TensorId t, uint32_t at) { put(tensor_off, t, at); }
  void noteScalar(ScalarId s, uint32_t at) { put(scalar_off, s, at); }
  void noteExprs(uint32_t at) {
    while (expr_off.size() < f.exprs.size()) expr_off.push_back(at);
  }

 private:
  static void put(std::vector<uint32_t>& v, uint32_t i, uint32_t at) {
    if (v.size() <= i) v.resize(i + 1, UINT32_MAX);
    v[i] = at;
  }
};

// The script's value of tensor `t` / scalar `s` of `rec`'s fusion.
inline Ref tensorValue(const std::shared_ptr<FusionRecorder>& rec, TensorId t) {
  Ref v = mk(VK::Tensor);
  v->id = t;
  v->rec = rec;
  return v;
}
inline Ref scalarValue(const std::shared_ptr<FusionRecorder>& rec, ScalarId s) {
  Ref v = mk(VK::Scalar);
  v->id = s;
  v->rec = rec;
  return v;
}

}  // namespace fc::py
