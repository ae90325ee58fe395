// keepUntilExit: off (a library caller) destroys as usual; on (the CLI)
// keeps the object alive and reachable until the process ends.
#include "support/keep_until_exit.h"

#include <gtest/gtest.h>

namespace fc {
namespace {

struct Counted {
  static int live;
  Counted() { ++live; }
  Counted(Counted&&) noexcept { ++live; }
  ~Counted() { --live; }
};
int Counted::live = 0;

TEST(KeepUntilExit, DisabledDestroysAsUsualEnabledKeeps) {
  {
    Counted c;
    keepUntilExit(c);  // off by default in a library caller
  }
  EXPECT_EQ(Counted::live, 0);
  setKeepUntilExit(true);
  {
    Counted c;
    keepUntilExit(c);
  }
  setKeepUntilExit(false);
  EXPECT_EQ(Counted::live, 1);  // the moved-into copy lives on, reachable
}

}  // namespace
}  // namespace fc
