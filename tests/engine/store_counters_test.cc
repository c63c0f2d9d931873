// The per-repository counters behind Store::Stats (engine/store_counts.h):
// after any sequence of writes (plain batches, bulk loads, changes,
// removals, repository deletes) they equal a count by scanning
// (Store::CountByScan); a store written before them is handled as
// documented (docs/architecture.md "Store").
#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph {
namespace {

using testing::TempDir;

#define ASSERT_OK(expr)                      \
  do {                                       \
    Status _st = (expr);                     \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (0)

constexpr UnixSeconds kT = 1789443356;

RepoRef Repo(int i) {
  RepoRef r;
  r.platform = Platform::kGitCode;
  r.owner = "Ascend";
  r.name = "r" + std::to_string(i);
  return r;
}
constexpr int kRepos = 3;

std::unique_ptr<Store> MustOpen(const std::string& dir, bool read_only = false) {
  StoreOptions o;
  o.read_only = read_only;
  auto s = Store::Open(dir, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::string Show(const RepoStats& s) {
  return std::to_string(s.issues_open) + "/" + std::to_string(s.issues_closed) + " pulls " +
         std::to_string(s.pulls_open) + "/" + std::to_string(s.pulls_merged) + "/" +
         std::to_string(s.pulls_closed) + " comments " + std::to_string(s.comments) + " commits " +
         std::to_string(s.commits) + " files " + std::to_string(s.files) + " oplog " +
         std::to_string(s.operate_logs) + " links " + std::to_string(s.platform_links);
}

// Stats (the counters) against CountByScan (the reference), every repository.
void ExpectCountersMatch(const Store& store, const std::string& where) {
  for (int r = 0; r < kRepos; ++r) {
    auto counted = store.Stats(Repo(r));
    auto scanned = store.CountByScan(Repo(r));
    ASSERT_TRUE(counted.ok()) << counted.status().ToString();
    ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
    EXPECT_EQ(Show(*counted), Show(*scanned)) << where << ", repository " << r;
  }
}

// Random records over a small universe of keys, so that puts often hit a
// key already stored (equal or changed) and removals often find one.
class Gen {
 public:
  explicit Gen(unsigned seed) : rng_(seed) {}
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Issue MakeIssue(int repo) {
    Issue v;
    v.repo = Repo(repo);
    v.number = std::to_string(1 + Pick(12));
    v.title = "issue " + v.number + (Pick(3) == 0 ? " see #" + std::to_string(Pick(9)) : "");
    v.state = Pick(2) ? IssueState::kClosed : IssueState::kOpen;
    if (v.state == IssueState::kClosed) v.closed_at = kT + Pick(5);
    v.created_at = kT - 1000;
    return v;
  }
  PullRequest MakePull(int repo) {
    PullRequest v;
    v.repo = Repo(repo);
    v.number = 100 + Pick(10);
    v.title = "pull " + std::to_string(v.number);
    int s = Pick(3);
    v.state = s == 0 ? PullState::kOpen : s == 1 ? PullState::kMerged : PullState::kClosed;
    if (v.state == PullState::kMerged) v.merged_at = kT + Pick(5);
    v.created_at = kT - 500;
    return v;
  }
  Comment MakeComment(int repo) {
    Comment c;
    c.repo = Repo(repo);
    c.parent_kind = Pick(2) ? ParentKind::kIssue : ParentKind::kPull;
    c.parent_number = std::to_string(1 + Pick(5));
    c.id = std::to_string(Pick(6));
    c.body = "comment " + std::to_string(Pick(3));
    return c;
  }
  Commit MakeCommit(int repo) {
    Commit c;
    c.repo = Repo(repo);
    c.pr_number = 100 + Pick(4);
    c.sha = "sha" + std::to_string(Pick(6));
    c.message = "fix #" + std::to_string(Pick(4));
    return c;
  }
  FileChange MakeFile(int repo) {
    FileChange f;
    f.repo = Repo(repo);
    f.pr_number = 100 + Pick(4);
    f.filename = "f" + std::to_string(Pick(6));
    f.status = Pick(2) ? "modified" : "added";
    return f;
  }
  OperateLogEvent MakeEvent(int repo) {
    OperateLogEvent e;
    e.repo = Repo(repo);
    e.parent_kind = Pick(2) ? ParentKind::kIssue : ParentKind::kPull;
    e.parent_number = std::to_string(1 + Pick(5));
    e.id = std::to_string(Pick(6));
    e.action_type = Pick(2) ? "closed" : "label";
    return e;
  }
  // Half of them join two repositories.
  PlatformLink MakeLink(int repo) {
    PlatformLink l;
    l.issue = Ref::Issue(Repo(repo), std::to_string(1 + Pick(4)));
    l.pull = Ref::Pull(Repo(Pick(2) ? repo : Pick(kRepos)), 100 + Pick(4));
    l.source = Pick(2) ? "operate_log" : "pull_issues";
    return l;
  }

  Status PutRandom(Store::Batch* b, int repo) {
    switch (Pick(8)) {
      case 0:
        return b->PutIssue(MakeIssue(repo), Pick(2) ? "{}" : "");
      case 1:
        return b->PutPull(MakePull(repo), "{\"p\":1}");
      case 2:
        return b->PutComment(MakeComment(repo), "");
      case 3:
        return b->PutCommit(MakeCommit(repo), "");
      case 4:
        return b->PutFile(MakeFile(repo), "");
      case 5:
        return b->PutOperateLog(MakeEvent(repo), "");
      case 6:
        return b->PutPlatformLink(MakeLink(repo));
      default:
        return b->DeletePlatformLink(MakeLink(repo));
    }
  }

 private:
  std::mt19937 rng_;
};

class CountersProperty : public ::testing::TestWithParam<unsigned> {};

// Random sequences of plain batches (logged or not), bulk loads of a
// repository the store does not hold (spilling several runs), re-imports of
// records (equal or changed), link removals and repository deletes: after
// every step, and after reopening, the counters equal the scan.
TEST_P(CountersProperty, CountersEqualAScanAfterRandomWrites) {
  TempDir tmp;
  const std::string dir = tmp / "store";
  auto store = MustOpen(dir);
  ASSERT_NE(store, nullptr);
  Gen g(GetParam());
  for (int step = 0; step < 60; ++step) {
    const std::string where =
        "seed " + std::to_string(GetParam()) + " step " + std::to_string(step);
    int repo = g.Pick(kRepos);
    int what = g.Pick(10);
    if (what == 0) {
      ASSERT_OK(store->DeleteRepositoryRecords(Repo(repo), Store::Durability::kLogged));
    } else if (what <= 3) {
      // An import into a repository the store may not hold: bulk loaded
      // (when it does not) in runs of a few hundred bytes.
      auto b = store->NewBatch();
      ASSERT_OK(b->ExpectNewRepository(Repo(repo)));
      const bool bulk = b->ExpectsNewRepository();
      if (bulk) ASSERT_OK(b->StartBulkLoad(std::size_t{300} + g.Pick(2000)));
      for (int n = 0, writes = 1 + g.Pick(40); n < writes; ++n) {
        ASSERT_OK(g.PutRandom(b.get(), repo));
        if (g.Pick(8) == 0) ASSERT_OK(store->Write(b.get(), Store::Durability::kUnlogged));
      }
      ASSERT_OK(store->Write(b.get(), Store::Durability::kUnlogged));
      if (bulk) {
        if (g.Pick(6) == 0) {
          b->AbortBulkLoad();
        } else {
          ASSERT_OK(store->IngestBulkLoad(b.get()));
        }
      }
    } else {
      auto b = store->NewBatch();
      for (int n = 0, writes = 1 + g.Pick(30); n < writes; ++n)
        ASSERT_OK(g.PutRandom(b.get(), g.Pick(3) ? repo : g.Pick(kRepos)));
      ASSERT_OK(store->Write(
          b.get(), g.Pick(2) ? Store::Durability::kLogged : Store::Durability::kUnlogged));
    }
    ExpectCountersMatch(*store, where);
    if (HasFailure()) return;
  }
  store.reset();
  auto reader = MustOpen(dir, /*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  ExpectCountersMatch(*reader, "reopened read-only");
}

INSTANTIATE_TEST_SUITE_P(Seeds, CountersProperty, ::testing::Values(1u, 2u, 3u, 4u, 5u, 6u));

// Two repositories' imports (one thread each, as `import` runs them) that
// both write the same link joining them count it once, whichever commits
// first, bulk loaded or not.
TEST(Counters, SharedLinkWrittenByTwoImportsCountsOnce) {
  for (bool bulk : {false, true}) {
    SCOPED_TRACE(bulk ? "bulk" : "plain");
    TempDir tmp;
    auto store = MustOpen(tmp / "store");
    ASSERT_NE(store, nullptr);
    PlatformLink link{Ref::Issue(Repo(0), "1"), Ref::Pull(Repo(1), 100), "operate_log"};
    auto a = store->NewBatch();
    auto b = store->NewBatch();
    for (Store::Batch* batch : {a.get(), b.get()}) {
      if (bulk) ASSERT_OK(batch->StartBulkLoad());
      // Both read the store before either commits: neither finds the link.
      ASSERT_OK(batch->PutPlatformLink(link));
    }
    std::vector<Status> results(2);
    std::vector<std::thread> threads;
    int i = 0;
    for (Store::Batch* batch : {a.get(), b.get()}) {
      threads.emplace_back([&, batch, i] {
        results[i] = store->Write(batch);
        if (results[i].ok() && bulk) results[i] = store->IngestBulkLoad(batch);
      });
      ++i;
    }
    for (auto& t : threads) t.join();
    for (const Status& s : results) ASSERT_OK(s);
    EXPECT_EQ(store->Stats(Repo(0))->platform_links, 1);
    EXPECT_EQ(store->CountByScan(Repo(0))->platform_links, 1);
    // Removed by both: gone once.
    auto c = store->NewBatch();
    auto d = store->NewBatch();
    bool removed_c = false, removed_d = false;
    ASSERT_OK(c->DeletePlatformLink(link, &removed_c));
    ASSERT_OK(d->DeletePlatformLink(link, &removed_d));
    EXPECT_TRUE(removed_c && removed_d);
    ASSERT_OK(store->Write(c.get()));
    ASSERT_OK(store->Write(d.get()));
    EXPECT_EQ(store->Stats(Repo(0))->platform_links, 0);
  }
}

// A store written before the counters (schema 2: no counters): a read-only
// open counts by scanning; a writable open adds the counters and moves the
// store to the current schema, after which writes keep them up to date.
TEST(Counters, StoreWithoutCountersIsUpgradedByAWriter) {
  TempDir tmp;
  const std::string dir = tmp / "store";
  Gen g(7);
  {
    auto store = MustOpen(dir);
    ASSERT_NE(store, nullptr);
    auto b = store->NewBatch();
    for (int n = 0; n < 200; ++n) ASSERT_OK(g.PutRandom(b.get(), g.Pick(kRepos)));
    ASSERT_OK(store->Write(b.get()));
    // What an older build leaves: the same records, no counters, schema 2.
    auto old = store->NewBatch();
    for (int r = 0; r < kRepos; ++r)
      ASSERT_OK(old->DeleteMeta(std::string("counts\0", 7) + Repo(r).ToString()));
    ASSERT_OK(old->PutMeta("schema_version", std::to_string(kStoreSchemaWithoutCounters)));
    ASSERT_OK(store->Write(old.get()));
    EXPECT_EQ(store->Stats(Repo(0))->comments, 0) << "the counters are gone";
  }
  RepoStats expected[kRepos];
  {
    auto reader = MustOpen(dir, /*read_only=*/true);
    ASSERT_NE(reader, nullptr);
    EXPECT_EQ(*reader->GetMeta("schema_version"), "2") << "a reader changes nothing";
    for (int r = 0; r < kRepos; ++r) {
      expected[r] = *reader->CountByScan(Repo(r));
      EXPECT_EQ(Show(*reader->Stats(Repo(r))), Show(expected[r])) << "by scan, repository " << r;
    }
    EXPECT_GT(expected[0].comments + expected[1].comments + expected[2].comments, 0);
  }
  {
    auto writer = MustOpen(dir);
    ASSERT_NE(writer, nullptr);
    EXPECT_EQ(*writer->GetMeta("schema_version"), std::to_string(kStoreSchemaVersion));
    for (int r = 0; r < kRepos; ++r) {
      EXPECT_TRUE(writer->GetMeta(std::string("counts\0", 7) + Repo(r).ToString()).ok());
      EXPECT_EQ(Show(*writer->Stats(Repo(r))), Show(expected[r])) << "repository " << r;
    }
    auto b = writer->NewBatch();
    for (int n = 0; n < 100; ++n) ASSERT_OK(g.PutRandom(b.get(), g.Pick(kRepos)));
    ASSERT_OK(writer->Write(b.get()));
    ExpectCountersMatch(*writer, "after the upgrade");
  }
  auto reader = MustOpen(dir, /*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  ExpectCountersMatch(*reader, "reopened");
}

// Counters of one repository are independent of the others and survive a
// reopen; a repository the store knows nothing of counts zero.
TEST(Counters, StatsOfAnUnknownRepositoryAreZero) {
  TempDir tmp;
  auto store = MustOpen(tmp / "store");
  ASSERT_NE(store, nullptr);
  auto st = store->Stats(Repo(9));
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(Show(*st), Show(RepoStats{}));
  EXPECT_EQ(st->repo, Repo(9));
}

// ---- Crash points: the fixgraph binary killed at its N-th disk write
// (FIXGRAPH_CRASH_AT, engine/store.h CrashPoint) while it imports: a first
// import (bulk loads) and a re-import with changed states (plain batches).
// Whatever survives, the counters agree with the records.

// The repositories whose records a store holds.
std::vector<RepoRef> StoreRepositories(const Store& store) {
  std::vector<Repository> repos;
  EXPECT_TRUE(store.ListRepositories(&repos).ok());
  std::vector<RepoRef> out;
  for (const Repository& r : repos) out.push_back(r.ref);
  std::vector<RepoRef> with_issues;
  EXPECT_TRUE(store.ListIssueRepositories(&with_issues).ok());
  for (const RepoRef& r : with_issues)
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  return out;
}

// Runs `fixgraph --db DB import --no-link DUMP` crashing at point `at` (0:
// never); returns the exit status and, counting, the crash points passed.
int ImportCrashingAt(const std::string& db, const std::string& dump, long at, long* points) {
  std::string out, err;
  std::string env = "FIXGRAPH_CRASH_COUNT=1 FIXGRAPH_CRASH_AT=" + std::to_string(at) + " ";
  int rc = testing::RunCommand(
      env + testing::BinaryPath() + " --db " + db + " import --no-link " + dump, &out, &err);
  if (points) {
    size_t at_text = err.rfind("crash points: ");
    *points = at_text == std::string::npos ? -1 : std::stol(err.substr(at_text + 14));
  }
  return rc;
}

TEST(CountersCrash, CountersAndRecordsAgreeAfterAKillAnywhereInAnImport) {
  TempDir tmp;
  const std::string demo = testing::SourceDir() + "/data/demo";
  // The same dump with every closed issue of gitcode reopened: a re-import
  // replaces records and moves counts between states.
  const std::string changed = tmp / "changed";
  ASSERT_EQ(testing::RunCommand("cp -r " + demo + " " + changed +
                                    R"( && sed -i 's/"state": "closed"/"state": "open"/' )" +
                                    changed + "/gitcode/*/*/issues.json",
                                nullptr),
            0);
  for (bool reimport : {false, true}) {
    SCOPED_TRACE(reimport ? "re-import" : "first import");
    const std::string base = tmp / (reimport ? "base-re" : "base-first");
    if (reimport) {
      ASSERT_EQ(ImportCrashingAt(base, demo, 0, nullptr), 0);
    }
    const std::string dump = reimport ? changed : demo;
    // How many crash points one uninterrupted run passes.
    long total = 0;
    {
      const std::string db = tmp / "count";
      ASSERT_EQ(testing::RunCommand(
                    "rm -rf " + db + (reimport ? " && cp -r " + base + " " + db : ""), nullptr),
                0);
      ASSERT_EQ(ImportCrashingAt(db, dump, 0, &total), 0);
      ASSERT_GT(total, 2);
    }
    // Every point when they are few, else about 16 spread over the run.
    const long step = std::max<long>(1, total / 16);
    int killed = 0;
    for (long at = 1; at <= total; at += step) {
      const std::string db = tmp / ("crash-" + std::to_string(at));
      ASSERT_EQ(testing::RunCommand(
                    "rm -rf " + db + (reimport ? " && cp -r " + base + " " + db : ""), nullptr),
                0);
      int rc = ImportCrashingAt(db, dump, at, nullptr);
      if (rc == 86) ++killed;
      // Read-only: the store as the kill left it (a kill before the first
      // write leaves none, or one without a schema version).
      StoreOptions ro;
      ro.read_only = true;
      auto opened = Store::Open(db + "/store", ro);
      if (!opened.ok()) {
        EXPECT_TRUE(!reimport && at <= 2 * step)
            << "crash point " << at << ": " << opened.status().ToString();
        continue;
      }
      std::unique_ptr<Store> store = std::move(opened).value();
      // Written by this build (its counters, not an upgrade's).
      ASSERT_EQ(*store->GetMeta("schema_version"), std::to_string(kStoreSchemaVersion));
      for (const RepoRef& r : StoreRepositories(*store)) {
        auto counted = store->Stats(r);
        auto scanned = store->CountByScan(r);
        ASSERT_TRUE(counted.ok() && scanned.ok());
        EXPECT_EQ(Show(*counted), Show(*scanned))
            << "crash point " << at << " of " << total << ", " << r.ToString();
      }
      testing::RunCommand("rm -rf " + db, nullptr);
    }
    EXPECT_GT(killed, 0);
  }
}

}  // namespace
}  // namespace fixgraph
