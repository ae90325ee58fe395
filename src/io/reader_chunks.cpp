// The reader's chunks (reader_internal.h): the "tensors", "exprs" and
// "concrete_inputs" arrays of a large repro are read in chunks, one per
// thread. The primary reader (this) has each element's text from the split
// of the text (io/json_split), or finds it with a skip over simdjson's
// structural index, and hands runs of consecutive elements to chunk
// readers: Readers with a Fusion of their own that parse each element as a
// document of its own, with the same code as the sequential reader. A chunk
// looks names up in the primary's tables, which nobody writes while chunks
// run; it refers to the primary's scalars with ids tagged kGlobal and to its
// own untagged. It gives up at anything but a valid element whose names are
// all known (an error, a forward reference, a name never seen), since only
// the sequential reader reports those, in document order. Element i becomes
// tensor i (or expr i) in place, in the primary's array sized beforehand.
// When all chunks succeed, the primary merges them (reader_merge.cpp): the
// Fusion is the one the sequential reader builds, id for id
// (tests/io/reader_parallel_test.cpp). When one gives up, run() reads the
// whole text again on one thread, so that no diagnostic depends on the
// thread count.
#include <algorithm>
#include <future>
#include <memory>

#include "io/reader_internal.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/prefault.h"

namespace fc::reader_detail {
namespace {

const char* chunkedName(Chunked what, int part) {
  static constexpr const char* kNames[3][3] = {
      {"tensors: find elements", "tensors: read in chunks", "tensors: merge"},
      {"exprs: find elements", "exprs: read in chunks", "exprs: merge"},
      {"concrete inputs: find elements", "concrete inputs: read in chunks", "concrete inputs: merge"}};
  return kNames[static_cast<int>(what)][part];
}

}  // namespace

// The start of "tensors", "exprs" or "concrete_inputs": true when the caller
// reads the elements here, one by one; false when nothing is left to do (not
// an array, read in chunks, or a split array, whose elements are not in the
// skeleton: the split gives up).
bool Reader::readsHere(sj::value& v, Chunked what, sj::array& a, size_t& open) {
  open = offsetOf(v);
  if (!getArray(v, a)) return false;
  if (parallelReady(arenaFree(what))) {
    readInChunks(a, open, what);
    return false;
  }
  if (splitAt(open) != nullptr) {
    giveUpSplit();
    return false;
  }
  return true;
}

// Element i of a chunked array is tensor, expr or concrete input i: the
// array is sized before the chunks write into it, its pages faulted in on
// every thread but its elements constructed on one (~50 ms for a million
// tensors or exprs on the device host).
void Reader::sizeArena(Chunked what, size_t n) {
  switch (what) {
    case Chunked::Tensors: resizePrefaulted(f_.tensors, n, threads_); break;
    case Chunked::Exprs: resizePrefaulted(f_.exprs, n, threads_); break;
    case Chunked::Concrete: resizePrefaulted(f_.concrete_inputs, n, threads_); break;
  }
}

// The split has counted the elements of the arrays the chunks
// will read, so their arenas are sized at once, each on a thread of its
// own, while this thread reads what comes before them (the named
// scalars, then the tensors while the exprs' arena is built). Nothing
// else touches an arena until readSpansInChunks waits for it; a text
// that is not read in chunks after all waits for them when the reader
// goes (the futures' destructors).
void Reader::startArenas() {
  if (primary_ != nullptr || threads_ < 2) return;
  for (size_t k = 0; k < arenas_.size(); ++k) {
    const auto what = static_cast<Chunked>(k);
    if (const size_t n = splitCount(what); n > 0)
      arenas_[k] = std::async(std::launch::async, [this, what, n] { sizeArena(what, n); });
  }
}

// How many elements the split found in a chunked array (0: not split).
size_t Reader::splitCount(Chunked what) const {
  for (const jsonsplit::SplitArray& s : split_.arrays)
    if (s.key == static_cast<size_t>(what)) return s.elements.size();
  return 0;
}

// Whether a chunked array's arena is free for its chunks: being sized
// for them, or empty.
bool Reader::arenaFree(Chunked what) const {
  if (arenas_[static_cast<size_t>(what)].valid()) return true;
  switch (what) {
    case Chunked::Tensors: return f_.tensors.empty();
    case Chunked::Exprs: return f_.exprs.empty();
    case Chunked::Concrete: return f_.concrete_inputs.empty();
  }
  return false;
}

bool Reader::parallelReady(bool empty_arena) const {
  return threads_ > 1 && primary_ == nullptr && empty_arena && !fatal_ && errors_ == 0 && pending_.empty() &&
         f_.scalars.size() < kGlobal;
}

void Reader::giveUpParallel() {
  restart_ = true;
  fatal_ = true;
}

// The split array whose '[' is at `open`, if any.
const jsonsplit::SplitArray* Reader::splitAt(size_t open) const {
  if (!skeleton_) return nullptr;
  for (const jsonsplit::SplitArray& s : split_.arrays)
    if (s.open == open) return &s;
  return nullptr;
}

// Reads a top-level array in chunks: its elements found by the split, or
// by walking the index here.
void Reader::readInChunks(sj::array& a, size_t open, Chunked what) {
  if (const jsonsplit::SplitArray* s = splitAt(open)) {
    if (s->key != static_cast<size_t>(what)) return giveUpSplit();
    ArrayRecord record(*this, open, 0);
    record.setOffsets(s->elements, base_, threads_);
    return readSpansInChunks(s->elements, record, what);
  }
  PhaseScope find_phase(chunkedName(what, 0), PhaseScope::Detail{});
  std::vector<std::string_view> spans;
  ArrayRecord record(*this, open, 0);
  for (auto r : a) {
    sj::value x;
    sj::object o;
    std::string_view text;
    if (std::move(r).get(x) != simdjson::SUCCESS) return giveUpParallel();
    record.add(x);
    if (x.get_object().get(o) != simdjson::SUCCESS || o.raw_json().get(text) != simdjson::SUCCESS)
      return giveUpParallel();
    spans.push_back(text);
  }
  find_phase.stop();
  readSpansInChunks(spans, record, what);
}

void Reader::giveUpSplit() {
  reread_whole_ = true;
  fatal_ = true;
}

void Reader::readSpansInChunks(const std::vector<std::string_view>& spans, ArrayRecord& record,
                               Chunked what) {
  if (!spans.empty()) {
    PhaseScope read_phase(chunkedName(what, 1), PhaseScope::Detail{});
    if (tensor_of_name_.empty()) {  // internName's fallback id 0 must index the maps
      tensor_of_name_.assign(1, kNone);
      scalar_of_name_.assign(1, kNone);
    }
    size_t n = spans.size(), w = std::min<size_t>(threads_, n);
    Chunks chunks(w);
    // Element i is tensor i or expr i (parallelReady: the array is empty).
    // The block is faulted in on every thread first (support/prefault.h).
    if (std::future<void>& arena = arenas_[static_cast<size_t>(what)]; arena.valid())
      arena.get();  // sized since the split (startArenas)
    else
      sizeArena(what, n);
    parallelFor(w, [&](size_t k) {
      auto c = std::make_unique<Reader>(*this, ChunkOf{});
      c->readChunk(spans, n * k / w, n * (k + 1) / w, what);
      chunks[k] = std::move(c);
    });
    read_phase.stop();
    for (const auto& c : chunks)
      if (c->fatal_ || c->errors_ > 0) return giveUpParallel();
    PhaseScope merge_phase(chunkedName(what, 2), PhaseScope::Detail{});
    switch (what) {
      case Chunked::Tensors: mergeTensors(chunks); break;
      case Chunked::Exprs: mergeExprs(chunks); break;
      case Chunked::Concrete: mergeConcrete(chunks); break;
    }
    if (opts_.stats != nullptr) {
      opts_.stats->chunked_arrays++;
      opts_.stats->chunks += static_cast<unsigned>(w);
    }
  }
  record.commit(true);
}

// Elements [lo, hi) of the array whose element texts are `spans`.
void Reader::readChunk(const std::vector<std::string_view>& spans, size_t lo, size_t hi, Chunked what) {
  chunk_lo_ = lo;
  chunk_hi_ = hi;
  if (what == Chunked::Tensors) {
    f_.axes.reserve(4 * (hi - lo));
    chunk_name_ends_.reserve(hi - lo);
  }
  sj::parser parser;
  for (size_t i = lo; i < hi && !fatal_; ++i) {
    sj::document doc;
    sj::value x;
    if (!iterateSpan(parser, spans[i], doc, x)) {
      fatal_ = true;
      return;
    }
    bool ok = false;
    switch (what) {
      case Chunked::Tensors: ok = readTensor(i, x); break;
      case Chunked::Exprs: ok = readExpr(i, x); break;
      case Chunked::Concrete: ok = readConcreteInput(i, x); break;
    }
    if (!ok) fatal_ = true;
  }
}

}  // namespace fc::reader_detail
