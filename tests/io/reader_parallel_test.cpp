// The chunked (multi-threaded) reading of the "tensors" and "exprs" arrays
// (src/io/reader_chunks.cpp): for any thread count the reader must build
// the Fusion the one-thread reader builds, id for id, and report exactly the
// same diagnostics. Each case reads the same text with threads = 1 and with
// several thread counts, the size threshold lowered to 0 so that small
// texts take the chunked path too.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "diag/render.h"
#include "io/place_pointer.h"
#include "io/reader.h"
#include "io/writer.h"
#include "io_test_util.h"
#include "synth.h"

namespace fc {
namespace {

using testing::readText;

ReadOptions sequential() {
  ReadOptions o;
  o.threads = 1;
  return o;
}

ReadOptions chunked(unsigned threads) {
  ReadOptions o;
  o.threads = threads;
  o.parallel_min_bytes = 0;
  o.split_min_block = 64;  // the split's blocks end anywhere, even inside strings
  return o;
}

// Every arena, field by field: ids must match, not only the printed form.
void expectSameFusion(const Fusion& a, const Fusion& b) {
  ASSERT_EQ(a.names.size(), b.names.size());
  for (NameId n = 0; n < a.names.size(); ++n) ASSERT_EQ(a.names.str(n), b.names.str(n)) << "name " << n;
  ASSERT_EQ(a.scalars.size(), b.scalars.size());
  for (size_t i = 0; i < a.scalars.size(); ++i) {
    const Scalar &x = a.scalars[i], &y = b.scalars[i];
    ASSERT_TRUE(x.kind == y.kind && x.dtype == y.dtype && x.name == y.name && x.op == y.op &&
                x.lhs == y.lhs && x.rhs == y.rhs && x.size_of == y.size_of && x.size_dim == y.size_dim &&
                x.value.kind == y.value.kind && x.value.i == y.value.i && x.decl == y.decl &&
                (x.value.f == y.value.f || (x.value.f != x.value.f && y.value.f != y.value.f)))
        << "scalar " << i;
  }
  ASSERT_EQ(a.axes.size(), b.axes.size());
  for (size_t i = 0; i < a.axes.size(); ++i) {
    const Axis &x = a.axes[i], &y = b.axes[i];
    ASSERT_TRUE(x.number == y.number && x.iter == y.iter && x.parallel == y.parallel &&
                x.extent == y.extent && x.expanded == y.expanded && x.rfactor == y.rfactor &&
                x.owner == y.owner)
        << "axis " << i;
  }
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const Tensor &x = a.tensors[i], &y = b.tensors[i];
    ASSERT_TRUE(x.name == y.name && x.dtype == y.dtype && x.memory == y.memory && x.mesh == y.mesh &&
                x.root == y.root && x.logical == y.logical && x.allocation == y.allocation &&
                x.contiguity == y.contiguity && x.loop == y.loop && x.definition == y.definition)
        << "tensor " << i;
    ASSERT_EQ(x.transforms.size(), y.transforms.size());
    for (size_t j = 0; j < x.transforms.size(); ++j) {
      const AxisTransform &p = x.transforms[j], &q = y.transforms[j];
      ASSERT_TRUE(p.kind == q.kind && p.in == q.in && p.in2 == q.in2 && p.out == q.out && p.out2 == q.out2 &&
                  p.factor == q.factor && p.inner_split == q.inner_split)
          << "tensor " << i << " transform " << j;
    }
  }
  ASSERT_EQ(a.exprs.size(), b.exprs.size());
  for (size_t i = 0; i < a.exprs.size(); ++i) {
    const Expr &x = a.exprs[i], &y = b.exprs[i];
    const Attrs &p = x.attrs, &q = y.attrs;
    bool ranges = p.ranges.size() == q.ranges.size();
    for (size_t j = 0; ranges && j < p.ranges.size(); ++j)
      ranges = p.ranges[j].start == q.ranges[j].start && p.ranges[j].stop == q.ranges[j].stop &&
               p.ranges[j].step == q.ranges[j].step;
    ASSERT_TRUE(x.op == y.op && x.inputs == y.inputs && x.outputs == y.outputs && p.dims == q.dims &&
                p.flags == q.flags && p.shape == q.shape && p.pad == q.pad && ranges && p.dtype == q.dtype &&
                p.value == q.value && p.start == q.start && p.step == q.step && p.dim == q.dim &&
                p.correction == q.correction && p.keepdim == q.keepdim &&
                p.approximate_tanh == q.approximate_tanh)
        << "expr " << i;
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  ASSERT_EQ(a.concrete_inputs.size(), b.concrete_inputs.size());
  for (size_t i = 0; i < a.concrete_inputs.size(); ++i) {
    const ConcreteInput &x = a.concrete_inputs[i], &y = b.concrete_inputs[i];
    ASSERT_TRUE(x.value == y.value && x.shape == y.shape && x.strides == y.strides &&
                x.scalar.has_value() == y.scalar.has_value() &&
                (!x.scalar || (x.scalar->kind == y.scalar->kind && x.scalar->i == y.scalar->i)))
        << "concrete input " << i;
  }
  EXPECT_EQ(writeFusion(a), writeFusion(b));
}

// Reads `text` on one thread and chunked on 2, 3 and 7 threads; returns
// what the 3-thread read did.
ReadStats expectSameOnAnyThreadCount(const std::string& text, const std::string& what) {
  SCOPED_TRACE(what);
  ReadStats seq_stats, stats3;
  ReadOptions seq = sequential();
  seq.stats = &seq_stats;
  auto one = readText(text, seq);
  EXPECT_EQ(seq_stats.chunked_arrays, 0u);
  EXPECT_FALSE(seq_stats.reread);
  for (unsigned threads : {2u, 3u, 7u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ReadStats stats;
    ReadOptions opts = chunked(threads);
    opts.stats = &stats;
    auto many = readText(text, opts);
    if (threads == 3) stats3 = stats;
    EXPECT_EQ(one.fusion.has_value(), many.fusion.has_value())
        << spelledJson(one.sink.all()) << spelledJson(many.sink.all());
    EXPECT_EQ(spelledJson(one.sink.all()), spelledJson(many.sink.all()));
    if (one.fusion.has_value() != many.fusion.has_value()) continue;
    if (one.fusion) expectSameFusion(*one.fusion, *many.fusion);
  }
  return stats3;
}

TEST(ReaderParallel, EveryJsonFixtureReadsTheSameOnAnyThreadCount) {
  size_t files = 0, valid = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::fixturePath("fixtures"))) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::string text = testing::slurp(e.path().string());
    expectSameOnAnyThreadCount(text, e.path().string());
    ++files;
    if (readText(text, sequential()).fusion) ++valid;
  }
  // Both kinds must be there: repros, and texts the reader refuses (the
  // .expect.json files are not repros).
  EXPECT_GT(files, 100u);
  EXPECT_GT(valid, 50u);
  EXPECT_LT(valid, files);
}

TEST(ReaderParallel, SyntheticReprosAreIdenticalIdForId) {
  for (bool sharded : {false, true}) {
    synth::TransformerOptions o;
    o.exprs = 3000;
    o.seed = 7;
    o.sharded = sharded;
    std::string text = writeFusion(synth::transformer(o));
    ReadStats st = expectSameOnAnyThreadCount(text, sharded ? "tensor-parallel" : "transformer");
    // The tensors, exprs and concrete inputs went through chunks, 3 each,
    // and nothing was read again.
    EXPECT_EQ(st.chunked_arrays, 3u);
    EXPECT_EQ(st.chunks, 9u);
    EXPECT_FALSE(st.reread);
    // Their elements, and the scalars', were found by the split,
    // not by an index of the whole text; the scalars are declarations
    // only, read on every thread.
    EXPECT_EQ(st.split_arrays, 4u);
    EXPECT_TRUE(st.plain_scalars_in_parallel);
    // And their names were interned on every thread (Interner::internAll).
    EXPECT_TRUE(st.names_in_parallel);
  }
  EXPECT_EQ(expectSameOnAnyThreadCount(writeFusion(synth::linearRelu(30)), "issue 3510").chunked_arrays, 3u);
  EXPECT_EQ(expectSameOnAnyThreadCount(writeFusion(synth::chainedAdds(100)), "issue 1440").chunked_arrays,
            3u);
  // The default threshold keeps small texts on one thread.
  ReadStats st;
  ReadOptions o;
  o.threads = 4;
  o.stats = &st;
  EXPECT_TRUE(readText(writeFusion(synth::linearRelu(30)), o).fusion.has_value());
  EXPECT_EQ(st.chunked_arrays, 0u);
}

// Replaces the first occurrence of `from` at or after byte `pos`.
std::string replaceFrom(std::string text, size_t pos, const std::string& from, const std::string& to) {
  size_t at = text.find(from, pos);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A chunk gives up at anything but a valid element with known names; the
// text is then read again on one thread. Each edit lands in the middle of a
// large array, inside some chunk.
TEST(ReaderParallel, ChunksThatMeetErrorsGiveTheSequentialDiagnostics) {
  synth::TransformerOptions o;
  o.exprs = 2000;
  o.seed = 3;
  std::string text = writeFusion(synth::transformer(o));
  size_t tensors = text.find("\"tensors\"");
  size_t exprs = text.find("\"exprs\"");
  ASSERT_NE(tensors, std::string::npos);
  ASSERT_NE(exprs, std::string::npos);
  size_t concrete = text.find("\"concrete_inputs\"");
  ASSERT_NE(concrete, std::string::npos);
  size_t mid_tensors = (tensors + exprs) / 2, mid_exprs = exprs + (concrete - exprs) / 2,
         mid_concrete = concrete + (text.size() - concrete) / 2;
  struct Case {
    const char* what;
    std::string text;
    bool valid;  // the reader accepts it
  };
  std::vector<Case> cases = {
      {"unknown key in a tensor", replaceFrom(text, mid_tensors, "\"dtype\"", "\"dtipe\""), false},
      {"undeclared extent symbol", replaceFrom(text, mid_tensors, "\"extent\": \"i", "\"extent\": \"zz"),
       false},
      {"bad scalar expression", replaceFrom(text, mid_tensors, "\"extent\": \"i", "\"extent\": \"1 + * i"),
       false},
      {"a renumbered axis (valid for the reader)", replaceFrom(text, mid_tensors, "{\"id\": ", "{\"id\": 9"),
       true},
      {"an element that is not an object", replaceFrom(text, mid_tensors, "{\"name\": ", "7, {\"name\": "),
       false},
      {"unknown op", replaceFrom(text, mid_exprs, "\"op\": \"", "\"op\": \"no_such_"), false},
      {"undeclared operand", replaceFrom(text, mid_exprs, "\"inputs\": [\"T", "\"inputs\": [\"Q"), false},
      {"syntax error inside an expr", replaceFrom(text, mid_exprs, "\"outputs\": [", "\"outputs\": [,"),
       false},
      {"an escaped tensor name (valid)",
       replaceFrom(text, mid_tensors, "{\"name\": \"T", "{\"name\": \"\\u0054"), true},
      {"a concrete input naming no tensor",
       replaceFrom(text, mid_concrete, "{\"input\": \"T", "{\"input\": \"Q"), false},
      {"a concrete size that is a string",
       replaceFrom(text, mid_concrete, "\"shape\": [", "\"shape\": [\"8\", "), false},
      {"a concrete input with strides (valid)",
       replaceFrom(text, mid_concrete, "\"shape\": [", "\"strides\": [1], \"shape\": ["), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_NE(c.text, text);
    ReadStats st = expectSameOnAnyThreadCount(c.text, c.what);
    // A chunk gives up exactly when the text has an error (no case has a
    // forward reference).
    EXPECT_EQ(st.reread, !c.valid);
  }
  for (const Case& c : cases) EXPECT_EQ(readText(c.text, chunked(3)).fusion.has_value(), c.valid) << c.what;
}

// The split "scalars": declarations only are read on every
// thread, anything else element by element in order, errors by reading the
// whole text again; always with the one-thread result. Each edit lands in
// the middle of the array.
TEST(ReaderParallel, ScalarDeclarationsReadAsOnOneThread) {
  synth::TransformerOptions o;
  o.exprs = 3000;
  o.seed = 5;
  const std::string text = writeFusion(synth::transformer(o));
  const size_t scalars = text.find("\"scalars\"");
  const size_t mid = (scalars + text.find("\"tensors\"")) / 2;
  ASSERT_NE(scalars, std::string::npos);
  const std::string decl = "{\"name\": \"i";
  struct Case {
    const char* what;
    std::string text;
    bool valid, plain;  // the reader accepts it; on the parallel path
  };
  const std::vector<Case> cases = {
      {"a dtype", replaceFrom(text, mid, decl, "{\"dtype\": \"Int\", \"name\": \"i"), true, true},
      {"a name declared twice (the verifier's finding)",
       replaceFrom(text, mid, decl, "{\"name\": \"i0\"}, {\"name\": \"i"), true, true},
      {"a name not numbered", replaceFrom(text, mid, decl, "{\"name\": \"width\"}, {\"name\": \"i"), true,
       true},
      {"an escaped name", replaceFrom(text, mid, decl, "{\"name\": \"\\u0069"), true, false},
      {"a value of earlier symbols",
       replaceFrom(text, mid, decl, "{\"name\": \"both\", \"value\": \"i0 * i1\"}, {\"name\": \"i"), true,
       false},
      {"an unknown key", replaceFrom(text, mid, decl, "{\"nam\": \"i"), false, false},
      {"a key twice", replaceFrom(text, mid, decl, "{\"dtype\": \"Int\", \"dtype\": \"Int\", \"name\": \"i"),
       false, false},
      {"an unknown dtype", replaceFrom(text, mid, decl, "{\"dtype\": \"Int7\", \"name\": \"i"), false, false},
      {"a name that is a number", replaceFrom(text, mid, decl, "{\"name\": 7, \"dtype\": \"i"), false, false},
      {"a reserved name", replaceFrom(text, mid, decl, "{\"name\": \"nan\"}, {\"name\": \"i"), false, false},
      {"no name", replaceFrom(text, mid, decl, "{\"dtype\": \"Int\"}, {\"name\": \"i"), false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_NE(c.text, text);
    ReadStats st = expectSameOnAnyThreadCount(c.text, c.what);
    EXPECT_EQ(readText(c.text, chunked(3)).fusion.has_value(), c.valid);
    EXPECT_EQ(st.plain_scalars_in_parallel, c.plain);
    // A valid text keeps its split (errors read the whole text again).
    EXPECT_EQ(st.split_arrays, c.valid ? 4u : 0u);
  }
}

// Exprs before tensors, tensors before scalars: every name is a forward
// reference, so chunks give up and the one-thread reader resolves them.
TEST(ReaderParallel, ForwardReferencesAreResolvedAsOnOneThread) {
  synth::TransformerOptions o;
  o.exprs = 500;
  std::string text = writeFusion(synth::transformer(o));
  size_t sc = text.find("  \"scalars\""), te = text.find("  \"tensors\""), ex = text.find("  \"exprs\""),
         in = text.find("  \"inputs\"");
  ASSERT_TRUE(sc < te && te < ex && ex < in && in != std::string::npos);
  std::string reordered = text.substr(0, sc) + text.substr(ex, in - ex) + text.substr(te, ex - te) +
                          text.substr(sc, te - sc) + text.substr(in);
  EXPECT_TRUE(expectSameOnAnyThreadCount(reordered, "reordered").reread);
  auto r = readText(reordered, chunked(4));
  ASSERT_TRUE(r.fusion.has_value()) << spelledJson(r.sink.all());
  EXPECT_EQ(r.fusion->exprs.size(), readText(text, chunked(4)).fusion->exprs.size());
}

// A scalar defined in terms of a later one is a forward reference: the
// split arrays cannot be read in chunks then, and the reader reads the text
// itself, on one thread for those arrays, with the one-thread result.
TEST(ReaderParallel, ASplitTextThatCannotBeChunkedIsReadWhole) {
  synth::TransformerOptions o;
  o.exprs = 800;
  std::string text = writeFusion(synth::transformer(o));
  std::string forward =
      replaceFrom(text, 0, "\"scalars\": [", "\"scalars\": [{\"name\": \"early\", \"value\": \"i0 + 1\"}, ");
  ReadStats st = expectSameOnAnyThreadCount(forward, "forward scalar reference");
  EXPECT_EQ(st.split_arrays, 0u);
  EXPECT_EQ(st.chunked_arrays, 0u);
  EXPECT_FALSE(st.reread);
  auto r = readText(forward, chunked(3));
  ASSERT_TRUE(r.fusion.has_value()) << spelledJson(r.sink.all());
  EXPECT_EQ(r.fusion->tensors.size(), readText(text, chunked(3)).fusion->tensors.size());
}

}  // namespace
}  // namespace fc
