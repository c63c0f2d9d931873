// The Gitee mapper against real recorded Gitee API v5 responses
// (shared/data/gitee-recorded, BSD-2-Clause-Patent, from drone/go-scm).
#include "testutil/testutil.h"

#include "fixgraph/ingest/mapper.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace fixgraph::ingest {
namespace {

using nlohmann::json;

class GiteeRecordedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fixgraph::testing::SharedDir() + "/data/gitee-recorded";
    if (!std::filesystem::exists(dir_)) GTEST_SKIP() << "no recordings at " << dir_;
    mapper_ = NewMapper(Platform::kGitee);
    repo_ = RepoRef{Platform::kGitee, "kit101", "drone-yml-test"};
  }
  json Load(const std::string& name) {
    json j = json::parse(fixgraph::testing::ReadFile(dir_ + "/" + name), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << name << ": not JSON";
    return j;
  }
  std::string dir_;
  std::unique_ptr<Mapper> mapper_;
  RepoRef repo_;
};

TEST_F(GiteeRecordedTest, IssuesHaveAlphanumericNumbersAndFinishedAt) {
  json issues = Load("issues.json");
  ASSERT_EQ(issues.size(), 2u);
  Issue closed, open;
  ASSERT_TRUE(mapper_->MapIssue(issues[0], repo_, &closed).ok());
  ASSERT_TRUE(mapper_->MapIssue(issues[1], repo_, &open).ok());
  EXPECT_EQ(closed.number, "I4CE7W");
  EXPECT_EQ(closed.state, IssueState::kClosed);
  ASSERT_TRUE(closed.closed_at.has_value());
  EXPECT_EQ(FormatUtc(*closed.closed_at), "2021-09-29T03:05:49Z");  // +08:00 normalised
  EXPECT_EQ(closed.author.id, "1535738");
  EXPECT_EQ(closed.author.login, "kit101");
  EXPECT_EQ(closed.labels, std::vector<std::string>{"invalid"});
  EXPECT_EQ(closed.html_url, "https://gitee.com/kit101/drone-yml-test/issues/I4CE7W");
  EXPECT_EQ(open.number, "I4CD5P");
  EXPECT_EQ(open.state, IssueState::kOpen);
  EXPECT_FALSE(open.closed_at.has_value());  // finished_at: null
  EXPECT_EQ(open.comment_count, 1);
  EXPECT_EQ(open.state_detail, "待办的");
  EXPECT_EQ(open.ref().ToString(), "gitee:kit101/drone-yml-test#I4CD5P");
}

TEST_F(GiteeRecordedTest, SingleIssue) {
  Issue issue;
  ASSERT_TRUE(mapper_->MapIssue(Load("issue.json"), repo_, &issue).ok());
  EXPECT_EQ(issue.number, "I4CD5P");
  EXPECT_TRUE(issue.created_at.has_value());
}

TEST_F(GiteeRecordedTest, PullsOpenAndClosedUnmerged) {
  json pulls = Load("pulls.json");
  ASSERT_EQ(pulls.size(), 3u);
  std::vector<PullRequest> prs(3);
  for (size_t i = 0; i < 3; ++i) ASSERT_TRUE(mapper_->MapPull(pulls[i], repo_, &prs[i]).ok()) << i;
  EXPECT_EQ(prs[0].number, 6);
  EXPECT_EQ(prs[0].state, PullState::kOpen);
  EXPECT_EQ(prs[1].number, 5);
  EXPECT_EQ(prs[1].state, PullState::kClosed);
  EXPECT_FALSE(prs[1].merged());
  EXPECT_TRUE(prs[1].closed_at.has_value());
  EXPECT_FALSE(prs[1].merged_at.has_value());
  EXPECT_EQ(prs[1].head_ref, "crud");
  EXPECT_EQ(prs[1].base_ref, "master");
  EXPECT_EQ(prs[1].head_repo, "kit101/drone-yml-test");
  EXPECT_EQ(prs[2].head_ref, "feat-1");
  EXPECT_EQ(prs[0].html_url, "https://gitee.com/kit101/drone-yml-test/pulls/6");
}

TEST_F(GiteeRecordedTest, MergedPullFromWebhookPayload) {
  json hook = Load("webhooks/pr_merge.json");
  PullRequest pr;
  ASSERT_TRUE(mapper_->MapPull(hook["pull_request"], repo_, &pr).ok());
  EXPECT_EQ(pr.number, 9);
  EXPECT_EQ(pr.state, PullState::kMerged);
  ASSERT_TRUE(pr.merged_at && pr.closed_at);
  EXPECT_EQ(*pr.merged_at, *pr.closed_at);
}

TEST_F(GiteeRecordedTest, CommentsCommitsFiles) {
  Ref issue = Ref::Issue(repo_, "I4CD5P");
  Comment c;
  ASSERT_TRUE(mapper_->MapComment(Load("issue_comments.json")[0], issue, &c).ok());
  EXPECT_EQ(c.id, "6877445");
  EXPECT_EQ(c.body, "it's ok.");
  EXPECT_EQ(c.parent().ToString(), "gitee:kit101/drone-yml-test#I4CD5P");

  Ref pull = Ref::Pull(repo_, 7);
  Comment pc;
  ASSERT_TRUE(mapper_->MapComment(Load("pr_comments.json")[0], pull, &pc).ok());
  EXPECT_EQ(pc.parent_kind, ParentKind::kPull);
  EXPECT_EQ(pc.body, "test comment 1");

  Commit commit;
  ASSERT_TRUE(mapper_->MapCommit(Load("pr_commits.json")[0], pull, &commit).ok());
  EXPECT_EQ(commit.sha, "00b76e8abd51ae6a96318b3450944b32995f9158");
  EXPECT_EQ(commit.message, "add3\n");
  EXPECT_EQ(commit.author_email, "qkssk1711@163.com");
  EXPECT_EQ(commit.pr_number, 7);

  json files = Load("pr_files.json");
  ASSERT_EQ(files.size(), 4u);
  std::vector<FileChange> fc(4);
  for (size_t i = 0; i < 4; ++i) ASSERT_TRUE(mapper_->MapFile(files[i], pull, &fc[i]).ok()) << i;
  EXPECT_EQ(fc[0].status, "deleted");
  EXPECT_EQ(fc[1].status, "added");
  EXPECT_EQ(fc[1].additions, 4);        // sent as the string "4"
  EXPECT_EQ(fc[2].status, "modified");  // sent as null
  EXPECT_EQ(fc[2].additions, 6);
  EXPECT_EQ(fc[3].status, "renamed");
  EXPECT_FALSE(fc[2].patch.empty());  // patch.diff of the object form
}

TEST_F(GiteeRecordedTest, RepositoryStripsGitSuffix) {
  Repository r;
  ASSERT_TRUE(mapper_->MapRepository(Load("repo.json"), repo_, &r).ok());
  EXPECT_EQ(r.full_name, "kit101/drone-yml-test");
  EXPECT_EQ(r.html_url, "https://gitee.com/kit101/drone-yml-test");
  EXPECT_EQ(r.default_branch, "master");
}

TEST_F(GiteeRecordedTest, ErrorBodyIsNotAnIssue) {
  Issue issue;
  Status s = mapper_->MapIssue(Load("error.json"), repo_, &issue);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("number"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace fixgraph::ingest
