// A Linker and an IssueContext reused from issue to issue (a LinkWorker
// keeps one Linker for all the issues it links): the same answers as fresh
// ones, and the context's strings and lists keep their memory.
#include "../../graph/features.h"
#include "../../graph/linker_internal.h"
#include "graph_fixture.h"

#include "fixgraph/graph/links.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

using testing::GraphTest;

class ReuseTest : public GraphTest {
 protected:
  // Three closed issues that differ in every part of the context: comments
  // (one by a bot), labels, identifiers, participants, links.
  void Build() {
    AddIssue("1", "transformer_engine/pytorch/module/grouped_linear.py crashes in fused_adam",
             "Traceback: grouped_linear.py line 12, npu_rms_norm_backward_kernel fails",
             "2026-03-01T00:00:00Z", "2026-03-05T08:00:00Z", "alice");
    AddComment(IssueRef("1"), "c1", "bob",
               "looks like mindspeed_llm/core/fused_adam_wrapper.py, fixed by !10",
               "2026-03-02T00:00:00Z");
    AddComment(IssueRef("1"), "c2", "mindspore-ci-bot",
               "stale_issue_notice_for_bot_only_identifier", "2026-03-03T00:00:00Z");
    AddComment(IssueRef("1"), "c3", "alice", "thanks bob, confirmed", "2026-03-04T00:00:00Z");
    AddLabelEvent(IssueRef("1"), "e1", "bug", "carol", "2026-03-02T00:00:00Z");
    AddIssue("2", "loss NaN", "short", "2026-03-01T00:00:00Z", "2026-03-09T00:00:00Z", "dave");
    AddComment(IssueRef("2"), "c4", "erin", "duplicate of #1", "2026-03-06T00:00:00Z");
    AddIssue("3", "CheckValidation fails for very_long_snake_case_identifier_name",
             "see a/b/c/d.py", "2026-03-01T00:00:00Z", "2026-03-04T00:00:00Z", "frank");
    AddLabelEvent(IssueRef("3"), "e2", "wontfix", "carol", "2026-03-03T00:00:00Z");
    AddPull(10, "fix fused_adam in grouped_linear.py", "Fixes #1", "2026-03-02T00:00:00Z",
            "2026-03-05T08:00:00Z");
    AddFile(PullRef(10), "transformer_engine/pytorch/module/grouped_linear.py",
            "@@ -1 +1 @@\n-a\n+b");
    AddPull(11, "CheckValidation fix", "", "2026-03-02T00:00:00Z", "2026-03-03T23:59:58Z");
    AddPlatformLink(IssueRef("3"), PullRef(11));
    Commit();
  }
};

void ExpectSameContext(const IssueContext& a, const IssueContext& b) {
  EXPECT_EQ(a.issue.ref(), b.issue.ref());
  EXPECT_EQ(a.default_branch, b.default_branch);
  EXPECT_EQ(a.comments.size(), b.comments.size());
  EXPECT_EQ(a.oplog.size(), b.oplog.size());
  EXPECT_EQ(a.platform_links.size(), b.platform_links.size());
  EXPECT_EQ(a.mentioned_by.size(), b.mentioned_by.size());
  EXPECT_EQ(a.normalized_title, b.normalized_title);
  EXPECT_EQ(a.title_tokens, b.title_tokens);
  EXPECT_EQ(a.text_tokens, b.text_tokens);
  EXPECT_EQ(a.title_identifiers, b.title_identifiers);
  EXPECT_EQ(a.identifiers, b.identifiers);
  EXPECT_EQ(a.ident_keys, b.ident_keys);
  EXPECT_EQ(a.ident_key_lists, b.ident_key_lists);
  for (size_t i = 0; i < a.identifiers.size(); ++i) {
    const IdShape& x = a.Shape(i);
    const IdShape& y = b.Shape(i);
    const IdShape z = IdShape::Of(a.identifiers[i]);
    EXPECT_TRUE(x.known && y.known);
    EXPECT_EQ(x.hash, z.hash);
    EXPECT_EQ(y.hash, z.hash);
    EXPECT_EQ(y.base_pos, z.base_pos);
    EXPECT_EQ(y.path_like, z.path_like);
    EXPECT_EQ(y.has_slash, z.has_slash);
    EXPECT_EQ(y.has_underscore, z.has_underscore);
    EXPECT_EQ(y.base_dotted, z.base_dotted);
    EXPECT_EQ(y.plain, z.plain);
  }
  EXPECT_EQ(a.comment_is_bot, b.comment_is_bot);
  EXPECT_EQ(a.participants, b.participants);
  EXPECT_EQ(a.labels, b.labels);
  for (std::uint64_t t : a.text_tokens) EXPECT_EQ(a.marks.Of(t), b.marks.Of(t));
}

TEST_F(ReuseTest, AReusedContextEqualsAFreshOneAndKeepsItsMemory) {
  Build();
  PullCache cache(*store_, 64);
  auto fresh1 = LoadIssueContext(&cache, IssueRef("1"));
  auto fresh3 = LoadIssueContext(&cache, IssueRef("3"));
  ASSERT_TRUE(fresh1.ok() && fresh3.ok());
  // What a fresh context holds: the human commenters, sorted.
  EXPECT_EQ(fresh1->participants, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(fresh1->comment_is_bot, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(fresh1->labels, (std::vector<std::string>{"bug"}));

  IssueContext reused;
  for (const char* n : {"3", "2", "1", "1", "3"}) {
    ASSERT_TRUE(LoadIssueContext(&cache, IssueRef(n), &reused).ok()) << n;
    // Shapes are computed when a comparison first asks for them.
    ASSERT_EQ(reused.id_shapes.size(), reused.identifiers.size());
    for (const IdShape& shape : reused.id_shapes) EXPECT_FALSE(shape.known);
    auto fresh = LoadIssueContext(&cache, IssueRef(n));
    ASSERT_TRUE(fresh.ok());
    ExpectSameContext(*fresh, reused);
  }
  ASSERT_TRUE(LoadIssueContext(&cache, IssueRef("1"), &reused).ok());
  // Loading the next issue writes into the strings and lists already there.
  ASSERT_FALSE(reused.identifiers.empty());
  const char* long_id = nullptr;
  size_t long_index = 0;
  for (size_t i = 0; i < reused.identifiers.size(); ++i) {
    if (reused.identifiers[i].size() > 32) {
      long_id = reused.identifiers[i].data();
      long_index = i;
      break;
    }
  }
  ASSERT_NE(long_id, nullptr);  // longer than any short-string buffer
  const std::uint64_t* keys = reused.ident_key_lists[0].data();
  ASSERT_TRUE(LoadIssueContext(&cache, IssueRef("1"), &reused).ok());
  EXPECT_EQ(reused.identifiers[long_index].data(), long_id);
  EXPECT_EQ(reused.ident_key_lists[0].data(), keys);
  ExpectSameContext(*fresh1, reused);
}

TEST_F(ReuseTest, LinkWorkerAnswersAsAFreshLinkerInAnyOrder) {
  Build();
  std::map<std::string, std::string> fresh;
  for (const char* n : {"1", "2", "3"}) {
    auto l = LinkIssue(*store_, IssueRef(n), options_);
    ASSERT_TRUE(l.ok()) << n;
    fresh[n] = ToJson(*l).dump();
  }
  // Issue 1 has a fix, 2 is a duplicate, 3 a platform link and a wontfix
  // label: state left over from one issue would show in the next.
  LinkWorker worker(*store_, 64);
  for (const char* n : {"1", "2", "3", "1", "3", "2", "2", "1"}) {
    auto l = worker.Link(IssueRef(n), options_);
    ASSERT_TRUE(l.ok()) << n;
    EXPECT_EQ(ToJson(*l).dump(), fresh[n]) << n;
  }
  auto missing = worker.Link(IssueRef("99"), options_);
  EXPECT_TRUE(missing.status().IsNotFound());
  auto again = worker.Link(IssueRef("1"), options_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ToJson(*again).dump(), fresh["1"]);
}

// IsRevert answers most titles from their bytes alone; the ones it must
// fold first (full-width letters, tags, 回退) still count as reverts.
TEST_F(GraphTest, RevertsInEveryFormAreNeverFixes) {
  AddIssue("61", "a", "", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z");
  const char* reverts[] = {"Revert \"x\"",
                           "REVERT: x",
                           "[Revert] x",
                           "  (revert) x",
                           "【回退】x",
                           "回退 x",
                           "\xEF\xBC\xB2\xEF\xBD\x85vert x" /* Ｒｅvert */,
                           "[\xEF\xBC\xB2\x45VERT] x" /* [ＲEVERT] */};
  std::int64_t n = 40;
  for (const char* title : reverts)
    AddPull(n++, title, "fix #61", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddPull(n, "fix revert handling", "fix #61", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  Commit();
  const IssueLinks l = Link("61");
  for (std::int64_t i = 40; i < n; ++i) EXPECT_EQ(l.FindFix(P(i)), nullptr) << reverts[i - 40];
  EXPECT_NE(l.FindFix(P(n)), nullptr);
}

}  // namespace
}  // namespace fixgraph::graph
