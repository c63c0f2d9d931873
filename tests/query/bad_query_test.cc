// Bad queries get a clear message or an empty result, never a crash. (The
// command line's messages and exit codes: tests/cli/ask_cli_test.cc.)
#include "ask_fixture.h"

namespace fixgraph::query::testing {
namespace {

class BadQueryTest : public AskTest {
 protected:
  void SetUp() override {
    AskTest::SetUp();
    AddCorpus();
    LinkAndIndex();
    searcher_ = OpenSearcher();
    ASSERT_NE(searcher_, nullptr);
  }
  std::unique_ptr<Searcher> searcher_;
};

TEST_F(BadQueryTest, EmptyAndPunctuationAreInvalidArgumentsWithAMessage) {
  for (std::string q :
       {std::string(""), std::string("   \n\t "), std::string("!!! ??? ... ,,, ---"),
        std::string("（）【】。，"), std::string("\"\"\"")}) {
    auto r = searcher_->Ask(q, AskOptions());
    ASSERT_FALSE(r.ok()) << q;
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("nothing to search"), std::string::npos);
  }
}

TEST_F(BadQueryTest, OperatorsAndQuotesAreJustText) {
  for (std::string q : {"\"EZ9999", "EZ9999\" OR", "AND AND EZ9999", "EZ9999 NOT NEAR/3 (",
                        "title:EZ9999", "EZ9999*", "+EZ9999 -crash", "EZ9999 ~ ^ $ \\"}) {
    auto r = searcher_->Ask(q, AskOptions());
    ASSERT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    ASSERT_FALSE(r->hits.empty()) << q;
    EXPECT_EQ(r->hits[0].issue, IssueRef("2")) << q;
  }
  // Only operator words: nothing to search, said plainly.
  auto r = searcher_->Ask("AND AND", AskOptions());
  if (r.ok())
    EXPECT_TRUE(r->hits.empty() || r->hits[0].score >= 0);
  else
    EXPECT_TRUE(r.status().IsInvalidArgument());
}

TEST_F(BadQueryTest, InvalidUtf8IsReplacedNotFatal) {
  std::string q = "EZ9999 \xff\xfe\xc3\x28 \xe6\x98 \x80";
  auto r = searcher_->Ask(q, AskOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("2"));
  std::string only_bad = "\xff\xfe\xfd\x80\x81";
  auto r2 = searcher_->Ask(only_bad, AskOptions());
  EXPECT_FALSE(r2.ok());
  // The JSON of a result for bad bytes still serialises.
  EXPECT_NO_THROW(ToJson(*r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

TEST_F(BadQueryTest, TenMegabytesIsSearchedByItsSignature) {
  std::string big;
  big.reserve(10 * 1024 * 1024 + 100);
  while (big.size() < 10 * 1024 * 1024)
    big += "[INFO] 2026-03-01 10:00:00 step 12 loss 1.234 throughput 55.1 samples/s\n";
  big += "[ERROR] 2026-03-01 10:00:01 launch failed with EZ9999\n";
  auto r = searcher_->Ask(big, AskOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("2"));
  EXPECT_LT(r->searched.size(), 10000u);
  EXPECT_LE(r->query.size(), 2000u);
  // One 10 MB token without spaces.
  auto r2 = searcher_->Ask(std::string(10 * 1024 * 1024, 'x'), AskOptions());
  EXPECT_TRUE(r2.ok() ? r2->hits.empty() : r2.status().IsInvalidArgument());
  // Beyond the limit: a clear refusal.
  auto r3 = searcher_->Ask(std::string(kMaxQueryBytes + 1, 'a'), AskOptions());
  ASSERT_FALSE(r3.ok());
  EXPECT_TRUE(r3.status().IsInvalidArgument());
}

TEST_F(BadQueryTest, LimitIsClamped) {
  AskOptions o;
  o.limit = 0;
  auto r = searcher_->Ask("EZ9999", o);
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->hits.size(), 1u);
  o.limit = 1000000;
  r = searcher_->Ask("EZ9999", o);
  ASSERT_TRUE(r.ok());
}

}  // namespace
}  // namespace fixgraph::query::testing
