// Unit tests of query/log_signature.cc: which lines of a pasted log are kept
// and how they are cleaned.
#include "../../query/log_signature.h"

#include <gtest/gtest.h>

#include <string>

namespace fixgraph::query {
namespace {

// A log of `n` lines of noise around the lines given.
std::string Log(const std::string& middle, int n = 30) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += "[INFO] 2026-03-01 10:00:" + std::to_string(10 + i % 50) + " step " + std::to_string(i) +
         " ok\n";
  s += middle;
  for (int i = 0; i < n; ++i) s += "[INFO] teardown " + std::to_string(i) + "\n";
  return s;
}

TEST(LogSignatureTest, ShortQuestionIsUsedAsItIs) {
  EXPECT_FALSE(LooksLikeLog("aclnnGroupedMatmulV3 报错"));
  EXPECT_EQ(ExtractSignature("aclnnGroupedMatmulV3 报错"), "aclnnGroupedMatmulV3 报错");
}

TEST(LogSignatureTest, KeepsErrorLinesAndDropsTheirTimestampsAndPaths) {
  std::string sig = ExtractSignature(Log(
      "[ERROR] 2026-03-01 10:01:02.123 /usr/local/Ascend/driver/lib64/x.so EZ9999: inner error\n"));
  EXPECT_NE(sig.find("EZ9999: inner error"), std::string::npos) << sig;
  EXPECT_EQ(sig.find("2026-03-01"), std::string::npos) << sig;
  EXPECT_EQ(sig.find("/usr/local/Ascend"), std::string::npos) << sig;
  EXPECT_EQ(sig.find("teardown"), std::string::npos) << sig;
}

TEST(LogSignatureTest, KeepsTheLastLineOfATraceback) {
  std::string sig =
      ExtractSignature(Log("Traceback (most recent call last):\n"
                           "  File \"train.py\", line 3, in <module>\n"
                           "    main()\n"
                           "RuntimeError: call aclnnScatter failed\n"));
  EXPECT_NE(sig.find("RuntimeError: call aclnnScatter failed"), std::string::npos) << sig;
  EXPECT_EQ(sig.find("File \""), std::string::npos) << sig;
}

TEST(LogSignatureTest, LongChineseErrorLineIsCutAtACharacterBoundary) {
  // 1,000 bytes of three-byte characters: a 600-byte cut falls inside one.
  std::string line = "[ERROR] 算子执行失败";
  while (line.size() < 1000) line += "显存不足";
  std::string sig = ExtractSignature(Log(line + "\n"));
  ASSERT_FALSE(sig.empty());
  // Every kept line is valid UTF-8: no lead byte without its continuation bytes.
  for (size_t i = 0; i < sig.size();) {
    unsigned char c = static_cast<unsigned char>(sig[i]);
    size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    ASSERT_LE(i + len, sig.size()) << "cut inside a character at byte " << i;
    for (size_t k = 1; k < len; ++k)
      ASSERT_EQ(static_cast<unsigned char>(sig[i + k]) & 0xC0, 0x80)
          << "cut inside a character at byte " << i;
    i += len;
  }
  EXPECT_NE(sig.find("算子执行失败"), std::string::npos);
}

}  // namespace
}  // namespace fixgraph::query
