// The linker on real recorded Gitee responses (shared/data/gitee-recorded):
// alphanumeric issue numbers, null times, a closed-unmerged PR, no links.
#include "testutil/testutil.h"

#include "fixgraph/graph/linker.h"
#include "fixgraph/ingest/dump.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fixgraph::graph {
namespace {

namespace fs = std::filesystem;

TEST(GiteeRecordedLinking, RealResponsesLinkWithoutInventingFixes) {
  std::string rec = testing::SharedDir() + "/data/gitee-recorded";
  if (!fs::exists(rec)) GTEST_SKIP() << "no recordings at " << rec;
  testing::TempDir dir;
  std::string repo = dir / "dump/gitee/kit101/drone-yml-test";
  fs::create_directories(repo + "/issues/I4CD5P");
  fs::create_directories(repo + "/pulls/6");
  fs::create_directories(repo + "/pulls/7");
  fs::copy_file(rec + "/repo.json", repo + "/repo.json");
  fs::copy_file(rec + "/issues.json", repo + "/issues.json");
  fs::copy_file(rec + "/pulls.json", repo + "/pulls.json");
  fs::copy_file(rec + "/issue_comments.json", repo + "/issues/I4CD5P/comments.json");
  fs::copy_file(rec + "/pr_files.json", repo + "/pulls/6/files.json");
  fs::copy_file(rec + "/pr_commits.json", repo + "/pulls/7/commits.json");
  fs::copy_file(rec + "/pr_comments.json", repo + "/pulls/7/comments.json");

  auto store = Store::Open(dir / "db", StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE(ingest::ImportDump(store->get(), dir / "dump", {}, nullptr).ok());
  LinkStats stats;
  ASSERT_TRUE(LinkAll(store->get(), LinkerOptions{}, &stats).ok());
  EXPECT_EQ(stats.issues, 2);
  EXPECT_EQ(stats.fixes, 0);  // no PR here fixes anything: none merged, none references an issue

  auto open = ReadLinks(**store, ParseRef("gitee:kit101/drone-yml-test#I4CD5P").value());
  ASSERT_TRUE(open.ok()) << open.status().ToString();
  EXPECT_EQ(open->resolution, Resolution::kOpen);
  auto closed = ReadLinks(**store, ParseRef("gitee:kit101/drone-yml-test#I4CE7W").value());
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  EXPECT_NE(closed->resolution, Resolution::kFixed);
  EXPECT_NE(closed->resolution, Resolution::kOpen);
  EXPECT_TRUE(closed->fixes.empty());
}

}  // namespace
}  // namespace fixgraph::graph
