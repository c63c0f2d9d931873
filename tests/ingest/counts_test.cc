// One set of record counts for imports and syncs (ingest/counts.h).
#include "fixgraph/ingest/counts.h"

#include "fixgraph/ingest/dump.h"
#include "fixgraph/ingest/sync.h"

#include <gtest/gtest.h>

namespace fixgraph::ingest {
namespace {

RecordCounts Sample(std::int64_t base) {
  RecordCounts c;
  c.repos = base + 1;
  c.issues = base + 2;
  c.pulls = base + 3;
  c.comments = base + 4;
  c.commits = base + 5;
  c.files = base + 6;
  c.operate_logs = base + 7;
  c.platform_links = base + 8;
  c.changed = base + 9;
  c.touched = {*ParseRef("gitcode:o/r#" + std::to_string(base))};
  return c;
}

TEST(Counts, AddRecordsAddsEveryCount) {
  RecordCounts a = Sample(0);
  a.AddRecords(Sample(100));
  EXPECT_EQ(a.repos, 102);
  EXPECT_EQ(a.issues, 104);
  EXPECT_EQ(a.pulls, 106);
  EXPECT_EQ(a.comments, 108);
  EXPECT_EQ(a.commits, 110);
  EXPECT_EQ(a.files, 112);
  EXPECT_EQ(a.operate_logs, 114);
  EXPECT_EQ(a.platform_links, 116);
  EXPECT_EQ(a.changed, 118);
  EXPECT_EQ(a.touched.size(), 2u);
  // records(): every record kind, not repositories or changes.
  EXPECT_EQ(Sample(0).records(), 2 + 3 + 4 + 5 + 6 + 7 + 8);
}

TEST(Counts, JsonNamesEveryCount) {
  nlohmann::json j = ToJson(Sample(0));
  EXPECT_EQ(
      j, nlohmann::json::parse(R"({"repos": 1, "issues": 2, "pulls": 3, "comments": 4, "commits": 5,
      "files": 6, "operate_logs": 7, "platform_links": 8, "changed": 9})"));
}

TEST(Counts, ImportAndSyncAddTheSameRecordsAndTheirOwn) {
  ImportCounts i;
  ImportCounts j;
  static_cast<RecordCounts&>(j) = Sample(10);
  i.Add(j);
  EXPECT_EQ(i.comments, 14);
  SyncCounts s, t;
  static_cast<RecordCounts&>(t) = Sample(20);
  t.requests = 5;
  t.detailed = 3;
  t.stop = true;
  s.Add(t);
  s.Add(t);
  EXPECT_EQ(s.files, 52);
  EXPECT_EQ(s.requests, 10);
  EXPECT_EQ(s.detailed, 6);
  EXPECT_TRUE(s.stop);
  EXPECT_EQ(s.touched.size(), 2u);
}

}  // namespace
}  // namespace fixgraph::ingest
