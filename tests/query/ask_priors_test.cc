// The Xapian posting sources of ask's searcher: DocidListSource, the filter
// that confines a BM25 pass to the prior pool.
#include "../../query/ask_priors.h"

#include "../testutil/testutil.h"

#include <gtest/gtest.h>
#include <xapian.h>

#include <map>
#include <vector>

namespace fixgraph::query {
namespace {

// Ten documents, each holding "x" (docid times, so BM25 tells them apart),
// and "y", in a database under `dir`.
Xapian::WritableDatabase TenDocuments(const fixgraph::testing::TempDir& dir) {
  Xapian::WritableDatabase db(dir.path() + "/xapian", Xapian::DB_CREATE | Xapian::DB_BACKEND_GLASS);
  for (int d = 1; d <= 10; ++d) {
    Xapian::Document doc;
    doc.add_term("x", static_cast<Xapian::termcount>(d));
    doc.add_term("y");
    db.add_document(doc);
  }
  db.commit();
  return db;
}

std::map<Xapian::docid, double> Weights(const Xapian::Database& db, const Xapian::Query& q) {
  Xapian::Enquire enquire(db);
  enquire.set_query(q);
  std::map<Xapian::docid, double> out;
  Xapian::MSet mset = enquire.get_mset(0, 100);
  for (auto it = mset.begin(); it != mset.end(); ++it) out[*it] = it.get_weight();
  return out;
}

TEST(DocidListSourceTest, FilterKeepsTheListedDocumentsAndTheirWeights) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = TenDocuments(dir);
  const std::map<Xapian::docid, double> all = Weights(db, Xapian::Query("x"));
  ASSERT_EQ(all.size(), 10u);
  DocidListSource only({2, 5, 9});
  const std::map<Xapian::docid, double> some = Weights(
      db, Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query("x"), Xapian::Query(&only)));
  ASSERT_EQ(some.size(), 3u);
  for (const auto& [did, weight] : some) EXPECT_DOUBLE_EQ(weight, all.at(did)) << did;
  EXPECT_EQ(some.count(2) + some.count(5) + some.count(9), 3u);
}

TEST(DocidListSourceTest, DrivesAnAndItFilters) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = TenDocuments(dir);
  // Listed docids past the last document, and an AND of two terms: the list
  // is reported as the shortest (its estimate one) and skips correctly.
  DocidListSource only({1, 4, 10, 12});
  EXPECT_EQ(only.get_termfreq_est(), 1u);
  EXPECT_EQ(only.get_termfreq_max(), 4u);
  const Xapian::Query both(Xapian::Query::OP_AND, Xapian::Query("x"), Xapian::Query("y"));
  const std::map<Xapian::docid, double> got =
      Weights(db, Xapian::Query(Xapian::Query::OP_FILTER, both, Xapian::Query(&only)));
  std::vector<Xapian::docid> dids;
  for (const auto& [did, weight] : got) dids.push_back(did);
  EXPECT_EQ(dids, (std::vector<Xapian::docid>{1, 4, 10}));
  DocidListSource none({});
  EXPECT_EQ(none.get_termfreq_est(), 0u);
  EXPECT_TRUE(
      Weights(db, Xapian::Query(Xapian::Query::OP_FILTER, both, Xapian::Query(&none))).empty());
}

}  // namespace
}  // namespace fixgraph::query
