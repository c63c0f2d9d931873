// The pool of a suggestion ranking and the features of its PRs (see
// fixgraph/graph/suggest.h for the model and the contract). Private to graph/.
//
// Thread safety: BuildRankPool reads through the caller's PullCache (one per
// thread).
#pragma once

#include "features.h"
#include "pull_cache.h"

#include "fixgraph/graph/suggest.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph::graph {

struct RankPoolOptions {
  // The pool: merged from creation - allowance to close + allowance.
  std::int64_t allowance_s = 86400;
  // At most this many pool PRs (the latest merged).
  size_t max_pool = 5000;
  // Features beyond text are computed for the best `shortlist_text` PRs by
  // BM25, the `shortlist_time` merged last before the close and the
  // `shortlist_number` numbered next after the issue; the others
  // stay out of the ranking (their text score is too low to matter).
  size_t shortlist_text = 100;
  size_t shortlist_time = 10;
  // Where issues and PRs share a counter (GitHub), also the PRs numbered
  // next above the issue.
  size_t shortlist_number = 30;
  // Training: the time features read as "close time unknown" (the window
  // still uses the issue's times).
  bool mask_times = false;
};

struct PoolEntry {
  std::shared_ptr<PullInfo> info;
  FeatureVector x{};
  double bm25 = 0;
  double lag_s = 0;  // close - merge, when the close is known
  bool lag_known = false;
  PatchMatch patch;     // what the issue names that the PR changes
  std::string label;    // the issue label the PR shares (kLabel), when it shares one
  std::string version;  // the version or branch the PR's base answers (kVersion)
};

struct RankPool {
  std::vector<PoolEntry> entries;  // the shortlist, in pool (merge-time) order
  size_t pool_size = 0;            // PRs merged in the window
};

// The ranking pool of the issue in `ctx`. An issue in a repository without
// merged PRs gets an empty pool.
Status BuildRankPool(const IssueContext& ctx, PullCache* cache, const RankPoolOptions& options,
                     RankPool* out);

// The repository's explicit pairs in the run index (a merged PR of the
// repository whose title, description or commit says it fixes a closed issue
// of the repository, or that the platform links to it, unless the issue is
// linked to more than three merged PRs; at most `max` of the latest issues), as ranking examples
// with the time features masked, and the model fitted on them with the time
// weights frozen; nullopt when fewer than `min_pairs` pairs exist.
StatusOr<std::optional<RankModel>> FitRepositoryModel(const Store& store, const RunIndex& run,
                                                      const RepoRef& repo, size_t min_pairs,
                                                      size_t max = 400);

// True where the platform numbers issues and PRs from one counter (GitHub).
bool SharedNumbering(const RepoRef& repo);

}  // namespace fixgraph::graph
