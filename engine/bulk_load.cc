// Bulk loads (Batch::StartBulkLoad, Store::IngestBulkLoad): staged writes
// spilled into table files (SstFileWriter, one file per family and key tag
// per run, two threads), looked up there by later upserts, and ingested in
// one IngestExternalFiles call. docs/architecture.md "Import".
#include "store_batch.h"
#include "store_counts.h"
#include "store_impl.h"

#include "fixgraph/engine/parallel.h"
#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace fixgraph {

using namespace store_internal;

Store::Batch::Impl::~Impl() { RemoveBulkFiles(); }

void Store::Batch::Impl::RemoveBulkFiles() {
  for (BulkFile& f : bulk_files) {
    f.it.reset();
    f.reader.reset();
  }
  bulk_files.clear();
  if (!bulk_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(bulk_dir, ec);  // best effort; Open removes leftovers
    bulk_dir.clear();
  }
  bulk_runs = 0;
}

Status Store::Batch::Impl::WriteGroup(std::vector<Entry>::iterator first,
                                      std::vector<Entry>::iterator last, BulkFile* file) {
  SortGroupIfNeeded(first, last);
  file->cf = first->op->cf;
  file->path =
      bulk_dir + "/" + std::to_string(bulk_runs) + "-" + std::to_string(first->group) + ".sst";
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), store->options, file->cf);
  FG_RETURN_IF_ERROR(FromRocks(writer.Open(file->path), "bulk load: " + file->path));
  for (auto e = first; e != last; ++e) {
    // Of several writes to one key the last counts (staged order).
    if (e + 1 != last && e[1].key == e->key) continue;
    const Op& op = *e->op;
    rocksdb::Status ws = op.del ? writer.Delete(op.key) : writer.Put(op.key, op.value);
    FG_RETURN_IF_ERROR(FromRocks(ws, "bulk load: " + file->path));
  }
  file->smallest.assign(first->key);
  file->largest.assign((last - 1)->key);
  return FromRocks(writer.Finish(), "bulk load: " + file->path);
}

Status Store::Batch::Impl::Spill() {
  if (ops.empty()) return Status::OK();
  if (bulk_dir.empty()) {
    bulk_dir = store->dir + "/" + kBulkDirPrefix + std::to_string(::getpid()) + "." +
               std::to_string(store->bulk_loads.fetch_add(1));
    std::error_code ec;
    std::filesystem::create_directories(bulk_dir, ec);
    if (ec) return Status::IOError("bulk load: cannot create " + bulk_dir + ": " + ec.message());
  }
  std::vector<Entry> order = Grouped();
  struct Group {
    std::vector<Entry>::iterator first, last;
    Status status;
  };
  std::vector<Group> groups;
  for (auto first = order.begin(); first != order.end();) {
    auto last = first;
    while (last != order.end() && last->group == first->group) ++last;
    groups.push_back({first, last, Status::OK()});
    first = last;
  }
  const std::size_t base = bulk_files.size();
  bulk_files.resize(base + groups.size());
  // Each group is sorted and written to its own file; two threads share the
  // groups, largest first (the run's end is otherwise serial: with one
  // repository importing, the other core would wait).
  std::vector<std::size_t> by_size(groups.size());
  for (std::size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](std::size_t a, std::size_t b) {
    return groups[a].last - groups[a].first > groups[b].last - groups[b].first;
  });
  // RocksDB's perf counters are per thread and read by nothing: off on each
  // worker, as for the threads that write batches (store.cc).
  ParallelFor(by_size.size(), HardwareThreads() > 1 ? 2 : 1, [&](std::size_t n, std::size_t) {
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    const std::size_t g = by_size[n];
    groups[g].status = WriteGroup(groups[g].first, groups[g].last, &bulk_files[base + g]);
  });
  for (const Group& g : groups) {
    if (!g.status.ok()) {
      bulk_files.resize(base);  // the folder (and what was written) goes with RemoveBulkFiles
      return g.status;
    }
  }
  ++bulk_runs;
  Clear();
  return Status::OK();
}

Status Store::Batch::Impl::WriteCountsFile() {
  CountDeltas::Map rows;
  FG_RETURN_IF_ERROR(CommitCounts(&rows));
  // A failed earlier attempt may have left one: a load's files are ingested once.
  if (!bulk_files.empty() && bulk_files.back().path == bulk_dir + "/counts.sst")
    bulk_files.pop_back();
  if (rows.empty()) return Status::OK();
  BulkFile file;
  file.cf = store->meta;
  file.path = bulk_dir + "/counts.sst";
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), store->options, file.cf);
  FG_RETURN_IF_ERROR(FromRocks(writer.Open(file.path), "bulk load: " + file.path));
  for (const auto& [repo, c] : rows) {  // repository order is key order: one prefix
    std::string key = CountsKey(repo);
    FG_RETURN_IF_ERROR(FromRocks(writer.Merge(key, EncodeCounts(c)), "bulk load: " + file.path));
    if (file.smallest.empty()) file.smallest = key;
    file.largest = key;
  }
  FG_RETURN_IF_ERROR(FromRocks(writer.Finish(), "bulk load: " + file.path));
  bulk_files.push_back(std::move(file));
  return Status::OK();
}

Status Store::Batch::Impl::SpilledGet(rocksdb::ColumnFamilyHandle* cf, std::string_view key,
                                      std::string* value, bool* found) {
  *found = false;
  for (auto f = bulk_files.rbegin(); f != bulk_files.rend(); ++f) {
    if (f->cf != cf || key < f->smallest || key > f->largest) continue;
    if (!f->it) {
      f->reader = std::make_unique<rocksdb::SstFileReader>(store->options);
      FG_RETURN_IF_ERROR(FromRocks(f->reader->Open(f->path), "bulk load: " + f->path));
      f->it.reset(f->reader->NewIterator(rocksdb::ReadOptions()));
    }
    f->it->Seek(rocksdb::Slice(key.data(), key.size()));
    FG_RETURN_IF_ERROR(FromRocks(f->it->status(), "bulk load: " + f->path));
    if (f->it->Valid() && f->it->key().ToStringView() == key) {
      value->assign(f->it->value().data(), f->it->value().size());
      *found = true;
      return Status::OK();
    }
  }
  return Status::OK();
}

Status Store::IngestBulkLoad(Batch* batch) {
  if (impl_->read_only) return Status::FailedPrecondition("store is open read-only");
  Batch::Impl& b = *batch->impl_;
  if (!b.bulk) return Status::FailedPrecondition("IngestBulkLoad: the batch is not bulk loading");
  FG_RETURN_IF_ERROR(b.Spill());
  // The count changes of the whole load go into the same ingestion, as one
  // more table file of merge operands (counted, for links shared with
  // another repository, against the store as it is when ingested).
  std::unique_lock<std::mutex> shared(impl_->shared_links_mu, std::defer_lock);
  if (!b.shared_links.empty()) shared.lock();
  if (b.bulk_files.empty()) {
    // Nothing was staged, so no count changed; should some have, they are
    // written as a plain batch would write them.
    rocksdb::WriteBatch wb;
    FG_RETURN_IF_ERROR(b.MergeCounts(&wb));
    if (wb.Count() > 0) {
      CrashPoint();
      FG_RETURN_IF_ERROR(FromRocks(impl_->db->Write(rocksdb::WriteOptions(), &wb), "commit"));
      CrashPoint();
    }
  } else {
    FG_RETURN_IF_ERROR(b.WriteCountsFile());
  }
  if (!b.bulk_files.empty()) {
    std::vector<rocksdb::IngestExternalFileArg> args;
    for (auto* cf : impl_->handles) {
      rocksdb::IngestExternalFileArg arg;
      arg.column_family = cf;
      arg.options.move_files = true;           // hard links: no copy
      arg.options.write_global_seqno = false;  // kept in the MANIFEST, the files stay unmodified
      for (Batch::Impl::BulkFile& f : b.bulk_files) {
        if (f.cf != cf) continue;
        f.it.reset();
        f.reader.reset();
        arg.external_files.push_back(f.path);
      }
      if (!arg.external_files.empty()) args.push_back(std::move(arg));
    }
    rocksdb::Status s;
    CrashPoint();
    try {
      s = impl_->db->IngestExternalFiles(args);
    } catch (const std::exception& e) {
      s = rocksdb::Status::IOError(e.what());
    }
    FG_RETURN_IF_ERROR(FromRocks(s, "bulk load: ingest"));
    CrashPoint();
  }
  if (shared.owns_lock()) shared.unlock();
  b.ClearCounts();
  b.RemoveBulkFiles();
  b.bulk = false;
  return Status::OK();
}

Status Store::Batch::StartBulkLoad(std::size_t run_bytes) {
  if (impl_->store->read_only) return Status::FailedPrecondition("store is open read-only");
  impl_->bulk = true;
  impl_->bulk_run_bytes = run_bytes == 0 ? Impl::kBulkRunBytes : run_bytes;
  return Status::OK();
}

void Store::Batch::AbortBulkLoad() {
  if (!impl_->bulk) return;
  impl_->Clear();
  impl_->ClearCounts();
  impl_->changed = 0;
  impl_->RemoveBulkFiles();
  impl_->bulk = false;
}

}  // namespace fixgraph
