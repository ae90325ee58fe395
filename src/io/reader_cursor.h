// The repro reader's cursor over a simdjson On-Demand document: the JSON
// pointer of the value being read, typed getters that report a located
// diagnostic for a value of the wrong type, iteration of arrays and of
// objects against a table of keys (unknown, duplicate and missing keys), and
// the error state every part of the reader stops on. Nothing here knows the
// format's sections (reader_internal.h and the reader_*.cpp files do).
//
// The reader uses simdjson's builtin On-Demand implementation (`sj`); stage 1
// is dispatched at run time by libsimdjson, and an AVX2 build of On-Demand
// itself measured no faster here.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/json_scan.h"
#include "io/json_split.h"

namespace fc::reader_detail {

namespace sj = simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::ondemand;

constexpr size_t kMaxErrors = 100;

// `raw` points just past a key's opening quote in the padded input.
template <size_t N>
int rawKeyIndex(const char* raw, const std::array<std::string_view, N>& keys) {
  for (size_t i = 0; i < N; ++i) {
    const std::string_view k = keys[i];
    // The first byte rules out most keys without a call to memcmp.
    if (raw[0] == k[0] && std::memcmp(raw, k.data(), k.size()) == 0 && raw[k.size()] == '"')
      return static_cast<int>(i);
  }
  return -1;
}

template <size_t N>
int keyIndex(std::string_view k, const std::array<std::string_view, N>& keys) {
  for (size_t i = 0; i < N; ++i)
    if (keys[i] == k) return static_cast<int>(i);
  return -1;
}

struct PathSeg {
  std::string_view key;
  size_t index = 0;
  bool is_index = false;
};

// The segments of the JSON pointer being read, pushed and popped for every
// field and element on the success path. The format's nesting is shallow
// and fixed, so the segments live in a fixed array; a deeper path (none in
// the format) spills to a vector. A chunk reader, which reports nothing (a
// chunk that meets an error gives up), keeps no path at all.
class PathStack {
 public:
  void disable() { on_ = false; }
  void push(const PathSeg& s) {
    if (!on_) return;
    if (n_ < kInline)
      inline_[n_] = s;
    else
      spill_.push_back(s);
    ++n_;
  }
  void pop() {
    if (!on_) return;
    --n_;
    if (n_ >= kInline) spill_.pop_back();
  }
  template <class F>
  void each(F&& f) const {
    for (size_t i = 0; i < n_; ++i) f(i < kInline ? inline_[i] : spill_[i - kInline]);
  }

 private:
  static constexpr size_t kInline = 16;
  std::array<PathSeg, kInline> inline_{};
  std::vector<PathSeg> spill_;
  size_t n_ = 0;
  bool on_ = true;
};

// A key or an index on the path for the guard's lifetime.
class PathGuard {
 public:
  PathGuard(PathStack& p, std::string_view key) : p_(p) { p_.push(PathSeg{key, 0, false}); }
  PathGuard(PathStack& p, size_t index) : p_(p) { p_.push(PathSeg{{}, index, true}); }
  ~PathGuard() { p_.pop(); }
  PathGuard(const PathGuard&) = delete;
  PathGuard& operator=(const PathGuard&) = delete;

 private:
  PathStack& p_;
};

// Reading a document value by value: the base of the reader (Reader, in
// reader_internal.h), which adds what the values mean. Its error state is
// the read's: the first fatal error or kMaxErrors errors stop every loop.
class Cursor {
 public:
  Cursor(const SourceText& src, DiagnosticSink& sink) : src_(src), sink_(sink) {}

 protected:
  // A chunk reader's cursor reports nothing and keeps no path: its first
  // error stops it (fatal_), and the sequential reader reports instead.
  void silence() {
    silent_ = true;
    path_.disable();
  }

  std::string pointer() const;
  bool stop() const { return fatal_ || errors_ >= kMaxErrors; }

  // An error at the current pointer, or at `ptr`; nullptr when none is
  // reported (a silent cursor, or kMaxErrors reached).
  Diagnostic* error(DiagCode code, std::string msg) { return errorAt(code, std::move(msg), pointer()); }
  Diagnostic* errorAt(DiagCode code, std::string msg, std::string ptr);
  // Reading cannot go on (simdjson refused the text): reported by the
  // reader's caller once it knows whether the JSON itself is at fault.
  void fatal(simdjson::error_code e);
  // Classifies a simdjson error on reading a value: false when reading
  // stopped (a reported error), true never (callers return on false).
  bool typeError(simdjson::error_code e, std::string_view expected);
  // FC0014 at the key whose opening quote is just before `raw_key`.
  void duplicateKey(std::string_view key, const char* raw_key);

  // ---- typed getters: false after reporting a value of another type
  static std::string_view jsonTypeName(sj::json_type t);
  bool getType(sj::value& v, sj::json_type& t);
  bool wrongType(sj::value& v, std::string_view expected);
  // A string, a boolean, an array or an object (T: std::string_view, bool,
  // sj::array, sj::object), `what` naming it in the diagnostic.
  template <class T>
  bool getAs(sj::value& v, T& out, std::string_view what);
  bool getString(sj::value& v, std::string_view& out, std::string_view what = "a string") {
    return getAs(v, out, what);
  }
  bool getBool(sj::value& v, bool& out) { return getAs(v, out, "true or false"); }
  bool getArray(sj::value& v, sj::array& a, std::string_view what = "an array") { return getAs(v, a, what); }
  bool getObject(sj::value& v, sj::object& o, std::string_view what = "an object") {
    return getAs(v, o, what);
  }
  // Integer: exact, within [lo, hi]; non-integers are FC0012, others FC0021.
  bool getInt(sj::value& v, int64_t& out, int64_t lo, int64_t hi, std::string_view what);
  // A string naming a value of an enum, parse(string) giving it (or
  // nullopt): false after reporting `code` "unknown <what> "<string>"<hint>"
  // for another string, or a value that is no string.
  template <class T, class Parse>
  bool readEnum(sj::value& v, Parse&& parse, T& out, DiagCode code, std::string_view what,
                std::string_view hint = "");
  // A value's JSON token, trailing spaces removed.
  std::string_view trimmedToken(sj::value& v);
  // A number's token, trailing spaces removed: false (fatal) when simdjson
  // took for a number what is not exactly one JSON number.
  bool numberToken(sj::value& v, std::string_view& raw);

  // Byte offset in the text of the value's first character, or SIZE_MAX.
  size_t offsetOf(sj::value& v);
  // The text's offset of a byte of the iterated document.
  size_t docOffset(const char* p) const {
    auto at = static_cast<size_t>(p - doc_base_);
    return skeleton_ ? skeleton_->original(at) : at;
  }

  // Number of elements, for reserving: a skip-only pass over the array's
  // structural indexes (simdjson rewinds the array after counting). 0 when
  // the array is malformed: the iteration that follows reports it.
  size_t countElements(sj::array& a);

  // Iterates an array; fn(index, value) returns false to stop.
  template <class F>
  bool eachElement(sj::array& a, F&& fn);

  // eachElement of a value that must be an array: false when it is not one.
  template <class F>
  bool eachElementOf(sj::value& v, F&& fn) {
    sj::array a;
    if (!getArray(v, a)) return false;
    return eachElement(a, fn);
  }

  // eachElement over a top-level array whose '[' is at `open`, of about `n`
  // elements, recording where each begins (ArrayRecord).
  template <class F>
  void eachRecordedElement(sj::array& a, size_t open, size_t n, F&& fn);

  // Iterates an object's fields against a key table; fn(key index, value).
  // `seen` collects the keys met, one bit each.
  template <size_t N, class F>
  bool eachField(sj::object& o, const std::array<std::string_view, N>& keys, uint32_t& seen, F&& fn);

  // eachField of a value that must be an object: false when it is not one,
  // or when reading stopped.
  template <size_t N, class F>
  bool readObject(sj::value& v, const std::array<std::string_view, N>& keys, uint32_t& seen, F&& fn) {
    sj::object o;
    if (!getObject(v, o)) return false;
    eachField(o, keys, seen, fn);
    return !stop();
  }

  template <size_t N>
  static std::string keyHint(const std::array<std::string_view, N>& keys);

  // FC0013 for each key of `req` not in `seen`.
  template <size_t N>
  bool requireKeys(uint32_t seen, const std::array<std::string_view, N>& keys,
                   std::initializer_list<int> req);

  // The element offsets of a large top-level array, handed to the source
  // (SourceText::recordArray) when the whole array was read without error,
  // so that locating diagnostics does not scan the array a second time.
  class ArrayRecord {
   public:
    ArrayRecord(Cursor& c, size_t open, size_t count) : c_(c), open_(open) {
      if (open_ != SIZE_MAX) elems_.reserve(count);
    }
    // The offsets of a split array's elements (spans of the text at `base`),
    // on up to `threads` threads.
    void setOffsets(const std::vector<std::string_view>& spans, const char* base, size_t threads);
    void add(sj::value& element);
    void commit(bool complete);

   private:
    Cursor& c_;
    size_t open_;
    std::vector<size_t> elems_;
  };

  const SourceText& src_;
  DiagnosticSink& sink_;
  PathStack path_;
  size_t errors_ = 0;
  bool fatal_ = false;
  bool silent_ = false;
  std::string fatal_message_;
  std::string fatal_pointer_;
  // The document being iterated: the text at doc_base_, or the skeleton of
  // a split text, whose offsets skeleton_ maps back to the text's.
  const char* doc_base_ = nullptr;
  std::optional<jsonsplit::Skeleton> skeleton_;
};

template <class F>
bool Cursor::eachElement(sj::array& a, F&& fn) {
  size_t i = 0;
  for (auto r : a) {
    sj::value v;
    if (auto e = std::move(r).get(v)) {
      fatal(e);
      return false;
    }
    PathGuard g(path_, i);
    if (!fn(i, v) && stop()) return false;
    if (stop()) return false;
    ++i;
  }
  return !stop();
}

template <class F>
void Cursor::eachRecordedElement(sj::array& a, size_t open, size_t n, F&& fn) {
  ArrayRecord record(*this, open, n);
  bool complete = eachElement(a, [&](size_t i, sj::value& x) {
    record.add(x);
    return fn(i, x);
  });
  record.commit(complete);
}

template <size_t N, class F>
bool Cursor::eachField(sj::object& o, const std::array<std::string_view, N>& keys, uint32_t& seen, F&& fn) {
  static_assert(N <= 32);
  for (auto r : o) {
    sj::field field;
    if (auto e = std::move(r).get(field)) {
      fatal(e);
      return false;
    }
    const char* raw_key = field.key().raw();
    // Known keys have no escapes: match the raw bytes first (no copy);
    // only an unmatched key is unescaped (it may be an escaped spelling).
    int idx = rawKeyIndex(raw_key, keys);
    std::string_view key;
    if (idx >= 0) {
      key = keys[static_cast<size_t>(idx)];
    } else {
      if (auto e = field.unescaped_key().get(key)) {
        fatal(e);
        return false;
      }
      idx = keyIndex(key, keys);
    }
    PathGuard g(path_, key);
    if (idx < 0) {
      error(DiagCode::UnknownKey, "unknown key \"" + jsonscan::clipForMessage(key) + "\"" + keyHint(keys));
    } else if (seen & (1u << idx)) {
      duplicateKey(key, raw_key);
    } else {
      seen |= 1u << idx;
      sj::value v = field.value();
      fn(idx, v);
    }
    if (stop()) return false;
  }
  return !stop();
}

template <size_t N>
std::string Cursor::keyHint(const std::array<std::string_view, N>& keys) {
  std::string s = " (expected one of:";
  for (auto k : keys) {
    s += ' ';
    s += k;
  }
  return s + ")";
}

template <size_t N>
bool Cursor::requireKeys(uint32_t seen, const std::array<std::string_view, N>& keys,
                         std::initializer_list<int> req) {
  bool ok = true;
  for (int k : req)
    if (!(seen & (1u << k))) {
      error(DiagCode::MissingKey, "missing required key \"" + std::string(keys[k]) + "\"");
      ok = false;
    }
  return ok;
}

template <class T, class Parse>
inline bool Cursor::readEnum(sj::value& v, Parse&& parse, T& out, DiagCode code, std::string_view what,
                             std::string_view hint) {
  std::string_view s;
  if (!getString(v, s)) return false;
  if (auto x = parse(s)) {
    out = *x;
    return true;
  }
  error(code, "unknown " + std::string(what) + " \"" + std::string(s) + "\"" + std::string(hint));
  return false;
}

// Small, and run for nearly every value or element read: defined here, and
// declared inline (the template too), so that GCC inlines them in every part
// of the reader.
inline bool Cursor::getType(sj::value& v, sj::json_type& t) {
  if (auto e = v.type().get(t)) {
    fatal(e);
    return false;
  }
  return true;
}

template <class T>
inline bool Cursor::getAs(sj::value& v, T& out, std::string_view what) {
  sj::json_type t;
  if (!getType(v, t)) return false;
  simdjson::error_code e;
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (t != sj::json_type::string) return wrongType(v, what);
    e = v.get_string().get(out);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (t != sj::json_type::boolean) return wrongType(v, what);
    e = v.get_bool().get(out);
  } else if constexpr (std::is_same_v<T, sj::array>) {
    if (t != sj::json_type::array) return wrongType(v, what);
    e = v.get_array().get(out);
  } else {
    static_assert(std::is_same_v<T, sj::object>);
    if (t != sj::json_type::object) return wrongType(v, what);
    e = v.get_object().get(out);
  }
  if (e) return typeError(e, what);
  return true;
}

inline size_t Cursor::offsetOf(sj::value& v) {
  const char* p = nullptr;
  if (v.current_location().get(p) != simdjson::SUCCESS || p == nullptr || p < doc_base_) return SIZE_MAX;
  return docOffset(p);
}

inline void Cursor::ArrayRecord::add(sj::value& element) {
  if (open_ == SIZE_MAX) return;
  size_t at = c_.offsetOf(element);
  if (at == SIZE_MAX) {
    open_ = SIZE_MAX;  // an element without a location: record nothing
    return;
  }
  elems_.push_back(at);
}

}  // namespace fc::reader_detail
