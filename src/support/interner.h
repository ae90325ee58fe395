// String interning: names are stored once and referred to by a dense id.
//
// The characters live in large chunks (stable addresses, no per-name heap
// block). Numbered names ("T12", "i3": nvFuser's naming, most of a repro)
// are found through a dense array per prefix, indexed by the number; other
// names through an open-addressing table whose slots hold short names inline
// and a cached hash. A million-expr repro interns millions of names, so this
// is on the reader's hot path (docs/performance.md).
//
// Copying copies the characters into one chunk and the tables verbatim (ids
// are preserved, no rehash); moving is cheap. Complexity: intern and find are
// O(len) expected; str(id) is O(1).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace fc {

using NameId = uint32_t;
inline constexpr NameId kNoName = UINT32_MAX;

class Interner {
 public:
  Interner() = default;
  Interner(const Interner& o) { copyFrom(o); }
  Interner& operator=(const Interner& o) {
    if (this != &o) copyFrom(o);
    return *this;
  }
  Interner(Interner&& o) noexcept { *this = std::move(o); }
  Interner& operator=(Interner&& o) noexcept {
    strs_ = std::move(o.strs_);
    table_ = std::move(o.table_);
    chunks_ = std::move(o.chunks_);
    numbered_ = std::move(o.numbered_);
    hashed_ = o.hashed_;
    o.hashed_ = 0;
    chunk_pos_ = o.chunk_pos_;
    chunk_left_ = o.chunk_left_;
    o.numbered_.clear();
    o.strs_.clear();
    o.table_.clear();
    o.chunks_.clear();
    o.chunk_pos_ = nullptr;
    o.chunk_left_ = 0;
    return *this;
  }

  NameId intern(std::string_view s);
  // Returns kNoName when `s` was never interned.
  NameId find(std::string_view s) const;
  std::string_view str(NameId id) const { return strs_[id]; }
  size_t size() const { return strs_.size(); }
  // Reserves room for `n` names in total (the reader knows the counts); the
  // hash table grows on demand (numbered names do not use it).
  void reserve(size_t n);
  // ids[i] = intern(names[i]) for i = 0, 1, ... in that order, with the same
  // ids and the same table afterwards, on up to `threads` threads. The
  // parallel path takes a batch whose names not interned yet are numbered
  // names of one prefix, pairwise distinct and numbered densely (a repro's
  // "T0" .. "T999999"): they get consecutive ids in order of appearance.
  // Any other batch is interned one name at a time. Returns whether the
  // parallel path was taken.
  bool internAll(std::span<const std::string_view> names, std::span<NameId> ids, unsigned threads);

 private:
  // A name of at most 7 bytes is its own key: its bytes and its length in
  // one word, compared without touching the stored characters (most names:
  // "T123", "i45"). Longer names keep a marker byte and their first 7 bytes
  // and are compared in full when the hash matches.
  struct Slot {
    uint64_t key = 0;
    uint32_t hash = 0;
    uint32_t id_plus_1 = 0;  // 0: empty
  };
  struct Key {
    uint64_t key;
    uint32_t hash;
    bool inline_name;
  };
  static Key keyOf(std::string_view s);

  // Numbered names (nvFuser's "T12", "i3"): a prefix of 1-6 letters or '_'
  // and a decimal number of 1-9 digits without a leading zero. Each prefix
  // has a dense array indexed by the number: a repro's names mostly count
  // up, so looking them up walks memory in order instead of hashing to a
  // random slot (one cache miss per lookup at a million names). A number
  // too large for its array (beyond 4 x the prefix's names + 4096) goes to
  // the hash table, and `spilled` says to look there too.
  struct Numbered {
    uint64_t prefix = 0;  // bytes and length, as in Slot::key
    std::vector<uint32_t> id_plus_1;
    size_t count = 0;
    bool spilled = false;
  };
  static constexpr size_t kMaxPrefixes = 8;
  static bool splitNumbered(std::string_view s, uint64_t& prefix, uint32_t& number);
  const Numbered* numberedFor(uint64_t prefix) const;
  Numbered* numberedFor(uint64_t prefix) {
    return const_cast<Numbered*>(static_cast<const Interner*>(this)->numberedFor(prefix));
  }
  // Finds `s` in the hash table only.
  NameId findHashed(std::string_view s) const;
  NameId internHashed(std::string_view s);
  NameId add(std::string_view s);
  // The slot holding `s`, or the empty slot where it would go.
  size_t probe(std::string_view s, const Key& k) const;
  void rehash(size_t slots);
  const char* store(std::string_view s);
  void copyFrom(const Interner& o);

  std::vector<std::string_view> strs_;
  std::vector<Numbered> numbered_;
  std::vector<Slot> table_;  // size is 0 or a power of two, at most half full
  size_t hashed_ = 0;        // names in table_
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* chunk_pos_ = nullptr;
  size_t chunk_left_ = 0;
};

}  // namespace fc
