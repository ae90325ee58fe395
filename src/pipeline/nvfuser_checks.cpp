#include "pipeline/nvfuser_checks.h"

#include <algorithm>

namespace fc {
namespace {

std::optional<nv::Check> checkByName(std::string_view name) {
  for (size_t k = 0; k < nv::kChecks; ++k)
    if (nv::checkInfo(static_cast<nv::Check>(k)).name == name) return static_cast<nv::Check>(k);
  return std::nullopt;
}

// An earlier or later wording of the same check, tried when a check has no
// site at the point.
std::vector<std::string_view> alternates(std::string_view name) {
  if (name == "DidLocalSizeOne") return {"DidBindConstantOne"};
  if (name == "HieNoBuffer") return {"HieNotPrecomputed"};
  if (name == "HieNotPrecomputed") return {"HieNoBuffer"};
  if (name == "MeshSomeWithout") return {"MeshAllOrNone"};
  return {};
}

std::string fill(std::string_view tmpl, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] == '<') {
      size_t close = tmpl.find('>', i);
      if (close != std::string_view::npos) {
        std::string_view key = tmpl.substr(i + 1, close - i - 1);
        auto it = std::find_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == key; });
        if (it != values.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += tmpl[i++];
  }
  return out;
}

std::string layout(nv::AssertFormat format, nv::Macro macro, const nv::CheckSite& site,
                   const std::string& msg) {
  const std::string file(site.file);
  const std::string at = std::to_string(site.line);
  const std::string cond(site.condition);
  const bool assert_like = macro == nv::Macro::NVF_ERROR || macro == nv::Macro::NVF_THROW ||
                           macro == nv::Macro::TORCH_INTERNAL_ASSERT;
  const std::string report =
      ", please report a bug with repro script to NVFuser at https://github.com/NVIDIA/Fuser/issues. ";
  switch (format) {
    case nv::AssertFormat::TorchAssert:
      if (macro == nv::Macro::TORCH_INTERNAL_ASSERT || macro == nv::Macro::NVF_ERROR)
        return cond + " INTERNAL ASSERT FAILED at \"" + file + "\":" + at +
               ", please report a bug to PyTorch. " + msg;
      return msg;
    case nv::AssertFormat::F1:
      if (assert_like) return cond + " INTERNAL ASSERT FAILED at \"" + file + "\":" + at + report + msg;
      return msg;
    case nv::AssertFormat::F2:
      if (assert_like) return "INTERNAL ASSERT FAILED at \"" + file + "\":" + at + report + msg;
      return msg;
    case nv::AssertFormat::F3:
      if (macro == nv::Macro::NVF_THROW)
        return "INTERNAL ASSERT FAILED at " + file + ":" + at + report + "\n" + msg;
      if (assert_like)
        return "INTERNAL ASSERT FAILED at " + file + ":" + at + report + "\nExpected " + cond + " . " + msg;
      return "Expected " + cond + " . " + msg;
  }
  return msg;
}

}  // namespace

std::optional<Citation> citeCheck(const Profile& p, const CheckRef& ref) {
  std::vector<std::string_view> names{ref.name};
  for (auto a : alternates(ref.name)) names.push_back(a);
  for (std::string_view name : names) {
    auto check = checkByName(name);
    if (!check) continue;
    auto site = nv::checkAt(*check, p.point.pos);
    if (!site) continue;
    std::string msg;
    const nv::CheckInfo& info = nv::checkInfo(*check);
    if (*check == nv::Check::HieNotPrecomputed) {
      // Two wordings in one check: the header's and the evaluator's.
      std::string val = fill("<val>", ref.values);
      msg = site->file.find("evaluator.cpp") != std::string_view::npos
                ? "Value " + val + " must be precomputed before being retrieved."
                : "value " + val + "must be precomputed before being retrieved";
    } else {
      msg = fill(info.message, ref.values);
    }
    Citation c;
    c.check = std::string(info.name);
    c.file = std::string(site->file);
    c.line = site->line;
    c.commit = p.point.commit;
    c.message = layout(p.state.get<nv::AssertFormat>(), site->macro, *site, msg);
    c.path = p.label();
    return c;
  }
  return std::nullopt;
}

void citeDiagnostics(const Profile& p, std::vector<Diagnostic>& diags) {
  for (Diagnostic& d : diags) {
    if (!d.check || d.nvfuser) continue;
    auto c = citeCheck(p, *d.check);
    if (!c) continue;
    std::string shown = c->message;
    std::replace(shown.begin(), shown.end(), '\n', ' ');
    d.note(c->path + " raises at " + c->file + ":" + std::to_string(c->line) + " @ " + p.point.shortCommit() +
           ": \"" + shown + "\"");
    d.nvfuser = std::move(c);
  }
}

std::vector<CheckMessage> checkMessages() {
  std::vector<CheckMessage> out;
  for (size_t k = 0; k < nv::kChecks; ++k) {
    const nv::CheckInfo& i = nv::checkInfo(static_cast<nv::Check>(k));
    out.push_back({std::string(i.name), std::string(i.message)});
  }
  out.push_back({"HieNotPrecomputed", "Value <val> must be precomputed before being retrieved."});
  return out;
}

}  // namespace fc
