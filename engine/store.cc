// The store: opening, commits, flushes, pending work and repository deletes.
// The other parts are in the files store_impl.h lists.
#include "fixgraph/engine/store.h"

#include "store_batch.h"
#include "store_counts.h"
#include "store_impl.h"
#include "store_keys.h"
#include "store_rows.h"

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace fixgraph {

using namespace store_internal;

namespace {
std::atomic<long> crash_calls{0};
std::atomic<long> crash_at{0};
std::atomic<bool> crash_count_reported{false};
}  // namespace

void SetCrashPoints(long at, bool report_count) {
  crash_at = at > 0 ? at : 0;
  if (report_count && !crash_count_reported.exchange(true))
    std::atexit([] { std::fprintf(stderr, "crash points: %ld\n", crash_calls.load()); });
}

void CrashPoint() {
  long at = crash_at.load(std::memory_order_relaxed);
  long n = ++crash_calls;
  if (at > 0 && n == at) _exit(86);
}

namespace store_internal {

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  std::string msg = std::string(what) + ": " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  if (s.IsNotSupported()) return Status::NotSupported(msg);
  return Status::IOError(msg);
}

std::string DerivedKey(const std::string& kind, const Ref& item) {
  char tag = item.kind == RefKind::kIssue ? 'i' : item.kind == RefKind::kPull ? 'p' : 'r';
  return keys::Join(keys::kDerivedTag,
                    {kind, item.repo.ToString(), std::string(1, tag), keys::Num(item.number)});
}

// The items prefix of one repository's records with `tag`, or of all of them.
std::string TagPrefix(char tag, const RepoRef* repo) {
  return repo ? keys::Prefix(tag, {repo->ToString()}) : std::string(1, tag) + keys::kSep;
}

}  // namespace store_internal

const char* MentionSourceName(MentionSource s) {
  switch (s) {
    case MentionSource::kIssueText:
      return "issue_text";
    case MentionSource::kPullTitle:
      return "pull_title";
    case MentionSource::kPullBody:
      return "pull_body";
    case MentionSource::kIssueComment:
      return "issue_comment";
    case MentionSource::kPullComment:
      return "pull_comment";
    case MentionSource::kCommitMessage:
      return "commit_message";
    case MentionSource::kBranchName:
      return "branch_name";
  }
  return "unknown";
}

Store::Impl::~Impl() {
  if (db) {
    // A writable store leaves no write-ahead log behind: every later
    // read-only open would replay it (tens of MB after a link), and a
    // read-only open cannot clear it.
    if (!read_only) {
      rocksdb::FlushOptions fo;
      fo.wait = true;
      db->Flush(fo, handles).PermitUncheckedError();
    }
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db->Close().PermitUncheckedError();
  }
}

Status Store::Impl::AddCounters() {
  Impl& impl = *this;
  CountDeltas all;
  FG_RETURN_IF_ERROR(impl.Scan(
      impl.index, std::string(1, keys::kStateIndexTag) + keys::kSep,
      [&](std::string_view key, std::string_view value) {
        all.AddRow(key, value, +1);
        return true;
      },
      ScanMode::kBulk));
  for (char tag :
       {keys::kCommentTag, keys::kCommitTag, keys::kFileTag, keys::kOplogTag, keys::kLinkTag}) {
    FG_RETURN_IF_ERROR(impl.Scan(
        impl.items, std::string(1, tag) + keys::kSep,
        [&](std::string_view key, std::string_view) {
          all.AddItem(key, +1);
          return true;
        },
        ScanMode::kBulk));
  }
  rocksdb::WriteBatch wb;
  for (const auto& [repo, c] : all.map())
    FG_RETURN_IF_ERROR(FromRocks(wb.Put(impl.meta, CountsKey(repo), EncodeCounts(c)), "write"));
  FG_RETURN_IF_ERROR(
      FromRocks(wb.Put(impl.meta, keys::kSchemaKey, std::to_string(kStoreSchemaVersion)), "write"));
  CrashPoint();
  Status s = FromRocks(impl.db->Write(rocksdb::WriteOptions(), &wb), "write counters");
  CrashPoint();
  return s;
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;
const std::string& Store::dir() const { return impl_->dir; }

StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& dir, const StoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  bool exists = fs::exists(fs::path(dir) / "CURRENT", ec);
  if (!exists && (options.read_only || !options.create_if_missing))
    return Status::NotFound("no fixgraph store at " + dir +
                            " (run `fixgraph import` first, or pass --db)");
  if (!exists) {
    fs::create_directories(dir, ec);
    if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  }
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->read_only = options.read_only;
  rocksdb::Options opts;
  opts.create_if_missing = true;
  opts.create_missing_column_families = true;
  opts.IncreaseParallelism(2);
  opts.max_open_files = 256;
  opts.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  opts.keep_log_file_num = 2;
  // Imports write unlogged (Durability::kUnlogged): without a log, only a
  // flush of every family at once keeps a crash from persisting one family's
  // half of a batch (an item without its index rows or its pending entry).
  opts.atomic_flush = true;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(
      rocksdb::NewBloomFilterPolicy(10));  // point reads of new keys miss fast
  opts.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::ColumnFamilyOptions cf_opts(opts);
  // LZ4 compresses flushed blocks with less CPU than the default Snappy (blocks
  // record their compression type, so stores written with Snappy still read).
  cf_opts.compression = rocksdb::kLZ4Compression;
  // Level 0 holds what memtable flushes write, and compaction soon rewrites it
  // into level 1: leaving it uncompressed spares the flush (bulk imports) the
  // LZ4 pass. Deeper levels stay LZ4.
  cf_opts.compression_per_level = {rocksdb::kNoCompression,  rocksdb::kLZ4Compression,
                                   rocksdb::kLZ4Compression, rocksdb::kLZ4Compression,
                                   rocksdb::kLZ4Compression, rocksdb::kLZ4Compression,
                                   rocksdb::kLZ4Compression};
  // A bloom filter over the keys of each memtable: the existence reads of
  // upserts into a new repository miss without a skip-list search.
  cf_opts.memtable_whole_key_filtering = true;
  cf_opts.memtable_prefix_bloom_size_ratio = 0.05;
  // The default family holds the per-repository counters, which writers
  // add to as merge operands (store_counts.h).
  rocksdb::ColumnFamilyOptions meta_opts(cf_opts);
  meta_opts.merge_operator = NewCountsMergeOperator();
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, meta_opts},
      {keys::kItemsFamily, cf_opts},
      {keys::kRawFamily, cf_opts},
      {keys::kIndexFamily, cf_opts}};
  rocksdb::DB* raw_db = nullptr;
  rocksdb::Status s;
  try {
    if (options.read_only) {
      s = rocksdb::DB::OpenForReadOnly(opts, dir, families, &impl->handles, &raw_db);
    } else {
      s = rocksdb::DB::Open(opts, dir, families, &impl->handles, &raw_db);
    }
  } catch (const std::exception& e) {
    return Status::IOError("cannot open store " + dir + ": " + e.what());
  }
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos)
      return Status::IOError("store " + dir + " is in use by another writer (" + s.ToString() +
                             ")");
    if (s.IsInvalidArgument() && s.ToString().find("olumn famil") != std::string::npos)
      return Status::FailedPrecondition(
          "store " + dir + " was not written by fixgraph or by another schema: " + s.ToString());
    return FromRocks(s, "cannot open store " + dir);
  }
  impl->db.reset(raw_db);
  impl->options = rocksdb::Options(opts, cf_opts);
  // Bulk loads write their table files uncompressed, like the memtable
  // flushes they replace (level 0 above); compactions compress what they rewrite.
  impl->options.compression = rocksdb::kNoCompression;
  impl->options.compression_per_level.clear();
  if (!options.read_only) {
    // The table files of bulk loads a crash interrupted (never ingested).
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().rfind(kBulkDirPrefix, 0) == 0) {
        std::error_code rm;
        fs::remove_all(it->path(), rm);
      }
    }
  }
  impl->meta = impl->handles[0];
  impl->items = impl->handles[1];
  impl->raw = impl->handles[2];
  impl->index = impl->handles[3];
  std::string version;
  Status vs = impl->Get(impl->meta, keys::kSchemaKey, &version);
  if (vs.IsNotFound()) {
    if (options.read_only)
      return Status::FailedPrecondition("store " + dir + " has no schema version");
    FG_RETURN_IF_ERROR(
        FromRocks(impl->db->Put(rocksdb::WriteOptions(), impl->meta, keys::kSchemaKey,
                                std::to_string(kStoreSchemaVersion)),
                  "write schema version"));
  } else if (!vs.ok()) {
    return vs;
  } else if (version == std::to_string(kStoreSchemaWithoutCounters)) {
    // Written before the counters: a writer computes them once, a reader
    // counts by scanning (Store::Stats).
    if (options.read_only)
      impl->counters = false;
    else
      FG_RETURN_IF_ERROR(impl->AddCounters().WithContext("store " + dir));
  } else if (version != std::to_string(kStoreSchemaVersion)) {
    return Status::FailedPrecondition(
        "store " + dir + " has schema version " + version + "; this fixgraph reads version " +
        std::to_string(kStoreSchemaVersion) + " (import into a new --db directory)");
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

std::unique_ptr<Store::Batch> Store::NewBatch() {
  auto b = std::make_unique<Batch::Impl>();
  b->store = impl_.get();
  return std::unique_ptr<Batch>(new Batch(std::move(b)));
}

Status Store::Write(Batch* batch, Durability durability) {
  if (impl_->read_only) return Status::FailedPrecondition("store is open read-only");
  if (batch->impl_->bulk) {
    Batch::Impl& b = *batch->impl_;
    b.changed = 0;
    if (b.bytes < b.bulk_run_bytes) return Status::OK();  // kept staged
    return b.Spill();
  }
  if (!batch->impl_->ops.empty()) {
    // The batch's WriteBatch is reused: its buffer (megabytes for an import
    // batch) is not mapped, faulted in and unmapped again for every commit.
    Batch::Impl& b = *batch->impl_;
    // RocksDB's per-thread perf counters (one per key comparison of a memtable
    // insert, through a thread-local lookup) are read by nothing here: off for
    // the writing threads.
    thread_local const bool perf_off = [] {
      rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
      return true;
    }();
    (void)perf_off;
    if (!b.wb) b.wb = std::make_unique<rocksdb::WriteBatch>(b.bytes + 64);
    b.wb->Clear();
    Status filled = b.Fill(b.wb.get());
    // The count changes go in the same WriteBatch as the writes they count.
    std::unique_lock<std::mutex> shared(impl_->shared_links_mu, std::defer_lock);
    if (!b.shared_links.empty()) shared.lock();
    if (filled.ok()) filled = b.MergeCounts(b.wb.get());
    rocksdb::WriteOptions wo;
    wo.disableWAL = durability == Durability::kUnlogged;
    CrashPoint();
    Status s = filled.ok() ? FromRocks(impl_->db->Write(wo, b.wb.get()), "commit") : filled;
    CrashPoint();
    if (shared.owns_lock()) shared.unlock();
    // A buffer grown past what import batches need goes back to the allocator.
    if (b.wb->GetDataSize() > Batch::Impl::kKeepWriteBatch)
      b.wb.reset();
    else
      b.wb->Clear();
    FG_RETURN_IF_ERROR(s);
  }
  batch->impl_->Clear();
  batch->impl_->ClearCounts();
  batch->impl_->changed = 0;
  return Status::OK();
}

Status Store::Flush() {
  if (impl_->read_only) return Status::FailedPrecondition("store is open read-only");
  rocksdb::FlushOptions fo;
  fo.wait = true;
  std::vector<rocksdb::ColumnFamilyHandle*> all(impl_->handles.begin(), impl_->handles.end());
  CrashPoint();
  Status s = FromRocks(impl_->db->Flush(fo, all), "flush");
  CrashPoint();
  return s;
}

// Deleting pending entries leaves a tombstone per entry in the meta family,
// and every later ListPending (run by each command that opens the store)
// steps over all of them until a compaction drops them. A first import and
// link of a million issues and PRs leaves two million, which no later write
// to the small meta family would compact: `stats` spent 0.45 of its 0.5 s
// there. So after a clear of at least this many entries the pending range is
// compacted (seconds at that size; nothing below it).
constexpr size_t kCompactPendingAfter = 1000;

Status Store::CompactPendingAfter(size_t deleted) {
  if (deleted < kCompactPendingAfter) return Status::OK();
  std::string begin(keys::kPendingPrefix);
  const std::string end = store_internal::PrefixEnd(begin);
  rocksdb::Slice b(begin), e(end);
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
  return FromRocks(impl_->db->CompactRange(co, impl_->meta, &b, &e), "compacting pending work");
}

Status Store::ClearPending(const PendingWork& done) {
  if (done.empty()) return Status::OK();
  std::unique_ptr<Batch> batch = NewBatch();
  Batch::Impl& b = *batch->impl_;
  for (const Ref& r : done.relink)
    b.Stage(impl_->meta, true, keys::PendingKey(keys::kPendingRelink, r.ToString()), {});
  for (const Ref& r : done.reindex)
    b.Stage(impl_->meta, true, keys::PendingKey(keys::kPendingReindex, r.ToString()), {});
  for (const std::string& r : done.link_runs)
    b.Stage(impl_->meta, true, keys::PendingKey(keys::kPendingLinkRun, r), {});
  FG_RETURN_IF_ERROR(Write(batch.get(), Durability::kLogged));
  return CompactPendingAfter(done.relink.size() + done.reindex.size() + done.link_runs.size());
}

Status Store::BeginLinkRun(const RepoRef* repo, const std::vector<Ref>& covered) {
  std::unique_ptr<Batch> batch = NewBatch();
  Batch::Impl& b = *batch->impl_;
  b.Stage(impl_->meta, false,
          keys::PendingKey(keys::kPendingLinkRun, repo ? repo->ToString() : "*"), {});
  for (const Ref& r : covered)
    b.Stage(impl_->meta, true, keys::PendingKey(keys::kPendingRelink, r.ToString()), {});
  FG_RETURN_IF_ERROR(Write(batch.get(), Durability::kLogged));
  return CompactPendingAfter(covered.size());
}

namespace {
// Deletes of the index rows of the record `value` (under `key`) into
// `stage`, which gets each row's key and value.
template <typename T, typename StageFn>
Status UnindexRecord(std::string_view key, std::string_view value, RowBuilder* rows,
                     StageFn stage) {
  T rec;
  FG_RETURN_IF_ERROR(Decode(value, key, &rec));
  rows->Rows(rec, rows->Key(rec), [&](std::string_view k, std::string_view v) { stage(k, v); });
  return Status::OK();
}
}  // namespace

Status Store::DeleteRepositoryRecords(const RepoRef& repo, Durability durability) {
  if (impl_->read_only) return Status::FailedPrecondition("store is open read-only");
  const std::string r = repo.ToString();
  std::unique_ptr<Batch> batch = NewBatch();
  Batch::Impl& b = *batch->impl_;
  RowBuilder rows;
  auto stage_index = [&](std::string_view key, std::string_view value) {
    b.Stage(impl_->index, true, key, {});
    b.counts.AddRow(key, value, -1);  // an issue's or PR's count goes with its state row
  };
  for (char tag : {keys::kRepoTag, keys::kIssueTag, keys::kPullTag, keys::kCommentTag,
                   keys::kCommitTag, keys::kFileTag, keys::kOplogTag}) {
    // The repository record is the one key R\0<repo>; the others sit under a prefix.
    std::string prefix = tag == keys::kRepoTag ? keys::RepoKey(repo) : keys::Prefix(tag, {r});
    std::string last;
    // Rescans from the last key deleted after each committed chunk, so that
    // memory stays bounded by one chunk.
    for (bool more = true; more;) {
      more = false;
      Status inner;
      Status s =
          impl_->Scan(impl_->items, prefix, [&](std::string_view key, std::string_view value) {
            if (tag == keys::kRepoTag && key.size() != prefix.size()) return true;
            if (!last.empty() && key <= last) return true;
            switch (tag) {
              case keys::kIssueTag:
                inner = UnindexRecord<Issue>(key, value, &rows, stage_index);
                break;
              case keys::kPullTag:
                inner = UnindexRecord<PullRequest>(key, value, &rows, stage_index);
                break;
              case keys::kCommentTag:
                inner = UnindexRecord<Comment>(key, value, &rows, stage_index);
                break;
              case keys::kCommitTag:
                inner = UnindexRecord<Commit>(key, value, &rows, stage_index);
                break;
              default:
                break;  // repository, files and operate logs have no index rows
            }
            if (!inner.ok()) return false;
            b.Stage(impl_->items, true, std::string(key), {});
            b.Stage(impl_->raw, true, std::string(key), {});
            b.counts.AddItem(key, -1);
            if (b.ops.size() >= 8192) {
              last = std::string(key);
              more = true;
              return false;
            }
            return true;
          });
      FG_RETURN_IF_ERROR(s);
      FG_RETURN_IF_ERROR(inner);
      FG_RETURN_IF_ERROR(Write(batch.get(), durability));
    }
  }
  return Status::OK();
}

}  // namespace fixgraph
