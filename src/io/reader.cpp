// The repro reader (see reader.h; the format is docs/format.md): the entry
// points, file reading, and one read of a text (Reader::run): split, index,
// build, finish, and when to read the text again. The reader's parts are in
// reader_*.cpp; reader_internal.h lists them and describes the design.
#include "io/reader.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "io/json_locate.h"
#include "io/json_split.h"
#include "io/json_validate.h"
#include "io/reader_internal.h"
#include "support/parallel.h"
#include "support/phase_times.h"

namespace fc::reader_detail {

std::optional<Fusion> Reader::run() {
  size_t first_diag = sink_.all().size();
  std::string_view text = src_.text();
  simdjson::padded_string copy;
  simdjson::padded_string_view view;
  static_assert(TextBuffer::kPadding >= simdjson::SIMDJSON_PADDING);
  if (src_.readableBytes() >= text.size() + simdjson::SIMDJSON_PADDING) {
    view = simdjson::padded_string_view(text.data(), text.size(), src_.readableBytes());
  } else {
    copy = simdjson::padded_string(text.data(), text.size());
    view = copy;
    // Every span read below (the split arrays' elements) must point into the padded copy:
    // spanView measures its padding from base_.
    text = std::string_view(copy.data(), copy.size());
  }
  base_ = view.data();
  capacity_ = view.capacity();
  doc_base_ = base_;
  threads_ = text.size() >= opts_.parallel_min_bytes ? threadsFor(opts_.threads) : 1;
  if (threads_ > 1 && allow_split_) {
    // Find the large arrays' elements on every core and index only the
    // rest (the skeleton); the chunk readers index each element.
    PhaseScope split_phase("load: split top-level arrays");
    if (auto split = jsonsplit::splitTopLevelArrays(text, kSplitKeys, threads_, opts_.split_min_block)) {
      split_ = std::move(*split);
      skeleton_.emplace(text, split_);
      const std::string& sk = skeleton_->text();
      view = simdjson::padded_string_view(sk.data(), sk.size(), sk.capacity());
      doc_base_ = sk.data();
      if (opts_.stats != nullptr) opts_.stats->split_arrays = static_cast<unsigned>(split_.arrays.size());
      startArenas();
    }
  }
  sj::parser parser;
  sj::document doc;
  PhaseScope index_phase("load: JSON structural index");
  auto iterated = parser.iterate(view);
  index_phase.stop();
  PhaseScope build_phase("load: build IR");
  if (auto e = std::move(iterated).get(doc)) {
    fatal(e);
  } else {
    readDocument(doc);
  }
  if (!fatal_ && errors_ == 0) finish();
  build_phase.stop();
  if (skeleton_ && !restart_ && (reread_whole_ || fatal_ || errors_ > 0)) {
    // Anything but a clean read of a split text: read the text itself, so
    // that the diagnostics are those of the reader that indexes it all.
    sink_.all().resize(first_diag);
    if (opts_.stats != nullptr) *opts_.stats = ReadStats{};
    return Reader(src_, sink_, opts_, /*allow_split=*/false).run();
  }
  if (restart_) {
    // A chunk met something other than a valid element: read the whole
    // text again on one thread, so that the diagnostics are exactly those
    // of the sequential reader.
    sink_.all().resize(first_diag);
    ReadOptions one = opts_;
    one.threads = 1;
    if (opts_.stats != nullptr) {
      opts_.stats->reread = true;
      opts_.stats->split_arrays = 0;
      opts_.stats->names_in_parallel = false;
    }
    return Reader(src_, sink_, one).run();
  }

  if (fatal_ || errors_ > 0) {
    // JSON-level problems take precedence over what we made of the text.
    if (auto p = validateJson(text)) {
      sink_.all().resize(first_diag);
      Diagnostic& d = sink_.error(p->code, p->message, Location{src_.path(), p->pointer});
      LineCol lc = src_.lineCol(p->offset);
      d.loc.line = lc.line;
      d.loc.col = lc.col;
    } else if (fatal_ && sink_.all().size() == first_diag) {
      // simdjson refused something the validator accepts: report it as is.
      sink_.error(DiagCode::JsonSyntax, "the JSON text cannot be read: " + fatal_message_,
                  Location{src_.path(), fatal_pointer_});
    }
    std::vector<Diagnostic> mine(sink_.all().begin() + static_cast<std::ptrdiff_t>(first_diag),
                                 sink_.all().end());
    fillLocations(mine, src_);
    std::copy(mine.begin(), mine.end(), sink_.all().begin() + static_cast<std::ptrdiff_t>(first_diag));
    return std::nullopt;
  }
  for (std::future<void>& arena : arenas_)
    if (arena.valid()) arena.get();  // an array that was not read in chunks
  return std::move(f_);
}

}  // namespace fc::reader_detail

namespace fc {

std::optional<Fusion> readFusion(const SourceText& source, DiagnosticSink& sink, const ReadOptions& opts) {
  if (opts.max_bytes > 0 && source.text().size() > opts.max_bytes) {
    sink.error(DiagCode::FileTooLarge,
               "the file has " + std::to_string(source.text().size()) + " bytes, more than --max-bytes " +
                   std::to_string(opts.max_bytes),
               Location{source.path(), ""});
    return std::nullopt;
  }
  return reader_detail::Reader(source, sink, opts).run();
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
