#include "refresh.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "fixgraph/query/ask.h"

namespace fixgraph::cli {

graph::LinkerOptions CliLinkerOptions() {
  graph::LinkerOptions options;
  if (const char* t = std::getenv("FIXGRAPH_LINK_THREADS"); t != nullptr && *t != '\0')
    options.threads = static_cast<unsigned>(std::strtoul(t, nullptr, 10));
  if (const char* b = std::getenv("FIXGRAPH_LINK_BATCH"); b != nullptr && *b != '\0')
    options.batch_issues = std::max<size_t>(1, std::strtoul(b, nullptr, 10));
  return options;
}

Status FinishPendingWork(const Context& ctx, Store* store, RefreshStats* stats) {
  PendingWork p;
  FG_RETURN_IF_ERROR(store->ListPending(&p));
  if (p.empty()) return Status::OK();
  stats->any = true;
  const graph::LinkerOptions options = CliLinkerOptions();
  bool rebuild_index = false;
  bool all_linked = false;
  // 1. Whole link runs that did not finish (a killed `link`, or the first
  // link of a store) run again from the start: their results are a function
  // of the data alone.
  for (const std::string& run : p.link_runs) {
    if (run == "*") all_linked = true;
  }
  if (all_linked) {
    Status s = graph::LinkAll(store, nullptr, options, &stats->link);
    if (!s.ok()) return s.WithContext("finishing an interrupted link run");
    rebuild_index = true;
  } else {
    for (const std::string& run : p.link_runs) {
      auto repo = ParseRef(run);
      if (!repo.ok() || repo->kind != RefKind::kRepo)
        return Status::Corruption("pending link run '" + run + "': not a repository");
      Status s = graph::LinkAll(store, &repo->repo, options, &stats->link);
      if (!s.ok()) return s.WithContext("finishing an interrupted link run of " + run);
      rebuild_index = true;
    }
  }
  CrashPoint();
  // 2. Changed items: relink what they can affect.
  if (!p.relink.empty() && !all_linked) {
    // A store with no links yet is linked whole: cheaper than finding the
    // neighbourhood of every changed item. Recorded as a link run first, so
    // that a crash repeats the whole run (which covers the changed items).
    bool any_links = false;
    FG_RETURN_IF_ERROR(graph::ForEachLinks(*store, nullptr, [&](const graph::IssueLinks&) {
      any_links = true;
      return false;
    }));
    if (!any_links) {
      FG_RETURN_IF_ERROR(store->BeginLinkRun(nullptr, p.relink));
      Status s = graph::LinkAll(store, nullptr, options, &stats->link);
      if (!s.ok()) return s.WithContext("linking after the write");
      rebuild_index = true;
    } else {
      // Every issue Relink rewrites is marked for reindexing in the write of
      // its links (graph/link_store.cc), so clearing the changed items after
      // it loses nothing; their own issues are marked here (their text or
      // comments changed).
      std::vector<Ref> relinked;
      Status s = graph::Relink(store, p.relink, options, &stats->link, &relinked);
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
    Status s = query::RebuildIssueIndex(*store, ctx.db_dir);
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
    Status s = query::UpdateIssueIndex(*store, ctx.db_dir, issues);
    if (!s.ok()) return s.WithContext("indexing issues for ask");
    stats->indexed = issues.size();
  }
  CrashPoint();
  return store->ClearPending(now);
}

Status RefreshAfterWrite(const Context& ctx, Store* store, const std::vector<Ref>& touched,
                         RefreshStats* stats) {
  (void)touched;  // recorded as pending by the write itself
  return FinishPendingWork(ctx, store, stats);
}

Status LinkRun(const Context& ctx, Store* store, const RepoRef* repo,
               const graph::LinkerOptions& options, graph::LinkStats* stats) {
  PendingWork before;
  FG_RETURN_IF_ERROR(store->ListPending(&before));
  // A run over every repository covers every changed item.
  FG_RETURN_IF_ERROR(store->BeginLinkRun(repo, repo ? std::vector<Ref>() : before.relink));
  FG_RETURN_IF_ERROR(graph::LinkAll(store, repo, options, stats));
  CrashPoint();
  // The ask index carries each issue's resolution and fixes: rebuild it.
  Status s = query::RebuildIssueIndex(*store, ctx.db_dir);
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
  if (!p.reindex.empty()) w += sep + std::to_string(p.reindex.size()) + " issues to reindex for ask";
  w += "): links and ask results may be stale until a writing command (import, sync, link) finishes it";
  return w;
}

}  // namespace fixgraph::cli
