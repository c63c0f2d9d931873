#include "../../ingest/prefetch.h"

#include "testutil/testutil.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::ingest {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;

// `n` item folders (1..n) with a comments file each, the folder open.
class PrefetchTest : public ::testing::Test {
 protected:
  void Make(int n) {
    for (int i = 1; i <= n; ++i) {
      std::string name = std::to_string(i);
      std::filesystem::create_directories(dir_ / ("items/" + name));
      WriteFile(dir_ / ("items/" + name + "/comments.json"), "[]");
      names_.push_back(name);
    }
    fd_ = ::open((dir_ / "items").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }
  // Waits (up to 10 s) until `done` holds.
  template <typename Fn>
  static bool Eventually(Fn done) {
    for (int i = 0; i < 1000 && !done(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return done();
  }

  TempDir dir_;
  std::vector<std::string> names_;
  int fd_ = -1;
};

TEST_F(PrefetchTest, ReadsEveryFolderAheadOfTheWalkWhenTheyAreCold) {
  Make(100);
  // warm_ns 0: no probe counts as cached, as in a dump read from disk.
  FolderPrefetcher ahead(fd_, names_, /*window=*/8, /*warm_ns=*/0);
  // Never more than the window ahead of the walk.
  ASSERT_TRUE(Eventually([&] { return ahead.folders_passed() == 8; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ahead.folders_opened(), 8u);
  ahead.Advance(50);
  ASSERT_TRUE(Eventually([&] { return ahead.folders_passed() == 58; }));
  ahead.Advance(100);
  ASSERT_TRUE(Eventually([&] { return ahead.folders_passed() == 100; }));
  EXPECT_EQ(ahead.folders_opened(), 100u);
}

TEST_F(PrefetchTest, PassesFoldersWithoutOpeningThemWhenAProbeFoundThemCached) {
  Make(200);
  // warm_ns huge: every probe counts as cached.
  FolderPrefetcher ahead(fd_, names_, /*window=*/4096, /*warm_ns=*/1'000'000'000L);
  ASSERT_TRUE(Eventually([&] { return ahead.folders_passed() == 200; }));
  EXPECT_EQ(ahead.folders_opened(), FolderPrefetcher::kProbe * FolderPrefetcher::kThreads);
}

TEST_F(PrefetchTest, MissingFoldersAreSkippedAndStoppingWhileWaitingReturns) {
  Make(3);
  std::vector<std::string> names = {"1", "gone", "2", "3"};
  {
    FolderPrefetcher ahead(fd_, names, /*window=*/2, /*warm_ns=*/0);
    ASSERT_TRUE(Eventually([&] { return ahead.folders_passed() == 2; }));
    // The thread now waits for the walk; the destructor wakes and joins it.
  }
  FolderPrefetcher all(fd_, names, /*window=*/16, /*warm_ns=*/0);
  EXPECT_TRUE(Eventually([&] { return all.folders_passed() == 4; }));
}

}  // namespace
}  // namespace fixgraph::ingest
