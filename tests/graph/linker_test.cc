// LinkIssue: one test per evidence kind and per pitfall of design.md s5.
#include "fixgraph/graph/linker.h"

#include "graph_fixture.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

using testing::GraphTest;

const FixLink* Fix(const IssueLinks& l, const std::string& pr) { return l.FindFix(pr); }

bool HasEvidence(const FixLink* f, EvidenceKind k) { return f && f->Has(k); }

// ---- Evidence kinds

TEST_F(GraphTest, CloseAtMergeWithNoCompetitorIsTierA) {
  AddIssue("1", "训练时 loss 出现 NaN", "step 100 之后 loss 变为 NaN", "2026-03-01T00:00:00Z",
           "2026-03-05T08:00:00Z");
  AddPull(10, "调整学习率预热", "", "2026-03-02T00:00:00Z", "2026-03-05T08:00:00Z");
  Commit();
  IssueLinks l = Link("1");
  const FixLink* f = Fix(l, P(10));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tier, Tier::kA);
  EXPECT_TRUE(HasEvidence(f, EvidenceKind::kCloseAtMerge));
  EXPECT_GE(f->confidence, 0.9);
  EXPECT_EQ(l.resolution, Resolution::kFixed);
  for (const Evidence& e : f->evidence) {
    if (e.kind == EvidenceKind::kCloseAtMerge) {
      EXPECT_EQ(e.delta_s, 0);
    }
  }
}

TEST_F(GraphTest, ClosingKeywordIsBWithoutTimingAndAWithIt) {
  AddIssue("2", "a", "", "2026-03-01T00:00:00Z", "2026-03-09T00:00:00Z");
  AddIssue("3", "b", "", "2026-03-01T00:00:00Z", "2026-03-04T00:00:03Z");
  AddPull(11, "one", "Fixes #2", "2026-03-02T00:00:00Z", "2026-03-04T00:00:00Z");
  AddPull(12, "two", "修复 #3", "2026-03-02T00:00:00Z", "2026-03-04T00:00:00Z");
  Commit();
  const IssueLinks a = Link("2");
  ASSERT_NE(Fix(a, P(11)), nullptr);
  EXPECT_EQ(Fix(a, P(11))->tier, Tier::kB);
  EXPECT_TRUE(HasEvidence(Fix(a, P(11)), EvidenceKind::kClosingKeyword));
  const IssueLinks b = Link("3");
  ASSERT_NE(Fix(b, P(12)), nullptr);
  EXPECT_EQ(Fix(b, P(12))->tier, Tier::kA);  // the close 3 s after the merge corroborates
  EXPECT_TRUE(HasEvidence(Fix(b, P(12)), EvidenceKind::kCloseAtMerge));
}

TEST_F(GraphTest, ExplicitUrlAndExplicitRef) {
  AddIssue("4", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddIssue("5", "b", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(13, "x", "关联 issue：https://gitcode.com/o/r/issues/4", "2026-03-02T00:00:00Z",
          "2026-03-03T00:00:00Z");
  AddPull(14, "y", "关联 #5", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  Commit();
  EXPECT_TRUE(HasEvidence(Fix(Link("4"), P(13)), EvidenceKind::kExplicitUrl));
  const IssueLinks l = Link("5");
  EXPECT_TRUE(HasEvidence(Fix(l, P(14)), EvidenceKind::kExplicitRef));
  EXPECT_EQ(Fix(l, P(14))->tier, Tier::kB);
}

TEST_F(GraphTest, PlatformLink) {
  AddIssue("6", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(15, "x", "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddPlatformLink(IssueRef("6"), PullRef(15));
  Commit();
  const IssueLinks l = Link("6");
  EXPECT_TRUE(HasEvidence(Fix(l, P(15)), EvidenceKind::kPlatformLink));
  EXPECT_EQ(Fix(l, P(15))->tier, Tier::kB);
}

TEST_F(GraphTest, BranchNameCountsOnlyForBranchesMadeAfterTheIssue) {
  AddIssue("31", "a", "", "2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z");
  AddPull(16, "x", "", "2026-03-02T00:00:00Z", "2026-03-05T00:00:00Z", "", "main",
          "issue-31-mhc-triton");
  AddPull(17, "y", "", "2026-02-20T00:00:00Z", "2026-03-06T00:00:00Z", "", "main", "fix/31");
  Commit();
  const IssueLinks l = Link("31");
  EXPECT_TRUE(HasEvidence(Fix(l, P(16)), EvidenceKind::kBranchName));
  EXPECT_EQ(Fix(l, P(17)), nullptr);  // the branch predates the issue: a coincidence
}

TEST_F(GraphTest, CommentRefFromAnIssueComment) {
  AddIssue("7", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(18, "x", "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddComment(IssueRef("7"), "c1", "maint", "fixed by !18，已合入", "2026-03-04T00:00:00Z");
  Commit();
  const IssueLinks l = Link("7");
  EXPECT_TRUE(HasEvidence(Fix(l, P(18)), EvidenceKind::kCommentRef));
  EXPECT_EQ(Fix(l, P(18))->tier, Tier::kB);
}

TEST_F(GraphTest, TitleMatchIsTierC) {
  AddIssue("8", "OVERVIEW.md 需要补充免责声明", "缺少免责声明章节", "2026-03-01T00:00:00Z",
           "2026-03-10T00:00:00Z");
  AddPull(19, "OVERVIEW.md 补充免责声明", "新增免责声明章节", "2026-03-02T00:00:00Z",
          "2026-03-03T00:00:00Z");
  AddPull(20, "CI：升级依赖版本", "", "2026-03-02T00:00:00Z", "2026-03-04T00:00:00Z");
  Commit();
  const IssueLinks l = Link("8");
  ASSERT_NE(Fix(l, P(19)), nullptr);
  EXPECT_EQ(Fix(l, P(19))->tier, Tier::kC);
  EXPECT_TRUE(HasEvidence(Fix(l, P(19)), EvidenceKind::kTitleMatch));
  EXPECT_EQ(Fix(l, P(20)), nullptr);
}

TEST_F(GraphTest, PatchOverlapOnTheFileTheTracebackNames) {
  AddIssue("9", "GroupedLinear 反向 dgrad 崩溃",
           "```\nFile \"transformer_engine/pytorch/module/grouped_linear.py\", line 356\n"
           "ValueError: columnwise data of weight is None\n```",
           "2026-03-01T00:00:00Z", "2026-03-12T00:00:00Z");
  PullRequest p = AddPull(21, "修复 GroupedLinear dgrad 拿不到 columnwise 权重", "",
                          "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddFile(p.ref(), "transformer_engine/pytorch/module/grouped_linear.py",
          "+    columnwise_usage = True\n");
  PullRequest other =
      AddPull(22, "docs: 更新 README", "", "2026-03-02T00:00:00Z", "2026-03-04T00:00:00Z");
  AddFile(other.ref(), "README.md", "+ docs\n");
  AddComment(IssueRef("9"), "c1", "maint", "main 已包含修复，关闭。", "2026-03-11T23:00:00Z");
  Commit();
  const IssueLinks l = Link("9");
  ASSERT_NE(Fix(l, P(21)), nullptr);
  EXPECT_TRUE(HasEvidence(Fix(l, P(21)), EvidenceKind::kPatchOverlap));
  EXPECT_EQ(Fix(l, P(21))->tier, Tier::kC);
  EXPECT_EQ(Fix(l, P(22)), nullptr);
  EXPECT_EQ(l.resolution, Resolution::kFixed);
  EXPECT_TRUE(l.HasFlag(Flag::kCloseLag));  // 9 days after the merge
}

TEST_F(GraphTest, VerifyCommentCloseWithAVendorFixIsFixedElsewhere) {
  AddIssue("10", "aclnnGroupedMatmulV3 报错", "x shape [1,1]", "2025-03-03T00:00:00Z",
           "2025-04-15T08:42:14Z", "user");
  AddComment(IssueRef("10"), "c1", "cann_dev", "换包对比锁定 CANN，已提 DTS2025030506797。",
             "2025-03-04T00:00:00Z");
  AddComment(IssueRef("10"), "c2", "user", "B203 包回归通过，问题已修复。", "2025-04-15T08:42:10Z");
  Commit();
  const IssueLinks l = Link("10");
  EXPECT_EQ(l.resolution, Resolution::kFixedElsewhere);
  ASSERT_EQ(l.evidence.size(), 1u);
  EXPECT_EQ(l.evidence[0].kind, EvidenceKind::kVerifyCommentClose);
  EXPECT_EQ(l.evidence[0].delta_s, 4);
  EXPECT_TRUE(l.HasFlag(Flag::kTraceless));
  ASSERT_TRUE(l.answer.has_value());
  EXPECT_EQ(l.answer->comment_id, "c1");
}

// ---- Pitfalls

TEST_F(GraphTest, HashInsideACodeBlockIsNotAReference) {
  AddIssue("12", "安装报错", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(23, "修复段错误", "gdb:\n```\n#12 0x0000 in dispatcher()\n```\n", "2026-03-02T00:00:00Z",
          "2026-03-03T00:00:00Z");
  Commit();
  EXPECT_EQ(Fix(Link("12"), P(23)), nullptr);
}

TEST_F(GraphTest, AnotherRepositorysUrlIsNotAReference) {
  AddIssue("13", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(24, "x", "来源：https://gitcode.com/o/other/issues/13", "2026-03-02T00:00:00Z",
          "2026-03-03T00:00:00Z");
  Commit();
  EXPECT_EQ(Fix(Link("13"), P(24)), nullptr);
}

TEST_F(GraphTest, AnIssueGivenAsTheReasonForASkipIsNoReference) {
  // vllm-ascend's PR 5495 skipped a test "due to" its issue 5524, named by URL on the next line;
  // the issue was fixed later by another PR.
  AddIssue("13", "xgrammar type mismatch", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(24, "Upgrade the pinned commit",
          "1. keep a test compatible\n2. Skip `test_guided_decoding.py` due to xgrammar errors\n"
          "(https://gitcode.com/o/r/issues/13)",
          "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  Commit();
  const IssueLinks l = Link("13");
  EXPECT_EQ(Fix(l, P(24)), nullptr);
  bool noted = false;
  for (const std::string& n : l.notes) noted |= n.find("reason it skips") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(GraphTest, BangNamesAPullNotAnIssue) {
  AddIssue("14", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(14, "base", "", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z");
  AddPull(25, "x", "基于 !14 修改", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  Commit();
  const IssueLinks l = Link("14");
  EXPECT_EQ(Fix(l, P(25)), nullptr);
  EXPECT_EQ(Fix(l, P(14)), nullptr);
}

TEST_F(GraphTest, ClosedUnmergedPullIsAFalseLeadNeverAFix) {
  AddIssue("15", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(26, "x", "fix #15", "2026-03-02T00:00:00Z", "", "2026-03-05T00:00:00Z");
  AddPull(27, "y", "", "2026-03-02T00:00:00Z", "");  // open, named in a comment
  AddComment(IssueRef("15"), "c1", "maint", "已提 !27", "2026-03-03T00:00:00Z");
  Commit();
  const IssueLinks l = Link("15");
  EXPECT_TRUE(l.fixes.empty());
  EXPECT_TRUE(l.HasFlag(Flag::kFalseLead));
  EXPECT_EQ(l.false_leads, (std::vector<std::string>{P(26), P(27)}));
}

TEST_F(GraphTest, BatchCloseAtAMergeSecondIsNotEvidence) {
  for (int i = 40; i < 45; ++i)
    AddIssue(std::to_string(i), "问题 " + std::to_string(i), "", "2026-01-01T00:00:00Z",
             "2026-04-08T02:00:03Z");
  AddPull(905, "CI：升级 pre-commit", "", "2026-04-07T00:00:00Z", "2026-04-08T02:00:03Z");
  Commit();
  for (int i = 40; i < 45; ++i) {
    const IssueLinks l = Link(std::to_string(i));
    EXPECT_TRUE(l.fixes.empty()) << i;
    EXPECT_EQ(l.resolution, Resolution::kStale) << i;
    ASSERT_FALSE(l.notes.empty());
    EXPECT_NE(l.notes[0].find("batch close"), std::string::npos);
  }
}

TEST_F(GraphTest, OnePullFixesTwoIssues) {
  AddIssue("16", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddIssue("17", "b", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(28, "x", "fix #16\nfix #17", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  Commit();
  EXPECT_NE(Fix(Link("16"), P(28)), nullptr);
  EXPECT_NE(Fix(Link("17"), P(28)), nullptr);
}

TEST_F(GraphTest, OneIssueNeedsTwoPulls) {
  AddIssue("18", "a", "", "2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z");
  AddPull(29, "x", "Fixes #18", "2026-03-02T00:00:00Z", "2026-03-10T00:00:00Z");
  AddPull(30, "y", "Fixes #18", "2026-03-11T00:00:00Z", "2026-03-12T00:00:00Z");
  Commit();
  const IssueLinks l = Link("18");
  ASSERT_EQ(l.fixes.size(), 2u);
  EXPECT_EQ(l.fixes[0].pr, P(29));  // tier A first
  EXPECT_EQ(l.fixes[0].tier, Tier::kA);
  EXPECT_EQ(l.fixes[1].tier, Tier::kB);
}

TEST_F(GraphTest, FixOpenedBeforeTheIssue) {
  AddIssue("19", "补充免责声明", "", "2026-03-10T00:00:00Z", "2026-03-10T00:09:00Z");
  AddPull(31, "补充免责声明", "", "2026-02-10T00:00:00Z", "2026-03-10T00:09:00Z");
  Commit();
  const IssueLinks l = Link("19");
  ASSERT_NE(Fix(l, P(31)), nullptr);
  EXPECT_EQ(Fix(l, P(31))->tier, Tier::kA);
  EXPECT_TRUE(l.HasFlag(Flag::kFixBeforeIssue));
}

TEST_F(GraphTest, CloseLagAfterTheFix) {
  AddIssue("20", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(32, "x", "fix #20", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  Commit();
  EXPECT_TRUE(Link("20").HasFlag(Flag::kCloseLag));
}

TEST_F(GraphTest, BackportToAReleaseBranch) {
  AddIssue("21", "FusedAdam 不支持 DTensor", "", "2026-03-01T00:00:00Z", "2026-03-05T00:00:00Z");
  PullRequest main = AddPull(33, "FusedAdam 支持 DTensor", "fix #21", "2026-03-02T00:00:00Z",
                             "2026-03-05T00:00:00Z");
  PullRequest rel = AddPull(34, "[release/v2.17] FusedAdam 支持 DTensor", "cherry-pick !33",
                            "2026-03-05T01:00:00Z", "2026-03-05T02:00:00Z", "", "release/v2.17");
  AddFile(main.ref(), "te/optimizers/fused_adam.py", "+ x\n");
  AddFile(rel.ref(), "te/optimizers/fused_adam.py", "+ x\n");
  Commit();
  const IssueLinks l = Link("21");
  ASSERT_NE(Fix(l, P(34)), nullptr);
  EXPECT_EQ(Fix(l, P(34))->backport_of, P(33));
  EXPECT_TRUE(l.HasFlag(Flag::kBackport));
}

TEST_F(GraphTest, CrossPlatformTargetNotInTheStore) {
  AddIssue("22", "服务化部署显存不足", "", "2025-03-05T00:00:00Z", "2025-03-21T07:30:16Z");
  AddComment(IssueRef("22"), "c1", "maint",
             "**Fix Solution**：参数初始化改在 CPU 侧。\n修复 "
             "PR：https://gitee.com/mindspore/mindformers/pulls/5672\n"
             "问题由 https://gitee.com/mindspore/mindformers/pulls/5217 引入。",
             "2025-03-12T00:00:00Z");
  AddComment(IssueRef("22"), "c2", "reporter", "回归通过。", "2025-03-21T07:30:10Z");
  Commit();
  const IssueLinks l = Link("22");
  ASSERT_EQ(l.fixes.size(), 1u);
  EXPECT_EQ(l.fixes[0].pr, "gitee:mindspore/mindformers!5672");
  EXPECT_FALSE(l.fixes[0].in_store);
  EXPECT_EQ(l.fixes[0].state, "unknown");
  EXPECT_TRUE(l.fixes[0].Has(EvidenceKind::kCommentRef));
  EXPECT_EQ(l.resolution, Resolution::kFixedElsewhere);
  EXPECT_TRUE(l.HasFlag(Flag::kCrossPlatform));
  EXPECT_FALSE(l.HasFlag(Flag::kTraceless));
  ASSERT_EQ(l.evidence.size(), 1u);  // closed 6 s after the regression comment
  EXPECT_EQ(l.evidence[0].kind, EvidenceKind::kVerifyCommentClose);
}

TEST_F(GraphTest, MirrorHostPullIsCrossPlatform) {
  AddIssue("23", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(35, "x", "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddComment(IssueRef("23"), "c1", "maint", "已在 https://atomgit.com/o/r/merge_requests/35 修复",
             "2026-03-04T00:00:00Z");
  Commit();
  const IssueLinks l = Link("23");
  EXPECT_TRUE(HasEvidence(Fix(l, P(35)), EvidenceKind::kCommentRef));
  EXPECT_TRUE(l.HasFlag(Flag::kCrossPlatform));
}

TEST_F(GraphTest, DuplicateWithFullWidthPunctuation) {
  AddIssue("30", "码控不生效", "", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z");
  AddIssue("37", "CBR 不生效", "", "2026-02-01T00:00:00Z", "2026-02-01T01:00:00Z");
  AddIssue("38", "同样的问题", "", "2026-02-01T00:00:00Z", "2026-02-01T02:00:00Z");
  AddComment(IssueRef("37"), "c1", "maint", "与 #30 重复，原因见该 issue，关闭。",
             "2026-02-01T00:59:00Z");
  AddComment(IssueRef("38"), "c2", "reporter", "同 #30，关闭。", "2026-02-01T01:59:00Z");
  Commit();
  for (const char* n : {"37", "38"}) {
    const IssueLinks l = Link(n);
    EXPECT_EQ(l.resolution, Resolution::kDuplicate) << n;
    ASSERT_TRUE(l.duplicate_of.has_value()) << n;
    EXPECT_EQ(*l.duplicate_of, IssueRef("30"));
  }
}

TEST_F(GraphTest, WontfixTakesPrecedenceOverTheStaleBot) {
  AddIssue("39", "构建命令错误", "", "2026-08-10T00:00:00Z", "2026-08-28T18:00:05Z");
  AddComment(IssueRef("39"), "c1", "official", "本仓已停止维护，后续将删除，上述问题不再修复。",
             "2026-08-17T02:00:00Z");
  AddComment(IssueRef("39"), "c2", "ascend-robot", "该 issue 长期无活动，已标记为 stale。",
             "2026-08-24T18:00:00Z");
  Commit();
  const IssueLinks l = Link("39");
  EXPECT_EQ(l.resolution, Resolution::kWontfix);
  ASSERT_TRUE(l.answer.has_value());
  EXPECT_EQ(l.answer->kind, "decline");
}

TEST_F(GraphTest, StaleBotClose) {
  AddIssue("46", "转换失败", "", "2025-08-05T00:00:00Z", "2025-11-03T19:00:10Z");
  AddComment(IssueRef("46"), "c1", "mindspore-ci-bot", "该 issue 已 60 天无更新，标记为 stale。",
             "2025-10-19T19:00:00Z");
  AddLabelEvent(IssueRef("46"), "e1", "stale", "mindspore-ci-bot", "2025-10-19T19:00:00Z");
  Commit();
  EXPECT_EQ(Link("46").resolution, Resolution::kStale);
}

TEST_F(GraphTest, AnsweredKeepsTheLinesThatSayWhatToDo) {
  AddIssue("47", "aclrtMemsetAsync 清显存很慢", "耗时 16ms", "2025-09-18T00:00:00Z",
           "2025-09-25T00:00:00Z", "user");
  AddComment(
      IssueRef("47"), "c1", "maint",
      "收到。\n建议预先准备一块已清零的 device buffer，每次用 aclrtMemcpyAsync 做 D2D 拷贝来代替 "
      "aclrtMemsetAsync。\n谢谢。",
      "2025-09-22T00:00:00Z");
  AddComment(IssueRef("47"), "c2", "user", "好的，问题解决。", "2025-09-24T00:00:00Z");
  Commit();
  const IssueLinks l = Link("47");
  EXPECT_EQ(l.resolution, Resolution::kAnswered);
  ASSERT_TRUE(l.answer.has_value());
  EXPECT_EQ(l.answer->comment_id, "c1");
  EXPECT_EQ(l.answer->author, "maint");
  EXPECT_NE(l.answer->text.find("aclrtMemcpyAsync"), std::string::npos);
  EXPECT_EQ(l.answer->text.find("谢谢"), std::string::npos);
}

TEST_F(GraphTest, SelfSolvedAnswer) {
  AddIssue("48", "解码器段错误", "", "2026-04-08T00:00:00Z", "2026-04-10T00:00:00Z", "user");
  AddComment(IssueRef("48"), "c1", "user",
             "自己解决了：priv_data 不能自己分配后覆盖，正确做法是先 aclrtSetDevice 选卡，再用 "
             "av_dict_set "
             "传 channel_id。",
             "2026-04-09T23:59:00Z");
  Commit();
  const IssueLinks l = Link("48");
  EXPECT_EQ(l.resolution, Resolution::kAnswered);
  ASSERT_TRUE(l.answer.has_value());
  EXPECT_EQ(l.answer->kind, "self_solved");
}

TEST_F(GraphTest, GitHubClosingKeywordCountsOnlyIntoTheDefaultBranch) {
  RepoRef gh{Platform::kGitHub, "org", "proj"};
  AddRepository(gh, "main");
  AddIssue("1", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z", "u", &gh);
  AddPull(2, "x", "fixes #1", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "", "dev", "", &gh);
  Commit();
  auto l = LinkIssue(*store_, Ref::Issue(gh, "1"), options_);
  ASSERT_TRUE(l.ok());
  const FixLink* f = l->FindFix(Ref::Pull(gh, 2).ToString());
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->Has(EvidenceKind::kClosingKeyword));
  EXPECT_TRUE(f->Has(EvidenceKind::kExplicitRef));
}

TEST_F(GraphTest, OpenIssueStaysOpen) {
  AddIssue("49", "性能问题", "", "2026-03-01T00:00:00Z");
  AddComment(IssueRef("49"), "c1", "maint", "麻烦提供 profiling。", "2026-03-02T00:00:00Z");
  Commit();
  const IssueLinks l = Link("49");
  EXPECT_EQ(l.resolution, Resolution::kOpen);
  EXPECT_TRUE(l.fixes.empty());
}

TEST_F(GraphTest, ReferenceOnlyCommentAndIntroducingPullAreNotFixes) {
  AddIssue("50", "CI 报告刷屏", "", "2026-03-18T00:00:00Z", "2026-03-26T09:10:09Z");
  AddPull(36, "Video 样例适配", "", "2026-03-24T00:00:00Z", "2026-03-27T00:00:00Z");
  AddPull(37, "引入新功能", "", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z");
  AddComment(IssueRef("50"), "c1", "maint",
             "流水线已经有这个能力，已开启，效果可参考 https://gitcode.com/o/r/merge_requests/36",
             "2026-03-26T09:09:40Z");
  AddComment(IssueRef("50"), "c2", "maint", "问题由 !37 引入。", "2026-03-26T09:09:50Z");
  Commit();
  const IssueLinks l = Link("50");
  EXPECT_TRUE(l.fixes.empty());
  EXPECT_EQ(l.resolution, Resolution::kFixedElsewhere);
  EXPECT_TRUE(l.HasFlag(Flag::kTraceless));
}

TEST_F(GraphTest, ARevertIsNeverAFix) {
  AddIssue("51", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  AddPull(38, "x", "fix #51", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddPull(39, "Revert \"x\"", "reverts !38, which claimed fix #51", "2026-03-04T00:00:00Z",
          "2026-03-05T00:00:00Z");
  Commit();
  const IssueLinks l = Link("51");
  EXPECT_NE(Fix(l, P(38)), nullptr);
  EXPECT_EQ(Fix(l, P(39)), nullptr);
}

TEST_F(GraphTest, ReopenedIssueUsesTheFinalClose) {
  // Closed once by hand, reopened, then closed at !41's merge: the record's
  // closed_at is the final close, so !41 is the timed fix.
  AddIssue("52", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T10:00:00Z");
  AddPull(40, "first try", "fix #52", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddPull(41, "second try", "fix #52", "2026-03-18T00:00:00Z", "2026-03-20T10:00:00Z");
  Commit();
  const IssueLinks l = Link("52");
  ASSERT_NE(Fix(l, P(41)), nullptr);
  EXPECT_EQ(Fix(l, P(41))->tier, Tier::kA);
  ASSERT_NE(Fix(l, P(40)), nullptr);
  EXPECT_EQ(Fix(l, P(40))->tier, Tier::kB);
  EXPECT_FALSE(l.HasFlag(Flag::kCloseLag));
}

TEST_F(GraphTest, NotAnIssue) {
  Commit();
  EXPECT_TRUE(LinkIssue(*store_, PullRef(1), options_).status().IsInvalidArgument());
  EXPECT_TRUE(LinkIssue(*store_, IssueRef("404"), options_).status().IsNotFound());
}

}  // namespace
}  // namespace fixgraph::graph
