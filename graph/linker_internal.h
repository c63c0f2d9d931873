// Internal entry points shared by linker.cc and link_store.cc. Private to graph/.
#pragma once

#include "pull_cache.h"

#include "fixgraph/graph/linker.h"

#include <memory>

namespace fixgraph::graph {

class Linker;

// What one thread needs to link many issues in turn: its PR cache and a
// Linker whose scratch vectors keep their capacity from issue to issue (each
// Link starts from empty per-issue state, so the answer is that of a fresh
// Linker). LinkAll keeps one per ParallelFor worker; nothing is per thread
// or global.
//
// Thread safety: one LinkWorker is used by one thread at a time; several
// workers may read one Store concurrently.
class LinkWorker {
 public:
  // `run` (may be null, must outlive the worker) as for PullCache.
  LinkWorker(const Store& store, size_t cache_capacity, const RunIndex* run = nullptr);
  ~LinkWorker();
  LinkWorker(const LinkWorker&) = delete;
  LinkWorker& operator=(const LinkWorker&) = delete;

  // Links `issue` of the worker's store with `options` (LinkIssue's contract).
  StatusOr<IssueLinks> Link(const Ref& issue, const LinkerOptions& options);

 private:
  const Store* store_;
  PullCache cache_;
  std::unique_ptr<Linker> linker_;  // made on first use
};

}  // namespace fixgraph::graph
