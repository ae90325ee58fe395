// The reader's top level (reader_internal.h): the repro object's keys, each
// dispatched to its section, and the small sections read here: "format",
// "name", "era", "provenance", "meshes", "inputs", "outputs", "seed" and
// "tolerance". "origin", "nvfuser" and "source" are read in reader_origin.cpp.
#include <string>
#include <unordered_set>

#include "io/json_scan.h"
#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

constexpr std::string_view kFormat = "fusecheck.fusion/2";
// Format /1 is still read: it has no "origin", "nvfuser" or "source".
constexpr std::string_view kFormatV1 = "fusecheck.fusion/1";

constexpr std::array<std::string_view, 17> kTopKeys = {
    "format",    "name",         "era",    "provenance", "meshes",          "scalars",
    "tensors",   "exprs",        "inputs", "outputs",    "concrete_inputs", "seed",
    "tolerance", "segmentation", "origin", "nvfuser",    "source"};
enum TopKey {
  kFormatK,
  kNameK,
  kEraK,
  kProvK,
  kMeshesK,
  kScalarsK,
  kTensorsK,
  kExprsK,
  kInputsK,
  kOutputsK,
  kConcreteK,
  kSeedK,
  kTolK,
  kSegK,
  kOriginK,
  kNvfuserK,
  kSourceK
};

constexpr std::array<std::string_view, 2> kMeshKeys = {"shape", "devices"};
constexpr std::array<std::string_view, 2> kTolKeys = {"rtol", "atol"};

}  // namespace

void Reader::readDocument(sj::document& doc) {
  sj::object root;
  {
    sj::json_type t;
    if (auto e = doc.type().get(t)) return fatal(e);
    if (t != sj::json_type::object) {
      error(DiagCode::WrongType, "the repro must be a JSON object, found " + std::string(jsonTypeName(t)));
      return;
    }
    if (auto e = doc.get_object().get(root)) return fatal(e);
  }
  uint32_t seen = 0;
  eachField(root, kTopKeys, seen, [&](int k, sj::value& v) {
    switch (k) {
      case kFormatK: {
        std::string_view s;
        if (!getString(v, s)) return;
        if (s != kFormat && s != kFormatV1) {
          error(DiagCode::FormatVersion, "unsupported format \"" + std::string(s) +
                                             "\" (this fusecheck reads \"" + std::string(kFormat) +
                                             "\" and \"" + std::string(kFormatV1) + "\")");
          fatal_ = true;  // nothing else is meaningful in another format
          fatal_message_ = "format";
          return;
        }
        return;
      }
      case kNameK: {
        std::string_view s;
        if (getString(v, s)) f_.name = std::string(s);
        return;
      }
      case kEraK:
        readEnum(v, parseEra, f_.era, DiagCode::BadEnum, "era", " (expected 2024-06, 2024-07 or head)");
        return;
      case kProvK: return readProvenance(v);
      case kMeshesK: return readMeshes(v);
      case kScalarsK: return readScalars(v);
      case kTensorsK: return readTensors(v);
      case kExprsK: return readExprs(v);
      case kInputsK: readNameRefArray(v, Want::Either, [&](ValueRef r) { f_.inputs.push_back(r); }); return;
      case kOutputsK:
        readNameRefArray(v, Want::Tensor, [&](ValueRef r) { f_.outputs.push_back(r.id); });
        return;
      case kConcreteK: return readConcrete(v);
      case kSeedK: {
        sj::json_type t;
        if (!getType(v, t)) return;
        if (t != sj::json_type::number) {
          wrongType(v, "an unsigned integer");
          return;
        }
        uint64_t u = 0;
        if (auto e = v.get_uint64().get(u)) {
          std::string_view raw = trimmedToken(v);
          if (raw.find_first_of(".eE") != std::string_view::npos)
            error(DiagCode::WrongType, "expected an unsigned integer, found a non-integer number");
          else if (!raw.empty() && raw[0] == '-')
            error(DiagCode::NumberOutOfRange, "the seed must not be negative");
          else
            typeError(e, "an unsigned 64-bit integer");
          return;
        }
        f_.seed = u;
        return;
      }
      case kTolK: return readTolerance(v);
      case kSegK: return readSegmentation(v);
      case kOriginK: return readOrigin(v);
      case kNvfuserK: return readRecordedPoint(v);
      case kSourceK: return readSource(v);
    }
  });
  if (stop()) return;
  if (!(seen & (1u << kFormatK))) {
    errorAt(DiagCode::FormatVersion, "missing \"format\" (expected \"" + std::string(kFormat) + "\")", "");
    return;
  }
  requireKeys(seen, kTopKeys, {kTensorsK, kExprsK, kInputsK, kOutputsK});
  if (stop()) return;
  auto loc = doc.current_location();
  if (loc.error() == simdjson::SUCCESS) {
    fatal(simdjson::TRAILING_CONTENT);
  }
}

void Reader::readProvenance(sj::value& v) {
  sj::object o;
  if (!getObject(v, o)) return;
  std::unordered_set<std::string_view> keys;
  for (auto r : o) {
    sj::field field;
    if (auto e = std::move(r).get(field)) return fatal(e);
    const char* raw_key = field.key().raw();
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return fatal(e);
    PathGuard g(path_, key);
    if (!keys.insert(key).second) {
      duplicateKey(key, raw_key);
      if (stop()) return;
      continue;
    }
    std::string_view s;
    if (getString(field.value(), s)) f_.provenance.emplace_back(std::string(key), std::string(s));
    if (stop()) return;
  }
}

void Reader::readMeshes(sj::value& v) {
  eachElementOf(v, [&](size_t, sj::value& x) {
    Mesh m;
    uint32_t seen = 0;
    bool read = readObject(x, kMeshKeys, seen, [&](int k, sj::value& y) {
      auto& dst = k == 0 ? m.shape : m.devices;
      readIntArray(y, k == 0 ? 0 : INT64_MIN, INT64_MAX, k == 0 ? "a mesh size" : "a device id",
                   [&](int64_t n) { dst.push_back(n); });
    });
    if (!read) return false;
    requireKeys(seen, kMeshKeys, {0, 1});
    f_.meshes.push_back(std::move(m));
    return true;
  });
}

void Reader::readTolerance(sj::value& v) {
  uint32_t seen = 0;
  readObject(v, kTolKeys, seen, [&](int k, sj::value& y) {
    ConstValue c;
    if (!readLiteral(y, c)) return;
    double d = c.kind == ConstValue::Kind::Float ? c.f : static_cast<double>(c.i);
    if (c.kind == ConstValue::Kind::Bool || !(d >= 0)) {
      error(DiagCode::NumberOutOfRange, "a tolerance must be a non-negative number");
      return;
    }
    (k == 0 ? f_.tolerance.rtol : f_.tolerance.atol) = d;
  });
}

}  // namespace fc::reader_detail
