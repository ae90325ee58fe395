#include "diag/diagnostic.h"

#include "support/escape.h"
#include "support/internal_error.h"

namespace fc {
namespace {

const std::vector<DiagCodeInfo>& table() {
  static const std::vector<DiagCodeInfo> t = {
#define FC_DIAG(E, CODE, SLUG, SUMMARY) DiagCodeInfo{DiagCode::E, CODE, SLUG, SUMMARY},
#include "diag/codes.def"
#undef FC_DIAG
  };
  return t;
}

}  // namespace

const DiagCodeInfo& diagCodeInfo(DiagCode c) { return table()[static_cast<size_t>(c)]; }

void checkPlacesRendered(const std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : diags) {
    bool ok = d.loc.rendered();
    for (const Note& n : d.notes) ok = ok && n.loc.rendered();
    FC_CHECK(ok, std::string(diagCodeInfo(d.code).id) + " \"" + d.message +
                     "\" reached a renderer with a place io/ has not spelled (renderPlaces)");
  }
}
const std::vector<DiagCodeInfo>& allDiagCodes() { return table(); }

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    case Severity::Remark: return "remark";
    case Severity::NotDecided: return "not-decided";
  }
  return "error";
}

Diagnostic& DiagnosticSink::report(Severity sev, DiagCode code, std::string message, Location loc) {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  d.message = std::move(message);
  d.loc = std::move(loc);
  diags_.push_back(std::move(d));
  return diags_.back();
}

size_t DiagnosticSink::errorCount() const {
  size_t n = 0;
  for (const auto& d : diags_)
    if (d.severity == Severity::Error) ++n;
  return n;
}

JsonPointer JsonPointer::key(std::string_view k) const {
  std::string out = p_;
  out += '/';
  static constexpr EscapeTable kTokenEscapes{{'~', "~0"}, {'/', "~1"}};
  appendEscaped(out, k, kTokenEscapes);
  return JsonPointer(std::move(out));
}

JsonPointer JsonPointer::index(size_t i) const { return JsonPointer(p_ + "/" + std::to_string(i)); }

}  // namespace fc
