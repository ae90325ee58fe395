// The interpreter that runs a Python repro (a tree from parser.h) against recording
// FusionDefinitions. It runs the module as Python would, with just enough of Python's builtins,
// of torch (the constructors and views that build `inputs`) and of nvFuser's two frontends
// (legacy `nvfuser` and `nvfuser_direct`: FusionDefinition, fd.ops, fd.sched, DeviceMesh,
// DataType, ParallelType, tensor methods) to record each fusion it defines.
//
// What is not about the fusion (printing, asserts, reference computations in torch, test
// scaffolding, calls into modules it does not model) is skipped, one note per skipped
// statement. While a definition is being recorded, the same problems are located errors: an
// unknown `fd.ops` name or an undefined name names what is missing (with "did you mean"), and
// the statement's targets stay unbound so later uses say so too. Function definitions nobody
// calls are run at the end when nothing was recorded: one whose first parameter is the
// FusionDefinition gets a fresh one, any other (a pytest test) gets opaque arguments.
//
// Calls nest at most kMaxCalls deep and loops run at most kMaxIterations times in all, so no
// script can hang or exhaust the stack.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/python/ast.h"
#include "io/python/recorder.h"
#include "io/python/value.h"

namespace fc::py {

constexpr int kMaxCalls = 64;
constexpr int64_t kMaxIterations = 1'000'000;

// A problem found while running a statement. `skip`: not about the fusion (a note outside a
// definition); otherwise an error inside a definition and a skip outside.
struct FrontendOp;

struct PyError {
  DiagCode code = DiagCode::ImportUnsupported;
  std::string message;
  uint32_t off = 0;
  bool skip = false;
  bool silent = false;  // follows from an error already reported (a name it left unbound)
  // A limit of the interpreter was passed (call depth, loop iterations): the whole run stops,
  // as a Python exception would; resuming at the next statement of every level could repeat the
  // work exponentially (a function calling itself twice).
  bool fatal = false;
};

class Interpreter {
 public:
  Interpreter(const SourceText& src, const Module& m, DiagnosticSink& sink);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs the module, then any definition nobody called; returns the recorders in order of
  // creation (those a definition ran into first).
  std::vector<std::shared_ptr<FusionRecorder>> run();

  int errors() const { return errors_; }
  // The device count assumed where the script reads its test fixture's (`multidevice_test.size`,
  // `dist.get_world_size()`); 2 unless set. With stop_at_skip, a `pytest.skip(...)` reached after
  // the script read that count ends the run, and skippedAt() says where: the caller tries another
  // count, as the test would skip with this one.
  void assumeDevices(int64_t n, bool stop_at_skip) {
    devices_ = n;
    stop_at_skip_ = stop_at_skip;
  }
  std::optional<uint32_t> skippedAt() const { return skipped_at_; }
  // Names that a line dropped for a syntax error would have bound: a use is not reported again.
  void dropped(std::vector<std::string> names) { dropped_ = std::move(names); }
  // A module-level name after the run (nullptr if unbound) and where its value was written.
  Ref global(const std::string& name) const { return globals_->find(name); }
  uint32_t globalOff(const std::string& name) const {
    auto it = global_off_.find(name);
    return it == global_off_.end() ? 0 : it->second;
  }
  // The diagnostic reported, or nullptr for a note already made at `off`.
  Diagnostic* report(Severity sev, DiagCode code, std::string message, uint32_t off);

  // ---- used by the op and frontend files
  [[noreturn]] void fail(std::string message, uint32_t off, DiagCode code = DiagCode::ImportUnsupported);
  [[noreturn]] void skip(std::string message, uint32_t off);
  bool recording() const { return recording_ > 0; }
  Ref call(const Ref& f, Args& args);
  Ref getAttr(const Ref& obj, const std::string& name, uint32_t off);
  bool truthy(const Ref& v, uint32_t off);
  int64_t asInt(const Ref& v, uint32_t off, const std::string& what);
  double asFloat(const Ref& v, uint32_t off, const std::string& what);
  std::vector<Ref> asList(const Ref& v, uint32_t off, const std::string& what);
  std::string lineCol(uint32_t off) const;
  // The identifier that starts at `off` in the script (`T4`); empty when none does.
  std::string identifierAt(uint32_t off) const;

 private:
  enum class Flow { Normal, Return, Break, Continue };

  // interpreter.cpp: statements and expressions
  Flow execBlock(const std::vector<NodeId>& body, const std::shared_ptr<Scope>& sc);
  Flow exec(NodeId n, const std::shared_ptr<Scope>& sc);
  Ref eval(NodeId n, const std::shared_ptr<Scope>& sc);
  void assign(NodeId target, const Ref& v, const std::shared_ptr<Scope>& sc);
  Ref lookup(const Node& n, const std::shared_ptr<Scope>& sc);
  // The value of name `n`, or null where it is not defined (lookup's error then).
  Ref findName(const Node& n, const std::shared_ptr<Scope>& sc);
  // `Enum.MEMBER` (an all-caps member) of a capitalised name the repro never defines, as a test's
  // parameter enum that the paste left out: an opaque constant equal only to the same member, with
  // a note once per name. Null for any other attribute.
  Ref undefinedEnumMember(const Node& attr, const std::shared_ptr<Scope>& sc);
  Ref evalCall(const Node& n, const std::shared_ptr<Scope>& sc);
  Ref callFunction(const Ref& f, Args& args);
  Ref instantiate(const Ref& cls, Args& args);
  Ref comprehension(const Node& n, const std::shared_ptr<Scope>& sc);
  void compLoop(const Node& n, size_t clause, const std::shared_ptr<Scope>& sc, std::vector<Ref>& out,
                std::vector<Ref>& keys);
  std::vector<Ref> iterate(const Ref& v, uint32_t off);
  Ref makeFunction(const Node& def, const std::shared_ptr<Scope>& sc);
  void importStmt(const Node& n, const std::shared_ptr<Scope>& sc);
  Ref withStmt(const Node& n, const std::shared_ptr<Scope>& sc, Flow& flow);
  void runUncalledDefinitions();
  // Runs the uncalled definitions among defs_[from, to); true when the run is over (a fusion
  // recorded, or a limit passed).
  bool runDefinitions(size_t from, size_t to);
  static constexpr size_t kDefinitionRounds = 4;
  std::vector<std::pair<std::string, Ref>> firstParametrization(const Node& def,
                                                                const std::shared_ptr<Scope>& sc);
  void tick(uint32_t off);
  // What statement `stmt` would have bound becomes poisoned (its failure was reported), or, with
  // `unbind` (it was skipped with a note), unbound, so that no use reads an older value.
  void poisonTargets(NodeId stmt, const std::shared_ptr<Scope>& sc, bool unbind = false);
  void poison(NodeId target, const std::shared_ptr<Scope>& sc, bool unbind = false);

  // match_statement.cpp: `match` and its case patterns; a pattern's captures go to `binds`.
  Flow matchStmt(const Node& n, const std::shared_ptr<Scope>& sc);
  bool matchPattern(NodeId p, const Ref& v, const std::shared_ptr<Scope>& sc,
                    std::vector<std::pair<std::string, Ref>>& binds);

  // operators.cpp: Python operators on every kind of value
  Ref binary(const std::string& op, const Ref& l, const Ref& r, uint32_t off);
  Ref unary(const std::string& op, const Ref& v, uint32_t off);
  Ref compare(const std::string& op, const Ref& l, const Ref& r, uint32_t off);
  Ref subscript(const Ref& obj, const Ref& idx, uint32_t off);
  bool equal(const Ref& l, const Ref& r);

  // builtins.cpp: Python's builtins, modules and their attributes
  Ref builtinCall(const Value& f, Args& args);
  Ref moduleAttr(const Ref& mod, const std::string& name, uint32_t off);
  // builtins.cpp: itertools.product / permutations / combinations as a list of tuples
  Ref itertoolsCall(const std::string& fn, Args& args);
  Ref moduleCall(const std::string& dotted, Args& args);
  // builtins.cpp: a class deriving from enum.Enum (or IntEnum, StrEnum, Flag): each member becomes
  // an instance with `name` and `value`, compared by identity as Python's members are.
  void enumMembers(const Ref& cls);

  // torch_values.cpp: torch tensors for `inputs`
  Ref torchCall(const std::string& fn, Args& args);
  Ref torchConstruct(const std::string& fn, Args& args);
  void describeData(const std::string& f, Args& args, Value& t);
  Ref torchMethod(const Ref& t, const std::string& name, Args& args);
  Ref torchAttr(const Ref& t, const std::string& name, uint32_t off);
  // A rank's shard of a torch tensor (a test fixture's `shard_tensor`, `mesh.shard_tensor`):
  // `mesh_self` is the mesh of the method form, else null.
  Ref shardTensor(const std::string& callee, const Ref& mesh_self, Args& args);
  // An elementwise op on torch tensors and numbers: a torch tensor of the result's sizes and
  // dtype, or Opaque where the interpreter does not know the result.
  Ref torchArithmetic(const std::string& op, const Ref& l, const Ref& r);
  // torch.lt / torch.add / torch.nn.functional.softmax ... on torch tensors (torch_values.cpp);
  // `f` follows "torch.". Null where `f` is none of them.
  Ref torchElementwise(const std::string& f, Args& args);
  // nvFuser's test helpers that make packed FP4 inputs: narrow_precision.to_fp4(x) and
  // pytorch_nvfp4_quantize(x, global_scale) (tests/python/direct_utils/narrow_precision.py:110-153
  // @ 81c4b22fd); nullptr when `fn` is neither.
  Ref narrowPrecisionCall(const std::string& fn, Args& args);
  Ref torchIndex(const Ref& t, const Ref& idx, uint32_t off);

  // fusion_definition.cpp: FusionDefinition, fd.sched, meshes, tensor methods
  Ref newFusionDefinition(uint32_t off, Frontend fe, const Ref& instance);
  Ref fdAttr(const Ref& fd, const std::shared_ptr<FusionRecorder>& rec, const std::string& name,
             uint32_t off);
  Ref fdCall(const std::shared_ptr<FusionRecorder>& rec, const std::string& name, Args& args);
  // FC0315 for a define call (define_tensor, define_scalar, add_output, ...) on a FusionDefinition
  // never entered, with the check nvFuser stops at; then a silent fatal error ends the run, as
  // nvFuser's exception ends the script.
  [[noreturn]] void refuseUnentered(const FusionRecorder& rec, const std::string& name, const Args& args);
  Ref schedCall(const std::shared_ptr<FusionRecorder>& rec, const std::string& name, Args& args);
  Ref tensorAttr(const Ref& t, const std::string& name, uint32_t off);
  Ref tensorMethod(const Ref& t, const std::string& name, Args& args);
  Ref makeMesh(Args& args);
  void runDefinition(const Ref& fn, const Ref& fd, Args& args);

  // frontend_ops.cpp: fd.ops
  Ref opsCall(const std::shared_ptr<FusionRecorder>& rec, const std::string& name, Args& args);
  // FC0603 for fd.ops.<name> that no frontend has, with the nearest names (ops_build.cpp).
  [[noreturn]] void failUnknownOp(const std::string& name, uint32_t off);
  // composite_ops.cpp: an fd.ops call nvFuser builds from other ops' exprs (addcmul, add_alpha,
  // truediv, sign, ...), recorded as those exprs; nullptr when `name` is not one.
  Ref compositeOp(const std::shared_ptr<FusionRecorder>& rec, const std::string& fname,
                  const std::string& name, std::vector<ValueRef> ins, uint32_t off);
  // opaque_ops.cpp: fd.ops calls of ops fusecheck imports as opaque ops (PyForm::OutputRule)
  Ref opaqueOpCall(const std::shared_ptr<FusionRecorder>& rec, const FrontendOp& op, Args& args);

  friend class OpsBinder;
  friend class Values;

  const SourceText& src_;
  const Module& m_;
  DiagnosticSink& sink_;
  std::shared_ptr<Scope> globals_;
  // Every scope and attribute table made, emptied when the interpreter ends.
  std::shared_ptr<Scope> newScope(std::shared_ptr<Scope> parent);
  std::shared_ptr<std::unordered_map<std::string, Ref>> newAttrs(std::unordered_map<std::string, Ref> init);
  std::vector<std::weak_ptr<Scope>> scopes_;
  std::vector<std::weak_ptr<std::unordered_map<std::string, Ref>>> attr_tables_;
  std::vector<std::shared_ptr<FusionRecorder>> recs_;
  // Instances of FusionDefinition subclasses whose definition has not run yet (instantiate).
  struct PendingDefinition {
    Ref obj;
    uint32_t off = 0;
  };
  std::vector<PendingDefinition> pending_definitions_;
  bool kernel_schedule_ = false;         // running a subclass's `schedule()` (schedule.cpp)
  bool kernel_schedule_noted_ = false;   // its left-out calls were noted
  bool kernel_schedule_device_ = false;  // it placed a tensor on a mesh or sharded one
  // Runs the pending definitions (of `only`'s instance, or all), in the order they were made.
  void runPendingDefinitions(const FusionRecorder* only);
  std::vector<std::pair<NodeId, std::shared_ptr<Scope>>> defs_;  // every def run, in order
  std::vector<NodeId> called_;                                   // defs that were called
  Frontend imported_ = Frontend::Unknown;
  // `from torch._C._nvfuser import ...`: where, given to each FusionDefinition made after it.
  std::optional<uint32_t> pre_repo_import_;
  int recording_ = 0;
  int calls_ = 0;
  int64_t iterations_ = 0;
  int64_t enum_auto_ = 0;  // enum.auto()'s last value in the class body being run
  int64_t devices_ = 2;
  bool stop_at_skip_ = false;
  bool devices_read_ = false;
  std::optional<uint32_t> skipped_at_;
  // The fixture's device count and rank, with a note (once per place) saying what is assumed.
  Ref assumedDevices(const std::string& what, uint32_t off);
  Ref assumedRank(const std::string& what, uint32_t off);
  int errors_ = 0;
  // The notes reported so far, by place and text: a line that a loop runs again is noted once.
  std::set<std::pair<uint32_t, std::string>> noted_;
  std::set<std::string> undefined_enums_;  // names noted by undefinedEnumMember
  Ref return_value_;
  std::unordered_map<std::string, uint32_t> global_off_;
  // Scopes of the functions that defined a fusion, newest last: a schedule function written
  // beside the definition (as fusecheck's export writes it) reads the definition's names.
  std::vector<std::shared_ptr<Scope>> def_scopes_;
  std::vector<std::string> dropped_;
};

}  // namespace fc::py
