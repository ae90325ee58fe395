// What nvFuser prints for one of its checks at a point: the check's site
// (file:line at that commit, history.h) and its message laid out by the
// macro format of that date, with the names fusecheck has for the values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "pipeline/profile.h"

namespace fc {

// The citation of `ref` for `p`; nullopt when the check does not exist at
// that point (nor an earlier wording of it).
std::optional<Citation> citeCheck(const Profile& p, const CheckRef& ref);

// Gives every diagnostic that names a check its citation, and a note
// `<path> raises at <file>:<line> @ <commit>: "<message>"`.
void citeDiagnostics(const Profile& p, std::vector<Diagnostic>& diags);

// Every message template of the checks, with the check's name (explain --error).
struct CheckMessage {
  std::string check;
  std::string message;  // the template, <placeholders> for values
};
std::vector<CheckMessage> checkMessages();

}  // namespace fc
