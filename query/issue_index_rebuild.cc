// The rebuild of the issue index: store scans joined into runs of issues,
// shards written in parallel, compacted and swapped in (issue_index.h,
// RebuildIssueIndexInShards, gives the contract).
#include "issue_document.h"
#include "issue_index.h"

#include "fixgraph/engine/files.h"
#include "fixgraph/engine/parallel.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"

#include <fcntl.h>
#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

namespace fixgraph::query {
namespace {

constexpr unsigned kMaxIndexThreads = 8;
// Documents between commits of a shard. Each commit writes every term's
// pending postings into the shard's B-trees, so fewer commits are fewer block
// rewrites; but Xapian keeps the pending postings of each term in a tree keyed
// by docid, which every added document walks once per term. Measured
// 2026-12-01 (4,000 issues, one writer, callgrind, hit fields as a value and
// terms added once each): 9.65 / 8.36 / 7.50 / 7.29 / 7.22 G instructions at
// 20 / 50 / 200 / 500 / 1000 documents; CPU time on a loaded machine did not
// tell 200 from 500 (an earlier measurement, in time, found the walk
// dominating at 500), so 200.
constexpr size_t kRebuildCommitDocs = 200;

// Adds the document of `ref` (`doc`) to a database being written from
// nothing (a shard: no earlier document of the issue to replace); an issue
// not in the store (NotFound) adds nothing.
Status Put(Xapian::WritableDatabase& db, const Ref& ref, StatusOr<Xapian::Document>& doc) {
  if (!doc.ok()) {
    if (!doc.status().IsNotFound()) return doc.status().WithContext("indexing " + ref.ToString());
    return Status::OK();
  }
  db.add_document(*doc);
  return Status::OK();
}

// Threads that write shards during a rebuild: `asked` (the caller's
// IndexOptions::threads), 0 for the hardware's; at most kMaxIndexThreads.
size_t IndexThreads(unsigned asked) {
  return std::min<size_t>(asked >= 1 ? asked : HardwareThreads(), kMaxIndexThreads);
}

std::string ShardDir(const std::string& work, size_t n) {
  char name[32];
  std::snprintf(name, sizeof name, "/shard-%06zu", n);
  return work + name;
}

// Writes the documents of `issues` (in order: docids 1..n) to a new database
// at `dir`, committing every kRebuildCommitDocs documents.
Status WriteShard(const Store& store, const std::vector<IssueInput>& issues,
                  const std::string& dir) {
  try {
    Xapian::WritableDatabase db(
        dir, Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_NO_SYNC | Xapian::DB_NO_TERMLIST);
    size_t since_commit = 0;
    for (const IssueInput& in : issues) {
      StatusOr<Xapian::Document> doc = BuildDocument(store, in);
      FG_RETURN_IF_ERROR(Put(db, in.issue.ref(), doc));
      if (++since_commit >= kRebuildCommitDocs) {
        db.commit();
        since_commit = 0;
      }
    }
    db.set_metadata("fixgraph:schema", kIssueIndexSchema);
    db.commit();
    db.close();
    return Status::OK();
  } catch (const Xapian::Error& e) {
    return Status::IOError("writing index shard " + dir + ": " + e.get_description());
  } catch (const std::exception& e) {
    return Status::Internal("writing index shard " + dir + ": " + e.what());
  }
}

// Runs of issues, in store order, waiting for a shard writer; at most `limit`
// wait at once, so the store scan stays a bounded step ahead of the writers.
class RunQueue {
 public:
  explicit RunQueue(size_t limit) : limit_(limit) {}

  // False once the writers have failed (the scan can stop).
  bool Push(std::vector<IssueInput> run) {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [&] { return runs_.size() < limit_ || !error_.ok(); });
    if (!error_.ok()) return false;
    runs_.emplace_back(pushed_++, std::move(run));
    ready_.notify_one();
    return true;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    ready_.notify_all();
  }
  // The next run and its number; false when closed and drained or failed.
  bool Pop(size_t* n, std::vector<IssueInput>* run) {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !runs_.empty() || closed_ || !error_.ok(); });
    if (runs_.empty() || !error_.ok()) return false;
    *n = runs_.front().first;
    *run = std::move(runs_.front().second);
    runs_.pop_front();
    space_.notify_one();
    return true;
  }
  void Fail(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = std::move(s);
    space_.notify_all();
    ready_.notify_all();
  }
  Status error() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  size_t pushed() {
    std::lock_guard<std::mutex> lock(mu_);
    return pushed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable space_, ready_;
  std::deque<std::pair<size_t, std::vector<IssueInput>>> runs_;
  size_t limit_;
  size_t pushed_ = 0;
  bool closed_ = false;
  Status error_ = Status::OK();
};

// The records one bulk scan of the store gives, in scan order, read ahead on a
// thread of their own in batches (at most kScanBatches waiting), so that a
// reader can join them with the issue scan (Store::ScanOrderKey) instead of
// reading each issue's records with a seek of its own.
template <typename T>
class ScanStream {
 public:
  using Scan = std::function<Status(const std::function<bool(T&&)>& push)>;

  explicit ScanStream(Scan scan) : thread_([this, scan = std::move(scan)] { Run(scan); }) {}
  ~ScanStream() { (void)Finish(); }  // an error no reader waits for
  ScanStream(const ScanStream&) = delete;
  ScanStream& operator=(const ScanStream&) = delete;

  // The next record; null at the end of the scan (or when it failed: Finish()).
  T* Peek() {
    if (next_ < batch_.size()) return &batch_[next_];
    batch_.clear();
    next_ = 0;
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !batches_.empty() || done_; });
    if (batches_.empty()) return nullptr;
    batch_ = std::move(batches_.front());
    batches_.pop_front();
    space_.notify_one();
    return batch_.empty() ? nullptr : &batch_[0];
  }
  void Pop() { ++next_; }

  // Stops the scan if it is still running, waits for its thread and returns
  // its status (an error stopped it early: Peek then ended early too).
  Status Finish() {
    Stop();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

 private:
  static constexpr size_t kScanBatch = 256;
  static constexpr size_t kScanBatches = 4;

  // Ends the scan early (the reader needs no more).
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    space_.notify_all();
  }

  bool Push(std::vector<T>* batch) {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [&] { return batches_.size() < kScanBatches || stopped_; });
    if (stopped_) return false;
    batches_.push_back(std::move(*batch));
    batch->clear();
    ready_.notify_one();
    return true;
  }

  void Run(const Scan& scan) {
    std::vector<T> batch;
    Status s;
    try {
      s = scan([&](T&& rec) {
        batch.push_back(std::move(rec));
        return batch.size() < kScanBatch || Push(&batch);
      });
    } catch (const std::exception& e) {
      s = Status::Internal(std::string("scanning the store: ") + e.what());
    }
    if (s.ok() && !batch.empty()) Push(&batch);
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(s);
    done_ = true;
    ready_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<std::vector<T>> batches_;
  bool done_ = false;
  bool stopped_ = false;
  Status status_ = Status::OK();
  std::vector<T> batch_;  // the reader's
  size_t next_ = 0;
  std::thread thread_;  // last: starts once the members above exist
};

// Attaches to each issue of the issue scan its links and comments from two
// bulk scans running beside it: the three visit issues in the same order
// (Store::ScanOrderKey), so each record either belongs to the current issue,
// to a later one, or to an issue no longer in the store (skipped).
class InputJoin {
 public:
  explicit InputJoin(const Store& store)
      : links_([s = &store](const std::function<bool(graph::IssueLinks&&)>& push) {
          return graph::ForEachLinks(*s, nullptr, [&](const graph::IssueLinks& l) {
            graph::IssueLinks copy = l;
            return push(std::move(copy));
          });
        }),
        comments_([s = &store](const std::function<bool(Comment&&)>& push) {
          return s->ForEachComment(
              nullptr,
              [&](const Comment& c) {
                Comment copy = c;
                return push(std::move(copy));
              },
              ParentKind::kIssue);
        }) {}

  IssueInput Next(const Issue& issue) {
    IssueInput in;
    in.issue = issue;
    const Ref ref = issue.ref();
    std::string key;  // the issue's ScanOrderKey, made at the first record that is not its own
    auto before = [&](const Ref& other) {
      if (key.empty()) key = Store::ScanOrderKey(ref);
      return Store::ScanOrderKey(other) < key;
    };
    while (graph::IssueLinks* l = links_.Peek()) {
      if (l->issue == ref) {
        in.links = std::move(*l);
        links_.Pop();
        break;
      }
      if (l->issue.kind == RefKind::kIssue && !before(l->issue)) break;
      links_.Pop();
    }
    while (Comment* c = comments_.Peek()) {
      Ref parent = c->parent();
      if (parent == ref) {
        in.comments.push_back(std::move(*c));
      } else if (!before(parent)) {
        break;
      }
      comments_.Pop();
    }
    return in;
  }

  // Stops the scans (once the issue scan ended) and returns their status.
  Status Finish() {
    Status links = links_.Finish();
    Status comments = comments_.Finish();
    FG_RETURN_IF_ERROR(links);
    return comments;
  }

 private:
  ScanStream<graph::IssueLinks> links_;
  ScanStream<Comment> comments_;
};

// Writes every issue of the store, in store order, to shards of `work`
// (shard-000000, ...; `shard_issues` issues each) on `threads` writers.
// Returns the number of shards.
StatusOr<size_t> WriteShards(const Store& store, const std::string& work, size_t shard_issues,
                             size_t threads, const IndexProgress& on_progress) {
  RunQueue queue(threads);
  std::mutex progress_mu;  // serialises on_progress
  std::int64_t written = 0;
  auto writer = [&] {
    size_t n = 0;
    std::vector<IssueInput> run;
    while (queue.Pop(&n, &run)) {
      Status s = WriteShard(store, run, ShardDir(work, n));
      if (!s.ok()) {
        queue.Fail(std::move(s));
      } else if (on_progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        written += static_cast<std::int64_t>(run.size());
        on_progress(written);
      }
    }
  };
  InputJoin join(store);
  Status scanned;
  // Index 0 scans the issues and queues them in runs; indices 1..threads
  // write them. ParallelFor starts every worker before any index runs, so the
  // writers are there to take the runs the scan waits to queue.
  ParallelFor(threads + 1, threads + 1, [&](size_t index, size_t) {
    if (index != 0) {
      try {
        writer();
      } catch (...) {  // on_progress threw: the scan must not wait for this writer
        queue.Fail(Status::Internal("writing index shards: a progress report failed"));
        throw;
      }
      return;
    }
    // Closed however the scan ends (a throw too): the writers wait for it.
    struct CloseAtExit {
      RunQueue& queue;
      ~CloseAtExit() { queue.Close(); }
    } close{queue};
    std::vector<IssueInput> run;
    scanned = store.ForEachIssue(nullptr, [&](const Issue& issue) {
      run.push_back(join.Next(issue));
      if (run.size() < shard_issues) return true;
      bool more = queue.Push(std::move(run));
      run.clear();
      return more;
    });
    if (scanned.ok() && !run.empty()) queue.Push(std::move(run));
  });
  FG_RETURN_IF_ERROR(scanned);
  FG_RETURN_IF_ERROR(queue.error());
  FG_RETURN_IF_ERROR(join.Finish());
  return queue.pushed();
}

// Flushes every file of the directory `dir` (and the directory) to disk.
Status SyncFiles(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec)) paths.push_back(entry.path().string());
  if (ec) return Status::IOError("listing " + dir + ": " + ec.message());
  paths.push_back(dir);
  for (const std::string& path : paths) FG_RETURN_IF_ERROR(SyncPath(path));
  return Status::OK();
}

// Swaps the directories `a` and `b` in one step (`b` need not exist).
Status Exchange(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (!std::filesystem::exists(b, ec)) {
    if (::rename(a.c_str(), b.c_str()) != 0)
      return Status::IOError("renaming " + a + " to " + b + ": " + std::strerror(errno));
    return Status::OK();
  }
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0)
    return Status::OK();
  if (errno != EINVAL && errno != ENOSYS)
    return Status::IOError("exchanging " + a + " and " + b + ": " + std::strerror(errno));
  // A file system without exchange: two renames (a reader opening in between
  // finds no index and retries).
  std::string old = a + ".old";
  if (::rename(b.c_str(), old.c_str()) != 0 || ::rename(a.c_str(), b.c_str()) != 0)
    return Status::IOError("renaming " + a + " to " + b + ": " + std::strerror(errno));
  if (::rename(old.c_str(), a.c_str()) != 0)
    return Status::IOError("renaming " + old + " to " + a + ": " + std::strerror(errno));
  return Status::OK();
}

// The rebuild (see RebuildIssueIndexInShards in issue_index.h).
Status Rebuild(const Store& store, const std::string& db_dir, size_t shard_issues,
               const IndexOptions& options) {
  const std::string live = IssueIndexDir(db_dir);
  const std::string work = live + ".rebuild";
  const std::string built = work + "/index";
  std::error_code ec;
  std::filesystem::create_directories(db_dir, ec);
  // The live index's write lock, held until the swap, keeps other writers out.
  Xapian::WritableDatabase lock(live, Xapian::DB_CREATE_OR_OPEN | Xapian::DB_NO_TERMLIST);
  const Xapian::rev live_revision = lock.get_revision();
  std::filesystem::remove_all(work, ec);  // a rebuild that died midway
  if (ec) return Status::IOError("removing " + work + ": " + ec.message());
  std::filesystem::create_directories(work, ec);
  if (ec) return Status::IOError("creating " + work + ": " + ec.message());
  auto cleanup = [&] { std::filesystem::remove_all(work, ec); };

  StatusOr<size_t> shards = WriteShards(store, work, std::max<size_t>(shard_issues, 1),
                                        IndexThreads(options.threads), options.on_progress);
  if (!shards.ok()) {
    cleanup();
    return shards.status();
  }
  if (*shards == 1) {
    std::filesystem::rename(ShardDir(work, 0), built, ec);
    if (ec) return Status::IOError("renaming " + ShardDir(work, 0) + ": " + ec.message());
  } else if (*shards > 1) {
    // Docids are renumbered shard after shard: the i-th issue scanned gets
    // docid i, as with a single writer.
    Xapian::Database all;
    for (size_t n = 0; n < *shards; ++n) all.add_database(Xapian::Database(ShardDir(work, n)));
    all.compact(built, Xapian::DBCOMPACT_MULTIPASS);
  }
  {
    // Compacted from shards without a termlist table, it has none either:
    // opened without DB_NO_TERMLIST, Xapian would insist on one.
    Xapian::WritableDatabase out(
        built, Xapian::DB_CREATE_OR_OPEN | Xapian::DB_NO_SYNC | Xapian::DB_NO_TERMLIST);
    out.set_metadata("fixgraph:schema", kIssueIndexSchema);
    out.set_metadata(kPriorsKey, EncodePriors(ReadPriorSlots(out)));
    // Readers notice a new index by a revision unlike the one they hold:
    // number this one past the live index's.
    for (unsigned n = 0; out.get_revision() <= live_revision; ++n) {
      out.set_metadata("fixgraph:rebuild", std::to_string(n));
      out.commit();
    }
    out.commit();
    out.close();
  }
  FG_RETURN_IF_ERROR(
      SyncFiles(built));  // written without syncs: make it durable before it goes live
  lock.close();
  Status swapped = Exchange(built, live);
  cleanup();  // the old index (after the swap) and the shards
  FG_RETURN_IF_ERROR(swapped);
  return SyncFiles(db_dir);  // the exchanged directory entries
}

}  // namespace

Status RebuildIssueIndexInShards(const Store& store, const std::string& db_dir, size_t shard_issues,
                                 const IndexOptions& options) {
  try {
    return Rebuild(store, db_dir, shard_issues, options);
  } catch (const Xapian::DatabaseLockError& e) {
    return Status::Unavailable("issue index " + IssueIndexDir(db_dir) +
                               " is locked by another writer: " + e.get_msg());
  } catch (const Xapian::Error& e) {
    return Status::IOError("issue index " + IssueIndexDir(db_dir) + ": " + e.get_description());
  }
}

Status RebuildIssueIndex(const Store& store, const std::string& db_dir,
                         const IndexOptions& options) {
  return RebuildIssueIndexInShards(store, db_dir, kShardIssues, options);
}

}  // namespace fixgraph::query
