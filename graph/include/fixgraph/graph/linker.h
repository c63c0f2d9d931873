// The evidence linker (design.md s5): for each issue, the changes that
// resolved it, how sure we are (tier, confidence), the resolution, timeline
// flags and the answer comment.
//
// Linking reads only the store's records and secondary keys; it never scans
// all pull requests. Per issue it looks up:
//   - who mentions the issue (Store::MentionsOf): closing keywords, URLs,
//     bare references in PR titles, bodies, commits and PR comments;
//   - the platform's own links (Store::ListPlatformLinks);
//   - the issue's comments: PRs named there ("fixed by !178", PR URLs, other
//     repositories and platforms), duplicates, declines, verifications;
//   - PRs merged within seconds of the close (Store::PullsMergedBetween) and
//     issues closed in the same seconds (Store::IssuesClosedBetween: a batch
//     close is not evidence);
//   - PRs merged in a bounded window around the issue, for branch names,
//     restated titles and patch overlap;
//   - PRs that mention a found fix (backports, cherry-picks).
// Cost is proportional to the issue's neighbourhood, so LinkAll is linear in
// the number of issues (times the window's PR count, which is bounded by
// LinkerOptions::max_window_candidates).
//
// Results are stored as derived records of kind kLinksKind keyed by the
// issue, in a compact binary form of links.h's IssueLinks (graph/link_codec.h;
// JSON records of earlier builds are still read). A reverse index (kind kPullLinksKind, keyed
// by PR: the issues it is linked to) lets Relink find the issues a changed PR
// affects.
//
// Thread safety: LinkIssue and ReadLinks only read the store and are safe to
// call concurrently; LinkAll and Relink write and need the store opened for
// writing (one writer at a time).
#pragma once

#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"
#include "fixgraph/graph/suggest.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fixgraph::graph {

inline constexpr char kLinksKind[] = "links";
inline constexpr char kPullLinksKind[] = "pull_links";
// Store metadata key of a repository's fitted suggestion model (JSON).
std::string RankModelKey(const RepoRef& repo);

struct LinkerOptions {
  // ---- Timing.
  // A close this many seconds from a merge is "at the merge". Default: 5.
  int close_window_s = 5;
  // Within this many seconds, and with no competing PR, the close alone is
  // tier A. Default: 2.
  int strong_close_s = 2;
  // Issues closed within +/- this many seconds of each other form a batch
  // close when there are at least batch_close_min of them. Defaults: 2, 3.
  int batch_window_s = 2;
  int batch_close_min = 3;
  // A verification comment at most this many seconds before the close gives
  // verify_comment_close. Default: 10.
  int verify_window_s = 10;
  // close_lag: closed more than this many days after the fix merged. Default: 7.
  int close_lag_days = 7;

  // ---- Implicit evidence (title, patch, branch).
  // Candidate PRs merged in [created - days_before, closed + days_after],
  // and at most window_max_days after the issue was filed. Defaults: 30, 1, 180.
  int window_days_before = 30;
  int window_days_after = 1;
  int window_max_days = 180;
  // At most this many window PRs are examined (the ones merged nearest the
  // close). Default: 200.
  size_t max_window_candidates = 200;
  // Look for title/patch evidence at all. Default: true.
  bool implicit = true;

  // ---- Suggested fixes (suggest.h).
  // Rank the likely fix PRs of a closed issue without a trusted fix, and let
  // the ranking confirm implicit-only tier C links. Default: true.
  bool suggest = true;
  // At most this many suggestions, each at least this probable. Defaults: 5, 0.01.
  size_t suggest_max = 5;
  double suggest_min_confidence = 0.01;
  // The model; null: the repository's entry in suggest_models, else
  // BuiltinRankModel(). LinkAll fits one per repository from the store's
  // explicit pairs (suggest_learn) and keeps it in the store's metadata
  // (RankModelKey) for Relink and LinkIssue.
  const RankModel* suggest_model = nullptr;
  const std::map<RepoRef, RankModel>* suggest_models = nullptr;
  // LinkAll: refit the model per repository from its explicit pairs when it
  // has at least suggest_min_pairs of them. Defaults: true, 20.
  bool suggest_learn = true;
  size_t suggest_min_pairs = 20;

  // ---- LinkAll / Relink.
  // Issues per committed WriteBatch. Default: 512.
  size_t batch_issues = 512;
  // Threads computing links (reads only; the calling thread writes).
  // 0: one per hardware thread, at most 8. Default: 0.
  unsigned threads = 0;
  // Progress callback: (issues done, issues total or 0 when unknown).
  std::function<void(std::int64_t, std::int64_t)> on_progress;
};

struct LinkStats {
  std::int64_t issues = 0;
  std::int64_t issues_with_fixes = 0;
  std::int64_t fixes = 0;
  std::map<std::string, std::int64_t> by_tier;        // "A" -> count of fix links
  std::map<std::string, std::int64_t> by_resolution;  // "fixed" -> count of issues
  std::map<std::string, std::int64_t> by_flag;        // "close_lag" -> count of issues
  double seconds = 0;                                 // wall time of the whole run
  // Where `seconds` went: finding the issues and reading them and the PRs
  // into memory; computing the links (worker threads); writing them (link
  // records and the reverse index); fitting the repositories' suggestion
  // models (part of load).
  double load_seconds = 0;
  double fit_seconds = 0;
  double compute_seconds = 0;
  double write_seconds = 0;

  void Add(const IssueLinks& links);
};

// Links one issue. NotFound when the issue is not in the store.
StatusOr<IssueLinks> LinkIssue(const Store& store, const Ref& issue, const LinkerOptions& options);

// Recomputes and stores the links of every issue (of one repository when
// `repo` is set; all repositories when null), replacing earlier results.
// `stats` may be null.
Status LinkAll(Store* store, const RepoRef* repo, const LinkerOptions& options, LinkStats* stats);
inline Status LinkAll(Store* store, const LinkerOptions& options, LinkStats* stats) {
  return LinkAll(store, nullptr, options, stats);
}

// The issues whose links may change when `touched` items (issues and PRs, as
// Store::Batch::TouchedItems reports) changed: the touched issues; for each
// touched PR, the issues its texts, comments and commits name, the issues the
// platform links to it, the issues closed within close_window_s of its merge,
// the issues it was linked to before (reverse index), the issues linked to
// the PRs it names (backports), and issues whose implicit window holds its
// merge; plus issues closed in the same seconds as a touched issue (batch
// detection). Sorted, unique, only issues present in the store.
StatusOr<std::vector<Ref>> AffectedIssues(const Store& store, const std::vector<Ref>& touched,
                                          const LinkerOptions& options);

// Relinks AffectedIssues(touched) and stores the results. `relinked` (may be
// null) receives the issues that were relinked.
Status Relink(Store* store, const std::vector<Ref>& touched, const LinkerOptions& options,
              LinkStats* stats, std::vector<Ref>* relinked);

// The stored links of an issue. NotFound when the issue has not been linked.
StatusOr<IssueLinks> ReadLinks(const Store& store, const Ref& issue);

// Calls fn for every stored result (of one repository when repo is set), in
// issue order; stops early when fn returns false.
Status ForEachLinks(const Store& store, const RepoRef* repo,
                    const std::function<bool(const IssueLinks&)>& fn);

}  // namespace fixgraph::graph
