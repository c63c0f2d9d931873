// Queries of common words in a large index (at least 1,000 issues): one common
// unit is looked for in titles first; common units bring no candidates to the
// partial-match pass, unless the others bring too few (ask_query.h,
// CommonSingleUnit, RareUnits).
#include "ask_fixture.h"

#include <string>

namespace fixgraph::query::testing {
namespace {

constexpr int kIssues = 1200;  // above the searcher's large-index floor (1,000)

std::string Number(int i) { return std::to_string(i); }

TEST_F(AskTest, OneCommonWordIsLookedForInTitlesFirst) {
  // Every issue says "kilo"; fifty say it in their titles, three of them five
  // times in their bodies too, which BM25 would weigh above the other titles.
  // Looked for in titles first, every title match is as relevant as the
  // others (relevance 1: equal scores, all issues open).
  for (int i = 1; i <= kIssues; ++i) {
    if (i <= 50)
      AddIssue(Number(i), "kilo trouble " + Number(i), i <= 3 ? "kilo kilo kilo kilo kilo" : "lima",
               "2026-03-01T10:00:00Z");
    else
      AddIssue(Number(i), "unrelated " + Number(i), "kilo", "2026-03-01T10:00:00Z");
  }
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  AskOptions o;
  o.limit = 10;
  o.min_score = 0;  // body matches of open issues score below the noise floor
  auto r = searcher->Ask("kilo", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 10u);
  for (const AskHit& hit : r->hits) {
    EXPECT_EQ(hit.title.rfind("kilo trouble", 0), 0u) << hit.title;
    EXPECT_EQ(hit.score, r->hits[0].score) << hit.title;
  }
  // Asked for more than the titles hold, body matches fill the places.
  o.limit = 60;
  r = searcher->Ask("kilo", o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hits.size(), 60u);
}

TEST_F(AskTest, CommonWordsStillBringCandidatesWhenTheRareOnesBringTooFew) {
  // "oscar" is in every issue, "papa" in one: the partial-match pass is driven
  // by "papa" (one candidate), then by both, so the query still fills its
  // places with issues that hold only "oscar".
  for (int i = 1; i <= kIssues; ++i)
    AddIssue(Number(i), "report " + Number(i), i == 7 ? "oscar papa" : "oscar",
             "2026-03-01T10:00:00Z");
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  AskOptions o;
  o.limit = 5;
  o.min_score = 0;
  auto r = searcher->Ask("oscar papa quebec", o);  // no issue holds "quebec"
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 5u);
  EXPECT_EQ(r->hits[0].issue, IssueRef("7"));
}

}  // namespace
}  // namespace fixgraph::query::testing
