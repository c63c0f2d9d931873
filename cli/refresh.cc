#include "refresh.h"

namespace fixgraph::cli {

Status RefreshAfterWrite(const Context& ctx, Store* store, const std::vector<Ref>& touched,
                         RefreshStats* stats) {
  (void)ctx;
  if (touched.empty()) return Status::OK();
  // A store with no links yet is linked whole: cheaper than finding the
  // neighbourhood of every touched item.
  bool any_links = false;
  FG_RETURN_IF_ERROR(graph::ForEachLinks(*store, nullptr, [&](const graph::IssueLinks&) {
    any_links = true;
    return false;
  }));
  Status s = any_links
                 ? graph::Relink(store, touched, graph::LinkerOptions(), &stats->link, nullptr)
                 : graph::LinkAll(store, graph::LinkerOptions(), &stats->link);
  if (!s.ok()) return s.WithContext("linking after the write");
  return Status::OK();
}

}  // namespace fixgraph::cli
