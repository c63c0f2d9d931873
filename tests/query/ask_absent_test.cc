// Terms no issue holds (BuildQuery's `absent`): a long query matches them with
// an empty posting source instead of a posting list, and every pass the
// searcher runs over the result ranks, weighs and rates as before.
#include "../../query/analyzer.h"
#include "../../query/ask_query.h"
#include "../../query/issue_index.h"
#include "../testutil/testutil.h"

#include <gtest/gtest.h>
#include <xapian.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace fixgraph::query {
namespace {

// Documents made as the issue index makes them, as far as the query sees:
// the analysed terms of title and body, and the title's again under
// kTitlePrefix.
Xapian::WritableDatabase Issues(const fixgraph::testing::TempDir& dir) {
  const std::vector<std::pair<std::string, std::string>> issues = {
      {"HCCL timeout on 910B", "allreduce hangs then HCCL timeout, rank 3 reports error"},
      {"aclnnMatmul shape mismatch", "RuntimeError shape mismatch in aclnnMatmul tiling"},
      {"训练 报错 显存不足", "训练时显存不足 报错 out of memory on device 0"},
      {"install CANN failed", "install script failed: missing driver, error 507033"},
      {"device not found", "npu-smi shows no device, driver version mismatch"},
      {"loss becomes nan", "after 200 steps loss is nan, overflow in fp16 allreduce"},
  };
  Xapian::WritableDatabase db(dir.path() + "/xapian", Xapian::DB_CREATE | Xapian::DB_BACKEND_GLASS);
  for (const auto& [title, body] : issues) {
    Xapian::Document doc;
    for (const Term& t : Analyze(title + " " + body)) doc.add_term(t.text);
    for (const Term& t : Analyze(title)) doc.add_term(kTitlePrefix + t.text);
    db.add_document(doc);
  }
  db.commit();
  return db;
}

using Ranked = std::vector<std::tuple<Xapian::docid, double, int>>;

Ranked Matches(const Xapian::Database& db, const Xapian::Query& q) {
  Xapian::Enquire enquire(db);
  enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.6, 0.5));
  enquire.set_query(q);
  Ranked out;
  Xapian::MSet mset = enquire.get_mset(0, 100);
  for (auto it = mset.begin(); it != mset.end(); ++it)
    out.emplace_back(*it, it.get_weight(), it.get_percent());
  return out;
}

// The passes of the searcher (query/ask.cc) that a substituted term can take
// part in: the OR, the partial match with title weight, the conjunctive
// pass, the narrowed one (a filter) and the title pass.
std::vector<Xapian::Query> Passes(const BuiltQuery& q) {
  return {q.query,
          Xapian::Query(Xapian::Query::OP_AND_MAYBE, q.partial, q.title_any),
          Xapian::Query(Xapian::Query::OP_AND_MAYBE, q.wholes, q.title_any),
          Xapian::Query(Xapian::Query::OP_FILTER, q.partial, q.body_units.front()),
          q.all,
          q.title};
}

TEST(AskAbsentTest, AbsentTermsOfALongQueryMatchAsTheirPostingListsWould) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = Issues(dir);
  // A pasted line: HCCL, timeout, allreduce and mismatch are held; zebra,
  // 98765, quokka and most title terms are not; aclnnMatmulV9 is absent whole
  // but its parts are held.
  const std::string line =
      "HCCL timeout zebra allreduce 98765 quokka mismatch aclnnMatmulV9 rank error "
      "训练 显存 pelican";
  std::set<std::string> asked;
  auto absent = [&](const std::string& term) {
    asked.insert(term);
    return db.get_termfreq(term) == 0;
  };
  const BuiltQuery plain = BuildQuery(line);
  const BuiltQuery lean = BuildQuery(line, {}, absent);
  ASSERT_GE(plain.units, kAbsentTestTerms);
  EXPECT_TRUE(plain.long_query && lean.long_query);
  EXPECT_EQ(plain.units, lean.units);
  // The substitution happened (body terms, an identifier's whole form, title terms)...
  EXPECT_EQ(plain.query.get_description().find("EmptySource"), std::string::npos);
  EXPECT_NE(lean.query.get_description().find("EmptySource"), std::string::npos);
  EXPECT_NE(lean.title_any.get_description().find("EmptySource"), std::string::npos);
  EXPECT_TRUE(asked.count("zebra") && asked.count("hccl") && asked.count("Shccl"));
  EXPECT_EQ(lean.query.get_description().find("zebra"), std::string::npos);
  EXPECT_NE(lean.query.get_description().find("hccl"), std::string::npos);
  // ...and every pass answers alike: documents, weights, percentages.
  const std::vector<Xapian::Query> before = Passes(plain), after = Passes(lean);
  for (size_t i = 0; i < before.size(); ++i) {
    const Ranked a = Matches(db, before[i]);
    EXPECT_EQ(a, Matches(db, after[i])) << "pass " << i << ": " << after[i].get_description();
    if (i < 4) {
      EXPECT_FALSE(a.empty()) << "pass " << i;
    }
  }
}

TEST(AskAbsentTest, AShortQueryIsNotTested) {
  // A few words: the title pass looks them up itself; asking would only repeat it.
  bool asked = false;
  const BuiltQuery q = BuildQuery("zebra quokka pelican", {}, [&](const std::string&) {
    asked = true;
    return true;
  });
  EXPECT_FALSE(asked);
  EXPECT_FALSE(q.long_query);
  EXPECT_EQ(q.query.get_description().find("EmptySource"), std::string::npos);
}

TEST(AskAbsentTest, MatchPostingsCountsASubstitutedTermAsNone) {
  std::string line;
  for (int i = 0; i < static_cast<int>(kAbsentTestTerms); ++i)
    line += "word" + std::string(1, static_cast<char>('a' + i)) + " ";
  const BuiltQuery q = BuildQuery(line, {}, [](const std::string& t) { return t == "worda"; });
  auto freq = [](const std::string& term) -> unsigned { return term == "worda" ? 0 : 7; };
  EXPECT_EQ(MatchPostings(q.body_units.front(), freq), 0.0);
  EXPECT_EQ(MatchPostings(q.all, freq), 0.0);  // an AND holding it matches nothing
  EXPECT_EQ(MatchPostings(q.body_units.back(), freq), 7.0);
}

}  // namespace
}  // namespace fixgraph::query
