// Keyword spellings of the Python frontends (see keyword_spellings.h).
#include "pipeline/keyword_spellings.h"

#include <limits>
#include <vector>

#include "pipeline/profile.h"
#include "support/internal_error.h"

namespace fc {
namespace {

using nv::Switch;

constexpr std::string_view kLegacy = "python-legacy";
constexpr std::string_view kDirect = "python-direct";
constexpr std::string_view kCpp = "cpp-test";

// `when` ("reduction-dims-keyword=Axes") as a switch and value of the history.
KeywordSpelling resolve(const DatedSpelling& d) {
  const size_t eq = d.when.find('=');
  const std::string_view key = d.when.substr(0, eq), value = d.when.substr(eq + 1);
  for (size_t i = 0; i < nv::kSwitches; ++i) {
    const nv::SwitchInfo& info = nv::switchInfo(static_cast<Switch>(i));
    if (info.key != key) continue;
    for (size_t v = 0; v < info.values.size(); ++v)
      if (info.values[v] == value)
        return KeywordSpelling{&d, static_cast<Switch>(i), static_cast<uint8_t>(v)};
  }
  FC_CHECK(false, "dated spelling " + std::string(d.calls) + " " + std::string(d.keyword) +
                      ": no switch value " + std::string(d.when));
  return {};
}

const std::vector<KeywordSpelling>& resolved() {
  static const std::vector<KeywordSpelling> all = [] {
    std::vector<KeywordSpelling> v;
    for (const DatedSpelling& d : datedSpellings()) v.push_back(resolve(d));
    return v;
  }();
  return all;
}

const KeywordSpelling* ruleFor(std::string_view kind, const KeywordUse& u) {
  for (const KeywordSpelling& r : resolved())
    if (r.row->origin_kind == kind && r.row->keyword == u.keyword && callListHas(r.row->calls, u.call))
      return &r;
  return nullptr;
}

// The positions where switch `sw` has `value` (one range: each of these switches changes once),
// with the change that starts it (nullptr: the start of the history) and the one that ends it.
struct Range {
  uint32_t first = 0, last = std::numeric_limits<uint32_t>::max();
  const nv::Change* from = nullptr;
  const nv::Change* until = nullptr;
};
Range rangeOf(Switch sw, uint8_t value) {
  Range r;
  bool in = nv::switchInfo(sw).initial == value;
  for (const nv::Change& c : nv::changes()) {
    if (c.sw != sw) continue;
    if (!in && c.value == value) {
      in = true;
      r.first = c.pos;
      r.from = &c;
    } else if (in && c.value != value) {
      r.last = c.pos - 1;
      r.until = &c;
      break;
    }
  }
  return r;
}

// The repro's frontend, when fusecheck replays it through that frontend.
std::optional<std::string_view> checkedKind(const Fusion& f, Frontend fe) {
  if (!f.origin || f.origin->keywords.empty()) return std::nullopt;
  if (f.origin->kind == kLegacy && fe == Frontend::Python) return kLegacy;
  if (f.origin->kind == kDirect && fe == Frontend::Direct) return kDirect;
  if (f.origin->kind == kCpp && fe == Frontend::Cpp) return kCpp;
  return std::nullopt;
}

std::string atText(const KeywordUse& u) {
  return u.at.line > 0 ? " (line " + std::to_string(u.at.line) + ")" : std::string();
}

// "fd.ops.sum's `axes=`", for a form of arguments "fd.ops.reshape(arg, new_shape)", for a C++
// template argument "IrBuilder::create<Int>".
std::string useText(const KeywordUse& u) {
  if (!u.keyword.empty() && (u.keyword[0] == '(' || u.keyword[0] == '<')) return u.call + u.keyword;
  return u.call + "'s `" + u.keyword + "=`";
}

}  // namespace

std::span<const KeywordSpelling> keywordSpellings() { return resolved(); }

std::optional<SpellingConflict> spellingConflict(const Fusion& f, Frontend fe, uint32_t pos) {
  const auto kind = checkedKind(f, fe);
  if (!kind) return std::nullopt;
  // The binding one: of the spellings too new, the one bound last (the point it names runs every
  // other); else, of those too old, the one renamed first.
  std::optional<SpellingConflict> best;
  for (const KeywordUse& u : f.origin->keywords) {
    const KeywordSpelling* rule = ruleFor(*kind, u);
    if (!rule) continue;
    const Range r = rangeOf(rule->sw, rule->value);
    if (pos >= r.first && pos <= r.last) continue;
    const SpellingConflict c{&u, rule, pos > r.last ? r.until : r.from, pos > r.last};
    const bool better = !best || (best->too_old && !c.too_old) ||
                        (best->too_old == c.too_old &&
                         (c.too_old ? c.change->pos < best->change->pos : c.change->pos > best->change->pos));
    if (better) best = c;
  }
  return best;
}

std::string spellingConflictText(const SpellingConflict& c) {
  const KeywordUse& u = *c.use;
  if (isCppSpelling(u))
    return useText(u) + atText(u) + (c.too_old ? " no longer compiles from " : " compiles only from ") +
           c.change->label() + " (" + std::string(c.change->title) + ")";
  const std::string what = useText(u) + atText(u) + " is " + (u.keyword[0] == '(' ? "a form" : "a keyword");
  if (c.too_old)
    return what + " the frontend stopped binding with " + c.change->label() + " (" +
           std::string(c.change->title) + ")";
  return what + " the frontend binds only from " + c.change->label() + " (" + std::string(c.change->title) +
         ")";
}

std::string keywordUseText(const KeywordUse& u) { return useText(u) + atText(u); }

bool isCppSpelling(const KeywordUse& u) {
  // A template argument, or the argument list of a call no Python frontend spells (`fd.`...).
  return !u.keyword.empty() && (u.keyword[0] == '<' || (u.keyword[0] == '(' && u.call.rfind("fd.", 0) != 0));
}

std::optional<SpellingBound> lastPointSpelled(const Fusion& f, Frontend fe) {
  const auto kind = checkedKind(f, fe);
  if (!kind) return std::nullopt;
  std::optional<SpellingBound> b;
  for (const KeywordUse& u : f.origin->keywords) {
    const KeywordSpelling* rule = ruleFor(*kind, u);
    if (!rule) continue;
    const Range r = rangeOf(rule->sw, rule->value);
    if (r.until && (!b || r.last < b->last_pos)) b = SpellingBound{r.last, &u, r.until};
  }
  return b;
}

}  // namespace fc
