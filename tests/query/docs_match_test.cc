// The doc search's term-at-a-time candidate match (query/docs_match.h): the
// same nodes, in the same order and with the same weights, as Xapian's
// matcher gives for the same query.
#include "../../query/docs_match.h"

#include "../testutil/testutil.h"

#include <gtest/gtest.h>
#include <xapian.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fixgraph::query::docs {
namespace {

// A small deterministic generator (the test must not depend on the
// platform's std:: distributions).
class Lcg {
 public:
  explicit Lcg(std::uint64_t seed) : s_(seed) {}
  std::uint32_t Next(std::uint32_t n) {
    s_ = s_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>((s_ >> 33) % n);
  }

 private:
  std::uint64_t s_;
};

std::string Word(std::uint32_t i) { return "w" + std::to_string(i); }

// `n` nodes over 300 words of skewed frequency (w0 in most nodes, w299 in a
// few), wdf 1-4, lengths 3-80, a title term for some; every seventh node
// deleted, so docids have gaps.
Xapian::WritableDatabase Nodes(const fixgraph::testing::TempDir& dir, int n) {
  Xapian::WritableDatabase db(dir.path() + "/docs", Xapian::DB_CREATE | Xapian::DB_BACKEND_GLASS);
  Lcg rng(7);
  for (int d = 0; d < n; ++d) {
    Xapian::Document doc;
    const std::uint32_t len = 3 + rng.Next(40);
    for (std::uint32_t k = 0; k < len; ++k) {
      // The square of a uniform draw skews toward low word numbers.
      const std::uint32_t u = rng.Next(300);
      const std::uint32_t w = u * u / 300;
      doc.add_term(Word(w), 1 + rng.Next(4));
    }
    if (rng.Next(3) == 0) doc.add_term("T" + Word(rng.Next(30)));
    db.add_document(doc);
  }
  for (Xapian::docid d = 7; d <= static_cast<Xapian::docid>(n); d += 7) db.delete_document(d);
  db.commit();
  return db;
}

// Xapian's ranking of every match, cut to `want`. (Asked for 60 at once,
// Xapian's matcher once left out a node weighing more than its 57th: its
// pruning by weight bounds is not exact with these queries. TopMatches is.)
std::vector<DocMatch> XapianFullRanking(const Xapian::Database& db, const CandidateSpec& spec,
                                        size_t want) {
  Xapian::Enquire enquire(db);
  enquire.set_query(SpecQuery(spec));
  const Xapian::MSet mset = enquire.get_mset(0, db.get_doccount());
  std::vector<DocMatch> out;
  for (auto it = mset.begin(); it != mset.end() && out.size() < want; ++it)
    out.push_back({*it, it.get_weight()});
  return out;
}

void ExpectSame(const std::vector<DocMatch>& want, const std::vector<DocMatch>& got,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].did, want[i].did) << what << " rank " << i;
    EXPECT_NEAR(got[i].weight, want[i].weight, 1e-9 * (1 + std::fabs(want[i].weight)))
        << what << " rank " << i;
  }
}

TEST(DocsMatchTest, RanksAsXapiansMatcherDoes) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = Nodes(dir, 3000);
  const std::vector<Xapian::termcount> lengths = DocLengths(db);
  Lcg rng(11);
  int compared = 0;
  for (int q = 0; q < 60; ++q) {
    CandidateSpec spec;
    const std::uint32_t n_match = 1 + rng.Next(12);
    for (std::uint32_t k = 0; k < n_match; ++k) {
      // Rarer words (high numbers) bring the candidates; factors as the doc
      // search gives them, a word twice now and then, a word no node holds.
      static const double kFactors[] = {1.0, 0.5, 0.3, 0.0};
      const std::string w = Word(120 + rng.Next(200));
      spec.match.push_back({w, kFactors[rng.Next(4)]});
      if (rng.Next(6) == 0) spec.match.push_back({w, 1.0});
    }
    if (rng.Next(2) == 0) spec.match.push_back({"T" + Word(rng.Next(30)), 0.3});
    // Common words only add weight.
    const std::uint32_t n_extra = rng.Next(8);
    for (std::uint32_t k = 0; k < n_extra; ++k)
      spec.extra.push_back({Word(rng.Next(60)), rng.Next(2) == 0 ? 1.0 : 0.5});
    for (size_t want : {1, 5, 60, 5000}) {
      const std::string what = "query " + std::to_string(q) + " want " + std::to_string(want);
      ExpectSame(XapianFullRanking(db, spec, want), TopMatches(db, spec, lengths, want), what);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 240);
}

TEST(DocsMatchTest, ExtraTermsOnlyAddWeightAndZeroFactorsBringNodes) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db(dir.path() + "/docs", Xapian::DB_CREATE | Xapian::DB_BACKEND_GLASS);
  auto add = [&](std::vector<std::string> terms) {
    Xapian::Document doc;
    for (const std::string& t : terms) doc.add_term(t);
    db.add_document(doc);
  };
  add({"rare", "common"});       // 1
  add({"common", "filler"});     // 2: only the extra term
  add({"Dname", "filler"});      // 3: only the named page's term
  add({"rare", "filler", "x"});  // 4
  db.commit();
  CandidateSpec spec;
  spec.match = {{"rare", 1.0}, {"Dname", 0.0}};
  spec.extra = {{"common", 1.0}};
  const std::vector<DocMatch> got = TopMatches(db, spec, DocLengths(db), 10);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].did, 1u);  // rare and common
  EXPECT_EQ(got[1].did, 4u);  // rare
  EXPECT_EQ(got[2].did, 3u);  // the named page, weighing nothing
  EXPECT_EQ(got[2].weight, 0.0);
  ExpectSame(XapianFullRanking(db, spec, 10), got, "small");
}

TEST(DocsMatchTest, LengthsOfAnOlderRevisionAreRefused) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = Nodes(dir, 50);
  std::vector<Xapian::termcount> lengths = DocLengths(db);
  ASSERT_EQ(lengths.size(), db.get_lastdocid() + 1);
  lengths.resize(10);
  CandidateSpec spec;
  spec.match = {{Word(0), 1.0}};
  EXPECT_THROW(TopMatches(db, spec, lengths, 5), Xapian::InvalidArgumentError);
  EXPECT_TRUE(TopMatches(db, CandidateSpec{}, DocLengths(db), 5).empty());
}

}  // namespace
}  // namespace fixgraph::query::docs
