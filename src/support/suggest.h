// "Did you mean ...?" for a word the user typed that names nothing: the
// candidates closest to it by edit distance (Damerau-Levenshtein with
// adjacent transpositions, case-insensitive), close enough to be a typo.
// Used for subcommands, options, enumerated option values, symbols, tensors
// and op names. O(|candidates| * |word| * |candidate|).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fc {

// Edit distance between a and b: insertions, deletions, substitutions and
// swaps of two adjacent characters each cost 1. Case-insensitive (ASCII).
size_t editDistance(std::string_view a, std::string_view b);

// The candidates within the typo distance of `word` (1 for words of up to 4
// characters, 2 up to 8, else 3; a candidate that starts with `word`, or
// that `word` starts with, also counts when the shorter is 3 characters or
// more), nearest first, ties in the order given; at most `max` of them. An
// exact match (ignoring case) is returned alone.
std::vector<std::string> suggest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t max = 3);

// " (did you mean X?)", " (did you mean X or Y?)", or "" when there is no
// suggestion: ready to append to a message.
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace fc
