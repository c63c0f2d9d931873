#include "fixgraph/ingest/dump.h"

#include "fixgraph/engine/parallel.h"
#include "fixgraph/ingest/json_array_file.h"
#include "fixgraph/ingest/json_reader.h"
#include "fixgraph/ingest/mapper.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>
#include <variant>

namespace fixgraph::ingest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kMarkerPrefix = "import_in_progress";

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
bool MakeRaw(const JsonDoc* doc, std::string* out) {
  out->clear();
  if (doc == nullptr) return false;
  if (!doc->WriteDump(out)) {
    std::string_view span = doc->root().raw();
    *out = json::parse(span.begin(), span.end()).dump();  // validated already
  }
  return true;
}

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

  Status Begin() {
    FG_RETURN_IF_ERROR(batch_->PutMeta(ImportMarkerKey(repo_.repo), "1"));
    return store_->Write(batch_.get(), Store::Durability::kLogged);
  }
  // True when the store held no record of the repository at Prepare.
  bool new_repository() const { return batch_->ExpectsNewRepository(); }

  // Platform links are kept back until Finish (DeleteRepositoryRecords cannot
  // undo them: one may join an item of another repository). Memory: one
  // PlatformLink per link of the repository.
  void DeferLinks() { defer_links_ = true; }

  Status Finish() {
    for (const PlatformLink& link : links_) FG_RETURN_IF_ERROR(Done(batch_->PutPlatformLink(link)));
    links_.clear();
    FG_RETURN_IF_ERROR(Flush());
    if (bulk_) {
      FG_RETURN_IF_ERROR(
          store_->IngestBulkLoad(batch_.get()).WithContext("import " + repo_.repo.ToString()));
      bulk_ = false;
    } else {
      FG_RETURN_IF_ERROR(store_->Flush());
    }
    FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
    return store_->Write(batch_.get(), Store::Durability::kLogged);
  }

  // After a failed walk of a new repository with deferred links: removes what
  // was written, so the store is as before Begin, marker included.
  Status Undo() {
    if (bulk_) {  // nothing reached the store
      batch_->AbortBulkLoad();
      bulk_ = false;
      FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
      return store_->Write(batch_.get(), Store::Durability::kLogged);
    }
    FG_RETURN_IF_ERROR(store_->Write(batch_.get(), Store::Durability::kUnlogged));
    FG_RETURN_IF_ERROR(store_->DeleteRepositoryRecords(repo_.repo, Store::Durability::kUnlogged));
    FG_RETURN_IF_ERROR(store_->Flush());
    FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
    return store_->Write(batch_.get(), Store::Durability::kLogged);
  }
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
  Status Done(Status s) {
    FG_RETURN_IF_ERROR(s);
    ++progress_.records_done;
    if (++pending_ >= options_.batch_records) return Flush();
    return Status::OK();
  }
  Status Flush() {
    changed_ += batch_->changed();
    FG_RETURN_IF_ERROR(store_->Write(batch_.get(), Store::Durability::kUnlogged)
                           .WithContext("import " + repo_.repo.ToString()));
    pending_ = 0;
    ++batches_;
    if (options_.on_progress) {
      if (items_ != nullptr) {
        progress_.items_total = items_->total.load(std::memory_order_relaxed);
        progress_.items_done = items_->done.load(std::memory_order_relaxed);
      }
      options_.on_progress(progress_);
    }
    if (options_.after_batch) options_.after_batch(batches_);
    return Status::OK();
  }

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
  explicit PipelineSink(WritingSink* write) : write_(write) {
    for (auto& b : blocks_) free_.push_back(&b);
    thread_ = std::thread([this] { Run(); });
  }
  ~PipelineSink() override { (void)Close(); }

  // Sends the last block, waits for the writer; its status.
  Status Close() {
    if (!thread_.joinable()) return WriterStatus();
    if (fill_ != nullptr && fill_->count > 0) Send();
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    full_cv_.notify_one();
    thread_.join();
    return WriterStatus();
  }

 private:
  friend class UniformSink<PipelineSink>;
  static constexpr size_t kBlockSlots = 128;
  static constexpr size_t kBlocks = 8;
  // A slot that held a payload larger than this gives its buffers back, so
  // that the reused slots keep at most about kBlocks * kBlockSlots * 2 * kKeep
  // bytes (32 MiB) whatever the records' sizes.
  static constexpr size_t kKeep = 16 * 1024;
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

  void Send() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      full_.push_back(fill_);
    }
    fill_ = nullptr;
    full_cv_.notify_one();
  }

  Status WriterStatus() {
    std::lock_guard<std::mutex> lock(mu_);
    return writer_status_;
  }

  void Run() {
    for (;;) {
      Block* b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        full_cv_.wait(lock, [this] { return !full_.empty() || closed_; });
        if (full_.empty()) return;
        b = full_.front();
        full_.pop_front();
      }
      Status s;
      for (size_t i = 0; i < b->count && s.ok(); ++i) {
        Slot& slot = b->slots[i];
        std::string_view raw = slot.has_raw ? std::string_view(slot.raw) : std::string_view();
        s = std::visit(
            [&](const auto& r) -> Status {
              if constexpr (std::is_same_v<std::decay_t<decltype(r)>, std::monostate>) {
                return Status::OK();
              } else {
                return write_->Put(r, raw);
              }
            },
            slot.record);
        if (slot.raw.capacity() > kKeep) {  // its record is likely large too
          slot.raw = std::string();
          slot.record = std::monostate();
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(b);
        if (!s.ok()) {
          writer_status_ = s;
          failed_ = true;
        }
      }
      free_cv_.notify_one();
      if (!s.ok()) return;
    }
  }

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

std::vector<fs::path> SortedSubdirs(const fs::path& dir, std::error_code* ec) {
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, *ec), end; !*ec && it != end; it.increment(*ec)) {
    if (it->is_directory()) out.push_back(it->path());
  }
  // Siblings: comparing the strings orders them as comparing the paths does, faster.
  std::sort(out.begin(), out.end(),
            [](const fs::path& a, const fs::path& b) { return a.native() < b.native(); });
  return out;
}

// Reads a whole small JSON file (repo.json) into `text` and parses it.
Status ReadWholeJson(const std::string& path, std::string* text, JsonDoc* doc) {
  // O_NONBLOCK: a FIFO must not hang the import in open(); it is refused.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::IOError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + ": not a regular file");
  }
  text->clear();
  char buf[1 << 16];
  ssize_t got;
  while ((got = ::read(fd, buf, sizeof buf)) != 0) {
    if (got < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status::IOError(path + ": read error: " + std::strerror(err));
    }
    text->append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
  return doc->Parse(*text).WithContext(path);
}

// Whether the dump file `path` is there. A symbolic link whose target is
// missing is an error, not an absent file (that would import nothing from it
// and report success).
Status DumpFilePresent(const fs::path& path, bool* present) {
  std::error_code ec;
  fs::file_status st = fs::symlink_status(path, ec);
  *present = false;
  if (st.type() == fs::file_type::not_found) return Status::OK();
  if (ec) return Status::IOError(path.string() + ": " + ec.message());
  if (st.type() == fs::file_type::symlink && !fs::exists(path, ec))
    return Status::IOError(path.string() + ": symbolic link to a missing file");
  *present = true;
  return Status::OK();
}

// The files an item folder may hold, one bit each (ItemLayout).
constexpr const char* kItemFiles[] = {
    "comments.json", "operate_logs.json", "pull_requests.json",   "commits.json",
    "files.json",    "issues.json",       "related_branches.json"};

// Which of kItemFiles each item folder holds, in walk order: the verify pass
// lists every item folder and records it here, and the write pass that follows
// reads it instead of listing the folders again. Each entry keeps a hash of
// the folder's name, so that folders added or removed in between are noticed
// before a file of the wrong folder is skipped (8 bytes per item folder).
struct ItemLayout {
  struct Item {
    std::uint32_t name_hash;
    std::uint32_t files;  // kItemFiles bits
  };
  std::vector<Item> masks;
  bool recorded = false;  // set after a complete walk
  bool keep = true;       // false: a one-pass import records nothing
};

// Walks one repository folder, mapping every record into `sink`.
class RepoWalker {
 public:
  // With a recorded `layout` the item folders are not listed again; with an
  // unrecorded one they are listed and the layout is recorded.
  // `count`, when given, receives the number of item folders once both are
  // listed (before any record is read) and counts those walked.
  RepoWalker(const DumpRepo& repo, const Mapper& mapper, RecordSink* sink, ItemLayout* layout,
             WalkCount* count = nullptr)
      : repo_(repo),
        mapper_(mapper),
        sink_(sink),
        root_(repo.dir),
        layout_(layout),
        count_(count) {}

  Status Walk() {
    bool any = false;
    if (count_ != nullptr) {
      // Listed before any record is read, so the count is known early. (The
      // two passes of a re-import list them when they reach them: the write
      // pass then also sees a folder added after the verify pass's listing.)
      FG_RETURN_IF_ERROR(ListItems("issues", &issue_items_));
      FG_RETURN_IF_ERROR(ListItems("pulls", &pull_items_));
      listed_ = true;
      count_->total.store(static_cast<std::int64_t>(issue_items_.size() + pull_items_.size()),
                          std::memory_order_relaxed);
    }
    fs::path repo_file = root_ / "repo.json";
    bool has_repo_file = false;
    FG_RETURN_IF_ERROR(DumpFilePresent(repo_file, &has_repo_file));
    if (has_repo_file) {
      any = true;
      std::string text;
      JsonDoc doc;
      FG_RETURN_IF_ERROR(ReadWholeJson(repo_file.string(), &text, &doc));
      fixgraph::Repository r;
      FG_RETURN_IF_ERROR(mapper_.Map(doc.root(), repo_.repo, &r).WithContext(repo_file.string()));
      FG_RETURN_IF_ERROR(sink_->Repository(r, &doc));
    } else {
      fixgraph::Repository r;
      r.ref = repo_.repo;
      r.full_name = repo_.repo.FullName();
      r.html_url = WebUrl(Ref::Repo(repo_.repo));
      FG_RETURN_IF_ERROR(sink_->Repository(r, nullptr));
    }
    fs::path issues = root_ / "issues.json";
    bool has_issues = false;
    FG_RETURN_IF_ERROR(DumpFilePresent(issues, &has_issues));
    if (has_issues) {
      any = true;
      pending_close_.clear();
      FG_RETURN_IF_ERROR(file_.ForEach(issues.string(), [&](const JsonDoc& d, size_t) -> Status {
        if (mapper_.IsPullInList(d.root())) return Status::OK();
        FG_RETURN_IF_ERROR(mapper_.Map(d.root(), repo_.repo, &issue_));
        // Closed without a close time (GitCode: rejected, or closed by a
        // custom state): its operate log may have one; written after it.
        if (issue_.state == IssueState::kClosed && !issue_.closed_at &&
            repo_.repo.platform != Platform::kGitHub) {
          std::string raw(d.root().raw());
          pending_close_[issue_.number] = std::move(raw);
          return Status::OK();
        }
        return sink_->Issue(issue_, &d);
      }));
    }
    fs::path pulls = root_ / "pulls.json";
    bool has_pulls = false;
    FG_RETURN_IF_ERROR(DumpFilePresent(pulls, &has_pulls));
    if (has_pulls) {
      any = true;
      FG_RETURN_IF_ERROR(file_.ForEach(pulls.string(), [&](const JsonDoc& d, size_t) -> Status {
        FG_RETURN_IF_ERROR(mapper_.Map(d.root(), repo_.repo, &pull_));
        return sink_->Pull(pull_, &d);
      }));
    }
    if (!any)
      return Status::InvalidArgument(root_.string() +
                                     ": not a repository folder (no repo.json, issues.json or "
                                     "pulls.json)");
    replay_ = layout_->recorded;
    if (!replay_) layout_->masks.clear();
    item_index_ = 0;
    FG_RETURN_IF_ERROR(WalkItems("issues", issue_items_, RefKind::kIssue));
    // Closed issues whose folder had no operate log: as they came.
    for (auto& [number, raw] : pending_close_) FG_RETURN_IF_ERROR(SinkPendingIssue(raw, OptTime()));
    pending_close_.clear();
    FG_RETURN_IF_ERROR(WalkItems("pulls", pull_items_, RefKind::kPull));
    if (replay_ && item_index_ != layout_->masks.size())
      return Status::FailedPrecondition(root_.string() +
                                        ": item folders changed during the import");
    layout_->recorded = true;
    return Status::OK();
  }

 private:
  // Maps a deferred issue again and writes it, with `closed_at` when set.
  Status SinkPendingIssue(const std::string& raw, OptTime closed_at) {
    JsonDoc doc;
    FG_RETURN_IF_ERROR(doc.Parse(raw));
    FG_RETURN_IF_ERROR(mapper_.Map(doc.root(), repo_.repo, &issue_));
    if (closed_at) issue_.closed_at = closed_at;
    return sink_->Issue(issue_, &doc);
  }

  // The item folders of `folder` ("issues" or "pulls"), sorted; none when
  // the folder is absent.
  Status ListItems(const char* folder, std::vector<fs::path>* items) {
    items->clear();
    fs::path dir = root_ / folder;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status::OK();
    *items = SortedSubdirs(dir, &ec);
    if (ec) return Status::IOError(dir.string() + ": " + ec.message());
    return Status::OK();
  }

  Status WalkItems(const char* folder, std::vector<fs::path>& items, RefKind kind) {
    if (!listed_) FG_RETURN_IF_ERROR(ListItems(folder, &items));
    if (items.empty()) return Status::OK();
    fs::path dir = root_ / folder;
    // Item folders are opened relative to this one (no walk of the whole path).
    int parent_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0) return Status::IOError(dir.string() + ": " + std::strerror(errno));
    items_fd_ = parent_fd;
    struct FdCloser {
      int* fd;
      ~FdCloser() {
        ::close(*fd);
        *fd = -1;
      }
    } close_parent{&items_fd_};
    for (const fs::path& item : items) {
      std::string number = item.filename().string();
      bool valid = kind == RefKind::kIssue ? IsValidIssueNumber(number) : IsDecimal(number);
      if (!valid)
        return Status::InvalidArgument(
            item.string() + ": folder name is not " +
            (kind == RefKind::kIssue ? "an issue number" : "a pull request number"));
      Ref parent = kind == RefKind::kIssue ? Ref::Issue(repo_.repo, number)
                                           : Ref::Pull(repo_.repo, std::stoll(number));
      FG_RETURN_IF_ERROR(WalkItem(item, parent));
      if (count_ != nullptr) count_->done.fetch_add(1, std::memory_order_relaxed);
    }
    return Status::OK();
  }

  // Calls fn for each element of item/<kItemFiles[file]> when the item folder has that file.
  template <typename Fn>
  Status EachIn(const fs::path& item, int file, Fn fn) {
    if ((present_ & (1u << file)) == 0) return Status::OK();
    path_ = item.native();
    path_ += fs::path::preferred_separator;
    path_ += kItemFiles[file];
    return file_.ForEachAt(dir_fd_, kItemFiles[file], path_,
                           [&](const JsonDoc& d, size_t) -> Status { return fn(d); });
  }

  // The item folder listed by WalkItem, kept open while its files are read
  // (openat relative to it); closed when WalkItem returns.
  struct OpenDir {
    int* fd;
    explicit OpenDir(int* fd_out) : fd(fd_out) { *fd = -1; }
    ~OpenDir() {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  };

  Status WalkItem(const fs::path& item, const Ref& parent) {
    OpenDir open_dir(&dir_fd_);
    size_t index = item_index_++;
    auto name_hash = static_cast<std::uint32_t>(std::hash<std::string>()(item.native()));
    if (replay_) {
      if (index >= layout_->masks.size() || layout_->masks[index].name_hash != name_hash)
        return Status::FailedPrecondition(item.string() +
                                          ": item folders changed during the import");
      present_ = layout_->masks[index].files;
    } else {
      // One listing per item folder instead of a stat per possible file; the
      // folder stays open and its files are opened relative to it.
      present_ = 0;
      const std::string& item_path = item.native();
      int fd = ::openat(items_fd_, item_path.c_str() + item_path.rfind('/') + 1,
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return Status::IOError(item.string() + ": " + std::strerror(errno));
      dir_fd_ = fd;  // closed by open_dir
      // Listed with getdents64 itself: fdopendir would add an fstat and an
      // fcntl per item folder.
      alignas(8) char entries[4096];
      for (;;) {
        ssize_t got = ::getdents64(fd, entries, sizeof entries);
        if (got < 0) return Status::IOError(item.string() + ": " + std::strerror(errno));
        if (got == 0) break;
        for (ssize_t at = 0; at < got;) {
          const auto* e = reinterpret_cast<const struct dirent64*>(entries + at);
          std::string_view file(e->d_name);
          for (int f = 0; f < static_cast<int>(std::size(kItemFiles)); ++f)
            if (file == kItemFiles[f]) present_ |= 1u << f;
          at += e->d_reclen;
        }
      }
      if (layout_->keep) layout_->masks.push_back({name_hash, present_});
    }
    FG_RETURN_IF_ERROR(EachIn(item, 0, [&](const JsonDoc& d) -> Status {
      FG_RETURN_IF_ERROR(mapper_.Map(d.root(), parent, &comment_));
      // Nested replies (GitCode PR comments' reply[]) become comments too.
      FG_RETURN_IF_ERROR(mapper_.MapReplies(d.root(), comment_, parent, &replies_));
      FG_RETURN_IF_ERROR(sink_->Comment(comment_, &d));
      for (fixgraph::Comment& r : replies_) FG_RETURN_IF_ERROR(sink_->Comment(r, nullptr));
      return Status::OK();
    }));
    events_.clear();
    FG_RETURN_IF_ERROR(EachIn(item, 1, [&](const JsonDoc& d) -> Status {
      FG_RETURN_IF_ERROR(mapper_.Map(d.root(), parent, &event_));
      events_.push_back(event_);  // before the sink takes event_
      return sink_->OperateLog(event_, &d);
    }));
    // Link and unlink events, applied in time order.
    for (PlatformLink& link : LinksFromOperateLog(events_)) FG_RETURN_IF_ERROR(sink_->Link(link));
    if (parent.kind == RefKind::kIssue) {
      if (auto p = pending_close_.find(parent.number); p != pending_close_.end()) {
        FG_RETURN_IF_ERROR(SinkPendingIssue(p->second, CloseTimeFromOperateLog(events_)));
        pending_close_.erase(p);
      }
      if ((present_ & (1u << 6)) != 0) {  // related_branches.json: names, one document
        std::string text;
        JsonDoc doc;
        FG_RETURN_IF_ERROR(ReadWholeJson((item / kItemFiles[6]).string(), &text, &doc));
        std::vector<OperateLogEvent> branches;
        FG_RETURN_IF_ERROR(RelatedBranchEvents(doc.root(), parent, &branches)
                               .WithContext((item / kItemFiles[6]).string()));
        for (OperateLogEvent& e : branches) FG_RETURN_IF_ERROR(sink_->OperateLog(e, nullptr));
      }
      if ((present_ & (1u << 2)) == 0) return Status::OK();
      // pull_requests.json: an array, or (as some docs show it) one object.
      std::string text;
      JsonDoc doc;
      std::string path = (item / kItemFiles[2]).string();
      FG_RETURN_IF_ERROR(ReadWholeJson(path, &text, &doc));
      auto one = [&](const JsonValue& v) -> Status {
        Ref pull;
        FG_RETURN_IF_ERROR(mapper_.LinkedPull(v, repo_.repo, &pull).WithContext(path));
        link_ = PlatformLink{parent, pull, "issue_pull_requests"};
        return sink_->Link(link_);
      };
      if (!doc.root().is_array()) return one(doc.root());
      Status s;
      doc.root().ForEachElement([&](const JsonValue& v) {
        if (s.ok()) s = one(v);
      });
      return s;
    }
    FG_RETURN_IF_ERROR(EachIn(item, 3, [&](const JsonDoc& d) -> Status {
      FG_RETURN_IF_ERROR(mapper_.Map(d.root(), parent, &commit_));
      return sink_->Commit(commit_, &d);
    }));
    FG_RETURN_IF_ERROR(EachIn(item, 4, [&](const JsonDoc& d) -> Status {
      FG_RETURN_IF_ERROR(mapper_.Map(d.root(), parent, &file_change_));
      return sink_->File(file_change_, &d);
    }));
    return EachIn(item, 5, [&](const JsonDoc& d) -> Status {
      Ref issue;
      FG_RETURN_IF_ERROR(mapper_.LinkedIssue(d.root(), repo_.repo, &issue));
      link_ = PlatformLink{issue, parent, "pull_issues"};
      return sink_->Link(link_);
    });
  }

  const DumpRepo& repo_;
  const Mapper& mapper_;
  RecordSink* sink_;
  fs::path root_;
  ItemLayout* layout_;
  bool replay_ = false;    // layout_ was recorded by an earlier walk
  size_t item_index_ = 0;  // item folders walked so far
  unsigned present_ = 0;   // kItemFiles bits of the item folder being walked
  std::string path_;       // scratch for EachIn
  int dir_fd_ = -1;        // the item folder being walked, when open (OpenDir)
  int items_fd_ = -1;      // the folder of the item folders (WalkItems)
  WalkCount* count_ = nullptr;
  std::vector<fs::path> issue_items_, pull_items_;
  bool listed_ = false;  // both listed at the start of Walk (count_ given)
  JsonArrayFile file_;   // reused: its buffers stay allocated
  // Reused records (the mappers reset them).
  fixgraph::Issue issue_;
  PullRequest pull_;
  fixgraph::Comment comment_;
  OperateLogEvent event_;
  fixgraph::Commit commit_;
  FileChange file_change_;
  PlatformLink link_;
  std::vector<fixgraph::Comment> replies_;
  std::vector<OperateLogEvent> events_;  // the item's operate log
  // Closed issues without a close time, by number: their payloads, written
  // once their operate log is read.
  std::map<std::string, std::string> pending_close_;
};

}  // namespace

void RecordCounts::AddRecords(const RecordCounts& o) {
  repos += o.repos;
  issues += o.issues;
  pulls += o.pulls;
  comments += o.comments;
  commits += o.commits;
  files += o.files;
  operate_logs += o.operate_logs;
  platform_links += o.platform_links;
  changed += o.changed;
  touched.insert(touched.end(), o.touched.begin(), o.touched.end());
}

nlohmann::json ToJson(const RecordCounts& c) {
  return {{"repos", c.repos},
          {"issues", c.issues},
          {"pulls", c.pulls},
          {"comments", c.comments},
          {"commits", c.commits},
          {"files", c.files},
          {"operate_logs", c.operate_logs},
          {"platform_links", c.platform_links},
          {"changed", c.changed}};
}

std::string ImportMarkerKey(const RepoRef& repo) {
  return std::string(kMarkerPrefix) + '\0' + repo.ToString();
}

Status InterruptedImports(const Store& store, std::vector<std::string>* repos) {
  std::map<std::string, std::string> rows;
  FG_RETURN_IF_ERROR(store.ListMeta(std::string(kMarkerPrefix) + '\0', &rows));
  for (const auto& [key, value] : rows) repos->push_back(key.substr(key.find('\0') + 1));
  return Status::OK();
}

namespace {

// Quotes a folder name for an error message: control characters (a newline)
// as \xNN, so that the message stays on one line.
std::string QuotedName(const std::string& name) {
  std::string out = "\"";
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// The repositories of a dump; a folder whose name cannot be an OWNER or REPO
// goes to `refused` (one error each) instead of stopping the listing.
StatusOr<std::vector<DumpRepo>> ListRepositoryFolders(const std::string& dump_dir,
                                                      std::vector<Status>* refused) {
  std::error_code ec;
  fs::path root(dump_dir);
  if (!fs::exists(root, ec)) return Status::IOError(dump_dir + ": no such file or directory");
  if (!fs::is_directory(root, ec)) return Status::InvalidArgument(dump_dir + ": not a directory");
  std::vector<DumpRepo> out;
  std::vector<fs::path> platforms = SortedSubdirs(root, &ec);
  if (ec) return Status::IOError(dump_dir + ": " + ec.message());
  for (const fs::path& pdir : platforms) {
    std::string pname = pdir.filename().string();
    if (!pname.empty() && pname[0] == '.') continue;  // .git and friends
    auto platform = ParsePlatform(pname);
    if (!platform.ok())
      return Status::InvalidArgument(pdir.string() + ": unknown platform folder \"" + pname +
                                     "\" (expected gitcode, gitee or github)");
    for (const fs::path& odir : SortedSubdirs(pdir, &ec)) {
      for (const fs::path& rdir : SortedSubdirs(odir, &ec)) {
        DumpRepo r;
        r.repo.platform = *platform;
        r.repo.owner = odir.filename().string();
        r.repo.name = rdir.filename().string();
        if (!IsValidRepoSegment(r.repo.owner) || !IsValidRepoSegment(r.repo.name)) {
          refused->push_back(Status::InvalidArgument(
              pdir.string() + "/" + QuotedName(r.repo.owner) + "/" + QuotedName(r.repo.name) +
              ": not a valid OWNER/REPO folder (names hold only letters, digits, '.', '-' and "
              "'_'); not imported"));
          continue;
        }
        r.dir = rdir.string();
        out.push_back(std::move(r));
      }
      if (ec) return Status::IOError(odir.string() + ": " + ec.message());
    }
    if (ec) return Status::IOError(pdir.string() + ": " + ec.message());
  }
  if (out.empty() && !refused->empty()) return refused->front();
  if (out.empty())
    return Status::InvalidArgument(dump_dir +
                                   ": no repositories found (expected "
                                   "<platform>/<owner>/<repo>/ folders)");
  std::sort(out.begin(), out.end(),
            [](const DumpRepo& a, const DumpRepo& b) { return a.repo < b.repo; });
  return out;
}

}  // namespace

StatusOr<std::vector<DumpRepo>> ListDumpRepositories(const std::string& dump_dir) {
  std::vector<Status> refused;
  FG_ASSIGN_OR_RETURN(std::vector<DumpRepo> repos, ListRepositoryFolders(dump_dir, &refused));
  if (!refused.empty()) return refused.front();
  return repos;
}

Status ImportRepository(Store* store, const DumpRepo& repo, const ImportOptions& options,
                        ImportCounts* counts) {
  MapperOptions mo;
  mo.naive_utc_offset_minutes = options.naive_utc_offset_minutes;
  std::unique_ptr<Mapper> mapper = NewMapper(repo.repo.platform, mo);
  ImportCounts c;
  c.repos = 1;
  ItemLayout layout;
  ImportProgress progress;
  progress.repo = &repo;
  WalkCount items;  // outlives the writer, which reads it
  WritingSink writer(store, repo, options, progress);
  FG_RETURN_IF_ERROR(writer.Prepare());
  if (writer.new_repository()) {
    FG_RETURN_IF_ERROR(writer.Begin());
    // A repository the store does not hold: one pass that reads, maps and
    // bulk-loads; on bad input nothing is ingested (Undo drops the files and
    // the marker), which leaves the store as it was.
    FG_RETURN_IF_ERROR(writer.StartBulkLoad());
    writer.DeferLinks();
    layout.keep = false;
    CountingSink count(&c);
    writer.CountItems(&items);
    Status s;
    bool pipeline = options.pipeline == ImportOptions::Pipeline::kOn ||
                    (options.pipeline == ImportOptions::Pipeline::kAuto && HardwareThreads() >= 2);
    if (pipeline) {
      // Writing on a second thread; Close() returns when all is committed.
      PipelineSink pipe(&writer);
      CountingWritingSink both(&count, &pipe);
      s = RepoWalker(repo, *mapper, &both, &layout, &items).Walk();
      Status w = pipe.Close();
      if (s.ok()) s = w;
    } else {
      DirectWriteSink direct(&writer);
      CountingWritingSink both(&count, &direct);
      s = RepoWalker(repo, *mapper, &both, &layout, &items).Walk();
    }
    if (!s.ok()) {
      Status undo = writer.Undo();
      if (!undo.ok())  // the marker stays: the store shows an interrupted import
        return Status::IOError(std::string(s.message()) +
                               "; undoing the partial import failed: " + undo.ToString());
      return s;
    }
  } else {
    // Records of the repository exist: verify everything first, then write,
    // so that bad input changes none of them.
    {
      CountingSink verify(&c);
      FG_RETURN_IF_ERROR(RepoWalker(repo, *mapper, &verify, &layout).Walk());
    }
    writer.SetTotal(c.records());
    FG_RETURN_IF_ERROR(writer.Begin());
    DirectWriteSink direct(&writer);
    FG_RETURN_IF_ERROR(RepoWalker(repo, *mapper, &direct, &layout).Walk());
  }
  FG_RETURN_IF_ERROR(writer.Finish());
  // The single pass knows its total only now.
  if (writer.progress().records_total != c.records()) writer.ReportTotal(c.records());
  c.changed = writer.changed();
  c.touched = writer.touched();
  if (counts) counts->Add(c);
  return Status::OK();
}

Status ApplyOperateLogUnlinks(Store* store, const RepoRef* repo, std::vector<Ref>* touched) {
  std::vector<OperateLogEvent> events;
  FG_RETURN_IF_ERROR(store->ForEachOperateLog(repo, [&](OperateLogEvent& e) {
    if (LinkFromOperateLog(e)) events.push_back(std::move(e));
    return true;
  }));
  std::vector<PlatformLink> gone = UnlinkedByOperateLog(std::move(events));
  if (gone.empty()) return Status::OK();
  auto batch = store->NewBatch();
  for (PlatformLink& link : gone) {
    link.source = "operate_log";
    FG_RETURN_IF_ERROR(batch->DeletePlatformLink(link));
  }
  if (touched) {
    for (const Ref& r : batch->TouchedItems())
      if (std::find(touched->begin(), touched->end(), r) == touched->end()) touched->push_back(r);
  }
  return store->Write(batch.get());
}

Status ImportDump(Store* store, const std::string& dump_dir, const ImportOptions& options,
                  ImportCounts* counts) {
  // A folder with a name no repository can have is refused alone: the other
  // repositories are imported and its error is returned (as for bad input).
  std::vector<Status> refused;
  FG_ASSIGN_OR_RETURN(std::vector<DumpRepo> repos, ListRepositoryFolders(dump_dir, &refused));
  size_t threads = options.threads;
  if (threads == 0) threads = std::min<size_t>(HardwareThreads(), 4);
  threads = std::min(threads, repos.size());

  // Pipeline::kAuto: a repository is written by a second thread only while
  // cores would be idle; with as many repositories at once as cores the second
  // thread costs CPU (about 8% more) and gains nothing.
  const size_t cores = HardwareThreads();

  std::mutex mu;       // guards everything below and serialises on_progress
  size_t started = 0;  // repositories whose import began
  size_t busy = 0;     // repositories being imported
  std::vector<Status> errors(repos.size());
  ImportCounts total;
  ParallelFor(repos.size(), threads, [&](size_t i, size_t) {
    ImportOptions::Pipeline pipeline;
    {
      std::lock_guard<std::mutex> lock(mu);
      ++started;
      ++busy;
      // Repositories imported at once from now on (this one included).
      size_t at_once = std::min(threads, busy + (repos.size() - started));
      pipeline = options.pipeline;
      if (pipeline == ImportOptions::Pipeline::kAuto)
        pipeline =
            2 * at_once <= cores ? ImportOptions::Pipeline::kOn : ImportOptions::Pipeline::kOff;
    }
    ImportOptions o = options;
    o.pipeline = pipeline;
    if (options.on_progress) {
      o.on_progress = [&, i](const ImportProgress& p) {
        ImportProgress q = p;
        q.repo_index = i;
        q.repo_count = repos.size();
        std::lock_guard<std::mutex> lock(mu);
        options.on_progress(q);
      };
    }
    ImportCounts c;
    Status s = ImportRepository(store, repos[i], o, &c);
    std::lock_guard<std::mutex> lock(mu);
    --busy;
    if (s.ok()) {
      total.Add(c);
    } else {
      errors[i] = s;
    }
  });
  // Unlink events of one item's log that remove a link another item's log
  // added (or an earlier import stored), over the repositories imported.
  for (size_t i = 0; i < repos.size(); ++i) {
    if (!errors[i].ok()) continue;
    Status s = ApplyOperateLogUnlinks(store, &repos[i].repo, &total.touched);
    if (!s.ok()) errors[i] = s;
  }
  if (counts) counts->Add(total);
  Status first;
  std::string others;
  for (size_t i = 0; i < errors.size(); ++i) {
    if (errors[i].ok()) continue;
    if (first.ok()) {
      first = errors[i];
    } else {
      others += (others.empty() ? "" : ", ") + repos[i].repo.ToString();
    }
  }
  for (const Status& r : refused) {
    if (first.ok()) {
      first = r;
    } else {
      others += std::string(others.empty() ? "" : ", ") + "a folder with an invalid name";
    }
  }
  if (!others.empty()) return first.WithContext("(also failed: " + others + ")");
  return first;
}

}  // namespace fixgraph::ingest
