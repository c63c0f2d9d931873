// Resolution and timeline flags from an issue's fixes (graph/resolve.h),
// tested directly on hand-made contexts (the linker tests reach them only
// through whole stores).
#include "../../graph/resolve.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

constexpr std::int64_t kDaySeconds = 86400;

IssueContext Closed(std::int64_t created, std::int64_t closed) {
  IssueContext ctx;
  ctx.issue.repo = ParseRef("gitcode:Ascend/demo#7")->repo;
  ctx.issue.number = "7";
  ctx.issue.state = IssueState::kClosed;
  ctx.issue.created_at = created;
  ctx.issue.closed_at = closed;
  return ctx;
}

FixLink Fix(const std::string& pr, Tier tier, EvidenceKind kind, std::int64_t merged) {
  FixLink f;
  f.pr = pr;
  f.tier = tier;
  f.confidence = tier == Tier::kA ? 0.97 : tier == Tier::kB ? 0.8 : tier == Tier::kC ? 0.6 : 0.3;
  f.evidence.push_back({kind, "seen", std::nullopt});
  f.in_store = true;
  f.state = "merged";
  f.merged_at = merged;
  f.created_at = merged - 3600;
  return f;
}

TEST(Resolve, OpenIssueIsOpenWhateverItsLinks) {
  IssueContext ctx = Closed(1000, 2000);
  ctx.issue.state = IssueState::kOpen;
  IssueLinks out;
  out.fixes.push_back(Fix("gitcode:Ascend/demo!3", Tier::kB, EvidenceKind::kExplicitRef, 1500));
  Resolve(ctx, {}, &out);
  EXPECT_EQ(out.resolution, Resolution::kOpen);
  EXPECT_EQ(out.fixes.size(), 1u);
}

TEST(Resolve, ExplicitFixHereIsFixed) {
  IssueContext ctx = Closed(1000, 5000);
  IssueLinks out;
  out.fixes.push_back(Fix("gitcode:Ascend/demo!3", Tier::kA, EvidenceKind::kClosingKeyword, 5000));
  Resolve(ctx, {}, &out);
  EXPECT_EQ(out.resolution, Resolution::kFixed);
}

TEST(Resolve, ExplicitFixInAnotherRepositoryIsFixedElsewhere) {
  IssueContext ctx = Closed(1000, 5000);
  IssueLinks out;
  out.fixes.push_back(
      Fix("gitee:mindspore/mindspore!9", Tier::kB, EvidenceKind::kExplicitUrl, 4000));
  Resolve(ctx, {}, &out);
  EXPECT_EQ(out.resolution, Resolution::kFixedElsewhere);
  ComputeFlags(ctx, LinkerOptions{}, &out);
  EXPECT_TRUE(out.HasFlag(Flag::kCrossPlatform));
  EXPECT_FALSE(out.HasFlag(Flag::kTraceless));  // a change was found
}

TEST(Resolve, DuplicateDemotesItsFixesToInferred) {
  IssueContext ctx = Closed(1000, 5000);
  IssueLinks out;
  out.fixes.push_back(Fix("gitcode:Ascend/demo!3", Tier::kA, EvidenceKind::kClosingKeyword, 5000));
  ResolveFacts facts;
  facts.duplicate_of = *ParseRef("gitcode:Ascend/demo#2");
  Resolve(ctx, facts, &out);
  EXPECT_EQ(out.resolution, Resolution::kDuplicate);
  ASSERT_EQ(out.fixes.size(), 1u);
  EXPECT_EQ(out.fixes[0].tier, Tier::kD);
  EXPECT_LE(out.fixes[0].confidence, 0.35);
}

TEST(Resolve, WeakLinkAloneDoesNotMakeAFixAndIsDropped) {
  IssueContext ctx = Closed(1000, 5000);
  IssueLinks out;
  out.fixes.push_back(Fix("gitcode:Ascend/demo!3", Tier::kD, EvidenceKind::kTitleMatch, 4000));
  Resolve(ctx, {}, &out);
  EXPECT_NE(out.resolution, Resolution::kFixed);
  EXPECT_TRUE(out.fixes.empty());  // inferred links stand only when the issue was fixed here
}

TEST(Resolve, ImplicitFixHereIsFixedAndKept) {
  IssueContext ctx = Closed(1000, 5000);
  IssueLinks out;
  out.fixes.push_back(Fix("gitcode:Ascend/demo!3", Tier::kC, EvidenceKind::kPatchOverlap, 4000));
  Resolve(ctx, {}, &out);
  EXPECT_EQ(out.resolution, Resolution::kFixed);
  EXPECT_EQ(out.fixes.size(), 1u);
}

TEST(ComputeFlags, TimelineTraps) {
  // Filed at day 10, fixed by a PR merged at day 5 (before the filing),
  // closed at day 30: fix_before_issue, and the lag counts from the filing.
  IssueContext ctx = Closed(10 * kDaySeconds, 30 * kDaySeconds);
  IssueLinks out;
  out.resolution = Resolution::kFixed;
  out.fixes.push_back(
      Fix("gitcode:Ascend/demo!3", Tier::kB, EvidenceKind::kExplicitRef, 5 * kDaySeconds));
  FixLink back =
      Fix("gitcode:Ascend/demo!4", Tier::kB, EvidenceKind::kExplicitRef, 12 * kDaySeconds);
  back.backport_of = "gitcode:Ascend/demo!3";
  out.fixes.push_back(back);
  out.false_leads = {"gitcode:Ascend/demo!2"};
  ComputeFlags(ctx, LinkerOptions{}, &out);
  EXPECT_EQ(out.flags, (std::vector<Flag>{Flag::kFixBeforeIssue, Flag::kCloseLag, Flag::kFalseLead,
                                          Flag::kBackport}));

  // Closed two days after the merge: no lag; a tier-D link cannot make
  // fix_before_issue.
  IssueContext quick = Closed(10 * kDaySeconds, 14 * kDaySeconds);
  IssueLinks q;
  q.resolution = Resolution::kFixed;
  q.fixes.push_back(
      Fix("gitcode:Ascend/demo!5", Tier::kB, EvidenceKind::kExplicitRef, 12 * kDaySeconds));
  q.fixes.push_back(
      Fix("gitcode:Ascend/demo!1", Tier::kD, EvidenceKind::kTitleMatch, 2 * kDaySeconds));
  ComputeFlags(quick, LinkerOptions{}, &q);
  EXPECT_TRUE(q.flags.empty()) << q.flags.size();
}

TEST(ComputeFlags, FixedElsewhereWithoutAChangeIsTraceless) {
  IssueContext ctx = Closed(1000, 5000);
  IssueLinks out;
  out.resolution = Resolution::kFixedElsewhere;
  ComputeFlags(ctx, LinkerOptions{}, &out);
  EXPECT_EQ(out.flags, (std::vector<Flag>{Flag::kTraceless}));
}

}  // namespace
}  // namespace fixgraph::graph
