// GitHub Actions annotations: one workflow command per diagnostic,
//   ::error file=F,line=L,col=C,title=fusecheck FC0301 unbound-extent::MESSAGE
// (warning for warnings, notice for notes), the file relative to the SARIF
// root, the notes after the message on lines of their own. Properties and
// message are escaped as the runner reads them (% \r \n, and : , in
// properties). Linear time.
#include "diag/render.h"
#include "support/escape.h"

namespace fc {
namespace {

constexpr EscapeTable kDataEscapes{{'%', "%25"}, {'\r', "%0D"}, {'\n', "%0A"}};
constexpr EscapeTable kPropertyEscapes = kDataEscapes.with(':', "%3A").with(',', "%2C");

std::string escapeData(const std::string& s) { return escaped(s, kDataEscapes); }
std::string escapeProperty(const std::string& s) { return escaped(s, kPropertyEscapes); }

const char* command(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning:
    case Severity::NotDecided: return "warning";  // as SARIF: neither a finding nor clean
    case Severity::Note:
    case Severity::Remark: return "notice";
  }
  return "error";
}

}  // namespace

std::string renderGithub(const std::vector<Diagnostic>& diags) {
  checkPlacesRendered(diags);
  std::string out;
  for (const Diagnostic& d : diags) {
    const DiagCodeInfo& info = diagCodeInfo(d.code);
    std::string props;
    auto add = [&](const std::string& k, const std::string& v) {
      props += (props.empty() ? " " : ",") + k + "=" + escapeProperty(v);
    };
    if (!d.loc.file.empty()) add("file", pathFromRoot(d.loc.file));
    if (d.loc.known()) {
      add("line", std::to_string(d.loc.line));
      if (d.loc.col > 0) add("col", std::to_string(d.loc.col));
    }
    add("title", "fusecheck " + std::string(info.id) + " " + std::string(info.slug));
    std::string msg = d.message;
    if (!d.loc.pointer.empty()) msg += " [" + d.loc.pointer + "]";
    for (const Note& n : d.notes) msg += "\n" + n.kind + ": " + n.message;
    out += "::" + std::string(command(d.severity)) + props + "::" + escapeData(msg) + "\n";
  }
  return out;
}

}  // namespace fc
