// ASCII character classes of the importers' lexers, independent of the C
// locale (std::isalpha and friends follow it): identifiers of C++, Python
// and nvFuser's printed IR are ASCII letters, digits and '_'.
#pragma once

namespace fc::ascii {

constexpr bool digit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool identStart(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
constexpr bool identChar(unsigned char c) { return identStart(c) || digit(c); }

}  // namespace fc::ascii
