#include "fixgraph/ingest/dump.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "fixgraph/engine/model_json.h"
#include "fixgraph/ingest/json_stream.h"
#include "fixgraph/ingest/mapper.h"

namespace fixgraph::ingest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kMarkerPrefix = "import_in_progress";

// Receives every record of a repository, in file order.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual Status Repository(const fixgraph::Repository& v, const json& raw) = 0;
  virtual Status Issue(const fixgraph::Issue& v, const json& raw) = 0;
  virtual Status Pull(const PullRequest& v, const json& raw) = 0;
  virtual Status Comment(const fixgraph::Comment& v, const json& raw) = 0;
  virtual Status Commit(const fixgraph::Commit& v, const json& raw) = 0;
  virtual Status File(const FileChange& v, const json& raw) = 0;
  virtual Status OperateLog(const OperateLogEvent& v, const json& raw) = 0;
  virtual Status Link(const PlatformLink& v) = 0;
};

// Verify pass: maps everything, writes nothing, counts.
class CountingSink final : public RecordSink {
 public:
  explicit CountingSink(ImportCounts* c) : c_(c) {}
  Status Repository(const fixgraph::Repository&, const json&) override { return Status::OK(); }
  Status Issue(const fixgraph::Issue&, const json&) override { return Bump(&c_->issues); }
  Status Pull(const PullRequest&, const json&) override { return Bump(&c_->pulls); }
  Status Comment(const fixgraph::Comment&, const json&) override {
    return Bump(&c_->comments);
  }
  Status Commit(const fixgraph::Commit&, const json&) override { return Bump(&c_->commits); }
  Status File(const FileChange&, const json&) override { return Bump(&c_->files); }
  Status OperateLog(const OperateLogEvent&, const json&) override {
    return Bump(&c_->operate_logs);
  }
  Status Link(const PlatformLink&) override { return Bump(&c_->platform_links); }

 private:
  static Status Bump(std::int64_t* n) {
    ++*n;
    return Status::OK();
  }
  ImportCounts* c_;
};

// Write pass: upserts into batches of bounded size.
class WritingSink final : public RecordSink {
 public:
  WritingSink(Store* store, const DumpRepo& repo, const ImportOptions& options,
              ImportProgress progress)
      : store_(store), repo_(repo), options_(options), progress_(progress),
        batch_(store->NewBatch()) {}

  // The marker is logged before any record is written, records are written
  // unlogged (a bulk load), and the marker is removed, logged, only after the
  // records are flushed to table files. A crash anywhere leaves the marker.
  Status Begin() {
    FG_RETURN_IF_ERROR(batch_->PutMeta(ImportMarkerKey(repo_.repo), "1"));
    return store_->Write(batch_.get(), Store::Durability::kLogged);
  }

  Status Finish() {
    FG_RETURN_IF_ERROR(Flush());
    FG_RETURN_IF_ERROR(store_->Flush());
    FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
    return store_->Write(batch_.get(), Store::Durability::kLogged);
  }
  std::int64_t changed() const { return changed_; }
  std::vector<Ref> touched() const { return batch_->TouchedItems(); }

  Status Repository(const fixgraph::Repository& v, const json& raw) override {
    return Done(batch_->PutRepository(v, Raw(raw)));
  }
  Status Issue(const fixgraph::Issue& v, const json& raw) override {
    return Done(batch_->PutIssue(v, Raw(raw)));
  }
  Status Pull(const PullRequest& v, const json& raw) override {
    return Done(batch_->PutPull(v, Raw(raw)));
  }
  Status Comment(const fixgraph::Comment& v, const json& raw) override {
    return Done(batch_->PutComment(v, Raw(raw)));
  }
  Status Commit(const fixgraph::Commit& v, const json& raw) override {
    return Done(batch_->PutCommit(v, Raw(raw)));
  }
  Status File(const FileChange& v, const json& raw) override {
    return Done(batch_->PutFile(v, Raw(raw)));
  }
  Status OperateLog(const OperateLogEvent& v, const json& raw) override {
    return Done(batch_->PutOperateLog(v, Raw(raw)));
  }
  Status Link(const PlatformLink& v) override { return Done(batch_->PutPlatformLink(v)); }

 private:
  // The payload as stored: compact JSON, or nothing for a record made up here.
  static std::string Raw(const json& raw) { return raw.is_null() ? std::string() : raw.dump(); }

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
    if (options_.on_progress) options_.on_progress(progress_);
    if (options_.after_batch) options_.after_batch(batches_);
    return Status::OK();
  }

  Store* store_;
  const DumpRepo& repo_;
  const ImportOptions& options_;
  ImportProgress progress_;
  std::unique_ptr<Store::Batch> batch_;
  size_t pending_ = 0;
  size_t batches_ = 0;
  std::int64_t changed_ = 0;
};

bool IsDecimal(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::vector<fs::path> SortedSubdirs(const fs::path& dir, std::error_code* ec) {
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, *ec), end; !*ec && it != end; it.increment(*ec)) {
    if (it->is_directory()) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Walks one repository folder, mapping every record into `sink`.
class RepoWalker {
 public:
  RepoWalker(const DumpRepo& repo, const Mapper& mapper, RecordSink* sink)
      : repo_(repo), mapper_(mapper), sink_(sink), root_(repo.dir) {}

  Status Walk() {
    bool any = false;
    fs::path repo_file = root_ / "repo.json";
    if (fs::exists(repo_file)) {
      any = true;
      FG_ASSIGN_OR_RETURN(json j, ReadJsonFile(repo_file.string()));
      fixgraph::Repository r;
      FG_RETURN_IF_ERROR(mapper_.MapRepository(j, repo_.repo, &r).WithContext(repo_file.string()));
      FG_RETURN_IF_ERROR(sink_->Repository(r, j));
    } else {
      fixgraph::Repository r;
      r.ref = repo_.repo;
      r.full_name = repo_.repo.FullName();
      r.html_url = WebUrl(Ref::Repo(repo_.repo));
      FG_RETURN_IF_ERROR(sink_->Repository(r, json()));
    }
    fs::path issues = root_ / "issues.json";
    if (fs::exists(issues)) {
      any = true;
      FG_RETURN_IF_ERROR(ForEachArrayElement(issues.string(), [&](json& j, size_t) -> Status {
        if (mapper_.IsPullInIssueList(j)) return Status::OK();
        fixgraph::Issue v;
        FG_RETURN_IF_ERROR(mapper_.MapIssue(j, repo_.repo, &v));
        return sink_->Issue(v, j);
      }));
    }
    fs::path pulls = root_ / "pulls.json";
    if (fs::exists(pulls)) {
      any = true;
      FG_RETURN_IF_ERROR(ForEachArrayElement(pulls.string(), [&](json& j, size_t) -> Status {
        PullRequest v;
        FG_RETURN_IF_ERROR(mapper_.MapPull(j, repo_.repo, &v));
        return sink_->Pull(v, j);
      }));
    }
    if (!any)
      return Status::InvalidArgument(root_.string() +
                                     ": not a repository folder (no repo.json, issues.json or "
                                     "pulls.json)");
    FG_RETURN_IF_ERROR(WalkItems("issues", RefKind::kIssue));
    return WalkItems("pulls", RefKind::kPull);
  }

 private:
  Status WalkItems(const char* folder, RefKind kind) {
    fs::path dir = root_ / folder;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status::OK();
    std::vector<fs::path> items = SortedSubdirs(dir, &ec);
    if (ec) return Status::IOError(dir.string() + ": " + ec.message());
    for (const fs::path& item : items) {
      std::string number = item.filename().string();
      bool valid = kind == RefKind::kIssue ? IsValidIssueNumber(number) : IsDecimal(number);
      if (!valid)
        return Status::InvalidArgument(item.string() + ": folder name is not " +
                                       (kind == RefKind::kIssue ? "an issue number"
                                                                : "a pull request number"));
      Ref parent = kind == RefKind::kIssue ? Ref::Issue(repo_.repo, number)
                                           : Ref::Pull(repo_.repo, std::stoll(number));
      FG_RETURN_IF_ERROR(WalkItem(item, parent));
    }
    return Status::OK();
  }

  // Calls fn for each element of item/<name> when the item folder has that file.
  Status EachIn(const fs::path& item, const char* name,
                const std::function<Status(json&)>& fn) {
    if (std::find(present_.begin(), present_.end(), name) == present_.end()) return Status::OK();
    return ForEachArrayElement((item / name).string(), [&](json& j, size_t) { return fn(j); });
  }

  Status WalkItem(const fs::path& item, const Ref& parent) {
    // One listing per item folder instead of a stat per possible file.
    present_.clear();
    std::error_code ec;
    for (fs::directory_iterator it(item, ec), end; !ec && it != end; it.increment(ec))
      present_.push_back(it->path().filename().string());
    if (ec) return Status::IOError(item.string() + ": " + ec.message());
    FG_RETURN_IF_ERROR(EachIn(item, "comments.json", [&](json& j) -> Status {
      fixgraph::Comment v;
      FG_RETURN_IF_ERROR(mapper_.MapComment(j, parent, &v));
      return sink_->Comment(v, j);
    }));
    FG_RETURN_IF_ERROR(EachIn(item, "operate_logs.json", [&](json& j) -> Status {
      OperateLogEvent v;
      FG_RETURN_IF_ERROR(mapper_.MapOperateLog(j, parent, &v));
      FG_RETURN_IF_ERROR(sink_->OperateLog(v, j));
      if (auto link = LinkFromOperateLog(v)) return sink_->Link(*link);
      return Status::OK();
    }));
    if (parent.kind == RefKind::kIssue) {
      return EachIn(item, "pull_requests.json", [&](json& j) -> Status {
        std::int64_t n = 0;
        FG_RETURN_IF_ERROR(mapper_.LinkedPullNumber(j, &n));
        return sink_->Link(PlatformLink{parent, Ref::Pull(repo_.repo, n), "issue_pull_requests"});
      });
    }
    FG_RETURN_IF_ERROR(EachIn(item, "commits.json", [&](json& j) -> Status {
      fixgraph::Commit v;
      FG_RETURN_IF_ERROR(mapper_.MapCommit(j, parent, &v));
      return sink_->Commit(v, j);
    }));
    FG_RETURN_IF_ERROR(EachIn(item, "files.json", [&](json& j) -> Status {
      FileChange v;
      FG_RETURN_IF_ERROR(mapper_.MapFile(j, parent, &v));
      return sink_->File(v, j);
    }));
    return EachIn(item, "issues.json", [&](json& j) -> Status {
      std::string number;
      FG_RETURN_IF_ERROR(mapper_.LinkedIssueNumber(j, &number));
      return sink_->Link(PlatformLink{Ref::Issue(repo_.repo, number), parent, "pull_issues"});
    });
  }

  const DumpRepo& repo_;
  const Mapper& mapper_;
  RecordSink* sink_;
  fs::path root_;
  std::vector<std::string> present_;  // file names in the item folder being walked
};

}  // namespace

void ImportCounts::Add(const ImportCounts& o) {
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

std::string ImportMarkerKey(const RepoRef& repo) {
  return std::string(kMarkerPrefix) + '\0' + repo.ToString();
}

Status InterruptedImports(const Store& store, std::vector<std::string>* repos) {
  std::map<std::string, std::string> rows;
  FG_RETURN_IF_ERROR(store.ListMeta(std::string(kMarkerPrefix) + '\0', &rows));
  for (const auto& [key, value] : rows) repos->push_back(key.substr(key.find('\0') + 1));
  return Status::OK();
}

StatusOr<std::vector<DumpRepo>> ListDumpRepositories(const std::string& dump_dir) {
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
        if (!IsValidRepoSegment(r.repo.owner) || !IsValidRepoSegment(r.repo.name))
          return Status::InvalidArgument(rdir.string() + ": not a valid OWNER/REPO folder");
        r.dir = rdir.string();
        out.push_back(std::move(r));
      }
      if (ec) return Status::IOError(odir.string() + ": " + ec.message());
    }
    if (ec) return Status::IOError(pdir.string() + ": " + ec.message());
  }
  if (out.empty())
    return Status::InvalidArgument(dump_dir +
                                   ": no repositories found (expected "
                                   "<platform>/<owner>/<repo>/ folders)");
  std::sort(out.begin(), out.end(),
            [](const DumpRepo& a, const DumpRepo& b) { return a.repo < b.repo; });
  return out;
}

Status ImportRepository(Store* store, const DumpRepo& repo, const ImportOptions& options,
                        ImportCounts* counts) {
  std::unique_ptr<Mapper> mapper = NewMapper(repo.repo.platform);
  ImportCounts c;
  c.repos = 1;
  {
    CountingSink verify(&c);
    FG_RETURN_IF_ERROR(RepoWalker(repo, *mapper, &verify).Walk());
  }
  ImportProgress progress;
  progress.repo = &repo;
  progress.records_total = c.records();
  WritingSink writer(store, repo, options, progress);
  FG_RETURN_IF_ERROR(writer.Begin());
  FG_RETURN_IF_ERROR(RepoWalker(repo, *mapper, &writer).Walk());
  FG_RETURN_IF_ERROR(writer.Finish());
  c.changed = writer.changed();
  c.touched = writer.touched();
  if (counts) counts->Add(c);
  return Status::OK();
}

Status ImportDump(Store* store, const std::string& dump_dir, const ImportOptions& options,
                  ImportCounts* counts) {
  FG_ASSIGN_OR_RETURN(std::vector<DumpRepo> repos, ListDumpRepositories(dump_dir));
  size_t threads = options.threads;
  if (threads == 0) threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  threads = std::min(threads, repos.size());

  std::mutex mu;  // guards everything below and serialises on_progress
  size_t next = 0;
  std::vector<Status> errors(repos.size());
  ImportCounts total;
  auto worker = [&] {
    for (;;) {
      size_t i;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next == repos.size()) return;
        i = next++;
      }
      ImportOptions o = options;
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
      if (s.ok()) {
        total.Add(c);
      } else {
        errors[i] = s;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
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
  if (!others.empty()) return first.WithContext("(also failed: " + others + ")");
  return first;
}

}  // namespace fixgraph::ingest
