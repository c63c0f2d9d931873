// The GitHub mapper: integer numbers, closed_at, PRs inside the issue list.
#include "fixgraph/ingest/mapper.h"

#include <gtest/gtest.h>

namespace fixgraph::ingest {
namespace {

using nlohmann::json;

const RepoRef kRepo{Platform::kGitHub, "vllm-project", "vllm-ascend"};

TEST(GitHubMapper, IssueListSkipsPullRequests) {
  auto m = NewMapper(Platform::kGitHub);
  json issue = json::parse(R"({"number": 12, "title": "t", "state": "closed",
      "closed_at": "2025-01-02T03:04:05Z", "user": {"id": 42, "login": "u"}})");
  json pr_in_list = json::parse(R"({"number": 13, "pull_request": {"url": "x"}})");
  EXPECT_FALSE(m->IsPullInIssueList(issue));
  EXPECT_TRUE(m->IsPullInIssueList(pr_in_list));
  Issue out;
  ASSERT_TRUE(m->MapIssue(issue, kRepo, &out).ok());
  EXPECT_EQ(out.number, "12");
  EXPECT_EQ(out.author.id, "42");
  EXPECT_EQ(out.state, IssueState::kClosed);
  EXPECT_EQ(FormatUtc(*out.closed_at), "2025-01-02T03:04:05Z");
  EXPECT_EQ(out.html_url, "https://github.com/vllm-project/vllm-ascend/issues/12");
}

TEST(GitHubMapper, ClosedPullWithMergedAtIsMerged) {
  auto m = NewMapper(Platform::kGitHub);
  json pr = json::parse(R"({"number": 11337, "state": "closed", "merged_at": "2025-05-01T00:00:00Z",
      "closed_at": "2025-05-01T00:00:00Z", "head": {"ref": "fix-12", "sha": "s"},
      "base": {"ref": "main"}, "html_url": "https://github.com/vllm-project/vllm-ascend/pull/11337"})");
  PullRequest out;
  ASSERT_TRUE(m->MapPull(pr, kRepo, &out).ok());
  EXPECT_EQ(out.state, PullState::kMerged);
  EXPECT_EQ(out.head_ref, "fix-12");
  EXPECT_EQ(out.ref().ToString(), "github:vllm-project/vllm-ascend!11337");
  pr["merged_at"] = nullptr;
  ASSERT_TRUE(m->MapPull(pr, kRepo, &out).ok());
  EXPECT_EQ(out.state, PullState::kClosed);
}

TEST(GitHubMapper, FileRenameWithPatchString) {
  auto m = NewMapper(Platform::kGitHub);
  json f = json::parse(R"({"filename": "b.py", "previous_filename": "a.py", "status": "renamed",
      "additions": 1, "deletions": 2, "patch": "@@ -1 +1 @@"})");
  FileChange out;
  ASSERT_TRUE(m->MapFile(f, Ref::Pull(kRepo, 1), &out).ok());
  EXPECT_EQ(out.previous_filename, "a.py");
  EXPECT_EQ(out.patch, "@@ -1 +1 @@");
  EXPECT_EQ(out.deletions, 2);
}

}  // namespace
}  // namespace fixgraph::ingest
