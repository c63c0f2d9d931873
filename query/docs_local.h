// The local doc corpus's search (docs_local.cc) as one handle on the index,
// and the DocSource that shares handles among threads (docs_local_pool.cc).
// Internal to query/.
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/query/docs.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query::docs {

// One open doc index (a Xapian database handle and what is read beside it).
// Not thread-safe: one search at a time.
class IndexSearch {
 public:
  virtual ~IndexSearch() = default;
  // DocSource::Search over this handle; picks up a newer revision of the
  // index first.
  virtual StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) = 0;
};

// Opens the doc index at `dir`: an index directory, or a stub file listing
// its shards (index_shards.h; Unavailable naming the shards that cannot be
// reached). `debug_mu` guards `options.debug`, which handles may share; it
// must outlive the handle.
StatusOr<std::unique_ptr<IndexSearch>> OpenIndexSearch(const std::string& dir,
                                                       const LocalDocOptions& options,
                                                       std::mutex* debug_mu);

}  // namespace fixgraph::query::docs
