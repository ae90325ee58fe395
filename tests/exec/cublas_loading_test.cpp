// cuBLAS is loaded on first use, not at start-up (exec/cuda/cublas_api.h):
// a command that runs nothing on the GPU must not map libcublas /
// libcublasLt (0.5 s and 210 MB of start-up), and the first Blas use must
// find every entry point. Only meaningful in a CUDA build; skipped loudly
// otherwise.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#if FC_HAVE_CUDA
#include "exec/cuda/cublas_api.h"
#endif

namespace fc::exec {
namespace {

std::string runWithLoaderLog(const std::string& args) {
  std::string cmd = "LD_DEBUG=libs " + std::string(FC_CLI_PATH) + " " + args + " 2>&1 >/dev/null";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(LazyCublas, CheckDoesNotLoadCublas) {
#if !FC_HAVE_CUDA
  GTEST_SKIP() << "SKIPPED: built without CUDA; nothing links cuBLAS";
#else
  std::string log =
      runWithLoaderLog(std::string("check ") + FC_SOURCE_DIR + "/fixtures/seed/matmul_allreduce_bias.json");
  ASSERT_NE(log.find("calling init"), std::string::npos) << "LD_DEBUG gave no loader log:\n" << log;
  EXPECT_EQ(log.find("libcublas"), std::string::npos) << log;
#endif
}

TEST(LazyCublas, FirstUseResolvesEveryEntryPoint) {
#if !FC_HAVE_CUDA
  GTEST_SKIP() << "SKIPPED: built without CUDA";
#else
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  EXPECT_EQ(dlopen(soname.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr) << "cuBLAS was loaded before first use";
  const cuda::CublasApi& api = cuda::cublasApi();  // no GPU needed to load the library
  EXPECT_NE(api.create, nullptr);
  EXPECT_NE(api.destroy, nullptr);
  EXPECT_NE(api.setStream, nullptr);
  EXPECT_NE(api.gemmStridedBatchedEx, nullptr);
  ASSERT_NE(api.path, nullptr);
  EXPECT_NE(std::string(api.path).find(soname), std::string::npos) << api.path;
  EXPECT_NE(dlopen(soname.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr);
#endif
}

}  // namespace
}  // namespace fc::exec
