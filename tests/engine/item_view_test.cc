#include "fixgraph/engine/item_view.h"

#include "testutil/testutil.h"

#include "fixgraph/engine/model_json.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace fixgraph {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr UnixSeconds kT = 1789443356;  // 2026-09-15T03:35:56Z

RepoRef Repo() {
  RepoRef r;
  r.platform = Platform::kGitCode;
  r.owner = "Ascend";
  r.name = "MindSpeed-Ops";
  return r;
}

Ref IssueRef(const std::string& n) { return Ref::Issue(Repo(), n); }
Ref PullRef(std::int64_t n) { return Ref::Pull(Repo(), n); }

#define ASSERT_OK(expr)                      \
  do {                                       \
    Status _st = (expr);                     \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (0)

const json* FindBy(const json& array, const std::string& key, const std::string& value) {
  for (const json& e : array)
    if (e.contains(key) && e[key] == value) return &e;
  return nullptr;
}

// One store, filled once and only read by the tests (opening RocksDB is the slow part).
class ItemViewTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    auto opened = Store::Open(*tmp_ / "store", StoreOptions{});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value().release();
    Fill();
  }

  static void TearDownTestSuite() {
    delete store_;
    store_ = nullptr;
    delete tmp_;
    tmp_ = nullptr;
  }

  void SetUp() override { ASSERT_NE(store_, nullptr); }

  static void Fill() {
    auto b = store_->NewBatch();

    Repository repo;
    repo.ref = Repo();
    repo.full_name = "Ascend/MindSpeed-Ops";
    repo.description = "ops";
    ASSERT_OK(b->PutRepository(repo, ""));

    Issue i69;
    i69.repo = Repo();
    i69.number = "69";
    i69.title = "shape error";
    i69.state = IssueState::kClosed;
    i69.closed_at = kT + 100;
    ASSERT_OK(b->PutIssue(i69, ""));

    Issue i70;
    i70.repo = Repo();
    i70.number = "70";
    i70.title = "same as 关联 #69";
    i70.created_at = kT - 10;
    ASSERT_OK(b->PutIssue(i70, ""));

    PullRequest p166;
    p166.repo = Repo();
    p166.number = 166;
    p166.title = "Fix shape";
    p166.body = "Fixes #69, see also #70";
    p166.state = PullState::kMerged;
    p166.merged_at = kT;
    p166.created_at = kT - 1000;
    ASSERT_OK(b->PutPull(p166, ""));

    PullRequest p170;
    p170.repo = Repo();
    p170.number = 170;
    p170.title = "WIP";
    p170.state = PullState::kOpen;
    ASSERT_OK(b->PutPull(p170, ""));

    Comment c1;
    c1.repo = Repo();
    c1.parent_kind = ParentKind::kIssue;
    c1.parent_number = "69";
    c1.id = "2";
    c1.body = "fixed by !166";
    c1.created_at = kT + 50;
    ASSERT_OK(b->PutComment(c1, ""));
    Comment c2 = c1;
    c2.id = "1";
    c2.body = "I see this too";
    ASSERT_OK(b->PutComment(c2, ""));

    Comment pc;
    pc.repo = Repo();
    pc.parent_kind = ParentKind::kPull;
    pc.parent_number = "170";
    pc.id = "3";
    pc.body = "see #69";
    ASSERT_OK(b->PutComment(pc, ""));

    Commit k;
    k.repo = Repo();
    k.pr_number = 166;
    k.sha = "abc";
    k.message = "fix #69";
    k.committed_at = kT - 500;
    ASSERT_OK(b->PutCommit(k, ""));
    // A commit of a PR the store has no record of.
    Commit orphan = k;
    orphan.pr_number = 999;
    orphan.sha = "def";
    ASSERT_OK(b->PutCommit(orphan, ""));

    FileChange f;
    f.repo = Repo();
    f.pr_number = 166;
    f.filename = "ops/shape.cc";
    f.additions = 3;
    ASSERT_OK(b->PutFile(f, ""));

    OperateLogEvent e;
    e.repo = Repo();
    e.parent_kind = ParentKind::kIssue;
    e.parent_number = "69";
    e.id = "7";
    e.action_type = "closed";
    ASSERT_OK(b->PutOperateLog(e, ""));

    ASSERT_OK(b->PutPlatformLink({IssueRef("69"), PullRef(166), "issue_pull_requests"}));
    ASSERT_OK(store_->Write(b.get()));
  }

  json MustView(const Ref& ref) {
    auto v = BuildItemView(*store_, ref);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : json();
  }

  static TempDir* tmp_;
  static Store* store_;
};

TempDir* ItemViewTest::tmp_ = nullptr;
Store* ItemViewTest::store_ = nullptr;

TEST_F(ItemViewTest, Issue) {
  json v = MustView(IssueRef("69"));
  EXPECT_EQ(v["kind"], "issue");
  EXPECT_EQ(v["issue"]["ref"], "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(v["issue"]["state"], "closed");
  EXPECT_EQ(v["issue"]["closed_at"], "2026-09-15T03:37:36Z");
  EXPECT_FALSE(v.contains("commits"));
  EXPECT_FALSE(v.contains("pull"));

  ASSERT_EQ(v["comments"].size(), 2u);
  EXPECT_EQ(v["comments"][0]["id"], "1");  // id order
  EXPECT_EQ(v["comments"][1]["body"], "fixed by !166");

  ASSERT_EQ(v["operate_log"].size(), 1u);
  EXPECT_EQ(v["operate_log"][0]["action_type"], "closed");

  ASSERT_EQ(v["platform_links"].size(), 1u);
  EXPECT_EQ(v["platform_links"][0]["pull"], "gitcode:Ascend/MindSpeed-Ops!166");
  EXPECT_EQ(v["platform_links"][0]["source"], "issue_pull_requests");
}

TEST_F(ItemViewTest, IssueMentionedBy) {
  json v = MustView(IssueRef("69"));
  const json& by = v["mentioned_by"];
  ASSERT_TRUE(by.is_array());
  // PR body, PR commit, orphan commit, comment on !170, issue #70's text.
  ASSERT_EQ(by.size(), 5u) << by.dump(2);

  const json* body = FindBy(by, "in", "pull_body");
  ASSERT_NE(body, nullptr) << by.dump(2);
  EXPECT_EQ((*body)["source"], "gitcode:Ascend/MindSpeed-Ops!166");
  EXPECT_EQ((*body)["target"], "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ((*body)["keyword"], "closing");
  EXPECT_EQ((*body)["form"], "hash");
  EXPECT_EQ((*body)["text"], "#69");
  EXPECT_EQ((*body)["source_state"], "merged");
  EXPECT_EQ((*body)["source_merged_at"], "2026-09-15T03:35:56Z");
  EXPECT_EQ((*body)["source_title"], "Fix shape");
  EXPECT_EQ((*body)["at"], "2026-09-15T03:19:16Z");  // PR creation time

  const json* open_pr = FindBy(by, "in", "pull_comment");
  ASSERT_NE(open_pr, nullptr);
  EXPECT_EQ((*open_pr)["source"], "gitcode:Ascend/MindSpeed-Ops!170");
  EXPECT_EQ((*open_pr)["source_id"], "3");
  EXPECT_EQ((*open_pr)["source_state"], "open");
  EXPECT_TRUE((*open_pr)["source_merged_at"].is_null());
  EXPECT_EQ((*open_pr)["keyword"], "relating");

  const json* orphan = FindBy(by, "source", "gitcode:Ascend/MindSpeed-Ops!999");
  ASSERT_NE(orphan, nullptr);
  EXPECT_EQ((*orphan)["in"], "commit_message");
  EXPECT_FALSE(orphan->contains("source_state"));  // no record of that PR

  const json* issue = FindBy(by, "in", "issue_text");
  ASSERT_NE(issue, nullptr);
  EXPECT_EQ((*issue)["source"], "gitcode:Ascend/MindSpeed-Ops#70");
  EXPECT_EQ((*issue)["source_state"], "open");
  EXPECT_EQ((*issue)["source_title"], "same as 关联 #69");
  EXPECT_EQ((*issue)["keyword"], "relating");
  EXPECT_FALSE(issue->contains("source_merged_at"));
}

TEST_F(ItemViewTest, Pull) {
  json v = MustView(PullRef(166));
  EXPECT_EQ(v["kind"], "pull");
  EXPECT_EQ(v["pull"]["ref"], "gitcode:Ascend/MindSpeed-Ops!166");
  EXPECT_EQ(v["pull"]["state"], "merged");
  EXPECT_FALSE(v.contains("issue"));

  ASSERT_EQ(v["commits"].size(), 1u);
  EXPECT_EQ(v["commits"][0]["sha"], "abc");
  ASSERT_EQ(v["files"].size(), 1u);
  EXPECT_EQ(v["files"][0]["filename"], "ops/shape.cc");
  EXPECT_EQ(v["files"][0]["additions"], 3);
  EXPECT_TRUE(v["comments"].empty());
  EXPECT_TRUE(v["operate_log"].empty());

  ASSERT_EQ(v["mentions"].size(), 2u);
  EXPECT_EQ(v["mentions"][0]["target"], "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(v["mentions"][0]["keyword"], "closing");
  EXPECT_EQ(v["mentions"][0]["form"], "hash");
  EXPECT_EQ(v["mentions"][0]["text"], "#69");
  EXPECT_EQ(v["mentions"][1]["target"], "gitcode:Ascend/MindSpeed-Ops#70");

  ASSERT_EQ(v["platform_links"].size(), 1u);
  EXPECT_EQ(v["platform_links"][0]["issue"], "gitcode:Ascend/MindSpeed-Ops#69");

  // Issue #69's comment "fixed by !166" mentions this PR.
  ASSERT_EQ(v["mentioned_by"].size(), 1u);
  const json& m = v["mentioned_by"][0];
  EXPECT_EQ(m["source"], "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(m["in"], "issue_comment");
  EXPECT_EQ(m["source_id"], "2");
  EXPECT_EQ(m["form"], "bang");
  // (Set only when the source is in the store: value(), not operator[] on a const object.)
  EXPECT_EQ(m.value("source_state", ""), "closed");
  EXPECT_EQ(m.value("source_title", ""), "shape error");
  EXPECT_EQ(m["at"], "2026-09-15T03:36:46Z");
}

TEST_F(ItemViewTest, PullWithoutExtras) {
  json v = MustView(PullRef(170));
  EXPECT_TRUE(v["commits"].empty());
  EXPECT_TRUE(v["files"].empty());
  EXPECT_TRUE(v["mentions"].empty());
  EXPECT_TRUE(v["mentioned_by"].empty());
  ASSERT_EQ(v["comments"].size(), 1u);
  EXPECT_EQ(v["comments"][0]["body"], "see #69");
}

TEST_F(ItemViewTest, Repo) {
  json v = MustView(Ref::Repo(Repo()));
  EXPECT_EQ(v["kind"], "repo");
  EXPECT_EQ(v["repository"]["repo"], "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(v["repository"]["description"], "ops");
  const json& s = v["stats"];
  EXPECT_EQ(s["repo"], "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(s["issues"]["open"], 1);
  EXPECT_EQ(s["issues"]["closed"], 1);
  EXPECT_EQ(s["issues"]["total"], 2);
  EXPECT_EQ(s["pulls"]["merged"], 1);
  EXPECT_EQ(s["pulls"]["open"], 1);
  EXPECT_EQ(s["pulls"]["closed"], 0);
  EXPECT_EQ(s["pulls"]["total"], 2);
  EXPECT_EQ(s["comments"], 3);
  EXPECT_EQ(s["commits"], 2);
  EXPECT_EQ(s["files"], 1);
  EXPECT_EQ(s["operate_logs"], 1);
  EXPECT_EQ(s["platform_links"], 1);
  EXPECT_FALSE(v.contains("comments"));
  EXPECT_FALSE(v.contains("mentioned_by"));
}

TEST_F(ItemViewTest, MissingItemsAreNotFound) {
  for (const Ref& ref : {IssueRef("404"), PullRef(404), IssueRef("I8XK2P")}) {
    auto v = BuildItemView(*store_, ref);
    ASSERT_FALSE(v.ok()) << ref.ToString();
    EXPECT_TRUE(v.status().IsNotFound()) << v.status().ToString();
    EXPECT_NE(v.status().message().find(ref.ToString()), std::string::npos) << v.status().message();
  }
  RepoRef other = Repo();
  other.name = "nope";
  auto r = BuildItemView(*store_, Ref::Repo(other));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound());
  EXPECT_NE(r.status().message().find("gitcode:Ascend/nope"), std::string::npos);
}

TEST_F(ItemViewTest, DocRefsAreInvalid) {
  auto v = BuildItemView(*store_, Ref::Doc("torch_npu/env/X"));
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(v.status().IsInvalidArgument());
}

TEST(ItemViewJsonTest, MentionRecordToJson) {
  MentionRecord m;
  m.target = IssueRef("69");
  m.source_item = PullRef(166);
  m.source = MentionSource::kCommitMessage;
  m.source_id = "abc";
  m.form = MentionForm::kUrl;
  m.keyword = MentionKeyword::kClosing;
  m.mirror_host = true;
  m.text = "https://atomgit.com/Ascend/MindSpeed-Ops/issues/69";
  json j = ToJson(m);
  EXPECT_EQ(j, (json{{"target", "gitcode:Ascend/MindSpeed-Ops#69"},
                     {"source", "gitcode:Ascend/MindSpeed-Ops!166"},
                     {"in", "commit_message"},
                     {"source_id", "abc"},
                     {"form", "url"},
                     {"keyword", "closing"},
                     {"mirror_host", true},
                     {"text", "https://atomgit.com/Ascend/MindSpeed-Ops/issues/69"},
                     {"at", nullptr}}));
  m.at = kT;
  EXPECT_EQ(ToJson(m)["at"], "2026-09-15T03:35:56Z");
}

TEST(ItemViewJsonTest, RepoStatsToJson) {
  RepoStats s;
  s.repo = Repo();
  s.issues_open = 2;
  s.issues_closed = 3;
  s.pulls_open = 1;
  s.pulls_merged = 4;
  s.pulls_closed = 5;
  s.comments = 6;
  s.commits = 7;
  s.files = 8;
  s.operate_logs = 9;
  s.platform_links = 10;
  json j = ToJson(s);
  EXPECT_EQ(j["issues"], (json{{"open", 2}, {"closed", 3}, {"total", 5}}));
  EXPECT_EQ(j["pulls"], (json{{"merged", 4}, {"open", 1}, {"closed", 5}, {"total", 10}}));
  EXPECT_EQ(j["comments"], 6);
  EXPECT_EQ(j["commits"], 7);
  EXPECT_EQ(j["files"], 8);
  EXPECT_EQ(j["operate_logs"], 9);
  EXPECT_EQ(j["platform_links"], 10);
}

TEST(ItemViewJsonTest, MentionSourceNames) {
  EXPECT_STREQ(MentionSourceName(MentionSource::kIssueText), "issue_text");
  EXPECT_STREQ(MentionSourceName(MentionSource::kPullTitle), "pull_title");
  EXPECT_STREQ(MentionSourceName(MentionSource::kPullBody), "pull_body");
  EXPECT_STREQ(MentionSourceName(MentionSource::kIssueComment), "issue_comment");
  EXPECT_STREQ(MentionSourceName(MentionSource::kPullComment), "pull_comment");
  EXPECT_STREQ(MentionSourceName(MentionSource::kCommitMessage), "commit_message");
  EXPECT_STREQ(MentionSourceName(MentionSource::kBranchName), "branch_name");
}

}  // namespace
}  // namespace fixgraph
