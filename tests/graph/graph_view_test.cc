// The Boost.Graph view: clusters, related issues, DOT output.
#include "fixgraph/graph/graph_view.h"

#include "graph_fixture.h"

#include <gtest/gtest.h>

#include <sstream>

namespace fixgraph::graph {
namespace {

Ref R(const std::string& s) { return *ParseRef(s); }

FixLink Fix(const std::string& pr, Tier tier, const std::string& backport_of = "") {
  FixLink f;
  f.pr = pr;
  f.tier = tier;
  f.in_store = pr.find("http") != 0;
  f.state = f.in_store ? "merged" : "unknown";
  f.backport_of = backport_of;
  return f;
}

IssueLinks Issue(const std::string& ref, Resolution r, std::vector<FixLink> fixes) {
  IssueLinks l;
  l.issue = R(ref);
  l.state = IssueState::kClosed;
  l.resolution = r;
  l.fixes = std::move(fixes);
  return l;
}

std::vector<IssueLinks> Sample() {
  std::vector<IssueLinks> v;
  v.push_back(Issue(
      "gitcode:o/r#43", Resolution::kFixed,
      {Fix("gitcode:o/r!192", Tier::kA), Fix("gitcode:o/r!193", Tier::kB, "gitcode:o/r!192")}));
  IssueLinks dup = Issue("gitcode:o/r#19", Resolution::kDuplicate, {});
  dup.duplicate_of = R("gitcode:o/r#43");
  v.push_back(dup);
  v.push_back(Issue("gitcode:o/r#68", Resolution::kFixed, {Fix("gitcode:o/r!166", Tier::kB)}));
  IssueLinks other =
      Issue("gitcode:o/r#69", Resolution::kFixed, {Fix("gitcode:o/r!166", Tier::kB)});
  other.false_leads = {"gitcode:o/r!163"};
  v.push_back(other);
  v.push_back(Issue("gitcode:o/r#5", Resolution::kAnswered, {}));
  return v;
}

TEST(GraphView, ClustersAndRelatedIssues) {
  GraphView g = GraphView::FromLinks(Sample(), {});
  EXPECT_EQ(g.nodes().size(), 9u);
  auto clusters = g.Clusters();
  ASSERT_EQ(clusters.size(), 2u);
  // The false lead !163 does not join a cluster.
  EXPECT_EQ(clusters[0],
            (std::vector<std::string>{"gitcode:o/r!166", "gitcode:o/r#68", "gitcode:o/r#69"}));
  EXPECT_EQ(clusters[1], (std::vector<std::string>{"gitcode:o/r!192", "gitcode:o/r!193",
                                                   "gitcode:o/r#19", "gitcode:o/r#43"}));
  EXPECT_EQ(g.RelatedIssues(R("gitcode:o/r#19")), (std::vector<std::string>{"gitcode:o/r#43"}));
  EXPECT_EQ(g.RelatedIssues(R("gitcode:o/r#68")), (std::vector<std::string>{"gitcode:o/r#69"}));
  EXPECT_TRUE(g.RelatedIssues(R("gitcode:o/r#5")).empty());
  EXPECT_TRUE(g.RelatedIssues(R("gitcode:o/r#404")).empty());
}

TEST(GraphView, MentionsJoinIssues) {
  GraphView g = GraphView::FromLinks(Sample(), {{R("gitcode:o/r#5"), R("gitcode:o/r#68")}});
  EXPECT_EQ(g.RelatedIssues(R("gitcode:o/r#5")),
            (std::vector<std::string>{"gitcode:o/r#68", "gitcode:o/r#69"}));
}

TEST(GraphView, DotOutputIsDeterministic) {
  std::vector<IssueLinks> links;
  links.push_back(
      Issue("gitcode:o/r#2", Resolution::kFixed,
            {Fix("gitcode:o/r!7", Tier::kA), Fix("https://example.org/pr/1", Tier::kB)}));
  std::ostringstream a, b;
  GraphView::FromLinks(links, {}).WriteDot(a);
  std::reverse(links.begin(), links.end());
  GraphView::FromLinks(links, {}).WriteDot(b);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_EQ(a.str(),
            "graph fixgraph {\n"
            "  graph [rankdir=LR, fontname=\"Helvetica\"];\n"
            "  node [fontname=\"Helvetica\", fontsize=10];\n"
            "  edge [fontname=\"Helvetica\", fontsize=9];\n"
            "  \"gitcode:o/r!7\" [label=\"o/r!7\\nmerged\", shape=box, style=filled, "
            "fillcolor=lightsteelblue];\n"
            "  \"gitcode:o/r#2\" [label=\"o/r#2\\nfixed\", shape=ellipse, style=filled, "
            "fillcolor=palegreen];\n"
            "  \"https://example.org/pr/1\" [label=\"https://example.org/pr/1\", shape=box, "
            "style=dashed];\n"
            "  \"gitcode:o/r!7\" -- \"gitcode:o/r#2\" [label=\"A\"];\n"
            "  \"gitcode:o/r#2\" -- \"https://example.org/pr/1\" [label=\"B\"];\n"
            "}\n");
}

using testing::GraphTest;

TEST_F(GraphTest, BuildFromTheStoreWithARepositoryFilter) {
  AddIssue("1", "a", "", "2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z");
  AddIssue("2", "b", "", "2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z");
  AddPull(10, "x", "fix #1\nfix #2", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  RepoRef other{Platform::kGitee, "x", "y"};
  AddIssue("IA1B2C", "c", "", "2026-03-01T00:00:00Z", "", "u", &other);
  AddComment(Ref::Issue(other, "IA1B2C"), "c1", "u", "类似 https://gitcode.com/o/r/issues/1",
             "2026-03-02T00:00:00Z");
  Commit();
  ASSERT_TRUE(LinkAll(store_.get(), options_, nullptr).ok());
  auto g = GraphView::Build(*store_, &repo_);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->Clusters().size(), 1u);
  EXPECT_EQ(g->RelatedIssues(IssueRef("1")),
            (std::vector<std::string>{"gitcode:o/r#2", "gitee:x/y#IA1B2C"}));
  std::ostringstream dot;
  ASSERT_TRUE(WriteDot(*store_, &repo_, dot).ok());
  EXPECT_NE(dot.str().find("\"gitcode:o/r!10\" -- \"gitcode:o/r#1\" [label=\"B\"]"),
            std::string::npos);
}

}  // namespace
}  // namespace fixgraph::graph
