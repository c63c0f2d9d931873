// LinkAll, Relink, AffectedIssues, ReadLinks and ForEachLinks.
#include "../../graph/link_codec.h"
#include "graph_fixture.h"

#include "fixgraph/graph/linker.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fixgraph::graph {
namespace {

using testing::GraphTest;

class LinkStoreTest : public GraphTest {
 protected:
  void SetUp() override {
    GraphTest::SetUp();
    AddIssue("1", "a", "", "2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z");
    AddIssue("2", "b", "", "2026-04-20T00:00:00Z", "2026-05-12T00:00:00Z");
    AddIssue("3", "c", "", "2026-03-01T00:00:00Z");
    AddPull(10, "x", "fix #1", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
    Commit();
    ASSERT_TRUE(LinkAll(store_.get(), options_, &stats_).ok());
  }
  LinkStats stats_;
};

TEST_F(LinkStoreTest, LinkAllStoresEveryIssue) {
  EXPECT_EQ(stats_.issues, 3);
  EXPECT_EQ(stats_.issues_with_fixes, 1);
  EXPECT_EQ(stats_.by_tier["B"], 1);
  EXPECT_EQ(stats_.by_resolution["open"], 1);
  EXPECT_GT(stats_.load_seconds, 0);
  EXPECT_GT(stats_.compute_seconds, 0);
  EXPECT_GT(stats_.write_seconds, 0);
  EXPECT_LE(stats_.load_seconds + stats_.compute_seconds + stats_.write_seconds, stats_.seconds);
  auto stored = ReadLinks(*store_, IssueRef("1"));
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  auto fresh = LinkIssue(*store_, IssueRef("1"), options_);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(ToJson(*stored), ToJson(*fresh));
  std::vector<std::string> seen;
  ASSERT_TRUE(ForEachLinks(*store_, &repo_, [&](const IssueLinks& l) {
                seen.push_back(l.issue.number);
                return true;
              }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"1", "2", "3"}));
  // The reverse index names the issue a PR is linked to.
  auto rev = store_->GetDerived(kPullLinksKind, PullRef(10));
  ASSERT_TRUE(rev.ok());
  std::set<std::string> linked;
  ASSERT_TRUE(DecodePullLinks(*rev, &linked).ok());
  EXPECT_EQ(linked, (std::set<std::string>{"gitcode:o/r#1"}));
  EXPECT_TRUE(ReadLinks(*store_, IssueRef("404")).status().IsNotFound());
}

TEST_F(LinkStoreTest, RelinkTouchesOnlyTheAffectedIssues) {
  auto batch = store_->NewBatch();
  PullRequest p;
  p.repo = repo_;
  p.number = 11;
  p.title = "y";
  p.body = "Fixes #2";
  p.state = PullState::kMerged;
  p.created_at = testing::T("2026-05-04T00:00:00Z");
  p.merged_at = testing::T("2026-05-05T00:00:00Z");
  p.base_ref = "main";
  ASSERT_TRUE(batch->PutPull(p, "").ok());
  std::vector<Ref> touched = batch->TouchedItems();
  ASSERT_TRUE(store_->Write(batch.get()).ok());
  ASSERT_EQ(touched, (std::vector<Ref>{PullRef(11)}));

  auto affected = AffectedIssues(*store_, touched, options_);
  ASSERT_TRUE(affected.ok());
  EXPECT_EQ(*affected, (std::vector<Ref>{IssueRef("2")}));

  std::vector<Ref> relinked;
  LinkStats stats;
  ASSERT_TRUE(Relink(store_.get(), touched, options_, &stats, &relinked).ok());
  EXPECT_EQ(relinked, (std::vector<Ref>{IssueRef("2")}));
  EXPECT_EQ(stats.issues, 1);
  auto two = ReadLinks(*store_, IssueRef("2"));
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->fixes.size(), 1u);
  EXPECT_EQ(two->fixes[0].pr, P(11));
  EXPECT_EQ(two->resolution, Resolution::kFixed);
  EXPECT_TRUE(store_->GetDerived(kPullLinksKind, PullRef(11)).ok());
}

TEST_F(LinkStoreTest, RelinkMovesTheReverseIndexWhenALinkGoesAway) {
  // !10 no longer names #1: relinking #1 through the PR drops the link.
  auto batch = store_->NewBatch();
  auto p = store_->GetPull(PullRef(10));
  ASSERT_TRUE(p.ok());
  p->body = "refactor";
  ASSERT_TRUE(batch->PutPull(*p, "").ok());
  std::vector<Ref> touched = batch->TouchedItems();
  ASSERT_TRUE(store_->Write(batch.get()).ok());
  std::vector<Ref> relinked;
  ASSERT_TRUE(Relink(store_.get(), touched, options_, nullptr, &relinked).ok());
  EXPECT_EQ(relinked, (std::vector<Ref>{IssueRef("1")}));  // found through the reverse index
  auto one = ReadLinks(*store_, IssueRef("1"));
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->fixes.empty());
  EXPECT_TRUE(store_->GetDerived(kPullLinksKind, PullRef(10)).status().IsNotFound());
}

TEST_F(LinkStoreTest, AffectedIssuesFollowCloseTimesBatchesAndComments) {
  auto batch = store_->NewBatch();
  // #4 and #5 close in the same second; !12 merges at that second.
  for (const char* n : {"4", "5"}) {
    Issue i;
    i.repo = repo_;
    i.number = n;
    i.state = IssueState::kClosed;
    i.created_at = testing::T("2026-03-01T00:00:00Z");
    i.closed_at = testing::T("2026-03-20T00:00:00Z");
    ASSERT_TRUE(batch->PutIssue(i, "").ok());
  }
  Comment c;
  c.repo = repo_;
  c.parent_kind = ParentKind::kIssue;
  c.parent_number = "3";
  c.id = "c1";
  c.body = "见 !12";
  ASSERT_TRUE(batch->PutComment(c, "").ok());
  ASSERT_TRUE(store_->Write(batch.get()).ok());
  batch = store_->NewBatch();
  PullRequest p;
  p.repo = repo_;
  p.number = 12;
  p.state = PullState::kMerged;
  p.created_at = testing::T("2026-03-19T00:00:00Z");
  p.merged_at = testing::T("2026-03-20T00:00:02Z");
  ASSERT_TRUE(batch->PutPull(p, "").ok());
  ASSERT_TRUE(store_->Write(batch.get()).ok());
  auto affected = AffectedIssues(*store_, {PullRef(12)}, options_);
  ASSERT_TRUE(affected.ok());
  EXPECT_EQ(*affected, (std::vector<Ref>{IssueRef("3"), IssueRef("4"), IssueRef("5")}));
  // A touched issue brings the issues closed in the same seconds (batch detection).
  auto from_issue = AffectedIssues(*store_, {IssueRef("4")}, options_);
  ASSERT_TRUE(from_issue.ok());
  EXPECT_EQ(*from_issue, (std::vector<Ref>{IssueRef("4"), IssueRef("5")}));
}

TEST_F(LinkStoreTest, LinkAllOfOneRepositoryLeavesOthersAlone) {
  RepoRef other{Platform::kGitee, "x", "y"};
  auto batch = store_->NewBatch();
  Issue i;
  i.repo = other;
  i.number = "IABCDE";
  i.created_at = testing::T("2026-03-01T00:00:00Z");
  ASSERT_TRUE(batch->PutIssue(i, "").ok());
  ASSERT_TRUE(store_->Write(batch.get()).ok());
  LinkStats stats;
  ASSERT_TRUE(LinkAll(store_.get(), &other, options_, &stats).ok());
  EXPECT_EQ(stats.issues, 1);
  EXPECT_TRUE(ReadLinks(*store_, Ref::Issue(other, "IABCDE")).ok());
  EXPECT_TRUE(store_->GetDerived(kPullLinksKind, PullRef(10)).ok());  // untouched
}

// LinkAll over every repository links them one at a time: a fix in another
// repository is read from the store then, and must give what linking each
// issue alone gives; link records of repositories left without issues go.
TEST_F(LinkStoreTest, LinkAllAcrossRepositoriesMatchesLinkingEachIssue) {
  RepoRef other{Platform::kGitCode, "o", "s"};
  RepoRef gone{Platform::kGitCode, "gone", "x"};
  batch_ = store_->NewBatch();
  AddRepository(other, "main");
  AddIssue("5", "crash in the add op", "", "2026-06-01T00:00:00Z", "2026-06-03T10:00:00Z",
           "reporter", &other);
  AddPull(20, "fix the add op", "Fixes o/s#5", "2026-06-02T00:00:00Z", "2026-06-03T10:00:00Z");
  AddComment(Ref::Issue(other, "5"), "77", "dev", "same as o/r#3", "2026-06-02T01:00:00Z");
  IssueLinks stale;
  stale.issue = Ref::Issue(gone, "1");
  std::string value;
  EncodeLinks(stale, &value);
  ASSERT_TRUE(batch_->PutDerived(kLinksKind, stale.issue, value).ok());
  Commit();

  LinkStats stats;
  ASSERT_TRUE(LinkAll(store_.get(), options_, &stats).ok());
  EXPECT_EQ(stats.issues, 4);
  for (const Ref& issue : {IssueRef("1"), IssueRef("2"), IssueRef("3"), Ref::Issue(other, "5")}) {
    auto stored = ReadLinks(*store_, issue);
    ASSERT_TRUE(stored.ok()) << issue.ToString() << ": " << stored.status().ToString();
    auto fresh = LinkIssue(*store_, issue, options_);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(ToJson(*stored), ToJson(*fresh)) << issue.ToString();
  }
  auto cross = ReadLinks(*store_, Ref::Issue(other, "5"));
  ASSERT_TRUE(cross.ok());
  ASSERT_EQ(cross->fixes.size(), 1u) << ToJson(*cross).dump();
  EXPECT_EQ(cross->fixes[0].pr, PullRef(20).ToString());
  auto rev = store_->GetDerived(kPullLinksKind, PullRef(20));
  ASSERT_TRUE(rev.ok());
  std::set<std::string> linked;
  ASSERT_TRUE(DecodePullLinks(*rev, &linked).ok());
  EXPECT_EQ(linked, (std::set<std::string>{"gitcode:o/s#5"}));
  EXPECT_TRUE(ReadLinks(*store_, stale.issue).status().IsNotFound());
}

}  // namespace
}  // namespace fixgraph::graph
