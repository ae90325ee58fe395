// Typed places and their JSON spelling: every field has one name, a place
// and its pointer convert both ways, io/ gives diagnostics their pointers
// before a renderer prints them, and a place that reaches a renderer
// unspelled is an internal error rather than a location silently dropped.
#include "io/place_pointer.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "diag/render.h"
#include "io/pointer_target.h"
#include "support/internal_error.h"

namespace fc {
namespace {

TEST(PlacePointer, EveryFieldHasItsOwnName) {
  std::set<std::string> names;
  for (size_t i = 0; i < kPlaceFieldCount; ++i) {
    std::string n = placeFieldName(static_cast<PlaceField>(i));
    EXPECT_FALSE(n.empty()) << i;
    EXPECT_TRUE(names.insert(n).second) << "field " << i << " repeats the name " << n;
  }
}

TEST(PlacePointer, PlacesSpellTheFusionFormatsPointers) {
  using F = PlaceField;
  EXPECT_EQ(jsonPointer(Place()), "");
  EXPECT_EQ(jsonPointer(Place::tensor(5).at(F::Logical, 1).key(F::Extent)), "/tensors/5/logical/1/extent");
  EXPECT_EQ(jsonPointer(Place::expr(3).at(F::Ranges, 0).key(F::Stop)), "/exprs/3/ranges/0/stop");
  EXPECT_EQ(jsonPointer(Place::segment(2).at(F::Exprs, 4)), "/segmentation/segments/2/exprs/4");
  EXPECT_EQ(jsonPointer(Place::concreteInput(1).key(F::Strides)), "/concrete_inputs/1/strides");
  EXPECT_EQ(jsonPointer(Place::member(F::Segmentation).at(F::Forward, 0).key(F::Symbol)),
            "/segmentation/forward/0/symbol");
  EXPECT_EQ(jsonPointer(Place::member(F::Exprs)), "/exprs");
  EXPECT_EQ(jsonPointer(Place::run(7)), "/runs/7");
}

TEST(PlacePointer, EveryFieldRoundTripsThroughItsPointer) {
  for (size_t i = 0; i < kPlaceFieldCount; ++i) {
    const auto f = static_cast<PlaceField>(i);
    for (const Place& p : {Place::tensor(2).key(f), Place::tensor(2).at(f, 0), Place::member(f),
                           Place::expr(9).at(f, 12).key(PlaceField::Value)}) {
      std::optional<Place> back = parsePlace(jsonPointer(p));
      ASSERT_TRUE(back.has_value()) << jsonPointer(p);
      EXPECT_EQ(*back, p) << jsonPointer(p);
    }
  }
}

TEST(PlacePointer, PointersThatNameNoPlaceParseToNothing) {
  EXPECT_FALSE(parsePlace("tensors/0").has_value());                        // not a pointer
  EXPECT_FALSE(parsePlace("/tensors/0/colour").has_value());                // no such field
  EXPECT_FALSE(parsePlace("/tensors/0/logical/1/extent/x/y").has_value());  // deeper than the format
  EXPECT_EQ(parsePlace("/tensors/x"), std::nullopt);
  EXPECT_EQ(parsePlace(""), Place());
}

TEST(PlacePointer, TooDeepAPlaceIsAnInternalError) {
  Place p = Place::tensor(0).at(PlaceField::Logical, 0).key(PlaceField::Extent).key(PlaceField::Value);
  EXPECT_THROW(p.key(PlaceField::Id), InternalError);
}

TEST(PlacePointer, RenderingGivesPointersOnlyWhereNoneIsSet) {
  std::vector<Diagnostic> ds(2);
  ds[0].loc = Location::at("f.json", Place::tensor(1).at(PlaceField::Logical, 0));
  ds[0].note("see", Location::at("f.json", Place::expr(2)));
  ds[1].loc = Location{"f.json", "/era"};  // a reader's own pointer stays
  ds[1].loc.place = Place::tensor(9);
  EXPECT_TRUE(placesToRender(ds));
  std::vector<Diagnostic> storage;
  const std::vector<Diagnostic>& out = withPointers(ds, storage);
  EXPECT_EQ(&out, &storage);
  EXPECT_EQ(out[0].loc.pointer, "/tensors/1/logical/0");
  EXPECT_EQ(out[0].notes[0].loc.pointer, "/exprs/2");
  EXPECT_EQ(out[1].loc.pointer, "/era");
  EXPECT_FALSE(placesToRender(out));
  std::vector<Diagnostic> again;
  EXPECT_EQ(&withPointers(out, again), &out);  // nothing left: no copy
}

TEST(PlacePointer, ARendererRefusesAPlaceIoHasNotSpelled) {
  std::vector<Diagnostic> ds(1);
  ds[0].code = DiagCode::UnboundExtent;
  ds[0].message = "cannot evaluate extent i0";
  ds[0].loc = Location::at("f.json", Place::expr(0));
  std::ostringstream os;
  try {
    renderText(ds, nullptr, os);
    FAIL() << "rendered an unspelled place";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("FC0301 \"cannot evaluate extent i0\" reached a renderer"),
              std::string::npos)
        << e.what();
  }
  renderPlaces(ds);
  EXPECT_NE(renderJson(ds).find("\"pointer\": \"/exprs/0\""), std::string::npos) << renderJson(ds);
}

TEST(PlacePointer, LocationsResolveByPlaceOrByTheirPointer) {
  Fusion f;
  const AxisId a = f.addAxis(0, IterType::Iteration, ParallelType::Serial, f.addConstInt(4));
  const TensorId t = f.addTensor("T0", DType::Float, MemoryType::Global, {a});
  PointerTarget byPlace = resolveLocation(f, Location::at("", Place::tensor(t).at(PlaceField::Logical, 0)));
  EXPECT_EQ(byPlace.tensor, t);
  EXPECT_EQ(byPlace.axis, a);
  PointerTarget byPointer = resolveLocation(f, Location{"", "/tensors/0/logical/0"});
  EXPECT_EQ(byPointer.tensor, t);
  EXPECT_EQ(byPointer.axis, a);
  EXPECT_EQ(resolveLocation(f, Location::at("", Place::segment(3))).segment, 3);
  EXPECT_FALSE(resolveLocation(f, Location::at("", Place::tensor(8))).any());
}

}  // namespace
}  // namespace fc
