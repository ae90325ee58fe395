// Binding a call's positional and keyword arguments to a parameter list, with older keyword
// spellings renamed to the current ones; an unknown keyword is an error with "did you mean".
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "io/python/interpreter.h"
#include "io/python/recorder.h"
#include "support/suggest.h"

namespace fc::py {

struct Bound {
  std::vector<Ref> v;
  std::vector<uint32_t> off;
  const Ref& operator[](size_t i) const { return v[i]; }
  bool has(size_t i) const { return i < v.size() && v[i] && v[i]->k != VK::None; }
};

// With `rec`, a keyword whose spelling dates the script is noted (FusionRecorder::spell).
inline Bound bind(Interpreter& in, const Args& a, const std::string& fname,
                  const std::vector<std::string>& params,
                  const std::vector<std::pair<std::string, std::string>>& renames = {},
                  FusionRecorder* rec = nullptr) {
  Bound b;
  b.v.assign(params.size(), nullptr);
  b.off.assign(params.size(), a.off);
  if (a.pos.size() > params.size())
    in.fail(fname + " takes at most " + std::to_string(params.size()) + " positional arguments, got " +
                std::to_string(a.pos.size()),
            a.off);
  for (size_t i = 0; i < a.pos.size(); ++i) {
    b.v[i] = a.pos[i];
    b.off[i] = a.pos_off[i];
  }
  for (size_t k = 0; k < a.kw.size(); ++k) {
    std::string name = a.kw[k].first;
    for (const auto& [old, now] : renames)
      if (name == old) name = now;
    if (rec) rec->spell(fname, a.kw[k].first, a.kw_off[k]);
    auto it = std::find(params.begin(), params.end(), name);
    if (it == params.end())
      in.fail("unsupported argument `" + a.kw[k].first + "` of " + fname + didYouMean(a.kw[k].first, params),
              a.kw_off[k]);
    auto i = static_cast<size_t>(it - params.begin());
    b.v[i] = a.kw[k].second;
    b.off[i] = a.kw_off[k];
  }
  return b;
}

}  // namespace fc::py
