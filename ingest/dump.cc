#include "fixgraph/ingest/dump.h"

#include "dump_list.h"
#include "dump_sinks.h"
#include "prefetch.h"
#include "tar_archive.h"

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
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace fixgraph::ingest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMarkerPrefix = "import_in_progress";

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
  // `prefetch`: item folders are read ahead by threads of their own
  // (prefetch.h).
  RepoWalker(const DumpRepo& repo, const Mapper& mapper, RecordSink* sink, ItemLayout* layout,
             WalkCount* count = nullptr, bool prefetch = false)
      : repo_(repo),
        mapper_(mapper),
        sink_(sink),
        root_(repo.dir),
        archive_(repo.archive.get()),
        layout_(layout),
        count_(count),
        prefetch_(prefetch) {}

  Status Walk() {
    bool any = false;
    if (count_ != nullptr) {
      // Listed before any record is read, so the count is known early. (The
      // two passes of a re-import list them when they reach them: the write
      // pass then also sees a folder added after the verify pass's listing.)
      FG_RETURN_IF_ERROR(ListBoth());
      listed_ = true;
      count_->total.store(static_cast<std::int64_t>(ItemCount()), std::memory_order_relaxed);
    }
    if (archive_ != nullptr && archive_fd_.fd < 0) {
      FG_ASSIGN_OR_RETURN(archive_fd_.fd, archive_->OpenReader());
    }
    Input repo_file;
    FG_RETURN_IF_ERROR(TopFile("repo.json", &repo_file));
    if (repo_file.present) {
      any = true;
      std::string text;
      JsonDoc doc;
      FG_RETURN_IF_ERROR(ReadWhole(repo_file, &text, &doc));
      fixgraph::Repository r;
      FG_RETURN_IF_ERROR(mapper_.Map(doc.root(), repo_.repo, &r).WithContext(repo_file.path));
      FG_RETURN_IF_ERROR(sink_->Repository(r, &doc));
    } else {
      fixgraph::Repository r;
      r.ref = repo_.repo;
      r.full_name = repo_.repo.FullName();
      r.html_url = WebUrl(Ref::Repo(repo_.repo));
      FG_RETURN_IF_ERROR(sink_->Repository(r, nullptr));
    }
    Input issues;
    FG_RETURN_IF_ERROR(TopFile("issues.json", &issues));
    if (issues.present) {
      any = true;
      pending_close_.clear();
      FG_RETURN_IF_ERROR(ForEachIn(issues, [&](const JsonDoc& d, size_t) -> Status {
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
    Input pulls;
    FG_RETURN_IF_ERROR(TopFile("pulls.json", &pulls));
    if (pulls.present) {
      any = true;
      FG_RETURN_IF_ERROR(ForEachIn(pulls, [&](const JsonDoc& d, size_t) -> Status {
        FG_RETURN_IF_ERROR(mapper_.Map(d.root(), repo_.repo, &pull_));
        return sink_->Pull(pull_, &d);
      }));
    }
    if (!any)
      return Status::InvalidArgument(repo_.dir +
                                     ": not a repository folder (no repo.json, issues.json or "
                                     "pulls.json)");
    replay_ = layout_->recorded;
    if (!replay_) layout_->masks.clear();
    item_index_ = 0;
    if (archive_ != nullptr) {
      if (!listed_) FG_RETURN_IF_ERROR(ListBoth());
      FG_RETURN_IF_ERROR(WalkArchived(archived_issues_, RefKind::kIssue));
    } else {
      FG_RETURN_IF_ERROR(WalkItems("issues", issue_items_, RefKind::kIssue));
    }
    // Closed issues whose folder had no operate log: as they came.
    for (auto& [number, raw] : pending_close_) FG_RETURN_IF_ERROR(SinkPendingIssue(raw, OptTime()));
    pending_close_.clear();
    if (archive_ != nullptr) {
      FG_RETURN_IF_ERROR(WalkArchived(archived_pulls_, RefKind::kPull));
    } else {
      FG_RETURN_IF_ERROR(WalkItems("pulls", pull_items_, RefKind::kPull));
    }
    if (archive_ == nullptr && replay_ && item_index_ != layout_->masks.size())
      return Status::FailedPrecondition(root_.string() +
                                        ": item folders changed during the import");
    layout_->recorded = true;
    return Status::OK();
  }

 private:
  // A file of the repository: present or not, and where (a file of the folder
  // at `path`, or an archive member).
  struct Input {
    bool present = false;
    std::string path;  // names it in errors
    const TarArchive::Member* member = nullptr;
  };

  // An item folder of an archived repository: its name and its kItemFiles
  // members (null: absent); `first` orders the walk by archive offset.
  struct ArchivedItem {
    std::string_view name;
    std::uint64_t first = UINT64_MAX;
    std::array<const TarArchive::Member*, 7> files{};
  };

  // An archive member `path` names: a regular file, or an error saying what it is.
  static Status CheckMember(const TarArchive::Member& m, const std::string& path) {
    if (m.kind == TarArchive::Kind::kFile) return Status::OK();
    return Status::InvalidArgument(path + ": not a regular file (" +
                                   (m.kind == TarArchive::Kind::kDirectory ? "a directory"
                                    : m.kind == TarArchive::Kind::kLink    ? "a link"
                                                                           : "a special file") +
                                   " in the archive)");
  }

  // repo.json, issues.json or pulls.json.
  Status TopFile(const char* name, Input* in) {
    in->path = repo_.dir + "/" + name;
    if (archive_ == nullptr) return DumpFilePresent(root_ / name, &in->present);
    in->member = archive_->Find(repo_.in_archive + name);
    in->present = in->member != nullptr;
    return in->present ? CheckMember(*in->member, in->path) : Status::OK();
  }

  // Reads a whole file (one JSON document) and parses it.
  Status ReadWhole(const Input& in, std::string* text, JsonDoc* doc) {
    if (in.member == nullptr) return ReadWholeJson(in.path, text, doc);
    FG_RETURN_IF_ERROR(TarArchive::ReadMember(archive_fd_.fd, *in.member, in.path, text));
    return doc->Parse(*text).WithContext(in.path);
  }

  template <typename Fn>
  Status ForEachIn(const Input& in, Fn fn) {
    if (in.member == nullptr) return file_.ForEach(in.path, fn);
    return file_.ForEachIn(archive_fd_.fd, in.member->offset, in.member->size, in.path, fn);
  }

  // Both item lists: the folders' or the archive's.
  Status ListBoth() {
    if (archive_ != nullptr) {
      ListArchived("issues", &archived_issues_);
      ListArchived("pulls", &archived_pulls_);
      return Status::OK();
    }
    FG_RETURN_IF_ERROR(ListItems("issues", &issue_items_));
    return ListItems("pulls", &pull_items_);
  }
  size_t ItemCount() const {
    return archive_ != nullptr ? archived_issues_.size() + archived_pulls_.size()
                               : issue_items_.size() + pull_items_.size();
  }

  // The item folders of `folder` in the archive, in the order their files lie
  // there (the walk reads the archive forward). Paths below an item folder's
  // own files, and files beside the item folders, are not read (as in a
  // folder dump).
  void ListArchived(const char* folder, std::vector<ArchivedItem>* items) {
    items->clear();
    std::string under = repo_.in_archive + folder + "/";
    archive_->ForEachUnder(under, [&](const TarArchive::Member& m) {
      std::string_view rest = m.path.substr(under.size());
      std::size_t slash = rest.find('/');
      if (slash == std::string_view::npos && m.kind != TarArchive::Kind::kDirectory) return;
      std::string_view name = rest.substr(0, slash);
      // Members sort by path, so one folder's are together ("12.json" sorts
      // between "12" and "12/...", and is passed above).
      if (items->empty() || items->back().name != name) items->push_back(ArchivedItem{name});
      ArchivedItem& item = items->back();
      item.first = std::min(item.first, m.offset);
      if (slash == std::string_view::npos) return;
      std::string_view file = rest.substr(slash + 1);
      for (std::size_t f = 0; f < item.files.size(); ++f)
        if (file == kItemFiles[f]) item.files[f] = &m;
    });
    std::stable_sort(
        items->begin(), items->end(),
        [](const ArchivedItem& a, const ArchivedItem& b) { return a.first < b.first; });
  }

  // The issue or PR an item folder named `number` holds; an error naming
  // `item_path` when the name is no issue or PR number.
  Status ItemRef(const std::string& item_path, const std::string& number, RefKind kind,
                 Ref* parent) const {
    bool valid = kind == RefKind::kIssue ? IsValidIssueNumber(number) : IsDecimal(number);
    if (!valid)
      return Status::InvalidArgument(
          item_path + ": folder name is not " +
          (kind == RefKind::kIssue ? "an issue number" : "a pull request number"));
    *parent = kind == RefKind::kIssue ? Ref::Issue(repo_.repo, number)
                                      : Ref::Pull(repo_.repo, std::stoll(number));
    return Status::OK();
  }

  Status WalkArchived(const std::vector<ArchivedItem>& items, RefKind kind) {
    std::string item_path;
    for (const ArchivedItem& item : items) {
      item_path = repo_.dir;
      item_path += kind == RefKind::kIssue ? "/issues/" : "/pulls/";
      item_path += item.name;
      Ref parent;
      FG_RETURN_IF_ERROR(ItemRef(item_path, std::string(item.name), kind, &parent));
      archived_ = &item;
      Status s = WalkItem(item_path, parent);
      archived_ = nullptr;
      FG_RETURN_IF_ERROR(s);
      if (count_ != nullptr) count_->done.fetch_add(1, std::memory_order_relaxed);
    }
    return Status::OK();
  }

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
    std::optional<FolderPrefetcher> ahead;  // destroyed before the folder is closed
    if (prefetch_) {
      std::vector<std::string> names;
      names.reserve(items.size());
      for (const fs::path& item : items) names.push_back(item.filename().native());
      ahead.emplace(items_fd_, std::move(names));
    }
    size_t walked = 0;
    for (const fs::path& item : items) {
      Ref parent;
      FG_RETURN_IF_ERROR(ItemRef(item.string(), item.filename().string(), kind, &parent));
      FG_RETURN_IF_ERROR(WalkItem(item.native(), parent));
      if (ahead) ahead->Advance(++walked);
      if (count_ != nullptr) count_->done.fetch_add(1, std::memory_order_relaxed);
    }
    return Status::OK();
  }

  // Calls fn for each element of item/<kItemFiles[file]> when the item folder has that file.
  template <typename Fn>
  Status EachIn(const std::string& item, int file, Fn fn) {
    if ((present_ & (1u << file)) == 0) return Status::OK();
    path_ = item;
    path_ += '/';
    path_ += kItemFiles[file];
    auto each = [&](const JsonDoc& d, size_t) -> Status { return fn(d); };
    if (archived_ != nullptr) {
      const TarArchive::Member& m = *archived_->files[file];
      FG_RETURN_IF_ERROR(CheckMember(m, path_));
      return file_.ForEachIn(archive_fd_.fd, m.offset, m.size, path_, each);
    }
    return file_.ForEachAt(dir_fd_, kItemFiles[file], path_, each);
  }

  // Reads the whole item file `file` (one JSON document) into `doc`; `path`
  // receives its name.
  Status ReadItemWhole(const std::string& item, int file, std::string* path, std::string* text,
                       JsonDoc* doc) {
    *path = item + "/" + kItemFiles[file];
    Input in;
    in.present = true;
    in.path = *path;
    if (archived_ != nullptr) {
      in.member = archived_->files[file];
      FG_RETURN_IF_ERROR(CheckMember(*in.member, in.path));
    }
    return ReadWhole(in, text, doc);
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

  Status WalkItem(const std::string& item, const Ref& parent) {
    OpenDir open_dir(&dir_fd_);
    if (archived_ != nullptr) {
      present_ = 0;
      for (std::size_t f = 0; f < archived_->files.size(); ++f)
        if (archived_->files[f] != nullptr) present_ |= 1u << f;
      return WalkItemFiles(item, parent);
    }
    size_t index = item_index_++;
    auto name_hash = static_cast<std::uint32_t>(std::hash<std::string>()(item));
    if (replay_) {
      if (index >= layout_->masks.size() || layout_->masks[index].name_hash != name_hash)
        return Status::FailedPrecondition(item + ": item folders changed during the import");
      present_ = layout_->masks[index].files;
    } else {
      // One listing per item folder instead of a stat per possible file; the
      // folder stays open and its files are opened relative to it.
      present_ = 0;
      int fd = ::openat(items_fd_, item.c_str() + item.rfind('/') + 1,
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return Status::IOError(item + ": " + std::strerror(errno));
      dir_fd_ = fd;  // closed by open_dir
      int err = ForEachDirEntry(fd, [this](const struct dirent64& e) {
        std::string_view file(e.d_name);
        for (int f = 0; f < static_cast<int>(std::size(kItemFiles)); ++f)
          if (file == kItemFiles[f]) present_ |= 1u << f;
      });
      if (err != 0) return Status::IOError(item + ": " + std::strerror(err));
      if (layout_->keep) layout_->masks.push_back({name_hash, present_});
    }
    return WalkItemFiles(item, parent);
  }

  // Reads the files of the item folder `item` (present_ says which it has).
  Status WalkItemFiles(const std::string& item, const Ref& parent) {
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
        std::string text, path;
        JsonDoc doc;
        FG_RETURN_IF_ERROR(ReadItemWhole(item, 6, &path, &text, &doc));
        std::vector<OperateLogEvent> branches;
        FG_RETURN_IF_ERROR(RelatedBranchEvents(doc.root(), parent, &branches).WithContext(path));
        for (OperateLogEvent& e : branches) FG_RETURN_IF_ERROR(sink_->OperateLog(e, nullptr));
      }
      if ((present_ & (1u << 2)) == 0) return Status::OK();
      // pull_requests.json: an array, or (as some docs show it) one object.
      std::string text, path;
      JsonDoc doc;
      FG_RETURN_IF_ERROR(ReadItemWhole(item, 2, &path, &text, &doc));
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
  const TarArchive* archive_ = nullptr;  // an archived repository (repo_.archive)
  struct OwnedFd {
    int fd = -1;
    ~OwnedFd() {
      if (fd >= 0) ::close(fd);
    }
  } archive_fd_;  // this walker's reader of archive_
  std::vector<ArchivedItem> archived_issues_, archived_pulls_;
  const ArchivedItem* archived_ = nullptr;  // the archived item being walked
  ItemLayout* layout_;
  bool replay_ = false;    // layout_ was recorded by an earlier walk
  size_t item_index_ = 0;  // item folders walked so far
  unsigned present_ = 0;   // kItemFiles bits of the item folder being walked
  std::string path_;       // scratch for EachIn
  int dir_fd_ = -1;        // the item folder being walked, when open (OpenDir)
  int items_fd_ = -1;      // the folder of the item folders (WalkItems)
  WalkCount* count_ = nullptr;
  bool prefetch_ = false;  // item folders read ahead (FolderPrefetcher)
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
      s = RepoWalker(repo, *mapper, &both, &layout, &items, options.prefetch).Walk();
      Status w = pipe.Close();
      if (s.ok()) s = w;
    } else {
      DirectWriteSink direct(&writer);
      CountingWritingSink both(&count, &direct);
      s = RepoWalker(repo, *mapper, &both, &layout, &items, options.prefetch).Walk();
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
      FG_RETURN_IF_ERROR(
          RepoWalker(repo, *mapper, &verify, &layout, nullptr, options.prefetch).Walk());
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
