// Escaping for the markup the visualizations emit: HTML / XML text and
// attribute values (the report, Graphviz HTML-like labels) and element ids
// that are safe in SVG, HTML and URL fragments. O(length).
#pragma once

#include <string>
#include <string_view>

namespace fc::viz {

// & < > " ' -> entities. Control characters other than \t \n become U+FFFD.
std::string escapeHtml(std::string_view s);

// Letters, digits, '-' and '.' kept; every other byte ('_' included) as
// "_xx" (hex), so distinct inputs give distinct ids. A leading non-letter
// gets an "x" prefix.
std::string safeId(std::string_view s);

}  // namespace fc::viz
