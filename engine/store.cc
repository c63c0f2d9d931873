#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>
#include <unordered_map>

#include <sys/mman.h>
#include <unistd.h>

#include "record_codec.h"
#include "store_keys.h"

namespace fixgraph {

namespace {
std::atomic<long> crash_calls{0};
long CrashAt() {
  static const long at = [] {
    const char* v = std::getenv("FIXGRAPH_CRASH_AT");
    if (const char* c = std::getenv("FIXGRAPH_CRASH_COUNT"); c != nullptr && *c != '\0')
      std::atexit([] { std::fprintf(stderr, "crash points: %ld\n", crash_calls.load()); });
    return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : 0L;
  }();
  return at;
}
}  // namespace

void CrashPoint() {
  long at = CrashAt();
  long n = ++crash_calls;
  if (at > 0 && n == at) _exit(86);
}

namespace {

// Folders of a bulk load's table files inside the store folder, until they
// are ingested (Batch::StartBulkLoad). Leftovers of a crash are removed by
// the next writable Open.
constexpr const char* kBulkDirPrefix = "bulkload.";

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  std::string msg = std::string(what) + ": " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  if (s.IsNotSupported()) return Status::NotSupported(msg);
  return Status::IOError(msg);
}

// Record values are binary (record_codec.h).
template <typename T>
Status Decode(std::string_view value, std::string_view key, T* out) {
  Status s = codec::Decode(value, out);
  if (s.ok()) return s;
  return s.WithContext("store record " + std::string(key.substr(0, 120)));
}

char ParentTag(ParentKind k) { return k == ParentKind::kIssue ? 'i' : 'p'; }

// Builds record keys and secondary-index rows in reused buffers: no string
// is allocated per key (the repository's text is kept between records). The
// bytes are those of store_keys.h's Join/Num/Time. Rows(record, key, emit)
// calls emit(key, value) for each index row of the record stored under `key`;
// the views are valid until the next call.
class RowBuilder {
 public:
  // The canonical text of `repo` (RepoRef::ToString), cached.
  const std::string& Repo(const RepoRef& repo) {
    if (!cached_ || repo.platform != repo_.platform || repo.owner != repo_.owner ||
        repo.name != repo_.name) {
      repo_ = repo;
      repo_text_ = repo.ToString();
      cached_ = true;
    }
    return repo_text_;
  }

  // Record keys (store_keys.h), into the builder's key buffer.
  std::string_view Key(const Repository& v) { return Start(&key_, keys::kRepoTag, v.ref); }
  std::string_view Key(const Issue& v) {
    Start(&key_, keys::kIssueTag, v.repo);
    Sep(&key_);
    keys::AppendNum(&key_, std::string_view(v.number));
    return key_;
  }
  std::string_view Key(const PullRequest& v) {
    Start(&key_, keys::kPullTag, v.repo);
    Sep(&key_);
    keys::AppendNum(&key_, v.number);
    return key_;
  }
  std::string_view Key(const Comment& v) { return Child(keys::kCommentTag, v.repo, v.parent_kind, v.parent_number, v.id); }
  std::string_view Key(const OperateLogEvent& v) {
    return Child(keys::kOplogTag, v.repo, v.parent_kind, v.parent_number, v.id);
  }
  std::string_view Key(const Commit& v) { return PullChild(keys::kCommitTag, v.repo, v.pr_number, v.sha); }
  std::string_view Key(const FileChange& v) {
    return PullChild(keys::kFileTag, v.repo, v.pr_number, v.filename);
  }
  std::string_view Key(const PlatformLink& v) {
    Start(&key_, keys::kLinkTag, v.issue.repo);
    Sep(&key_);
    keys::AppendNum(&key_, std::string_view(v.issue.number));
    Sep(&key_);
    key_ += v.pull.ToString();
    Sep(&key_);
    key_ += v.source;
    return key_;
  }

  template <typename Emit>
  void Rows(const Issue& v, std::string_view key, Emit&& emit) {
    const std::string& repo = Repo(v.repo);
    row_.assign(1, keys::kStateIndexTag);
    Part(&row_, repo);
    Part(&row_, "i");
    Sep(&row_);
    keys::AppendNum(&row_, std::string_view(v.number));
    emit(std::string_view(row_), std::string_view(v.state == IssueState::kClosed ? "c" : "o"));
    if (v.state == IssueState::kClosed && v.closed_at) {
      row_.assign(1, keys::kClosedIndexTag);
      Part(&row_, repo);
      Sep(&row_);
      keys::AppendTime(&row_, *v.closed_at);
      Sep(&row_);
      keys::AppendNum(&row_, std::string_view(v.number));
      emit(std::string_view(row_), std::string_view());
    }
    if (v.title.empty() && v.body.empty()) return;  // "\n" holds no mention
    text_.assign(v.title);
    text_ += '\n';
    text_ += v.body;
    Mentions(text_, v.repo, v.ref(), MentionSource::kIssueText, key, "", v.created_at, emit);
  }
  template <typename Emit>
  void Rows(const PullRequest& v, std::string_view key, Emit&& emit) {
    const std::string& repo = Repo(v.repo);
    const char* state = v.state == PullState::kMerged ? "m" : v.state == PullState::kClosed ? "c" : "o";
    row_.assign(1, keys::kStateIndexTag);
    Part(&row_, repo);
    Part(&row_, "p");
    Sep(&row_);
    keys::AppendNum(&row_, v.number);
    emit(std::string_view(row_), std::string_view(state));
    if (v.merged() && v.merged_at) {
      row_.assign(1, keys::kMergedIndexTag);
      Part(&row_, repo);
      Sep(&row_);
      keys::AppendTime(&row_, *v.merged_at);
      Sep(&row_);
      keys::AppendNum(&row_, v.number);
      emit(std::string_view(row_), std::string_view());
    }
    Ref self = v.ref();
    Mentions(v.title, v.repo, self, MentionSource::kPullTitle, key, "", v.created_at, emit);
    Mentions(v.body, v.repo, self, MentionSource::kPullBody, key, "", v.created_at, emit);
  }
  template <typename Emit>
  void Rows(const Comment& v, std::string_view key, Emit&& emit) {
    if (v.body.empty()) return;
    Mentions(v.body, v.repo, v.parent(),
             v.parent_kind == ParentKind::kIssue ? MentionSource::kIssueComment
                                                 : MentionSource::kPullComment,
             key, v.id, v.created_at, emit);
  }
  template <typename Emit>
  void Rows(const Commit& v, std::string_view key, Emit&& emit) {
    if (v.message.empty()) return;
    Mentions(v.message, v.repo, Ref::Pull(v.repo, v.pr_number), MentionSource::kCommitMessage, key,
             v.sha, v.committed_at ? v.committed_at : v.authored_at, emit);
  }
  template <typename Emit>
  void Rows(const PlatformLink& v, std::string_view, Emit&& emit) {
    codec::Encode(v, &value_);
    row_.assign(1, keys::kLinkIndexTag);
    Part(&row_, v.pull.ToString());
    Part(&row_, v.issue.ToString());
    Part(&row_, v.source);
    emit(std::string_view(row_), std::string_view(value_));
  }
  template <typename Emit>
  void Rows(const FileChange&, std::string_view, Emit&&) {}
  template <typename Emit>
  void Rows(const OperateLogEvent&, std::string_view, Emit&&) {}
  template <typename Emit>
  void Rows(const Repository&, std::string_view, Emit&&) {}

 private:
  static void Sep(std::string* k) { k->push_back(keys::kSep); }
  static void Part(std::string* k, std::string_view p) {
    k->push_back(keys::kSep);
    k->append(p);
  }
  std::string_view Start(std::string* k, char tag, const RepoRef& repo) {
    const std::string& r = Repo(repo);
    k->assign(1, tag);
    Part(k, r);
    return *k;
  }
  // tag \0 repo \0 i|p \0 num \0 id
  std::string_view Child(char tag, const RepoRef& repo, ParentKind kind, std::string_view parent,
                         std::string_view id) {
    Start(&key_, tag, repo);
    Sep(&key_);
    key_ += ParentTag(kind);
    Sep(&key_);
    keys::AppendNum(&key_, parent);
    Sep(&key_);
    keys::AppendNum(&key_, id);
    return key_;
  }
  // tag \0 repo \0 pr number \0 part
  std::string_view PullChild(char tag, const RepoRef& repo, std::int64_t pr, std::string_view part) {
    Start(&key_, tag, repo);
    Sep(&key_);
    keys::AppendNum(&key_, pr);
    Part(&key_, part);
    return key_;
  }

  template <typename Emit>
  void Mentions(std::string_view text, const RepoRef& context, const Ref& source_item,
                MentionSource source, std::string_view source_key, std::string_view source_id,
                OptTime at, Emit& emit) {
    if (text.empty()) return;
    for (Mention& m : FindMentions(text, context)) {
      if (m.target == source_item) continue;  // an item naming itself
      mention_.target = std::move(m.target);
      mention_.source_item = source_item;
      mention_.source = source;
      mention_.source_id.assign(source_id);
      mention_.form = m.form;
      mention_.keyword = m.keyword;
      mention_.mirror_host = m.mirror_host;
      mention_.text = std::move(m.text);
      mention_.at = at;
      codec::Encode(mention_, &value_);
      row_.assign(1, keys::kMentionIndexTag);
      Part(&row_, mention_.target.ToString());
      Part(&row_, source_key);
      Sep(&row_);
      row_ += static_cast<char>('0' + static_cast<int>(source));
      Sep(&row_);
      keys::AppendTime(&row_, static_cast<std::int64_t>(m.offset));
      emit(std::string_view(row_), std::string_view(value_));
    }
  }

  bool cached_ = false;
  RepoRef repo_;
  std::string repo_text_;
  std::string key_;    // record keys
  std::string row_;    // index row keys
  std::string value_;  // index row values
  std::string text_;   // an issue's title and body
  MentionRecord mention_;
};

}  // namespace

const char* MentionSourceName(MentionSource s) {
  switch (s) {
    case MentionSource::kIssueText: return "issue_text";
    case MentionSource::kPullTitle: return "pull_title";
    case MentionSource::kPullBody: return "pull_body";
    case MentionSource::kIssueComment: return "issue_comment";
    case MentionSource::kPullComment: return "pull_comment";
    case MentionSource::kCommitMessage: return "commit_message";
    case MentionSource::kBranchName: return "branch_name";
  }
  return "unknown";
}

// How a scan reads its blocks: point reads (a few records of one item) go
// through the block cache; bulk scans (ForEach*) bypass it.
enum class ScanMode { kPoint, kBulk };

struct Store::Impl {
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

  ~Impl() {
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

  Status Get(rocksdb::ColumnFamilyHandle* cf, const std::string& key, std::string* value) const {
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), cf, key, value);
    if (s.IsNotFound()) return Status::NotFound("no record");
    return FromRocks(s, "read");
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
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      if (!fn(it->key().ToStringView(), it->value().ToStringView())) break;
    }
    return FromRocks(it->status(), "scan");
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
    Status s = Scan(items, prefix, [&](std::string_view key, std::string_view value) {
      T rec;
      inner = Decode(value, key, &rec);
      return inner.ok() && fn(rec);
    }, mode);
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
    FG_RETURN_IF_ERROR(Decode(v, key, &out));
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
    return FromRocks(it->status(), "scan");
  }
};

std::string DerivedKey(const std::string& kind, const Ref& item) {
  char tag = item.kind == RefKind::kIssue ? 'i' : item.kind == RefKind::kPull ? 'p' : 'r';
  return keys::Join(keys::kDerivedTag,
                    {kind, item.repo.ToString(), std::string(1, tag), keys::Num(item.number)});
}

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
  // Blocks are mapped directly, 2 MiB-aligned and marked for transparent huge
  // pages: a bulk load stages hundreds of MiB, and faulting them in 4 KiB
  // pages (each fault costly in a virtual machine) took more time than the
  // copies themselves. They are not zeroed by hand (the kernel's pages are).
  class Arena {
   public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() {
      for (Block& b : blocks_) b.Release();
    }
    std::string_view Copy(std::string_view s) {
      if (s.empty()) return std::string_view("", 0);  // never a null pointer
      char* p;
      if (s.size() > kBlock / 4) {  // large: a block of its own, freed by Reset
        large_.push_back(std::make_unique_for_overwrite<char[]>(s.size()));
        p = large_.back().get();
      } else {
        if (blocks_.empty() || used_ + s.size() > kBlock) {
          if (blocks_.empty() || cur_ + 1 == blocks_.size()) {
            blocks_.push_back(Block::Map(kBlock));
            cur_ = blocks_.size() - 1;
          } else {
            ++cur_;
          }
          used_ = 0;
        }
        p = blocks_[cur_].data + used_;
        used_ += s.size();
      }
      std::memcpy(p, s.data(), s.size());
      return {p, s.size()};
    }
    void Reset() {
      cur_ = 0;
      used_ = 0;
      large_.clear();
    }

   private:
    static constexpr std::size_t kBlock = std::size_t{4} << 20;
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;
    struct Block {
      void* base = nullptr;  // the mapping (munmap), or the allocation (free)
      std::size_t length = 0;  // 0: allocated by malloc
      char* data = nullptr;
      static Block Map(std::size_t size) {
        Block b;
        std::size_t length = size + kHugePage;
        void* m = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
        if (m == MAP_FAILED) {  // fall back to the heap
          b.base = ::operator new(size);
          b.data = static_cast<char*>(b.base);
          return b;
        }
        b.base = m;
        b.length = length;
        auto at = (reinterpret_cast<std::uintptr_t>(m) + kHugePage - 1) & ~(kHugePage - 1);
        b.data = reinterpret_cast<char*>(at);
        ::madvise(b.data, size, MADV_HUGEPAGE);  // a hint: failure only costs speed
        return b;
      }
      void Release() {
        if (length != 0) ::munmap(base, length);
        else ::operator delete(base);
      }
    };
    std::vector<Block> blocks_;
    std::vector<std::unique_ptr<char[]>> large_;
    std::size_t cur_ = 0;   // block being filled
    std::size_t used_ = 0;  // bytes used in it
  };
  Arena arena;
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
      if (op.track == Track::kItem) pending_items[op.key] = indexed;
      else if (op.track == Track::kRaw) pending_raw[op.key] = indexed;
    }
  }
  // Handed to RocksDB by Store::Write, reused between commits unless it grew
  // past kKeepWriteBatch bytes.
  std::unique_ptr<rocksdb::WriteBatch> wb;
  static constexpr std::size_t kKeepWriteBatch = std::size_t{64} << 20;
  // Keys, index rows and record values are built in these reused buffers.
  RowBuilder rows;
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
  Status GetPending(bool raw, std::string_view key, std::string* scratch,
                    std::string_view* value, bool* found) {
    // Every record key staged went through here first (Upsert), so the filter
    // has it: a key the filter never saw is neither staged nor stored.
    if (!raw && InNewRepo(key) && !FilterTestAndSet(key)) {
      *found = false;  // the store had none and this batch never put it
      return Status::OK();
    }
    CatchUp();
    const auto& pending = raw ? pending_raw : pending_items;
    if (auto it = pending.find(key); it != pending.end()) {
      *value = ops[it->second].value;
      *found = !ops[it->second].del;  // a record this batch removed (Remove)
      return Status::OK();
    }
    if (!bulk_files.empty()) {
      FG_RETURN_IF_ERROR(SpilledGet(raw ? store->raw : store->items, key, scratch, found));
      if (*found) {
        *value = *scratch;
        return Status::OK();
      }
    }
    rocksdb::Status s =
        store->db->Get(rocksdb::ReadOptions(), raw ? store->raw : store->items, key, scratch);
    *found = s.ok();
    *value = *scratch;
    if (s.IsNotFound()) return Status::OK();
    return FromRocks(s, "read");
  }

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
  std::vector<Entry> Grouped() const {
    // Most runs arrive sorted already (one file's elements, one record's index
    // rows): group by family and key tag, then sort only the groups that need it.
    // Grouping is a counting sort (groups are few: families x tags), which
    // keeps staged order within a group as a stable sort would.
    std::uint32_t max_cf = 0;
    for (const Op& op : ops) max_cf = std::max(max_cf, op.cf->GetID());
    auto group_of = [](const Op& op) {
      std::uint64_t tag = op.key.empty() ? 0 : static_cast<unsigned char>(op.key[0]);
      return (std::uint64_t{op.cf->GetID()} << 8) | tag;
    };
    std::vector<std::size_t> start((std::size_t{max_cf} + 1) * 256 + 1, 0);
    for (const Op& op : ops) ++start[group_of(op) + 1];
    for (std::size_t g = 1; g < start.size(); ++g) start[g] += start[g - 1];
    std::vector<Entry> order(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      std::uint64_t group = group_of(op);
      order[start[group]++] = {group, 0, op.key, &op, static_cast<std::uint32_t>(i)};
    }
    return order;
  }
  std::vector<Entry> Sorted() const {
    std::vector<Entry> order = Grouped();
    for (auto first = order.begin(); first != order.end();) {
      auto last = first;
      while (last != order.end() && last->group == first->group) ++last;
      SortGroupIfNeeded(first, last);
      first = last;
    }
    return order;
  }
  static void SortGroupIfNeeded(std::vector<Entry>::iterator first,
                                std::vector<Entry>::iterator last) {
    auto by_key = [](const Entry& a, const Entry& b) { return a.key < b.key; };
    if (!std::is_sorted(first, last, by_key)) SortGroup(first, last);
  }

  // Sorts one group by key, equal keys in staged order (what a stable sort
  // by key gives). The keys of a group share a prefix (tag, repository), so
  // the comparisons start past it, with the next 8 bytes compared as one
  // integer (zero-padded: where two heads differ, their order is the keys').
  static void SortGroup(std::vector<Entry>::iterator first, std::vector<Entry>::iterator last) {
    const std::string_view k0 = first->key;
    size_t common = k0.size();
    for (auto e = first + 1; e != last && common > 0; ++e) {
      size_t n = std::min(common, e->key.size()), i = 0;
      while (i < n && e->key[i] == k0[i]) ++i;
      common = i;
    }
    for (auto e = first; e != last; ++e) {
      std::uint64_t h = 0;
      for (size_t i = 0; i < 8; ++i) {
        size_t at = common + i;
        h = (h << 8) | (at < e->key.size() ? static_cast<unsigned char>(e->key[at]) : 0u);
      }
      e->head = h;
    }
    std::sort(first, last, [common](const Entry& a, const Entry& b) {
      if (a.head != b.head) return a.head < b.head;
      int c = a.key.substr(common).compare(b.key.substr(common));
      if (c != 0) return c < 0;
      return a.seq < b.seq;
    });
  }

  // Hands the staged writes to `wb` in Sorted() order.
  Status Fill(rocksdb::WriteBatch* wb) {
    for (const Entry& e : Sorted()) {
      const Op& op = *e.op;
      rocksdb::Status s = op.del ? wb->Delete(op.cf, op.key)
                                 : wb->Put(op.cf, op.key, op.value);
      FG_RETURN_IF_ERROR(FromRocks(s, "write"));
    }
    return Status::OK();
  }

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

  ~Impl() { RemoveBulkFiles(); }

  void RemoveBulkFiles() {
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

  // Sorts one group of Grouped() and writes it into the table file `file`
  // of this run (bulk_runs).
  Status WriteGroup(std::vector<Entry>::iterator first, std::vector<Entry>::iterator last,
                    BulkFile* file) {
    SortGroupIfNeeded(first, last);
    file->cf = first->op->cf;
    file->path = bulk_dir + "/" + std::to_string(bulk_runs) + "-" + std::to_string(first->group) +
                 ".sst";
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

  // Writes the staged writes into table files and empties the staging area.
  Status Spill() {
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
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
      for (std::size_t n; (n = next.fetch_add(1)) < by_size.size();) {
        std::size_t g = by_size[n];
        groups[g].status = WriteGroup(groups[g].first, groups[g].last, &bulk_files[base + g]);
      }
    };
    if (groups.size() > 1 && std::thread::hardware_concurrency() > 1) {
      std::thread helper(work);
      work();
      helper.join();
    } else {
      work();
    }
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

  // The value of `key` in `cf` as the spilled files hold it (the newest file
  // first). Only puts are looked for: the records upserts read are never
  // deleted through a batch.
  Status SpilledGet(rocksdb::ColumnFamilyHandle* cf, std::string_view key, std::string* value,
                    bool* found) {
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

  // Puts `record` under its key (RowBuilder::Key).
  template <typename T>
  Status Upsert(const T& record, std::string_view raw, const Ref& owner) {
    if (store->read_only) return Status::FailedPrecondition("store is open read-only");
    std::string_view key = rows.Key(record);  // valid until the next Key call
    std::string& value = value_buf;
    codec::Encode(record, &value);
    std::string_view old;
    bool found = false;
    FG_RETURN_IF_ERROR(GetPending(false, key, &get_scratch, &old, &found));
    if (found && old == value) {
      std::string_view old_raw;
      bool raw_found = false;
      FG_RETURN_IF_ERROR(GetPending(true, key, &get_scratch, &old_raw, &raw_found));
      if (raw.empty() || (raw_found && old_raw == raw)) return Status::OK();
      PutRaw(key, raw);
      return Status::OK();
    }
    if (found) {
      T previous;
      FG_RETURN_IF_ERROR(Decode(old, key, &previous));
      rows.Rows(previous, key, [this](std::string_view k, std::string_view) {
        Stage(store->index, true, k, {});
      });
    }
    rows.Rows(record, key, [this](std::string_view k, std::string_view v) {
      Stage(store->index, false, k, v);
    });
    if (!raw.empty()) PutRaw(key, raw);
    Stage(store->items, false, key, value, Track::kItem);
    ++changed;
    if ((owner.kind == RefKind::kIssue || owner.kind == RefKind::kPull) &&
        !(last_touched && *last_touched == owner))  // an item's records come together
      Touch(owner);
    return Status::OK();
  }

  // Removes the stored `record` (keyed as Upsert keys it) with its index
  // rows; *removed says whether there was one.
  template <typename T>
  Status Remove(const T& record, const Ref& owner, bool* removed) {
    if (store->read_only) return Status::FailedPrecondition("store is open read-only");
    *removed = false;
    std::string key(rows.Key(record));
    std::string_view old;
    bool found = false;
    FG_RETURN_IF_ERROR(GetPending(false, key, &get_scratch, &old, &found));
    if (!found) return Status::OK();
    T previous;
    FG_RETURN_IF_ERROR(Decode(old, key, &previous));
    rows.Rows(previous, key, [this](std::string_view k, std::string_view) { Stage(store->index, true, k, {}); });
    Stage(store->raw, true, key, {}, Track::kRaw);
    Stage(store->items, true, key, {}, Track::kItem);
    ++changed;
    Touch(owner);
    *removed = true;
    return Status::OK();
  }

  // Records `item` as touched; the first time, also stages its pending-relink
  // key in this batch, so that the change and the work it calls for are
  // committed (or lost) together.
  void Touch(const Ref& item) {
    auto [it, inserted] = touched.insert(item);
    last_touched = &*it;
    if (inserted && record_pending)
      Stage(store->meta, false, keys::PendingKey(keys::kPendingRelink, item.ToString()), {});
  }
  bool record_pending = true;
};

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;
const std::string& Store::dir() const { return impl_->dir; }

StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& dir, const StoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  bool exists = fs::exists(fs::path(dir) / "CURRENT", ec);
  if (!exists && (options.read_only || !options.create_if_missing))
    return Status::NotFound("no fixgraph store at " + dir + " (run `fixgraph import` first, or pass --db)");
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
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));  // point reads of new keys miss fast
  opts.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::ColumnFamilyOptions cf_opts(opts);
  // LZ4 compresses flushed blocks with less CPU than the default Snappy (blocks
  // record their compression type, so stores written with Snappy still read).
  cf_opts.compression = rocksdb::kLZ4Compression;
  // Level 0 holds what memtable flushes write, and compaction soon rewrites it
  // into level 1: leaving it uncompressed spares the flush (bulk imports) the
  // LZ4 pass. Deeper levels stay LZ4.
  cf_opts.compression_per_level = {rocksdb::kNoCompression, rocksdb::kLZ4Compression,
                                   rocksdb::kLZ4Compression, rocksdb::kLZ4Compression,
                                   rocksdb::kLZ4Compression, rocksdb::kLZ4Compression,
                                   rocksdb::kLZ4Compression};
  // A bloom filter over the keys of each memtable: the existence reads of
  // upserts into a new repository miss without a skip-list search.
  cf_opts.memtable_whole_key_filtering = true;
  cf_opts.memtable_prefix_bloom_size_ratio = 0.05;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, cf_opts},
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
      return Status::IOError("store " + dir + " is in use by another writer (" + s.ToString() + ")");
    if (s.IsInvalidArgument() && s.ToString().find("olumn famil") != std::string::npos)
      return Status::FailedPrecondition("store " + dir +
                                        " was not written by fixgraph or by another schema: " +
                                        s.ToString());
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
    FG_RETURN_IF_ERROR(FromRocks(impl->db->Put(rocksdb::WriteOptions(), impl->meta, keys::kSchemaKey,
                                               std::to_string(kStoreSchemaVersion)),
                                 "write schema version"));
  } else if (!vs.ok()) {
    return vs;
  } else if (version != std::to_string(kStoreSchemaVersion)) {
    return Status::FailedPrecondition("store " + dir + " has schema version " + version +
                                      "; this fixgraph reads version " +
                                      std::to_string(kStoreSchemaVersion) +
                                      " (import into a new --db directory)");
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
    rocksdb::WriteOptions wo;
    wo.disableWAL = durability == Durability::kUnlogged;
    CrashPoint();
    Status s = filled.ok() ? FromRocks(impl_->db->Write(wo, b.wb.get()), "commit") : filled;
    CrashPoint();
    // A buffer grown past what import batches need goes back to the allocator.
    if (b.wb->GetDataSize() > Batch::Impl::kKeepWriteBatch) b.wb.reset();
    else b.wb->Clear();
    FG_RETURN_IF_ERROR(s);
  }
  batch->impl_->Clear();
  batch->impl_->changed = 0;
  return Status::OK();
}

Status Store::IngestBulkLoad(Batch* batch) {
  if (impl_->read_only) return Status::FailedPrecondition("store is open read-only");
  Batch::Impl& b = *batch->impl_;
  if (!b.bulk) return Status::FailedPrecondition("IngestBulkLoad: the batch is not bulk loading");
  FG_RETURN_IF_ERROR(b.Spill());
  if (!b.bulk_files.empty()) {
    std::vector<rocksdb::IngestExternalFileArg> args;
    for (auto* cf : impl_->handles) {
      rocksdb::IngestExternalFileArg arg;
      arg.column_family = cf;
      arg.options.move_files = true;         // hard links: no copy
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
  b.RemoveBulkFiles();
  b.bulk = false;
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

StatusOr<Repository> Store::GetRepository(const RepoRef& repo) const {
  return impl_->GetRecord<Repository>(keys::RepoKey(repo), "repository " + repo.ToString());
}

StatusOr<Issue> Store::GetIssue(const Ref& ref) const {
  return impl_->GetRecord<Issue>(keys::ItemKey(ref), "issue " + ref.ToString());
}

StatusOr<PullRequest> Store::GetPull(const Ref& ref) const {
  return impl_->GetRecord<PullRequest>(keys::ItemKey(ref), "pull request " + ref.ToString());
}

StatusOr<std::string> Store::GetRaw(const Ref& item) const {
  std::string v;
  Status s = impl_->Get(impl_->raw, keys::ItemKey(item), &v);
  if (s.IsNotFound()) return Status::NotFound("no raw payload for " + item.ToString());
  FG_RETURN_IF_ERROR(s);
  return v;
}

namespace {
// The items prefix of one repository's records with `tag`, or of all of them.
std::string TagPrefix(char tag, const RepoRef* repo) {
  return repo ? keys::Prefix(tag, {repo->ToString()}) : std::string(1, tag) + keys::kSep;
}
}  // namespace

Status Store::ListRepositories(std::vector<Repository>* out) const {
  return impl_->ScanRecords(TagPrefix(keys::kRepoTag, nullptr), out);
}

Status Store::ForEachIssue(const RepoRef* repo, const std::function<bool(Issue&)>& fn) const {
  return impl_->ForEachRecord<Issue>(TagPrefix(keys::kIssueTag, repo), fn, ScanMode::kBulk);
}

Status Store::ForEachPull(const RepoRef* repo,
                          const std::function<bool(PullRequest&)>& fn) const {
  return impl_->ForEachRecord<PullRequest>(TagPrefix(keys::kPullTag, repo), fn, ScanMode::kBulk);
}

namespace {
std::string ParentPrefix(char tag, const Ref& parent) {
  char kind = parent.kind == RefKind::kIssue ? 'i' : 'p';
  return keys::Prefix(tag, {parent.repo.ToString(), std::string(1, kind), keys::Num(parent.number)});
}
}  // namespace

Status Store::ListComments(const Ref& parent, std::vector<Comment>* out) const {
  return impl_->ScanRecords(ParentPrefix(keys::kCommentTag, parent), out);
}

Status Store::ListCommits(const Ref& pull, std::vector<Commit>* out) const {
  return impl_->ScanRecords(
      keys::Prefix(keys::kCommitTag, {pull.repo.ToString(), keys::Num(pull.number)}), out);
}

Status Store::ListFiles(const Ref& pull, std::vector<FileChange>* out) const {
  return impl_->ScanRecords(
      keys::Prefix(keys::kFileTag, {pull.repo.ToString(), keys::Num(pull.number)}), out);
}

Status Store::ListOperateLog(const Ref& item, std::vector<OperateLogEvent>* out) const {
  return impl_->ScanRecords(ParentPrefix(keys::kOplogTag, item), out);
}

Status Store::ListPlatformLinks(const Ref& item, std::vector<PlatformLink>* out) const {
  if (item.kind == RefKind::kIssue)
    return impl_->ScanRecords(
        keys::Prefix(keys::kLinkTag, {item.repo.ToString(), keys::Num(item.number)}), out);
  Status inner;
  Status s = impl_->Scan(impl_->index, keys::Prefix(keys::kLinkIndexTag, {item.ToString()}),
                         [&](std::string_view key, std::string_view value) {
                           PlatformLink link;
                           inner = Decode(value, key, &link);
                           if (inner.ok()) out->push_back(std::move(link));
                           return inner.ok();
                         });
  FG_RETURN_IF_ERROR(s);
  return inner;
}


Status Store::IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                  std::vector<std::pair<UnixSeconds, Ref>>* out) const {
  return impl_->ScanTime(keys::kClosedIndexTag, repo, RefKind::kIssue, from, to, out);
}

Status Store::PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                 std::vector<std::pair<UnixSeconds, Ref>>* out) const {
  return impl_->ScanTime(keys::kMergedIndexTag, repo, RefKind::kPull, from, to, out);
}

Status Store::MentionsOf(const Ref& target, std::vector<MentionRecord>* out) const {
  Status inner;
  Status s = impl_->Scan(
      impl_->index, keys::Prefix(keys::kMentionIndexTag, {target.ToString()}),
      [&](std::string_view key, std::string_view value) {
        MentionRecord r;
        inner = Decode(value, key, &r);
        if (!inner.ok()) return false;
        out->push_back(std::move(r));
        return true;
      });
  FG_RETURN_IF_ERROR(s);
  return inner;
}

StatusOr<RepoStats> Store::Stats(const RepoRef& repo) const {
  RepoStats st;
  st.repo = repo;
  std::string r = repo.ToString();
  FG_RETURN_IF_ERROR(impl_->Scan(impl_->index, keys::Prefix(keys::kStateIndexTag, {r}),
                                 [&](std::string_view key, std::string_view value) {
                                   std::string_view rest = key.substr(3 + r.size());
                                   char kind = rest.empty() ? '?' : rest[0];
                                   char state = value.empty() ? '?' : value[0];
                                   if (kind == 'i') {
                                     (state == 'c' ? st.issues_closed : st.issues_open)++;
                                   } else if (kind == 'p') {
                                     (state == 'm'   ? st.pulls_merged
                                      : state == 'c' ? st.pulls_closed
                                                     : st.pulls_open)++;
                                   }
                                   return true;
                                 }));
  auto count = [&](char tag, std::int64_t* n) {
    return impl_->Scan(impl_->items, keys::Prefix(tag, {r}), [&](std::string_view, std::string_view) {
      ++*n;
      return true;
    });
  };
  FG_RETURN_IF_ERROR(count(keys::kCommentTag, &st.comments));
  FG_RETURN_IF_ERROR(count(keys::kCommitTag, &st.commits));
  FG_RETURN_IF_ERROR(count(keys::kFileTag, &st.files));
  FG_RETURN_IF_ERROR(count(keys::kOplogTag, &st.operate_logs));
  FG_RETURN_IF_ERROR(count(keys::kLinkTag, &st.platform_links));
  return st;
}

StatusOr<std::string> Store::GetDerived(const std::string& kind, const Ref& item) const {
  std::string v;
  Status s = impl_->Get(impl_->items, DerivedKey(kind, item), &v);
  if (s.IsNotFound()) return Status::NotFound("no " + kind + " record for " + item.ToString());
  FG_RETURN_IF_ERROR(s);
  return v;
}

Status Store::ForEachDerived(const std::string& kind, const RepoRef* repo,
                             const std::function<bool(const Ref&, const std::string&)>& fn) const {
  std::string prefix = repo ? keys::Prefix(keys::kDerivedTag, {kind, repo->ToString()})
                            : keys::Prefix(keys::kDerivedTag, {kind});
  Status inner;
  Status s = impl_->Scan(impl_->items, prefix, [&](std::string_view key, std::string_view value) {
    // X \0 kind \0 repo \0 tag \0 num
    std::string_view rest = key.substr(3 + kind.size());
    size_t a = rest.find('\0');
    if (a == std::string_view::npos || a + 3 > rest.size()) return true;
    auto r = ParseRef(rest.substr(0, a));
    if (!r.ok()) {
      inner = r.status();
      return false;
    }
    char tag = rest[a + 1];
    std::string num = keys::Unpad(rest.substr(a + 3));
    Ref item = tag == 'i' ? Ref::Issue(r->repo, num)
               : tag == 'p' ? Ref{RefKind::kPull, r->repo, num}
                            : Ref::Repo(r->repo);
    return fn(item, std::string(value));
  });
  FG_RETURN_IF_ERROR(s);
  return inner;
}

StatusOr<std::string> Store::GetMeta(const std::string& key) const {
  std::string v;
  Status s = impl_->Get(impl_->meta, key, &v);
  if (s.IsNotFound()) return Status::NotFound("no meta key " + key);
  FG_RETURN_IF_ERROR(s);
  return v;
}

Status Store::ListMeta(const std::string& prefix, std::map<std::string, std::string>* out) const {
  return impl_->Scan(impl_->meta, prefix, [&](std::string_view k, std::string_view v) {
    (*out)[std::string(k)] = std::string(v);
    return true;
  });
}

Status Store::ListPending(PendingWork* out) const {
  *out = PendingWork();
  Status inner;
  FG_RETURN_IF_ERROR(impl_->Scan(impl_->meta, std::string(keys::kPendingPrefix),
                                 [&](std::string_view k, std::string_view) {
    std::string_view rest = k.substr(keys::kPendingPrefix.size());
    size_t sep = rest.find(keys::kSep);
    if (sep == std::string_view::npos) return true;
    std::string_view kind = rest.substr(0, sep), what = rest.substr(sep + 1);
    if (kind == keys::kPendingLinkRun) {
      out->link_runs.emplace_back(what);
      return true;
    }
    auto ref = ParseRef(what);
    if (!ref.ok()) {
      inner = Status::Corruption("pending entry '" + std::string(what) + "': " + ref.status().message());
      return false;
    }
    if (kind == keys::kPendingRelink) out->relink.push_back(*ref);
    else if (kind == keys::kPendingReindex) out->reindex.push_back(*ref);
    return true;
  }));
  return inner;
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
  return Write(batch.get(), Durability::kLogged);
}

Status Store::BeginLinkRun(const RepoRef* repo, const std::vector<Ref>& covered) {
  std::unique_ptr<Batch> batch = NewBatch();
  Batch::Impl& b = *batch->impl_;
  b.Stage(impl_->meta, false, keys::PendingKey(keys::kPendingLinkRun, repo ? repo->ToString() : "*"), {});
  for (const Ref& r : covered)
    b.Stage(impl_->meta, true, keys::PendingKey(keys::kPendingRelink, r.ToString()), {});
  return Write(batch.get(), Durability::kLogged);
}

// ---- Batch

Store::Batch::Batch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Batch::~Batch() = default;

Status Store::Batch::PutRepository(const Repository& v, std::string_view raw) {
  return impl_->Upsert(v, raw, Ref::Repo(v.ref));
}
Status Store::Batch::PutIssue(const Issue& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.ref());
}
Status Store::Batch::PutPull(const PullRequest& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.ref());
}
Status Store::Batch::PutComment(const Comment& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.parent());
}
Status Store::Batch::PutCommit(const Commit& v, std::string_view raw) {
  return impl_->Upsert(v, raw, Ref::Pull(v.repo, v.pr_number));
}
Status Store::Batch::PutFile(const FileChange& v, std::string_view raw) {
  return impl_->Upsert(v, raw, Ref::Pull(v.repo, v.pr_number));
}
Status Store::Batch::PutOperateLog(const OperateLogEvent& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.parent());
}
Status Store::Batch::PutPlatformLink(const PlatformLink& v) {
  if (v.issue.kind != RefKind::kIssue || v.pull.kind != RefKind::kPull)
    return Status::InvalidArgument("a platform link joins an issue and a pull request");
  std::int64_t before = impl_->changed;
  FG_RETURN_IF_ERROR(impl_->Upsert(v, "", v.issue));
  if (impl_->changed != before) impl_->Touch(v.pull);  // a new link touches both sides
  return Status::OK();
}
Status Store::Batch::DeletePlatformLink(const PlatformLink& v, bool* removed) {
  if (v.issue.kind != RefKind::kIssue || v.pull.kind != RefKind::kPull)
    return Status::InvalidArgument("a platform link joins an issue and a pull request");
  bool gone = false;
  FG_RETURN_IF_ERROR(impl_->Remove(v, v.issue, &gone));
  if (gone) impl_->Touch(v.pull);
  if (removed) *removed = gone;
  return Status::OK();
}
Status Store::Batch::PutDerived(const std::string& kind, const Ref& item, std::string_view value) {
  if (impl_->store->read_only) return Status::FailedPrecondition("store is open read-only");
  impl_->Stage(impl_->store->items, false, DerivedKey(kind, item), std::string(value));
  return Status::OK();
}
Status Store::Batch::DeleteDerived(const std::string& kind, const Ref& item) {
  impl_->Stage(impl_->store->items, true, DerivedKey(kind, item), {});
  return Status::OK();
}
std::vector<Ref> Store::Batch::TouchedItems() const {
  return std::vector<Ref>(impl_->touched.begin(), impl_->touched.end());
}
Status Store::Batch::MarkReindex(const Ref& issue) {
  impl_->Stage(impl_->store->meta, false, keys::PendingKey(keys::kPendingReindex, issue.ToString()), {});
  return Status::OK();
}
void Store::Batch::RecordPending(bool on) { impl_->record_pending = on; }
Status Store::Batch::PutMeta(const std::string& key, const std::string& value) {
  impl_->Stage(impl_->store->meta, false, key, value);
  return Status::OK();
}
Status Store::Batch::DeleteMeta(const std::string& key) {
  impl_->Stage(impl_->store->meta, true, key, {});
  return Status::OK();
}
Status Store::Batch::ExpectNewRepository(const RepoRef& repo) {
  const std::string r = repo.ToString();
  std::string v;
  Status s = impl_->store->Get(impl_->store->items, keys::RepoKey(repo), &v);
  if (s.ok()) return Status::OK();  // a record: no hint
  if (!s.IsNotFound()) return s;
  for (char tag : {keys::kIssueTag, keys::kPullTag, keys::kCommentTag, keys::kCommitTag,
                   keys::kFileTag, keys::kOplogTag}) {
    bool any = false;
    FG_RETURN_IF_ERROR(impl_->store->Scan(impl_->store->items, keys::Prefix(tag, {r}),
                                          [&](std::string_view, std::string_view) {
                                            any = true;
                                            return false;
                                          }));
    if (any) return Status::OK();
  }
  impl_->new_repo = r;
  impl_->put_filter.assign(Impl::kFilterBits / 64, 0);
  return Status::OK();
}
bool Store::Batch::ExpectsNewRepository() const { return !impl_->new_repo.empty(); }
Status Store::Batch::StartBulkLoad(std::size_t run_bytes) {
  if (impl_->store->read_only) return Status::FailedPrecondition("store is open read-only");
  impl_->bulk = true;
  impl_->bulk_run_bytes = run_bytes == 0 ? Impl::kBulkRunBytes : run_bytes;
  return Status::OK();
}
void Store::Batch::AbortBulkLoad() {
  if (!impl_->bulk) return;
  impl_->Clear();
  impl_->changed = 0;
  impl_->RemoveBulkFiles();
  impl_->bulk = false;
}

namespace {
// Deletes of the index rows of the record `value` (under `key`) into `stage`.
template <typename T, typename StageFn>
Status UnindexRecord(std::string_view key, std::string_view value, RowBuilder* rows, StageFn stage) {
  T rec;
  FG_RETURN_IF_ERROR(Decode(value, key, &rec));
  rows->Rows(rec, rows->Key(rec), [&](std::string_view k, std::string_view) { stage(k); });
  return Status::OK();
}
}  // namespace

Status Store::DeleteRepositoryRecords(const RepoRef& repo, Durability durability) {
  if (impl_->read_only) return Status::FailedPrecondition("store is open read-only");
  const std::string r = repo.ToString();
  std::unique_ptr<Batch> batch = NewBatch();
  Batch::Impl& b = *batch->impl_;
  RowBuilder rows;
  auto stage_index = [&](std::string_view key) { b.Stage(impl_->index, true, key, {}); };
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
      Status s = impl_->Scan(impl_->items, prefix, [&](std::string_view key, std::string_view value) {
        if (tag == keys::kRepoTag && key.size() != prefix.size()) return true;
        if (!last.empty() && key <= last) return true;
        switch (tag) {
          case keys::kIssueTag: inner = UnindexRecord<Issue>(key, value, &rows, stage_index); break;
          case keys::kPullTag: inner = UnindexRecord<PullRequest>(key, value, &rows, stage_index); break;
          case keys::kCommentTag: inner = UnindexRecord<Comment>(key, value, &rows, stage_index); break;
          case keys::kCommitTag: inner = UnindexRecord<Commit>(key, value, &rows, stage_index); break;
          default: break;  // repository, files and operate logs have no index rows
        }
        if (!inner.ok()) return false;
        b.Stage(impl_->items, true, std::string(key), {});
        b.Stage(impl_->raw, true, std::string(key), {});
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
std::int64_t Store::Batch::changed() const { return impl_->changed; }
std::size_t Store::Batch::ApproximateSize() const {
  return impl_->bytes;
}


// ---------------------------------------------------------------------------
// Bulk scans (appended block; see store.h "Bulk scans"). Built on the same
// record decoding as the per-item reads.

namespace {
// Records of `T` under `prefix` whose parent kind (the key part after the
// repository: 'i' or 'p') is `parents` when set; the others are not decoded.
template <typename T, typename Scanner>
Status ForEachChild(const Scanner& scan, const std::string& prefix, std::optional<ParentKind> parents,
                    const std::function<bool(T&)>& fn) {
  Status inner;
  char want = parents ? ParentTag(*parents) : 0;
  Status s = scan(prefix, [&](std::string_view key, std::string_view value) {
    if (want) {
      // tag \0 repo \0 kind \0 ...
      size_t sep = key.find(keys::kSep, 2);
      if (sep == std::string_view::npos || sep + 1 >= key.size() || key[sep + 1] != want) return true;
    }
    T rec;
    inner = Decode(value, key, &rec);
    return inner.ok() && fn(rec);
  });
  FG_RETURN_IF_ERROR(s);
  return inner;
}
}  // namespace

Status Store::ForEachComment(const RepoRef* repo, const std::function<bool(Comment&)>& fn,
                             std::optional<ParentKind> parents) const {
  auto scan = [this](const std::string& prefix, const auto& f) {
    return impl_->Scan(impl_->items, prefix, f, ScanMode::kBulk);
  };
  return ForEachChild<Comment>(scan, TagPrefix(keys::kCommentTag, repo), parents, fn);
}

std::uint64_t Store::BlockCacheBytes() const {
  std::uint64_t bytes = 0;
  if (!impl_->db->GetIntProperty(rocksdb::DB::Properties::kBlockCacheUsage, &bytes)) return 0;
  return bytes;
}

std::string Store::ScanOrderKey(const Ref& item) {
  std::string key = item.repo.ToString();
  key += keys::kSep;
  key += keys::Num(item.number);
  return key;
}

Status Store::ForEachOperateLog(const RepoRef* repo,
                                const std::function<bool(OperateLogEvent&)>& fn,
                                std::optional<ParentKind> parents) const {
  auto scan = [this](const std::string& prefix, const auto& f) {
    return impl_->Scan(impl_->items, prefix, f, ScanMode::kBulk);
  };
  return ForEachChild<OperateLogEvent>(scan, TagPrefix(keys::kOplogTag, repo), parents, fn);
}

Status Store::ForEachFile(const RepoRef* repo, const std::function<bool(FileChange&)>& fn) const {
  return impl_->ForEachRecord<FileChange>(TagPrefix(keys::kFileTag, repo), fn, ScanMode::kBulk);
}

Status Store::ForEachPlatformLink(const RepoRef* repo,
                                  const std::function<bool(PlatformLink&)>& fn) const {
  return impl_->ForEachRecord<PlatformLink>(TagPrefix(keys::kLinkTag, repo), fn, ScanMode::kBulk);
}

namespace {

// Decodes every mention-index row under `prefix` for fn (Impl is Store::Impl).
template <typename Impl>
Status ScanMentions(const Impl& impl, const std::string& prefix,
                    const std::function<bool(MentionRecord&)>& fn) {
  Status inner;
  Status s = impl.Scan(impl.index, prefix, [&](std::string_view key, std::string_view value) {
    MentionRecord r;
    inner = Decode(value, key, &r);
    return inner.ok() && fn(r);
  }, ScanMode::kBulk);
  FG_RETURN_IF_ERROR(s);
  return inner;
}

}  // namespace

Status Store::ForEachMention(const std::function<bool(MentionRecord&)>& fn) const {
  // Rows are keyed r \0 target \0 ...; each value is the whole row (record_codec.h).
  return ScanMentions(*impl_, std::string(1, keys::kMentionIndexTag) + keys::kSep, fn);
}

Status Store::ForEachIssueMention(const RepoRef& repo,
                                  const std::function<bool(MentionRecord&)>& fn) const {
  // An issue target's text is "<repo>#<number>": the '#' ends the repository
  // name, so "a/b#" never matches "a/bc#...".
  return ScanMentions(*impl_, keys::Join(keys::kMentionIndexTag, {repo.ToString() + "#"}), fn);
}

Status Store::ForEachMentionIn(const RepoRef& repo,
                               const std::function<bool(MentionRecord&)>& fn) const {
  bool go_on = true;
  auto until_stop = [&](MentionRecord& m) { return go_on = fn(m); };
  FG_RETURN_IF_ERROR(ForEachIssueMention(repo, until_stop));
  if (!go_on) return Status::OK();
  // A PR target's text is "<repo>!<number>" (the '!' ends the name likewise).
  return ScanMentions(*impl_, keys::Join(keys::kMentionIndexTag, {repo.ToString() + "!"}), fn);
}

namespace {

// The repositories named right after `prefix` in the keys of `cf` (keys
// prefix <repo> \0 ...), each once, in key order: one seek per repository.
// (Impl is Store::Impl.)
template <typename Impl>
Status ListRepositoriesAfter(const Impl& impl, rocksdb::ColumnFamilyHandle* cf,
                             const std::string& prefix, std::vector<RepoRef>* out) {
  std::unique_ptr<rocksdb::Iterator> it(impl.db->NewIterator(rocksdb::ReadOptions(), cf));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);) {
    std::string_view rest = it->key().ToStringView().substr(prefix.size());
    size_t end = rest.find(keys::kSep);
    std::string_view text = rest.substr(0, end);
    auto ref = ParseRef(text);
    if (end == std::string_view::npos || !ref.ok() || ref->kind != RefKind::kRepo)
      return Status::Corruption("store key names no repository where one belongs: " +
                                std::string(it->key().ToStringView().substr(0, 120)));
    out->push_back(ref->repo);
    // Past every key of this repository: they all continue with kSep.
    std::string next = prefix;
    next.append(text).push_back(static_cast<char>(keys::kSep + 1));
    it->Seek(next);
  }
  return FromRocks(it->status(), "scan");
}

}  // namespace

Status Store::ListIssueRepositories(std::vector<RepoRef>* out) const {
  return ListRepositoriesAfter(*impl_, impl_->items, TagPrefix(keys::kIssueTag, nullptr), out);
}

Status Store::ListDerivedRepositories(const std::string& kind, std::vector<RepoRef>* out) const {
  return ListRepositoriesAfter(*impl_, impl_->items, keys::Prefix(keys::kDerivedTag, {kind}), out);
}

}  // namespace fixgraph
