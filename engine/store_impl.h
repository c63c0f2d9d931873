// Store::Impl and the helpers every part of the store shares. Private to engine/.
//
// The store is implemented in several files, one job each:
//   store.cc          opening (options, schema check), commits, flushes, pending work, deletes
//   store_read.cc     point reads and small listings (Get*, List*, Stats, meta, pending)
//   store_scan.cc     bulk scans over a repository or the store (ForEach*, ListIssueRepositories)
//   store_batch.h/cc  Store::Batch: staging, upserts with their index rows, key-ordered commits
//   bulk_load.cc      Batch::StartBulkLoad / Store::IngestBulkLoad: spilling staged writes to
//                     table files and ingesting them
//   store_rows.h      record keys and secondary-index rows (RowBuilder)
//   store_counts.h/cc the per-repository counters behind Stats
//   stage_arena.h/cc  the byte arena behind staged writes
//
// Contract of Store::Impl: it owns the open rocksdb::DB and its four family
// handles (meta = default, items, raw, index; store_keys.h); Get/Scan/
// ForEachRecord/GetRecord/ScanTime never write; RocksDB statuses become
// Status values through FromRocks, record decoding errors name the key.
#pragma once

#include "record_codec.h"
#include "store_keys.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fixgraph {

namespace store_internal {

// Folders of a bulk load's table files inside the store folder, until they
// are ingested (Batch::StartBulkLoad). Leftovers of a crash are removed by
// the next writable Open.
inline constexpr const char* kBulkDirPrefix = "bulkload.";

// A RocksDB status as a Status; `what` says what was being done.
Status FromRocks(const rocksdb::Status& s, std::string_view what);

// Record values are binary (record_codec.h).
template <typename T>
Status Decode(std::string_view value, std::string_view key, T* out) {
  Status s = codec::Decode(value, out);
  if (s.ok()) return s;
  return s.WithContext("store record " + std::string(key.substr(0, 120)));
}

// The items key of a derived record (store_keys.h, tag X).
std::string DerivedKey(const std::string& kind, const Ref& item);
// The items prefix of one repository's records with `tag`, or of all of them.
std::string TagPrefix(char tag, const RepoRef* repo);

// The least key greater than every key starting with `prefix` ("" when there
// is none: an empty prefix or one of 0xFF bytes only).
inline std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xFF) end.pop_back();
  if (!end.empty()) end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

// How a scan reads its blocks: point reads (a few records of one item) go
// through the block cache; bulk scans (ForEach*) bypass it.
enum class ScanMode { kPoint, kBulk };

}  // namespace store_internal

struct Store::Impl {
  using ScanMode = store_internal::ScanMode;
  std::string dir;
  bool read_only = false;
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* items = nullptr;
  rocksdb::ColumnFamilyHandle* raw = nullptr;
  rocksdb::ColumnFamilyHandle* index = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  // The options the families were opened with: bulk loads write their table
  // files with them (same table format, filters and compression).
  rocksdb::Options options;
  std::atomic<std::uint64_t> bulk_loads{0};  // names the bulk-load folders
  // False only for a read-only open of a store written before the counters
  // (schema 2): Stats then counts by scanning (CountByScan).
  bool counters = true;
  // Held by a commit (Write, IngestBulkLoad) that writes platform links
  // joining two repositories while it counts them against the store and
  // writes them: two repositories' imports may write the same such link
  // (one from each side), and only one of them may count it.
  std::mutex shared_links_mu;

  ~Impl();  // store.cc: flushes a writable store, closes the database

  // store.cc: upgrades a store of schema kStoreSchemaWithoutCounters:
  // counts every repository's records (as Store::CountByScan does, for all
  // repositories at once, one pass per key tag, platform links of
  // repositories without records included) and writes the counters with the
  // new schema version in one logged write. A crash before it leaves the old
  // store, which the next writable open upgrades.
  Status AddCounters();

  Status Get(rocksdb::ColumnFamilyHandle* cf, const std::string& key, std::string* value) const {
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), cf, key, value);
    if (s.IsNotFound()) return Status::NotFound("no record");
    return store_internal::FromRocks(s, "read");
  }

  // Calls fn(key, value) for keys with `prefix`; stops when fn returns false.
  // A bulk scan (one pass over many records: the ForEach* scans) reads its
  // blocks around the block cache: it would only evict the cached blocks of
  // point reads, and fill the cache's memory with blocks read once.
  template <typename Fn>
  Status Scan(rocksdb::ColumnFamilyHandle* cf, const std::string& prefix, Fn fn,
              ScanMode mode = ScanMode::kPoint) const {
    rocksdb::ReadOptions ro;
    if (mode == ScanMode::kBulk) ro.fill_cache = false;
    // The iterator stops at the end of the prefix rather than at the next
    // live key after it (which may lie behind many deleted ones).
    const std::string upper = store_internal::PrefixEnd(prefix);
    const rocksdb::Slice upper_slice(upper);
    if (!upper.empty()) ro.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      if (!fn(it->key().ToStringView(), it->value().ToStringView())) break;
    }
    return store_internal::FromRocks(it->status(), "scan");
  }

  template <typename T>
  Status ScanRecords(const std::string& prefix, std::vector<T>* out) const {
    return ForEachRecord<T>(prefix, [out](T& rec) {
      out->push_back(std::move(rec));
      return true;
    });
  }

  // Decodes each record under `prefix` and calls fn; stops when fn returns false.
  template <typename T, typename Fn>
  Status ForEachRecord(const std::string& prefix, Fn fn, ScanMode mode = ScanMode::kPoint) const {
    Status inner;
    Status s = Scan(
        items, prefix,
        [&](std::string_view key, std::string_view value) {
          T rec;
          inner = store_internal::Decode(value, key, &rec);
          return inner.ok() && fn(rec);
        },
        mode);
    FG_RETURN_IF_ERROR(s);
    return inner;
  }

  // One record by key; NotFound says "no <what> in the store".
  template <typename T>
  StatusOr<T> GetRecord(const std::string& key, const std::string& what) const {
    std::string v;
    Status s = Get(items, key, &v);
    if (s.IsNotFound()) return Status::NotFound("no " + what + " in the store");
    FG_RETURN_IF_ERROR(s);
    T out;
    FG_RETURN_IF_ERROR(store_internal::Decode(v, key, &out));
    return out;
  }

  Status ScanTime(char tag, const RepoRef& repo, RefKind kind, UnixSeconds from, UnixSeconds to,
                  std::vector<std::pair<UnixSeconds, Ref>>* out) const {
    std::string prefix = keys::Prefix(tag, {repo.ToString()});
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), index));
    for (it->Seek(prefix + keys::Time(from)); it->Valid() && it->key().starts_with(prefix);
         it->Next()) {
      std::string_view rest = it->key().ToStringView().substr(prefix.size());
      if (rest.size() < 10) continue;
      UnixSeconds t = keys::DecodeTime(rest.substr(0, 8));
      if (t > to) break;
      out->emplace_back(t, Ref{kind, repo, keys::Unpad(rest.substr(9))});
    }
    return store_internal::FromRocks(it->status(), "scan");
  }
};

}  // namespace fixgraph
