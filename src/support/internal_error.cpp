#include "support/internal_error.h"

namespace fc {

void internalError(const char* file, int line, const std::string& msg) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": " + msg);
}

}  // namespace fc
