// A place in a repro that a diagnostic points at, typed: a path of steps,
// each a field of fusecheck's fusion format with an index where the field
// is a list ("axis 1 of T5's logical domain, its extent" is tensors 5 ->
// logical 1 -> extent). Layers above io/ build places from ids and never
// spell them; io/ renders a place as a JSON pointer into the repro
// (io/place_pointer.h) and finds its line:col, in the JSON text or, for an
// imported script, through the script's source map.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "support/internal_error.h"

namespace fc {

// The fields a place can pass through, by their role in the fusion format.
// io/place_pointer.cpp spells each one (kPlaceFieldCount entries).
enum class PlaceField : uint8_t {
  // the document's top-level members
  Tensors,
  Exprs,
  Scalars,
  Inputs,
  Outputs,
  ConcreteInputs,
  Meshes,
  Segmentation,
  Runs,  // an expectation sidecar's runs
  // a tensor's domains, transforms and axis fields
  Root,
  Logical,
  Allocation,
  Loop,
  Contiguity,
  Transforms,
  Outer,
  Inner,
  Out,
  In,
  Factor,
  Extent,
  Expanded,
  Id,
  Dtype,
  Mesh,
  // an expr's operands and attributes
  Dims,
  Dim,
  Flags,
  Shape,
  Pad,
  Ranges,
  Start,
  Stop,
  Step,
  Value,
  // a scalar, a concrete input, a mesh, the segmentation
  Name,
  Input,
  Range,
  Fill,
  Strides,
  Devices,
  Segments,
  Forward,
  Segment,
  Symbol,
};
inline constexpr size_t kPlaceFieldCount = static_cast<size_t>(PlaceField::Symbol) + 1;

class Place {
 public:
  static constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();
  struct Step {
    PlaceField field = PlaceField::Tensors;
    uint32_t index = kNoIndex;  // kNoIndex: the field itself, not an element
    friend bool operator==(const Step& a, const Step& b) { return a.field == b.field && a.index == b.index; }
  };
  static constexpr size_t kMaxDepth = 4;

  Place() = default;
  // The document's members.
  static Place tensor(size_t t) { return Place().at(PlaceField::Tensors, t); }
  static Place expr(size_t e) { return Place().at(PlaceField::Exprs, e); }
  static Place scalar(size_t s) { return Place().at(PlaceField::Scalars, s); }
  static Place input(size_t p) { return Place().at(PlaceField::Inputs, p); }
  static Place output(size_t p) { return Place().at(PlaceField::Outputs, p); }
  static Place concreteInput(size_t i) { return Place().at(PlaceField::ConcreteInputs, i); }
  static Place mesh(size_t m) { return Place().at(PlaceField::Meshes, m); }
  static Place segment(size_t s) { return Place().key(PlaceField::Segmentation).at(PlaceField::Segments, s); }
  static Place run(size_t r) { return Place().at(PlaceField::Runs, r); }
  // A whole top-level list or object ("the exprs").
  static Place member(PlaceField f) { return Place().key(f); }

  // This place's field f (a value), or element i of its list f. The
  // format nests at most kMaxDepth deep; a deeper step is an internal error.
  Place key(PlaceField f) const { return push(Step{f, kNoIndex}); }
  Place at(PlaceField f, size_t i) const {
    return push(Step{f, i >= kNoIndex ? kNoIndex - 1 : static_cast<uint32_t>(i)});
  }
  // The index in list `f` of this place's first step ("tensor 5" of
  // tensors 5 -> logical 1); kNoIndex when it does not start there.
  uint32_t rootIndex(PlaceField f) const {
    return depth_ > 0 && steps_[0].field == f ? steps_[0].index : kNoIndex;
  }

  // This place with the index of its first step replaced (an id renumbered).
  Place withRootIndex(size_t i) const {
    FC_CHECK(depth_ > 0 && steps_[0].index != kNoIndex, "renumbering a place that names no element");
    Place p = *this;
    p.steps_[0].index = i >= kNoIndex ? kNoIndex - 1 : static_cast<uint32_t>(i);
    return p;
  }

  bool empty() const { return depth_ == 0; }
  size_t depth() const { return depth_; }
  const Step& step(size_t i) const { return steps_[i]; }

  friend bool operator==(const Place& a, const Place& b) {
    if (a.depth_ != b.depth_) return false;
    for (size_t i = 0; i < a.depth_; ++i)
      if (!(a.steps_[i] == b.steps_[i])) return false;
    return true;
  }
  friend bool operator!=(const Place& a, const Place& b) { return !(a == b); }
  size_t hash() const {
    size_t h = depth_;
    for (size_t i = 0; i < depth_; ++i)
      h = h * 1000003u + (static_cast<size_t>(steps_[i].field) << 32 ^ steps_[i].index);
    return h;
  }

 private:
  Place push(Step s) const {
    FC_CHECK(depth_ < kMaxDepth, "a place nested deeper than the fusion format");
    Place p = *this;
    p.steps_[p.depth_++] = s;
    return p;
  }
  std::array<Step, kMaxDepth> steps_{};
  uint8_t depth_ = 0;
};

}  // namespace fc
