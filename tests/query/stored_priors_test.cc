// The prior table the issue index stores (issue_index.h, kPriorsKey): written
// by a rebuild and by every update in place that adds documents, it always
// holds what the value stream holds, so a reader can load it instead.
#include "../../query/ask_priors.h"
#include "../../query/issue_index.h"
#include "ask_fixture.h"

#include <xapian.h>

#include <string>
#include <vector>

namespace fixgraph::query::testing {
namespace {

// The stored table of the issue index under `db_dir` loads, and equals the
// table read from the value stream.
void ExpectStoredTableCurrent(const std::string& db_dir) {
  Xapian::Database db(IssueIndexDir(db_dir));
  PriorTable stored;
  ASSERT_TRUE(stored.LoadStored(db)) << "no current stored table at revision " << db.get_revision();
  PriorTable streamed;
  streamed.Load(db);
  EXPECT_EQ(stored.prior, streamed.prior);
  EXPECT_EQ(stored.levels, streamed.levels);
  EXPECT_EQ(stored.prior.size(), static_cast<size_t>(db.get_lastdocid()) + 1);
}

TEST_F(AskTest, RebuildAndUpdatesInPlaceStoreThePriorTable) {
  AddCorpus();
  LinkAndIndex();
  ExpectStoredTableCurrent(db_.path());
  const Xapian::docid before = Xapian::Database(IssueIndexDir(db_.path())).get_lastdocid();

  // An issue changes and a new one arrives: updated in place (two new
  // documents, one tombstone), the table grows with them.
  AddIssue("1", "训练时显存不足 OOM (batch 64)", "out of memory", "2026-03-01T10:00:00Z",
           "2026-03-02T10:00:05Z");
  AddIssue("5", "HCCL 初始化超时", "rank 0 卡住", "2026-03-06T10:00:00Z");
  Commit();
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("1"), IssueRef("5")}).ok());
  {
    Xapian::Database db(IssueIndexDir(db_.path()));
    EXPECT_EQ(db.get_lastdocid(), before + 2);
    std::vector<std::uint32_t> dead;
    ASSERT_TRUE(DecodeDocids(db.get_metadata(kDeadKey), &dead));
    EXPECT_EQ(dead.size(), 1u);  // the update was in place, not a rebuild
  }
  ExpectStoredTableCurrent(db_.path());

  // An update that only tombstones keeps the table current too.
  ASSERT_TRUE(store_->DeleteRepositoryRecords(repo_, Store::Durability::kLogged).ok());
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("5")}).ok());
  ExpectStoredTableCurrent(db_.path());
}

}  // namespace
}  // namespace fixgraph::query::testing
