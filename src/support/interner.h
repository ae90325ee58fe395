// String interning: names are stored once and referred to by a dense id.
// Strings live in a deque (stable addresses), indexed by string_view keys.
// Copying re-interns (ids are preserved: same insertion order); moving is
// cheap. Complexity: intern is O(len) expected; str(id) is O(1).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fc {

using NameId = uint32_t;
inline constexpr NameId kNoName = UINT32_MAX;

class Interner {
 public:
  Interner() = default;
  Interner(const Interner& o) { copyFrom(o); }
  Interner& operator=(const Interner& o) {
    if (this != &o) {
      storage_.clear();
      index_.clear();
      copyFrom(o);
    }
    return *this;
  }
  Interner(Interner&&) noexcept = default;
  Interner& operator=(Interner&&) noexcept = default;

  NameId intern(std::string_view s);
  // Returns kNoName when `s` was never interned.
  NameId find(std::string_view s) const;
  std::string_view str(NameId id) const { return storage_[id]; }
  size_t size() const { return storage_.size(); }

 private:
  void copyFrom(const Interner& o) {
    for (const std::string& s : o.storage_) intern(s);
  }
  std::deque<std::string> storage_;
  std::unordered_map<std::string_view, NameId> index_;
};

}  // namespace fc
