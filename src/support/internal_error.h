// The internal-invariant channel. A broken invariant is a bug in fusecheck,
// never a problem with the user's input: it is reported separately from
// diagnostics and maps to exit code 4.
#pragma once

#include <stdexcept>
#include <string>

namespace fc {

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};

[[noreturn]] void internalError(const char* file, int line, const std::string& msg);

}  // namespace fc

#define FC_CHECK(cond, msg)                                                                                 \
  do {                                                                                                      \
    if (!(cond)) ::fc::internalError(__FILE__, __LINE__, std::string("check failed: " #cond ": ") + (msg)); \
  } while (0)
