#include "fixgraph/engine/utf8.h"

#include <gtest/gtest.h>

namespace fixgraph {
namespace {

TEST(Utf8Test, AppendEncodesEachLength) {
  std::string s;
  AppendUtf8(&s, U'a');
  AppendUtf8(&s, U'\u00e9');
  AppendUtf8(&s, U'\u663e');
  AppendUtf8(&s, U'\U0001F600');
  EXPECT_EQ(s, "a\xC3\xA9\xE6\x98\xBE\xF0\x9F\x98\x80");
}

TEST(Utf8Test, PrefixNeverEndsInsideACharacter) {
  const std::string s = "a\xE6\x98\xBE\xE5\xAD\x98";  // "a显存"
  EXPECT_EQ(Utf8Prefix(s, 100), s);
  EXPECT_EQ(Utf8Prefix(s, s.size()), s);
  EXPECT_EQ(Utf8Prefix(s, 1), "a");
  EXPECT_EQ(Utf8Prefix(s, 2), "a");
  EXPECT_EQ(Utf8Prefix(s, 3), "a");
  EXPECT_EQ(Utf8Prefix(s, 4), "a\xE6\x98\xBE");
  EXPECT_EQ(Utf8Prefix(s, 6), "a\xE6\x98\xBE");
  EXPECT_EQ(Utf8Prefix(s, 0), "");
  // A string of continuation bytes only (not UTF-8) is cut to nothing
  // rather than read past its start.
  EXPECT_EQ(Utf8Prefix("\x80\x80\x80", 2), "");
}

}  // namespace
}  // namespace fixgraph
