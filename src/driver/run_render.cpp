// JSON and text renderings of a RunResult (see run.h). O(size of the result).
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "diag/render.h"
#include "driver/run.h"
#include "io/place_pointer.h"

namespace fc {
namespace {

using nlohmann::ordered_json;

ordered_json num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

ordered_json optNum(const std::optional<double>& v) { return v ? num(*v) : ordered_json(nullptr); }

std::string_view kindName(SegmentKind k) { return k == SegmentKind::Compute ? "compute" : "communication"; }

std::string g(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

}  // namespace

std::string renderRunJson(const RunResult& r) {
  ordered_json j;
  j["file"] = r.file;
  j["against"] = r.against_file.empty() ? ordered_json(nullptr) : ordered_json(r.against_file);
  j["device"] = runDeviceName(r.device);
  j["nvfuser"] = r.profile.label();
  j["fix"] = r.fix;
  j["fix_actions"] = r.fix_actions;
  j["reference"] = referenceKindName(r.reference);
  j["reference_device"] = runDeviceName(r.reference_device);
  j["seed"] = r.seed;
  if (r.inputs_from_file) j["inputs_file"] = r.inputs_source;
  j["communicator"] = r.communicator;
  j["ranks"] = r.ranks;
  j["passed"] = r.passed;
  j["exit_code"] = r.exit_code;
  j["peak_bytes"] = r.peak_bytes;
  ordered_json segs = ordered_json::array();
  for (const exec::SegmentRun& s : r.segments) {
    ordered_json o;
    o["id"] = s.id;
    o["kind"] = kindName(s.kind);
    o["comm"] = s.comm == CommKind::None ? ordered_json(nullptr) : ordered_json(commKindName(s.comm));
    o["status"] = s.status;
    o["summary"] = s.summary;
    segs.push_back(std::move(o));
  }
  j["segments"] = std::move(segs);
  ordered_json outs = ordered_json::array();
  for (const exec::Comparison& c : r.outputs) {
    ordered_json o;
    o["name"] = c.name;
    o["dtype"] = dtypeName(c.dtype);
    o["shape"] = c.shape;
    o["reference_shape"] = c.ref_shape;
    o["passed"] = c.passed();
    o["numel"] = c.numel;
    o["mismatches"] = c.mismatches;
    o["max_abs_error"] = num(c.max_abs);
    o["max_rel_error"] = num(c.max_rel);
    o["max_ulp"] = c.max_ulp == UINT64_MAX ? ordered_json("inf") : ordered_json(c.max_ulp);
    o["tolerance"] = {{"policy", c.overridden ? "override" : "magnitude-aware"},
                      {"rtol", num(c.rtol)},
                      {"atol", num(c.atol)},
                      {"scale", num(c.scale)},
                      {"path_dtype", dtypeName(c.path_dtype)},
                      {"reduction_size", c.reduction_size}};
    o["torch_defaults"] = {
        {"rtol", optNum(c.torch_rtol)},
        {"atol", optNum(c.torch_atol)},
        {"mismatches", c.torch_mismatches < 0 ? ordered_json(nullptr) : ordered_json(c.torch_mismatches)}};
    ordered_json worst = ordered_json::array();
    for (const exec::WorstElement& w : c.worst)
      worst.push_back({{"index", w.index},
                       {"actual", num(w.actual)},
                       {"expected", num(w.expected)},
                       {"abs_error", num(w.abs_error)},
                       {"allowed", num(w.allowed)},
                       {"ulp", w.ulp == UINT64_MAX ? ordered_json("inf") : ordered_json(w.ulp)}});
    o["worst"] = std::move(worst);
    if (!c.replica_note.empty()) o["replica_note"] = c.replica_note;
    outs.push_back(std::move(o));
  }
  j["outputs"] = std::move(outs);
  j["diagnostics"] = ordered_json::parse(spelledJson(r.diagnostics))["diagnostics"];
  ordered_json top;
  top["run"] = std::move(j);
  return top.dump(2) + "\n";
}

void renderRunText(const RunResult& r, std::ostream& os) {
  os << "run " << r.file << " on " << runDeviceName(r.device) << " (" << r.profile.label() << ", " << r.ranks
     << " rank" << (r.ranks == 1 ? "" : "s");
  if (r.inputs_from_file)
    os << ", inputs from " << r.inputs_source << ")";
  else
    os << ", seed " << r.seed << ")";
  if (!r.against_file.empty()) os << " against " << r.against_file;
  os << "\n";
  for (const std::string& a : r.fix_actions) os << "  fix " << a << "\n";
  for (const exec::SegmentRun& s : r.segments)
    os << "  segment " << s.id << " (" << s.summary << "): " << s.status << "\n";
  for (const exec::Comparison& c : r.outputs) {
    os << "  output " << c.name << " " << dtypeName(c.dtype) << " " << exec::shapeString(c.shape) << ": "
       << (c.passed() ? "ok" : "MISMATCH") << " vs " << referenceKindName(r.reference) << " reference"
       << (r.reference_device == RunDevice::Cuda ? " (computed on the GPU)" : "") << "\n";
    if (!c.shape_match) {
      os << "    shape differs: reference " << exec::shapeString(c.ref_shape) << "\n";
      continue;
    }
    os << "    max abs " << g(c.max_abs) << ", max rel " << g(c.max_rel) << ", max ulp "
       << (c.max_ulp == UINT64_MAX ? std::string("inf") : std::to_string(c.max_ulp)) << ", " << c.mismatches
       << " of " << c.numel << " beyond tolerance\n";
    os << "    tolerance (" << (c.overridden ? "override" : "magnitude-aware") << "): rtol " << g(c.rtol)
       << ", atol " << g(c.atol);
    if (!c.overridden)
      os << " (path " << dtypeName(c.path_dtype) << ", reduction " << c.reduction_size << ", scale "
         << g(c.scale) << ")";
    os << "\n";
    if (c.torch_rtol)
      os << "    torch.testing.assert_close defaults (rtol " << g(*c.torch_rtol) << ", atol "
         << g(*c.torch_atol) << "): " << c.torch_mismatches << " mismatches\n";
    for (const exec::WorstElement& w : c.worst)
      os << "    at " << exec::shapeString(w.index) << ": got " << g(w.actual) << ", reference "
         << g(w.expected) << " (error " << g(w.abs_error) << ", allowed " << g(w.allowed) << ")\n";
    if (!c.replica_note.empty()) os << "    " << c.replica_note << "\n";
  }
  os << (r.passed ? "PASS" : "FAIL") << "\n";
}

}  // namespace fc
