// String interning: names are stored once and referred to by a dense id.
// Complexity: intern is O(len) expected; lookup by id is O(1).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fc {

using NameId = uint32_t;
inline constexpr NameId kNoName = UINT32_MAX;

class Interner {
 public:
  NameId intern(std::string_view s);
  // Returns kNoName when `s` was never interned.
  NameId find(std::string_view s) const;
  std::string_view str(NameId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  // Deque-like stability is not needed: the map keys view into `storage_`,
  // whose elements are unique_ptr-stable strings.
  std::vector<std::string> strings_;
  std::unordered_map<std::string_view, NameId> index_;
  std::vector<std::unique_ptr<std::string>> storage_;
};

}  // namespace fc
