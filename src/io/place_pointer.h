// Typed places (diag/place.h) as the repro's JSON pointers: the one
// spelling of every field of the fusion format in a pointer, and the step
// that gives every located diagnostic its pointer before it is rendered.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/place.h"

namespace fc {

// The field's name in the fusion format ("logical", "concrete_inputs").
const char* placeFieldName(PlaceField f);

// RFC 6901: Place::tensor(5).at(PlaceField::Logical, 1).key(PlaceField::Extent)
// is "/tensors/5/logical/1/extent"; an empty place is "" (the document).
std::string jsonPointer(const Place& p);

// The place a pointer spells (jsonPointer's inverse), for pointers read back
// from a command's JSON output; nullopt when it is not one (an unknown
// field, an index where none goes, deeper than Place::kMaxDepth).
std::optional<Place> parsePlace(std::string_view pointer);

// Gives every location (of a diagnostic and of its notes) that has a place
// and no pointer yet the place's pointer.
void renderPlaces(std::vector<Diagnostic>& diags);
// Whether some location of `diags` has a place and no pointer yet.
bool placesToRender(const std::vector<Diagnostic>& diags);
// `diags` with every place rendered, for a renderer: `diags` itself when
// nothing is left to render, else a rendered copy kept in `storage`.
const std::vector<Diagnostic>& withPointers(const std::vector<Diagnostic>& diags,
                                            std::vector<Diagnostic>& storage);
// renderJson (diag/render.h) of `diags`, their places spelled.
std::string spelledJson(const std::vector<Diagnostic>& diags);

}  // namespace fc
