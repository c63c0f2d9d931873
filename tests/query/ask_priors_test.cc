// The prior table and the Xapian posting sources of ask's searcher:
// PriorTable (read from the value stream or from the table the index stores),
// PriorSource (the title pass's walk in prior order) and DocidListSource, the
// filter that confines a BM25 pass to the prior pool.
#include "../../query/ask_priors.h"

#include "../../query/issue_index.h"
#include "../testutil/testutil.h"

#include <gtest/gtest.h>
#include <xapian.h>

#include <algorithm>
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

// The prior of docid d in PriorDocuments: 1.0 for every 400th (a sparse
// level), 0.8 for every 7th (dense), 0.5 for the others, and no prior slot
// (kDefaultPrior) for every 13th.
float PriorOf(Xapian::docid d) {
  if (d % 400 == 0) return 1.0F;
  if (d % 7 == 0) return 0.8F;
  if (d % 13 == 0) return static_cast<float>(kDefaultPrior);
  return 0.5F;
}

// `n` documents holding "x", every third also "y", with PriorOf in kPriorSlot.
Xapian::WritableDatabase PriorDocuments(const fixgraph::testing::TempDir& dir, Xapian::docid n) {
  Xapian::WritableDatabase db(dir.path() + "/xapian", Xapian::DB_CREATE | Xapian::DB_BACKEND_GLASS);
  for (Xapian::docid d = 1; d <= n; ++d) {
    Xapian::Document doc;
    doc.add_term("x");
    if (d % 3 == 0) doc.add_term("y");
    if (d % 13 != 0 || d % 7 == 0 || d % 400 == 0)
      doc.add_value(kPriorSlot, Xapian::sortable_serialise(PriorOf(d)));
    db.add_document(doc);
  }
  db.commit();
  return db;
}

TEST(PriorTableTest, StoredTableIsTheValueStreamsAndAStaleOneIsIgnored) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = PriorDocuments(dir, 3200);
  PriorTable none;
  EXPECT_FALSE(none.LoadStored(db));  // the index stores no table
  EXPECT_TRUE(none.prior.empty());
  db.set_metadata(kPriorsKey, EncodePriors(ReadPriorSlots(db)));
  db.commit();
  PriorTable streamed;
  streamed.Load(db);
  PriorTable stored;
  ASSERT_TRUE(stored.LoadStored(db));
  EXPECT_EQ(stored.prior, streamed.prior);
  EXPECT_EQ(stored.levels, streamed.levels);
  EXPECT_EQ(stored.at_least, streamed.at_least);
  EXPECT_EQ(stored.max, 1.0F);
  ASSERT_EQ(stored.prior.size(), 3201u);
  for (Xapian::docid d = 1; d <= 3200; ++d) ASSERT_EQ(stored.prior[d], PriorOf(d)) << d;
  // Four levels: 0.2 and 0.5 below; 0.8 held by more than 1/16 of the
  // docids (scanned: no list); 1.0 by eight (listed).
  ASSERT_EQ(stored.levels.size(), 4u);
  EXPECT_TRUE(stored.at_least[2].empty());
  EXPECT_EQ(stored.at_least[3],
            (std::vector<Xapian::docid>{400, 800, 1200, 1600, 2000, 2400, 2800, 3200}));

  // A document added without rewriting the table: the table is stale.
  db.add_document(Xapian::Document());
  db.commit();
  PriorTable stale;
  EXPECT_FALSE(stale.LoadStored(db));
  EXPECT_TRUE(stale.prior.empty());
  // A table that is not one.
  db.set_metadata(kPriorsKey, "P\x05garbage");
  db.commit();
  EXPECT_FALSE(stale.LoadStored(db));
}

// The first `k` of the documents holding `term`, best prior first (equal
// priors by docid), as PriorSource must give them.
std::vector<Xapian::docid> BestByPrior(Xapian::docid n, bool only_y, size_t k) {
  std::vector<Xapian::docid> dids;
  for (Xapian::docid d = 1; d <= n; ++d)
    if (!only_y || d % 3 == 0) dids.push_back(d);
  std::stable_sort(dids.begin(), dids.end(),
                   [](Xapian::docid a, Xapian::docid b) { return PriorOf(a) > PriorOf(b); });
  dids.resize(std::min(k, dids.size()));
  return dids;
}

TEST(PriorSourceTest, WalksInPriorOrderOverListedAndScannedLevels) {
  fixgraph::testing::TempDir dir;
  Xapian::WritableDatabase db = PriorDocuments(dir, 3200);
  PriorTable table;
  table.Load(db);
  ASSERT_TRUE(table.at_least[2].empty());   // 0.8: scanned
  ASSERT_FALSE(table.at_least[3].empty());  // 1.0: listed
  PriorTable no_levels = table;             // more distinct priors than kMaxLevels: a scan
  no_levels.levels.clear();
  no_levels.at_least.clear();
  for (const PriorTable* t : {&table, &no_levels}) {
    for (const char* term : {"x", "y"}) {
      for (size_t k : {3u, 10u, 40u}) {
        PriorSource best(*t);
        Xapian::Enquire enquire(db);
        enquire.set_query(
            Xapian::Query(Xapian::Query::OP_AND,
                          Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(term), 0.0),
                          Xapian::Query(&best)));
        Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(k));
        std::vector<Xapian::docid> got(mset.begin(), mset.end());
        EXPECT_EQ(got, BestByPrior(3200, term[0] == 'y', k))
            << term << " k=" << k << " levels=" << t->levels.size();
      }
    }
  }
}

}  // namespace
}  // namespace fixgraph::query
