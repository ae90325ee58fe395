#include "ir/segmentation.h"

namespace fc {

std::string_view inputRewriteName(InputRewrite r) {
  return r == InputRewrite::KeepReductions ? "keep-reductions" : "strip-reductions";
}

std::optional<InputRewrite> parseInputRewrite(std::string_view s) {
  if (s == "keep-reductions") return InputRewrite::KeepReductions;
  if (s == "strip-reductions") return InputRewrite::StripReductions;
  return std::nullopt;
}

}  // namespace fc
