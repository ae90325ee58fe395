// nvFuser's history as data: the switches, the changes that flip them, and
// where each nvFuser check sits, all from nvfuser_history.def; main's
// first-parent commits (nvfuser_commits.tsv) and version values
// (nvfuser_versions.tsv). The state at a commit is looked up once; nothing
// here branches on a date.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fc::nv {

// One enum per switch, its values in the order the table lists them.
#define FC_SWITCH(Name, key, Initial, doc, evidence, ...) enum class Name : uint8_t { __VA_ARGS__ };
#include "pipeline/nvfuser_history.def"

enum class Switch : uint8_t {
#define FC_SWITCH(Name, ...) Name,
#include "pipeline/nvfuser_history.def"
};

enum class Check : uint8_t {
#define FC_NVCHECK(Name, ...) Name,
#include "pipeline/nvfuser_history.def"
};

#define FC_SWITCH(...) +1
inline constexpr size_t kSwitches = 0
#include "pipeline/nvfuser_history.def"
    ;
#define FC_NVCHECK(...) +1
inline constexpr size_t kChecks = 0
#include "pipeline/nvfuser_history.def"
    ;

// The switch an enum belongs to: switchOf<DidBinding>() == Switch::DidBinding.
template <class E>
constexpr Switch switchOf();
#define FC_SWITCH(Name, ...)          \
  template <>                         \
  constexpr Switch switchOf<Name>() { \
    return Switch::Name;              \
  }
#include "pipeline/nvfuser_history.def"

struct SwitchInfo {
  std::string_view name;  // "InputRewrite"
  std::string_view key;   // "segment-input-rewrite"
  std::string_view doc;
  std::string_view initial_evidence;
  uint8_t initial = 0;
  std::vector<std::string_view> values;  // value names, in enum order
};
const SwitchInfo& switchInfo(Switch s);

// A merged change on main.
struct Change {
  Switch sw;
  uint8_t value = 0;
  int pr = 0;
  std::string_view commit;  // full hash
  std::string_view date;    // YYYY-MM-DD, UTC
  std::string_view title, evidence, effect;
  uint32_t pos = 0;  // position on main's first-parent history (oldest 0)
  std::string_view valueName() const { return switchInfo(sw).values[value]; }
  std::string shortCommit() const { return std::string(commit.substr(0, 9)); }
  // "#2487 (4afbdf52f, 2024-07-01)"
  std::string label() const;
};
// Every change, in commit order (ties: table order).
const std::vector<Change>& changes();

enum class Macro : uint8_t { None, NVF_ERROR, NVF_CHECK, NVF_THROW, TORCH_INTERNAL_ASSERT, TORCH_CHECK };

struct CheckInfo {
  std::string_view name;
  std::string_view message;  // template, <placeholders>
  std::string_view where;
};
const CheckInfo& checkInfo(Check c);

// Where a check sits from one commit on.
struct CheckSite {
  Check check;
  int pr = 0;
  std::string_view commit, date;
  std::string_view file;  // "" : the check does not exist from here on
  int line = 0;
  Macro macro = Macro::None;
  std::string_view condition;
  uint32_t pos = 0;
};

struct Commit {
  std::string_view hash;
  std::string_view date;
};
// Main's first-parent history, oldest first.
const std::vector<Commit>& commits();
// Position of a full hash in commits(), or nullopt.
std::optional<uint32_t> positionOf(std::string_view full_hash);

struct Version {
  std::string_view version;  // "0.2.6"
  std::string_view first_commit;
  std::string_view date;
};
const std::vector<Version>& versions();

// The values of every switch at a point: the last change at or before it.
struct State {
  std::array<uint8_t, kSwitches> v{};
  template <class E>
  E get() const {
    return static_cast<E>(v[static_cast<size_t>(switchOf<E>())]);
  }
};
State stateAt(uint32_t pos);

// The change that set switch `s` to its value at `pos` (nullptr: the initial value).
const Change* changeBehind(Switch s, uint32_t pos);
// The first change of switch `s` after `pos` that sets `value` (nullptr: none).
const Change* nextChangeTo(Switch s, uint8_t value, uint32_t pos);
template <class E>
const Change* nextChangeTo(E value, uint32_t pos) {
  return nextChangeTo(switchOf<E>(), static_cast<uint8_t>(value), pos);
}
template <class E>
const Change* firstChangeTo(E value) {
  return nextChangeTo(switchOf<E>(), static_cast<uint8_t>(value), 0);
}

// Where `c` sits at `pos`; nullopt where it does not exist (not yet, or no longer).
std::optional<CheckSite> checkAt(Check c, uint32_t pos);
// Every site row of `c`, in commit order.
std::vector<CheckSite> checkSites(Check c);

}  // namespace fc::nv
