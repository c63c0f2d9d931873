// The evidence chain in plain words (explain.h).
#include "fixgraph/graph/explain.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace fixgraph::graph {
namespace {

class ExplainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_offset_ = DisplayOffsetMinutes();
    SetDisplayOffsetMinutes(8 * 60);
  }
  void TearDown() override { SetDisplayOffsetMinutes(saved_offset_); }

 private:
  int saved_offset_ = 0;
};

IssueLinks Rfc() {
  IssueLinks l;
  l.issue = *ParseRef("gitcode:Ascend/TransformerEngineNPU#43");
  l.state = IssueState::kClosed;
  l.created_at = *ParseTimestamp("2026-09-10T01:05:30Z").value();
  l.closed_at = *ParseTimestamp("2026-09-15T03:35:56Z").value();
  l.resolution = Resolution::kFixed;
  FixLink f;
  f.pr = "gitcode:Ascend/TransformerEngineNPU!192";
  f.tier = Tier::kA;
  f.confidence = 0.97;
  f.in_store = true;
  f.state = "merged";
  f.base_ref = "main";
  f.merged_at = l.closed_at;
  f.created_at = *ParseTimestamp("2026-09-11T01:40:00Z").value();
  f.evidence.push_back({EvidenceKind::kCloseAtMerge, "...", 0});
  f.evidence.push_back(
      {EvidenceKind::kClosingKeyword, "!192's description says it closes #43", {}});
  l.fixes.push_back(f);
  FixLink b;
  b.pr = "gitcode:Ascend/TransformerEngineNPU!193";
  b.tier = Tier::kB;
  b.confidence = 0.75;
  b.in_store = true;
  b.state = "merged";
  b.base_ref = "release/v2.17";
  b.merged_at = *ParseTimestamp("2026-09-15T08:20:33Z").value();
  b.backport_of = f.pr;
  b.evidence.push_back({EvidenceKind::kExplicitRef, "!193's description references #43", {}});
  l.fixes.push_back(b);
  l.flags = {Flag::kBackport};
  return l;
}

TEST_F(ExplainTest, FixSentence) {
  IssueLinks l = Rfc();
  EXPECT_EQ(
      ExplainFix(l, l.fixes[0]),
      "!192 (tier A, 0.97): merged 2026-09-15 11:35:56 +08:00 into main; the issue closed in the "
      "same second; !192's description says it closes #43");
  EXPECT_EQ(
      ExplainFix(l, l.fixes[1]),
      "!193 (tier B, 0.75): backport of !192 to release/v2.17, merged 2026-09-15 16:20:33 +08:00; "
      "!193's description references #43");
}

TEST_F(ExplainTest, WholeChain) {
  IssueLinks l = Rfc();
  std::vector<std::string> lines = ExplainLines(l);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "fixed: closed 2026-09-15 11:35:56 +08:00 (filed 2026-09-10 09:05:30 +08:00)");
  EXPECT_EQ(lines[3], "flag backport: !193 re-applies !192 to release/v2.17");
  EXPECT_EQ(Explain(l).back(), '\n');
}

// Times follow the display offset the caller sets (the cli sets it from
// --tz / $FIXGRAPH_TZ); the environment itself is not read here.
TEST_F(ExplainTest, TimesFollowTheDisplayOffsetSetter) {
  IssueLinks l = Rfc();
  setenv("FIXGRAPH_TZ", "+08:00", 1);
  SetDisplayOffsetMinutes(0);
  EXPECT_EQ(ExplainLines(l)[0],
            "fixed: closed 2026-09-15 03:35:56 +00:00 (filed 2026-09-10 01:05:30 +00:00)");
  unsetenv("FIXGRAPH_TZ");
  SetDisplayOffsetMinutes(-5 * 60);
  EXPECT_EQ(ExplainLines(l)[0],
            "fixed: closed 2026-09-14 22:35:56 -05:00 (filed 2026-09-09 20:05:30 -05:00)");
}

TEST_F(ExplainTest, TierDLinksReadAsLikelyNotVerified) {
  IssueLinks l = Rfc();
  l.fixes.resize(1);
  l.fixes[0].tier = Tier::kD;
  l.fixes[0].confidence = 0.2;
  l.flags.clear();
  std::vector<std::string> lines = ExplainLines(l);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[1], "no verified fixing change found");
  EXPECT_EQ(lines[2].rfind("likely fix, not verified: !192 (tier D, 0.20)", 0), 0u) << lines[2];
}

TEST_F(ExplainTest, TracelessAnswered) {
  IssueLinks l;
  l.issue = *ParseRef("gitcode:mindspore/mindspore#247");
  l.state = IssueState::kClosed;
  l.closed_at = 0;
  l.resolution = Resolution::kFixedElsewhere;
  l.flags = {Flag::kTraceless};
  l.evidence.push_back(
      {EvidenceKind::kVerifyCommentClose, "closed 4 s after the verification comment", 4});
  l.answer = Answer{"c9", "zhao_cann", 0, "CANN 已修改判定逻辑", "vendor_fix"};
  l.false_leads = {"gitcode:mindspore/mindspore!81560"};
  l.flags.insert(l.flags.begin(), Flag::kFalseLead);
  std::string text = Explain(l);
  EXPECT_NE(text.find("no fixing change found"), std::string::npos);
  EXPECT_NE(text.find("verify_comment_close: closed 4 s after"), std::string::npos);
  EXPECT_NE(text.find("flag traceless: no change found"), std::string::npos);
  EXPECT_NE(text.find("flag false_lead: referenced but never merged: !81560"), std::string::npos);
  EXPECT_NE(text.find("answer (vendor_fix, comment c9 by zhao_cann"), std::string::npos);
}

}  // namespace
}  // namespace fixgraph::graph
