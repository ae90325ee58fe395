// The repro reader (see reader.h; the format is docs/format.md): entry
// points and file reading. The reader itself is io/reader_impl.inc.
//
// One forward pass of simdjson On-Demand over the text builds the Fusion
// directly (no DOM), the two large arrays in chunks on several threads when
// the text is large; see reader_impl.inc for the design and costs.
#include "io/reader.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "io/json_locate.h"
#include "io/json_scan.h"
#include "io/json_split.h"
#include "io/json_validate.h"
#include "io/scalar_expr.h"
#include "support/internal_error.h"
#include "support/parallel.h"
#include "support/phase_times.h"
#include "support/prefault.h"

namespace fc::reader_builtin {
namespace {
namespace sj = simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::ondemand;
#include "io/reader_impl.inc"
}  // namespace
}  // namespace fc::reader_builtin

namespace fc {

std::optional<Fusion> readFusion(const SourceText& source, DiagnosticSink& sink, const ReadOptions& opts) {
  if (opts.max_bytes > 0 && source.text().size() > opts.max_bytes) {
    sink.error(DiagCode::FileTooLarge,
               "the file has " + std::to_string(source.text().size()) + " bytes, more than --max-bytes " +
                   std::to_string(opts.max_bytes),
               Location{source.path(), ""});
    return std::nullopt;
  }
  return reader_builtin::Reader(source, sink, opts).run();
}

std::optional<SourceText> readSourceFile(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    sink.error(DiagCode::FileUnreadable, "cannot read " + path + ": " + ec.message(), Location{path, ""});
    return std::nullopt;
  }
  if (max_bytes > 0 && size > max_bytes) {
    sink.error(
        DiagCode::FileTooLarge,
        "the file has " + std::to_string(size) + " bytes, more than --max-bytes " + std::to_string(max_bytes),
        Location{path, ""});
    return std::nullopt;
  }
  PhaseScope phase("load: read file");
  std::string why;
  auto text = TextBuffer::readFile(path, why);
  if (!text) {
    sink.error(DiagCode::FileUnreadable, "cannot read " + path + ": " + why, Location{path, ""});
    return std::nullopt;
  }
  return SourceText(path, std::move(*text));
}

std::optional<Fusion> readFusionFile(const std::string& path, DiagnosticSink& sink, SourceText& source_out,
                                     const ReadOptions& opts) {
  auto src = readSourceFile(path, sink, opts.max_bytes);
  if (!src) return std::nullopt;
  source_out = std::move(*src);
  return readFusion(source_out, sink, opts);
}

}  // namespace fc
