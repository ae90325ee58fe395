// The .npz container (a zip of .npy files) through libzip (see
// tensor_file.h). Entries are read in the zip's order; `name.npy` holds the
// tensor `name`. Written uncompressed, as numpy.savez does.
#include <memory>

#include "exec/exec_error.h"
#include "exec/tensor_file_detail.h"
#if FC_HAVE_LIBZIP
#include <zip.h>
#endif

namespace fc::exec::detail {

#if FC_HAVE_LIBZIP

namespace {

std::string zipError(zip_t* z) {
  const char* s = z ? zip_strerror(z) : nullptr;
  return s ? s : "unknown libzip error";
}

// The message of zip_open's error code `code`.
std::string zipOpenError(int code) {
  zip_error_t ze;
  zip_error_init_with_code(&ze, code);
  std::string why = zip_error_strerror(&ze);
  zip_error_fini(&ze);
  return why;
}

}  // namespace

TensorFile readNpz(const std::string& path, MemoryBudget* budget) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (!z) {
    fail("cannot read " + path + " as an .npz (zip) file: " + zipOpenError(err), {},
         DiagCode::TensorFileMalformed);
  }
  std::unique_ptr<zip_t, void (*)(zip_t*)> guard(z, [](zip_t* p) { zip_discard(p); });
  TensorFile out;
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(z, static_cast<zip_uint64_t>(i), 0);
    if (!name) fail(path + ": " + zipError(z), {}, DiagCode::TensorFileMalformed);
    std::string entry = name;
    std::string what = path + ": entry '" + entry + "'";
    if (entry.size() < 5 || entry.substr(entry.size() - 4) != ".npy")
      fail(what + " is not a .npy file; an .npz holds one NAME.npy per tensor", {},
           DiagCode::TensorFileMalformed);
    zip_stat_t st;
    if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
      fail(what + ": " + zipError(z), {}, DiagCode::TensorFileMalformed);
    std::string bytes(static_cast<size_t>(st.size), '\0');
    zip_file_t* zf = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
    if (!zf) fail(what + ": " + zipError(z), {}, DiagCode::TensorFileMalformed);
    zip_int64_t got = zip_fread(zf, bytes.data(), st.size);
    zip_fclose(zf);
    if (got < 0 || static_cast<zip_uint64_t>(got) != st.size)
      fail(what + ": the entry cannot be read in full", {}, DiagCode::TensorFileMalformed);
    FileTensor t = parseNpy(bytes, what, budget);
    t.name = entry.substr(0, entry.size() - 4);
    out.tensors.push_back(std::move(t));
  }
  return out;
}

void writeNpz(const std::string& path, const TensorFile& file) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  auto writeFail = [&](const std::string& why) {
    fail("cannot write " + path + ": " + why, {}, DiagCode::WriteFailed);
  };
  if (!z) {
    writeFail(zipOpenError(err));
  }
  // libzip reads the buffers at zip_close; they live until then.
  std::vector<std::string> blobs;
  blobs.reserve(file.tensors.size());
  for (const FileTensor& t : file.tensors) {
    blobs.push_back(serializeNpy(t));
    zip_source_t* src = zip_source_buffer(z, blobs.back().data(), blobs.back().size(), 0);
    if (!src) {
      std::string why = zipError(z);
      zip_discard(z);
      writeFail(why);
    }
    zip_int64_t idx = zip_file_add(z, (t.name + ".npy").c_str(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(src);
      std::string why = zipError(z);
      zip_discard(z);
      writeFail(why);
    }
    zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
  }
  if (zip_close(z) != 0) {
    std::string why = zipError(z);
    zip_discard(z);
    writeFail(why);
  }
}

#else

TensorFile readNpz(const std::string& path, MemoryBudget*) {
  fail(path +
           ": this fusecheck was built without libzip (Debian: libzip-dev), so it cannot read .npz; "
           "use a .safetensors file",
       {}, DiagCode::MissingTool);
}

void writeNpz(const std::string& path, const TensorFile&) {
  fail(path +
           ": this fusecheck was built without libzip (Debian: libzip-dev), so it cannot write .npz; "
           "use a .safetensors file",
       {}, DiagCode::MissingTool);
}

#endif

}  // namespace fc::exec::detail
