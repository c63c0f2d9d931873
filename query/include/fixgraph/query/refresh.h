// The derived work after a write: what every command that writes data runs
// afterwards (import, sync), and every command that opens the store for
// writing runs first. It finishes the work the store records as pending
// (Store::ListPending): relinks the issues the changed data can affect, then
// brings the ask index up to date; or runs a whole `link`. Each step's
// pending entries are cleared only after its results are written, so a crash
// at any point leaves the rest for the next call (docs/reliability.md).
#pragma once

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"

#include <cstdint>
#include <string>

namespace fixgraph::query {

// Where a refresh reports its phases (the cli draws them as its progress
// line). Count may be called from the linker's threads, one call at a time.
class RefreshObserver {
 public:
  virtual ~RefreshObserver() = default;
  // A phase begins: `counting` issues (`total` of them, 0 when unknown, and
  // `detail` saying what is done), or only a note (`detail`).
  virtual void Phase(const std::string& label, bool counting, std::int64_t total,
                     const std::string& detail) = 0;
  // `done` of `total` issues in the phase that counts them.
  virtual void Count(std::int64_t done, std::int64_t total, const std::string& detail) = 0;
  // Whether Count calls are shown (when not, the linker is given no callback).
  virtual bool counts() const = 0;
  // The work is written; nothing more is reported.
  virtual void Finish() = 0;
};

struct RefreshOptions {
  std::string db_dir;                   // the store's directory (the ask index lies under it)
  graph::LinkerOptions link;            // on_progress is replaced when `observer` counts
  IndexOptions index;                   // the same
  RefreshObserver* observer = nullptr;  // optional; not owned
};

struct RefreshStats {
  graph::LinkStats link;  // issues (re)linked, fix links
  size_t indexed = 0;     // issues (re)indexed for ask
  bool any = false;       // whether there was pending work
};

// Finishes the pending work of the store: whole link runs begun and not
// finished (LinkAll again), changed items (Relink; a store without links, or
// one where at least a third of the issues and PRs changed, is linked
// whole), then the ask index (updated for the issues whose links or data
// changed, rebuilt after a whole run). An index update is noted with the
// index's version before it starts, so one a crash interrupted after its
// commit is not applied twice.
Status FinishPendingWork(Store* store, const RefreshOptions& options, RefreshStats* stats);

// `link`: a whole link run of `repo` (all repositories when null) and a
// rebuild of the ask index, recorded as pending before it starts (a crash
// makes the next writer run it again) and cleared, with every other pending
// entry it covers, once the index is written.
Status LinkRun(Store* store, const RepoRef* repo, const RefreshOptions& options,
               graph::LinkStats* stats);

// One line about pending work that a reader sees ("" for none).
std::string PendingWarning(const PendingWork& p);

}  // namespace fixgraph::query
