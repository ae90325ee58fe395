// Concrete output sizes from a shape rule (see op_rules.h).
#include <algorithm>

#include "ir/op_rules.h"
#include "support/checked.h"

namespace fc {

namespace {

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

}  // namespace

std::optional<std::vector<int64_t>> concreteShape(const ShapeRule& rule, const Expr& e,
                                                  const ConcreteOperands& in, std::string& why) {
  auto size = [&](const AxisFrom& m) -> int64_t {
    const std::vector<int64_t>* s = in.sizes(m.operand);
    return s && m.pos < s->size() ? (*s)[m.pos] : 1;
  };
  std::vector<int64_t> out;
  for (size_t j = 0; j < rule.axes.size(); ++j) {
    const AxisRule& r = rule.axes[j];
    auto maps = rule.mapsOf(r);
    switch (r.extent) {
      case AxisRule::Extent::Operand: {
        // Mapped axes agree, or are 1 (a broadcast).
        int64_t n = 1;
        for (const AxisFrom& m : maps) {
          int64_t k = size(m);
          if (k == n || k == 1) continue;
          if (n != 1) {
            why = "operand sizes " + std::to_string(n) + " and " + std::to_string(k) + " of output axis " +
                  std::to_string(j) + " differ";
            return std::nullopt;
          }
          n = k;
        }
        out.push_back(n);
        break;
      }
      case AxisRule::Extent::One: out.push_back(1); break;
      case AxisRule::Extent::Expanded: {
        int64_t n = in.shapeEntry(static_cast<size_t>(r.attr));
        if (n < 0) n = maps.empty() ? 1 : size(maps[0]);
        out.push_back(n);
        break;
      }
      case AxisRule::Extent::Reduced: break;  // no extent at run time
      case AxisRule::Extent::Sliced: {
        const int64_t n = size(maps[0]);
        const SliceRange& sr = e.attrs.ranges[static_cast<size_t>(r.attr)];
        int64_t start = sr.start == kNone ? 0 : in.intValue(sr.start);
        int64_t stop = sr.stop == kNone ? n : in.intValue(sr.stop);
        int64_t step = sr.step == kNone ? 1 : in.intValue(sr.step);
        if (step <= 0) {
          why = "slice step must be positive, got " + std::to_string(step);
          return std::nullopt;
        }
        // Negative bounds count from the end; bounds clamp to the axis.
        if (start < 0) start += n;
        if (stop < 0) stop += n;
        start = std::clamp<int64_t>(start, 0, n);
        stop = std::clamp<int64_t>(stop, 0, n);
        out.push_back(stop > start ? (stop - start + step - 1) / step : 0);
        break;
      }
      case AxisRule::Extent::Padded: {
        auto i = static_cast<size_t>(r.attr);
        int64_t n = size(maps[0]) + in.intValue(e.attrs.pad[2 * i]) + in.intValue(e.attrs.pad[2 * i + 1]);
        if (n < 0) {
          why = "pad widths make axis " + std::to_string(j) + " negative";
          return std::nullopt;
        }
        out.push_back(n);
        break;
      }
      case AxisRule::Extent::Concat: {
        int64_t n = 0;
        for (const AxisFrom& m : maps) n += size(m);
        out.push_back(n);
        break;
      }
      case AxisRule::Extent::Reshaped:
      case AxisRule::Extent::Shape: out.push_back(in.shapeEntry(static_cast<size_t>(r.attr))); break;
    }
  }
  // A reshape's -1 takes what the other sizes leave of the input's elements.
  bool reshape = !rule.root_from.empty() && rule.perm.empty();
  if (reshape) {
    const std::vector<int64_t>* s = in.sizes(0);
    int64_t numel = 1, known = 1;
    int64_t infer = -1;
    for (int64_t k : s ? *s : std::vector<int64_t>{}) numel *= k;
    for (size_t d = 0; d < out.size(); ++d) {
      if (out[d] < 0) {
        if (infer >= 0) {
          why = "more than one -1 in the new shape";
          return std::nullopt;
        }
        infer = static_cast<int64_t>(d);
        continue;
      }
      auto m = checkedMul(known, out[d]);
      if (!m) {
        why = "new shape overflows";
        return std::nullopt;
      }
      known = *m;
    }
    if (infer >= 0) {
      if (known == 0 || numel % known != 0) {
        why = "cannot infer -1: " + std::to_string(numel) + " elements do not divide by " +
              std::to_string(known);
        return std::nullopt;
      }
      out[static_cast<size_t>(infer)] = numel / known;
      known = numel;
    }
    if (known != numel) {
      why = "input " + (s ? shapeText(*s) : std::string("[]")) + " has " + std::to_string(numel) +
            " elements; new shape " + shapeText(out) + " has " + std::to_string(known);
      return std::nullopt;
    }
  }
  for (int64_t k : out)
    if (k < 0) {
      why = "shape entry " + std::to_string(k) + " is negative";
      return std::nullopt;
    }
  return out;
}

}  // namespace fc
