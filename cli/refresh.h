// The cli's side of the derived work after a write (query/refresh.h): the
// linker and index options from the environment, and the progress line the
// work reports to. Private to cli/.
#pragma once

#include "context.h"

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"
#include "fixgraph/query/refresh.h"

namespace fixgraph::cli {

using query::PendingWarning;
using query::RefreshStats;

// Linker options of the CLI: $FIXGRAPH_LINK_THREADS pins the number of
// linking threads (benchmarks use 1); $FIXGRAPH_LINK_BATCH the issues per
// written block (crash tests use small blocks to get many write points).
graph::LinkerOptions CliLinkerOptions(const Environment& env);
// Index options of the CLI: $FIXGRAPH_INDEX_THREADS pins the number of
// threads that rebuild the ask index (unset, 0 or not a number: the
// machine's; at most 8).
query::IndexOptions CliIndexOptions(const Environment& env);

// query::FinishPendingWork with the options above, reporting to a "link"
// progress line.
Status FinishPendingWork(const Context& ctx, Store* store, RefreshStats* stats);

// query::LinkRun with `options`, reporting to a "link" progress line.
Status LinkRun(const Context& ctx, Store* store, const RepoRef* repo,
               const graph::LinkerOptions& options, graph::LinkStats* stats);

}  // namespace fixgraph::cli
