#include "fixgraph/query/refresh.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace fixgraph::query {
namespace {

// A rebuild of the ask index reporting to the observer (`total`: the
// store's issues).
Status RebuildIndex(const Store& store, const RefreshOptions& o, std::int64_t total) {
  IndexOptions options = o.index;
  RefreshObserver* observer = o.observer;
  if (observer != nullptr) {
    observer->Phase("index", true, total, "rebuilding the ask index");
    if (observer->counts())
      options.on_progress = [observer, total](std::int64_t written) {
        observer->Count(written, total,
                        written >= total ? "merging the index" : "rebuilding the ask index");
      };
  }
  return RebuildIssueIndex(store, o.db_dir, options);
}

// The linker's options reporting to the observer as one count over the
// whole run: the linker reports each repository's issues from zero (LinkAll
// links one repository at a time), so a report after one that finished a
// repository starts the next on top of it. `total`: the run's issues (0:
// the linker's).
graph::LinkerOptions WithProgress(const RefreshOptions& o, std::int64_t total) {
  graph::LinkerOptions options = o.link;
  RefreshObserver* observer = o.observer;
  if (observer == nullptr || !observer->counts()) return options;
  struct Run {
    std::int64_t base = 0, last_done = 0, last_total = 0;
  };
  auto run = std::make_shared<Run>();
  options.on_progress = [observer, total, run](std::int64_t done, std::int64_t scope_total) {
    if (run->last_total > 0 && run->last_done >= run->last_total) run->base += run->last_total;
    run->last_done = done;
    run->last_total = scope_total;
    observer->Count(run->base + done, total > 0 ? total : scope_total, "");
  };
  return options;
}

// Phase and Finish on the observer, when there is one.
void Phase(const RefreshOptions& o, const std::string& label, bool counting,
           const std::string& detail = "") {
  if (o.observer != nullptr) o.observer->Phase(label, counting, 0, detail);
}
void Finish(const RefreshOptions& o) {
  if (o.observer != nullptr) o.observer->Finish();
}

// The issues of the store (or of one repository), from the per-repository
// counts; 0 when they cannot be read (the progress line then shows the
// linker's own totals).
std::int64_t CountIssues(const Store& store, const RepoRef* repo) {
  std::vector<RepoRef> repos;
  if (repo) {
    repos.push_back(*repo);
  } else if (!store.ListIssueRepositories(&repos).ok()) {
    return 0;
  }
  std::int64_t n = 0;
  for (const RepoRef& r : repos) {
    auto st = store.Stats(r);
    if (!st.ok()) return 0;
    n += st->issues_open + st->issues_closed;
  }
  return n;
}

// An index update in flight: the index's version file before it, then the
// issues it reindexes, one per line.
const std::string kIndexUpdateKey("index_update_in_flight");

// The bytes of the issue index's version file (Xapian rewrites it at every
// commit, and a rebuild replaces it); "" when there is none.
std::string IndexVersion(const std::string& db_dir) {
  std::ifstream in(db_dir + "/index-issues/iamglass", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A crash between an index update's commit and the clearing of its pending
// entries: the entries are cleared now (the update is not applied twice).
// When the index did not change, the entries stay and are reindexed.
Status SettleIndexUpdate(const std::string& db_dir, Store* store) {
  auto note = store->GetMeta(kIndexUpdateKey);
  if (!note.ok()) return note.status().IsNotFound() ? Status::OK() : note.status();
  // "<size of the version>:<version><issue>\n<issue>\n..."
  std::string_view v(*note);
  size_t colon = v.find(':');
  size_t size = colon == std::string_view::npos
                    ? 0
                    : std::strtoul(std::string(v.substr(0, colon)).c_str(), nullptr, 10);
  if (colon == std::string_view::npos || colon + 1 + size > v.size())
    return Status::Corruption("store: unreadable " + kIndexUpdateKey + " note");
  if (v.substr(colon + 1, size) != IndexVersion(db_dir)) {  // committed
    PendingWork done;
    std::string_view refs = v.substr(colon + 1 + size);
    for (size_t at = 0; at < refs.size();) {
      size_t nl = refs.find('\n', at);
      if (nl == std::string_view::npos) nl = refs.size();
      auto ref = ParseRef(refs.substr(at, nl - at));
      if (ref.ok()) done.reindex.push_back(*ref);
      at = nl + 1;
    }
    FG_RETURN_IF_ERROR(store->ClearPending(done));
  }
  auto batch = store->NewBatch();
  FG_RETURN_IF_ERROR(batch->DeleteMeta(kIndexUpdateKey));
  return store->Write(batch.get());
}

// Whether the changed items are at least a third of the store's issues and
// PRs (then a whole link run is cheaper than Relink). Decided from the
// pending set and the store alone, so a run that finishes an interrupted
// one takes the same path.
Status MostlyChanged(const Store& store, const std::vector<Ref>& relink, bool* out) {
  std::int64_t changed = 0;
  for (const Ref& r : relink) changed += r.kind == RefKind::kIssue || r.kind == RefKind::kPull;
  std::vector<RepoRef> repos;
  FG_RETURN_IF_ERROR(store.ListIssueRepositories(&repos));
  std::int64_t items = 0;
  for (const RepoRef& repo : repos) {
    FG_ASSIGN_OR_RETURN(RepoStats st, store.Stats(repo));
    items += st.issues_open + st.issues_closed + st.pulls_open + st.pulls_merged + st.pulls_closed;
  }
  *out = changed > 0 && 3 * changed >= items;
  return Status::OK();
}

}  // namespace

Status FinishPendingWork(Store* store, const RefreshOptions& options, RefreshStats* stats) {
  FG_RETURN_IF_ERROR(SettleIndexUpdate(options.db_dir, store));
  PendingWork p;
  FG_RETURN_IF_ERROR(store->ListPending(&p));
  if (p.empty()) return Status::OK();
  stats->any = true;
  bool rebuild_index = false;
  bool all_linked = false;
  // 1. Whole link runs that did not finish (a killed `link`, or the first
  // link of a store) run again from the start: their results are a function
  // of the data alone.
  for (const std::string& run : p.link_runs) {
    if (run == "*") all_linked = true;
  }
  if (all_linked) {
    Phase(options, "link (interrupted run)", true);
    Status s = graph::LinkAll(store, nullptr, WithProgress(options, CountIssues(*store, nullptr)),
                              &stats->link);
    if (!s.ok()) return s.WithContext("finishing an interrupted link run");
    rebuild_index = true;
  } else {
    for (const std::string& run : p.link_runs) {
      auto repo = ParseRef(run);
      if (!repo.ok() || repo->kind != RefKind::kRepo)
        return Status::Corruption("pending link run '" + run + "': not a repository");
      Phase(options, "link " + run + " (interrupted run)", true);
      Status s =
          graph::LinkAll(store, &repo->repo,
                         WithProgress(options, CountIssues(*store, &repo->repo)), &stats->link);
      if (!s.ok()) return s.WithContext("finishing an interrupted link run of " + run);
      rebuild_index = true;
    }
  }
  CrashPoint();
  // 2. Changed items: relink what they can affect.
  if (!p.relink.empty() && !all_linked) {
    // A store with no links yet, or one where at least a third of the issues
    // and PRs changed (a re-import of a changed dump), is linked whole:
    // cheaper than finding the neighbourhood of every changed item, reading
    // its old links and relinking it (docs/benchmarks.md, "Re-import"). Recorded as a link run
    // first, so that a crash repeats the whole run (which covers the changed items); the ask index
    // is rebuilt, as UpdateIssueIndex would do for that many changed issues.
    bool any_links = false;
    FG_RETURN_IF_ERROR(graph::ForEachLinks(*store, nullptr, [&](const graph::IssueLinks&) {
      any_links = true;
      return false;
    }));
    bool mostly_changed = false;
    if (any_links) FG_RETURN_IF_ERROR(MostlyChanged(*store, p.relink, &mostly_changed));
    if (!any_links || mostly_changed) {
      FG_RETURN_IF_ERROR(store->BeginLinkRun(nullptr, p.relink));
      Phase(options, "link", true);
      Status s = graph::LinkAll(store, nullptr, WithProgress(options, CountIssues(*store, nullptr)),
                                &stats->link);
      if (!s.ok()) return s.WithContext("linking after the write");
      rebuild_index = true;
    } else {
      // Every issue Relink rewrites is marked for reindexing in the write of
      // its links (graph/link_store.cc), so clearing the changed items after
      // it loses nothing; their own issues are marked here (their text or
      // comments changed).
      std::vector<Ref> relinked;
      Phase(options, "relink", false, "finding the issues the changes affect");
      Status s = graph::Relink(store, p.relink, WithProgress(options, 0), &stats->link, &relinked);
      if (!s.ok()) return s.WithContext("linking after the write");
      auto batch = store->NewBatch();
      for (const Ref& r : p.relink)
        if (r.kind == RefKind::kIssue) FG_RETURN_IF_ERROR(batch->MarkReindex(r));
      FG_RETURN_IF_ERROR(store->Write(batch.get()));
      PendingWork done;
      done.relink = p.relink;
      FG_RETURN_IF_ERROR(store->ClearPending(done));
    }
  }
  CrashPoint();
  // 3. The ask index, then everything pending now (the reindex entries the
  // linking added included) is done.
  PendingWork now;
  FG_RETURN_IF_ERROR(store->ListPending(&now));
  if (rebuild_index) {
    Status s = RebuildIndex(*store, options, CountIssues(*store, nullptr));
    if (!s.ok()) return s.WithContext("indexing issues for ask");
    size_t issues = 0;
    FG_RETURN_IF_ERROR(store->ForEachIssue(nullptr, [&](Issue&) {
      ++issues;
      return true;
    }));
    stats->indexed = issues;
  } else if (!now.reindex.empty()) {
    std::vector<Ref> issues = now.reindex;
    std::sort(issues.begin(), issues.end());
    issues.erase(std::unique(issues.begin(), issues.end()), issues.end());
    // An update in place is not idempotent (a second one leaves more dead
    // documents, which shift scores), so it is noted before it starts, with
    // the index's version file: a crash after its commit is then recognised
    // (the file changed) and the update is not applied twice.
    auto batch = store->NewBatch();
    const std::string version = IndexVersion(options.db_dir);
    std::string note = std::to_string(version.size()) + ":" + version;
    for (const Ref& r : issues) note += r.ToString() + "\n";
    FG_RETURN_IF_ERROR(batch->PutMeta(kIndexUpdateKey, note));
    FG_RETURN_IF_ERROR(store->Write(batch.get()));
    Phase(options, "index", false,
          "updating the ask index for " + std::to_string(issues.size()) + " issues");
    Status s = UpdateIssueIndex(*store, options.db_dir, issues, options.index);
    if (!s.ok()) return s.WithContext("indexing issues for ask");
    stats->indexed = issues.size();
  }
  Finish(options);
  CrashPoint();
  FG_RETURN_IF_ERROR(store->ClearPending(now));
  auto batch = store->NewBatch();
  FG_RETURN_IF_ERROR(batch->DeleteMeta(kIndexUpdateKey));
  return store->Write(batch.get());
}

Status LinkRun(Store* store, const RepoRef* repo, const RefreshOptions& options,
               graph::LinkStats* stats) {
  PendingWork before;
  FG_RETURN_IF_ERROR(store->ListPending(&before));
  // A run over every repository covers every changed item.
  FG_RETURN_IF_ERROR(store->BeginLinkRun(repo, repo ? std::vector<Ref>() : before.relink));
  Phase(options, repo ? "link " + repo->ToString() : "link", true);
  FG_RETURN_IF_ERROR(
      graph::LinkAll(store, repo, WithProgress(options, CountIssues(*store, repo)), stats));
  CrashPoint();
  // The ask index carries each issue's resolution and fixes: rebuild it.
  Status s = RebuildIndex(*store, options, CountIssues(*store, nullptr));
  Finish(options);
  if (!s.ok()) return s.WithContext("indexing issues for ask");
  CrashPoint();
  PendingWork now;
  FG_RETURN_IF_ERROR(store->ListPending(&now));
  if (repo) now.relink.clear();  // changed items elsewhere still need their relink
  return store->ClearPending(now);
}

std::string PendingWarning(const PendingWork& p) {
  if (p.empty()) return "";
  std::string w = "the store has unfinished derived work (";
  std::string sep;
  if (!p.link_runs.empty()) {
    w += std::to_string(p.link_runs.size()) + " link run(s)";
    sep = ", ";
  }
  if (!p.relink.empty()) {
    w += sep + std::to_string(p.relink.size()) + " changed items to relink";
    sep = ", ";
  }
  if (!p.reindex.empty())
    w += sep + std::to_string(p.reindex.size()) + " issues to reindex for ask";
  w += "): links and ask results may be stale until a writing command (import, sync, link) "
       "finishes it";
  return w;
}

}  // namespace fixgraph::query
