#include "refresh.h"

#include <algorithm>

#include "fixgraph/query/ask.h"

namespace fixgraph::cli {

Status RefreshAfterWrite(const Context& ctx, Store* store, const std::vector<Ref>& touched,
                         RefreshStats* stats) {
  if (touched.empty()) return Status::OK();
  // A store with no links yet is linked whole: cheaper than finding the
  // neighbourhood of every touched item.
  bool any_links = false;
  FG_RETURN_IF_ERROR(graph::ForEachLinks(*store, nullptr, [&](const graph::IssueLinks&) {
    any_links = true;
    return false;
  }));
  std::vector<Ref> relinked;
  Status s = any_links
                 ? graph::Relink(store, touched, graph::LinkerOptions(), &stats->link, &relinked)
                 : graph::LinkAll(store, graph::LinkerOptions(), &stats->link);
  if (!s.ok()) return s.WithContext("linking after the write");
  if (!any_links) {
    // Everything was linked: index everything (also drops stale documents).
    s = query::RebuildIssueIndex(*store, ctx.db_dir);
    if (!s.ok()) return s.WithContext("indexing issues for ask");
    stats->indexed = static_cast<size_t>(stats->link.issues);
    return Status::OK();
  }
  // The relinked issues and the touched ones (their text or comments changed).
  std::vector<Ref> issues = std::move(relinked);
  for (const Ref& r : touched)
    if (r.kind == RefKind::kIssue) issues.push_back(r);
  std::sort(issues.begin(), issues.end());
  issues.erase(std::unique(issues.begin(), issues.end()), issues.end());
  s = query::UpdateIssueIndex(*store, ctx.db_dir, issues);
  if (!s.ok()) return s.WithContext("indexing issues for ask");
  stats->indexed = issues.size();
  return Status::OK();
}

}  // namespace fixgraph::cli
