// Splitting the issue and doc indexes into shards for readers that search
// them through `xapian-tcpsrv` (docs/deploy.md, "Shards").
//
// A reader finds its indexes at <db_dir>/index-issues and <db_dir>/index-docs;
// either may be a Xapian stub file listing shards instead of an index
// directory, one per line in shard order:
//   remote HOST:PORT   (a shard served by `xapian-tcpsrv --port PORT DIR/issues-K`)
//   auto PATH          (a shard on disk, relative to the stub's folder)
// Searcher::Open (ask.h) and OpenLocalDocSource (docs.h) then search the
// shards as one Xapian database: the same ids, order and scores as the single
// index. When a shard cannot be reached, ask answers from the others and says
// so (AskResult::missing_shards); every remote call is bounded by a timeout
// (3 s; connecting 1 s).
#pragma once

#include "fixgraph/engine/status.h"

#include <cstddef>
#include <string>

namespace fixgraph::query {

struct SplitStats {
  size_t shards = 0;
  size_t issue_documents = 0;  // documents of the issue index (dead ones too)
  size_t dead = 0;             // of them, dead (replaced by a later update)
  size_t doc_nodes = 0;        // documents of the doc index (0: none)
};

// Writes the issue index of `db_dir` (and its doc index, when it has one)
// as `shards` shards into `out_dir`, which must not exist: out_dir/issues-K
// and out_dir/docs-K (K = 0..shards-1; Xapian databases, docid D of the
// single index in shard (D-1)%shards, so that the shards opened together
// have the single index's docids), every shard holding the index's metadata;
// and stubs out_dir/index-issues and out_dir/index-docs listing the shards as
// local paths (`--db out_dir` searches them). Written into out_dir.tmp and
// renamed to out_dir at the end: a failure leaves no out_dir.
// InvalidArgument for shards outside 1..64 or an existing out_dir; NotFound
// without an issue index; FailedPrecondition for an index of another layout.
Status SplitIndexes(const std::string& db_dir, const std::string& out_dir, size_t shards,
                    SplitStats* stats = nullptr);

}  // namespace fixgraph::query
