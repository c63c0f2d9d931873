// Pending derived work (Store::ListPending): recorded in the same write as
// the data that calls for it, lost with it, cleared only on request.
#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

using testing::TempDir;

RepoRef Repo() {
  RepoRef r;
  r.platform = Platform::kGitCode;
  r.owner = "Ascend";
  r.name = "MindSpeed-Ops";
  return r;
}

Issue MakeIssue(const std::string& number, const std::string& title = "t") {
  Issue v;
  v.repo = Repo();
  v.number = number;
  v.title = title;
  v.created_at = 1789443356;
  return v;
}

PullRequest MakePull(std::int64_t number) {
  PullRequest v;
  v.repo = Repo();
  v.number = number;
  v.title = "pull";
  v.created_at = 1789443356;
  return v;
}

std::unique_ptr<Store> OpenStore(const std::string& dir) {
  auto s = Store::Open(dir, StoreOptions());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*s);
}

bool Has(const std::vector<Ref>& v, const Ref& r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

TEST(StorePending, ChangedItemsAreRecordedWithTheirWrite) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  auto batch = store->NewBatch();
  ASSERT_TRUE(batch->PutIssue(MakeIssue("7"), "{}").ok());
  ASSERT_TRUE(batch->PutPull(MakePull(3), "{}").ok());
  PendingWork p;
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_TRUE(p.empty());  // staged, not written
  ASSERT_TRUE(store->Write(batch.get()).ok());
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_TRUE(Has(p.relink, Ref::Issue(Repo(), "7")));
  EXPECT_TRUE(Has(p.relink, Ref::Pull(Repo(), 3)));
  EXPECT_TRUE(p.reindex.empty());
  EXPECT_TRUE(p.link_runs.empty());
  // Cleared on request only; an unchanged record records nothing again.
  ASSERT_TRUE(store->ClearPending(p).ok());
  auto again = store->NewBatch();
  ASSERT_TRUE(again->PutIssue(MakeIssue("7"), "{}").ok());
  ASSERT_TRUE(store->Write(again.get()).ok());
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_TRUE(p.empty());
  // A changed one does.
  auto changed = store->NewBatch();
  ASSERT_TRUE(changed->PutIssue(MakeIssue("7", "new title"), "{}").ok());
  ASSERT_TRUE(store->Write(changed.get()).ok());
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_EQ(p.relink, std::vector<Ref>{Ref::Issue(Repo(), "7")});
}

// Deleted entries RocksDB's iterators stepped over while `fn` ran (on this thread).
template <typename Fn>
std::uint64_t DeletesSkipped(Fn fn) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  fn();
  std::uint64_t n = rocksdb::get_perf_context()->internal_delete_skipped_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  return n;
}

// A large clear leaves no tombstones for later reads to step over (a first link
// of a million items left two million, read by every command's ListPending), and
// a scan of one prefix does not read past the prefix's end.
TEST(StorePending, ClearedEntriesAreNotSteppedOverLater) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  auto batch = store->NewBatch();
  for (int i = 1; i <= 3000; ++i)
    ASSERT_TRUE(batch->PutIssue(MakeIssue(std::to_string(i)), "{}").ok());
  ASSERT_TRUE(store->Write(batch.get()).ok());
  ASSERT_TRUE(store->Flush().ok());
  PendingWork p;
  ASSERT_TRUE(store->ListPending(&p).ok());
  ASSERT_EQ(p.relink.size(), 3000u);
  ASSERT_TRUE(store->ClearPending(p).ok());
  EXPECT_LT(DeletesSkipped([&] { ASSERT_TRUE(store->ListPending(&p).ok()); }), 10u);
  EXPECT_TRUE(p.empty());

  // Below the compaction's threshold the tombstones stay; a scan of a prefix
  // that sorts just before them (the reindex entries, none left, before the
  // relink ones: store_keys.h) stops at its own end.
  std::vector<Ref> covered;
  for (int i = 1; i <= 500; ++i) covered.push_back(Ref::Issue(Repo(), std::to_string(i)));
  ASSERT_TRUE(store->BeginLinkRun(nullptr, covered).ok());
  std::map<std::string, std::string> meta;
  const std::string reindex("pending\0reindex\0", 16);
  EXPECT_EQ(DeletesSkipped([&] { ASSERT_TRUE(store->ListMeta(reindex, &meta).ok()); }), 0u);
  EXPECT_TRUE(meta.empty());
}

TEST(StorePending, RecordingCanBeTurnedOff) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  auto batch = store->NewBatch();
  batch->RecordPending(false);
  ASSERT_TRUE(batch->PutIssue(MakeIssue("7"), "{}").ok());
  ASSERT_TRUE(store->Write(batch.get()).ok());
  PendingWork p;
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_TRUE(p.empty());
}

TEST(StorePending, ReindexMarksAndLinkRuns) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  auto batch = store->NewBatch();
  ASSERT_TRUE(batch->PutIssue(MakeIssue("1"), "{}").ok());
  ASSERT_TRUE(batch->PutIssue(MakeIssue("2"), "{}").ok());
  ASSERT_TRUE(batch->MarkReindex(Ref::Issue(Repo(), "9")).ok());
  ASSERT_TRUE(store->Write(batch.get()).ok());
  PendingWork p;
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_EQ(p.relink.size(), 2u);
  EXPECT_EQ(p.reindex, std::vector<Ref>{Ref::Issue(Repo(), "9")});
  // A whole run covers (and drops) the changed items it was given.
  ASSERT_TRUE(store->BeginLinkRun(nullptr, {Ref::Issue(Repo(), "1")}).ok());
  RepoRef repo = Repo();
  ASSERT_TRUE(store->BeginLinkRun(&repo, {}).ok());
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_EQ(p.relink, std::vector<Ref>{Ref::Issue(Repo(), "2")});
  ASSERT_EQ(p.link_runs.size(), 2u);
  EXPECT_TRUE(std::find(p.link_runs.begin(), p.link_runs.end(), "*") != p.link_runs.end());
  EXPECT_TRUE(std::find(p.link_runs.begin(), p.link_runs.end(), repo.ToString()) !=
              p.link_runs.end());
  ASSERT_TRUE(store->ClearPending(p).ok());
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_TRUE(p.empty());
}

TEST(StorePending, BulkLoadRecordsPendingInTheIngestion) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  auto batch = store->NewBatch();
  ASSERT_TRUE(batch->ExpectNewRepository(Repo()).ok());
  ASSERT_TRUE(batch->StartBulkLoad(1 << 10).ok());
  for (int i = 1; i <= 50; ++i) {
    ASSERT_TRUE(batch->PutIssue(MakeIssue(std::to_string(i), std::string(100, 'x')), "{}").ok());
    ASSERT_TRUE(store->Write(batch.get(), Store::Durability::kUnlogged).ok());
  }
  PendingWork p;
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_TRUE(p.empty());  // nothing ingested yet
  ASSERT_TRUE(store->IngestBulkLoad(batch.get()).ok());
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_EQ(p.relink.size(), 50u);
}

// A process that dies after an unlogged write loses the data and its pending
// entry together; a logged write keeps both.
TEST(StorePending, CrashKeepsDataAndPendingTogether) {
  TempDir dir;
  { OpenStore(dir.path()); }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(30);
    auto s = Store::Open(dir.path(), StoreOptions());
    if (!s.ok()) _exit(2);
    Store* store = s->get();
    auto batch = store->NewBatch();
    if (!batch->PutIssue(MakeIssue("1"), "{}").ok()) _exit(3);
    // Logged (a flush would wait for background threads, which a forked
    // child of a process that used RocksDB before does not have).
    if (!store->Write(batch.get(), Store::Durability::kLogged).ok()) _exit(3);
    auto lost = store->NewBatch();
    if (!lost->PutIssue(MakeIssue("2"), "{}").ok()) _exit(3);
    if (!store->Write(lost.get(), Store::Durability::kUnlogged).ok()) _exit(3);
    _exit(0);  // no destructor: the memtable is lost, like under kill -9
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  auto store = OpenStore(dir.path());
  EXPECT_TRUE(store->GetIssue(Ref::Issue(Repo(), "1")).ok());
  EXPECT_FALSE(store->GetIssue(Ref::Issue(Repo(), "2")).ok());
  PendingWork p;
  ASSERT_TRUE(store->ListPending(&p).ok());
  EXPECT_EQ(p.relink, std::vector<Ref>{Ref::Issue(Repo(), "1")});
}

}  // namespace
}  // namespace fixgraph
