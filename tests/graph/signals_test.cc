// Comment cues (graph/signals.h, private to graph/: tested white-box).
#include "../../graph/signals.h"

#include "../../graph/text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace fixgraph::graph::signals {
namespace {

TEST(Signals, Bots) {
  EXPECT_TRUE(IsBot(User{"", "mindspore-ci-bot", ""}));
  EXPECT_TRUE(IsBot(User{"", "ascend-robot", ""}));
  EXPECT_TRUE(IsBot(User{"", "dependabot[bot]", ""}));
  EXPECT_FALSE(IsBot(User{"", "abbott_li", ""}));
  EXPECT_FALSE(IsBot(User{"", "goodflower9", ""}));
}

TEST(Signals, Claims) {
  EXPECT_TRUE(ClaimsFix("已修复，关闭。"));
  EXPECT_TRUE(ClaimsFix("This has been fixed in main."));
  EXPECT_FALSE(ClaimsFix("麻烦提供 profiling。"));
  EXPECT_TRUE(ClaimsVerified("B203 包回归通过"));
  EXPECT_TRUE(ClaimsVerified("Verified on 910B."));
  EXPECT_FALSE(ClaimsVerified("明白了，谢谢解释。"));
  EXPECT_TRUE(NamesVendorFix("已提 DTS2025030506797"));
  EXPECT_TRUE(NamesVendorFix("This is fixed in CANN 8.2.RC1; please upgrade."));
  EXPECT_FALSE(NamesVendorFix("CANN 8.3.RC1，910B3"));
  EXPECT_FALSE(NamesVendorFix("DTS 跟踪"));
  // CANN and the fix must be named in one sentence (split on newlines and 。).
  EXPECT_TRUE(NamesVendorFix("升级说明。\nCANN 8.0.RC3 已修复此问题。谢谢"));
  EXPECT_FALSE(NamesVendorFix("CANN 8.0.RC3 环境。另一个问题已修复"));
  EXPECT_FALSE(NamesVendorFix("Upgraded CANN.\nThe bug is fixed in main"));
  EXPECT_TRUE(NamesVendorFix("FIXED IN cann 8.2"));
  EXPECT_TRUE(NamesServiceSide("今天随平台版本发布后生效"));
  EXPECT_TRUE(NamesServiceSide("已为 mindsdk-referenceapps 开启"));
  EXPECT_FALSE(NamesServiceSide("两个后端都能复现"));
  EXPECT_TRUE(DeclinesFix("本仓已停止维护，不再修复"));
  EXPECT_TRUE(DeclinesFix("won't fix"));
  EXPECT_FALSE(DeclinesFix("文档不做修改。"));
  EXPECT_TRUE(SaysStale("该 issue 长期无活动，已标记为 stale"));
  EXPECT_TRUE(SelfSolved("自己解决了：..."));
  EXPECT_TRUE(IsResolvedLabel("resolved"));
  EXPECT_TRUE(IsWontfixLabel("wontfix"));
  EXPECT_TRUE(IsStaleLabel("stale"));
  EXPECT_TRUE(IsDuplicateLabel("duplicate"));
}

PullRole RoleOf(const std::string& body, const std::string& ref) {
  return ClassifyPullMention(body, body.find(ref), ref.size());
}

// A caller that found the clause (CollectComments, for its evidence) gets
// the same role from it.
TEST(Signals, PullRoleFromAKnownClause) {
  for (const std::string& body :
       {std::string("问题由 !12 引入。修复 PR：!13；效果可参考 !14\nsee !15! fixed by !16"),
        std::string("caused by !3? no. 已合入 !4"), std::string("!5")}) {
    for (size_t at = body.find('!'); at != std::string::npos; at = body.find('!', at + 1)) {
      text::Clause c = text::ClauseAt(body, at);
      EXPECT_EQ(ClassifyPullMention(body, at, 3, c.begin, c.end), ClassifyPullMention(body, at, 3))
          << body << " @" << at;
    }
  }
}

TEST(Signals, SubstantiveAnswerScoreIsBothAnswers) {
  for (const char* body :
       {"", "好的", "测试帖，关闭。", "thanks!", "建议用 `aclrtMemcpyAsync` 代替",
        "需要同时加上 -rc_mode 0（CBR），单独设置 -max_bit_rate 不构成完整的码控配置。",
        "use the workaround: set HCCL_CONNECT_TIMEOUT=600 because the link is slow, then run "
        "again"}) {
    EXPECT_EQ(SubstantiveAnswerScore(body),
              IsSubstantive(body) ? AnswerScore(body) : kNotSubstantive)
        << body;
  }
}

TEST(Signals, PullRoles) {
  EXPECT_EQ(RoleOf("修复 PR：https://gitee.com/a/b/pulls/1", "https"), PullRole::kFix);
  EXPECT_EQ(RoleOf("错别字已在 !11 中修正", "!11"), PullRole::kFix);
  EXPECT_EQ(RoleOf("问题由 !5217 引入。", "!5217"), PullRole::kIntroduced);
  EXPECT_EQ(RoleOf("效果可参考 !930", "!930"), PullRole::kReferenceOnly);
  EXPECT_EQ(RoleOf("按长度分档的推理见 !1130", "!1130"), PullRole::kReferenceOnly);
  EXPECT_EQ(RoleOf("权限：!691", "!691"), PullRole::kNeutral);
}

bool Dup(const std::string& body, const std::string& ref) {
  return SaysDuplicateOf(body, body.find(ref), ref.size());
}

TEST(Signals, Duplicates) {
  EXPECT_TRUE(Dup("与 #330 重复，关闭。", "#330"));
  EXPECT_TRUE(Dup("同 #43 ,RFC 已合入", "#43"));
  EXPECT_TRUE(Dup("Duplicate of #70", "#70"));
  EXPECT_FALSE(Dup("这个可以和 #69 一起改掉", "#69"));
  EXPECT_FALSE(Dup("#12 不是重复", "#12"));
}

TEST(Signals, Answers) {
  EXPECT_FALSE(IsSubstantive("测试帖，关闭。"));
  EXPECT_TRUE(IsSubstantive(
      "需要同时加上 -rc_mode 0（CBR），单独设置 -max_bit_rate 不构成完整的码控配置。"));
  EXPECT_GT(AnswerScore("建议用 `aclrtMemcpyAsync` 代替"), AnswerScore("好的"));
  std::string body = "收到。\n建议改用 `aclrtMemcpyAsync`。\n谢谢！";
  EXPECT_EQ(ExtractAnswer(body, 600), "建议改用 `aclrtMemcpyAsync`。");
  EXPECT_EQ(ExtractAnswer("只有一句话", 600), "只有一句话");
  std::string cut = ExtractAnswer("中文中文中文中文", 7);  // cut at a character boundary
  EXPECT_EQ(cut, "中文");
}

}  // namespace
}  // namespace fixgraph::graph::signals

namespace fixgraph::graph::signals {
namespace {

TEST(ExtractAnswerMarkdown, BoldMarkersAreDroppedNotHalved) {
  std::string a =
      ExtractAnswer("**Root Cause**：显存碎片。**Fix Solution**：改为 CPU 侧 empty。", 600,
                    /*with_fix=*/true);
  EXPECT_EQ(a.find("**"), std::string::npos) << a;
  EXPECT_NE(a.find("Root Cause：显存碎片"), std::string::npos) << a;
  EXPECT_NE(a.find("改为 CPU 侧 empty"), std::string::npos) << a;
}

}  // namespace
}  // namespace fixgraph::graph::signals

namespace fixgraph::graph::signals {
namespace {

// CommentCues answers each predicate Resolve asks, from one scan.
std::uint8_t CuesOneByOne(std::string_view t) {
  return (DeclinesFix(t) ? kCueDeclinesFix : 0) | (ClaimsFix(t) ? kCueClaimsFix : 0) |
         (ClaimsVerified(t) ? kCueClaimsVerified : 0) |
         (NamesVendorFix(t) ? kCueNamesVendorFix : 0) |
         (NamesServiceSide(t) ? kCueNamesServiceSide : 0) | (NamesRootCause(t) ? kCueRootCause : 0);
}

TEST(Signals, CommentCuesAreThePredicatesInOneScan) {
  EXPECT_EQ(CommentCues("已修复，关闭。"), kCueClaimsFix | kCueClaimsVerified);
  EXPECT_EQ(CommentCues("This is fixed in CANN 8.2.RC1; please upgrade."),
            kCueClaimsFix | kCueClaimsVerified | kCueNamesVendorFix);
  EXPECT_EQ(CommentCues("Won't fix: works AS designed"), kCueDeclinesFix);
  EXPECT_EQ(CommentCues("已为你开启，平台侧处理"), kCueNamesServiceSide);
  EXPECT_EQ(CommentCues("已为你开启"), kCueNamesServiceSide);
  EXPECT_EQ(CommentCues("ROOT CAUSE found; dts2025030506797"), kCueRootCause | kCueNamesVendorFix);
  EXPECT_EQ(CommentCues("麻烦提供 profiling。"), 0);
  EXPECT_EQ(CommentCues("dts12345678"), kCueNamesVendorFix);  // eight digits, at the very end
  EXPECT_EQ(CommentCues("DTS1234567"), 0);                    // seven
  EXPECT_TRUE(NamesVendorFix("dTs12345678"));
  EXPECT_FALSE(NamesVendorFix("DTS 12345678"));
  static const std::vector<std::string> kPieces = {
      "已修复",   "修复版本",  "CANN",       "cann ",   "。",          "\n",
      "Fixed In", " is fixed", "海思",       "问题单",  "DTS",         "20250305",
      "0679",     "平台侧",    "已为",       "开启",    "won't fix",   "不修复",
      "验证通过", "根因",      "Root Cause", "已解决",  "server-side", "By Design",
      "x",        " ",         "版本修复",   "CANN 侧", "已",          "修"};
  std::mt19937_64 rng(12);
  for (int i = 0; i < 20000; ++i) {
    std::string t;
    for (int k = static_cast<int>(rng() % 10); k > 0; --k) t += kPieces[rng() % kPieces.size()];
    ASSERT_EQ(CommentCues(t), CuesOneByOne(t)) << t;
  }
}

}  // namespace
}  // namespace fixgraph::graph::signals
