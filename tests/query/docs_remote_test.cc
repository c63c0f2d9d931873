// The remote KG doc source against a loopback fake of the service.
#include "docs_fake_kg.h"
#include "testutil/testutil.h"

#include "fixgraph/query/docs.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace fixgraph::query {
namespace {

using fixgraph::testing::FakeKgServer;

void AddNodes(FakeKgServer& kg) {
  kg.nodes.push_back({"cann/hccl/hccl_buffsize.md#功能描述",
                      "HCCL_BUFFSIZE",
                      "缓冲区大小，单位MB",
                      "cann/docs/hccl/HCCL_BUFFSIZE.md",
                      {"HCCL_BUFFSIZE"},
                      0.93});
  kg.nodes.push_back({"cann/hccl/p2p.md",
                      "P2P_HCCL_BUFFSIZE",
                      "点对点通信缓冲区",
                      "cann/docs/hccl/P2P.md",
                      {"HCCL_BUFFSIZE", "P2P"},
                      0.78});
}

RemoteDocOptions Options(const FakeKgServer& kg) {
  RemoteDocOptions o;
  o.url = kg.Url() + "/";
  o.api_key = kg.api_key;
  o.timeout_seconds = 5;
  o.max_backoff_seconds = 0.2;
  return o;
}

TEST(DocsRemote, SearchSendsTheServiceShapeAndParsesResults) {
  FakeKgServer kg;
  AddNodes(kg);
  auto src = OpenRemoteDocSource(Options(kg));
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ((*src)->Name(), kg.Url());
  auto hits = (*src)->Search("HCCL_BUFFSIZE 设置多大", 5);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].id, "cann/hccl/hccl_buffsize.md#功能描述");
  EXPECT_EQ((*hits)[0].title, "HCCL_BUFFSIZE");
  EXPECT_EQ((*hits)[0].source, kg.Url());
  EXPECT_NEAR((*hits)[0].score, 0.93, 1e-9);
  EXPECT_EQ((*hits)[0].snippet, "缓冲区大小，单位MB");
  EXPECT_NEAR((*hits)[1].score, 0.78, 1e-9);

  auto reqs = kg.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].path, "/search");
  EXPECT_EQ(reqs[0].Header("x-api-key"), kg.api_key);
  auto body = nlohmann::json::parse(reqs[0].body);
  EXPECT_EQ(body["query"], "HCCL_BUFFSIZE 设置多大");
  EXPECT_EQ(body["top_k"], 5);
  for (auto it = body.begin(); it != body.end(); ++it)
    EXPECT_TRUE(it.key() == "query" || it.key() == "top_k" || it.key() == "with_neighbors" ||
                it.key() == "file_type" || it.key() == "source_repo")
        << it.key();
}

// Products a result lists are normalised to tags, and a support question
// learns which of the families it names each hit's page lists.
TEST(DocsRemote, ProductsAreTagsAndSupportQuestionsGetTheirAnswer) {
  FakeKgServer kg;
  AddNodes(kg);
  kg.nodes[0].products = {"Atlas A2 训练系列产品", "Atlas 推理系列产品"};
  auto src = OpenRemoteDocSource(Options(kg));
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto hits = (*src)->Search("HCCL_BUFFSIZE 在 910B 和 Atlas A3 上支持吗", 5);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].products, (std::vector<std::string>{"A2", "inference"}));
  EXPECT_EQ((*hits)[0].asked_products, (std::map<std::string, bool>{{"A2", true}, {"A3", false}}));
  EXPECT_TRUE((*hits)[1].asked_products.empty());  // its page lists no products
  // Not a support question: no answer.
  hits = (*src)->Search("HCCL_BUFFSIZE 在 910B 上设置多大", 5);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_TRUE((*hits)[0].asked_products.empty());
}

TEST(DocsRemote, LimitIsClampedToTheServiceRangeAndEmptyQuerySendsNothing) {
  FakeKgServer kg;
  AddNodes(kg);
  auto src = OpenRemoteDocSource(Options(kg));
  ASSERT_TRUE(src.ok());
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 5000);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_EQ(nlohmann::json::parse(kg.Requests()[0].body)["top_k"], 200);
  auto none = (*src)->Search("   ", 5);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(kg.Requests().size(), 1u);
}

TEST(DocsRemote, StringScoresAreParsed) {
  FakeKgServer kg;
  AddNodes(kg);
  kg.string_scores = true;
  auto src = OpenRemoteDocSource(Options(kg));
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 5);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_NEAR((*hits)[0].score, 0.93, 1e-6);
  EXPECT_NEAR((*hits)[1].score, 0.78, 1e-6);
}

TEST(DocsRemote, DegradedAnswersKeepZeroScores) {
  FakeKgServer kg;
  AddNodes(kg);
  kg.degraded = true;
  auto src = OpenRemoteDocSource(Options(kg));
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 5);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);
  for (const DocHit& h : *hits) EXPECT_EQ(h.score, 0.0);
}

TEST(DocsRemote, RateLimitIsRetriedAfterRetryAfter) {
  FakeKgServer kg;
  AddNodes(kg);
  kg.rate_limit_first = 2;
  kg.retry_after = "0.05";
  auto src = OpenRemoteDocSource(Options(kg));
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 5);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_EQ(hits->size(), 2u);
  EXPECT_EQ(kg.Requests().size(), 3u);
}

TEST(DocsRemote, PersistentRateLimitFailsAfterTheRetries) {
  FakeKgServer kg;
  AddNodes(kg);
  kg.rate_limit_first = 100;
  kg.retry_after = "";  // exponential backoff, capped by max_backoff_seconds
  RemoteDocOptions o = Options(kg);
  o.max_retries = 2;
  o.max_backoff_seconds = 0.05;
  auto src = OpenRemoteDocSource(o);
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 5);
  ASSERT_FALSE(hits.ok());
  EXPECT_EQ(hits.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(hits.status().message().find("429"), std::string::npos) << hits.status().message();
  EXPECT_EQ(kg.Requests().size(), 3u);
}

TEST(DocsRemote, WrongPathIsNotFound) {
  FakeKgServer kg;
  RemoteDocOptions bad = Options(kg);
  bad.url = kg.Url() + "/v2";
  auto src = OpenRemoteDocSource(bad);
  ASSERT_TRUE(src.ok());
  auto r = (*src)->Search("x", 3);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("NOT_FOUND"), std::string::npos);
  EXPECT_NE(r.status().message().find("/v2/search"), std::string::npos);
}

TEST(DocsRemote, FiltersAreSentAndA422QuotesTheServiceDetail) {
  FakeKgServer kg;
  AddNodes(kg);
  RemoteDocOptions o = Options(kg);
  o.file_type = "md";
  o.source_repo = "cann/docs";
  auto src = OpenRemoteDocSource(o);
  auto ok = (*src)->Search("HCCL_BUFFSIZE", 3);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto body = nlohmann::json::parse(kg.Requests()[0].body);
  EXPECT_EQ(body["file_type"], "md");
  EXPECT_EQ(body["source_repo"], "cann/docs");

  o.file_type = "pdf";  // the service validates the value
  auto src2 = OpenRemoteDocSource(o);
  auto bad = (*src2)->Search("HCCL_BUFFSIZE", 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("422"), std::string::npos);
  EXPECT_NE(bad.status().message().find("file_type"), std::string::npos) << bad.status().message();
}

TEST(DocsRemote, ErrorsNeverContainTheApiKey) {
  FakeKgServer kg;
  kg.echo_key_in_errors = true;
  RemoteDocOptions o = Options(kg);
  // Wrong key: the careless server quotes it back in its 401 detail.
  o.api_key = "my-very-secret-token-XYZ";
  auto src = OpenRemoteDocSource(o);
  auto r = (*src)->Search("HCCL", 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("401"), std::string::npos);
  EXPECT_EQ(r.status().ToString().find("my-very-secret-token-XYZ"), std::string::npos)
      << r.status().ToString();
  // Right key, rate limited with the key echoed.
  kg.rate_limit_first = 100;
  RemoteDocOptions o2 = Options(kg);
  o2.max_retries = 0;
  auto src2 = OpenRemoteDocSource(o2);
  auto r2 = (*src2)->Search("HCCL", 3);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().ToString().find(kg.api_key), std::string::npos);
  EXPECT_EQ((*src2)->Name().find(kg.api_key), std::string::npos);
}

TEST(DocsRemote, TimeoutIsAnError) {
  FakeKgServer kg;
  AddNodes(kg);
  kg.delay_ms = 1500;
  RemoteDocOptions o = Options(kg);
  o.timeout_seconds = 0.3;
  auto src = OpenRemoteDocSource(o);
  auto r = (*src)->Search("HCCL_BUFFSIZE", 3);
  // No wall-clock bound (a loaded CI machine can stall any process): had the
  // client waited for the delayed answer, the search would have succeeded.
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status().message().find("timed out"), std::string::npos) << r.status().message();
}

TEST(DocsRemote, RefusedConnectionAndBadUrl) {
  int port;
  {
    FakeKgServer kg;
    port = std::stoi(kg.Url().substr(kg.Url().rfind(':') + 1));
  }
  RemoteDocOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(port);
  o.timeout_seconds = 2;
  auto src = OpenRemoteDocSource(o);
  ASSERT_TRUE(src.ok());
  auto r = (*src)->Search("x", 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
  o.url = "ftp://example.org";
  EXPECT_FALSE(OpenRemoteDocSource(o).ok());
}

TEST(DocsRemote, NameHidesUserInfo) {
  RemoteDocOptions o;
  o.url = "https://user:pw@kg.example.org/api/?token=abc";
  auto src = OpenRemoteDocSource(o);
  ASSERT_TRUE(src.ok());
  EXPECT_EQ((*src)->Name(), "https://kg.example.org/api");
}

// --- OpenDocSources -----------------------------------------------------------

TEST(DocsSources, NothingConfiguredGivesAnEmptySource) {
  fixgraph::testing::TempDir dir;
  auto src = OpenDocSources(dir.path(), DocSourceConfig{});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 5);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
}

TEST(DocsSources, ModeValidation) {
  fixgraph::testing::TempDir dir;
  {
    DocSourceConfig c;
    c.mode = "remote";
    auto src = OpenDocSources(dir.path(), c);
    ASSERT_FALSE(src.ok());
    EXPECT_NE(src.status().message().find("FIXGRAPH_KG_URL"), std::string::npos);
  }
  {
    DocSourceConfig c;
    c.mode = "everything";
    EXPECT_FALSE(OpenDocSources(dir.path(), c).ok());
    c.mode = "LOCAL";  // any case
    EXPECT_TRUE(OpenDocSources(dir.path(), c).ok());
  }
  {
    DocSourceConfig c;
    c.url = "http://127.0.0.1:9";
    c.timeout = "soon";
    auto src = OpenDocSources(dir.path(), c);
    ASSERT_FALSE(src.ok());
    EXPECT_NE(src.status().message().find("FIXGRAPH_KG_TIMEOUT"), std::string::npos);
  }
}

TEST(DocsSources, BothMergesByScoreAndDedupesById) {
  fixgraph::testing::TempDir dir;
  fixgraph::testing::WriteFile(
      dir / "in/kg.jsonl",
      R"({"id":"cann/hccl/p2p.md","title":"P2P_HCCL_BUFFSIZE","text":"P2P_HCCL_BUFFSIZE HCCL_BUFFSIZE point to point buffer size in MB"})"
      "\n"
      R"({"id":"local/only","title":"HCCL_BUFFSIZE buffer","text":"HCCL_BUFFSIZE sets the collective buffer size in MB"})"
      "\n");
  DocImportStats st;
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "in/kg.jsonl"}, &st).ok());
  FakeKgServer kg;
  AddNodes(kg);
  DocSourceConfig c;
  c.url = kg.Url();
  c.api_key = kg.api_key;
  c.mode = "both";
  auto src = OpenDocSources(dir / "db", c);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto hits = (*src)->Search("HCCL_BUFFSIZE", 10);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  std::map<std::string, int> count;
  bool has_local = false, has_remote = false;
  for (size_t i = 0; i < hits->size(); ++i) {
    ++count[(*hits)[i].id];
    if (i > 0) {
      EXPECT_GE((*hits)[i - 1].score, (*hits)[i].score);
    }
    has_local |= (*hits)[i].source == "local";
    has_remote |= (*hits)[i].source == kg.Url();
  }
  EXPECT_TRUE(has_local);
  EXPECT_TRUE(has_remote);
  EXPECT_EQ(count["cann/hccl/p2p.md"], 1);
  EXPECT_EQ(hits->size(), 3u);

  // Remote down: local hits still come back, with a warning naming the remote.
  kg.delay_ms = 0;
  kg.rate_limit_first = 1000;
  c.timeout = "1";
  auto src2 = OpenDocSources(dir / "db", c);
  ASSERT_TRUE(src2.ok());
  std::vector<std::string> warnings;
  auto partial = SearchWithWarnings(**src2, "HCCL_BUFFSIZE", 10, &warnings);
  ASSERT_TRUE(partial.ok()) << partial.status().ToString();
  EXPECT_EQ(partial->size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(kg.Url()), std::string::npos);
  EXPECT_EQ(warnings[0].find(kg.api_key), std::string::npos);
  c.mode = "local";
  auto src3 = OpenDocSources(dir / "db", c);
  ASSERT_TRUE(src3.ok());
  EXPECT_EQ((*src3)->Name(), "local");
}

}  // namespace
}  // namespace fixgraph::query
