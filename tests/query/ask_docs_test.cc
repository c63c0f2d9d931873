// The doc fallback of Searcher::Ask (ask.h): which questions consult the doc
// sources, and that a question the docs cannot change is answered without
// asking them. The doc source is the loopback KG fake (docs_fake_kg.h), whose
// request log shows every search.
#include "ask_fixture.h"
#include "docs_fake_kg.h"
#include "testutil/testutil.h"

#include "fixgraph/query/docs.h"

#include <string>

namespace fixgraph::query::testing {
namespace {

using fixgraph::testing::FakeKgServer;

class AskDocsTest : public AskTest {
 protected:
  void SetUp() override {
    AskTest::SetUp();
    // One node for every question below: its words are in each of them.
    kg_.nodes.push_back({"cann/docs/oom.md#处理", "显存不足的处理", "减小 batch size",
                         "cann/docs/oom.md",
                         std::vector<std::string>{"OOM", "EZ9999", "zulu", "HCCL"}, 0.92});
    // A fixed issue naming hardware in its title (as #1 is fixed).
    AddIssue("4", "910B HCCL 初始化失败", "hccl init fails", "2026-03-06T10:00:00Z",
             "2026-03-07T10:00:05Z");
    AddPull(14, "修复 HCCL 初始化 fix #4", "初始化前先检查设备", "2026-03-07T09:00:00Z",
            "2026-03-07T10:00:04Z");
    AddCorpus();
    LinkAndIndex();
    DocSourceConfig config;
    config.mode = "remote";
    config.url = kg_.Url();
    config.api_key = kg_.api_key;
    auto s = Searcher::Open(db_.path(), config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    searcher_ = std::move(s).value();
  }

  // Asks `q`; the number of doc searches it made.
  size_t DocSearches(const std::string& q, AskResult* out) {
    const size_t before = kg_.Requests().size();
    auto r = searcher_->Ask(q, AskOptions());
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    if (r.ok()) *out = std::move(r).value();
    return kg_.Requests().size() - before;
  }

  FakeKgServer kg_;
  std::unique_ptr<Searcher> searcher_;
};

TEST_F(AskDocsTest, BestIssueAtOneIsAnsweredWithoutSearchingTheDocs) {
  // Issue #1's own title: every unit in the title of a fixed issue (score 1),
  // no hardware named. No doc can score above it.
  AskResult r;
  EXPECT_EQ(DocSearches("训练时显存不足 OOM", &r), 0u);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits.front().issue.number, "1");
  EXPECT_DOUBLE_EQ(r.hits.front().score, 1.0);
  EXPECT_TRUE(r.docs.empty());
  EXPECT_FALSE(r.fallback);
}

TEST_F(AskDocsTest, HardwareWeakAndLesserIssueQuestionsSearchTheDocs) {
  AskResult r;
  // Names hardware: the docs are part of the answer whatever the issues say.
  EXPECT_EQ(DocSearches("910B HCCL 初始化失败", &r), 1u);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_DOUBLE_EQ(r.hits.front().score, 1.0);
  EXPECT_FALSE(r.docs.empty());
  EXPECT_TRUE(r.fallback);
  // No issue fits: the docs are the answer.
  EXPECT_EQ(DocSearches("zulu", &r), 1u);
  EXPECT_TRUE(r.hits.empty());
  ASSERT_FALSE(r.docs.empty());
  EXPECT_EQ(r.docs.front().id, "cann/docs/oom.md#处理");
  // The open issue #2 scores below 1 (its prior): the doc at 0.92 leads it.
  EXPECT_EQ(DocSearches("Segmentation fault with EZ9999", &r), 1u);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits.front().issue.number, "2");
  EXPECT_LT(r.hits.front().score, 0.92);
  EXPECT_TRUE(r.docs_first);
}

TEST_F(AskDocsTest, NoDocsOptionNeverSearchesThem) {
  AskOptions o;
  o.with_docs = false;
  const size_t before = kg_.Requests().size();
  auto got = searcher_->Ask("zulu 910B", o);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(kg_.Requests().size(), before);
  EXPECT_TRUE(got->docs.empty());
}

// A one-question searcher (a CLI ask) opens the doc sources at the first
// question that searches them, not in Open: docs imported after Open are
// found by that question. A server's searcher opened them in Open (no doc
// index yet: nothing behind them).
TEST_F(AskTest, OneQuestionSearcherOpensTheDocsWhenAQuestionSearchesThem) {
  AddCorpus();
  LinkAndIndex();
  auto one = Searcher::Open(db_.path(), DocSourceConfig(), SearcherUse::kOneQuestion);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  auto serving = Searcher::Open(db_.path(), DocSourceConfig(), SearcherUse::kServing);
  ASSERT_TRUE(serving.ok()) << serving.status().ToString();
  ASSERT_TRUE(ImportDocs(db_.path(), {fixgraph::testing::SourceDir() + "/data/kg"}, nullptr).ok());
  // Names hardware: the docs are searched.
  const std::string q = "TORCH_TRANSFER_TO_NPU on 910B";
  auto a = (*one)->Ask(q, AskOptions());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_FALSE(a->docs.empty());
  EXPECT_EQ(a->docs.front().id, "fixgraph-kg/torch-npu/transfer-to-npu");
  auto b = (*serving)->Ask(q, AskOptions());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(b->docs.empty());
}

}  // namespace
}  // namespace fixgraph::query::testing
