// C++ gtest repro import (see import_cpp_test.h).
#include "io/import_cpp_test.h"

#include "io/cpp/lexer.h"
#include "io/cpp/reader.h"
#include "io/import_paste.h"

namespace fc {

std::optional<Fusion> importCppTest(const MappedText& text, DiagnosticSink& sink, SourceMap* map) {
  MappedText plain = undiff(text, sink);
  cpp_text::Lexer lex(plain.text());
  cpp_text::Reader reader(plain, lex, sink);
  auto f = reader.run();
  if (f && map) *map = reader.sourceMap();
  if (f) f->provenance.emplace_back("imported_from", "nvfuser-cpp-test");
  return f;
}

}  // namespace fc
