// Comment cues (graph/signals.h, private to graph/: tested white-box).
#include "../../graph/signals.h"

#include <gtest/gtest.h>

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
  EXPECT_TRUE(IsSubstantive("需要同时加上 -rc_mode 0（CBR），单独设置 -max_bit_rate 不构成完整的码控配置。"));
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
  std::string a = ExtractAnswer("**Root Cause**：显存碎片。**Fix Solution**：改为 CPU 侧 empty。", 600,
                                /*with_fix=*/true);
  EXPECT_EQ(a.find("**"), std::string::npos) << a;
  EXPECT_NE(a.find("Root Cause：显存碎片"), std::string::npos) << a;
  EXPECT_NE(a.find("改为 CPU 侧 empty"), std::string::npos) << a;
}

}  // namespace
}  // namespace fixgraph::graph::signals
