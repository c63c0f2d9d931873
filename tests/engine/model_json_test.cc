#include "fixgraph/engine/model_json.h"

#include <gtest/gtest.h>

#include <string>

namespace fixgraph {
namespace {

using nlohmann::json;

constexpr UnixSeconds kT = 1789443356;  // 2026-09-15T03:35:56Z

RepoRef Repo() {
  RepoRef r;
  r.platform = Platform::kGitCode;
  r.owner = "Ascend";
  r.name = "MindSpeed-Ops";
  return r;
}

User SomeUser() { return User{"5f3e0a", "alice", "Alice 李"}; }

Issue FullIssue() {
  Issue v;
  v.repo = Repo();
  v.number = "69";
  v.platform_id = "123456";
  v.title = "aclnn 报错 shape [1,1]";
  v.body = "body with \"quotes\"\nand lines";
  v.state = IssueState::kClosed;
  v.state_detail = "已完成";
  v.author = SomeUser();
  v.labels = {"bug", "npu"};
  v.html_url = "https://gitcode.com/Ascend/MindSpeed-Ops/issues/69";
  v.created_at = kT - 86400;
  v.updated_at = kT - 10;
  v.closed_at = kT;
  v.comment_count = 3;
  v.branch = "fix-69";
  return v;
}

PullRequest FullPull() {
  PullRequest v;
  v.repo = Repo();
  v.number = 166;
  v.platform_id = "998";
  v.title = "Fix #69";
  v.body = "fixes #69";
  v.state = PullState::kMerged;
  v.author = SomeUser();
  v.labels = {"lgtm"};
  v.html_url = "https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/166";
  v.created_at = kT - 3600;
  v.updated_at = kT - 60;
  v.merged_at = kT - 120;
  v.closed_at = kT - 120;
  v.head_ref = "dev";
  v.head_sha = "abc123";
  v.head_repo = "bob/MindSpeed-Ops";
  v.base_ref = "master";
  v.close_related_issue = true;
  v.merged_by = "carol";
  return v;
}

// Decodes ToJson(v) into a fresh T and checks the re-encoding is identical.
template <typename T>
T RoundTrip(const T& v) {
  json j = ToJson(v);
  T out;
  Status s = FromJson(j, &out);
  EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << j.dump();
  EXPECT_EQ(ToJson(out), j);
  // The JSON survives text serialisation too.
  T again;
  EXPECT_TRUE(FromJson(json::parse(j.dump()), &again).ok());
  EXPECT_EQ(ToJson(again), j);
  return out;
}

TEST(ModelJsonTest, TimeToJson) {
  EXPECT_TRUE(TimeToJson(std::nullopt).is_null());
  EXPECT_EQ(TimeToJson(kT), json("2026-09-15T03:35:56Z"));
  EXPECT_EQ(TimeToJson(-1), json("1969-12-31T23:59:59Z"));
}

TEST(ModelJsonTest, UserRoundTrip) {
  User u = RoundTrip(SomeUser());
  EXPECT_EQ(u.id, "5f3e0a");
  EXPECT_EQ(u.login, "alice");
  EXPECT_EQ(u.name, "Alice 李");
  EXPECT_EQ(ToJson(SomeUser()), (json{{"id", "5f3e0a"}, {"login", "alice"}, {"name", "Alice 李"}}));
}

TEST(ModelJsonTest, RepositoryRoundTrip) {
  Repository r;
  r.ref = Repo();
  r.full_name = "Ascend/MindSpeed-Ops";
  r.display_name = "MindSpeed Ops";
  r.description = "ops";
  r.default_branch = "master";
  r.html_url = "https://gitcode.com/Ascend/MindSpeed-Ops";
  json j = ToJson(r);
  EXPECT_EQ(j["repo"], "gitcode:Ascend/MindSpeed-Ops");
  Repository out = RoundTrip(r);
  EXPECT_EQ(out.ref, Repo());
  EXPECT_EQ(out.default_branch, "master");
  EXPECT_EQ(out.description, "ops");
}

TEST(ModelJsonTest, IssueRoundTrip) {
  Issue v = FullIssue();
  json j = ToJson(v);
  EXPECT_EQ(j["ref"], "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(j["repo"], "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(j["state"], "closed");
  EXPECT_EQ(j["closed_at"], "2026-09-15T03:35:56Z");
  EXPECT_EQ(j["labels"], json::array({"bug", "npu"}));
  EXPECT_EQ(j["author"]["login"], "alice");
  Issue out = RoundTrip(v);
  EXPECT_EQ(out.repo, v.repo);
  EXPECT_EQ(out.number, "69");
  EXPECT_EQ(out.title, v.title);
  EXPECT_EQ(out.body, v.body);
  EXPECT_EQ(out.state, IssueState::kClosed);
  EXPECT_EQ(out.state_detail, "已完成");
  EXPECT_EQ(out.labels, v.labels);
  EXPECT_EQ(out.created_at, v.created_at);
  EXPECT_EQ(out.updated_at, v.updated_at);
  EXPECT_EQ(out.closed_at, v.closed_at);
  EXPECT_EQ(out.comment_count, 3);
  EXPECT_EQ(out.branch, "fix-69");
  EXPECT_EQ(out.author.name, "Alice 李");
}

TEST(ModelJsonTest, IssueUnsetTimesAreNull) {
  Issue v;
  v.repo = Repo();
  v.number = "I8XK2P";
  json j = ToJson(v);
  EXPECT_TRUE(j["created_at"].is_null());
  EXPECT_TRUE(j["updated_at"].is_null());
  EXPECT_TRUE(j["closed_at"].is_null());
  EXPECT_EQ(j["state"], "open");
  EXPECT_EQ(j["labels"], json::array());
  Issue out = RoundTrip(v);
  EXPECT_FALSE(out.created_at.has_value());
  EXPECT_FALSE(out.updated_at.has_value());
  EXPECT_FALSE(out.closed_at.has_value());
  EXPECT_EQ(out.state, IssueState::kOpen);
  EXPECT_EQ(out.number, "I8XK2P");
}

TEST(ModelJsonTest, PullRoundTrip) {
  PullRequest v = FullPull();
  json j = ToJson(v);
  EXPECT_EQ(j["ref"], "gitcode:Ascend/MindSpeed-Ops!166");
  EXPECT_EQ(j["number"], 166);
  EXPECT_EQ(j["state"], "merged");
  EXPECT_EQ(j["close_related_issue"], true);
  PullRequest out = RoundTrip(v);
  EXPECT_EQ(out.number, 166);
  EXPECT_EQ(out.state, PullState::kMerged);
  EXPECT_TRUE(out.merged());
  EXPECT_EQ(out.merged_at, v.merged_at);
  EXPECT_EQ(out.closed_at, v.closed_at);
  EXPECT_EQ(out.head_ref, "dev");
  EXPECT_EQ(out.head_sha, "abc123");
  EXPECT_EQ(out.head_repo, "bob/MindSpeed-Ops");
  EXPECT_EQ(out.base_ref, "master");
  EXPECT_EQ(out.merged_by, "carol");
  ASSERT_TRUE(out.close_related_issue.has_value());
  EXPECT_TRUE(*out.close_related_issue);
}

TEST(ModelJsonTest, PullStatesAndOptionalBool) {
  for (PullState st : {PullState::kOpen, PullState::kClosed, PullState::kMerged}) {
    PullRequest v;
    v.repo = Repo();
    v.number = 1;
    v.state = st;
    PullRequest out = RoundTrip(v);
    EXPECT_EQ(out.state, st);
    EXPECT_FALSE(out.close_related_issue.has_value());
    EXPECT_FALSE(out.merged_at.has_value());
    EXPECT_TRUE(ToJson(v)["close_related_issue"].is_null());
    EXPECT_TRUE(ToJson(v)["merged_at"].is_null());
  }
  PullRequest f;
  f.repo = Repo();
  f.close_related_issue = false;
  PullRequest out = RoundTrip(f);
  ASSERT_TRUE(out.close_related_issue.has_value());
  EXPECT_FALSE(*out.close_related_issue);
}

TEST(ModelJsonTest, CommentRoundTrip) {
  Comment c;
  c.repo = Repo();
  c.parent_kind = ParentKind::kPull;
  c.parent_number = "166";
  c.id = "777";
  c.author = SomeUser();
  c.body = "see #69";
  c.kind = "diff_comment";
  c.path = "src/a.cc";
  c.created_at = kT;
  json j = ToJson(c);
  EXPECT_EQ(j["parent"], "gitcode:Ascend/MindSpeed-Ops!166");
  EXPECT_EQ(j["parent_kind"], "pull");
  EXPECT_TRUE(j["updated_at"].is_null());
  Comment out = RoundTrip(c);
  EXPECT_EQ(out.parent_kind, ParentKind::kPull);
  EXPECT_EQ(out.parent_number, "166");
  EXPECT_EQ(out.id, "777");
  EXPECT_EQ(out.kind, "diff_comment");
  EXPECT_EQ(out.path, "src/a.cc");
  EXPECT_EQ(out.created_at, kT);
  EXPECT_FALSE(out.updated_at.has_value());
  EXPECT_EQ(out.parent(), Ref::Pull(Repo(), 166));

  c.parent_kind = ParentKind::kIssue;
  c.parent_number = "69";
  Comment issue_comment = RoundTrip(c);
  EXPECT_EQ(issue_comment.parent_kind, ParentKind::kIssue);
  EXPECT_EQ(issue_comment.parent(), Ref::Issue(Repo(), "69"));
}

TEST(ModelJsonTest, CommitRoundTrip) {
  Commit c;
  c.repo = Repo();
  c.pr_number = 166;
  c.sha = "deadbeef";
  c.message = "fix: #69\n\nlong text";
  c.author_name = "A";
  c.author_email = "a@x";
  c.author_login = "alice";
  c.committer_name = "C";
  c.committer_email = "c@x";
  c.authored_at = kT - 5;
  Commit out = RoundTrip(c);
  EXPECT_EQ(out.pr_number, 166);
  EXPECT_EQ(out.sha, "deadbeef");
  EXPECT_EQ(out.message, c.message);
  EXPECT_EQ(out.committer_email, "c@x");
  EXPECT_EQ(out.authored_at, kT - 5);
  EXPECT_FALSE(out.committed_at.has_value());
}

TEST(ModelJsonTest, FileChangeRoundTrip) {
  FileChange f;
  f.repo = Repo();
  f.pr_number = 166;
  f.filename = "b.cc";
  f.previous_filename = "a.cc";
  f.status = "renamed";
  f.additions = 10;
  f.deletions = 2;
  f.patch = "@@ -1 +1 @@\n-a\n+b\n";
  FileChange out = RoundTrip(f);
  EXPECT_EQ(out.filename, "b.cc");
  EXPECT_EQ(out.previous_filename, "a.cc");
  EXPECT_EQ(out.status, "renamed");
  EXPECT_EQ(out.additions, 10);
  EXPECT_EQ(out.deletions, 2);
  EXPECT_EQ(out.patch, f.patch);
}

TEST(ModelJsonTest, OperateLogRoundTrip) {
  OperateLogEvent e;
  e.repo = Repo();
  e.parent_kind = ParentKind::kIssue;
  e.parent_number = "69";
  e.id = "42";
  e.action_type = "add_issue_mr_link";
  e.action = "linked";
  e.content = "!166";
  e.actor = SomeUser();
  e.created_at = kT;
  json j = ToJson(e);
  EXPECT_EQ(j["parent"], "gitcode:Ascend/MindSpeed-Ops#69");
  OperateLogEvent out = RoundTrip(e);
  EXPECT_EQ(out.action_type, "add_issue_mr_link");
  EXPECT_EQ(out.content, "!166");
  EXPECT_EQ(out.actor.login, "alice");
  EXPECT_EQ(out.created_at, kT);
  EXPECT_EQ(out.parent(), Ref::Issue(Repo(), "69"));
}

TEST(ModelJsonTest, PlatformLinkRoundTrip) {
  PlatformLink l{Ref::Issue(Repo(), "69"), Ref::Pull(Repo(), 166), "issue_pull_requests"};
  json j = ToJson(l);
  EXPECT_EQ(j, (json{{"issue", "gitcode:Ascend/MindSpeed-Ops#69"},
                     {"pull", "gitcode:Ascend/MindSpeed-Ops!166"},
                     {"source", "issue_pull_requests"}}));
  PlatformLink out = RoundTrip(l);
  EXPECT_EQ(out.issue, l.issue);
  EXPECT_EQ(out.pull, l.pull);
  EXPECT_EQ(out.source, l.source);
}

TEST(ModelJsonTest, TimesWithOffsetsAreNormalised) {
  json j = ToJson(FullIssue());
  j["closed_at"] = "2026-09-15T11:35:56+08:00";
  Issue out;
  ASSERT_TRUE(FromJson(j, &out).ok());
  EXPECT_EQ(out.closed_at, kT);
  j["closed_at"] = "";  // "" means unset
  Issue out2;
  ASSERT_TRUE(FromJson(j, &out2).ok());
  EXPECT_FALSE(out2.closed_at.has_value());
}

TEST(ModelJsonTest, MissingOptionalFieldsTakeDefaults) {
  Issue out;
  ASSERT_TRUE(FromJson(json{{"repo", "gitcode:a/b"}, {"number", "1"}}, &out).ok());
  EXPECT_EQ(out.repo.FullName(), "a/b");
  EXPECT_EQ(out.number, "1");
  EXPECT_EQ(out.title, "");
  EXPECT_TRUE(out.labels.empty());
  EXPECT_EQ(out.state, IssueState::kOpen);
  EXPECT_EQ(out.comment_count, 0);

  json nulls = {{"repo", "gitcode:a/b"}, {"number", nullptr}, {"title", nullptr},
                {"labels", nullptr},     {"author", nullptr}, {"comment_count", nullptr}};
  Issue n;
  ASSERT_TRUE(FromJson(nulls, &n).ok());
  EXPECT_EQ(n.title, "");
}

// ---- Wrong types give Corruption naming the field.

void ExpectCorruptionNaming(const Status& s, const std::string& field) {
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(field), std::string::npos)
      << "message should name " << field << ": " << s.message();
}

TEST(ModelJsonTest, NotAnObject) {
  Issue i;
  ExpectCorruptionNaming(FromJson(json::array({1, 2}), &i), "not a JSON object");
  User u;
  ExpectCorruptionNaming(FromJson(json("x"), &u), "not a JSON object");
  PlatformLink l;
  ExpectCorruptionNaming(FromJson(json(nullptr), &l), "not a JSON object");
}

TEST(ModelJsonTest, IssueWrongTypes) {
  struct Case {
    const char* field;
    json value;
  };
  const std::vector<Case> cases = {
      {"title", 5},
      {"number", 69},
      {"body", json::array()},
      {"state", true},
      {"labels", "bug"},
      {"labels", json::array({"ok", 3})},
      {"comment_count", "3"},
      {"comment_count", 1.5},
      {"created_at", 1789443356},
      {"closed_at", "not a time"},
      {"updated_at", "2026-13-01"},
      {"repo", "not a ref"},
      {"repo", "gitcode:a/b#1"},  // an issue, not a repository
      {"repo", 1},
      {"author", "alice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.field) + " = " + c.value.dump());
    json j = ToJson(FullIssue());
    j[c.field] = c.value;
    Issue out;
    ExpectCorruptionNaming(FromJson(j, &out), c.field);
  }
}

TEST(ModelJsonTest, MissingRepoIsCorruption) {
  Issue out;
  ExpectCorruptionNaming(FromJson(json{{"number", "1"}}, &out), "\"repo\"");
}

TEST(ModelJsonTest, NestedUserErrorNamesBothFields) {
  json j = ToJson(FullIssue());
  j["author"] = json{{"id", 5}};
  Issue out;
  Status s = FromJson(j, &out);
  ExpectCorruptionNaming(s, "author");
  EXPECT_NE(s.message().find("\"id\""), std::string::npos) << s.message();

  json p = ToJson(OperateLogEvent{});
  p["repo"] = "gitcode:a/b";
  p["actor"] = json::array();
  OperateLogEvent e;
  ExpectCorruptionNaming(FromJson(p, &e), "actor");
}

TEST(ModelJsonTest, PullWrongTypes) {
  for (const char* field : {"number", "title", "merged_at", "labels", "head_sha", "merged_by"}) {
    SCOPED_TRACE(field);
    json j = ToJson(FullPull());
    j[field] = json::object();
    PullRequest out;
    ExpectCorruptionNaming(FromJson(j, &out), std::string("\"") + field + "\"");
  }
  json j = ToJson(FullPull());
  j["number"] = "166";
  PullRequest out;
  ExpectCorruptionNaming(FromJson(j, &out), "\"number\"");
}

TEST(ModelJsonTest, CommentWrongTypes) {
  Comment c;
  c.repo = Repo();
  c.parent_number = "1";
  c.id = "2";
  for (const char* field : {"body", "id", "parent_number", "created_at", "kind", "path"}) {
    SCOPED_TRACE(field);
    json j = ToJson(c);
    j[field] = 12.5;
    Comment out;
    ExpectCorruptionNaming(FromJson(j, &out), std::string("\"") + field + "\"");
  }
  json j = ToJson(c);
  j["parent_kind"] = "commit";
  Comment out;
  ExpectCorruptionNaming(FromJson(j, &out), "parent_kind");
}

TEST(ModelJsonTest, OtherTypesWrongTypes) {
  {
    Commit c;
    c.repo = Repo();
    json j = ToJson(c);
    j["pr_number"] = "1";
    Commit out;
    ExpectCorruptionNaming(FromJson(j, &out), "\"pr_number\"");
    j = ToJson(c);
    j["committed_at"] = false;
    ExpectCorruptionNaming(FromJson(j, &out), "\"committed_at\"");
  }
  {
    FileChange f;
    f.repo = Repo();
    json j = ToJson(f);
    j["additions"] = "10";
    FileChange out;
    ExpectCorruptionNaming(FromJson(j, &out), "\"additions\"");
  }
  {
    OperateLogEvent e;
    e.repo = Repo();
    json j = ToJson(e);
    j["parent_kind"] = "x";
    OperateLogEvent out;
    ExpectCorruptionNaming(FromJson(j, &out), "parent_kind");
    j = ToJson(e);
    j["action_type"] = 3;
    ExpectCorruptionNaming(FromJson(j, &out), "\"action_type\"");
  }
  {
    PlatformLink l{Ref::Issue(Repo(), "1"), Ref::Pull(Repo(), 2), "pull_issues"};
    json j = ToJson(l);
    j["issue"] = "nonsense";
    PlatformLink out;
    ExpectCorruptionNaming(FromJson(j, &out), "\"issue\"");
    j = ToJson(l);
    j["pull"] = 2;
    ExpectCorruptionNaming(FromJson(j, &out), "\"pull\"");
  }
  {
    Repository r;
    r.ref = Repo();
    json j = ToJson(r);
    j["html_url"] = 1;
    Repository out;
    ExpectCorruptionNaming(FromJson(j, &out), "\"html_url\"");
  }
  {
    User u;
    ExpectCorruptionNaming(FromJson(json{{"login", 1}}, &u), "\"login\"");
  }
}

TEST(ModelJsonTest, FirstErrorWins) {
  json j = ToJson(FullIssue());
  j["title"] = 1;
  j["body"] = 2;
  Issue out;
  Status s = FromJson(j, &out);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("\"title\""), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("\"body\""), std::string::npos) << s.message();
}

TEST(ModelTest, StateNamesAndMerged) {
  EXPECT_STREQ(IssueStateName(IssueState::kOpen), "open");
  EXPECT_STREQ(IssueStateName(IssueState::kClosed), "closed");
  EXPECT_STREQ(PullStateName(PullState::kOpen), "open");
  EXPECT_STREQ(PullStateName(PullState::kClosed), "closed");
  EXPECT_STREQ(PullStateName(PullState::kMerged), "merged");
  PullRequest p;
  EXPECT_FALSE(p.merged());
  p.merged_at = kT;
  EXPECT_TRUE(p.merged());
  p.merged_at.reset();
  p.state = PullState::kMerged;
  EXPECT_TRUE(p.merged());
  EXPECT_EQ(FullIssue().ref().ToString(), "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(FullPull().ref().ToString(), "gitcode:Ascend/MindSpeed-Ops!166");
}

}  // namespace
}  // namespace fixgraph
