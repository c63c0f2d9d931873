// What every command that writes data runs afterwards (import, sync): relink
// the issues the new data can affect, then bring the ask index up to date.
// Private to cli/.
#pragma once

#include <vector>

#include "context.h"
#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/linker.h"

namespace fixgraph::cli {

struct RefreshStats {
  graph::LinkStats link;  // issues (re)linked, fix links
  size_t indexed = 0;     // issues (re)indexed for ask
};

// `touched` are the items the write changed (ImportCounts::touched).
Status RefreshAfterWrite(const Context& ctx, Store* store, const std::vector<Ref>& touched,
                         RefreshStats* stats);

}  // namespace fixgraph::cli
