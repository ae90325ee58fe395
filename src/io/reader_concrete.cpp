// The reader's "concrete_inputs" (reader_internal.h): the sizes, strides or
// value of a fusion input for a run. Element i is concrete input i, read by
// the one-thread reader or by a chunk reader (reader_chunks.cpp) with the
// same code.
#include "io/reader_internal.h"

namespace fc::reader_detail {
namespace {

constexpr std::array<std::string_view, 6> kConcreteKeys = {"input", "shape", "strides",
                                                           "value", "range", "fill"};

}  // namespace

void Reader::readConcrete(sj::value& v) {
  sj::array a;
  size_t open = 0;
  if (!readsHere(v, Chunked::Concrete, a, open)) return;
  eachElement(a, [&](size_t, sj::value& x) { return readConcreteInput(0, x); });
}

// Concrete input i (a chunk reader writes its primary's element i in
// place; the one-thread reader appends).
bool Reader::readConcreteInput(size_t i, sj::value& x) {
  ConcreteInput ci;
  uint32_t seen = 0;
  bool bad = false;
  bool read = readObject(x, kConcreteKeys, seen, [&](int k, sj::value& y) {
    bool ok = true;
    switch (k) {
      case 0: ok = readNameRef(y, Want::Either, ci.value); break;
      case 1:
        ok = readIntArray(y, INT64_MIN, INT64_MAX, "a size", [&](int64_t n) { ci.shape.push_back(n); });
        break;
      case 2:
        ok = readIntArray(y, INT64_MIN, INT64_MAX, "a stride", [&](int64_t n) { ci.strides.push_back(n); });
        break;
      case 3: {
        ConstValue c;
        ok = readLiteral(y, c);
        if (ok) ci.scalar = c;
        break;
      }
      case 4: {  // "range": [low, high], two constants
        std::vector<double> r;
        ok = eachElementOf(y, [&](size_t, sj::value& e) {
          ConstValue c;
          if (!readLiteral(e, c)) return false;
          r.push_back(c.kind == ConstValue::Kind::Float ? c.f : static_cast<double>(c.i));
          return true;
        });
        if (ok && r.size() != 2) {
          error(DiagCode::WrongType, "\"range\" takes two numbers, [low, high]");
          ok = false;
        }
        if (ok) ci.range = std::make_pair(r[0], r[1]);
        break;
      }
      case 5: {  // "fill": a number
        ConstValue c;
        ok = readLiteral(y, c);
        if (ok) ci.fill = c.kind == ConstValue::Kind::Float ? c.f : static_cast<double>(c.i);
        break;
      }
    }
    if (!ok) bad = true;
  });
  if (!read || !requireKeys(seen, kConcreteKeys, {0}) || bad) return false;
  if (primary_ != nullptr)
    primary_->f_.concrete_inputs[i] = std::move(ci);
  else
    f_.concrete_inputs.push_back(std::move(ci));
  return true;
}

}  // namespace fc::reader_detail
