// The reader's cursor (reader_cursor.h): located errors, typed getters,
// element offsets.
#include "io/reader_cursor.h"

#include <algorithm>

#include "io/scalar_expr.h"
#include "support/parallel.h"
#include "support/prefault.h"

namespace fc::reader_detail {

std::string Cursor::pointer() const {
  JsonPointer p;
  path_.each([&](const PathSeg& s) { p = s.is_index ? p.index(s.index) : p.key(s.key); });
  return p.str();
}

Diagnostic* Cursor::errorAt(DiagCode code, std::string msg, std::string ptr) {
  if (silent_) {  // a chunk reports nothing: it gives up
    fatal_ = true;
    return nullptr;
  }
  if (errors_ >= kMaxErrors) return nullptr;
  ++errors_;
  Diagnostic& d = sink_.error(code, std::move(msg), Location{src_.path(), std::move(ptr)});
  if (errors_ == kMaxErrors) d.note("too many errors; reading stopped here");
  return &d;
}

void Cursor::fatal(simdjson::error_code e) {
  if (fatal_) return;
  fatal_ = true;
  fatal_message_ = simdjson::error_message(e);
  fatal_pointer_ = pointer();
}

bool Cursor::typeError(simdjson::error_code e, std::string_view expected) {
  if (e == simdjson::INCORRECT_TYPE) {
    error(DiagCode::WrongType, "expected " + std::string(expected));
  } else if (e == simdjson::NUMBER_OUT_OF_RANGE) {
    error(DiagCode::NumberOutOfRange, "the number is out of range for " + std::string(expected));
  } else {
    fatal(e);
  }
  return false;
}

std::string_view Cursor::jsonTypeName(sj::json_type t) {
  switch (t) {
    case sj::json_type::array: return "an array";
    case sj::json_type::object: return "an object";
    case sj::json_type::number: return "a number";
    case sj::json_type::string: return "a string";
    case sj::json_type::boolean: return "a boolean";
    case sj::json_type::null: return "null";
  }
  return "a value";
}

bool Cursor::wrongType(sj::value& v, std::string_view expected) {
  sj::json_type t;
  if (!getType(v, t)) return false;
  error(DiagCode::WrongType, "expected " + std::string(expected) + ", found " + std::string(jsonTypeName(t)));
  return false;
}

bool Cursor::getInt(sj::value& v, int64_t& out, int64_t lo, int64_t hi, std::string_view what) {
  int64_t fast = 0;
  if (v.get_int64().get(fast) == simdjson::SUCCESS && fast >= lo && fast <= hi) {  // not consumed on failure
    out = fast;
    return true;
  }
  sj::json_type t;
  if (!getType(v, t)) return false;
  if (t != sj::json_type::number) return wrongType(v, what);
  std::string_view raw;
  if (!numberToken(v, raw)) return false;
  if (raw.find_first_of(".eE") != std::string_view::npos) {
    error(DiagCode::WrongType, "expected " + std::string(what) + ", found a non-integer number");
    return false;
  }
  bool oor = false;
  auto c = parseScalarLiteral(raw, &oor);
  if (!c || c->kind != ConstValue::Kind::Int || c->i < lo || c->i > hi) {
    if (c && c->kind == ConstValue::Kind::Int && c->i < 0 && lo >= 0)
      error(DiagCode::NumberOutOfRange, "expected " + std::string(what) + ", found a negative number");
    else
      error(DiagCode::NumberOutOfRange,
            jsonscan::clipForMessage(raw) + " is out of range for " + std::string(what));
    return false;
  }
  out = c->i;
  return true;
}

std::string_view Cursor::trimmedToken(sj::value& v) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && jsonscan::isWs(raw.back())) raw.remove_suffix(1);
  return raw;
}

bool Cursor::numberToken(sj::value& v, std::string_view& raw) {
  raw = trimmedToken(v);
  size_t end = 0;
  if (jsonscan::scanNumber(raw, 0, end) != jsonscan::NumStatus::Ok || end != raw.size()) {
    fatal(simdjson::NUMBER_ERROR);
    return false;
  }
  return true;
}

size_t Cursor::countElements(sj::array& a) {
  size_t n = 0;
  if (a.count_elements().get(n) != simdjson::SUCCESS) return 0;
  return n;
}

void Cursor::duplicateKey(std::string_view key, const char* raw_key) {
  if (Diagnostic* d =
          error(DiagCode::DuplicateKey, "duplicate key \"" + jsonscan::clipForMessage(key) + "\"")) {
    LineCol lc = src_.lineCol(docOffset(raw_key - 1));
    d->loc.line = lc.line;
    d->loc.col = lc.col;
  }
}

void Cursor::ArrayRecord::setOffsets(const std::vector<std::string_view>& spans, const char* base,
                                     size_t threads) {
  if (open_ == SIZE_MAX) return;
  const size_t n = spans.size(), w = std::max<size_t>(1, std::min(threads, n / 65536));
  elems_.reserve(n);
  prefault(elems_.data(), n * sizeof(size_t), static_cast<unsigned>(w));
  elems_.resize(n);
  parallelFor(w, [&](size_t k) {
    for (size_t i = n * k / w, end = n * (k + 1) / w; i < end; ++i)
      elems_[i] = static_cast<size_t>(spans[i].data() - base);
  });
}

void Cursor::ArrayRecord::commit(bool complete) {
  if (complete && open_ != SIZE_MAX && !c_.fatal_ && c_.errors_ == 0)
    c_.src_.recordArray(open_, std::move(elems_));
}

}  // namespace fc::reader_detail
