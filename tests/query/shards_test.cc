// Indexes split into shards (fixgraph/query/shards.h), read from disk
// through the stubs `index split` writes; the loopback test with
// xapian-tcpsrv is tests/cli/shards_test.cc.
#include "fixgraph/query/shards.h"

#include "ask_fixture.h"

#include <filesystem>

namespace fixgraph::query::testing {
namespace {

std::vector<std::pair<std::string, double>> Hits(Searcher& s, const std::string& q) {
  AskOptions o;
  o.limit = 10;
  o.min_score = 0;
  auto r = s.Ask(q, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::pair<std::string, double>> out;
  if (r.ok())
    for (const AskHit& h : r->hits) out.emplace_back(h.issue.ToString(), h.score);
  return out;
}

// An index with dead documents (an issue updated twice): over two shards the
// dead ones are never hits and the others rank and score as in the index
// (queries of at most three units: the partial-match pass of a longer one
// picks its units otherwise over shards, docs/deploy.md "Shards").
TEST_F(AskTest, ShardsOfAnIndexWithDeadDocumentsAnswerAsIt) {
  AddCorpus();
  LinkAndIndex();
  for (int round = 0; round < 2; ++round) {
    AddIssue("2", "Bus error in aclnnSoftmaxGrad " + std::to_string(round),
             "stack overflow in the grad kernel", "2026-03-03T10:00:00Z");
    Commit();
    ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("2")}).ok());
  }
  fixgraph::testing::TempDir out;
  const std::string dir = out.path() + "/shards";
  SplitStats st;
  Status s = SplitIndexes(db_.path(), dir, 2, &st);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(st.shards, 2u);
  EXPECT_EQ(st.dead, 2u);
  EXPECT_EQ(st.issue_documents, 5u);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/index-issues"));
  EXPECT_FALSE(std::filesystem::exists(dir + ".tmp"));
  auto single = OpenSearcher();
  auto sharded = Searcher::Open(dir);
  ASSERT_TRUE(sharded.ok()) << sharded.status().ToString();
  for (const char* q : {"segmentation fault", "EZ9999", "bus error aclnnSoftmaxGrad",
                        "显存不足 OOM", "grad kernel overflow", "安装文档链接"}) {
    auto want = Hits(*single, q);
    EXPECT_EQ(Hits(**sharded, q), want) << q;
  }
  EXPECT_TRUE(Hits(**sharded, "segmentation fault").empty());
  // An existing out dir is refused, nothing written.
  EXPECT_EQ(SplitIndexes(db_.path(), dir, 2).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(SplitIndexes(db_.path(), out.path() + "/x", 0).code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(out.path() + "/x"));
}

TEST_F(AskTest, StubWithABadLineIsRefusedNamingTheLine) {
  AddCorpus();
  LinkAndIndex();
  fixgraph::testing::TempDir reader;
  fixgraph::testing::WriteFile(reader.path() + "/index-issues",
                               "# shards\nremote 127.0.0.1:7001\ntcp 127.0.0.1 7002\n");
  auto s = Searcher::Open(reader.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("index-issues:3: expected \"remote HOST:PORT\""),
            std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace fixgraph::query::testing
