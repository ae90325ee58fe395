// The reader's "scalars" (reader_internal.h): the named scalars, declared
// (a symbol) or defined by a value. In a split text their elements are
// parsed on their own, and plain declarations are read on every thread.
#include <atomic>
#include <string>

#include "io/reader_internal.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/prefault.h"

namespace fc::reader_detail {
namespace {

constexpr std::array<std::string_view, 3> kScalarKeys = {"name", "dtype", "value"};

}  // namespace

void Reader::readScalars(sj::value& v) {
  PhaseScope phase("named scalars", PhaseScope::Detail{});
  size_t open = offsetOf(v);
  sj::array a;
  if (!getArray(v, a)) return;
  if (const jsonsplit::SplitArray* s = splitAt(open)) {
    if (s->key != kScalarsSplit) return giveUpSplit();
    return readSplitScalars(open, s->elements);
  }
  readArrayElements(
      a, open,
      [&](size_t n) {
        f_.scalars.reserve(f_.scalars.size() + 2 * n);
        f_.names.reserve(f_.names.size() + n);
      },
      [&](size_t i, sj::value& x) { return readScalarElement(i, x); });
}

bool Reader::readNodeName(sj::value& v, std::string_view& name, std::string_view a_name, DiagCode code,
                          std::string_view reserved) {
  if (!getString(v, name, a_name)) return false;
  if (isScalarName(name)) return true;
  error(code, "\"" + std::string(name) + "\" is not a valid " + std::string(a_name.substr(2)) +
                  " (letters, digits and _, not a reserved word" + std::string(reserved) + ")");
  return false;
}

// One element of "scalars" (index i).
bool Reader::readScalarElement(size_t i, sj::value& x) {
  uint32_t seen = 0;
  std::string_view name;
  DType dtype = DType::Index;
  ScalarId value = kNone;
  bool bad = false;
  bool read = readObject(x, kScalarKeys, seen, [&](int k, sj::value& y) {
    if (k == 0) {
      if (!readNodeName(y, name, "a scalar name", DiagCode::BadScalarExpr, " such as inf, nan, max, size"))
        bad = true;
    } else if (k == 1) {
      if (!readEnum(y, parseDType, dtype, DiagCode::BadEnum, "dtype")) bad = true;
    } else {
      value = readScalar(y, DType::Index, /*fresh_root=*/true);
      if (value == kNone) bad = true;
    }
  });
  if (!read || !requireKeys(seen, kScalarKeys, {0}) || bad) return false;
  ScalarId id = value;
  if (id == kNone) {
    id = f_.addSymbol(name, dtype);
  } else {
    Scalar& s = f_.scalars[id];
    s.name = internName(name);
    s.dtype = dtype;
  }
  f_.scalars[id].decl = static_cast<uint32_t>(i);
  NameId n = f_.scalars[id].name;
  growNames();
  if (scalar_of_name_[n] == kNone) scalar_of_name_[n] = id;
  return true;
}

// "scalars" split from the text: elements that are all plain
// declarations ({"name": ..., "dtype": ...}, no "value") are read on every
// thread (readPlainScalars); otherwise each element is parsed here in
// order, by the code that reads the skeleton's. Either way the scalars,
// their ids and the names' ids are the one-thread reader's. Any error
// reads the whole text again without the split.
void Reader::readSplitScalars(size_t open, const std::vector<std::string_view>& spans) {
  ArrayRecord record(*this, open, 0);
  record.setOffsets(spans, base_, threads_);
  const size_t n = spans.size();
  f_.scalars.reserve(f_.scalars.size() + 2 * n);
  f_.names.reserve(f_.names.size() + n);
  if (!readPlainScalars(spans)) {
    sj::parser parser;
    for (size_t i = 0; i < n; ++i) {
      sj::document doc;
      sj::value x;
      if (!iterateSpan(parser, spans[i], doc, x)) return giveUpSplit();
      PathGuard g(path_, i);
      if (!readScalarElement(i, x) || stop()) return giveUpSplit();
    }
  }
  record.commit(true);
}

// The declarations of "scalars" on every thread, when each element is an
// object with a "name" and at most a "dtype", both strings without
// escapes (the names are then views into the text): each becomes a
// symbol, as the one-thread reader makes it, its name interned in order
// (Interner::internAll). False, with nothing changed, for anything else.
bool Reader::readPlainScalars(const std::vector<std::string_view>& spans) {
  const size_t n = spans.size();
  const size_t w = std::min<size_t>(threads_, n / 64);  // a thread costs ~64 declarations
  if (w < 2 || f_.scalars.size() + n >= kGlobal) return false;
  std::vector<std::string_view> names(n);
  std::vector<DType> dtypes(n, DType::Index);
  std::atomic<bool> plain{true};
  parallelFor(w, [&](size_t k) {
    sj::parser parser;
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end && plain.load(std::memory_order_relaxed); ++i)
      if (!plainScalar(parser, spans[i], names[i], dtypes[i])) plain.store(false, std::memory_order_relaxed);
  });
  if (!plain.load()) return false;
  std::vector<NameId> ids(n);
  const size_t before = f_.names.size();
  const bool distinct = f_.names.internAll(names, ids, threads_);
  growNames();
  const size_t base = f_.scalars.size();
  resizePrefaulted(f_.scalars, base + n, threads_);
  // A name keeps its first scalar: with distinct new names, each is one
  // scalar's and is written on every thread; the rest in order.
  parallelFor(w, [&](size_t k) {
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end; ++i) {
      Scalar& s = f_.scalars[base + i];
      s.kind = ScalarKind::Symbol;
      s.dtype = dtypes[i];
      s.name = ids[i];
      s.decl = static_cast<uint32_t>(i);
      if (distinct && ids[i] >= before) scalar_of_name_[ids[i]] = static_cast<ScalarId>(base + i);
    }
  });
  if (!distinct)
    for (size_t i = 0; i < n; ++i)
      if (scalar_of_name_[ids[i]] == kNone) scalar_of_name_[ids[i]] = static_cast<ScalarId>(base + i);
  if (opts_.stats != nullptr) opts_.stats->plain_scalars_in_parallel = true;
  return true;
}

// One element of a plain "scalars" (readPlainScalars), parsed with the
// calling thread's parser.
bool Reader::plainScalar(sj::parser& parser, std::string_view text, std::string_view& name, DType& dtype) {
  sj::document doc;
  sj::object o;
  if (parser.iterate(spanView(text)).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(o) != simdjson::SUCCESS)
    return false;
  bool have_name = false, have_dtype = false;
  for (auto r : o) {
    sj::field field;
    if (std::move(r).get(field) != simdjson::SUCCESS) return false;
    const int k = rawKeyIndex(field.key().raw(), kScalarKeys);
    if (k < 0 || k == 2) return false;
    std::string_view token = field.value().raw_json_token();
    // A string token: its quotes and the spaces after it.
    while (!token.empty() && token.back() != '"') token.remove_suffix(1);
    if (token.size() < 2 || token.front() != '"' || token.find('\\') != std::string_view::npos) return false;
    token = token.substr(1, token.size() - 2);
    if (k == 0) {
      if (have_name || !isScalarName(token)) return false;
      name = token;
      have_name = true;
    } else {
      std::optional<DType> d = parseDType(token);
      if (have_dtype || !d) return false;
      dtype = *d;
      have_dtype = true;
    }
  }
  return have_name;  // the split saw to it that the span is this one object
}

}  // namespace fc::reader_detail
