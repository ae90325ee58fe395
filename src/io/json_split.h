// Splitting a large repro's top-level arrays without indexing the whole text
// (docs/performance.md, "Reading").
//
// The reader's chunk readers parse each element of "tensors", "exprs",
// "concrete_inputs" (and "scalars") on their own (simdjson indexes that element again), so a
// structural index of the whole text served only to find where the elements
// begin and end: one thread walking ~100M structural characters after stage 1
// had built them. splitTopLevelArrays finds the same spans on every core from
// the bytes: pass 1 counts, per block, the unescaped quotes and the bracket
// balance inside and outside strings; a prefix over the blocks gives each
// block's starting state; pass 2 records the brackets, braces and commas at
// depth 2 or less. What remains sequential is a walk over those few events.
//
// Nothing here decides what the text means. The caller parses every element
// span and the skeleton (the text with the split arrays' interiors removed)
// with a JSON parser; this code checks that the bytes between elements are
// whitespace and one comma. Text, skeleton and elements cover every byte, so
// a text that is not valid JSON fails one of those parses, and the caller
// then reads the whole text the ordinary way. Escapes are taken as escaping
// the next byte in and out of strings (a backslash outside a string is
// invalid JSON, caught by the parses); a block never starts right after a
// backslash, so its escape state is known.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fc::jsonsplit {

struct SplitArray {
  size_t key = 0;                          // index into the `keys` given
  size_t open = 0;                         // offset of the array's '['
  size_t close = 0;                        // offset of its ']'
  std::vector<std::string_view> elements;  // each an object, '{' .. '}'
};

struct Split {
  std::vector<SplitArray> arrays;  // in document order
};

// `text` must be a JSON object at its top level. For each of its keys that
// is one of `keys` (written without escapes) and whose value is an array of
// objects: where each element is. nullopt when the text is not shaped so
// (the top level is not an object, brackets do not balance, one of `keys`
// appears twice, an element is not an object, a byte between elements is not
// whitespace or the one comma): read such a text the ordinary way.
// The text is cut into one block per thread, of `min_block` bytes at least
// (smaller in tests, to put block edges everywhere).
inline constexpr size_t kMinBlock = size_t{1} << 20;
std::optional<Split> splitTopLevelArrays(std::string_view text, std::span<const std::string_view> keys,
                                         unsigned threads, size_t min_block = kMinBlock);

// The text with the interior of every split array removed ("key": [] in
// place of the elements), and the map back from its offsets to the text's.
class Skeleton {
 public:
  Skeleton(std::string_view text, const Split& split);
  const std::string& text() const { return text_; }
  // The offset in the original text of the skeleton's byte at `offset`.
  size_t original(size_t offset) const;

 private:
  std::string text_;
  // Skeleton offset of each cut (just after a '['), and the bytes removed
  // there and before.
  std::vector<std::pair<size_t, size_t>> cuts_;
};

}  // namespace fc::jsonsplit
