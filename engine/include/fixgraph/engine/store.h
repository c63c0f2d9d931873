// Store: the RocksDB-backed record store under <db>/store (design.md s4).
//
// What it holds, per repository: the repository, issues, pull requests,
// comments, PR commits and files, operate-log events and platform links. Each
// record is kept twice: the mapped record (model.h) and the raw API payload it
// came from, so a better mapper can re-derive records without re-fetching.
//
// Secondary keys, maintained on every upsert, make linking sub-quadratic:
//   - issues by close second and PRs by merge second, per repository;
//   - mentions by target ("who mentions gitcode:Ascend/MindSpeed-Ops#69"),
//     extracted from issue and PR texts, comments and commit messages;
//   - platform links in both directions;
//   - item states, for counts.
//
// Writes go through a WriteBatch, committed atomically, or, for a bulk load
// (Batch::StartBulkLoad), into sorted table files added to the store in one
// atomic ingestion (Store::IngestBulkLoad). Upserts are
// idempotent: writing a record equal to the stored one changes nothing.
// Replacing a record removes the secondary keys of its old version.
//
// Concurrency: one process opens a store for writing (RocksDB's lock); any
// number of others may open it read-only meanwhile, each seeing the data as of
// its Open. A Store object is safe for concurrent reads; a Batch is used by one
// thread at a time.
#pragma once

#include "fixgraph/engine/mentions.h"
#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph {

// The on-disk schema this build reads and writes. Bump on incompatible change.
// 2: binary record values; 3: per-repository counters (Store::Stats).
inline constexpr int kStoreSchemaVersion = 3;
// The one older schema this build also opens: a writable Open adds the
// counters (one scan of the store) and moves it to kStoreSchemaVersion; a
// read-only Open leaves it as it is and Stats counts by scanning.
inline constexpr int kStoreSchemaWithoutCounters = 2;

struct StoreOptions {
  // Create the store when the directory has none. Default: true.
  bool create_if_missing = true;
  // Open without the write lock; writes fail. Readers use this while another
  // process writes. Default: false.
  bool read_only = false;
};

// Where a mention was found.
enum class MentionSource : std::uint8_t {
  kIssueText = 0,  // an issue's title or body
  kPullTitle = 1,
  kPullBody = 2,
  kIssueComment = 3,
  kPullComment = 4,
  kCommitMessage = 5,
  kBranchName = 6,  // reserved for the linker
};
const char* MentionSourceName(MentionSource s);

// One row of the mention index: `source_item` mentions `target`.
struct MentionRecord {
  Ref target;
  Ref source_item;  // the issue or PR whose text (or comment, or commit) holds it
  MentionSource source = MentionSource::kIssueText;
  std::string source_id;  // comment id or commit sha; "" for titles and bodies
  MentionForm form = MentionForm::kHash;
  MentionKeyword keyword = MentionKeyword::kNone;
  bool mirror_host = false;
  std::string text;  // "#69", "!166" or the URL
  OptTime at;        // when the text was written (comment/commit/PR creation time)
};

struct RepoStats {
  RepoRef repo;
  std::int64_t issues_open = 0;
  std::int64_t issues_closed = 0;
  std::int64_t pulls_open = 0;
  std::int64_t pulls_merged = 0;
  std::int64_t pulls_closed = 0;  // closed without merge
  std::int64_t comments = 0;      // issue and PR comments
  std::int64_t commits = 0;
  std::int64_t files = 0;
  std::int64_t operate_logs = 0;
  std::int64_t platform_links = 0;
};

// Derived work (links, the reverse index, the ask index) that data written
// to the store still calls for. It is recorded in the same atomic write as
// the data that calls for it (a Batch records every item it touches) and
// cleared only after the links and the index are durably written, so a crash
// anywhere leaves it to be finished by the next writer (docs/architecture.md,
// "Crash consistency").
struct PendingWork {
  std::vector<Ref> relink;   // issues and PRs changed after their links were computed
  std::vector<Ref> reindex;  // issues whose links changed after their ask document was written
  // Whole link runs begun and not finished: repositories, or "*" for all.
  std::vector<std::string> link_runs;
  bool empty() const { return relink.empty() && reindex.empty() && link_runs.empty(); }
};

// Testing hook for crash tests: once SetCrashPoints(N, ...) with N >= 1 has
// been called, the N-th CrashPoint call in this process ends it at once with
// _exit(86) (like kill -9: no destructor, no flush). The store calls it before
// and after every write that reaches the disk; callers that write elsewhere
// (the ask index) call it between their steps. Calls are counted from the
// start of the process, whether or not a crash point is set.
void CrashPoint();

// Arms the crash points: `at` >= 1 ends the process at the at-th CrashPoint
// call, 0 (the default) never. `report_count` prints "crash points: <calls>"
// to stderr at exit (registered once per process, whatever later calls say).
// The cli calls it once per command from $FIXGRAPH_CRASH_AT and
// $FIXGRAPH_CRASH_COUNT (docs/reliability.md); library code never reads the
// environment. Thread-safe.
void SetCrashPoints(long at, bool report_count);

class Store {
 public:
  class Batch;

  // Opens (or creates) the store in directory `dir`. A writable open of a
  // store of schema kStoreSchemaWithoutCounters upgrades it (above).
  // Errors: NotFound when it does not exist and create_if_missing is false or
  // read_only is set; FailedPrecondition when it was written by another schema
  // version; IOError when it is locked by a writer and read_only is false.
  static StatusOr<std::unique_ptr<Store>> Open(const std::string& dir, const StoreOptions& options);

  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // A new, empty batch bound to this store. Reads made while filling it
  // (to replace old secondary keys) see both the store and the batch.
  std::unique_ptr<Batch> NewBatch();

  // How a Write survives a crash.
  enum class Durability {
    // Logged before it is applied: a process crash after Write returns loses nothing.
    kLogged,
    // Not logged, for bulk loads: a crash before the next Flush may lose it. The
    // caller must make the loss visible (a marker written kLogged before, removed
    // kLogged after Flush) and repeatable (idempotent upserts).
    kUnlogged,
  };

  // Applies the batch atomically and empties it. REQUIRES: !read_only.
  Status Write(Batch* batch, Durability durability = Durability::kLogged);

  // Persists everything written so far (including kUnlogged writes) to table files.
  Status Flush();

  // Adds everything a bulk-loading batch (Batch::StartBulkLoad) staged to the
  // store in one atomic step: after an error or a crash before it returns the
  // store holds none of it. The batch then writes normally again.
  Status IngestBulkLoad(Batch* batch);

  // Deletes every repository, issue, PR, comment, commit, file and operate-log
  // record of `repo`, their raw payloads and the secondary keys they produced
  // (state, close and merge times, mentions), in bounded chunks. Platform
  // links are left alone (they may join another repository's items). Undoes
  // an import into a repository the store did not hold before
  // (Batch::ExpectsNewRepository) when the import wrote no platform links.
  Status DeleteRepositoryRecords(const RepoRef& repo, Durability durability);

  // ---- Reads. NotFound when absent.
  StatusOr<Repository> GetRepository(const RepoRef& repo) const;
  StatusOr<Issue> GetIssue(const Ref& issue) const;
  StatusOr<PullRequest> GetPull(const Ref& pull) const;
  // The raw API payload of an issue, PR or repository.
  StatusOr<std::string> GetRaw(const Ref& item) const;

  Status ListRepositories(std::vector<Repository>* out) const;
  // Calls fn for every issue (of one repository when repo is set) in number
  // order; stops early when fn returns false. Here and in the bulk scans
  // below, fn gets a record decoded for it alone: it may move from it (the
  // scan never reads it again) instead of copying what it keeps.
  Status ForEachIssue(const RepoRef* repo, const std::function<bool(Issue&)>& fn) const;
  Status ForEachPull(const RepoRef* repo, const std::function<bool(PullRequest&)>& fn) const;

  Status ListComments(const Ref& parent, std::vector<Comment>* out) const;
  Status ListCommits(const Ref& pull, std::vector<Commit>* out) const;
  Status ListFiles(const Ref& pull, std::vector<FileChange>* out) const;
  Status ListOperateLog(const Ref& item, std::vector<OperateLogEvent>* out) const;
  // Platform links touching an issue or a PR.
  Status ListPlatformLinks(const Ref& item, std::vector<PlatformLink>* out) const;

  // Issues of `repo` closed in [from, to] (UTC seconds), by close time.
  Status IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                             std::vector<std::pair<UnixSeconds, Ref>>* out) const;
  // PRs of `repo` merged in [from, to], by merge time.
  Status PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                            std::vector<std::pair<UnixSeconds, Ref>>* out) const;
  // Every recorded mention of `target`.
  Status MentionsOf(const Ref& target, std::vector<MentionRecord>* out) const;

  // Counts for one repository: from its counters (kept in the same atomic
  // write as the records they count), so the cost does not grow with the
  // store. Zero counts for a repository the store knows nothing of.
  StatusOr<RepoStats> Stats(const RepoRef& repo) const;
  // The same counts computed by scanning the repository's records and state
  // rows (the reference the counters are tested against; what Stats does on
  // a store without counters opened read-only). Grows with the repository.
  StatusOr<RepoStats> CountByScan(const RepoRef& repo) const;

  // Derived records: results computed from the data (the linker's per-issue
  // links, ...), keyed by a kind name and an item. NotFound when absent.
  StatusOr<std::string> GetDerived(const std::string& kind, const Ref& item) const;
  // Calls fn(item, value) for every derived record of `kind` (of one
  // repository when repo is set); stops early when fn returns false.
  Status ForEachDerived(const std::string& kind, const RepoRef* repo,
                        const std::function<bool(const Ref&, const std::string&)>& fn) const;

  // Small named values (sync cursors, import markers). NotFound when absent.
  StatusOr<std::string> GetMeta(const std::string& key) const;
  // Keys starting with `prefix`, with their values.
  Status ListMeta(const std::string& prefix, std::map<std::string, std::string>* out) const;

  const std::string& dir() const;

  // Writes a consistent copy of the whole store into the new folder `dir`
  // (RocksDB's checkpoint: memtables flushed first, table files hard-linked
  // when `dir` is on the same file system, copied otherwise). The copy opens
  // as a store of its own. REQUIRES: !read_only (the writer's lock keeps
  // other writers out meanwhile). InvalidArgument when `dir` exists.
  // (engine/store_checkpoint.cc)
  Status WriteCheckpoint(const std::string& dir) const;

  // ---- Pending derived work (PendingWork above).
  Status ListPending(PendingWork* out) const;
  // Removes the given entries in one logged write. After a large removal
  // (a thousand entries or more) the pending key range is compacted, so that
  // later ListPending calls do not step over the deleted entries.
  Status ClearPending(const PendingWork& done);
  // Records a whole link run (of `repo`, of all repositories when null) as
  // begun, and drops `relink` entries it covers, in one logged write
  // (compacted as ClearPending's).
  Status BeginLinkRun(const RepoRef* repo, const std::vector<Ref>& covered);

  // ---- Bulk scans (one sequential pass instead of a read per item; the
  // linker loads everything a run needs with these). Each calls fn for every
  // record of one repository when `repo` is set, of all repositories when
  // null, grouped by parent item in the order the per-item List* methods give
  // them; fn returning false stops the scan.
  // Comments (as ListComments, parent by parent); of issues only or PRs
  // only when `parents` is set (the others are skipped undecoded).
  Status ForEachComment(const RepoRef* repo, const std::function<bool(Comment&)>& fn,
                        std::optional<ParentKind> parents = std::nullopt) const;
  // Operate-log events (as ListOperateLog), filtered the same way.
  Status ForEachOperateLog(const RepoRef* repo, const std::function<bool(OperateLogEvent&)>& fn,
                           std::optional<ParentKind> parents = std::nullopt) const;
  // Changed files of PRs (as ListFiles).
  Status ForEachFile(const RepoRef* repo, const std::function<bool(FileChange&)>& fn) const;
  // Platform links, keyed by issue (as ListPlatformLinks of an issue).
  Status ForEachPlatformLink(const RepoRef* repo,
                             const std::function<bool(PlatformLink&)>& fn) const;
  // Every row of the mention index, grouped by target in the order MentionsOf
  // gives them (all repositories: targets may be anywhere).
  Status ForEachMention(const std::function<bool(MentionRecord&)>& fn) const;
  // The rows whose target is an issue of `repo`, grouped by target the same
  // way: one seek for the repository instead of a MentionsOf per issue.
  Status ForEachIssueMention(const RepoRef& repo,
                             const std::function<bool(MentionRecord&)>& fn) const;
  // The rows whose target is an issue or a PR of `repo`: the issue targets
  // (as ForEachIssueMention), then the PR targets, each grouped by target.
  Status ForEachMentionIn(const RepoRef& repo, const std::function<bool(MentionRecord&)>& fn) const;
  // The repositories that hold at least one issue, in key order (one seek
  // per repository, not a scan of the issues).
  Status ListIssueRepositories(std::vector<RepoRef>* out) const;
  // Likewise, the repositories with at least one derived record of `kind`.
  Status ListDerivedRepositories(const std::string& kind, std::vector<RepoRef>* out) const;

  // ForEachIssue, ForEachPull, ForEachDerived (one kind) and the comment,
  // operate-log, file and platform-link scans visit items (or parents) of one
  // kind in the byte order of this key (repository, then number), so a reader
  // can join their streams without a read per item.
  static std::string ScanOrderKey(const Ref& item);

  // Bytes the block cache holds (diagnostics and tests). The ForEach* scans
  // (bulk: one pass over many records) read around the cache; point reads
  // (Get*, List*, MentionsOf, the time indexes) fill it.
  std::uint64_t BlockCacheBytes() const;

 private:
  // Compacts the pending key range when `deleted` entries were just removed
  // from it and they are many (store.cc, kCompactPendingAfter).
  Status CompactPendingAfter(size_t deleted);
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend class Batch;
};

// Upserts collected for one atomic commit.
class Store::Batch {
 public:
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // Each Put replaces the record with the same identity. `raw` is the API
  // payload the record was mapped from (compact JSON); "" keeps none.
  Status PutRepository(const Repository& repo, std::string_view raw);
  Status PutIssue(const Issue& issue, std::string_view raw);
  Status PutPull(const PullRequest& pull, std::string_view raw);
  Status PutComment(const Comment& comment, std::string_view raw);
  Status PutCommit(const Commit& commit, std::string_view raw);
  Status PutFile(const FileChange& file, std::string_view raw);
  Status PutOperateLog(const OperateLogEvent& event, std::string_view raw);
  Status PutPlatformLink(const PlatformLink& link);
  // Removes the link (the same issue, pull and source) when the store or this
  // batch holds it, with its index row, and records both sides as touched;
  // *removed (may be null) says whether there was one.
  Status DeletePlatformLink(const PlatformLink& link, bool* removed = nullptr);
  Status PutDerived(const std::string& kind, const Ref& item, std::string_view value);
  Status DeleteDerived(const std::string& kind, const Ref& item);
  // An issue whose ask document must be rewritten (its links changed): kept
  // pending, with this batch, until Store::ClearPending.
  Status MarkReindex(const Ref& issue);
  // Whether the items this batch touches are recorded as pending relinking
  // (in the same write as their data). Default: true.
  void RecordPending(bool on);
  Status PutMeta(const std::string& key, const std::string& value);
  Status DeleteMeta(const std::string& key);

  // Bulk-load hint for importing `repo` into a store that may not hold it yet.
  // When the store has no repository, issue, PR, comment, commit, file or
  // operate-log record of `repo`, later upserts of such records skip the read
  // of the stored version unless this batch may have put the same key before
  // (a fixed-size filter of the keys it put, so memory stays flat). When the
  // store has any, nothing changes. Results are the same either way, provided
  // no other batch writes those records of `repo` while this one is in use.
  Status ExpectNewRepository(const RepoRef& repo);
  // True when ExpectNewRepository found the store without records of its
  // repository (the hint took effect).
  bool ExpectsNewRepository() const;

  // Bulk load, for filling a repository the store does not hold. From now on
  // Store::Write does not apply this batch's writes: it keeps them staged
  // and, once they pass `run_bytes` (0: 256 MiB; memory stays bounded), sorts them
  // into table files in a folder inside the store folder, and empties the
  // batch. Reads made while filling the batch still see every write staged
  // or spilled. Nothing reaches the store until Store::IngestBulkLoad; the
  // durability passed to Write does not matter. AbortBulkLoad (or destroying
  // the batch) drops the staged writes and their files; files a crash leaves
  // behind are deleted by the next writable Open. Meant for records of keys
  // no other writer touches meanwhile: a key written by another batch between
  // this batch's write and the ingestion is overwritten by the ingestion.
  Status StartBulkLoad(std::size_t run_bytes = 0);
  void AbortBulkLoad();

  // Records put since the last Write (unchanged records are not counted).
  std::int64_t changed() const;
  // The issues and PRs whose own record, comments, commits, files, operate
  // log or platform links changed since the batch was created (not cleared by
  // Write), sorted and unique. The linker relinks from these.
  std::vector<Ref> TouchedItems() const;
  // Approximate bytes buffered.
  std::size_t ApproximateSize() const;

 private:
  friend class Store;
  struct Impl;
  explicit Batch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fixgraph
