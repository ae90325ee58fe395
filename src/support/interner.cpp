#include "support/interner.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "support/parallel.h"
#include "support/prefault.h"

namespace fc {

namespace {
constexpr size_t kChunkBytes = size_t{1} << 16;
constexpr size_t kMinSlots = 64;
}  // namespace

Interner::Key Interner::keyOf(std::string_view s) {
  uint64_t word = 0;
  size_t n = s.size() < 7 ? s.size() : 7;
  if (n > 0) std::memcpy(&word, s.data(), n);  // little or big endian: only equality matters
  if (s.size() <= 7) {
    uint64_t key = word | (static_cast<uint64_t>(s.size()) << 56);
    uint64_t h = key * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing of the whole word
    return Key{key, static_cast<uint32_t>(h >> 32), true};
  }
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return Key{word | (uint64_t{0xFF} << 56), static_cast<uint32_t>(h ^ (h >> 32)), false};
}

size_t Interner::probe(std::string_view s, const Key& k) const {
  size_t mask = table_.size() - 1;
  size_t i = k.hash & mask;
  while (true) {
    const Slot& e = table_[i];
    if (e.id_plus_1 == 0) return i;
    if (e.key == k.key && e.hash == k.hash) {
      if (k.inline_name) return i;
      std::string_view t = strs_[e.id_plus_1 - 1];
      if (t.size() == s.size() && std::memcmp(t.data(), s.data(), s.size()) == 0) return i;
    }
    i = (i + 1) & mask;
  }
}

void Interner::rehash(size_t slots) {
  std::vector<Slot> old(slots);
  old.swap(table_);
  size_t mask = table_.size() - 1;
  for (const Slot& e : old) {
    if (e.id_plus_1 == 0) continue;
    size_t j = e.hash & mask;
    while (table_[j].id_plus_1 != 0) j = (j + 1) & mask;
    table_[j] = e;
  }
}

void Interner::reserve(size_t n) { strs_.reserve(n); }

const char* Interner::store(std::string_view s) {
  if (s.size() > chunk_left_) {
    size_t bytes = std::max(kChunkBytes, s.size());
    chunks_.push_back(std::make_unique<char[]>(bytes));
    chunk_pos_ = chunks_.back().get();
    chunk_left_ = bytes;
  }
  char* p = chunk_pos_;
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  chunk_pos_ += s.size();
  chunk_left_ -= s.size();
  return p;
}

bool Interner::splitNumbered(std::string_view s, uint64_t& prefix, uint32_t& number) {
  size_t p = 0;
  while (p < s.size() && p < 7) {
    char c = s[p];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) break;
    ++p;
  }
  size_t digits = s.size() - p;
  if (p == 0 || p > 6 || digits == 0 || digits > 9) return false;
  if (s[p] == '0' && digits > 1) return false;  // "T01" is not "T1"
  uint32_t n = 0;
  for (size_t i = p; i < s.size(); ++i) {
    auto d = static_cast<unsigned>(s[i] - '0');
    if (d > 9) return false;
    n = n * 10 + d;
  }
  uint64_t word = 0;
  std::memcpy(&word, s.data(), p);
  prefix = word | (static_cast<uint64_t>(p) << 56);
  number = n;
  return true;
}

const Interner::Numbered* Interner::numberedFor(uint64_t prefix) const {
  for (const Numbered& d : numbered_)
    if (d.prefix == prefix) return &d;
  return nullptr;
}

NameId Interner::add(std::string_view s) {
  auto id = static_cast<NameId>(strs_.size());
  strs_.emplace_back(store(s), s.size());
  return id;
}

NameId Interner::findHashed(std::string_view s) const {
  if (table_.empty()) return kNoName;
  size_t i = probe(s, keyOf(s));
  return table_[i].id_plus_1 == 0 ? kNoName : table_[i].id_plus_1 - 1;
}

NameId Interner::internHashed(std::string_view s) {
  if (table_.empty()) rehash(kMinSlots);
  Key k = keyOf(s);
  size_t i = probe(s, k);
  if (table_[i].id_plus_1 != 0) return table_[i].id_plus_1 - 1;
  NameId id = add(s);
  table_[i] = Slot{k.key, k.hash, id + 1};
  if (2 * ++hashed_ > table_.size()) rehash(table_.size() * 2);
  return id;
}

NameId Interner::intern(std::string_view s) {
  uint64_t prefix = 0;
  uint32_t number = 0;
  if (!splitNumbered(s, prefix, number)) return internHashed(s);
  Numbered* d = numberedFor(prefix);
  if (d == nullptr) {
    if (numbered_.size() >= kMaxPrefixes) return internHashed(s);
    numbered_.push_back(Numbered{prefix, {}, 0, false});
    d = &numbered_.back();
  }
  if (number < d->id_plus_1.size() && d->id_plus_1[number] != 0) return d->id_plus_1[number] - 1;
  if (d->spilled) {
    NameId h = findHashed(s);
    if (h != kNoName) return h;
  }
  if (number >= d->id_plus_1.size()) {
    size_t limit = 4 * (d->count + 1) + 4096;
    if (number >= limit) {
      d->spilled = true;
      return internHashed(s);
    }
    size_t want = std::max<size_t>(number + 1, 2 * d->id_plus_1.size());
    d->id_plus_1.resize(std::min(want, std::max<size_t>(number + 1, limit)), 0);
  }
  NameId id = add(s);
  d->id_plus_1[number] = id + 1;
  ++d->count;
  return id;
}

NameId Interner::find(std::string_view s) const {
  uint64_t prefix = 0;
  uint32_t number = 0;
  if (splitNumbered(s, prefix, number)) {
    if (const Numbered* d = numberedFor(prefix)) {
      if (number < d->id_plus_1.size() && d->id_plus_1[number] != 0) return d->id_plus_1[number] - 1;
      if (!d->spilled) return kNoName;
    }
  }
  return findHashed(s);
}

bool Interner::internAll(std::span<const std::string_view> names, std::span<NameId> ids, unsigned threads) {
  const size_t n = names.size();
  auto oneByOne = [&] {
    for (size_t i = 0; i < n; ++i) ids[i] = intern(names[i]);
    return false;
  };
  const size_t w = std::min<size_t>(threadsFor(threads), n / 64);  // a thread costs ~64 interns
  if (w < 2) return oneByOne();
  // 1. Which names are new (find is read-only: safe on every thread), and
  //    whether all new ones are numbered with one prefix.
  struct Block {
    size_t fresh = 0, bytes = 0;
    uint64_t prefix = 0;
    uint32_t max_number = 0;
    bool plain = true;  // every new name is numbered, all with `prefix`
  };
  std::vector<Block> blocks(w);
  std::vector<uint32_t> number(n);
  parallelFor(w, [&](size_t k) {
    Block b;
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end; ++i) {
      ids[i] = find(names[i]);
      if (ids[i] != kNoName) continue;
      uint64_t prefix = 0;
      if (!splitNumbered(names[i], prefix, number[i]) || (b.fresh > 0 && prefix != b.prefix)) {
        b.plain = false;
        break;
      }
      b.prefix = prefix;
      b.max_number = std::max(b.max_number, number[i]);
      ++b.fresh;
      b.bytes += names[i].size();
    }
    blocks[k] = b;
  });
  size_t fresh = 0, bytes = 0;
  uint64_t prefix = 0;
  uint32_t max_number = 0;
  for (const Block& b : blocks) {
    if (!b.plain || (b.fresh > 0 && fresh > 0 && b.prefix != prefix)) return oneByOne();
    if (b.fresh > 0) prefix = b.prefix;
    fresh += b.fresh;
    bytes += b.bytes;
    max_number = std::max(max_number, b.max_number);
  }
  if (fresh == 0) return true;  // every name was interned already: ids are set
  Numbered* d = numberedFor(prefix);
  // The prefix's array must hold every number: dense enough, and a prefix
  // slot free if the prefix is new.
  if (max_number >= 4 * (fresh + (d != nullptr ? d->count : 0) + 1) + 4096 ||
      (d == nullptr && numbered_.size() >= kMaxPrefixes) || strs_.size() + fresh >= kNoName)
    return oneByOne();
  // 2. No number twice among the new names.
  std::vector<std::atomic<uint64_t>> seen((static_cast<size_t>(max_number) >> 6) + 1);
  std::atomic<bool> twice{false};
  parallelFor(w, [&](size_t k) {
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end && !twice.load(std::memory_order_relaxed);
         ++i) {
      if (ids[i] != kNoName) continue;
      uint64_t bit = uint64_t{1} << (number[i] & 63);
      if ((seen[number[i] >> 6].fetch_or(bit, std::memory_order_relaxed) & bit) != 0) twice = true;
    }
  });
  if (twice) return oneByOne();
  // 3. Consecutive ids in order, the characters in one new chunk, the
  //    prefix's array entries: each block writes its own.
  if (d == nullptr) {
    numbered_.push_back(Numbered{prefix, {}, 0, false});
    d = &numbered_.back();
  }
  // The new entries' pages are faulted in on every thread before this one
  // sizes the arrays; the characters are written only by the blocks.
  const size_t numbers = std::max(d->id_plus_1.size(), static_cast<size_t>(max_number) + 1);
  const size_t names_after = strs_.size() + fresh;
  if (d->id_plus_1.capacity() < numbers) d->id_plus_1.reserve(numbers);
  if (strs_.capacity() < names_after) strs_.reserve(names_after);
  const PrefaultBlock new_pages[] = {
      {d->id_plus_1.data() + d->id_plus_1.size(), (numbers - d->id_plus_1.size()) * sizeof(uint32_t)},
      {strs_.data() + strs_.size(), fresh * sizeof(std::string_view)}};
  prefault(new_pages, threads);
  d->id_plus_1.resize(numbers, 0);
  d->count += fresh;
  const auto base = static_cast<NameId>(strs_.size());
  strs_.resize(names_after);
  chunks_.push_back(std::make_unique_for_overwrite<char[]>(std::max<size_t>(bytes, 1)));
  char* chars = chunks_.back().get();
  std::vector<size_t> first_id(w), first_byte(w);
  for (size_t k = 0, f = 0, b = 0; k < w; ++k) {
    first_id[k] = f;
    first_byte[k] = b;
    f += blocks[k].fresh;
    b += blocks[k].bytes;
  }
  parallelFor(w, [&](size_t k) {
    size_t id = base + first_id[k];
    char* at = chars + first_byte[k];
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end; ++i) {
      if (ids[i] != kNoName) continue;
      std::memcpy(at, names[i].data(), names[i].size());
      strs_[id] = std::string_view(at, names[i].size());
      at += names[i].size();
      d->id_plus_1[number[i]] = static_cast<uint32_t>(id + 1);
      ids[i] = static_cast<NameId>(id++);
    }
  });
  return true;
}

void Interner::copyFrom(const Interner& o) {
  size_t total = 0;
  for (std::string_view s : o.strs_) total += s.size();
  chunks_.clear();
  chunk_pos_ = nullptr;
  chunk_left_ = 0;
  if (total > 0) {
    chunks_.push_back(std::make_unique<char[]>(total));
    chunk_pos_ = chunks_.back().get();
    chunk_left_ = total;
  }
  strs_.clear();
  strs_.reserve(o.strs_.size());
  for (std::string_view s : o.strs_) strs_.emplace_back(store(s), s.size());
  table_ = o.table_;
  hashed_ = o.hashed_;
  numbered_ = o.numbered_;
}

}  // namespace fc
