// The issue index (<db_dir>/index-issues, Xapian): one document per issue. Private
// to query/; the public entry points are UpdateIssueIndex/RebuildIssueIndex in
// ask.h.
//
// Document layout:
//   terms    analysed text (analyzer.h) with field weights applied as wdf:
//            title x kTitleWeight > body > answer and fix PRs > comments;
//            the title's terms once more under kTitlePrefix (wdf 1 each), the
//            title field a query can score on its own (ask_query.h);
//            "Q" + issue ref (unique id), "R" + repo ref (filter), "P" + the
//            prior's tier (PriorTierTerm), all wdf 0
//   value 0  prior in [0, 1] from resolution and fix tier (sortable_serialise)
//   data     JSON of the hit's display fields, so ask reads nothing else:
//            {"issue", "title", "state", "resolution", "answer", "answer_source",
//             "fixes": [FixLink JSON...], "url", "prior"}
//   metadata "fixgraph:schema" = kIssueIndexSchema
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"

namespace fixgraph::query {

// "2": title terms also under kTitlePrefix, prior tier terms. An index of another schema is
// rebuilt by UpdateIssueIndex and refused by Searcher::Open.
inline constexpr const char* kIssueIndexSchema = "2";
inline constexpr const char* kTitlePrefix = "S";
inline constexpr unsigned kPriorSlot = 0;
inline constexpr unsigned kTitleWeight = 6;
inline constexpr unsigned kBodyWeight = 3;
inline constexpr unsigned kAnswerWeight = 2;
inline constexpr unsigned kCommentWeight = 1;

std::string IssueIndexDir(const std::string& db_dir);

// Priors fall in kPriorTiers tiers, tier t holding priors >= kPriorTierFloor[t]
// (and below the next floor); each document carries its tier as a boolean
// term, so a search can visit the best-resolved issues first.
inline constexpr int kPriorTiers = 4;
inline constexpr double kPriorTierFloor[kPriorTiers] = {0.0, 0.45, 0.65, 0.85};
int PriorTier(double prior);
std::string PriorTierTerm(int tier);
std::string PriorTierTerm(double prior);

// A rebuild writes a new index beside the live one and swaps it in: the store's
// issues, in scan order, each joined with its links and comments from two
// store scans running beside the issue scan on threads of their own (the
// three visit issues in the same order, Store::ScanOrderKey; fix PRs are still
// read one by one), are cut into runs of `shard_issues`, each written to a
// shard database of its own by one of $FIXGRAPH_INDEX_THREADS writers (default:
// the hardware's threads, at most 8), so document building and Xapian's writing
// both run in parallel and every shard's B-trees stay small; the shards are
// compacted in run order into one database whose docids are consecutive in scan
// order (the same documents and docids a single writer would give); that
// database replaces <db_dir>/index-issues in one directory exchange. Readers of
// the old index keep reading it until they reopen (its revision is numbered past
// the old one's, so a reopen notices; its files are fsynced before the exchange).
// Work files: <db_dir>/index-issues.rebuild (left by a rebuild that died, removed by the next).
// RebuildIssueIndex (ask.h) uses kShardIssues.
inline constexpr size_t kShardIssues = 2048;
Status RebuildIssueIndexInShards(const Store& store, const std::string& db_dir, size_t shard_issues);

// How much a hit deserves to rank up for its resolution and strongest fix:
// 1.0 fixed with a tier A fix ... 0.1 open with nothing.
double ResolutionPrior(const graph::IssueLinks& links);

// The lines of a PR description that say what was done, verbatim (at most a
// few lines; "" when nothing fits).
std::string ExtractPrAnswer(const std::string& title, const std::string& body);

}  // namespace fixgraph::query
