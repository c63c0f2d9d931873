// Store::Batch::Impl: the staged writes of a batch. Private to engine/.
//
// Contract: a batch stages writes (Stage) in its arena and hands them to
// RocksDB only when committed (Store::Write) or, bulk loading, spilled to
// table files (bulk_load.cc) and ingested (Store::IngestBulkLoad). Upsert
// reads the current version of a record (staged in this batch, in a spilled
// file, else in the store), writes nothing when it is equal, and otherwise
// stages the deletes of the old version's index rows, the new rows, the
// record, its raw payload and (first time per item) a pending-relink entry,
// and records the change it makes to the counters (new record, changed
// state), which reach the store in the same commit.
// Staged writes reach RocksDB in Sorted() order: by family, key tag and key,
// writes to one key in staged order, so the outcome equals applying the
// staged sequence. A batch belongs to one thread.
//
// Split over: store_batch.cc (upserts, lookups, the public Batch methods),
// stage_sort.cc (Grouped/Sorted/Fill), bulk_load.cc (spilling and ingesting).
#pragma once

#include "stage_arena.h"
#include "store_counts.h"
#include "store_impl.h"
#include "store_keys.h"
#include "store_rows.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fixgraph {

struct Store::Batch::Impl {
  Store::Impl* store;
  std::set<Ref> touched;
  const Ref* last_touched = nullptr;  // the element of `touched` inserted last
  std::int64_t changed = 0;

  // One staged write. Writes are staged rather than appended to a WriteBatch
  // so that Commit can hand them to RocksDB sorted by key: the memtable's skip
  // list inserts a sorted run far more cheaply than keys in random order.
  // Keys and values live in `arena` (one mapping per 4 MiB block instead of
  // two per write; blocks are kept for the next batch).
  // What the pending maps below remember of an op.
  enum class Track : std::uint8_t { kNone, kItem, kRaw };
  struct Op {
    rocksdb::ColumnFamilyHandle* cf;
    bool del;
    Track track;
    std::string_view key;
    std::string_view value;
  };
  // Bytes that stay put until Reset (the views above and below point into it).
  store_internal::StageArena arena;
  std::vector<Op> ops;
  std::size_t bytes = 0;
  // The latest staged record and payload of each key, so that a second put of
  // the same key in one batch sees the first (pages that shift while syncing).
  // Built lazily: ops[0, indexed) are in the maps. An import into a new
  // repository rarely looks (only when the key filter says it may have put the
  // key before), so it seldom pays for them.
  std::unordered_map<std::string_view, std::size_t> pending_items;
  std::unordered_map<std::string_view, std::size_t> pending_raw;
  std::size_t indexed = 0;
  void CatchUp() {
    for (; indexed < ops.size(); ++indexed) {
      const Op& op = ops[indexed];
      if (op.track == Track::kItem)
        pending_items[op.key] = indexed;
      else if (op.track == Track::kRaw)
        pending_raw[op.key] = indexed;
    }
  }
  // ---- Counters (store_counts.h). The count changes of the writes staged
  // (or, bulk loading, staged and spilled) since the last commit, recorded
  // by Upsert and Remove from what they find stored (new, changed state,
  // removed) and committed with them (CommitCounts).
  store_internal::CountDeltas counts;
  // Platform links joining two repositories, by key: whether the last write
  // staged for it is a put. Another batch (the other repository's import)
  // may write the same key meanwhile, so these are counted at commit,
  // against the store as it is then, under Store::Impl::shared_links_mu.
  std::map<std::string, bool, std::less<>> shared_links;
  // The count changes to commit: `counts`, plus those of `shared_links`
  // against the store as it is now (REQUIRES: shared_links_mu held when
  // shared_links is not empty). Zero rows are left out.
  Status CommitCounts(store_internal::CountDeltas::Map* out) const;
  // Adds CommitCounts as merge operands to `wb` (same REQUIRES).
  Status MergeCounts(rocksdb::WriteBatch* wb) const;
  // Forgets the count changes (after their commit, or with the writes).
  void ClearCounts() {
    counts.clear();
    shared_links.clear();
  }

  // Handed to RocksDB by Store::Write, reused between commits unless it grew
  // past kKeepWriteBatch bytes.
  std::unique_ptr<rocksdb::WriteBatch> wb;
  static constexpr std::size_t kKeepWriteBatch = std::size_t{64} << 20;
  // Keys, index rows and record values are built in these reused buffers.
  store_internal::RowBuilder rows;
  std::string value_buf;
  std::string get_scratch;

  // ExpectNewRepository: the repository's string, empty when the hint is off,
  // and a bloom filter of the keys of that repository upserted so far.
  std::string new_repo;
  std::vector<std::uint64_t> put_filter;
  // 8 MiB, three probes: a bulk load keeps a whole repository's writes staged,
  // and each false positive would index all of them for the lookup (CatchUp).
  static constexpr std::size_t kFilterBits = std::size_t{1} << 26;

  // Key tags of the records a repository import writes (not platform links:
  // an operate log may link an issue of another repository).
  static bool OwnedTag(char tag) {
    return tag == keys::kRepoTag || tag == keys::kIssueTag || tag == keys::kPullTag ||
           tag == keys::kCommentTag || tag == keys::kCommitTag || tag == keys::kFileTag ||
           tag == keys::kOplogTag;
  }
  bool InNewRepo(std::string_view key) const {
    if (new_repo.empty() || key.size() < 2 + new_repo.size() || !OwnedTag(key[0]) ||
        key[1] != keys::kSep || key.compare(2, new_repo.size(), new_repo) != 0)
      return false;
    return key.size() == 2 + new_repo.size() || key[2 + new_repo.size()] == keys::kSep;
  }
  // Adds `key` to the filter; true when it may have been added before.
  bool FilterTestAndSet(std::string_view key) {
    std::uint64_t h = std::hash<std::string_view>()(key);
    std::uint64_t h2 = (h >> 32) | (h << 32);
    h2 = h2 * 0x9E3779B97F4A7C15ull;
    bool seen = true;
    for (std::uint64_t bit : {h % kFilterBits, h2 % kFilterBits, (h + h2) % kFilterBits}) {
      std::uint64_t mask = std::uint64_t{1} << (bit % 64);
      if ((put_filter[bit / 64] & mask) == 0) seen = false;
      put_filter[bit / 64] |= mask;
    }
    return seen;
  }

  std::size_t Stage(rocksdb::ColumnFamilyHandle* cf, bool del, std::string_view key,
                    std::string_view value, Track track = Track::kNone) {
    bytes += key.size() + value.size() + 8;
    ops.push_back(Op{cf, del, track, arena.Copy(key), arena.Copy(value)});
    return ops.size() - 1;
  }

  // The current value of `key` in items (or raw): staged here, else stored.
  // Sets *value to point at it (into `scratch` when read from the store).
  Status GetPending(bool raw, std::string_view key, std::string* scratch, std::string_view* value,
                    bool* found);

  void PutRaw(std::string_view key, std::string_view raw) {
    Stage(store->raw, false, key, raw, Track::kRaw);
  }

  // The staged writes sorted by column family, key tag and key; writes to
  // one key keep their order, so the outcome is the staged sequence's.
  struct Entry {
    std::uint64_t group;  // family id, then the key's tag byte
    std::uint64_t head;   // the 8 key bytes after the group's common prefix, big-endian
    std::string_view key;
    const Op* op;
    std::uint32_t seq;  // staged order
  };
  // The staged writes grouped by family and key tag, in staged order within a
  // group; Sorted() also sorts each group by key.
  std::vector<Entry> Grouped() const;
  std::vector<Entry> Sorted() const;
  static void SortGroupIfNeeded(std::vector<Entry>::iterator first,
                                std::vector<Entry>::iterator last);

  // Sorts one group by key, equal keys in staged order (what a stable sort
  // by key gives). The keys of a group share a prefix (tag, repository), so
  // the comparisons start past it, with the next 8 bytes compared as one
  // integer (zero-padded: where two heads differ, their order is the keys').
  static void SortGroup(std::vector<Entry>::iterator first, std::vector<Entry>::iterator last);

  // Hands the staged writes to `wb` in Sorted() order.
  Status Fill(rocksdb::WriteBatch* wb);

  void Clear() {
    pending_items.clear();
    pending_raw.clear();
    indexed = 0;
    ops.clear();
    arena.Reset();
    bytes = 0;
  }

  // ---- Bulk load (Batch::StartBulkLoad, Store::IngestBulkLoad).
  // Staged writes are kept past Write until they pass kBulkRunBytes; then
  // they are sorted into table files (one per family and key tag: a new
  // repository's files then overlap nothing in the store and can be placed
  // in its last level) in `bulk_dir`, and the staging memory is reused. The
  // files are added to the store by IngestBulkLoad, in the order written, so
  // a later file's write of a key wins, as a later Write would.
  static constexpr std::size_t kBulkRunBytes = std::size_t{256} << 20;
  std::size_t bulk_run_bytes = kBulkRunBytes;
  struct BulkFile {
    rocksdb::ColumnFamilyHandle* cf;
    std::string path;
    std::string smallest, largest;
    std::unique_ptr<rocksdb::SstFileReader> reader;  // opened by a lookup
    std::unique_ptr<rocksdb::Iterator> it;
  };
  bool bulk = false;
  std::string bulk_dir;  // created by the first spill
  std::vector<BulkFile> bulk_files;
  std::size_t bulk_runs = 0;

  ~Impl();  // bulk_load.cc: removes the table files of a load not ingested

  void RemoveBulkFiles();

  // Sorts one group of Grouped() and writes it into the table file `file`
  // of this run (bulk_runs).
  Status WriteGroup(std::vector<Entry>::iterator first, std::vector<Entry>::iterator last,
                    BulkFile* file);

  // Writes the staged writes into table files and empties the staging area.
  Status Spill();
  // Writes CommitCounts as merge operands into one more table file of the
  // default family (REQUIRES as CommitCounts), for the ingestion.
  Status WriteCountsFile();

  // The value of `key` in `cf` as the spilled files hold it (the newest file
  // first). Only puts are looked for: the records upserts read are never
  // deleted through a batch.
  Status SpilledGet(rocksdb::ColumnFamilyHandle* cf, std::string_view key, std::string* value,
                    bool* found);

  // Puts `record` under its key (RowBuilder::Key).
  template <typename T>
  Status Upsert(const T& record, std::string_view raw, const Ref& owner);

  // Removes the stored `record` (keyed as Upsert keys it) with its index
  // rows; *removed says whether there was one.
  template <typename T>
  Status Remove(const T& record, const Ref& owner, bool* removed);

  // Records `item` as touched; the first time, also stages its pending-relink
  // key in this batch, so that the change and the work it calls for are
  // committed (or lost) together.
  void Touch(const Ref& item);
  bool record_pending = true;
};

}  // namespace fixgraph
