#include "support/interner.h"

namespace fc {

NameId Interner::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  storage_.push_back(std::make_unique<std::string>(s));
  std::string_view key(*storage_.back());
  auto id = static_cast<NameId>(strings_.size());
  strings_.emplace_back(key);
  index_.emplace(key, id);
  return id;
}

NameId Interner::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoName : it->second;
}

}  // namespace fc
