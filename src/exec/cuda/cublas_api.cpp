// Lazy loading of cuBLAS (see cublas_api.h).
#include "exec/cuda/cublas_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <string_view>

#include "exec/exec_error.h"

#ifndef FC_CUBLAS_LIBRARY_DIR
#define FC_CUBLAS_LIBRARY_DIR ""
#endif

namespace fc::exec::cuda {
namespace {

struct Loaded {
  CublasApi api;
  std::string path;
  std::string error;  // set when loading failed
};

template <typename Fn>
bool resolve(void* lib, const char* name, Fn* out, std::string* error) {
  void* sym = dlsym(lib, name);
  if (!sym) {
    if (error->empty()) *error = std::string("symbol ") + name + " not found: " + dlerror();
    return false;
  }
  *out = reinterpret_cast<Fn>(sym);
  return true;
}

Loaded load() {
  Loaded l;
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  std::string candidates[] = {soname, std::string(FC_CUBLAS_LIBRARY_DIR) + "/" + soname};
  void* lib = nullptr;
  std::string tried;
  for (const std::string& c : candidates) {
    if (c.front() == '/' && std::string_view(FC_CUBLAS_LIBRARY_DIR).empty()) continue;
    lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      l.path = c;
      break;
    }
    const char* e = dlerror();
    tried += (tried.empty() ? "" : "; ") + (e ? std::string(e) : c);
  }
  if (!lib) {
    l.error = "cannot load cuBLAS (" + soname + "): " + tried;
    return l;
  }
  bool ok = resolve(lib, "cublasCreate_v2", &l.api.create, &l.error) &&
            resolve(lib, "cublasDestroy_v2", &l.api.destroy, &l.error) &&
            resolve(lib, "cublasSetStream_v2", &l.api.setStream, &l.error) &&
            resolve(lib, "cublasGemmStridedBatchedEx", &l.api.gemmStridedBatchedEx, &l.error);
  if (!ok) l.error = l.path + ": " + l.error;
  return l;  // the library stays open for the life of the process
}

struct LoadedLt {
  CublasLtApi api;
  bool ok = false;
};

LoadedLt loadLt() {
  LoadedLt l;
  const std::string soname = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
  std::string candidates[] = {soname, std::string(FC_CUBLAS_LIBRARY_DIR) + "/" + soname};
  void* lib = nullptr;
  for (const std::string& c : candidates) {
    if (c.front() == '/' && std::string_view(FC_CUBLAS_LIBRARY_DIR).empty()) continue;
    if ((lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
  }
  if (!lib) return l;
  std::string e;
  l.ok = resolve(lib, "cublasLtCreate", &l.api.create, &e) &&
         resolve(lib, "cublasLtDestroy", &l.api.destroy, &e) &&
         resolve(lib, "cublasLtMatmulDescCreate", &l.api.descCreate, &e) &&
         resolve(lib, "cublasLtMatmulDescDestroy", &l.api.descDestroy, &e) &&
         resolve(lib, "cublasLtMatmulDescSetAttribute", &l.api.descSet, &e) &&
         resolve(lib, "cublasLtMatrixLayoutCreate", &l.api.layoutCreate, &e) &&
         resolve(lib, "cublasLtMatrixLayoutDestroy", &l.api.layoutDestroy, &e) &&
         resolve(lib, "cublasLtMatrixLayoutSetAttribute", &l.api.layoutSet, &e) &&
         resolve(lib, "cublasLtMatmulPreferenceCreate", &l.api.prefCreate, &e) &&
         resolve(lib, "cublasLtMatmulPreferenceDestroy", &l.api.prefDestroy, &e) &&
         resolve(lib, "cublasLtMatmulPreferenceSetAttribute", &l.api.prefSet, &e) &&
         resolve(lib, "cublasLtMatmulAlgoGetHeuristic", &l.api.heuristic, &e) &&
         resolve(lib, "cublasLtMatmul", &l.api.matmul, &e);
  return l;
}

}  // namespace

const CublasLtApi* cublasLtApi() {
  static LoadedLt loaded;
  static std::once_flag once;
  std::call_once(once, [] { loaded = loadLt(); });
  return loaded.ok ? &loaded.api : nullptr;
}

const CublasApi& cublasApi() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    loaded = load();
    loaded.api.path = loaded.path.c_str();
  });
  if (!loaded.error.empty()) fail(loaded.error, {}, DiagCode::CudaError);
  return loaded.api;
}

}  // namespace fc::exec::cuda
