#include "fixgraph/ingest/sync.h"

#include "dump_writer.h"
#include "sync_fetch.h"

#include "fixgraph/engine/json_field.h"
#include "fixgraph/engine/mentions.h"
#include "fixgraph/engine/parallel.h"
#include "fixgraph/ingest/dump.h"
#include "fixgraph/ingest/json_reader.h"
#include "fixgraph/ingest/mapper.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

namespace fixgraph::ingest {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kCursorPrefix = "sync_cursor";
constexpr const char* kSkippedPrefix = "sync_skipped";

std::string SinceParam(UnixSeconds t) {
  std::string s = FormatUtc(t);  // ...Z
  if (!s.empty() && s.back() == 'Z') s = s.substr(0, s.size() - 1) + "+00:00";
  return UrlEncode(s);
}

// Cursor of one list ("issues/all"): JSON in the repository's meta value.
struct ListCursor {
  std::optional<UnixSeconds> since;      // complete runs: newest updated_at seen
  int page = 0;                          // >0: a run in progress; next page to fetch
  std::optional<UnixSeconds> run_since;  // the since of the run in progress
  std::optional<UnixSeconds> max;        // newest updated_at of the run so far
};

json OptJson(const std::optional<UnixSeconds>& t) { return t ? json(*t) : json(nullptr); }
std::optional<UnixSeconds> OptFrom(const json& j, const char* k) {
  auto it = j.find(k);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<UnixSeconds>();
}

// The cursor to store after a page: `next_page` 0 when the run is complete
// (its newest updated_at becomes `since`), else the page to resume at.
json NextCursor(const ListCursor& c, const std::optional<UnixSeconds>& run_since,
                const std::optional<UnixSeconds>& max, int next_page) {
  json nc = json::object();
  if (next_page == 0) {
    nc["since"] = OptJson(max);
    nc["page"] = 0;
  } else {
    nc["since"] = OptJson(c.since);
    nc["page"] = next_page;
    nc["run_since"] = OptJson(run_since);
    nc["max"] = OptJson(max);
  }
  return nc;
}

struct DetailTask {
  size_t item;           // index into the page's changed items
  std::string endpoint;  // file name in the dump: "comments.json" ...
  std::string path;
  std::string query;
  bool paged;
  bool object_ok = false;  // one object is a list of one
};

// An item of a list page that is new or changed, with what its list entry
// tells about which detail endpoints can matter.
struct ChangedItem {
  Ref ref;
  std::string raw;      // the list entry as stored
  bool closed = false;  // issue closed; PR closed or merged
  bool merged = false;
  std::int64_t comments = -1;     // the count the list shows; -1 unknown
  bool names_issue = false;       // PR title or body mentions an issue
  bool needs_close_time = false;  // closed issue without a close time
};

// Explains a 404 on a detail endpoint.
const char* kDetailNotFound =
    "the platform has no such record for this item (GitCode is reported to answer 404 for "
    "some pulls/N/issues); this endpoint of this item is skipped";

class RepoSync {
 public:
  RepoSync(Store* store, const RepoRef& repo, const SyncOptions& options, SyncCounts* counts,
           size_t index, size_t count)
      : store_(store),
        repo_(repo),
        options_(options),
        counts_(counts),
        fetch_(repo.platform, options),
        mapper_(NewMapper(repo.platform, MapperOptions{options.naive_utc_offset_minutes})),
        batch_(store->NewBatch()),
        start_(Clock::now()) {
    progress_.repo = repo.ToString();
    progress_.repo_index = index;
    progress_.repo_count = count;
    endpoints_ = options.endpoints.empty()
                     ? std::set<std::string>(AllSyncEndpoints().begin(), AllSyncEndpoints().end())
                     : options.endpoints;
    if (!options.record_dir.empty())
      record_ = std::make_unique<DumpWriter>(options.record_dir, repo);
  }

  Status Run() {
    Status s = RunInner();
    counts_->requests += fetch_.requests();
    counts_->retries += fetch_.retries();
    counts_->rate_limit_waits += fetch_.waits();
    if (!s.ok()) {
      if (s.code() == Status::Code::kIOError ||
          s.message().find("unexpired token") != std::string::npos)
        counts_->stop = true;
      return s.WithContext("sync " + repo_.ToString());
    }
    counts_->repos += 1;
    std::vector<Ref> t = batch_->TouchedItems();
    counts_->touched.insert(counts_->touched.end(), t.begin(), t.end());
    // Unlinks in one item's log of links another's log added (or an earlier
    // sync stored).
    return ApplyOperateLogUnlinks(store_, &repo_, &counts_->touched)
        .WithContext("sync " + repo_.ToString());
  }

 private:
  std::string RepoPath() const { return "/repos/" + repo_.owner + "/" + repo_.name; }

  Status RunInner() {
    if (options_.state != "all" && options_.state != "open" && options_.state != "closed")
      return Status::InvalidArgument("--state must be all, open or closed, not \"" +
                                     options_.state + "\"");
    auto raw_cursor = store_->GetMeta(SyncCursorKey(repo_));
    if (raw_cursor.ok()) {
      cursor_ = json::parse(*raw_cursor, nullptr, false);
      if (!cursor_.is_object()) cursor_ = json::object();
    } else if (raw_cursor.status().IsNotFound()) {
      cursor_ = json::object();
    } else {
      return raw_cursor.status();
    }
    FG_RETURN_IF_ERROR(SyncRepositoryRecord());
    FG_RETURN_IF_ERROR(RetrySkipped());
    FG_RETURN_IF_ERROR(SyncList("issues"));
    FG_RETURN_IF_ERROR(SyncList("pulls"));
    if (record_) FG_RETURN_IF_ERROR(record_->Finish());
    return Status::OK();
  }

  // The endpoints earlier syncs skipped: asked for again first; those that
  // answer now leave the list.
  Status RetrySkipped() {
    skipped_loaded_ = true;
    auto stored = store_->GetMeta(SyncSkippedKey(repo_));
    if (!stored.ok()) return stored.status().IsNotFound() ? Status::OK() : stored.status();
    json list = json::parse(*stored, nullptr, false);
    if (!list.is_array()) list = json::array();
    // Group by item, in order.
    std::vector<ChangedItem> items[2];
    std::vector<std::set<std::string>> only[2];
    for (const json& e : list) {
      auto ref = ParseRef(StringOrEmpty(e, "item"));
      if (!ref.ok() || ref->repo != repo_) continue;
      int k = ref->kind == RefKind::kIssue ? 0 : 1;
      if (ref->kind != RefKind::kIssue && ref->kind != RefKind::kPull) continue;
      size_t at = 0;
      while (at < items[k].size() && !(items[k][at].ref == *ref)) ++at;
      if (at == items[k].size()) {
        ChangedItem c;
        c.ref = *ref;
        auto raw = store_->GetRaw(*ref);
        if (raw.ok()) c.raw = *raw;
        items[k].push_back(c);
        only[k].emplace_back();
      }
      only[k][at].insert(StringOrEmpty(e, "endpoint"));
    }
    for (int k = 0; k < 2; ++k) {
      if (items[k].empty()) continue;
      retry_only_ = &only[k];
      Status s = FetchDetails(k == 0, items[k]);
      retry_only_ = nullptr;
      FG_RETURN_IF_ERROR(s);
    }
    return CommitBatch();
  }

  Status SyncRepositoryRecord() {
    StatusOr<Fetched> f = fetch_.Get(RepoPath());
    Repository r;
    std::string raw;
    if (f.ok() && f->body.is_object()) {
      FG_RETURN_IF_ERROR(mapper_->MapRepository(f->body, repo_, &r).WithContext(RepoPath()));
      raw = f->body.dump();
      if (record_) FG_RETURN_IF_ERROR(record_->SetRepository(f->body));
    } else if (!f.ok() &&
               (f.status().IsNotFound() || f.status().code() == Status::Code::kFailedPrecondition ||
                f.status().code() == Status::Code::kIOError)) {
      return f.status();  // nothing written
    } else {
      // GitCode answers 400 to anonymous repository reads: keep what we know,
      // as import does for a dump without repo.json.
      r.ref = repo_;
      r.full_name = repo_.FullName();
      r.html_url = WebUrl(Ref::Repo(repo_));
    }
    FG_RETURN_IF_ERROR(batch_->PutRepository(r, raw));
    return CommitBatch();
  }

  Status CommitBatch() {
    if (skipped_loaded_) {
      if (skipped_state_.empty()) {
        FG_RETURN_IF_ERROR(batch_->DeleteMeta(SyncSkippedKey(repo_)));
      } else {
        FG_RETURN_IF_ERROR(batch_->PutMeta(SyncSkippedKey(repo_), skipped_state_.dump()));
      }
    }
    counts_->changed += batch_->changed();
    FG_RETURN_IF_ERROR(store_->Write(batch_.get(), Store::Durability::kLogged)
                           .WithContext("write " + repo_.ToString()));
    ++batches_;
    if (options_.after_batch) options_.after_batch(batches_);
    return Status::OK();
  }

  void Report() {
    if (!options_.on_progress) return;
    progress_.requests = fetch_.requests();
    progress_.rate_limit_waits = fetch_.waits();
    progress_.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
    progress_.eta_s = -1;
    if (progress_.total_pages > 0 && progress_.page > 0) {
      double per_page = progress_.elapsed_s / pages_done_;
      progress_.eta_s = per_page * std::max(0, progress_.total_pages - progress_.page);
    }
    options_.on_progress(progress_);
  }

  Status SyncList(const std::string& list) {
    const bool issues = list == "issues";
    const std::string ckey = list + "/" + options_.state;
    json& cj = cursor_[ckey];
    if (!cj.is_object()) cj = json::object();
    ListCursor c;
    c.since = OptFrom(cj, "since");
    c.page = static_cast<int>(OptFrom(cj, "page").value_or(0));
    c.run_since = OptFrom(cj, "run_since");
    c.max = OptFrom(cj, "max");
    const bool resume = c.page > 0;
    std::optional<UnixSeconds> run_since =
        resume ? c.run_since : (options_.since ? options_.since : c.since);
    const bool has_since = issues || fetch_.api().pulls_since;
    // Full or `since` runs read oldest-created first: new items append at the
    // end, so pages do not shift under us. Lists without `since` read newest
    // update first and stop at the first item older than the cursor.
    const bool desc_mode = run_since.has_value() && !has_since;
    int page = resume ? c.page : 1;
    std::optional<UnixSeconds> max = resume ? c.max : run_since;
    progress_.list = list;
    progress_.total_pages = 0;
    pages_done_ = 0;
    unstable_ = false;

    // total_count differing between pages means the list shifted while we
    // read it: read it again (bounded); unchanged items cost no detail requests.
    std::string first_total;
    int pass = 0;
    for (; page <= kMaxPages; ++page) {
      std::string q = RepoPath() + "/" + list + "?state=" + options_.state;
      if (desc_mode) {
        q += "&sort=updated&direction=desc";
      } else {
        q += "&sort=created&direction=asc";
        if (run_since) q += "&since=" + SinceParam(*run_since);
      }
      q += "&page=" + std::to_string(page) + "&per_page=" + std::to_string(options_.per_page);
      FG_ASSIGN_OR_RETURN(Fetched f, fetch_.Get(q));
      if (!f.body.is_array())
        return Status::Corruption("GET " + fetch_.Scrub(q) + ": expected a JSON array");
      ++pages_done_;
      std::string total = f.response.Header("total_count");
      if (first_total.empty()) first_total = total;
      bool shifted = !total.empty() && total != first_total;
      std::string tp = f.response.Header("total_page");
      if (!tp.empty()) progress_.total_pages = std::atoi(tp.c_str());
      const size_t got = f.body.size();
      bool stop = false;

      // Map the page; find the items that are new or changed.
      std::vector<ChangedItem> changed;
      FG_RETURN_IF_ERROR(
          MapListPage(list, q, desc_mode, run_since, &f.body, &max, &changed, &stop));
      FG_RETURN_IF_ERROR(FetchDetails(issues, changed));

      bool last =
          stop || got == 0 || !Fetcher::HasNextPage(f.response, page, got, options_.per_page);
      if (shifted) unstable_ = true;
      bool again = last && unstable_ && pass < 2;
      cj = NextCursor(c, run_since, max, again ? 1 : last ? 0 : page + 1);
      FG_RETURN_IF_ERROR(batch_->PutMeta(SyncCursorKey(repo_), cursor_.dump()));
      FG_RETURN_IF_ERROR(CommitBatch());
      progress_.page = page;
      Report();
      if (again) {
        ++pass;
        unstable_ = false;
        first_total.clear();
        page = 0;  // ++page makes it 1
        continue;
      }
      if (last) break;
    }
    return Status::OK();
  }

  // Maps one page of a list (each item stored through batch_, counted and
  // recorded); the items new or changed against the store go to *changed. In
  // desc_mode the first item updated before run_since ends the list (*stop).
  // `q` names the request in errors.
  Status MapListPage(const std::string& list, const std::string& q, bool desc_mode,
                     const std::optional<UnixSeconds>& run_since, json* page,
                     std::optional<UnixSeconds>* max, std::vector<ChangedItem>* changed,
                     bool* stop) {
    const bool issues = list == "issues";
    for (json& j : *page) {
      if (issues && mapper_->IsPullInIssueList(j)) {
        if (record_) {
          std::string url = StringOrEmpty(j, "url");
          record_->AddListItem(list, "pr:" + (url.empty() ? j.dump() : url), j);
        }
        continue;
      }
      ChangedItem item;
      OptTime updated;
      std::string raw = j.dump();
      if (issues) {
        Issue v;
        FG_RETURN_IF_ERROR(mapper_->MapIssue(j, repo_, &v).WithContext("GET " + fetch_.Scrub(q)));
        item.ref = v.ref();
        updated = v.updated_at;
        if (desc_mode && updated && *updated < *run_since) {
          *stop = true;
          break;
        }
        FG_RETURN_IF_ERROR(batch_->PutIssue(v, raw));
        ++counts_->issues;
        item.closed = v.state == IssueState::kClosed;
        item.needs_close_time = item.closed && !v.closed_at && repo_.platform != Platform::kGitHub;
      } else {
        PullRequest v;
        FG_RETURN_IF_ERROR(mapper_->MapPull(j, repo_, &v).WithContext("GET " + fetch_.Scrub(q)));
        item.ref = v.ref();
        updated = v.updated_at;
        if (desc_mode && updated && *updated < *run_since) {
          *stop = true;
          break;
        }
        FG_RETURN_IF_ERROR(batch_->PutPull(v, raw));
        ++counts_->pulls;
        item.closed = v.state != PullState::kOpen;
        item.merged = v.merged();
        for (const Mention& m : FindMentions(v.title + "\n" + v.body, repo_))
          if (m.target.kind == RefKind::kIssue) item.names_issue = true;
      }
      for (const char* key : {"comments", "notes"}) {
        auto it = j.find(key);
        if (it != j.end() && it->is_number_integer()) item.comments = it->get<std::int64_t>();
      }
      if (updated && (!*max || *updated > **max)) *max = updated;
      ++progress_.items;
      if (record_) record_->AddListItem(list, item.ref.number, j);
      auto stored = store_->GetRaw(item.ref);
      bool is_new_or_changed = !stored.ok() || *stored != raw;
      if (is_new_or_changed && seen_.insert(item.ref.ToString() + "\n" + raw).second) {
        item.raw = std::move(raw);
        changed->push_back(std::move(item));
      }
    }
    return Status::OK();
  }

  // Whether a detail endpoint (--only name) of `item` can change a link or
  // an answer; all of them with all_details.
  bool Worth(const ChangedItem& item, bool issues, const std::string& name) const {
    if (options_.all_details) return true;
    if (name == "comments") return item.comments != 0;  // -1: the list shows no count
    // Issues: the operate log (links, close time, labels) of closed ones;
    // their linked-PR list repeats what the PRs' own lists and the log say.
    if (issues) return item.closed && name == "operate_logs";
    // PRs: the linked-issue list says what the operate log would (the log
    // is asked for when that list fails).
    if (name == "operate_logs") return false;
    if (name == "links") return item.merged || item.names_issue;
    return item.merged;  // commits, files
  }

  // Fetches the wanted detail endpoints of `items` (in parallel) and puts
  // their records into the batch. A failure confined to one endpoint (404,
  // another 4xx, retries exhausted) skips that endpoint of that item and is
  // recorded; a bad token or an unreachable host stops everything.
  Status FetchDetails(bool issues, const std::vector<ChangedItem>& items) {
    if (items.empty()) return Status::OK();
    const PlatformApi& api = fetch_.api();
    const bool github = api.platform == Platform::kGitHub;
    std::vector<DetailTask> tasks;
    for (size_t i = 0; i < items.size(); ++i) {
      const ChangedItem& item = items[i];
      const std::string& n = item.ref.number;
      std::string item_path = RepoPath() + (issues ? "/issues/" : "/pulls/") + n;
      auto want = [&](const char* e, const char* file) {
        if (retry_only_ != nullptr) return (*retry_only_)[i].count(file) > 0;
        return endpoints_.count(e) > 0 && Worth(item, issues, e);
      };
      if (want("comments", "comments.json"))
        tasks.push_back({i, "comments.json", item_path + "/comments", "", true});
      if (api.operate_logs && want("operate_logs", "operate_logs.json")) {
        if (issues) {
          tasks.push_back({i, "operate_logs.json",
                           "/repos/" + repo_.owner + "/issues/" + n + "/operate_logs",
                           "repo=" + UrlEncode(repo_.name), false});
        } else {
          tasks.push_back({i, "operate_logs.json", item_path + "/operate_logs", "", true});
        }
      }
      if (issues) {
        if (api.issue_pull_links && want("links", "pull_requests.json"))
          tasks.push_back({i, "pull_requests.json", item_path + "/pull_requests", "", false, true});
        if (api.related_branches && (options_.all_details || retry_only_ != nullptr) &&
            want("links", "related_branches.json"))
          tasks.push_back({i, "related_branches.json", item_path + "/related_branches", "", false});
      } else {
        if (want("commits", "commits.json"))
          tasks.push_back(
              {i, "commits.json", item_path + "/commits", "", api.platform != Platform::kGitee});
        if (want("files", "files.json"))
          tasks.push_back({i, "files.json", item_path + "/files", "", github});
        if (api.pull_issue_links && want("links", "issues.json"))
          tasks.push_back({i, "issues.json", item_path + "/issues", "", true});
      }
    }
    std::vector<std::vector<OperateLogEvent>> logs(items.size());
    FG_RETURN_IF_ERROR(RunTasks(issues, items, tasks, &logs));
    // Follow-ups that only the first answers show to be needed: a PR whose
    // linked-issue list failed gets its operate log (the same links); an
    // issue whose log links branches gets its related_branches.
    if (!options_.all_details && retry_only_ == nullptr) {
      std::vector<DetailTask> more;
      std::set<size_t> logged;
      for (const DetailTask& t : tasks)
        if (t.endpoint == "operate_logs.json") logged.insert(t.item);
      for (const SkippedEndpoint& sk : counts_->skipped) {
        for (size_t i = 0; i < items.size(); ++i) {
          if (issues || !api.operate_logs || sk.item != items[i].ref.ToString() ||
              sk.endpoint != "issues.json" || logged.count(i) ||
              endpoints_.count("operate_logs") == 0)
            continue;
          logged.insert(i);
          more.push_back({i, "operate_logs.json",
                          RepoPath() + "/pulls/" + items[i].ref.number + "/operate_logs", "",
                          true});
        }
      }
      if (issues && api.related_branches && endpoints_.count("links")) {
        for (size_t i = 0; i < items.size(); ++i) {
          bool branches = std::any_of(logs[i].begin(), logs[i].end(), [](const OperateLogEvent& e) {
            return OperateLogType(e).find("issue_branch_link") != std::string::npos;
          });
          if (branches)
            more.push_back({i, "related_branches.json",
                            RepoPath() + "/issues/" + items[i].ref.number + "/related_branches", "",
                            false});
        }
      }
      if (!more.empty()) {
        FG_RETURN_IF_ERROR(RunTasks(issues, items, more, &logs));
        tasks.insert(tasks.end(), more.begin(), more.end());
      }
    }
    for (size_t i = 0; i < items.size(); ++i) {
      for (const PlatformLink& link : LinksFromOperateLog(logs[i])) {
        FG_RETURN_IF_ERROR(batch_->PutPlatformLink(link));
        ++counts_->platform_links;
      }
      // A closed issue without a close time: its operate log's.
      if (issues && items[i].needs_close_time && !items[i].raw.empty()) {
        OptTime closed = CloseTimeFromOperateLog(logs[i]);
        if (closed) {
          Issue v;
          FG_RETURN_IF_ERROR(mapper_->MapIssue(json::parse(items[i].raw), repo_, &v));
          v.closed_at = closed;
          FG_RETURN_IF_ERROR(batch_->PutIssue(v, items[i].raw));
        }
      }
    }
    std::set<size_t> fetched;
    for (const DetailTask& task : tasks) fetched.insert(task.item);
    counts_->detailed += static_cast<std::int64_t>(fetched.size());
    return Status::OK();
  }

  // Runs `tasks` in parallel and puts what they fetched into the batch; the
  // operate-log events go to `logs` (per item) as well.
  Status RunTasks(bool issues, const std::vector<ChangedItem>& items,
                  const std::vector<DetailTask>& tasks,
                  std::vector<std::vector<OperateLogEvent>>* logs) {
    std::vector<StatusOr<json>> results(tasks.size(), StatusOr<json>(json()));
    // After a fatal error no further request is sent (those under way
    // finish); tasks are taken in order, so every task before the first
    // fatal one has run.
    std::atomic<bool> fatal{false};
    ParallelFor(tasks.size(), static_cast<size_t>(std::max(1, options_.parallelism)),
                [&](size_t t, size_t) {
                  if (fatal) return;
                  const DetailTask& task = tasks[t];
                  results[t] = task.endpoint == "related_branches.json"
                                   ? FetchBranches(task.path)
                                   : fetch_.GetAll(task.path, task.query, task.paged,
                                                   kDetailNotFound, task.object_ok);
                  if (!results[t].ok() && Fatal(results[t].status())) fatal = true;
                });

    for (size_t t = 0; t < tasks.size(); ++t) {
      if (!results[t].ok() && Fatal(results[t].status())) return results[t].status();
    }
    for (size_t t = 0; t < tasks.size(); ++t) {
      const DetailTask& task = tasks[t];
      const Ref& parent = items[task.item].ref;
      if (!results[t].ok()) {
        Skip(parent, task, results[t].status());
        continue;
      }
      json& arr = *results[t];
      if (record_)
        FG_RETURN_IF_ERROR(
            record_->WriteDetail(issues ? "issues" : "pulls", parent.number, task.endpoint, arr));
      FG_RETURN_IF_ERROR(PutDetails(task.endpoint, parent, arr, &(*logs)[task.item])
                             .WithContext("GET " + fetch_.Scrub(task.path)));
    }
    return Status::OK();
  }

  // GitCode's issues/N/related_branches: branch names.
  StatusOr<json> FetchBranches(const std::string& path) {
    FG_ASSIGN_OR_RETURN(Fetched f, fetch_.Get(path, kDetailNotFound));
    if (f.body.is_string()) return json::array({f.body});
    if (!f.body.is_array())
      return Status::Corruption("GET " + fetch_.Shown(path) +
                                ": expected an array of branch names");
    return std::move(f.body);
  }

  static bool Fatal(const Status& s) {
    return s.code() == Status::Code::kIOError || s.code() == Status::Code::kFailedPrecondition;
  }

  void Skip(const Ref& item, const DetailTask& task, const Status& why) {
    SkippedEndpoint e;
    e.item = item.ToString();
    e.endpoint = task.endpoint;
    e.url = fetch_.Shown(task.path + (task.query.empty() ? "" : "?" + task.query));
    std::string reason = why.message();
    if (why.code() == Status::Code::kUnavailable)
      reason +=
          " (the platform kept failing on this endpoint; it is asked for again by the next sync)";
    e.reason = reason;
    counts_->skipped.push_back(e);
    skipped_state_.push_back(
        json{{"item", e.item}, {"endpoint", e.endpoint}, {"url", e.url}, {"reason", e.reason}});
  }

  Status PutDetails(const std::string& endpoint, const Ref& parent, json& arr,
                    std::vector<OperateLogEvent>* log) {
    for (json& j : arr) {
      std::string raw = j.dump();
      if (endpoint == "comments.json") {
        fixgraph::Comment v;
        FG_RETURN_IF_ERROR(mapper_->MapComment(j, parent, &v));
        std::vector<fixgraph::Comment> replies;
        FG_RETURN_IF_ERROR(mapper_->MapReplies(j, v, parent, &replies));
        FG_RETURN_IF_ERROR(batch_->PutComment(v, raw));
        ++counts_->comments;
        for (const fixgraph::Comment& r : replies) {
          FG_RETURN_IF_ERROR(batch_->PutComment(r, ""));
          ++counts_->comments;
        }
      } else if (endpoint == "operate_logs.json") {
        OperateLogEvent v;
        FG_RETURN_IF_ERROR(mapper_->MapOperateLog(j, parent, &v));
        FG_RETURN_IF_ERROR(batch_->PutOperateLog(v, raw));
        ++counts_->operate_logs;
        log->push_back(std::move(v));
      } else if (endpoint == "pull_requests.json") {
        Ref pull;
        FG_RETURN_IF_ERROR(mapper_->LinkedPull(j, repo_, &pull));
        FG_RETURN_IF_ERROR(
            batch_->PutPlatformLink(PlatformLink{parent, pull, "issue_pull_requests"}));
        ++counts_->platform_links;
      } else if (endpoint == "commits.json") {
        fixgraph::Commit v;
        FG_RETURN_IF_ERROR(mapper_->MapCommit(j, parent, &v));
        FG_RETURN_IF_ERROR(batch_->PutCommit(v, raw));
        ++counts_->commits;
      } else if (endpoint == "files.json") {
        FileChange v;
        FG_RETURN_IF_ERROR(mapper_->MapFile(j, parent, &v));
        FG_RETURN_IF_ERROR(batch_->PutFile(v, raw));
        ++counts_->files;
      } else if (endpoint == "issues.json") {
        Ref issue;
        FG_RETURN_IF_ERROR(mapper_->LinkedIssue(j, repo_, &issue));
        FG_RETURN_IF_ERROR(batch_->PutPlatformLink(PlatformLink{issue, parent, "pull_issues"}));
        ++counts_->platform_links;
      }
    }
    if (endpoint == "related_branches.json") {
      std::vector<OperateLogEvent> events;
      FG_RETURN_IF_ERROR(RelatedBranchEvents(arr, parent, &events));
      for (const OperateLogEvent& e : events) {
        FG_RETURN_IF_ERROR(batch_->PutOperateLog(e, ""));
        ++counts_->operate_logs;
      }
    }
    return Status::OK();
  }

  Store* store_;
  RepoRef repo_;
  const SyncOptions& options_;
  SyncCounts* counts_;
  Fetcher fetch_;
  std::unique_ptr<Mapper> mapper_;
  std::unique_ptr<Store::Batch> batch_;
  std::unique_ptr<DumpWriter> record_;
  std::set<std::string> endpoints_;
  std::set<std::string> seen_;  // items whose details this run fetched
  // While RetrySkipped runs: per item, the endpoint files to ask for again.
  const std::vector<std::set<std::string>>* retry_only_ = nullptr;
  // The skipped endpoints still missing (SyncSkippedKey), once loaded.
  json skipped_state_ = json::array();
  bool skipped_loaded_ = false;
  json cursor_;
  SyncProgress progress_;
  Clock::time_point start_;
  size_t batches_ = 0;
  int pages_done_ = 0;
  bool unstable_ = false;
};

}  // namespace

const std::vector<std::string>& AllSyncEndpoints() {
  static const std::vector<std::string> kAll = {"comments", "commits", "files", "operate_logs",
                                                "links"};
  return kAll;
}

void SyncCounts::Add(const SyncCounts& o) {
  AddRecords(o);
  detailed += o.detailed;
  requests += o.requests;
  retries += o.retries;
  rate_limit_waits += o.rate_limit_waits;
  skipped.insert(skipped.end(), o.skipped.begin(), o.skipped.end());
  stop = stop || o.stop;
}

std::string SyncCursorKey(const RepoRef& repo) {
  return std::string(kCursorPrefix) + '\0' + repo.ToString();
}

std::string SyncSkippedKey(const RepoRef& repo) {
  return std::string(kSkippedPrefix) + '\0' + repo.ToString();
}

Status ParseSyncTarget(const std::string& text, RepoRef* repo, std::string* org) {
  const std::string& t = text;
  if (t.rfind("org:", 0) == 0) {
    if (org == nullptr)
      return Status::InvalidArgument("\"" + text + "\": an organisation is not allowed here");
    std::string rest = t.substr(4);
    size_t colon = rest.find(':');
    if (colon == std::string::npos)
      return Status::InvalidArgument("\"" + text +
                                     "\": expected org:PLATFORM:ORG, e.g. org:gitcode:Ascend");
    auto p = ParsePlatform(rest.substr(0, colon));
    if (!p.ok())
      return Status::InvalidArgument("\"" + text +
                                     "\": unknown platform (expected gitcode, gitee or github)");
    std::string name = rest.substr(colon + 1);
    if (!IsValidRepoSegment(name))
      return Status::InvalidArgument("\"" + text + "\": not a valid organisation name");
    repo->platform = *p;
    repo->owner = name;
    repo->name.clear();
    *org = name;
    return Status::OK();
  }
  auto ref = ParseRef(t);
  if (!ref.ok() || ref->kind != RefKind::kRepo)
    return Status::InvalidArgument("\"" + text +
                                   "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops "
                                   "or an organisation such as org:gitcode:Ascend");
  *repo = ref->repo;
  if (org) org->clear();
  return Status::OK();
}

StatusOr<std::vector<RepoRef>> ListOrgRepositories(Platform platform, const std::string& org,
                                                   const SyncOptions& options, SyncCounts* counts) {
  Fetcher fetch(platform, options);
  auto all = fetch.GetAll("/orgs/" + org + "/repos", "type=all", true);
  if (counts) {
    counts->requests += fetch.requests();
    counts->retries += fetch.retries();
    counts->rate_limit_waits += fetch.waits();
  }
  if (!all.ok()) return all.status().WithContext("list repositories of " + org);
  std::vector<RepoRef> out;
  for (const json& j : *all) {
    std::string full;
    if (j.contains("full_name") && j["full_name"].is_string())
      full = j["full_name"].get<std::string>();
    if (full.empty() && j.contains("path") && j["path"].is_string())
      full = org + "/" + j["path"].get<std::string>();
    size_t slash = full.find('/');
    if (slash == std::string::npos) continue;
    RepoRef r{platform, full.substr(0, slash), full.substr(slash + 1)};
    if (!IsValidRepoSegment(r.owner) || !IsValidRepoSegment(r.name)) continue;
    out.push_back(r);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Status SyncRepository(Store* store, const RepoRef& repo, const SyncOptions& options,
                      SyncCounts* counts, size_t repo_index, size_t repo_count) {
  if (options.per_page < 1 || options.per_page > 100)
    return Status::InvalidArgument("per_page must be in 1..100");
  SyncCounts local;
  RepoSync sync(store, repo, options, counts ? counts : &local, repo_index, repo_count);
  return sync.Run();
}

}  // namespace fixgraph::ingest
