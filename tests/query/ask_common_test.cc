// Queries of common words in a large index (at least 1,000 issues): one common
// unit is looked for in titles first; only the rarest units (within a postings
// budget, or together when the rarest alone is over it), never common ones,
// bring candidates to the partial-match pass, unless they bring too few
// (ask_query.h, CommonSingleUnit, RareUnits, RareIntersection).
#include "../../query/issue_index.h"
#include "ask_fixture.h"

#include "fixgraph/query/shards.h"

#include <xapian.h>

#include <string>
#include <vector>

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
  std::vector<std::string> body(kIssues + 1, "oscar");
  body[7] = "oscar papa";
  std::vector<AskHit> hits = AskOverBodies(body, "oscar papa quebec", 5);  // none holds "quebec"
  ASSERT_EQ(hits.size(), 5u);
  EXPECT_EQ(hits[0].issue, IssueRef("7"));
}

TEST_F(AskTest, LongQueryTakesItsCandidatesFromItsRarestUnits) {
  // A pasted log line of 30 units, none common. "romeo" (two issues) is the
  // rarest; m1..m9 (201-209 issues each) come next; m10..m15 (the 230 issues
  // 951-1180, each holding all six) are in the partial pass's elite set but
  // past the filter's postings budget (2 + 1,845 of m1..m9, then 230 more is
  // over 2,000); m16..m29 (231-240 issues) are commoner still. Weighed over
  // every issue holding an elite unit, the 230 issues matching six units would
  // outrank the one holding the rarest; the candidates come from the holders
  // of the rarest units (ask_query.h, RareUnits), so it is first.
  auto unit = [](int k) { return std::string("qz") + char('a' + k / 26) + char('a' + k % 26); };
  constexpr int kTarget = 1195;
  std::vector<std::string> body(kIssues + 1);
  auto hold = [&](int k, int first, int count) {
    for (int i = first; i < first + count; ++i) body[i] += unit(k) + " ";
  };
  for (int k = 1; k <= 9; ++k) hold(k, (k - 1) * 80 + 1, 200 + k);
  for (int k = 10; k <= 15; ++k) hold(k, 951, 230);
  for (int k = 16; k <= 29; ++k) hold(k, (k - 16) * 60 + 1, 231 + (k - 16) % 10);
  body[kTarget] += "romeo";
  body[1199] += "romeo";
  std::string query = "romeo";
  for (int k = 1; k <= 29; ++k) query += " " + unit(k);
  std::vector<AskHit> hits = AskOverBodies(body, query, 5);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].issue, IssueRef(Number(kTarget)));
  for (const AskHit& hit : hits) {
    const int n = std::stoi(hit.issue.number);
    EXPECT_FALSE(n >= 951 && n <= 1180)
        << hit.issue.ToString() << " holds none of the rarest units";
  }
}

TEST_F(AskTest, RarestUnitsTogetherBringTheCandidatesWhenTheRarestAloneIsOverTheBudget) {
  // A pasted line of ten units in 10,500 issues (so a unit held by up to 2,100
  // is not common, and one held by more than 2,000, the filter's budget, is
  // over the budget alone). "romeo" (2,050 issues) is the rarest, "sierra"
  // (2,080) the next; ten issues hold both. The 2,040 other holders of
  // "romeo" also hold eight template words (2,090 issues each): filtered to
  // the holders of "romeo" alone, the partial pass ranks them above the ten.
  // The candidates are the issues holding the two rarest together
  // (ask_query.h, RareIntersection), so the ten come first.
  constexpr int kBig = 10500;
  const std::string words = "tango uniform victor whiskey xray yankee zulu quokka";
  std::vector<std::string> body(kBig + 1);
  for (int i = 1; i <= 2050; ++i) body[i] += "romeo ";
  for (int i = 1; i <= 10; ++i) body[i] += "sierra ";
  for (int i = 3001; i <= 5070; ++i) body[i] += "sierra ";
  for (int i = 11; i <= 2100; ++i) body[i] += words + " ";
  std::vector<AskHit> hits = AskOverBodies(body, "romeo sierra " + words, 5);
  ASSERT_EQ(hits.size(), 5u);
  for (const AskHit& hit : hits)
    EXPECT_LE(std::stoi(hit.issue.number), 10) << hit.issue.ToString() << " lacks sierra";
}

// Forty filler words: a long body, which BM25 weighs below a short one.
std::string FortyFillerWords() {
  std::string filler;
  for (int w = 0; w < 40; ++w) filler += " filler" + Number(w);
  return filler;
}

// A pasted line of 13 units in 1,200 issues: qa..qd (`rare` issues each) are
// the rarest, qe..qj (130-135 each) next, together within the partial pass's
// filter budget (its filter, RareUnits); kilo, lima and mike (300 each) are
// common. Issue 1195 holds qe..qj, more of the line than any other issue.
// The narrowed pass first weighs its filter's issues by the four rarest units
// alone (ask.cc, kFirstStageUnits) and keeps the best 15 (kFirstStageKeep)
// when at least that many hold one of them; only then does 1195, holding
// none, drop out.
struct Line {
  std::vector<std::string> body;  // by issue number
  std::string query;
};
// `long_rare`: the issues holding qa..qd also hold forty filler words.
Line LineOverRarestUnits(int rare, bool long_rare = false) {
  auto unit = [](int k) { return std::string("q") + char('a' + k); };
  std::vector<std::string> body(kIssues + 1);
  int next = 1;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < rare; ++i)
      body[next++] += unit(k) + (long_rare ? FortyFillerWords() : std::string()) + " ";
  for (int k = 4; k < 10; ++k)
    for (int i = 0; i < 129 + k - 4; ++i) body[next++] += unit(k) + " ";
  for (int k = 4; k < 10; ++k) body[1195] += unit(k) + " ";
  for (int i = 1; i <= 300; ++i) body[i] += "kilo lima mike";
  std::string query = "kilo lima mike";
  for (int k = 0; k < 10; ++k) query += " " + unit(k);
  return {body, query};
}

TEST_F(AskTest, NarrowedPassWeighsInFullTheBestByItsRarestUnits) {
  const Line line = LineOverRarestUnits(5);  // 20 hold qa..qd: 15 or more, under 30
  const std::vector<AskHit> hits = AskOverBodies(line.body, line.query, 5);
  ASSERT_EQ(hits.size(), 5u);
  for (const AskHit& hit : hits)
    EXPECT_NE(hit.issue, IssueRef("1195")) << "holds none of the four rarest units";
}

TEST_F(AskTest, NarrowedPassWeighsEveryFilteredIssueWhenFewHoldItsRarestUnits) {
  // 12 hold qa..qd, in long bodies (so that weighed in full, 1195 comes
  // first): fewer than the first stage keeps, more than the hits asked for.
  const Line line = LineOverRarestUnits(3, true);
  const std::vector<AskHit> hits = AskOverBodies(line.body, line.query, 5);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].issue, IssueRef("1195"));
}

// Five hits, all among the issues numbered up to `closed` (AskOverBodies
// closes those).
void ExpectFiveClosed(const std::vector<AskHit>& hits, size_t closed) {
  ASSERT_EQ(hits.size(), 5u);
  for (const AskHit& hit : hits)
    EXPECT_LE(std::stoul(hit.issue.number), closed) << hit.issue.ToString() << " is open";
}

TEST_F(AskTest, CommonWordsEverywhereTakeTheirCandidatesFromTheBestResolved) {
  // 10,500 issues all say "golf hotel india" (every unit common, and the
  // conjunctive pass matches them all): the 7,500 open ones twice in a short
  // body, which BM25 weighs most; the 3,000 closed ones (a higher prior) once
  // in a long body. The pass takes its candidates from the prior pool (the
  // 500 best-resolved matches, ask.cc kPriorPool) and weighs only those, so
  // the hits are closed issues; weighed over all matches, the open ones
  // would fill every candidate place.
  constexpr size_t kBig = 10500;
  constexpr size_t kClosed = 3000;
  std::vector<std::string> body(kBig + 1, "golf hotel india golf hotel india");
  for (size_t i = 1; i <= kClosed; ++i) body[i] = "golf hotel india" + FortyFillerWords();
  std::vector<AskHit> hits = AskOverBodies(body, "golf hotel india", 5, kClosed);
  ExpectFiveClosed(hits, kClosed);
  // A CLI ask reads the prior table the index stores (issue_index.h,
  // kPriorsKey) and pools alike. Over shards there is no pool (the walk could
  // not skip): every match is weighed and the open issues come first; so it is
  // for a CLI ask of an index without the stored table (written by an older
  // build), and the two agree.
  AskOptions o;
  o.limit = 5;
  o.min_score = 0;
  std::vector<std::string> pooled;
  for (const AskHit& hit : hits) pooled.push_back(hit.issue.ToString());
  auto ask_cli = [&]() -> std::vector<std::string> {
    auto one = Searcher::Open(db_.path(), {}, SearcherUse::kOneQuestion);
    EXPECT_TRUE(one.ok()) << one.status().ToString();
    if (!one.ok()) return {};
    auto r = (*one)->Ask("golf hotel india", o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Refs(*r) : std::vector<std::string>{};
  };
  EXPECT_EQ(ask_cli(), pooled);
  fixgraph::testing::TempDir out;
  ASSERT_TRUE(SplitIndexes(db_.path(), out.path() + "/shards", 2).ok());
  auto sharded = Searcher::Open(out.path() + "/shards");
  ASSERT_TRUE(sharded.ok()) << sharded.status().ToString();
  auto r2 = (*sharded)->Ask("golf hotel india", o);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  ASSERT_EQ(r2->hits.size(), 5u);
  for (const AskHit& hit : r2->hits) EXPECT_GT(std::stoul(hit.issue.number), kClosed);
  {
    Xapian::WritableDatabase index(IssueIndexDir(db_.path()),
                                   Xapian::DB_OPEN | Xapian::DB_NO_TERMLIST);
    index.set_metadata(kPriorsKey, "");
    index.commit();
  }
  EXPECT_EQ(ask_cli(), Refs(*r2));
}

// 50,000 issues, so a unit is common from 10,000 postings on (a fifth of the
// issues); 9,000 hold what the question asks, so no unit of it is common, but
// a pass would weigh all 9,000 (ask.cc kDearPass). It takes its candidates
// from the 500 best-resolved matches instead: the kFrequentClosed closed
// issues (`closed_body`, saying it once in a long body), not the open ones
// (`open_body`), which BM25 weighs most.
constexpr size_t kFrequentClosed = 600;
std::vector<std::string> FrequentBodies(const std::string& closed_body,
                                        const std::string& open_body) {
  std::vector<std::string> body(50000 + 1, "lima");
  for (size_t i = 1; i <= 9000; ++i)
    body[i] = i <= kFrequentClosed ? closed_body + FortyFillerWords() : open_body;
  return body;
}

TEST_F(AskTest, AFrequentLineTakesItsCandidatesFromTheBestResolved) {
  // The conjunctive pass: 9,000 repeat the line "victor whiskey xray" whole.
  const auto body =
      FrequentBodies("victor whiskey xray", "victor whiskey xray victor whiskey xray");
  ExpectFiveClosed(AskOverBodies(body, "victor whiskey xray", 5, kFrequentClosed), kFrequentClosed);
}

TEST_F(AskTest, AFrequentCodeTakesItsCandidatesFromTheBestResolved) {
  // The partial pass: 9,000 hold the error code "EZ4242".
  const auto body = FrequentBodies("failed with EZ4242", "EZ4242 EZ4242 EZ4242");
  ExpectFiveClosed(AskOverBodies(body, "EZ4242", 5, kFrequentClosed), kFrequentClosed);
}

TEST_F(AskTest, RarestUnitsThatGoTogetherTakeTheirCandidatesFromTheBestResolved) {
  // "romeo sierra" always together, in 2,050 of 10,500 issues: as if
  // independent, the two would match about 400 together, within the
  // partial pass's filter budget (2,000), so they are its filter
  // (RareIntersection); counted, they match 2,050, over it, so the pass
  // takes the 500 best-resolved of them (the 600 closed ones, which say the
  // words once in a long body) rather than weighing all (where the 1,450
  // open ones, saying them three times, would take every place). Nobody
  // holds "zzqx", so the conjunctive pass brings nothing.
  constexpr size_t kBig = 10500;
  constexpr size_t kClosed = 600;
  std::vector<std::string> body(kBig + 1, "tango" + FortyFillerWords());
  for (size_t i = 1; i <= 2050; ++i)
    body[i] = i <= kClosed ? "romeo sierra tango" + FortyFillerWords()
                           : "romeo sierra tango romeo sierra romeo sierra";
  std::vector<AskHit> hits = AskOverBodies(body, "romeo sierra tango zzqx", 5, kClosed);
  ExpectFiveClosed(hits, kClosed);
}

TEST_F(AskTest, UnitsMostIssuesHoldDoNotNarrowTheConjunctivePass) {
  // 1,000 of the 1,200 issues say "npu": a unit over half the issues narrows
  // an AND too little to be read (ask_query.h, Conjunction). The ten saying
  // "quasar nebula" without it hold every unit that narrows: the conjunctive
  // pass finds them, matching all it asks. Their relevance is that of the
  // question without "npu" scaled by Xapian's share of the question's terms
  // they hold: 2 of 5 (quasar, nebula and the three in the title field)
  // against 2 of 4, 0.8. Read as a unit of the AND, "npu" would leave them to
  // the partial pass, where they match 2 of its 6 terms: 0.67.
  std::vector<std::string> body(kIssues + 1, "lima");
  for (int i = 201; i <= kIssues; ++i) body[i] = "npu lima";
  for (int i = 1; i <= 10; ++i) body[i] = "quasar nebula";
  std::vector<AskHit> hits = AskOverBodies(body, "npu quasar nebula", 5);
  ASSERT_EQ(hits.size(), 5u);
  for (const AskHit& hit : hits) EXPECT_LE(std::stoi(hit.issue.number), 10) << hit.issue.ToString();
  const std::vector<AskHit> without = AskHits("quasar nebula", 5);
  ASSERT_FALSE(without.empty());
  EXPECT_NEAR(hits[0].score / without[0].score, 0.8, 0.02)
      << hits[0].score << " against " << without[0].score;
}

}  // namespace
}  // namespace fixgraph::query::testing
