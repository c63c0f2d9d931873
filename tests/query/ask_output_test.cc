// What ask reads back from the index: hits with or without decoded fixes
// (AskOptions::decode_fixes), the JSON document as a tree (ToJson) and as text
// (ToJsonText), and the order of many equal title matches (the prior as a
// Xapian weight).
#include "ask_fixture.h"

#include <set>

namespace fixgraph::query::testing {
namespace {

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST_F(AskTest, JsonTextAndUndecodedFixesGiveTheSameDocument) {
  AddCorpus();
  // Quotes, a backslash, a tab and a non-ASCII word in a title: stored escaped.
  AddIssue("4", "OOM \"workspace\" C:\\npu\tpath 显存", "out of memory again",
           "2026-03-06T10:00:00Z");
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  for (const char* q :
       {"aclnnFlashAttentionScore out of memory", "workspace OOM 显存", "EZ9999", "安装 链接"}) {
    AskOptions decoded;
    decoded.limit = 10;
    AskOptions as_text = decoded;
    as_text.decode_fixes = false;
    auto a = searcher->Ask(q, decoded);
    auto b = searcher->Ask(q, as_text);
    ASSERT_TRUE(a.ok() && b.ok()) << q;
    ASSERT_FALSE(a->hits.empty()) << q;
    ASSERT_EQ(a->hits.size(), b->hits.size()) << q;
    for (size_t i = 0; i < b->hits.size(); ++i) {
      EXPECT_TRUE(b->hits[i].fixes.empty()) << q;
      EXPECT_EQ(b->hits[i].fixes_json, a->hits[i].fixes_json) << q;
      EXPECT_EQ(b->hits[i].title, a->hits[i].title) << q;
      EXPECT_EQ(b->hits[i].issue, a->hits[i].issue) << q;
      EXPECT_EQ(b->hits[i].resolution, a->hits[i].resolution) << q;
    }
    const std::string want = Dump(ToJson(*a));
    EXPECT_EQ(Dump(ToJson(*b)), want) << q;
    EXPECT_EQ(ToJsonText(*a), want) << q;
    EXPECT_EQ(ToJsonText(*b), want) << q;
  }
  // The fixed issue carries its fix both ways.
  auto a = searcher->Ask("aclnnFlashAttentionScore out of memory", AskOptions());
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->hits[0].issue, IssueRef("1"));
  ASSERT_EQ(a->hits[0].fixes.size(), 1u);
  EXPECT_NE(a->hits[0].fixes_json.find(a->hits[0].fixes[0].pr), std::string::npos)
      << a->hits[0].fixes_json;
  // The escaped title reads back as written.
  AskOptions as_text;
  as_text.limit = 10;
  as_text.decode_fixes = false;
  auto t = searcher->Ask("workspace OOM npu", as_text);
  ASSERT_TRUE(t.ok());
  bool found = false;
  for (const AskHit& h : t->hits)
    if (h.issue == IssueRef("4")) found = h.title == "OOM \"workspace\" C:\\npu\tpath 显存";
  EXPECT_TRUE(found);
}

TEST_F(AskTest, ManyEqualTitleMatchesYieldTheBestResolvedFirst) {
  // 120 open issues share a title (more than the 40 candidates a search
  // keeps); four spread over them get fixed. Every issue matches equally, so
  // the four fixed ones come first, wherever the matcher meets them.
  const std::set<int> fixed = {1003, 1047, 1090, 1118};
  for (int i = 1001; i <= 1120; ++i) {
    std::string n = std::to_string(i);
    if (fixed.count(i) == 0) {
      AddIssue(n, "HCCL allreduce timeout on 8 cards", "see the log", "2026-03-01T10:00:00Z");
      continue;
    }
    AddIssue(n, "HCCL allreduce timeout on 8 cards", "see the log", "2026-03-01T10:00:00Z",
             "2026-03-02T10:00:05Z");
    AddPull(i + 1000, "fix #" + n + ": raise HCCL_CONNECT_TIMEOUT",
            "设置 HCCL_CONNECT_TIMEOUT 为 600", "2026-03-02T09:00:00Z", "2026-03-02T10:00:04Z");
  }
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  for (const std::string& repo : {std::string(), std::string("gitcode:o/r")}) {
    AskOptions o;
    o.limit = 6;
    o.repo = repo;
    auto r = searcher->Ask("allreduce timeout hccl", o);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->hits.size(), 6u);
    std::set<int> top;
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(r->hits[i].resolution, graph::Resolution::kFixed) << i;
      top.insert(std::stoi(r->hits[i].issue.number));
    }
    EXPECT_EQ(top, fixed);
    EXPECT_EQ(r->hits[4].resolution, graph::Resolution::kOpen);
    EXPECT_GT(r->hits[3].score, r->hits[4].score);
  }
}

TEST_F(AskTest, FewTitleMatchesKeepTheirPlaceAboveBodyMatches) {
  // One open issue's title holds all eight words of the query; no other issue
  // holds them all, so the partial-match pass ranks the candidates. Eight
  // fixed issues hold the four rare words in their titles and repeat them in
  // their bodies (the other four are in every issue), so BM25 and their
  // better prior alone put all eight above the title match, out of the top
  // five. Fewer title matches than `limit` still rank as title matches do
  // (relevance 1), ahead of the partial matches that fill the other places.
  const std::string rare = "alpha bravo charlie delta";
  AddIssue("1", rare + " echo foxtrot golf hotel", "see the attached log", "2026-03-01T10:00:00Z");
  for (int i = 2; i <= 9; ++i) {
    std::string n = std::to_string(i);
    AddIssue(n, rare + " report " + n, rare + ". " + rare + ". " + rare + ".",
             "2026-03-01T10:00:00Z", "2026-03-02T10:00:05Z");
    AddPull(100 + i, "fix #" + n, "changed the loader", "2026-03-02T09:00:00Z",
            "2026-03-02T10:00:04Z");
  }
  for (int i = 10; i <= 200; ++i)
    AddIssue(std::to_string(i), "echo foxtrot golf hotel", "echo foxtrot golf hotel",
             "2026-03-01T10:00:00Z");
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  for (const char* q : {"alpha bravo charlie delta echo foxtrot golf hotel",
                        "hotel golf foxtrot echo delta charlie bravo alpha"}) {
    AskOptions o;
    o.limit = 5;
    auto r = searcher->Ask(q, o);
    ASSERT_TRUE(r.ok()) << q;
    ASSERT_EQ(r->hits.size(), 5u) << q;
    EXPECT_EQ(r->hits[0].issue, IssueRef("1")) << q;
    for (size_t i = 1; i < r->hits.size(); ++i) {
      EXPECT_EQ(r->hits[i].resolution, graph::Resolution::kFixed) << q << " " << i;
      EXPECT_GE(r->hits[i - 1].score, r->hits[i].score) << q << " " << i;
    }
  }
}

}  // namespace
}  // namespace fixgraph::query::testing

namespace fixgraph::query::testing {
namespace {

// Every hit carries the timeline flags its stored links hold (a fix merged
// long before the close: close_lag), as the decoded flags and in both JSON
// forms.
TEST_F(AskTest, HitsCarryTheFlagsOfTheirLinks) {
  AddCorpus();
  AddIssue("5", "HCCL allreduce hangs on 16 cards", "allreduce never returns with 16 ranks",
           "2026-03-06T10:00:00Z", "2026-03-30T10:00:00Z");
  AddPull(15, "fix allreduce hang with 16 ranks, fix #5", "wait for every rank before the barrier",
          "2026-03-07T10:00:00Z", "2026-03-08T10:00:00Z");
  Commit();
  LinkAndIndex();
  auto links = graph::ReadLinks(*store_, IssueRef("5"));
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_TRUE(links->HasFlag(graph::Flag::kCloseLag));
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  for (bool decode : {true, false}) {
    AskOptions o;
    o.decode_fixes = decode;
    auto r = searcher->Ask("allreduce hangs 16 cards", o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->hits.empty());
    ASSERT_EQ(r->hits[0].issue, IssueRef("5"));
    EXPECT_EQ(r->hits[0].flags, links->flags);
    nlohmann::json tree = ToJson(*r);
    EXPECT_EQ(tree["hits"][0]["flags"], nlohmann::json::array({"close_lag"}));
    EXPECT_EQ(nlohmann::json::parse(ToJsonText(*r)), tree);
  }
}

// The answer of a hit is the whole passage of the resolving comment: the
// diagnosis and every step, not the sentences that happen to hold a cue.
TEST_F(AskTest, TheAnswerIsTheWholeDiagnosisAndStepsOfTheResolvingComment) {
  AddCorpus();
  AddIssue("6", "import apex_ext 报 undefined symbol", "ImportError: undefined symbol _ZN3c104cuda",
           "2026-03-06T10:00:00Z", "2026-03-08T10:00:00Z");
  AddComment(IssueRef("6"), "c6", "maintainer",
             "这个符号来自 torch 的 C++ 库，说明编译时和运行时加载的 torch 不是同一份。\n"
             "1. 确认编译与运行在同一个 Python 环境；\n"
             "2. 先 `pip uninstall -y apex_ext` 清掉旧的 so；\n"
             "3. 用 `pip install --no-build-isolation .` 重新编译。",
             "2026-03-06T12:00:00Z");
  AddComment(IssueRef("6"), "c7", "reporter", "重新编译后可以正常 import 了，谢谢，关闭。",
             "2026-03-08T09:59:00Z");
  Commit();
  LinkAndIndex();
  auto links = graph::ReadLinks(*store_, IssueRef("6"));
  ASSERT_TRUE(links.ok() && links->answer) << "the linker found no answer comment";
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  auto r = searcher->Ask("apex_ext undefined symbol", AskOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  ASSERT_EQ(r->hits[0].issue, IssueRef("6"));
  const std::string& a = r->hits[0].answer;
  EXPECT_EQ(r->hits[0].answer_source, "comment");
  EXPECT_EQ(a.rfind("这个符号来自 torch", 0), 0u) << a;
  for (const char* step : {"1. 确认编译", "2. 先", "3. 用"})
    EXPECT_NE(a.find(step), std::string::npos) << a;
}

}  // namespace
}  // namespace fixgraph::query::testing

namespace fixgraph::query::testing {
namespace {

// The noise floor drops the hits below it, issue and doc alike, and counts
// them; 0 keeps all. The default is kDefaultMinScore.
// Fixes read from an index document's JSON (decode_fixes off): a tier of
// another type than string is no tier (value() threw json::type_error).
TEST(AskJson, UndecodedFixWithATierOfAnotherTypeIsNotSuggested) {
  AskResult r;
  AskHit h;
  h.issue = *ParseRef("gitcode:o/r#1");
  h.fixes_json = R"([{"pr": "gitcode:o/r!1", "tier": 3}, {"pr": "gitcode:o/r!2", "tier": "D"}, 7])";
  r.hits.push_back(h);
  nlohmann::json j;
  ASSERT_NO_THROW(j = ToJson(r));
  EXPECT_EQ(j["hits"][0]["fixes"].size(), 2u);  // the fix of tier 3, and 7
  ASSERT_EQ(j["hits"][0]["suggested"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["suggested"][0]["pr"], "gitcode:o/r!2");
}

TEST(AskNoiseFloor, DropsHitsBelowTheFloorAndCountsThem) {
  AskResult r;
  for (double s : {0.9, 0.3, 0.07, 0.03}) {
    AskHit h;
    h.score = s;
    r.hits.push_back(h);
  }
  DocHit d;
  d.score = 0.05;
  r.docs.push_back(d);
  r.fallback = true;
  AskResult all = r;
  ApplyNoiseFloor(&all, 0);
  EXPECT_EQ(all.hits.size(), 4u);
  EXPECT_EQ(all.dropped, 0u);
  ApplyNoiseFloor(&r, 0.10);
  ASSERT_EQ(r.hits.size(), 2u);
  EXPECT_EQ(r.hits[1].score, 0.3);
  EXPECT_TRUE(r.docs.empty());
  EXPECT_FALSE(r.fallback);  // no doc left to fall back on
  EXPECT_EQ(r.dropped, 3u);
  nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["dropped"], 3);
  EXPECT_EQ(j["min_score"], 0.10);
  EXPECT_EQ(nlohmann::json::parse(ToJsonText(r)), j);
  EXPECT_EQ(AskOptions().min_score, kDefaultMinScore);
}

TEST_F(AskTest, TheSearcherAppliesTheFloorOfTheOptions) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  AskOptions keep;
  keep.limit = 10;
  keep.min_score = 0;
  auto all = searcher->Ask("EZ9999 OOM 链接", keep);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_GE(all->hits.size(), 2u);
  // A floor between the best and the worst hit keeps exactly those above it.
  const double floor = (all->hits.front().score + all->hits.back().score) / 2;
  size_t above = 0;
  for (const AskHit& h : all->hits) above += h.score >= floor ? 1 : 0;
  AskOptions cut = keep;
  cut.min_score = floor;
  auto r = searcher->Ask("EZ9999 OOM 链接", cut);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hits.size(), above);
  EXPECT_EQ(r->dropped, all->hits.size() - above);
  for (const AskHit& h : r->hits) EXPECT_GE(h.score, floor);
}

}  // namespace
}  // namespace fixgraph::query::testing
