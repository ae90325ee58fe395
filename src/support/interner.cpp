#include "support/interner.h"

namespace fc {

NameId Interner::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  auto id = static_cast<NameId>(storage_.size());
  storage_.emplace_back(s);
  index_.emplace(std::string_view(storage_.back()), id);
  return id;
}

NameId Interner::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoName : it->second;
}

}  // namespace fc
