// A small hand-built store (tests/graph/graph_fixture.h) with an issue index
// beside it, for the ask and index tests.
#pragma once

#include "../graph/graph_fixture.h"

#include "fixgraph/query/ask.h"

#include <memory>
#include <string>
#include <vector>

namespace fixgraph::query::testing {

class AskTest : public graph::testing::GraphTest {
 protected:
  // Three issues of gitcode:o/r:
  //   #1 closed, fixed by merged PR !11 (closed at the merge second): OOM
  //   #2 open: crash with EZ9999 on 910B
  //   #3 closed, answered by a maintainer comment: a docs link
  void AddCorpus() {
    AddIssue("1", "训练时显存不足 OOM",
             "batch 64 on 910B: out of memory in aclnnFlashAttentionScore", "2026-03-01T10:00:00Z",
             "2026-03-02T10:00:05Z");
    AddPull(11, "修复 FlashAttention workspace 显存泄漏 fix #1",
            "将 workspace 改为复用，避免重复申请显存", "2026-03-02T09:00:00Z",
            "2026-03-02T10:00:04Z");
    AddIssue("2", "Segmentation fault with EZ9999 when launching", "core dumped, error code EZ9999",
             "2026-03-03T10:00:00Z");
    AddIssue("3", "安装文档链接 404", "安装指南里的下载链接打不开", "2026-03-04T10:00:00Z",
             "2026-03-05T10:00:00Z");
    AddComment(IssueRef("3"), "c1", "maintainer",
               "链接已更新，请改用新的下载地址 https://example.invalid/dl", "2026-03-05T09:59:00Z");
    Commit();
  }

  void LinkAndIndex() {
    graph::LinkStats stats;
    ASSERT_TRUE(graph::LinkAll(store_.get(), options_, &stats).ok());
    Status s = RebuildIssueIndex(*store_, db_.path());
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::unique_ptr<Searcher> OpenSearcher() {
    auto s = Searcher::Open(db_.path());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }

  // Links, indexes and asks `query` for 10 hits; every hit must be one of
  // the issues numbered 1..max_number.
  void ExpectTenHitsAmongFirst(const std::string& query, int max_number) {
    LinkAndIndex();
    auto searcher = OpenSearcher();
    ASSERT_NE(searcher, nullptr);
    AskOptions o;
    o.limit = 10;
    auto r = searcher->Ask(query, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->hits.size(), 10u);
    for (const AskHit& h : r->hits)
      EXPECT_LE(std::stoi(h.issue.number), max_number) << h.issue.ToString();
  }

  // Issues 1..bodies.size() - 1 of gitcode:o/r, each titled "report N" with
  // the body bodies[N] ("lima" when empty), the first `closed` of them closed
  // (a higher prior than the open rest), linked and indexed; the hits of
  // `query` (at most `limit`, at any score). A failure is reported and gives
  // no hits.
  std::vector<AskHit> AskOverBodies(const std::vector<std::string>& bodies,
                                    const std::string& query, size_t limit, size_t closed = 0) {
    for (size_t i = 1; i < bodies.size(); ++i)
      AddIssue(std::to_string(i), "report " + std::to_string(i),
               bodies[i].empty() ? "lima" : bodies[i], "2026-03-01T10:00:00Z",
               i <= closed ? "2026-03-02T10:00:00Z" : "");
    Commit();
    LinkAndIndex();
    return AskHits(query, limit);
  }

  // The hits of `query` over the index as it stands (at most `limit`, at
  // any score). A failure is reported and gives no hits.
  std::vector<AskHit> AskHits(const std::string& query, size_t limit) {
    auto searcher = OpenSearcher();
    if (searcher == nullptr) return {};
    AskOptions o;
    o.limit = limit;
    o.min_score = 0;
    auto r = searcher->Ask(query, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->hits : std::vector<AskHit>{};
  }

  // The issue refs of the hits, best first.
  static std::vector<std::string> Refs(const AskResult& r) {
    std::vector<std::string> out;
    for (const AskHit& h : r.hits) out.push_back(h.issue.ToString());
    return out;
  }

  fixgraph::testing::TempDir db_;
};

}  // namespace fixgraph::query::testing
