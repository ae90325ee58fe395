// Tensor files (.safetensors, .npy, .npz) and inputs from them: round trips
// of every dtype, hand-made bytes, malformed files, and matching to a
// fusion's inputs (name, position, dtype, shape, strides, shards).
#include "exec/tensor_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "exec/file_inputs.h"
#include "io/place_pointer.h"
#include "io/reader.h"

namespace fc::exec {
namespace {

FileTensor make(const std::string& name, DType dt, Shape shape, std::vector<double> v) {
  FileTensor t;
  t.name = name;
  t.file_dtype = fileDTypeOf(dt);
  t.values = HostTensor(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.values[static_cast<int64_t>(i)] = roundTo(dt, v[i]);
  return t;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

std::string tmpPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("fc_tensor_file_test_" + name)).string();
}

DiagCode codeOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ExecError& e) {
    return e.code;
  }
  return DiagCode::Usage;
}

TEST(TensorFile, SafetensorsRoundTripsEveryDType) {
  const double inf = std::numeric_limits<double>::infinity();
  TensorFile f;
  f.metadata = {{"k", "v"}};
  f.tensors.push_back(make("b", DType::Bool, {3}, {1, 0, 1}));
  f.tensors.push_back(make("i32", DType::Int32, {2}, {-7, 2147483647}));
  f.tensors.push_back(make("i64", DType::Int, {2}, {-9007199254740992.0, 5}));
  f.tensors.push_back(make("h", DType::Half, {2, 2}, {1.0 / 3, -0.0, 65504, inf}));
  f.tensors.push_back(make("bf", DType::BFloat16, {2}, {3.14159, -1e-30}));
  f.tensors.push_back(make("f", DType::Float, {1}, {0.1}));
  f.tensors.push_back(make("d", DType::Double, {}, {0.1}));
  f.tensors.push_back(make("e4", DType::Float8_e4m3fn, {3}, {448, -0.015625, 1e6}));
  f.tensors.push_back(make("e5", DType::Float8_e5m2, {2}, {57344, 0.5}));
  std::string bytes = serializeSafetensors(f);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(n % 8, 0u);  // the header is padded to 8 bytes
  TensorFile g = parseSafetensors(bytes, "mem", nullptr);
  ASSERT_EQ(g.tensors.size(), f.tensors.size());
  EXPECT_EQ(g.metadata, f.metadata);
  for (size_t k = 0; k < f.tensors.size(); ++k) {
    EXPECT_EQ(g.tensors[k].name, f.tensors[k].name);
    EXPECT_EQ(g.tensors[k].file_dtype, f.tensors[k].file_dtype);
    EXPECT_EQ(g.tensors[k].values.shape(), f.tensors[k].values.shape());
    for (int64_t i = 0; i < f.tensors[k].values.numel(); ++i)
      EXPECT_TRUE(sameBits(g.tensors[k].values[i], f.tensors[k].values[i])) << f.tensors[k].name << " " << i;
  }
  EXPECT_EQ(g.tensors[7].values[2], 448.0);  // e4m3fn saturates
}

TEST(TensorFile, SafetensorsKnownBytes) {
  // {"x":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}} then 1.0 and -2.0 in half.
  std::string header = R"({"x":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  bytes += header;
  bytes += std::string("\x00\x3c\x00\xc0", 4);
  TensorFile g = parseSafetensors(bytes, "mem", nullptr);
  ASSERT_EQ(g.tensors.size(), 1u);
  EXPECT_EQ(g.tensors[0].values[0], 1.0);
  EXPECT_EQ(g.tensors[0].values[1], -2.0);
}

TEST(TensorFile, SafetensorsMalformed) {
  auto parse = [](std::string b) { return codeOf([&] { parseSafetensors(b, "m", nullptr); }); };
  EXPECT_EQ(parse("abc"), DiagCode::TensorFileMalformed);
  std::string big(8, '\xff');
  EXPECT_EQ(parse(big), DiagCode::TensorFileMalformed);
  auto withHeader = [](const std::string& h, const std::string& data) {
    std::string b(8, '\0');
    b[0] = static_cast<char>(h.size());
    return b + h + data;
  };
  EXPECT_EQ(parse(withHeader("{not json", "")), DiagCode::TensorFileMalformed);
  EXPECT_EQ(parse(withHeader(R"({"x":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})", std::string(8, 0))),
            DiagCode::TensorFileMalformed);
  EXPECT_EQ(parse(withHeader(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", std::string(4, 0))),
            DiagCode::TensorFileMalformed);  // 4 bytes for 2 floats
  EXPECT_EQ(parse(withHeader(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("y":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
                             std::string(8, 0))),
            DiagCode::TensorFileMalformed);  // overlap
  // An int64 beyond 2^53 does not fit an fp64.
  std::string i64(8, '\0');
  i64[7] = 0x01;
  EXPECT_EQ(parse(withHeader(R"({"x":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", i64)),
            DiagCode::TensorFileMalformed);
}

TEST(TensorFile, NpyOrdersAndByteOrder) {
  // numpy.array([[1, 2, 3], [4, 5, 6]], dtype='>i4', order='F') saved: Fortran order, big-endian.
  std::string dict = "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }";
  std::string b = "\x93NUMPY\x01";
  b += '\0';
  b += static_cast<char>(dict.size());
  b += '\0';
  b += dict;
  for (int v : {1, 4, 2, 5, 3, 6}) b += std::string{0, 0, 0, static_cast<char>(v)};
  FileTensor t = parseNpy(b, "mem", nullptr);
  EXPECT_EQ(t.values.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.values[i], i + 1);
  // Our own writer reads back, and its header length keeps the data 64-byte aligned.
  FileTensor h = make("h", DType::Half, {3}, {0.5, -1, 2});
  std::string w = serializeNpy(h);
  EXPECT_EQ((w.size() - 6) % 2, 0u);
  FileTensor r = parseNpy(w, "mem", nullptr);
  EXPECT_EQ(r.file_dtype, FileDType::F16);
  EXPECT_EQ(r.values[1], -1.0);
  EXPECT_EQ(codeOf([] { parseNpy("nope", "m", nullptr); }), DiagCode::TensorFileMalformed);
}

TEST(TensorFile, NpzRoundTripAndRefusals) {
  std::string p = tmpPath("a.npz");
  TensorFile f;
  f.tensors.push_back(make("T0", DType::Float, {2, 2}, {1, 2, 3, 4}));
  f.tensors.push_back(make("T1", DType::Bool, {2}, {1, 0}));
  writeTensorFile(p, f);
  TensorFile g = readTensorFile(p, nullptr);
  ASSERT_EQ(g.tensors.size(), 2u);
  EXPECT_EQ(g.tensors[0].name, "T0");
  EXPECT_EQ(g.tensors[0].values[3], 4.0);
  EXPECT_EQ(g.tensors[1].file_dtype, FileDType::Bool);
  std::remove(p.c_str());
  TensorFile bf;
  bf.tensors.push_back(make("x", DType::BFloat16, {1}, {1}));
  EXPECT_EQ(codeOf([&] { writeTensorFile(p, bf); }), DiagCode::TensorFormatUnsupported);
  EXPECT_EQ(codeOf([&] { writeTensorFile(tmpPath("x.pt"), bf); }), DiagCode::TensorFormatUnsupported);
  EXPECT_EQ(codeOf([&] { readTensorFile(tmpPath("missing.safetensors"), nullptr); }),
            DiagCode::TensorFileMalformed);
}

Fusion loadSeed() {
  DiagnosticSink sink;
  SourceText src;
  auto f =
      readFusionFile(std::string(FC_SOURCE_DIR) + "/fixtures/seed/matmul_allreduce_bias.json", sink, src);
  EXPECT_TRUE(f.has_value());
  return std::move(*f);
}

TEST(FileInputs, SaveThenReadGivesTheSameInputs) {
  Fusion f = loadSeed();
  World w(f);
  ScalarValues sv(f);
  RunInputs gen = generateInputs(f, w, sv, 7, 8, nullptr);
  TensorFile file = inputsToFile(f, gen, 7);
  ProvidedInputs p;
  p.global = file.tensors;
  p.source = "x.safetensors";
  ScalarValues sv2(f);
  RunInputs in = inputsFromTensors(f, w, sv2, p, 0, 8, nullptr);
  ASSERT_EQ(in.values.size(), gen.values.size());
  for (size_t k = 0; k < gen.values.size(); ++k) {
    ASSERT_EQ(in.values[k].global.shape(), gen.values[k].global.shape());
    for (int64_t i = 0; i < gen.values[k].global.numel(); ++i)
      ASSERT_TRUE(sameBits(in.values[k].global[i], gen.values[k].global[i]));
    for (size_t r = 0; r < gen.values[k].local.size(); ++r) {
      ASSERT_EQ(in.values[k].local[r].has_value(), gen.values[k].local[r].has_value());
      if (gen.values[k].local[r]) {
        EXPECT_EQ(in.values[k].local[r]->shape(), gen.values[k].local[r]->shape());
      }
    }
  }
  // By position: names that match no input.
  for (FileTensor& t : p.global) t.name = "arr_" + t.name;
  ScalarValues sv3(f);
  EXPECT_NO_THROW(inputsFromTensors(f, w, sv3, p, 0, 8, nullptr));
}

TEST(FileInputs, MismatchesAreLocatedErrors) {
  Fusion f = loadSeed();
  World w(f);
  ScalarValues sv(f);
  TensorFile file = inputsToFile(f, generateInputs(f, w, sv, 0, 8, nullptr), 0);
  auto fails = [&](const std::function<void(std::vector<FileTensor>&)>& edit) -> ExecError {
    ProvidedInputs p;
    p.global = file.tensors;
    p.source = "x.safetensors";
    edit(p.global);
    ScalarValues s(f);
    try {
      inputsFromTensors(f, w, s, p, 0, 8, nullptr);
    } catch (const ExecError& e) {
      return e;
    }
    return ExecError{DiagCode::Usage, "no error", {}};
  };
  ExecError e = fails([](auto& g) { g[0].file_dtype = FileDType::F32; });
  EXPECT_EQ(e.code, DiagCode::TensorInputMismatch);
  EXPECT_EQ(jsonPointer(e.where), "/inputs/0");
  EXPECT_NE(e.message.find("is Half but x.safetensors: tensor 'T0' is F32"), std::string::npos) << e.message;
  e = fails([](auto& g) { g.pop_back(); });  // T2 missing, matched by name
  EXPECT_EQ(e.code, DiagCode::TensorInputMismatch);
  EXPECT_NE(e.message.find("no tensor named 'T2'"), std::string::npos) << e.message;
  e = fails([](auto& g) { g[1].values = HostTensor(DType::Half, {2, 64, 65}); });
  EXPECT_EQ(e.code, DiagCode::TensorInputMismatch);
  e = fails([](auto& g) { g[2].name = "bias"; });
  EXPECT_NE(e.message.find("'bias' names no input"), std::string::npos) << e.message;
}

TEST(FileInputs, StrideZeroAxesMustRepeat) {
  Fusion f;
  ScalarId s0 = f.addConstInt(2), s1 = f.addConstInt(3);
  TensorId t = f.addTensor("T0", DType::Float, MemoryType::Global,
                           {f.addAxis(0, IterType::Iteration, ParallelType::Serial, s0),
                            f.addAxis(1, IterType::Iteration, ParallelType::Serial, s1)},
                           kNone);
  f.inputs.push_back(ValueRef::tensor(t));
  f.outputs.push_back(t);
  ConcreteInput ci;
  ci.value = ValueRef::tensor(t);
  ci.shape = {2, 3};
  ci.strides = {1, 0};
  f.concrete_inputs.push_back(ci);
  World w(f);
  ProvidedInputs p;
  p.source = "s.npz";
  p.global.push_back(make("T0", DType::Float, {2, 3}, {1, 1, 1, 2, 2, 2}));
  ScalarValues sv(f);
  EXPECT_NO_THROW(inputsFromTensors(f, w, sv, p, 0, 8, nullptr));
  p.global[0].values[4] = 5;
  ScalarValues sv2(f);
  EXPECT_EQ(codeOf([&] { inputsFromTensors(f, w, sv2, p, 0, 8, nullptr); }), DiagCode::TensorInputMismatch);
}

}  // namespace
}  // namespace fc::exec
