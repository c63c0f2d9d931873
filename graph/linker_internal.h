// Internal entry points shared by linker.cc and link_store.cc. Private to graph/.
#pragma once

#include "pull_cache.h"

#include "fixgraph/graph/linker.h"

namespace fixgraph::graph {

// LinkIssue with a caller-owned PR cache (reused across issues by LinkAll).
StatusOr<IssueLinks> LinkIssueWith(const Store& store, const Ref& issue,
                                   const LinkerOptions& options, PullCache* cache);

}  // namespace fixgraph::graph
