// The shared CJK vocabulary (engine/cjk.h).
#include "fixgraph/engine/cjk.h"

#include <gtest/gtest.h>

namespace fixgraph {
namespace {

TEST(Cjk, ScriptsNest) {
  EXPECT_TRUE(IsCjkIdeographBmp(U'显'));
  EXPECT_TRUE(IsCjkScript(U'显'));
  EXPECT_FALSE(IsCjkIdeographBmp(U'\U00020000'));  // extension B: four UTF-8 bytes
  EXPECT_TRUE(IsCjkScript(U'\U00020000'));
  EXPECT_TRUE(IsCjkScript(U'カ'));
  EXPECT_TRUE(IsCjkScript(U'한'));
  EXPECT_FALSE(IsCjkScript(U'a'));
  EXPECT_FALSE(IsCjkScript(U'，'));  // full-width punctuation is not a word
  for (char32_t c = 0; c < 0x30000; ++c)
    if (IsCjkIdeographBmp(c)) {
      ASSERT_TRUE(IsCjkScript(c)) << static_cast<unsigned>(c);
    }
}

TEST(Cjk, FunctionCharactersAreIdeographsAndTheLinkerDropsMore) {
  for (char32_t c = 0; c < 0x30000; ++c) {
    if (IsCjkFunctionChar(c)) {
      ASSERT_TRUE(IsCjkIdeographBmp(c)) << static_cast<unsigned>(c);
      ASSERT_TRUE(IsCjkLinkStopChar(c)) << static_cast<unsigned>(c);
    }
    if (IsCjkLinkStopChar(c)) {
      ASSERT_TRUE(IsCjkIdeographBmp(c)) << static_cast<unsigned>(c);
    }
  }
  EXPECT_TRUE(IsCjkFunctionChar(U'的'));
  EXPECT_FALSE(IsCjkFunctionChar(U'在'));  // 存在: searched
  EXPECT_TRUE(IsCjkLinkStopChar(U'在'));   // "在前向中": not compared
  EXPECT_FALSE(IsCjkLinkStopChar(U'显'));
}

}  // namespace
}  // namespace fixgraph
