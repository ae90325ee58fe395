// The compiled part of the Python package `fusecheck` (fusecheck._core):
// loading a repro (a file, or text in any format fusecheck reads), check,
// fix and run over the library (fc::driver, fc::runFusion), and tensor
// files. Diagnostics and results cross as dicts and numpy arrays; the
// Python layer (python/fusecheck/__init__.py) turns them into objects.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "diag/render.h"
#include "driver/common.h"
#include "driver/run.h"
#include "exec/exec_error.h"
#include "exec/file_inputs.h"
#include "exec/tensor_file.h"
#include "io/import_detect.h"
#include "io/json_locate.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"

namespace py = pybind11;
using namespace fc;

namespace {

py::dict locationDict(const Location& l) {
  py::dict d;
  d["file"] = l.file;
  d["line"] = l.line;
  d["col"] = l.col;
  d["pointer"] = l.pointer;
  return d;
}

py::dict diagDict(const Diagnostic& d) {
  py::dict o;
  const auto& info = diagCodeInfo(d.code);
  o["code"] = std::string(info.id);
  o["slug"] = std::string(info.slug);
  o["severity"] = std::string(severityName(d.severity));
  o["message"] = d.message;
  o["location"] = locationDict(d.loc);
  py::list notes;
  for (const Note& n : d.notes) {
    py::dict nd;
    nd["kind"] = n.kind;
    nd["message"] = n.message;
    nd["location"] = locationDict(n.loc);
    notes.append(nd);
  }
  o["notes"] = notes;
  return o;
}

py::list diagList(const std::vector<Diagnostic>& ds) {
  py::list l;
  for (const Diagnostic& d : ds) l.append(diagDict(d));
  return l;
}

std::string renderedText(const std::vector<Diagnostic>& ds, const SourceText* src) {
  std::ostringstream os;
  renderText(ds, src, os);
  return os.str();
}

// A loaded, verified repro.
struct Repro {
  driver::Loaded loaded;
  std::string path;
  std::vector<std::string> fix_actions;
};

// Loads from a file (JSON, or an nvFuser repro / printed IR / segmented
// dump: imported) or from text. Returns (repro or None, diagnostics, text).
py::tuple loadImpl(const std::string& text, const std::string& path, bool is_path) {
  DiagnosticSink sink;
  Repro r;
  r.path = path;
  std::string body = text;
  if (is_path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      Location l;
      l.file = path;
      sink.error(DiagCode::FileUnreadable, "cannot open " + path, l);
      return py::make_tuple(py::none(), diagList(sink.all()), renderedText(sink.all(), nullptr));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    body = ss.str();
  }
  size_t first = body.find_first_not_of(" \t\r\n");
  bool json = first != std::string::npos && body[first] == '{';
  SourceText src(path, body);
  std::optional<Fusion> f;
  {
    py::gil_scoped_release release;
    f = json ? readFusion(src, sink) : importFusion(src, sink);
    if (f) {
      size_t before = sink.all().size();
      bool ok = verifyFusion(*f, sink, path);
      std::vector<Diagnostic> fresh(sink.all().begin() + static_cast<ptrdiff_t>(before), sink.all().end());
      if (json) fillLocations(fresh, src);
      std::copy(fresh.begin(), fresh.end(), sink.all().begin() + static_cast<ptrdiff_t>(before));
      if (!ok) f.reset();
    }
  }
  if (!f) return py::make_tuple(py::none(), diagList(sink.all()), renderedText(sink.all(), &src));
  r.loaded.source = std::move(src);
  r.loaded.fusion = std::move(*f);
  return py::make_tuple(py::cast(std::move(r)), diagList(sink.all()), std::string());
}

driver::PipelineFlags flagsOf(const std::optional<std::string>& era,
                              const std::map<std::string, int64_t>& binds) {
  driver::PipelineFlags fl;
  if (era) fl.nvfuser = *era;  // an nvFuser point: a date, commit, version or alias
  for (const auto& [k, v] : binds) fl.binds.push_back(k + "=" + std::to_string(v));
  return fl;
}

py::dict usageFailure(const DiagnosticSink& sink) {
  py::dict o;
  o["exit_code"] = 2;
  o["diagnostics"] = diagList(sink.all());
  o["text"] = renderedText(sink.all(), nullptr);
  return o;
}

py::dict check(const Repro& r, const std::optional<std::string>& era,
               const std::map<std::string, int64_t>& binds) {
  DiagnosticSink sink;
  auto po = driver::pipelineOptions(flagsOf(era, binds), r.loaded.fusion, r.path, sink);
  if (!po) return usageFailure(sink);
  PipelineResult pr = runPipeline(r.loaded.fusion, *po);
  driver::locateDiagnostics(pr.diagnostics, r.loaded);
  py::dict o;
  o["exit_code"] = driver::exitFor(pr);
  o["era"] = po->profile.point.spec;
  o["profile"] = po->profile.label();
  o["segments"] = pr.segmented.segments.size();
  o["diagnostics"] = diagList(pr.diagnostics);
  o["text"] = renderedText(pr.diagnostics, &r.loaded.source);
  return o;
}

py::tuple fix(const Repro& r, const std::optional<std::string>& era, const std::string& kind_name) {
  DiagnosticSink sink;
  auto kind = parseFixKind(kind_name);
  if (!kind) {
    sink.error(DiagCode::Usage,
               "unknown fix '" + kind_name + "' (expected auto, strip-reduction-axes or forward-extent)");
    return py::make_tuple(py::none(), diagList(sink.all()), py::list());
  }
  auto po = driver::pipelineOptions(flagsOf(era, {}), r.loaded.fusion, r.path, sink);
  if (!po) return py::make_tuple(py::none(), diagList(sink.all()), py::list());
  PipelineResult before = runPipeline(r.loaded.fusion, *po);
  // The fixes edit the fusion the pipeline ran (its segments name that fusion's exprs).
  FixResult fr = applyFixesToFixpoint(before.fusion(r.loaded.fusion), before, *po, *kind, r.path);
  Repro out;
  out.path = r.path;
  std::string text = writeFusion(fr.changed ? fr.fixed : r.loaded.fusion);
  DiagnosticSink resink;
  SourceText src(r.path, text);
  auto f = readFusion(src, resink);
  if (!f || !verifyFusion(*f, resink, r.path))
    throw std::runtime_error("fusecheck: internal error: the repaired repro does not load back:\n" +
                             renderedText(resink.all(), &src));
  out.loaded.source = std::move(src);
  out.loaded.fusion = std::move(*f);
  py::list actions;
  for (const FixAction& a : fr.actions) {
    out.fix_actions.push_back(a.fix + ": " + a.change);
    actions.append(a.fix + ": " + a.change);
  }
  return py::make_tuple(py::cast(std::move(out)), diagList(fr.refusals), actions);
}

// numpy (any numeric dtype, any layout) -> HostTensor of `dtype`.
exec::FileTensor tensorFromArray(const std::string& name, const py::array& a, const std::string& dtype_name) {
  auto dt = parseDType(dtype_name);
  if (!dt) throw std::invalid_argument("unknown fusecheck dtype '" + dtype_name + "'");
  auto conv = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!conv) throw std::invalid_argument("input '" + name + "' cannot be converted to float64");
  exec::Shape shape(conv.shape(), conv.shape() + conv.ndim());
  exec::FileTensor ft;
  ft.name = name;
  ft.file_dtype = exec::fileDTypeOf(*dt);
  ft.values = exec::HostTensor(*dt, shape);
  if (ft.values.numel() > 0) std::memcpy(ft.values.data(), conv.data(), sizeof(double) * ft.values.numel());
  return ft;
}

py::array arrayOf(const exec::HostTensor& t) {
  py::array_t<double> a(std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
  if (t.numel() > 0) std::memcpy(a.mutable_data(), t.data(), sizeof(double) * t.numel());
  return a;
}

py::dict run(const Repro& r, const std::optional<py::list>& inputs, const std::string& device,
             const std::optional<std::string>& era, bool fix, std::optional<uint64_t> seed,
             const std::string& reference, const std::map<std::string, int64_t>& binds,
             std::optional<double> rtol, std::optional<double> atol) {
  DiagnosticSink sink;
  auto po = driver::pipelineOptions(flagsOf(era, binds), r.loaded.fusion, r.path, sink);
  if (!po) return usageFailure(sink);
  if (device != "cpu" && device != "cuda") throw std::invalid_argument("device is 'cpu' or 'cuda'");
  if (reference != "exact" && reference != "faithful")
    throw std::invalid_argument("reference is 'exact' or 'faithful'");
  if (rtol.has_value() != atol.has_value()) throw std::invalid_argument("rtol goes with atol");
  exec::ProvidedInputs provided;
  if (inputs) {
    provided.source = "inputs";
    for (const auto& item : *inputs) {
      auto t = item.cast<py::tuple>();
      provided.global.push_back(
          tensorFromArray(t[0].cast<std::string>(), t[1].cast<py::array>(), t[2].cast<std::string>()));
    }
  }
  RunOptions ro;
  ro.device = device == "cuda" ? RunDevice::Cuda : RunDevice::Cpu;
  ro.profile = po->profile;
  ro.fix = fix;
  ro.file = r.path;
  ro.reference = reference == "faithful" ? ReferenceKind::Faithful : ReferenceKind::Exact;
  ro.seed = seed;
  ro.rtol = rtol;
  ro.atol = atol;
  ro.binds = po->binds;
  ro.inputs = inputs ? &provided : nullptr;
  ro.keep_values = true;
  RunResult res;
  {
    py::gil_scoped_release release;
    res = runFusion(r.loaded.fusion, ro);
  }
  driver::locateDiagnostics(res.diagnostics, r.loaded);
  py::dict o;
  o["exit_code"] = res.exit_code;
  o["passed"] = res.passed;
  o["era"] = res.profile.point.spec;
  o["profile"] = res.profile.label();
  o["seed"] = res.seed;
  o["diagnostics"] = diagList(res.diagnostics);
  o["text"] = renderedText(res.diagnostics, &r.loaded.source);
  py::list outs;
  for (const auto& [name, t] : res.output_values)
    outs.append(py::make_tuple(name, std::string(dtypeName(t.dtype())), arrayOf(t)));
  o["outputs"] = outs;
  py::list comps;
  for (const exec::Comparison& c : res.outputs) {
    py::dict d;
    d["name"] = c.name;
    d["passed"] = c.passed();
    d["max_abs"] = c.max_abs;
    d["max_rel"] = c.max_rel;
    d["mismatches"] = c.mismatches;
    d["rtol"] = c.rtol;
    d["atol"] = c.atol;
    comps.append(d);
  }
  o["comparisons"] = comps;
  py::list ins;
  if (res.inputs)
    for (size_t p = 0; p < res.inputs->values.size(); ++p) {
      const exec::InputValue& iv = res.inputs->values[p];
      if (iv.is_tensor)
        ins.append(py::make_tuple(std::string(dtypeName(iv.dtype)), arrayOf(iv.global)));
      else
        ins.append(py::make_tuple(std::string(dtypeName(iv.dtype)), py::float_(iv.scalar.asDouble())));
    }
  o["inputs"] = ins;
  return o;
}

py::list readTensors(const std::string& path) {
  exec::TensorFile f;
  try {
    f = exec::readTensorFile(path, nullptr);
  } catch (const exec::ExecError& e) {
    throw std::runtime_error(std::string(diagCodeInfo(e.code).id) + ": " + e.message);
  }
  py::list out;
  for (const exec::FileTensor& t : f.tensors)
    out.append(py::make_tuple(t.name, std::string(exec::fileDTypeName(t.file_dtype)), arrayOf(t.values)));
  return out;
}

void writeTensors(const std::string& path, const py::list& tensors) {
  exec::TensorFile f;
  for (const auto& item : tensors) {
    auto t = item.cast<py::tuple>();
    f.tensors.push_back(
        tensorFromArray(t[0].cast<std::string>(), t[1].cast<py::array>(), t[2].cast<std::string>()));
    f.tensors.back().values.roundToDType();
  }
  try {
    exec::writeTensorFile(path, f);
  } catch (const exec::ExecError& e) {
    throw std::runtime_error(std::string(diagCodeInfo(e.code).id) + ": " + e.message);
  }
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "fusecheck's C++ library (use the package `fusecheck`, not this module)";
  py::class_<Repro>(m, "Repro")
      .def_property_readonly("path", [](const Repro& r) { return r.path; })
      .def_property_readonly("name", [](const Repro& r) { return r.loaded.fusion.name; })
      .def_property_readonly("era",
                             [](const Repro& r) -> py::object {
                               if (!r.loaded.fusion.era) return py::none();
                               return py::str(std::string(eraName(*r.loaded.fusion.era)));
                             })
      .def_property_readonly(
          "inputs",
          [](const Repro& r) {
            const Fusion& f = r.loaded.fusion;
            std::vector<std::string> names;
            for (ValueRef v : f.inputs)
              names.push_back(v.isTensor() ? std::string(f.tensorName(v.id)) : exec::scalarLabel(f, v.id));
            return names;
          })
      .def_property_readonly("input_dtypes",
                             [](const Repro& r) {
                               const Fusion& f = r.loaded.fusion;
                               std::vector<std::string> names;
                               for (ValueRef v : f.inputs)
                                 names.push_back(std::string(dtypeName(
                                     v.isTensor() ? f.tensors[v.id].dtype : f.scalars[v.id].dtype)));
                               return names;
                             })
      .def_property_readonly("outputs",
                             [](const Repro& r) {
                               std::vector<std::string> names;
                               for (TensorId t : r.loaded.fusion.outputs)
                                 names.emplace_back(r.loaded.fusion.tensorName(t));
                               return names;
                             })
      .def_property_readonly("fix_actions", [](const Repro& r) { return r.fix_actions; })
      .def("to_json", [](const Repro& r) { return writeFusion(r.loaded.fusion); })
      .def("check", &check, py::arg("era") = py::none(), py::arg("binds") = std::map<std::string, int64_t>{})
      .def("fix", &fix, py::arg("era") = py::none(), py::arg("kind") = "auto")
      .def("run", &run, py::arg("inputs") = py::none(), py::arg("device") = "cpu",
           py::arg("era") = py::none(), py::arg("fix") = false, py::arg("seed") = py::none(),
           py::arg("reference") = "exact", py::arg("binds") = std::map<std::string, int64_t>{},
           py::arg("rtol") = py::none(), py::arg("atol") = py::none());
  m.def("load", &loadImpl, py::arg("text"), py::arg("path"), py::arg("is_path"));
  m.def("read_tensors", &readTensors, py::arg("path"));
  m.def("write_tensors", &writeTensors, py::arg("path"), py::arg("tensors"));
}
