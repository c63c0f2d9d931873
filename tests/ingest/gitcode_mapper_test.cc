// The GitCode mapper against payloads in the shapes the real API sends
// (reference/api.md s2): string or integer numbers, "" for unset times, hex
// user ids, /merge_requests/ URLs, close_related_issue as 0/1 or bool.
#include "fixgraph/ingest/mapper.h"

#include <gtest/gtest.h>

namespace fixgraph::ingest {
namespace {

using nlohmann::json;

const RepoRef kRepo{Platform::kGitCode, "Ascend", "msmodelslim"};

json IssueJson() {
  return json::parse(R"({
    "id": 3660127, "number": "309", "title": "量化后精度下降", "body": "运行 msmodelslim 报错 EZ9999",
    "state": "open", "issue_state": "待办的",
    "user": {"id": "65f2a8e3c1b04d0012ab34cd", "login": "alice", "name": "Alice"},
    "labels": [{"id": 1, "name": "bug", "color": "#2865E0"}],
    "html_url": "https://gitcode.com/Ascend/msmodelslim/issues/309",
    "created_at": "2026-06-24T15:42:38+08:00", "updated_at": "2026-06-25T09:00:00.479+08:00",
    "finished_at": "", "closed_at": null, "comments": 2, "unknown_field": {"x": [1, 2]}
  })");
}

json PullJson() {
  return json::parse(R"({
    "id": 99, "iid": 557, "number": 557, "title": "修复量化精度问题", "body": "fix #309",
    "state": "merged", "user": {"id": "65f2a8e3c1b04d0012ab34ce", "login": "bob"},
    "html_url": "https://gitcode.com/Ascend/msmodelslim/merge_requests/557",
    "created_at": "2026-06-25T10:00:00+08:00", "updated_at": "2026-06-26T10:00:00+08:00",
    "merged_at": "2026-06-26T09:59:58+08:00", "closed_at": "",
    "head": {"label": "fix_309", "ref": "fix_309", "sha": "abc", "repo": {"full_path": "bob/msmodelslim"}},
    "base": {"label": "master", "ref": "master"},
    "close_related_issue": 1, "merged_by": {"login": "carol"}
  })");
}

TEST(GitCodeMapper, IssueWithStringNumberAndEmptyTimes) {
  auto m = NewMapper(Platform::kGitCode);
  Issue issue;
  ASSERT_TRUE(m->MapIssue(IssueJson(), kRepo, &issue).ok());
  EXPECT_EQ(issue.number, "309");
  EXPECT_EQ(issue.state, IssueState::kOpen);
  EXPECT_FALSE(issue.closed_at.has_value());  // finished_at "" and closed_at null
  EXPECT_EQ(issue.author.id, "65f2a8e3c1b04d0012ab34cd");
  EXPECT_EQ(issue.comment_count, 2);
  EXPECT_EQ(FormatUtc(*issue.updated_at), "2026-06-25T01:00:00Z");  // milliseconds dropped
  EXPECT_EQ(issue.labels, std::vector<std::string>{"bug"});
}

TEST(GitCodeMapper, IssueNumberAsIntegerAndClosedByFinishedAt) {
  auto m = NewMapper(Platform::kGitCode);
  json j = IssueJson();
  j["number"] = 309;
  j["state"] = "closed";
  j["finished_at"] = "2026-07-01T12:00:05+08:00";
  Issue issue;
  ASSERT_TRUE(m->MapIssue(j, kRepo, &issue).ok());
  EXPECT_EQ(issue.number, "309");
  EXPECT_EQ(issue.state, IssueState::kClosed);
  EXPECT_EQ(FormatUtc(*issue.closed_at), "2026-07-01T04:00:05Z");
}

TEST(GitCodeMapper, ClosedAtFallbackWhenNoFinishedAt) {
  auto m = NewMapper(Platform::kGitCode);
  json j = IssueJson();
  j["state"] = "closed";
  j.erase("finished_at");
  j["closed_at"] = "2026-07-01T00:00:00Z";
  Issue issue;
  ASSERT_TRUE(m->MapIssue(j, kRepo, &issue).ok());
  EXPECT_EQ(FormatUtc(*issue.closed_at), "2026-07-01T00:00:00Z");
}

TEST(GitCodeMapper, OlderOpenedStateIsOpen) {
  auto m = NewMapper(Platform::kGitCode);
  json j = IssueJson();
  j["state"] = "opened";
  Issue issue;
  ASSERT_TRUE(m->MapIssue(j, kRepo, &issue).ok());
  EXPECT_EQ(issue.state, IssueState::kOpen);
}

TEST(GitCodeMapper, WrongTypesNameTheField) {
  auto m = NewMapper(Platform::kGitCode);
  Issue issue;
  json j = IssueJson();
  j["title"] = 12;
  Status s = m->MapIssue(j, kRepo, &issue);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("\"title\""), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("issue 309"), std::string::npos) << s.message();

  j = IssueJson();
  j["created_at"] = "2026-13-01T00:00:00+08:00";
  s = m->MapIssue(j, kRepo, &issue);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("created_at"), std::string::npos) << s.message();

  j = IssueJson();
  j.erase("number");
  EXPECT_FALSE(m->MapIssue(j, kRepo, &issue).ok());

  j = IssueJson();
  j["number"] = "3 09";
  EXPECT_FALSE(m->MapIssue(j, kRepo, &issue).ok());

  EXPECT_FALSE(m->MapIssue(json::array(), kRepo, &issue).ok());
}

TEST(GitCodeMapper, MergedPull) {
  auto m = NewMapper(Platform::kGitCode);
  PullRequest pr;
  ASSERT_TRUE(m->MapPull(PullJson(), kRepo, &pr).ok());
  EXPECT_EQ(pr.number, 557);
  EXPECT_EQ(pr.state, PullState::kMerged);
  EXPECT_TRUE(pr.merged());
  EXPECT_EQ(FormatUtc(*pr.merged_at), "2026-06-26T01:59:58Z");
  EXPECT_EQ(pr.closed_at, pr.merged_at);  // "" closed_at filled from merged_at
  EXPECT_EQ(pr.head_ref, "fix_309");
  EXPECT_EQ(pr.head_repo, "bob/msmodelslim");
  EXPECT_EQ(pr.base_ref, "master");
  ASSERT_TRUE(pr.close_related_issue.has_value());
  EXPECT_TRUE(*pr.close_related_issue);
  EXPECT_EQ(pr.merged_by, "carol");
  EXPECT_EQ(pr.html_url, "https://gitcode.com/Ascend/msmodelslim/merge_requests/557");
}

TEST(GitCodeMapper, OpenPullWithFlatBranchFieldsAndBoolCloseFlag) {
  auto m = NewMapper(Platform::kGitCode);
  json j = PullJson();
  j["state"] = "opened";
  j["merged_at"] = "";
  j.erase("head");
  j.erase("base");
  j["source_branch"] = "dev_x";
  j["target_branch"] = "br_release";
  j["close_related_issue"] = false;
  PullRequest pr;
  ASSERT_TRUE(m->MapPull(j, kRepo, &pr).ok());
  EXPECT_EQ(pr.state, PullState::kOpen);
  EXPECT_FALSE(pr.merged());
  EXPECT_EQ(pr.head_ref, "dev_x");
  EXPECT_EQ(pr.base_ref, "br_release");
  EXPECT_FALSE(*pr.close_related_issue);
}

TEST(GitCodeMapper, PullNumberAsStringIsAccepted) {
  auto m = NewMapper(Platform::kGitCode);
  json j = PullJson();
  j["number"] = "557";
  PullRequest pr;
  ASSERT_TRUE(m->MapPull(j, kRepo, &pr).ok());
  EXPECT_EQ(pr.number, 557);
  j["number"] = "abc";
  EXPECT_FALSE(m->MapPull(j, kRepo, &pr).ok());
}

TEST(GitCodeMapper, CommentWithTargetAndHexStringId) {
  auto m = NewMapper(Platform::kGitCode);
  json j =
      json::parse(R"({"id": "5a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "body": "已修复，见 !557",
    "comment_type": "pr_comment", "user": {"id": "65f2", "login": "bob"},
    "created_at": "2024-04-19T07:48:59.755+00:00", "updated_at": ""})");
  Comment c;
  ASSERT_TRUE(m->MapComment(j, Ref::Pull(kRepo, 557), &c).ok());
  EXPECT_EQ(c.id, "5a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
  EXPECT_EQ(c.kind, "pr_comment");
  EXPECT_EQ(FormatUtc(*c.created_at), "2024-04-19T07:48:59Z");
  EXPECT_FALSE(c.updated_at.has_value());
}

TEST(GitCodeMapper, FileWithStringCountsAndPatchObject) {
  auto m = NewMapper(Platform::kGitCode);
  json j = json::parse(R"({"sha": "1", "filename": "docs/OVERVIEW.md", "status": "modified",
    "additions": "3", "deletions": "1",
    "patch": {"diff": "@@ -1 +1,3 @@", "new_path": "docs/OVERVIEW.md", "old_path": "docs/OVERVIEW.md",
              "new_file": false, "renamed_file": false, "deleted_file": false}})");
  FileChange f;
  ASSERT_TRUE(m->MapFile(j, Ref::Pull(kRepo, 130), &f).ok());
  EXPECT_EQ(f.additions, 3);
  EXPECT_EQ(f.deletions, 1);
  EXPECT_EQ(f.patch, "@@ -1 +1,3 @@");
  j["additions"] = "three";
  Status s = m->MapFile(j, Ref::Pull(kRepo, 130), &f);
  EXPECT_NE(s.message().find("additions"), std::string::npos) << s.message();
}

TEST(GitCodeMapper, OperateLogLinksBothDirections) {
  auto m = NewMapper(Platform::kGitCode);
  json issue_event = json::parse(R"({"id": 11, "user": {"login": "bob"},
    "content": "Create issue mr links: **修复量化精度问题** #557", "action_type": "add_issue_mr_link",
    "created_at": "2026-06-25T10:00:01+08:00", "update_at": "2026-06-25T10:00:01+08:00",
    "issue_id": "3660127"})");
  OperateLogEvent e;
  ASSERT_TRUE(m->MapOperateLog(issue_event, Ref::Issue(kRepo, "309"), &e).ok());
  auto link = LinkFromOperateLog(e);
  ASSERT_TRUE(link.has_value());
  EXPECT_EQ(link->issue.ToString(), "gitcode:Ascend/msmodelslim#309");
  EXPECT_EQ(link->pull.ToString(), "gitcode:Ascend/msmodelslim!557");

  json pull_event = json::parse(R"({"id": 12, "action": "add_mr_issue_link",
    "action_type": "add_mr_issue_link", "content": "Create mr issue link: **量化后精度下降** #309",
    "merge_request_id": 99, "created_at": "2026-06-25T10:00:01+08:00"})");
  ASSERT_TRUE(m->MapOperateLog(pull_event, Ref::Pull(kRepo, 557), &e).ok());
  link = LinkFromOperateLog(e);
  ASSERT_TRUE(link.has_value());
  EXPECT_EQ(link->issue.ToString(), "gitcode:Ascend/msmodelslim#309");
  EXPECT_EQ(link->pull.ToString(), "gitcode:Ascend/msmodelslim!557");

  json label = json::parse(R"({"id": 13, "action_type": "label", "content": "add label bug #1"})");
  ASSERT_TRUE(m->MapOperateLog(label, Ref::Issue(kRepo, "309"), &e).ok());
  EXPECT_FALSE(LinkFromOperateLog(e).has_value());
}

TEST(GitCodeMapper, LinkedNumbers) {
  auto m = NewMapper(Platform::kGitCode);
  std::int64_t pr = 0;
  ASSERT_TRUE(m->LinkedPullNumber(PullJson(), &pr).ok());
  EXPECT_EQ(pr, 557);
  std::string issue;
  ASSERT_TRUE(m->LinkedIssueNumber(IssueJson(), &issue).ok());
  EXPECT_EQ(issue, "309");
  EXPECT_FALSE(m->LinkedIssueNumber(json::object(), &issue).ok());
}

// Issue 23: the shapes the real platforms send beyond the reconstructed ones.

OperateLogEvent Event(const Mapper& m, const Ref& parent, const char* text) {
  OperateLogEvent e;
  Status s = m.MapOperateLog(json::parse(text), parent, &e);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return e;
}

TEST(GitCodeMapper, OperateLogTypeOnlyInActionMakesALink) {
  auto m = NewMapper(Platform::kGitCode);
  // The 2024 shape: no action_type.
  OperateLogEvent e =
      Event(*m, Ref::Pull(kRepo, 70), R"({"id": 274531, "action": "add_mr_issue_link",
    "content": "Create mr issue link: **第24个issue** #79", "merge_request_id": 70067,
    "created_at": "2024-04-23T11:32:08.522+08:00"})");
  EXPECT_EQ(OperateLogType(e), "add_mr_issue_link");
  auto link = LinkFromOperateLog(e);
  ASSERT_TRUE(link.has_value());
  EXPECT_EQ(link->issue.ToString(), "gitcode:Ascend/msmodelslim#79");
  EXPECT_EQ(link->pull.ToString(), "gitcode:Ascend/msmodelslim!70");
}

TEST(GitCodeMapper, UnlinkEventsApplyInTimeOrder) {
  auto m = NewMapper(Platform::kGitCode);
  Ref pull = Ref::Pull(kRepo, 6);
  OperateLogEvent add = Event(*m, pull, R"({"id": 1, "action_type": "add_mr_issue_link",
    "content": "Create mr issue link: **t** #3", "created_at": "2024-04-24T10:00:00+08:00"})");
  OperateLogEvent del = Event(*m, pull, R"({"id": 2, "action": "delete_mr_issue_link",
    "content": "Delete mr issue link: **t** #3", "created_at": "2024-04-25T10:00:00+08:00"})");
  OperateLogEvent readd = Event(*m, pull, R"({"id": 3, "action_type": "add_mr_issue_link",
    "content": "Create mr issue link: **t** #3", "created_at": "2024-04-26T10:00:00+08:00"})");
  // Newest first, as the PR log is sorted by default: still applied oldest first.
  EXPECT_TRUE(LinksFromOperateLog({del, add}).empty());
  auto links = LinksFromOperateLog({readd, del, add});
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].issue.ToString(), "gitcode:Ascend/msmodelslim#3");
  // The issue side's spelling.
  Ref issue = Ref::Issue(kRepo, "3");
  OperateLogEvent iadd = Event(*m, issue, R"({"id": 7, "action_type": "add_issue_mr_link",
    "content": "Create issue mr links: **t** #6", "created_at": "2024-04-24T10:00:00+08:00"})");
  OperateLogEvent idel = Event(*m, issue, R"({"id": 8, "action_type": "delete_issue_mr_link",
    "content": "Delete issue mr links: **t** #6", "created_at": "2024-04-25T10:00:00+08:00"})");
  EXPECT_TRUE(LinksFromOperateLog({idel, iadd}).empty());
  EXPECT_EQ(LinksFromOperateLog({iadd}).size(), 1u);
}

// Across both sides' logs: the last event of a pair decides.
TEST(GitCodeMapper, UnlinkedByOperateLogAcrossBothLogs) {
  auto m = NewMapper(Platform::kGitCode);
  Ref pull = Ref::Pull(kRepo, 6);
  Ref issue = Ref::Issue(kRepo, "3");
  OperateLogEvent add = Event(*m, pull, R"({"id": 1, "action_type": "add_mr_issue_link",
    "content": "Create mr issue link: **t** #3", "created_at": "2024-04-24T10:00:00+08:00"})");
  OperateLogEvent idel = Event(*m, issue, R"({"id": 8, "action_type": "delete_issue_mr_link",
    "content": "Delete issue mr links: **t** #6", "created_at": "2024-04-25T10:00:00+08:00"})");
  OperateLogEvent readd = Event(*m, pull, R"({"id": 3, "action_type": "add_mr_issue_link",
    "content": "Create mr issue link: **t** #3", "created_at": "2024-04-26T10:00:00+08:00"})");
  auto gone = UnlinkedByOperateLog({idel, add});
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].issue, issue);
  EXPECT_EQ(gone[0].pull, pull);
  EXPECT_TRUE(UnlinkedByOperateLog({readd, idel, add}).empty());
  EXPECT_TRUE(UnlinkedByOperateLog({add}).empty());
}

TEST(GitCodeMapper, OperateLogNamesAnotherRepository) {
  auto m = NewMapper(Platform::kGitCode);
  OperateLogEvent e =
      Event(*m, Ref::Pull(kRepo, 5), R"({"id": 1, "action_type": "add_mr_issue_link",
    "content": "Create mr issue link: **x** Ascend/docs#12", "created_at": "2024-04-24T10:00:00+08:00"})");
  auto link = LinkFromOperateLog(e);
  ASSERT_TRUE(link.has_value());
  EXPECT_EQ(link->issue.ToString(), "gitcode:Ascend/docs#12");
}

TEST(GitCodeMapper, CloseTimeFromOperateLog) {
  auto m = NewMapper(Platform::kGitCode);
  Ref issue = Ref::Issue(kRepo, "5");
  OperateLogEvent c1 = Event(*m, issue, R"({"id": 1, "action_type": "closed", "content": "closed",
    "created_at": "2024-04-30T18:00:00+08:00"})");
  OperateLogEvent r = Event(*m, issue, R"({"id": 2, "action_type": "opened", "content": "reopened",
    "created_at": "2024-05-01T10:00:00+08:00"})");
  OperateLogEvent c2 = Event(*m, issue, R"({"id": 3, "action_type": "closed", "content": "closed",
    "created_at": "2024-05-02T10:00:05+08:00"})");
  EXPECT_EQ(FormatUtc(*CloseTimeFromOperateLog({c2, r, c1})), "2024-05-02T02:00:05Z");
  EXPECT_FALSE(CloseTimeFromOperateLog({c1, r}).has_value());
  EXPECT_FALSE(CloseTimeFromOperateLog({}).has_value());
}

TEST(GitCodeMapper, TimesWithoutOffsetAreChinaTimeUnlessOverridden) {
  json j = IssueJson();
  j["state"] = "closed";
  j["finished_at"] = "2024-04-24 22:27:49";
  Issue v;
  ASSERT_TRUE(NewMapper(Platform::kGitCode)->MapIssue(j, kRepo, &v).ok());
  EXPECT_EQ(FormatUtc(*v.closed_at), "2024-04-24T14:27:49Z");
  ASSERT_TRUE(NewMapper(Platform::kGitee)->MapIssue(j, kRepo, &v).ok());
  EXPECT_EQ(FormatUtc(*v.closed_at), "2024-04-24T14:27:49Z");
  MapperOptions utc;
  utc.naive_utc_offset_minutes = 0;
  ASSERT_TRUE(NewMapper(Platform::kGitCode, utc)->MapIssue(j, kRepo, &v).ok());
  EXPECT_EQ(FormatUtc(*v.closed_at), "2024-04-24T22:27:49Z");
  // An explicit offset wins.
  j["finished_at"] = "2024-04-24T22:27:49+00:00";
  ASSERT_TRUE(NewMapper(Platform::kGitCode)->MapIssue(j, kRepo, &v).ok());
  EXPECT_EQ(FormatUtc(*v.closed_at), "2024-04-24T22:27:49Z");
  EXPECT_EQ(DefaultNaiveOffsetMinutes(Platform::kGitHub), 0);
}

TEST(GitCodeMapper, LinkedItemsResolveToTheirOwnRepository) {
  auto m = NewMapper(Platform::kGitCode);
  Ref r;
  json other = json::parse(R"({"number": "1", "title": "[bug] test",
    "url": "https://api.gitcode.com/api/v5/repos/sytest/paopao/issues/1"})");
  ASSERT_TRUE(m->LinkedIssue(other, kRepo, &r).ok());
  EXPECT_EQ(r.ToString(), "gitcode:sytest/paopao#1");
  ASSERT_TRUE(m->LinkedIssue(IssueJson(), kRepo, &r).ok());  // html_url names this repository
  EXPECT_EQ(r.ToString(), "gitcode:Ascend/msmodelslim#309");
  json bare = json::parse(R"({"number": 4})");
  ASSERT_TRUE(m->LinkedPull(bare, kRepo, &r).ok());
  EXPECT_EQ(r.ToString(), "gitcode:Ascend/msmodelslim!4");
  json web =
      json::parse(R"({"number": 1, "html_url": "https://gitcode.com/test/lib/merge_requests/1"})");
  ASSERT_TRUE(m->LinkedPull(web, kRepo, &r).ok());
  EXPECT_EQ(r.ToString(), "gitcode:test/lib!1");
}

TEST(GitCodeMapper, NestedRepliesBecomeComments) {
  auto m = NewMapper(Platform::kGitCode);
  json j = json::parse(R"({"id": "8b1c", "body": "why?", "comment_type": "diff_comment",
    "diff_file": "src/a.cc", "created_at": "2024-04-24T01:10:00.000+00:00",
    "reply": [{"id": "9c2d", "body": "fixed", "created_at": "2024-04-24T02:00:00.000+00:00"},
              {"note_id": 153003, "body": "ok, fix #2", "user": {"login": "bob"}}]})");
  Ref pull = Ref::Pull(kRepo, 5);
  Comment c;
  ASSERT_TRUE(m->MapComment(j, pull, &c).ok());
  std::vector<Comment> replies;
  Status s = m->MapReplies(j, c, pull, &replies);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].id, "9c2d");
  EXPECT_EQ(replies[0].kind, "diff_comment");
  EXPECT_EQ(replies[0].path, "src/a.cc");
  EXPECT_EQ(replies[1].id, "8b1c.2");
  EXPECT_EQ(replies[1].body, "ok, fix #2");
  EXPECT_EQ(replies[1].author.login, "bob");
  json bad = j;
  bad["reply"] = "x";
  EXPECT_FALSE(m->MapReplies(bad, c, pull, &replies).ok());
}

TEST(GitCodeMapper, RelatedBranchesBecomeEvents) {
  std::vector<OperateLogEvent> events;
  Ref issue = Ref::Issue(kRepo, "4");
  ASSERT_TRUE(
      RelatedBranchEvents(json::array({"hotfix/cache-timeout", "dev"}), issue, &events).ok());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].action_type, "related_branch");
  EXPECT_EQ(events[0].content, "hotfix/cache-timeout");
  EXPECT_EQ(events[0].id, "related_branch:hotfix/cache-timeout");
  EXPECT_FALSE(RelatedBranchEvents(json::array({1}), issue, &events).ok());
}

}  // namespace
}  // namespace fixgraph::ingest
