// The record sinks of a dump import, private to ingest/ (dump.cc walks a
// repository folder and hands every mapped record to a RecordSink):
//
//   CountingSink         counts, writes nothing (the verify pass)
//   WritingSink          upserts into committed batches of bounded size, or
//                        bulk-loads a new repository (Store::Batch); not a
//                        RecordSink itself: the two below feed it
//   DirectWriteSink      writes each record on the walking thread
//   PipelineSink         writes on a second thread, records in walk order
//   CountingWritingSink  counts and writes in one pass
//
// A sink may take the contents of the record it is given (move from it); the
// walker maps into it afresh. Errors: the store's, as values; a write error
// stops the import (dump.h says how an import undoes itself).
//
// Thread safety: a sink is used by one walking thread; PipelineSink owns the
// one writer thread it starts and joins it in Close().
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/ingest/dump.h"
#include "fixgraph/ingest/json_reader.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

namespace fixgraph::ingest {

// Receives every record of a repository, in file order. A sink may take the
// contents of a record (move from it): the caller maps into it afresh.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual Status Repository(fixgraph::Repository& v, const JsonDoc* raw) = 0;
  virtual Status Issue(fixgraph::Issue& v, const JsonDoc* raw) = 0;
  virtual Status Pull(PullRequest& v, const JsonDoc* raw) = 0;
  virtual Status Comment(fixgraph::Comment& v, const JsonDoc* raw) = 0;
  virtual Status Commit(fixgraph::Commit& v, const JsonDoc* raw) = 0;
  virtual Status File(FileChange& v, const JsonDoc* raw) = 0;
  virtual Status OperateLog(OperateLogEvent& v, const JsonDoc* raw) = 0;
  virtual Status Link(PlatformLink& v) = 0;
};

// A sink that treats every record type alike: each hands the record to
// Derived::Take(T&, const JsonDoc*) (platform links have no payload: nullptr).
template <typename Derived>
class UniformSink : public RecordSink {
 public:
  Status Repository(fixgraph::Repository& v, const JsonDoc* raw) override {
    return Self().Take(v, raw);
  }
  Status Issue(fixgraph::Issue& v, const JsonDoc* raw) override { return Self().Take(v, raw); }
  Status Pull(PullRequest& v, const JsonDoc* raw) override { return Self().Take(v, raw); }
  Status Comment(fixgraph::Comment& v, const JsonDoc* raw) override { return Self().Take(v, raw); }
  Status Commit(fixgraph::Commit& v, const JsonDoc* raw) override { return Self().Take(v, raw); }
  Status File(FileChange& v, const JsonDoc* raw) override { return Self().Take(v, raw); }
  Status OperateLog(OperateLogEvent& v, const JsonDoc* raw) override { return Self().Take(v, raw); }
  Status Link(PlatformLink& v) override { return Self().Take(v, nullptr); }

 private:
  Derived& Self() { return static_cast<Derived&>(*this); }
};

// Verify pass: maps everything, writes nothing, counts.
class CountingSink final : public RecordSink {
 public:
  explicit CountingSink(ImportCounts* c) : c_(c) {}
  Status Repository(fixgraph::Repository&, const JsonDoc*) override { return Status::OK(); }
  Status Issue(fixgraph::Issue&, const JsonDoc*) override { return Bump(&c_->issues); }
  Status Pull(PullRequest&, const JsonDoc*) override { return Bump(&c_->pulls); }
  Status Comment(fixgraph::Comment&, const JsonDoc*) override { return Bump(&c_->comments); }
  Status Commit(fixgraph::Commit&, const JsonDoc*) override { return Bump(&c_->commits); }
  Status File(FileChange&, const JsonDoc*) override { return Bump(&c_->files); }
  Status OperateLog(OperateLogEvent&, const JsonDoc*) override { return Bump(&c_->operate_logs); }
  Status Link(PlatformLink&) override { return Bump(&c_->platform_links); }

 private:
  static Status Bump(std::int64_t* n) {
    ++*n;
    return Status::OK();
  }
  ImportCounts* c_;
};

// The payload as stored: compact JSON as nlohmann's dump() writes it (what
// sync stores, so the two compare equal), made from the bytes read when they
// allow it. False (and `out` empty) for a record made up here (no document).
bool MakeRaw(const JsonDoc* doc, std::string* out);

// Item folders listed and walked by the one pass over a new repository
// (ImportProgress::items_*): the walker counts, the writer reports (in the
// pipeline they are different threads).
struct WalkCount {
  std::atomic<std::int64_t> done{0};
  std::atomic<std::int64_t> total{0};
};

// Write pass: upserts into batches of bounded size.
class WritingSink final {
 public:
  WritingSink(Store* store, const DumpRepo& repo, const ImportOptions& options,
              ImportProgress progress)
      : store_(store),
        repo_(repo),
        options_(options),
        progress_(progress),
        batch_(store->NewBatch()) {}

  // The marker is logged before any record is written, records are written
  // unlogged, and the marker is removed, logged, only after the records are
  // in table files. A crash anywhere leaves the marker.
  // Importing a repository the store does not hold yet: upserts need not read.
  Status Prepare() { return batch_->ExpectNewRepository(repo_.repo); }

  // After Begin, for a new repository: the records go into table files that
  // Finish adds to the store in one step (Store::IngestBulkLoad): no
  // memtable, log or flush, and until then the store holds none of them.
  Status StartBulkLoad() {
    FG_RETURN_IF_ERROR(batch_->StartBulkLoad(options_.bulk_run_bytes));
    bulk_ = true;
    return Status::OK();
  }

  Status Begin();
  // True when the store held no record of the repository at Prepare.
  bool new_repository() const { return batch_->ExpectsNewRepository(); }

  // Platform links are kept back until Finish (DeleteRepositoryRecords cannot
  // undo them: one may join an item of another repository). Memory: one
  // PlatformLink per link of the repository.
  void DeferLinks() { defer_links_ = true; }

  Status Finish();

  // After a failed walk of a new repository with deferred links: removes what
  // was written, so the store is as before Begin, marker included.
  Status Undo();
  std::int64_t changed() const { return changed_; }
  std::vector<Ref> touched() const { return batch_->TouchedItems(); }
  const ImportProgress& progress() const { return progress_; }
  void SetTotal(std::int64_t total) { progress_.records_total = total; }
  void CountItems(const WalkCount* items) { items_ = items; }
  void ReportTotal(std::int64_t total) {
    progress_.records_total = total;
    progress_.items_done = progress_.items_total;
    if (options_.on_progress) options_.on_progress(progress_);
  }

  // One record with its raw payload (empty: none).
  Status Put(const fixgraph::Repository& v, std::string_view raw) {
    return Done(batch_->PutRepository(v, raw));
  }
  Status Put(const fixgraph::Issue& v, std::string_view raw) {
    return Done(batch_->PutIssue(v, raw));
  }
  Status Put(const PullRequest& v, std::string_view raw) { return Done(batch_->PutPull(v, raw)); }
  Status Put(const fixgraph::Comment& v, std::string_view raw) {
    return Done(batch_->PutComment(v, raw));
  }
  Status Put(const fixgraph::Commit& v, std::string_view raw) {
    return Done(batch_->PutCommit(v, raw));
  }
  Status Put(const FileChange& v, std::string_view raw) { return Done(batch_->PutFile(v, raw)); }
  Status Put(const OperateLogEvent& v, std::string_view raw) {
    return Done(batch_->PutOperateLog(v, raw));
  }
  Status Put(const PlatformLink& v, std::string_view) {
    if (defer_links_) {
      links_.push_back(v);
      return Status::OK();
    }
    return Done(batch_->PutPlatformLink(v));
  }

 private:
  Status Done(const Status& s) {
    FG_RETURN_IF_ERROR(s);
    ++progress_.records_done;
    if (++pending_ >= options_.batch_records) return Flush();
    return Status::OK();
  }
  Status Flush();

  Store* store_;
  const DumpRepo& repo_;
  const ImportOptions& options_;
  ImportProgress progress_;
  const WalkCount* items_ = nullptr;
  std::unique_ptr<Store::Batch> batch_;
  bool defer_links_ = false;
  bool bulk_ = false;                // StartBulkLoad, until Finish or Undo
  std::vector<PlatformLink> links_;  // kept back by DeferLinks
  size_t pending_ = 0;
  size_t batches_ = 0;
  std::int64_t changed_ = 0;
};

// Writes each record on the calling thread.
class DirectWriteSink final : public UniformSink<DirectWriteSink> {
 public:
  explicit DirectWriteSink(WritingSink* write) : write_(write) {}

 private:
  friend class UniformSink<DirectWriteSink>;
  template <typename T>
  Status Take(const T& v, const JsonDoc* doc) {
    bool has = MakeRaw(doc, &raw_);
    return write_->Put(v, has ? std::string_view(raw_) : std::string_view());
  }
  WritingSink* write_;
  std::string raw_;  // scratch
};

// Writes on a second thread: the walking thread reads, parses and maps, makes
// the raw payload and moves record and payload into a slot; the writer thread
// encodes and stages them and commits the batches (Store::Batch, Store::Write).
// Slots travel in blocks through a bounded queue and are reused (their strings
// keep their buffers, large ones excepted), so memory stays flat: at most
// kBlocks * kBlockSlots records are in flight. Records reach the writer in
// walk order.
//
// Errors: a failed write stops the writer; the walker's next record returns
// that error. When the walk fails, Close() still lets the writer commit what
// was queued before the failure, as a single thread would have, and then the
// caller undoes the import.
class PipelineSink final : public UniformSink<PipelineSink> {
 public:
  explicit PipelineSink(WritingSink* write);
  ~PipelineSink() override { (void)Close(); }

  // Sends the last block, waits for the writer; its status.
  Status Close();

 private:
  friend class UniformSink<PipelineSink>;
  static constexpr size_t kBlockSlots = 128;
  static constexpr size_t kBlocks = 8;
  // A slot that held a payload larger than this gives its buffers back, so
  // that the reused slots keep at most about kBlocks * kBlockSlots * 2 * kKeep
  // bytes (32 MiB) whatever the records' sizes.
  static constexpr size_t kKeep = size_t{16} * 1024;
  struct Slot {
    std::variant<std::monostate, fixgraph::Repository, fixgraph::Issue, PullRequest,
                 fixgraph::Comment, fixgraph::Commit, FileChange, OperateLogEvent, PlatformLink>
        record;
    std::string raw;
    bool has_raw = false;
  };
  struct Block {
    std::array<Slot, kBlockSlots> slots;
    size_t count = 0;
  };

  // Moves the record and its payload into the next slot.
  template <typename T>
  Status Take(T& v, const JsonDoc* doc) {
    if (fill_ == nullptr) {
      std::unique_lock<std::mutex> lock(mu_);
      free_cv_.wait(lock, [this] { return !free_.empty() || failed_; });
      if (failed_) return writer_status_;
      fill_ = free_.front();
      free_.pop_front();
      fill_->count = 0;
    }
    Slot& slot = fill_->slots[fill_->count++];
    slot.has_raw = MakeRaw(doc, &slot.raw);
    if (auto* held = std::get_if<T>(&slot.record)) {
      using std::swap;
      swap(*held, v);  // v gets an earlier record's buffers; the mapper resets it
    } else {
      slot.record.template emplace<T>(std::move(v));
    }
    if (fill_->count == kBlockSlots) Send();
    return Status::OK();
  }

  void Send();  // hands the filled block to the writer thread
  Status WriterStatus();
  void Run();  // the writer thread

  WritingSink* write_;
  std::vector<Block> blocks_ = std::vector<Block>(kBlocks);  // on the heap
  Block* fill_ = nullptr;                                    // walker side: the block being filled
  std::mutex mu_;                                            // guards the members below
  std::condition_variable full_cv_;
  std::condition_variable free_cv_;
  std::deque<Block*> full_;
  std::deque<Block*> free_;
  bool closed_ = false;
  bool failed_ = false;
  Status writer_status_;
  std::thread thread_;  // last: started after everything above exists
};

// Single pass: counts and writes (each record to the counter, then the writer).
class CountingWritingSink final : public RecordSink {
 public:
  CountingWritingSink(CountingSink* count, RecordSink* write) : count_(count), write_(write) {}
  Status Repository(fixgraph::Repository& v, const JsonDoc* raw) override {
    return Both(&RecordSink::Repository, v, raw);
  }
  Status Issue(fixgraph::Issue& v, const JsonDoc* raw) override {
    return Both(&RecordSink::Issue, v, raw);
  }
  Status Pull(PullRequest& v, const JsonDoc* raw) override {
    return Both(&RecordSink::Pull, v, raw);
  }
  Status Comment(fixgraph::Comment& v, const JsonDoc* raw) override {
    return Both(&RecordSink::Comment, v, raw);
  }
  Status Commit(fixgraph::Commit& v, const JsonDoc* raw) override {
    return Both(&RecordSink::Commit, v, raw);
  }
  Status File(FileChange& v, const JsonDoc* raw) override {
    return Both(&RecordSink::File, v, raw);
  }
  Status OperateLog(OperateLogEvent& v, const JsonDoc* raw) override {
    return Both(&RecordSink::OperateLog, v, raw);
  }
  Status Link(PlatformLink& v) override {
    FG_RETURN_IF_ERROR(count_->Link(v));
    return write_->Link(v);
  }

 private:
  template <typename T>
  Status Both(Status (RecordSink::*sink)(T&, const JsonDoc*), T& v, const JsonDoc* raw) {
    FG_RETURN_IF_ERROR((count_->*sink)(v, raw));
    return (write_->*sink)(v, raw);
  }

  RecordSink* count_;
  RecordSink* write_;
};

}  // namespace fixgraph::ingest
