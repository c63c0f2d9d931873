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

  // An index without the table (written by an older build): an update in
  // place writes it anew from the value stream.
  {
    Xapian::WritableDatabase db(IssueIndexDir(db_.path()),
                                Xapian::DB_OPEN | Xapian::DB_NO_TERMLIST);
    db.set_metadata(kPriorsKey, "");
    db.commit();
  }
  AddIssue("6", "CANN 安装失败", "install log", "2026-03-07T10:00:00Z");
  Commit();
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("6")}).ok());
  ExpectStoredTableCurrent(db_.path());

  // An update that only tombstones keeps the table current too.
  ASSERT_TRUE(store_->DeleteRepositoryRecords(repo_, Store::Durability::kLogged).ok());
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("5")}).ok());
  ExpectStoredTableCurrent(db_.path());
}

// The priors a table decodes to (kDefaultPrior for none).
std::vector<float> Decoded(const std::string& table, Xapian::docid* last) {
  std::vector<float> out;
  EXPECT_TRUE(DecodePriors(table, static_cast<float>(kDefaultPrior), &out, last));
  return out;
}

TEST(AppendPriorsTest, AppendingIsEncodingTheWhole) {
  const std::string half = Xapian::sortable_serialise(0.5);
  const std::string one = Xapian::sortable_serialise(1.0);
  const std::string low = Xapian::sortable_serialise(0.1);
  const std::vector<std::string> before = {"", half, "", one};  // docids 1..3
  const std::string stored = EncodePriors(before);
  // Docids 4 (a new value), 6 (none) and 7; 5 was never written.
  const std::string appended = AppendPriors(stored, 3, {{4, low}, {6, ""}, {7, half}});
  ASSERT_FALSE(appended.empty());
  const std::vector<std::string> whole = {"", half, "", one, low, "", "", half};
  Xapian::docid last = 0;
  const std::vector<float> got = Decoded(appended, &last);
  EXPECT_EQ(last, 7u);
  EXPECT_EQ(got, Decoded(EncodePriors(whole), &last));
  EXPECT_EQ(got[4], 0.1F);
  EXPECT_EQ(got[5], static_cast<float>(kDefaultPrior));
  // Nothing added: the same table.
  EXPECT_EQ(Decoded(AppendPriors(stored, 3, {}), &last), Decoded(stored, &last));
  EXPECT_EQ(last, 3u);
  // A table that does not end at `last`, added docids out of order or not
  // after it, or no table: nothing.
  EXPECT_TRUE(AppendPriors(stored, 4, {{5, half}}).empty());
  EXPECT_TRUE(AppendPriors(stored, 3, {{5, half}, {4, half}}).empty());
  EXPECT_TRUE(AppendPriors(stored, 3, {{3, half}}).empty());
  EXPECT_TRUE(AppendPriors("", 0, {{1, half}}).empty());
  EXPECT_TRUE(AppendPriors(stored.substr(0, stored.size() - 1), 3, {}).empty());
}

}  // namespace
}  // namespace fixgraph::query::testing
