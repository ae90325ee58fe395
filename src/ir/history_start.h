// The first commit of nvFuser's main (pipeline/nvfuser_commits.tsv), where the history fusecheck
// models starts: an importer dates a repro written for nvFuser in PyTorch's tree (before that
// repository) with origin.printed_before set to it (pipeline/printed_range.h).
#pragma once

#include <string_view>

namespace fc {

inline constexpr std::string_view kHistoryFirstCommit = "831821f3ae20eb0d32dad6cb3677bef99e9bc7ff";

}  // namespace fc
