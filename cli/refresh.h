// What every command that writes data runs afterwards (import, sync), and
// every command that opens the store for writing runs first: finish the
// derived work the store records as pending (Store::ListPending): relink the
// issues the changed data can affect, then bring the ask index up to date.
// Private to cli/.
#pragma once

#include "context.h"

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"

#include <vector>

namespace fixgraph::cli {

struct RefreshStats {
  graph::LinkStats link;  // issues (re)linked, fix links
  size_t indexed = 0;     // issues (re)indexed for ask
  bool any = false;       // whether there was pending work
};

// Linker options of the CLI: FIXGRAPH_LINK_THREADS pins the number of
// linking threads (benchmarks use 1); FIXGRAPH_LINK_BATCH the issues per
// written block (crash tests use small blocks to get many write points).
graph::LinkerOptions CliLinkerOptions();
// Index options of the CLI: FIXGRAPH_INDEX_THREADS pins the number of threads
// that rebuild the ask index (unset, 0 or not a number: the machine's; at
// most 8).
query::IndexOptions CliIndexOptions();

// Finishes the pending work of the store: whole link runs begun and not
// finished (LinkAll again), changed items (Relink; a store without links is
// linked whole), then the ask index (updated for the issues whose links or
// data changed, rebuilt after a whole run). Each step's entries are cleared
// only after its results are written, so a crash at any point leaves the rest
// for the next call.
Status FinishPendingWork(const Context& ctx, Store* store, RefreshStats* stats);

// After a write: the write recorded what it touched as pending (Store::Batch
// does); this finishes it (FinishPendingWork). `touched` is only checked to
// skip the work when the write changed nothing and nothing else is pending.
Status RefreshAfterWrite(const Context& ctx, Store* store, const std::vector<Ref>& touched,
                         RefreshStats* stats);

// `link`: a whole link run of `repo` (all repositories when null) and a
// rebuild of the ask index, recorded as pending before it starts (a crash
// makes the next writer run it again) and cleared, with every other pending
// entry it covers, once the index is written.
Status LinkRun(const Context& ctx, Store* store, const RepoRef* repo,
               const graph::LinkerOptions& options, graph::LinkStats* stats);

// One line for stderr about pending work that a reader sees ("" for none).
std::string PendingWarning(const PendingWork& p);

}  // namespace fixgraph::cli
