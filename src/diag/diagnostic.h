// Diagnostic values: severity, stable code, message, location
// (file, typed place, JSON pointer, line:col) and notes with their own
// locations. Passes produce these as data; renderers (text, JSON, SARIF)
// turn them into text.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diag/place.h"

namespace fc {

enum class DiagCode : uint16_t {
#define FC_DIAG(E, CODE, SLUG, SUMMARY) E,
#include "diag/codes.def"
#undef FC_DIAG
};

struct DiagCodeInfo {
  DiagCode code;
  std::string_view id;    // "FC0301"
  std::string_view slug;  // "unbound-extent"
  std::string_view summary;
};
const DiagCodeInfo& diagCodeInfo(DiagCode c);
const std::vector<DiagCodeInfo>& allDiagCodes();

// NotDecided: the model cannot decide what nvFuser does here (exit 5).
enum class Severity : uint8_t { Error, Warning, Note, Remark, NotDecided };
std::string_view severityName(Severity s);

// Code above io/ says where with a typed place; io/ gives the location its
// pointer (renderPlaces, io/place_pointer.h) and line:col (fillLocations,
// fillSourcePositions) before a renderer prints it. io/'s readers, which
// know the document, set pointers directly.
struct Location {
  Location() = default;
  Location(std::string f, std::string p = {}, int l = 0, int c = 0)
      : file(std::move(f)), pointer(std::move(p)), line(l), col(c) {}

  std::string file;     // path as given on the command line; empty: none
  std::string pointer;  // RFC 6901 JSON pointer; empty: whole document
  int line = 0;         // 1-based; 0: unknown
  int col = 0;          // 1-based; 0: unknown
  Place place;          // empty: none (or the pointer alone says where)
  bool known() const { return line > 0; }
  // Whether io/ has spelled the place (or there is none to spell).
  bool rendered() const { return place.empty() || !pointer.empty(); }
  static Location at(std::string file, const Place& p) {
    Location l;
    l.file = std::move(file);
    l.place = p;
    return l;
  }
};

struct Note {
  std::string kind = "note";  // "note", or "fix[name]" for fix suggestions
  std::string message;
  Location loc;  // optional
};

// The nvFuser check a finding stands for, by name (pipeline/history.h's
// checks), with the values its message prints; the pipeline turns it into a
// Citation for the point and path it replays.
struct CheckRef {
  std::string name;
  std::vector<std::pair<std::string, std::string>> values;  // placeholder -> text
};

// Where nvFuser raises it, and what it prints, on the path replayed.
struct Citation {
  std::string check;  // "ConcretizeExtent"
  std::string file;   // "csrc/dynamic_transform.cpp"
  int line = 0;
  std::string commit;   // the point replayed (full hash)
  std::string message;  // the text nvFuser prints, names as fusecheck has them
  std::string path;     // "nvFuser 2024-06-30 (4e7365d18), C++ MultiDeviceExecutor ..."
};

struct Diagnostic {
  Severity severity = Severity::Error;
  DiagCode code = DiagCode::Usage;
  std::string message;
  Location loc;
  std::vector<Note> notes;
  std::optional<CheckRef> check;
  std::optional<Citation> nvfuser;

  Diagnostic& note(std::string msg, Location l = {}) {
    notes.push_back(Note{"note", std::move(msg), std::move(l)});
    return *this;
  }
};

// Collects diagnostics in report order.
class DiagnosticSink {
 public:
  Diagnostic& report(Severity sev, DiagCode code, std::string message, Location loc = {});
  Diagnostic& error(DiagCode code, std::string message, Location loc = {}) {
    return report(Severity::Error, code, std::move(message), std::move(loc));
  }
  const std::vector<Diagnostic>& all() const { return diags_; }
  std::vector<Diagnostic>& all() { return diags_; }
  size_t errorCount() const;
  bool hasErrors() const { return errorCount() > 0; }
  void clear() { diags_.clear(); }
  // Moves `other`'s diagnostics after this sink's (a worker thread's sink
  // merged in report order).
  void append(DiagnosticSink&& other) {
    diags_.insert(diags_.end(), std::make_move_iterator(other.diags_.begin()),
                  std::make_move_iterator(other.diags_.end()));
    other.diags_.clear();
  }

 private:
  std::vector<Diagnostic> diags_;
};

// The renderers' precondition: every location of `diags` (and of their
// notes) is rendered(); an internal error otherwise, naming the diagnostic.
void checkPlacesRendered(const std::vector<Diagnostic>& diags);

// RFC 6901 pointer building: JsonPointer().key("tensors").index(5).str()
// == "/tensors/5".
class JsonPointer {
 public:
  JsonPointer() = default;
  explicit JsonPointer(std::string p) : p_(std::move(p)) {}
  JsonPointer key(std::string_view k) const;
  JsonPointer index(size_t i) const;
  const std::string& str() const { return p_; }

 private:
  std::string p_;
};

}  // namespace fc
