#include "fixgraph/engine/store.h"

#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

using testing::TempDir;
using testing::WriteFile;

constexpr UnixSeconds kT = 1789443356;  // 2026-09-15T03:35:56Z

RepoRef Repo(const std::string& owner = "Ascend", const std::string& name = "MindSpeed-Ops",
             Platform p = Platform::kGitCode) {
  RepoRef r;
  r.platform = p;
  r.owner = owner;
  r.name = name;
  return r;
}

Ref IssueRef(const std::string& n, const RepoRef& r = Repo()) { return Ref::Issue(r, n); }
Ref PullRef(std::int64_t n, const RepoRef& r = Repo()) { return Ref::Pull(r, n); }

Issue MakeIssue(const std::string& number, const std::string& body = "",
                IssueState state = IssueState::kOpen, OptTime closed_at = std::nullopt,
                const RepoRef& repo = Repo()) {
  Issue v;
  v.repo = repo;
  v.number = number;
  v.title = "issue " + number;
  v.body = body;
  v.state = state;
  v.closed_at = closed_at;
  v.created_at = kT - 100000;
  return v;
}

PullRequest MakePull(std::int64_t number, const std::string& body = "",
                     PullState state = PullState::kOpen, OptTime merged_at = std::nullopt,
                     const RepoRef& repo = Repo()) {
  PullRequest v;
  v.repo = repo;
  v.number = number;
  v.title = "pull " + std::to_string(number);
  v.body = body;
  v.state = state;
  v.merged_at = merged_at;
  v.created_at = kT - 50000;
  return v;
}

Comment MakeComment(ParentKind kind, const std::string& parent, const std::string& id,
                    const std::string& body, OptTime at = std::nullopt) {
  Comment c;
  c.repo = Repo();
  c.parent_kind = kind;
  c.parent_number = parent;
  c.id = id;
  c.body = body;
  c.created_at = at;
  return c;
}

Commit MakeCommit(std::int64_t pr, const std::string& sha, const std::string& message,
                  OptTime at = std::nullopt) {
  Commit c;
  c.repo = Repo();
  c.pr_number = pr;
  c.sha = sha;
  c.message = message;
  c.committed_at = at;
  return c;
}

FileChange MakeFile(std::int64_t pr, const std::string& filename) {
  FileChange f;
  f.repo = Repo();
  f.pr_number = pr;
  f.filename = filename;
  f.status = "modified";
  f.additions = 1;
  return f;
}

OperateLogEvent MakeEvent(ParentKind kind, const std::string& parent, const std::string& id,
                          const std::string& action_type) {
  OperateLogEvent e;
  e.repo = Repo();
  e.parent_kind = kind;
  e.parent_number = parent;
  e.id = id;
  e.action_type = action_type;
  return e;
}

std::unique_ptr<Store> MustOpen(const std::string& dir, bool read_only = false) {
  StoreOptions o;
  o.read_only = read_only;
  auto s = Store::Open(dir, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_ / "db" + "/store";
    store_ = MustOpen(dir_);
    ASSERT_NE(store_, nullptr);
  }

  // Runs fn on a fresh batch and commits it; returns the batch's changed() before the write.
  template <typename Fn>
  std::int64_t Apply(Fn fn) {
    auto b = store_->NewBatch();
    fn(b.get());
    std::int64_t changed = b->changed();
    Status s = store_->Write(b.get());
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(b->changed(), 0);
    return changed;
  }

  std::vector<std::pair<UnixSeconds, Ref>> Closed(UnixSeconds from, UnixSeconds to,
                                                  const RepoRef& repo = Repo()) {
    std::vector<std::pair<UnixSeconds, Ref>> out;
    EXPECT_TRUE(store_->IssuesClosedBetween(repo, from, to, &out).ok());
    return out;
  }
  std::vector<std::pair<UnixSeconds, Ref>> Merged(UnixSeconds from, UnixSeconds to,
                                                  const RepoRef& repo = Repo()) {
    std::vector<std::pair<UnixSeconds, Ref>> out;
    EXPECT_TRUE(store_->PullsMergedBetween(repo, from, to, &out).ok());
    return out;
  }
  std::vector<MentionRecord> Mentions(const Ref& target) {
    std::vector<MentionRecord> out;
    Status s = store_->MentionsOf(target, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  TempDir tmp_;
  std::string dir_;
  std::unique_ptr<Store> store_;
};

#define ASSERT_OK(expr)                      \
  do {                                       \
    Status _st = (expr);                     \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (0)

// ---- Open

TEST_F(StoreTest, CreatesStoreWithSchemaVersion) {
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/CURRENT"));
  EXPECT_EQ(store_->dir(), dir_);
  auto v = store_->GetMeta("schema_version");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, std::to_string(kStoreSchemaVersion));
  EXPECT_EQ(kStoreSchemaVersion, 3);  // 3: per-repository counters
}

TEST_F(StoreTest, ReopenKeepsData) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("69", "body"), R"({"number":"69"})"));
    ASSERT_OK(b->PutPull(MakePull(166), ""));
  });
  store_.reset();
  store_ = MustOpen(dir_);
  ASSERT_NE(store_, nullptr);
  auto issue = store_->GetIssue(IssueRef("69"));
  ASSERT_TRUE(issue.ok()) << issue.status().ToString();
  EXPECT_EQ(issue->body, "body");
  EXPECT_EQ(issue->title, "issue 69");
  auto raw = store_->GetRaw(IssueRef("69"));
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, R"({"number":"69"})");
  EXPECT_TRUE(store_->GetPull(PullRef(166)).ok());
  EXPECT_TRUE(store_->GetRaw(PullRef(166)).status().IsNotFound());
}

// The bulk scans read table blocks around the block cache; point reads fill it.
TEST_F(StoreTest, BulkScansLeaveTheBlockCacheEmpty) {
  Apply([](Store::Batch* b) {
    for (int i = 1; i <= 400; ++i) {
      ASSERT_OK(b->PutIssue(MakeIssue(std::to_string(i), std::string(300, 'x')), ""));
      ASSERT_OK(b->PutPull(MakePull(i, std::string(300, 'y')), ""));
    }
  });
  store_.reset();  // flushed to table files: reads now go through blocks
  store_ = MustOpen(dir_);
  ASSERT_NE(store_, nullptr);
  const std::uint64_t before = store_->BlockCacheBytes();  // (Open's own point reads)
  size_t issues = 0, pulls = 0;
  ASSERT_OK(store_->ForEachIssue(nullptr, [&](Issue&) { return ++issues, true; }));
  ASSERT_OK(store_->ForEachPull(nullptr, [&](PullRequest&) { return ++pulls, true; }));
  EXPECT_EQ(issues, 400u);
  EXPECT_EQ(pulls, 400u);
  EXPECT_EQ(store_->BlockCacheBytes(), before);
  ASSERT_TRUE(store_->GetIssue(IssueRef("7")).ok());
  EXPECT_GT(store_->BlockCacheBytes(), before + 1000);  // a data block of issues
}

TEST_F(StoreTest, ClosingAWritableStoreLeavesNoLogToReplay) {
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("69", "body"), "")); });
  store_.reset();
  // Every later read-only open would replay a non-empty write-ahead log.
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    if (e.path().extension() == ".log") {
      EXPECT_EQ(std::filesystem::file_size(e.path()), 0u) << e.path();
    }
  }
  StoreOptions ro;
  ro.read_only = true;
  auto reader = Store::Open(dir_, ro);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->GetIssue(IssueRef("69")).ok());
}

TEST(StoreOpenTest, ReadOnlyOfMissingDirIsNotFoundWithHint) {
  TempDir tmp;
  std::string dir = tmp / "nothing-here";
  StoreOptions o;
  o.read_only = true;
  auto s = Store::Open(dir, o);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsNotFound()) << s.status().ToString();
  EXPECT_NE(s.status().message().find(dir), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("fixgraph import"), std::string::npos)
      << s.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(StoreOpenTest, NoCreateOfMissingDirIsNotFound) {
  TempDir tmp;
  StoreOptions o;
  o.create_if_missing = false;
  auto s = Store::Open(tmp / "x", o);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsNotFound());
  // An existing but empty directory is not a store either.
  auto e = Store::Open(tmp.path(), o);
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(e.status().IsNotFound());
}

TEST_F(StoreTest, SecondWriterIsRefused) {
  auto second = Store::Open(dir_, StoreOptions{});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kIOError) << second.status().ToString();
  EXPECT_NE(second.status().message().find("in use"), std::string::npos)
      << second.status().message();
}

TEST_F(StoreTest, ReadOnlyRefusesWrites) {
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("1"), "")); });
  store_.reset();
  auto ro = MustOpen(dir_, /*read_only=*/true);
  ASSERT_NE(ro, nullptr);
  EXPECT_TRUE(ro->GetIssue(IssueRef("1")).ok());
  auto b = ro->NewBatch();
  Status put = b->PutIssue(MakeIssue("2"), "");
  EXPECT_EQ(put.code(), Status::Code::kFailedPrecondition) << put.ToString();
  EXPECT_NE(put.message().find("read-only"), std::string::npos);
  EXPECT_EQ(b->PutDerived("links", IssueRef("1"), "x").code(), Status::Code::kFailedPrecondition);
  ASSERT_OK(b->PutMeta("k", "v"));  // buffered only
  Status w = ro->Write(b.get());
  EXPECT_EQ(w.code(), Status::Code::kFailedPrecondition) << w.ToString();
  EXPECT_TRUE(ro->GetMeta("k").status().IsNotFound());
  EXPECT_TRUE(ro->GetIssue(IssueRef("2")).status().IsNotFound());
}

TEST_F(StoreTest, SchemaVersionMismatchIsFailedPrecondition) {
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutMeta("schema_version", "999")); });
  store_.reset();
  for (bool read_only : {false, true}) {
    SCOPED_TRACE(read_only ? "read-only" : "writer");
    StoreOptions o;
    o.read_only = read_only;
    auto s = Store::Open(dir_, o);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), Status::Code::kFailedPrecondition) << s.status().ToString();
    const std::string msg = s.status().message();
    EXPECT_NE(msg.find("999"), std::string::npos) << msg;
    EXPECT_NE(msg.find("version " + std::to_string(kStoreSchemaVersion)), std::string::npos) << msg;
    EXPECT_NE(msg.find(dir_), std::string::npos) << msg;
  }
}

TEST_F(StoreTest, ReaderOpenedWhileWriterHoldsTheStore) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1", "first"), ""));
    ASSERT_OK(b->PutPull(MakePull(2, "fixes #1", PullState::kMerged, kT), ""));
  });
  // The writer stays open.
  auto reader = MustOpen(dir_, /*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  auto issue = reader->GetIssue(IssueRef("1"));
  ASSERT_TRUE(issue.ok()) << issue.status().ToString();
  EXPECT_EQ(issue->body, "first");
  std::vector<MentionRecord> rows;
  ASSERT_OK(reader->MentionsOf(IssueRef("1"), &rows));
  EXPECT_EQ(rows.size(), 1u);
  std::vector<std::pair<UnixSeconds, Ref>> merged;
  ASSERT_OK(reader->PullsMergedBetween(Repo(), kT, kT, &merged));
  EXPECT_EQ(merged.size(), 1u);

  // The writer keeps writing; the reader sees the store as of its Open.
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("3"), "")); });
  EXPECT_TRUE(store_->GetIssue(IssueRef("3")).ok());
  EXPECT_TRUE(reader->GetIssue(IssueRef("3")).status().IsNotFound());

  // A second reader at the same time, opened later, sees the newer data.
  auto reader2 = MustOpen(dir_, /*read_only=*/true);
  ASSERT_NE(reader2, nullptr);
  EXPECT_TRUE(reader2->GetIssue(IssueRef("3")).ok());
}

// ---- Reads of absent records

TEST_F(StoreTest, MissingRecordsAreNotFoundNamingTheRef) {
  auto i = store_->GetIssue(IssueRef("404"));
  ASSERT_FALSE(i.ok());
  EXPECT_TRUE(i.status().IsNotFound());
  EXPECT_NE(i.status().message().find("gitcode:Ascend/MindSpeed-Ops#404"), std::string::npos);
  auto p = store_->GetPull(PullRef(404));
  EXPECT_TRUE(p.status().IsNotFound());
  EXPECT_NE(p.status().message().find("gitcode:Ascend/MindSpeed-Ops!404"), std::string::npos);
  EXPECT_TRUE(store_->GetRepository(Repo()).status().IsNotFound());
  EXPECT_TRUE(store_->GetRaw(IssueRef("404")).status().IsNotFound());
  EXPECT_TRUE(store_->GetMeta("nope").status().IsNotFound());
  EXPECT_TRUE(store_->GetDerived("links", IssueRef("404")).status().IsNotFound());
}

// ---- Idempotent upserts

TEST_F(StoreTest, SameRecordTwiceChangesNothing) {
  PlatformLink link{IssueRef("69"), PullRef(166), "pull_issues"};
  Repository repo;
  repo.ref = Repo();
  repo.full_name = "Ascend/MindSpeed-Ops";
  auto put_all = [&](Store::Batch* b) {
    ASSERT_OK(b->PutRepository(repo, "{}"));
    ASSERT_OK(b->PutIssue(MakeIssue("69", "body", IssueState::kClosed, kT), R"({"a":1})"));
    ASSERT_OK(b->PutPull(MakePull(166, "fixes #69", PullState::kMerged, kT), R"({"b":2})"));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "69", "1", "see !166"), "{}"));
    ASSERT_OK(b->PutCommit(MakeCommit(166, "abc", "fix #69"), "{}"));
    ASSERT_OK(b->PutFile(MakeFile(166, "a.cc"), "{}"));
    ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kIssue, "69", "5", "closed"), "{}"));
    ASSERT_OK(b->PutPlatformLink(link));
  };
  EXPECT_EQ(Apply(put_all), 8);
  EXPECT_EQ(Apply(put_all), 0);
  // Still there, still indexed once.
  EXPECT_EQ(Mentions(IssueRef("69")).size(), 2u);  // the PR body and the commit
  EXPECT_EQ(Mentions(PullRef(166)).size(), 1u);    // the comment on #69
  EXPECT_EQ(Closed(kT, kT).size(), 1u);
  EXPECT_EQ(Merged(kT, kT).size(), 1u);
}

// DeletePlatformLink removes the record and its index row (both sides'
// listings), touches both items, and says when there was nothing to remove;
// one batch may put and remove the same link.
TEST_F(StoreTest, DeletePlatformLink) {
  PlatformLink link{IssueRef("2"), PullRef(3), "operate_log"};
  auto b = store_->NewBatch();
  ASSERT_OK(b->PutPlatformLink(link));
  ASSERT_OK(b->PutPlatformLink({IssueRef("2"), PullRef(4), "operate_log"}));
  ASSERT_OK(store_->Write(b.get()));
  auto count = [&](const Ref& r) {
    std::vector<PlatformLink> l;
    EXPECT_TRUE(store_->ListPlatformLinks(r, &l).ok());
    return l.size();
  };
  ASSERT_EQ(count(IssueRef("2")), 2u);
  ASSERT_EQ(count(PullRef(3)), 1u);
  b = store_->NewBatch();
  bool removed = false;
  ASSERT_OK(b->DeletePlatformLink(link, &removed));
  EXPECT_TRUE(removed);
  std::vector<Ref> touched = b->TouchedItems();
  EXPECT_NE(std::find(touched.begin(), touched.end(), IssueRef("2")), touched.end());
  EXPECT_NE(std::find(touched.begin(), touched.end(), PullRef(3)), touched.end());
  ASSERT_OK(b->DeletePlatformLink(link, &removed));  // gone within the batch already
  EXPECT_FALSE(removed);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_EQ(count(IssueRef("2")), 1u);
  EXPECT_EQ(count(PullRef(3)), 0u);
  EXPECT_EQ(count(PullRef(4)), 1u);
  b = store_->NewBatch();
  ASSERT_OK(b->DeletePlatformLink({IssueRef("2"), PullRef(4), "pull_issues"},
                                  &removed));  // another source
  EXPECT_FALSE(removed);
  EXPECT_TRUE(b->TouchedItems().empty());
  // Put and removed in one batch: nothing stays.
  ASSERT_OK(b->PutPlatformLink({IssueRef("7"), PullRef(8), "operate_log"}));
  ASSERT_OK(b->DeletePlatformLink({IssueRef("7"), PullRef(8), "operate_log"}, &removed));
  EXPECT_TRUE(removed);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_EQ(count(IssueRef("7")), 0u);
  EXPECT_EQ(count(PullRef(8)), 0u);
}

TEST_F(StoreTest, SameRecordTwiceInOneBatchCountsOnce) {
  auto b = store_->NewBatch();
  ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));
  ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));
  EXPECT_EQ(b->changed(), 1);
  ASSERT_OK(b->PutIssue(MakeIssue("1", "edited"), ""));
  EXPECT_EQ(b->changed(), 2);
  EXPECT_GT(b->ApproximateSize(), 0u);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_EQ(store_->GetIssue(IssueRef("1"))->body, "edited");
}

TEST_F(StoreTest, ChangedRecordIsReplaced) {
  EXPECT_EQ(Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("1", "v1"), "r1")); }), 1);
  EXPECT_EQ(Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("1", "v2"), "r2")); }), 1);
  EXPECT_EQ(store_->GetIssue(IssueRef("1"))->body, "v2");
  EXPECT_EQ(*store_->GetRaw(IssueRef("1")), "r2");
  // A changed record with no raw payload keeps the previous one.
  EXPECT_EQ(Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("1", "v3"), "")); }), 1);
  EXPECT_EQ(*store_->GetRaw(IssueRef("1")), "r2");
  // The same record with a new payload updates the payload only.
  EXPECT_EQ(Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("1", "v3"), "r3")); }), 0);
  EXPECT_EQ(*store_->GetRaw(IssueRef("1")), "r3");
  EXPECT_EQ(store_->GetIssue(IssueRef("1"))->body, "v3");
}

TEST_F(StoreTest, GiteeAlphanumericIssueNumbers) {
  RepoRef gitee = Repo("mindspore", "mindformers", Platform::kGitee);
  Apply([&](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("I8XK2P", "", IssueState::kClosed, kT, gitee), ""));
    ASSERT_OK(b->PutPull(MakePull(9, "fixes #I8XK2P", PullState::kOpen, std::nullopt, gitee), ""));
  });
  auto i = store_->GetIssue(IssueRef("I8XK2P", gitee));
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->repo, gitee);
  auto closed = Closed(kT, kT, gitee);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].second, IssueRef("I8XK2P", gitee));
  auto rows = Mentions(IssueRef("I8XK2P", gitee));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].source_item, PullRef(9, gitee));
  EXPECT_TRUE(Closed(kT, kT).empty());  // another repository
}

// ---- Time indexes

TEST_F(StoreTest, ReopenedIssueLeavesTheClosedIndex) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), ""));
    ASSERT_OK(b->PutIssue(MakeIssue("2", "", IssueState::kClosed, kT + 10), ""));
  });
  auto before = Closed(kT - 100, kT + 100);
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0], std::make_pair(kT, IssueRef("1")));
  EXPECT_EQ(before[1], std::make_pair(kT + 10, IssueRef("2")));

  // Reopened: state open, no close time.
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutIssue(MakeIssue("1"), "")); });
  auto after = Closed(kT - 100, kT + 100);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].second, IssueRef("2"));

  // Closed again later: only the new close second is indexed.
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT + 50), ""));
  });
  auto again = Closed(kT - 100, kT + 100);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].second, IssueRef("2"));
  EXPECT_EQ(again[1], std::make_pair(kT + 50, IssueRef("1")));
  EXPECT_TRUE(Closed(kT, kT).empty());
}

TEST_F(StoreTest, ReopenInSameBatchAlsoLeavesTheIndex) {
  auto b = store_->NewBatch();
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), ""));
  ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_TRUE(Closed(kT - 1, kT + 1).empty());
}

// Keys staged out of order are sorted before they reach RocksDB; of several
// writes to one key the last staged one wins, through a WriteBatch and
// through a bulk load alike.
TEST_F(StoreTest, LaterWriteOfAKeyWinsInAnUnsortedBatch) {
  for (bool bulk : {false, true}) {
    SCOPED_TRACE(bulk ? "bulk load" : "write batch");
    auto b = store_->NewBatch();
    if (bulk) ASSERT_OK(b->StartBulkLoad());
    const std::string n5 = bulk ? "15" : "5";
    ASSERT_OK(b->PutIssue(MakeIssue(n5, "", IssueState::kClosed, kT), "{\"v\":1}"));
    ASSERT_OK(b->PutIssue(MakeIssue("3", "", IssueState::kClosed, kT + 1), ""));
    ASSERT_OK(b->PutIssue(MakeIssue("12"), ""));
    ASSERT_OK(b->PutIssue(MakeIssue(n5), "{\"v\":2}"));
    ASSERT_OK(store_->Write(b.get()));
    if (bulk) ASSERT_OK(store_->IngestBulkLoad(b.get()));
    auto raw = store_->GetRaw(IssueRef(n5));
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ(*raw, "{\"v\":2}");
    auto closed = Closed(kT - 1, kT + 2);
    ASSERT_EQ(closed.size(), 1u);
    EXPECT_EQ(closed[0].second, IssueRef("3"));
  }
}

// ExpectNewRepository skips reads only for keys the batch never put: a record
// put again after an earlier Write is still compared with the stored one.
TEST_F(StoreTest, NewRepositoryHintStillSeesEarlierWritesOfTheBatch) {
  auto b = store_->NewBatch();
  ASSERT_OK(b->ExpectNewRepository(Repo()));
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), "{\"n\":1}"));
  ASSERT_OK(b->PutIssue(MakeIssue("2"), ""));
  EXPECT_EQ(b->changed(), 2);
  ASSERT_OK(store_->Write(b.get()));
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), "{\"n\":1}"));
  EXPECT_EQ(b->changed(), 0);                  // unchanged: read back, not assumed new
  ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));  // reopened: the old close row goes
  EXPECT_EQ(b->changed(), 1);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_TRUE(Closed(kT - 1, kT + 1).empty());
  auto raw = store_->GetRaw(IssueRef("1"));
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, "{\"n\":1}");
}

// The same with no Write in between: the second put of a key finds the first
// among the staged writes (looked up only when the key filter has the key),
// also after other records were staged in between.
TEST_F(StoreTest, NewRepositoryHintSeesStagedWritesOfTheSameBatch) {
  auto b = store_->NewBatch();
  ASSERT_OK(b->ExpectNewRepository(Repo()));
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), "{\"n\":1}"));
  for (int i = 2; i < 50; ++i) ASSERT_OK(b->PutIssue(MakeIssue(std::to_string(i)), ""));
  EXPECT_EQ(b->changed(), 49);
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), "{\"n\":1}"));
  EXPECT_EQ(b->changed(), 49);  // unchanged record and payload: nothing staged
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), "{\"n\":2}"));
  EXPECT_EQ(b->changed(), 49);                 // only the payload is new
  ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));  // reopened: the staged close row goes
  EXPECT_EQ(b->changed(), 50);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_TRUE(Closed(kT - 1, kT + 1).empty());
  auto raw = store_->GetRaw(IssueRef("1"));
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, "{\"n\":2}");
  auto issue = store_->GetIssue(IssueRef("1"));
  ASSERT_TRUE(issue.ok());
  EXPECT_EQ(issue->state, IssueState::kOpen);
}

// With records of the repository in the store the hint is not taken.
TEST_F(StoreTest, NewRepositoryHintIgnoredWhenTheRepositoryHasRecords) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), ""));
  });
  auto b = store_->NewBatch();
  ASSERT_OK(b->ExpectNewRepository(Repo()));
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), ""));
  EXPECT_EQ(b->changed(), 0);
  ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));
  EXPECT_EQ(b->changed(), 1);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_TRUE(Closed(kT - 1, kT + 1).empty());
}

TEST_F(StoreTest, NewRepositoryHintReportsWhetherItTookEffect) {
  auto b = store_->NewBatch();
  EXPECT_FALSE(b->ExpectsNewRepository());
  ASSERT_OK(b->ExpectNewRepository(Repo()));
  EXPECT_TRUE(b->ExpectsNewRepository());
  Apply([](Store::Batch* a) { ASSERT_OK(a->PutFile(MakeFile(3, "a.cc"), "")); });
  auto c = store_->NewBatch();
  ASSERT_OK(c->ExpectNewRepository(Repo()));
  EXPECT_FALSE(c->ExpectsNewRepository());  // a file record is enough
}

// ---- Bulk load

// The bulk-load folders inside the store folder.
int BulkDirs(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().rfind("bulkload.", 0) == 0) ++n;
  return n;
}

// Fills the records of the default repository: a record put in one run and
// changed in a later one (its old index rows must go, read back from the
// spilled files), an unchanged re-put, and a payload replaced later.
void FillRepository(Store* store, Store::Batch* b) {
  ASSERT_OK(b->ExpectNewRepository(Repo()));
  ASSERT_OK(b->PutIssue(MakeIssue("1", "see #2", IssueState::kClosed, kT), "{\"n\":1}"));
  ASSERT_OK(b->PutIssue(MakeIssue("2"), "{}"));
  ASSERT_OK(store->Write(b));
  ASSERT_OK(b->PutPull(MakePull(3, "fixes #2", PullState::kMerged, kT + 5), "{}"));
  ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "2", "20", "dup of #1"), "{}"));
  ASSERT_OK(b->PutCommit(MakeCommit(3, "abc", "fix #1"), "{}"));
  ASSERT_OK(store->Write(b));
  ASSERT_OK(b->PutIssue(MakeIssue("2"), "{}"));  // unchanged
  EXPECT_EQ(b->changed(), 0);
  ASSERT_OK(b->PutIssue(MakeIssue("1", "see #3"), "{\"n\":2}"));  // reopened, new mention
  EXPECT_EQ(b->changed(), 1);
  ASSERT_OK(b->PutPlatformLink({IssueRef("2"), PullRef(3), "pull_issues"}));
  ASSERT_OK(store->Write(b));
}

// What a store holds of the default repository, as text.
std::string Dump(const Store& store) {
  std::string out;
  RepoStats st = store.Stats(Repo()).value();
  out += std::to_string(st.issues_open) + "/" + std::to_string(st.issues_closed) + "/" +
         std::to_string(st.pulls_merged) + "/" + std::to_string(st.comments) + "/" +
         std::to_string(st.commits) + "/" + std::to_string(st.platform_links) + "\n";
  for (const char* ref : {"gitcode:Ascend/MindSpeed-Ops#1", "gitcode:Ascend/MindSpeed-Ops#2",
                          "gitcode:Ascend/MindSpeed-Ops#3", "gitcode:Ascend/MindSpeed-Ops!3"}) {
    Ref r = ParseRef(ref).value();
    std::vector<MentionRecord> m;
    EXPECT_TRUE(store.MentionsOf(r, &m).ok());
    out += std::string(ref) + " mentioned by";
    for (const MentionRecord& x : m) {
      out += ' ';
      out += x.source_item.ToString();
      out += ':';
      out += x.text;
    }
    auto raw = store.GetRaw(r);
    out += " raw=" + (raw.ok() ? *raw : std::string("-")) + "\n";
  }
  std::vector<std::pair<UnixSeconds, Ref>> closed, merged;
  EXPECT_TRUE(store.IssuesClosedBetween(Repo(), 0, kT * 2, &closed).ok());
  EXPECT_TRUE(store.PullsMergedBetween(Repo(), 0, kT * 2, &merged).ok());
  out += "closed " + std::to_string(closed.size()) + " merged " + std::to_string(merged.size());
  return out;
}

// A bulk load spilled after every Write reads and ends like plain writes,
// and the store shows none of it before the ingestion.
TEST_F(StoreTest, BulkLoadEqualsPlainWritesAndIsInvisibleUntilIngested) {
  TempDir other;
  auto plain = MustOpen(other / "store");
  ASSERT_NE(plain, nullptr);
  {
    auto b = plain->NewBatch();
    ASSERT_NO_FATAL_FAILURE(FillRepository(plain.get(), b.get()));
  }
  auto b = store_->NewBatch();
  ASSERT_OK(b->StartBulkLoad(1));  // every Write spills a run
  ASSERT_NO_FATAL_FAILURE(FillRepository(store_.get(), b.get()));
  EXPECT_EQ(BulkDirs(dir_), 1);
  EXPECT_TRUE(store_->GetIssue(IssueRef("1")).status().IsNotFound());
  EXPECT_TRUE(Mentions(IssueRef("2")).empty());
  ASSERT_OK(store_->IngestBulkLoad(b.get()));
  EXPECT_EQ(BulkDirs(dir_), 0);
  EXPECT_EQ(Dump(*store_), Dump(*plain));
  EXPECT_EQ(store_->GetIssue(IssueRef("1")).value().state, IssueState::kOpen);
  // The batch writes normally again.
  ASSERT_OK(b->PutIssue(MakeIssue("9"), ""));
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_TRUE(store_->GetIssue(IssueRef("9")).ok());
  // And the ingested data survives a reopen.
  std::string before = Dump(*store_);
  store_.reset();
  store_ = MustOpen(dir_);
  EXPECT_EQ(Dump(*store_), before);
}

// Without spills (everything staged until the ingestion) the result is the same.
TEST_F(StoreTest, BulkLoadInOneRunEqualsPlainWrites) {
  TempDir other;
  auto plain = MustOpen(other / "store");
  ASSERT_NE(plain, nullptr);
  {
    auto b = plain->NewBatch();
    ASSERT_NO_FATAL_FAILURE(FillRepository(plain.get(), b.get()));
  }
  auto b = store_->NewBatch();
  ASSERT_OK(b->StartBulkLoad());
  ASSERT_NO_FATAL_FAILURE(FillRepository(store_.get(), b.get()));
  EXPECT_EQ(BulkDirs(dir_), 0);  // nothing spilled yet
  ASSERT_OK(store_->IngestBulkLoad(b.get()));
  EXPECT_EQ(Dump(*store_), Dump(*plain));
}

// A bulk load whose staged bytes span several arena blocks, with a payload
// larger than a quarter block (a copy of its own) and records staged in
// descending key order (groups sorted and written in parallel), reads back
// every byte as plain writes do.
TEST_F(StoreTest, BulkLoadAcrossArenaBlocksKeepsEveryByte) {
  TempDir other;
  auto plain = MustOpen(other / "store");
  ASSERT_NE(plain, nullptr);
  auto raw_of = [](int n) {
    std::string raw = "{\"number\":\"" + std::to_string(n) + "\",\"pad\":\"";
    raw.append(n == 7 ? (std::size_t{3} << 20) : 2000 + n % 97, static_cast<char>('a' + n % 26));
    return raw + "\"}";
  };
  auto fill = [&](Store* store, Store::Batch* b) {
    for (int n = 3000; n >= 1; --n) {
      ASSERT_OK(
          b->PutIssue(MakeIssue(std::to_string(n), "see #" + std::to_string(n + 1)), raw_of(n)));
      ASSERT_OK(b->PutPull(MakePull(n, "fixes #" + std::to_string(n)), raw_of(n + 1)));
      if (n % 512 == 0) ASSERT_OK(store->Write(b));  // a bulk load keeps it staged
    }
  };
  {
    auto b = plain->NewBatch();
    ASSERT_NO_FATAL_FAILURE(fill(plain.get(), b.get()));
    ASSERT_OK(plain->Write(b.get()));
  }
  auto b = store_->NewBatch();
  ASSERT_OK(b->StartBulkLoad());
  ASSERT_NO_FATAL_FAILURE(fill(store_.get(), b.get()));
  EXPECT_EQ(BulkDirs(dir_), 0);  // one run
  ASSERT_OK(store_->IngestBulkLoad(b.get()));
  for (int n = 1; n <= 3000; n += (n < 20 ? 1 : 37)) {
    SCOPED_TRACE(n);
    EXPECT_EQ(store_->GetRaw(IssueRef(std::to_string(n))).value(), raw_of(n));
    EXPECT_EQ(store_->GetRaw(PullRef(n)).value(), raw_of(n + 1));
    EXPECT_EQ(store_->GetIssue(IssueRef(std::to_string(n))).value().body,
              "see #" + std::to_string(n + 1));
    std::vector<MentionRecord> a, p;
    ASSERT_OK(store_->MentionsOf(IssueRef(std::to_string(n)), &a));
    ASSERT_OK(plain->MentionsOf(IssueRef(std::to_string(n)), &p));
    EXPECT_EQ(a.size(), p.size());
  }
  int issues = 0;
  RepoRef repo = Repo();
  ASSERT_OK(store_->ForEachIssue(&repo, [&](const Issue&) { return ++issues > 0; }));
  EXPECT_EQ(issues, 3000);
}

// An aborted bulk load (or a destroyed batch) leaves the store and its folder as they were.
TEST_F(StoreTest, AbortedBulkLoadLeavesNothing) {
  std::string empty = Dump(*store_);
  {
    auto b = store_->NewBatch();
    ASSERT_OK(b->StartBulkLoad(1));
    ASSERT_NO_FATAL_FAILURE(FillRepository(store_.get(), b.get()));
    b->AbortBulkLoad();
    EXPECT_EQ(BulkDirs(dir_), 0);
    ASSERT_OK(store_->Write(b.get()));  // plain again, with nothing staged
  }
  {
    auto b = store_->NewBatch();
    ASSERT_OK(b->StartBulkLoad(1));
    ASSERT_NO_FATAL_FAILURE(FillRepository(store_.get(), b.get()));
    EXPECT_EQ(BulkDirs(dir_), 1);
  }
  EXPECT_EQ(BulkDirs(dir_), 0);
  EXPECT_EQ(Dump(*store_), empty);
}

// Table files a crash left behind are deleted by the next writable open.
TEST_F(StoreTest, OpenRemovesLeftoverBulkLoadFiles) {
  WriteFile(dir_ + "/bulkload.123.0/0-1.sst", "partial");
  store_.reset();
  auto ro = MustOpen(dir_, /*read_only=*/true);
  EXPECT_EQ(BulkDirs(dir_), 1);  // a reader leaves them alone
  ro.reset();
  store_ = MustOpen(dir_);
  EXPECT_EQ(BulkDirs(dir_), 0);
}

// DeleteRepositoryRecords removes one repository's records, payloads and the
// index rows they produced, including mentions of another repository's
// items; that repository and every platform link stay.
TEST_F(StoreTest, DeleteRepositoryRecordsLeavesOtherRepositoriesAndLinks) {
  const RepoRef other = Repo("Ascend", "other");
  Apply([&](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("5", "see #6", IssueState::kClosed, kT, other), "{}"));
    ASSERT_OK(b->PutIssue(MakeIssue("6", "", IssueState::kOpen, std::nullopt, other), ""));
    ASSERT_OK(b->PutPull(MakePull(9, "fix #5", PullState::kMerged, kT, other), "{}"));
    ASSERT_OK(b->PutPlatformLink({IssueRef("5", other), PullRef(9, other), "pull_issues"}));
  });
  std::vector<MentionRecord> before5 = Mentions(IssueRef("5", other));
  ASSERT_EQ(Mentions(IssueRef("6", other)).size(), 1u);  // "see #6" in other#5
  RepoStats other_before = store_->Stats(other).value();
  Apply([&](Store::Batch* b) {
    Repository r;
    r.ref = Repo();
    r.full_name = "Ascend/MindSpeed-Ops";
    ASSERT_OK(b->PutRepository(r, "{\"r\":1}"));
    ASSERT_OK(b->PutIssue(MakeIssue("1", "Ascend/other#5 again", IssueState::kClosed, kT), "{}"));
    ASSERT_OK(b->PutPull(MakePull(2, "fixes Ascend/other#5 and #1", PullState::kMerged, kT), "{}"));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "1", "10", "Ascend/other!9"), "{}"));
    ASSERT_OK(b->PutCommit(MakeCommit(2, "abc", "fix Ascend/other#6"), "{}"));
    ASSERT_OK(b->PutFile(MakeFile(2, "src/a.cc"), "{}"));
    ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kPull, "2", "7", "merge"), "{}"));
    ASSERT_OK(b->PutPlatformLink({IssueRef("1"), PullRef(2), "pull_issues"}));
  });
  ASSERT_GT(Mentions(IssueRef("5", other)).size(), before5.size());
  ASSERT_EQ(Mentions(IssueRef("6", other)).size(), 2u);  // + the commit message
  ASSERT_FALSE(Mentions(IssueRef("1")).empty());

  ASSERT_OK(store_->DeleteRepositoryRecords(Repo(), Store::Durability::kLogged));

  EXPECT_TRUE(store_->GetRepository(Repo()).status().IsNotFound());
  EXPECT_TRUE(store_->GetIssue(IssueRef("1")).status().IsNotFound());
  EXPECT_TRUE(store_->GetRaw(IssueRef("1")).status().IsNotFound());
  EXPECT_TRUE(store_->GetRaw(Ref::Repo(Repo())).status().IsNotFound());
  EXPECT_TRUE(Mentions(IssueRef("1")).empty());
  EXPECT_EQ(Mentions(IssueRef("5", other)).size(), before5.size());
  EXPECT_EQ(Mentions(IssueRef("6", other)).size(), 1u);
  EXPECT_TRUE(Mentions(PullRef(9, other)).empty());
  EXPECT_TRUE(Closed(kT - 1, kT + 1).empty());
  EXPECT_TRUE(Merged(kT - 1, kT + 1).empty());
  RepoStats gone = store_->Stats(Repo()).value();
  EXPECT_EQ(gone.issues_open + gone.issues_closed + gone.pulls_open + gone.pulls_merged +
                gone.pulls_closed + gone.comments + gone.commits + gone.files + gone.operate_logs,
            0);
  EXPECT_EQ(gone.platform_links, 1);  // links are not the deletion's business
  RepoStats other_after = store_->Stats(other).value();
  EXPECT_EQ(other_after.issues_closed, other_before.issues_closed);
  EXPECT_EQ(other_after.issues_open, other_before.issues_open);
  EXPECT_EQ(other_after.pulls_merged, other_before.pulls_merged);
  EXPECT_EQ(other_after.platform_links, 1);
  EXPECT_EQ(Closed(kT - 1, kT + 1, other).size(), 1u);
  EXPECT_TRUE(store_->GetRaw(IssueRef("5", other)).ok());
  std::vector<Repository> repos;
  ASSERT_OK(store_->ListRepositories(&repos));
  EXPECT_TRUE(repos.empty());  // `other` had no repository record
}

// More records than one deletion chunk.
TEST_F(StoreTest, DeleteRepositoryRecordsInChunks) {
  Apply([&](Store::Batch* b) {
    for (int i = 1; i <= 5000; ++i)
      ASSERT_OK(b->PutIssue(MakeIssue(std::to_string(i), "#1", IssueState::kClosed, kT + i), "{}"));
  });
  ASSERT_EQ(Mentions(IssueRef("1")).size(), 4999u);
  ASSERT_OK(store_->DeleteRepositoryRecords(Repo(), Store::Durability::kUnlogged));
  EXPECT_TRUE(Mentions(IssueRef("1")).empty());
  EXPECT_TRUE(Closed(0, kT * 2).empty());
  int left = 0;
  ASSERT_OK(store_->ForEachIssue(nullptr, [&](const Issue&) { return ++left, true; }));
  EXPECT_EQ(left, 0);
}

TEST_F(StoreTest, OpenIssueWithCloseTimeIsNotIndexed) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kOpen, kT), ""));
    ASSERT_OK(b->PutIssue(MakeIssue("2", "", IssueState::kClosed, std::nullopt), ""));
  });
  EXPECT_TRUE(Closed(0, kT * 2).empty());
}

TEST_F(StoreTest, PullsMergedBetweenRangesAndOrdering) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutPull(MakePull(1, "", PullState::kMerged, kT + 30), ""));
    ASSERT_OK(b->PutPull(MakePull(2, "", PullState::kMerged, kT), ""));
    ASSERT_OK(b->PutPull(MakePull(3, "", PullState::kMerged, kT + 10), ""));
    ASSERT_OK(b->PutPull(MakePull(4, "", PullState::kMerged, kT + 10), ""));  // same second
    ASSERT_OK(b->PutPull(MakePull(5, "", PullState::kOpen), ""));
    ASSERT_OK(b->PutPull(MakePull(6, "", PullState::kClosed), ""));
    ASSERT_OK(b->PutPull(MakePull(7, "", PullState::kMerged, -5), ""));  // before the epoch
    // merged_at without the merged state still counts as merged.
    ASSERT_OK(b->PutPull(MakePull(8, "", PullState::kClosed, kT + 20), ""));
    ASSERT_OK(
        b->PutPull(MakePull(9, "", PullState::kMerged, kT + 10, Repo("Ascend", "other")), ""));
  });
  auto all = Merged(-1000, kT + 1000);
  std::vector<std::pair<UnixSeconds, Ref>> want = {{-5, PullRef(7)},      {kT, PullRef(2)},
                                                   {kT + 10, PullRef(3)}, {kT + 10, PullRef(4)},
                                                   {kT + 20, PullRef(8)}, {kT + 30, PullRef(1)}};
  EXPECT_EQ(all, want);

  // Inclusive on both ends.
  auto mid = Merged(kT + 10, kT + 20);
  ASSERT_EQ(mid.size(), 3u);
  EXPECT_EQ(mid[0].second, PullRef(3));
  EXPECT_EQ(mid[2].second, PullRef(8));
  EXPECT_EQ(Merged(kT + 11, kT + 19).size(), 0u);
  EXPECT_EQ(Merged(kT + 31, kT + 1000).size(), 0u);
  EXPECT_EQ(Merged(kT + 30, kT + 30).size(), 1u);
  EXPECT_EQ(Merged(-10, 0).size(), 1u);

  // Un-merging (a corrected record) drops the row.
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutPull(MakePull(3, "", PullState::kClosed), "")); });
  EXPECT_EQ(Merged(kT + 10, kT + 10).size(), 1u);
  // Another repository's merges stay separate.
  auto other = Merged(0, kT + 1000, Repo("Ascend", "other"));
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].second, PullRef(9, Repo("Ascend", "other")));
}

// ---- Mentions index

const MentionRecord* FindRow(const std::vector<MentionRecord>& rows, MentionSource source,
                             const Ref& from) {
  for (const MentionRecord& r : rows)
    if (r.source == source && r.source_item == from) return &r;
  return nullptr;
}

TEST_F(StoreTest, MentionsOfRecordsEverySource) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("69", "self #69 is skipped"), ""));
    PullRequest pr = MakePull(166, "Fixes #69\n\nand !166 (self)", PullState::kMerged, kT);
    pr.title = "关联 #69";
    ASSERT_OK(b->PutPull(pr, ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kPull, "166", "900", "see #69", kT + 1), ""));
    ASSERT_OK(b->PutCommit(MakeCommit(166, "abc123", "fix #69", kT + 2), ""));
    ASSERT_OK(b->PutIssue(
        MakeIssue("70", "dup of https://gitcode.com/Ascend/MindSpeed-Ops/issues/69"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "70", "901", "关联 #69", kT + 3), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "69", "902", "this is #69"), ""));
  });
  auto rows = Mentions(IssueRef("69"));
  ASSERT_EQ(rows.size(), 6u);
  for (const MentionRecord& r : rows) EXPECT_EQ(r.target, IssueRef("69"));

  const MentionRecord* body = FindRow(rows, MentionSource::kPullBody, PullRef(166));
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->keyword, MentionKeyword::kClosing);
  EXPECT_EQ(body->form, MentionForm::kHash);
  EXPECT_EQ(body->text, "#69");
  EXPECT_EQ(body->source_id, "");
  EXPECT_EQ(body->at, kT - 50000);  // the PR's creation time

  const MentionRecord* title = FindRow(rows, MentionSource::kPullTitle, PullRef(166));
  ASSERT_NE(title, nullptr);
  EXPECT_EQ(title->keyword, MentionKeyword::kRelating);

  const MentionRecord* pc = FindRow(rows, MentionSource::kPullComment, PullRef(166));
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(pc->source_id, "900");
  EXPECT_EQ(pc->keyword, MentionKeyword::kRelating);
  EXPECT_EQ(pc->at, kT + 1);

  const MentionRecord* commit = FindRow(rows, MentionSource::kCommitMessage, PullRef(166));
  ASSERT_NE(commit, nullptr);
  EXPECT_EQ(commit->source_id, "abc123");
  EXPECT_EQ(commit->keyword, MentionKeyword::kClosing);
  EXPECT_EQ(commit->at, kT + 2);

  const MentionRecord* url = FindRow(rows, MentionSource::kIssueText, IssueRef("70"));
  ASSERT_NE(url, nullptr);
  EXPECT_EQ(url->form, MentionForm::kUrl);
  EXPECT_EQ(url->text, "https://gitcode.com/Ascend/MindSpeed-Ops/issues/69");
  EXPECT_FALSE(url->mirror_host);

  const MentionRecord* ic = FindRow(rows, MentionSource::kIssueComment, IssueRef("70"));
  ASSERT_NE(ic, nullptr);
  EXPECT_EQ(ic->source_id, "901");
  EXPECT_EQ(ic->keyword, MentionKeyword::kRelating);

  // Self-mentions are skipped: #69 in its own text or comments, !166 in its own body.
  EXPECT_EQ(FindRow(rows, MentionSource::kIssueText, IssueRef("69")), nullptr);
  EXPECT_EQ(FindRow(rows, MentionSource::kIssueComment, IssueRef("69")), nullptr);
  EXPECT_TRUE(Mentions(PullRef(166)).empty());
}

TEST_F(StoreTest, MentionOfAPullFromAnIssueAndMirrorHost) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(
        MakeIssue("5", "see https://atomgit.com/Ascend/MindSpeed-Ops/merge_requests/12"), ""));
  });
  auto rows = Mentions(PullRef(12));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].source_item, IssueRef("5"));
  EXPECT_EQ(rows[0].source, MentionSource::kIssueText);
  EXPECT_EQ(rows[0].form, MentionForm::kUrl);
  EXPECT_TRUE(rows[0].mirror_host);
  EXPECT_EQ(rows[0].keyword, MentionKeyword::kRelating);
  // Prefix scans do not leak into longer numbers: #1 is not #12 or !1.
  EXPECT_TRUE(Mentions(PullRef(1)).empty());
  EXPECT_TRUE(Mentions(IssueRef("12")).empty());
}

TEST_F(StoreTest, EditingTheBodyDropsTheMention) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutPull(MakePull(166, "Fixes #69 and #70"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kPull, "166", "1", "also #69"), ""));
  });
  EXPECT_EQ(Mentions(IssueRef("69")).size(), 2u);
  EXPECT_EQ(Mentions(IssueRef("70")).size(), 1u);

  Apply([](Store::Batch* b) { ASSERT_OK(b->PutPull(MakePull(166, "Fixes #70 only"), "")); });
  auto rows = Mentions(IssueRef("69"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].source, MentionSource::kPullComment);
  auto seventy = Mentions(IssueRef("70"));
  ASSERT_EQ(seventy.size(), 1u);
  EXPECT_EQ(seventy[0].keyword, MentionKeyword::kClosing);

  // Editing the comment drops its row too.
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kPull, "166", "1", "never mind"), ""));
  });
  EXPECT_TRUE(Mentions(IssueRef("69")).empty());
}

TEST_F(StoreTest, RepeatedMentionsInOneTextAreSeparateRows) {
  Apply([](Store::Batch* b) { ASSERT_OK(b->PutPull(MakePull(1, "#5 and again #5"), "")); });
  EXPECT_EQ(Mentions(IssueRef("5")).size(), 2u);
}

// ---- Listing

TEST_F(StoreTest, ListCommentsInIdOrderPerParent) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "69", "100", "c"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "69", "9", "a"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "69", "10", "b"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "6", "1", "other issue"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "690", "1", "other issue"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kPull, "69", "2", "on the PR"), ""));
  });
  std::vector<Comment> out;
  ASSERT_OK(store_->ListComments(IssueRef("69"), &out));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].id, "9");
  EXPECT_EQ(out[1].id, "10");
  EXPECT_EQ(out[2].id, "100");
  EXPECT_EQ(out[0].body, "a");

  std::vector<Comment> pr;
  ASSERT_OK(store_->ListComments(PullRef(69), &pr));
  ASSERT_EQ(pr.size(), 1u);
  EXPECT_EQ(pr[0].body, "on the PR");
  EXPECT_EQ(pr[0].parent_kind, ParentKind::kPull);

  std::vector<Comment> none;
  ASSERT_OK(store_->ListComments(IssueRef("7"), &none));
  EXPECT_TRUE(none.empty());
}

TEST_F(StoreTest, ListCommitsFilesAndOperateLog) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutCommit(MakeCommit(166, "bbb", "second"), ""));
    ASSERT_OK(b->PutCommit(MakeCommit(166, "aaa", "first"), ""));
    ASSERT_OK(b->PutCommit(MakeCommit(16, "ccc", "other PR"), ""));
    ASSERT_OK(b->PutFile(MakeFile(166, "z/b.cc"), ""));
    ASSERT_OK(b->PutFile(MakeFile(166, "a.cc"), ""));
    ASSERT_OK(b->PutFile(MakeFile(1660, "x.cc"), ""));
    ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kIssue, "69", "20", "closed"), ""));
    ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kIssue, "69", "3", "add_issue_mr_link"), ""));
    ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kPull, "166", "4", "merged"), ""));
  });
  std::vector<Commit> commits;
  ASSERT_OK(store_->ListCommits(PullRef(166), &commits));
  ASSERT_EQ(commits.size(), 2u);
  EXPECT_EQ(commits[0].sha, "aaa");
  EXPECT_EQ(commits[1].sha, "bbb");
  EXPECT_EQ(commits[1].message, "second");

  std::vector<FileChange> files;
  ASSERT_OK(store_->ListFiles(PullRef(166), &files));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename, "a.cc");
  EXPECT_EQ(files[1].filename, "z/b.cc");

  std::vector<OperateLogEvent> log;
  ASSERT_OK(store_->ListOperateLog(IssueRef("69"), &log));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].id, "3");
  EXPECT_EQ(log[0].action_type, "add_issue_mr_link");
  EXPECT_EQ(log[1].id, "20");
  std::vector<OperateLogEvent> pr_log;
  ASSERT_OK(store_->ListOperateLog(PullRef(166), &pr_log));
  ASSERT_EQ(pr_log.size(), 1u);
  EXPECT_EQ(pr_log[0].action_type, "merged");
}

TEST_F(StoreTest, ForEachIssueAndPullInNumberOrder) {
  Apply([](Store::Batch* b) {
    for (const char* n : {"10", "2", "100", "1"}) ASSERT_OK(b->PutIssue(MakeIssue(n), ""));
    ASSERT_OK(b->PutIssue(MakeIssue("3", "", IssueState::kOpen, std::nullopt, Repo("a", "b")), ""));
    for (int n : {30, 4}) ASSERT_OK(b->PutPull(MakePull(n), ""));
  });
  RepoRef repo = Repo();
  std::vector<std::string> seen;
  ASSERT_OK(store_->ForEachIssue(&repo, [&](const Issue& i) {
    seen.push_back(i.number);
    return true;
  }));
  EXPECT_EQ(seen, (std::vector<std::string>{"1", "2", "10", "100"}));

  seen.clear();
  ASSERT_OK(store_->ForEachIssue(&repo, [&](const Issue& i) {
    seen.push_back(i.number);
    return seen.size() < 2;  // stop early
  }));
  EXPECT_EQ(seen.size(), 2u);

  int all = 0;
  ASSERT_OK(store_->ForEachIssue(nullptr, [&](const Issue&) {
    ++all;
    return true;
  }));
  EXPECT_EQ(all, 5);

  std::vector<std::int64_t> pulls;
  ASSERT_OK(store_->ForEachPull(&repo, [&](const PullRequest& p) {
    pulls.push_back(p.number);
    return true;
  }));
  EXPECT_EQ(pulls, (std::vector<std::int64_t>{4, 30}));
}

TEST_F(StoreTest, ListRepositories) {
  Apply([](Store::Batch* b) {
    Repository r1, r2;
    r1.ref = Repo("b", "two");
    r1.full_name = "b/two";
    r2.ref = Repo("a", "one", Platform::kGitee);
    r2.full_name = "a/one";
    ASSERT_OK(b->PutRepository(r1, ""));
    ASSERT_OK(b->PutRepository(r2, R"({"id":1})"));
  });
  std::vector<Repository> repos;
  ASSERT_OK(store_->ListRepositories(&repos));
  ASSERT_EQ(repos.size(), 2u);
  // In reference order: platform name first.
  EXPECT_EQ(repos[0].full_name, "b/two");
  EXPECT_EQ(repos[0].ref, Repo("b", "two"));
  EXPECT_EQ(repos[1].full_name, "a/one");
  auto one = store_->GetRepository(Repo("a", "one", Platform::kGitee));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*store_->GetRaw(Ref::Repo(Repo("a", "one", Platform::kGitee))), R"({"id":1})");
}

// ---- Platform links

TEST_F(StoreTest, PlatformLinksBothDirections) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutPlatformLink({IssueRef("69"), PullRef(166), "issue_pull_requests"}));
    ASSERT_OK(b->PutPlatformLink({IssueRef("69"), PullRef(170), "operate_log"}));
    ASSERT_OK(b->PutPlatformLink({IssueRef("70"), PullRef(166), "pull_issues"}));
  });
  std::vector<PlatformLink> from_issue;
  ASSERT_OK(store_->ListPlatformLinks(IssueRef("69"), &from_issue));
  ASSERT_EQ(from_issue.size(), 2u);
  EXPECT_EQ(from_issue[0].pull, PullRef(166));
  EXPECT_EQ(from_issue[0].source, "issue_pull_requests");
  EXPECT_EQ(from_issue[1].pull, PullRef(170));

  std::vector<PlatformLink> from_pull;
  ASSERT_OK(store_->ListPlatformLinks(PullRef(166), &from_pull));
  ASSERT_EQ(from_pull.size(), 2u);
  EXPECT_EQ(from_pull[0].issue, IssueRef("69"));
  EXPECT_EQ(from_pull[1].issue, IssueRef("70"));
  EXPECT_EQ(from_pull[1].source, "pull_issues");

  std::vector<PlatformLink> none;
  ASSERT_OK(store_->ListPlatformLinks(PullRef(16), &none));
  EXPECT_TRUE(none.empty());
}

TEST_F(StoreTest, PlatformLinksAreKeptPerSourceAndIdempotent) {
  auto put = [](Store::Batch* b) {
    ASSERT_OK(b->PutPlatformLink({IssueRef("69"), PullRef(166), "issue_pull_requests"}));
    ASSERT_OK(b->PutPlatformLink({IssueRef("69"), PullRef(166), "operate_log"}));
  };
  EXPECT_EQ(Apply(put), 2);
  EXPECT_EQ(Apply(put), 0);
  std::vector<PlatformLink> from_issue, from_pull;
  ASSERT_OK(store_->ListPlatformLinks(IssueRef("69"), &from_issue));
  ASSERT_OK(store_->ListPlatformLinks(PullRef(166), &from_pull));
  ASSERT_EQ(from_issue.size(), 2u);
  ASSERT_EQ(from_pull.size(), 2u);
  std::vector<std::string> sources = {from_issue[0].source, from_issue[1].source};
  std::sort(sources.begin(), sources.end());
  EXPECT_EQ(sources, (std::vector<std::string>{"issue_pull_requests", "operate_log"}));
}

TEST_F(StoreTest, PlatformLinkMustJoinIssueAndPull) {
  auto b = store_->NewBatch();
  Status s = b->PutPlatformLink({PullRef(1), IssueRef("2"), "x"});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(b->PutPlatformLink({IssueRef("1"), IssueRef("2"), "x"}).IsInvalidArgument());
  EXPECT_EQ(b->changed(), 0);
}

// ---- Stats

TEST_F(StoreTest, StatsCountEverything) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1"), ""));
    ASSERT_OK(b->PutIssue(MakeIssue("2"), ""));
    ASSERT_OK(b->PutIssue(MakeIssue("3", "", IssueState::kClosed, kT), ""));
    ASSERT_OK(b->PutPull(MakePull(10, "", PullState::kOpen), ""));
    ASSERT_OK(b->PutPull(MakePull(11, "", PullState::kMerged, kT), ""));
    ASSERT_OK(b->PutPull(MakePull(12, "", PullState::kMerged, kT), ""));
    ASSERT_OK(b->PutPull(MakePull(13, "", PullState::kClosed), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kIssue, "1", "1", "x"), ""));
    ASSERT_OK(b->PutComment(MakeComment(ParentKind::kPull, "10", "2", "y"), ""));
    ASSERT_OK(b->PutCommit(MakeCommit(11, "a", "m"), ""));
    ASSERT_OK(b->PutCommit(MakeCommit(11, "b", "m"), ""));
    ASSERT_OK(b->PutCommit(MakeCommit(12, "c", "m"), ""));
    ASSERT_OK(b->PutFile(MakeFile(11, "f"), ""));
    ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kIssue, "3", "1", "closed"), ""));
    ASSERT_OK(b->PutPlatformLink({IssueRef("3"), PullRef(11), "pull_issues"}));
    // Another repository does not count.
    ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kOpen, std::nullopt, Repo("x", "y")), ""));
  });
  auto st = store_->Stats(Repo());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->repo, Repo());
  EXPECT_EQ(st->issues_open, 2);
  EXPECT_EQ(st->issues_closed, 1);
  EXPECT_EQ(st->pulls_open, 1);
  EXPECT_EQ(st->pulls_merged, 2);
  EXPECT_EQ(st->pulls_closed, 1);
  EXPECT_EQ(st->comments, 2);
  EXPECT_EQ(st->commits, 3);
  EXPECT_EQ(st->files, 1);
  EXPECT_EQ(st->operate_logs, 1);
  EXPECT_EQ(st->platform_links, 1);

  // A state change moves the count, it does not add one.
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), ""));
  });
  st = store_->Stats(Repo());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->issues_open, 1);
  EXPECT_EQ(st->issues_closed, 2);

  auto empty = store_->Stats(Repo("no", "such"));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->issues_open + empty->issues_closed + empty->pulls_open + empty->comments, 0);
}

// ---- Derived records and meta

TEST_F(StoreTest, DerivedRecords) {
  RepoRef other = Repo("Ascend", "other");
  Apply([&](Store::Batch* b) {
    ASSERT_OK(b->PutDerived("links", IssueRef("69"), "v-issue"));
    ASSERT_OK(b->PutDerived("links", PullRef(166), "v-pull"));
    ASSERT_OK(b->PutDerived("links", Ref::Repo(Repo()), "v-repo"));
    ASSERT_OK(b->PutDerived("links", IssueRef("I8XK2P"), "v-gitee-like"));
    ASSERT_OK(b->PutDerived("links", IssueRef("1", other), "v-other"));
    ASSERT_OK(b->PutDerived("flags", IssueRef("69"), "f"));
  });
  EXPECT_EQ(*store_->GetDerived("links", IssueRef("69")), "v-issue");
  EXPECT_EQ(*store_->GetDerived("links", PullRef(166)), "v-pull");
  EXPECT_EQ(*store_->GetDerived("flags", IssueRef("69")), "f");
  EXPECT_TRUE(store_->GetDerived("flags", PullRef(166)).status().IsNotFound());
  // An issue and a PR with the same number are different items.
  EXPECT_TRUE(store_->GetDerived("links", PullRef(69)).status().IsNotFound());

  RepoRef repo = Repo();
  std::map<std::string, std::string> got;
  ASSERT_OK(store_->ForEachDerived("links", &repo, [&](const Ref& item, const std::string& v) {
    got[item.ToString()] = v;
    return true;
  }));
  std::map<std::string, std::string> want = {
      {"gitcode:Ascend/MindSpeed-Ops#69", "v-issue"},
      {"gitcode:Ascend/MindSpeed-Ops!166", "v-pull"},
      {"gitcode:Ascend/MindSpeed-Ops", "v-repo"},
      {"gitcode:Ascend/MindSpeed-Ops#I8XK2P", "v-gitee-like"}};
  EXPECT_EQ(got, want);

  int all = 0;
  ASSERT_OK(store_->ForEachDerived("links", nullptr, [&](const Ref&, const std::string&) {
    ++all;
    return true;
  }));
  EXPECT_EQ(all, 5);

  int stopped = 0;
  ASSERT_OK(store_->ForEachDerived("links", nullptr, [&](const Ref&, const std::string&) {
    ++stopped;
    return false;
  }));
  EXPECT_EQ(stopped, 1);

  int flags = 0;
  ASSERT_OK(store_->ForEachDerived("flags", &repo, [&](const Ref& item, const std::string&) {
    EXPECT_EQ(item, IssueRef("69"));
    ++flags;
    return true;
  }));
  EXPECT_EQ(flags, 1);

  Apply([](Store::Batch* b) { ASSERT_OK(b->DeleteDerived("links", IssueRef("69"))); });
  EXPECT_TRUE(store_->GetDerived("links", IssueRef("69")).status().IsNotFound());
  EXPECT_EQ(*store_->GetDerived("flags", IssueRef("69")), "f");
}

TEST_F(StoreTest, MetaKeys) {
  Apply([](Store::Batch* b) {
    ASSERT_OK(b->PutMeta("cursor/gitcode:a/b", "page=3"));
    ASSERT_OK(b->PutMeta("cursor/gitee:c/d", "page=1"));
    ASSERT_OK(b->PutMeta("other", "x"));
  });
  EXPECT_EQ(*store_->GetMeta("other"), "x");
  std::map<std::string, std::string> cursors;
  ASSERT_OK(store_->ListMeta("cursor/", &cursors));
  EXPECT_EQ(cursors, (std::map<std::string, std::string>{{"cursor/gitcode:a/b", "page=3"},
                                                         {"cursor/gitee:c/d", "page=1"}}));
  Apply([](Store::Batch* b) { ASSERT_OK(b->DeleteMeta("other")); });
  EXPECT_TRUE(store_->GetMeta("other").status().IsNotFound());
  // Meta writes are not record changes.
  auto b = store_->NewBatch();
  ASSERT_OK(b->PutMeta("k", "v"));
  EXPECT_EQ(b->changed(), 0);
}

TEST_F(StoreTest, NothingIsVisibleBeforeWrite) {
  auto b = store_->NewBatch();
  ASSERT_OK(b->PutIssue(MakeIssue("1", "", IssueState::kClosed, kT), ""));
  ASSERT_OK(b->PutMeta("m", "1"));
  EXPECT_TRUE(store_->GetIssue(IssueRef("1")).status().IsNotFound());
  EXPECT_TRUE(Closed(kT, kT).empty());
  EXPECT_TRUE(store_->GetMeta("m").status().IsNotFound());
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_TRUE(store_->GetIssue(IssueRef("1")).ok());
  EXPECT_EQ(Closed(kT, kT).size(), 1u);
  EXPECT_EQ(*store_->GetMeta("m"), "1");
  // The batch is empty after Write: writing it again changes nothing.
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_EQ(store_->GetIssue(IssueRef("1"))->state, IssueState::kClosed);
}

// ---- Touched items

TEST_F(StoreTest, TouchedItems) {
  auto b = store_->NewBatch();
  Repository repo;
  repo.ref = Repo();
  ASSERT_OK(b->PutRepository(repo, ""));
  ASSERT_OK(b->PutIssue(MakeIssue("69"), ""));
  ASSERT_OK(b->PutComment(MakeComment(ParentKind::kPull, "166", "1", "x"), ""));
  ASSERT_OK(b->PutCommit(MakeCommit(170, "abc", "m"), ""));
  ASSERT_OK(b->PutFile(MakeFile(171, "f"), ""));
  ASSERT_OK(b->PutOperateLog(MakeEvent(ParentKind::kIssue, "5", "1", "closed"), ""));
  ASSERT_OK(b->PutIssue(MakeIssue("69", "edited"), ""));  // twice: listed once
  std::vector<Ref> want = {IssueRef("5"), IssueRef("69"), PullRef(166), PullRef(170), PullRef(171)};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(b->TouchedItems(), want);
  ASSERT_OK(store_->Write(b.get()));
  EXPECT_EQ(b->TouchedItems(), want);  // not cleared by Write

  // Re-putting the same records touches nothing.
  auto again = store_->NewBatch();
  ASSERT_OK(again->PutIssue(MakeIssue("69", "edited"), ""));
  ASSERT_OK(again->PutComment(MakeComment(ParentKind::kPull, "166", "1", "x"), ""));
  EXPECT_TRUE(again->TouchedItems().empty());

  // A new platform link touches its issue.
  ASSERT_OK(again->PutPlatformLink({IssueRef("80"), PullRef(181), "pull_issues"}));
  std::vector<Ref> touched = again->TouchedItems();
  EXPECT_NE(std::find(touched.begin(), touched.end(), IssueRef("80")), touched.end());
  // The same link again touches nothing new.
  auto third = store_->NewBatch();
  ASSERT_OK(store_->Write(again.get()));
  ASSERT_OK(third->PutPlatformLink({IssueRef("80"), PullRef(181), "pull_issues"}));
  EXPECT_TRUE(third->TouchedItems().empty());
}

// Regression (Store::Batch::PutPlatformLink, engine/store_batch.cc): store.h says
// TouchedItems() lists "the issues and PRs whose ... platform links changed"; a
// new link once touched only its issue (Upsert's owner), never its PR.
TEST_F(StoreTest, NewPlatformLinkTouchesThePullToo) {
  auto b = store_->NewBatch();
  ASSERT_OK(b->PutPlatformLink({IssueRef("80"), PullRef(181), "pull_issues"}));
  EXPECT_EQ(b->TouchedItems(), (std::vector<Ref>{IssueRef("80"), PullRef(181)}));
}

}  // namespace
}  // namespace fixgraph
