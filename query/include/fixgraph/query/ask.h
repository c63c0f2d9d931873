// Symptom lookup (design.md s6, s8): free text in, past issues with their
// fixes and answers out, plus KG doc nodes when no issue fits well or the
// question is about hardware/platform behaviour.
//
// The issue index lives under <db_dir>/index-issues (Xapian); it is built from the
// store and the linker's results and kept current incrementally by import,
// sync and link (UpdateIssueIndex).
//
// JSON of AskResult (the `ask --json` contract):
//   {"query", "hits": [{"issue": REF, "title", "score", "resolution", "answer",
//     "fixes": [{"pr", "tier", "confidence", "evidence": [...]}], "url",
//     "state", "answer_source", "flags"}],
//    "docs": [DocHit...], "fallback": bool, "searched": "the text searched"}
//   plus "degraded": true and "missing_shards": ["shard K (...): why", ...]
//   when shards of a sharded index could not be reached (AskResult).
//
// `query` is the text as given (cut to 2000 bytes); `searched` is what was
// searched: the same text, or the error-signature lines of a pasted log.
// `answer` is extracted, never written: the linker's resolving comment lines,
// else the fix PR's description lines that say what was done.
// Ranking: BM25 over analysed terms (analyzer.h) with bilingual synonyms,
// times a bounded prior (resolved with a strong fix > answered > open). The
// issues whose title holds every query unit (word, identifier, synonym group)
// count as fully relevant; when fewer than `limit` do, they are ranked among
// the issues holding every unit anywhere when at least `limit` issues do,
// else among those holding any.
// `score` is in [0, 1]. The docs (when a doc source is configured) are part
// of the answer (fallback) when the query names a hardware/platform term, the
// best hit scores below kWeakHitScore, or the best doc is a KG hit (>
// kDocHitScore) scoring above the best issue hit; they are not searched when
// none of these can hold (no hardware named and a best hit at 1, which no doc
// score exceeds).
// "ranked" lists both kinds in one order ({"kind": "issue"|"doc", "index",
// "score", "band"}), "docs_first" says a doc leads, and every issue hit and
// doc carries its "band" (DocBand).
//
// Thread safety: a Searcher may be used from several threads at once.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"
#include "fixgraph/query/docs.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query {

// The default noise floor of AskOptions::min_score, measured on
// tests/data/queries.json (docs/evaluation.md, "Noise floor"): the lowest
// score of an expected hit there is far above it, and the hits below it are
// matches on a stray word.
inline constexpr double kDefaultMinScore = 0.10;

struct AskOptions {
  size_t limit = 5;
  std::string repo;       // "" = all; else a RepoRef string ("gitcode:Ascend/X")
  bool with_docs = true;  // consult the doc sources under the fallback rule
  // Decode each hit's fixes into AskHit::fixes. A caller that only prints
  // JSON (ToJson, ToJsonText) can say false: the hits then carry their fixes
  // as JSON text only (fixes_json), which skips decoding and re-encoding them.
  bool decode_fixes = true;
  // The noise floor: issue and doc hits scoring below it are dropped
  // (AskResult::dropped counts them). 0 keeps every hit.
  double min_score = kDefaultMinScore;
};

struct AskHit {
  Ref issue;
  std::string title;
  double score = 0;  // relevance in [0, 1]
  graph::Resolution resolution = graph::Resolution::kUnknown;
  std::string answer;                 // extracted lines that say what to do ("" if none)
  std::vector<graph::FixLink> fixes;  // empty unless AskOptions::decode_fixes
  // The fixes as the JSON array ToJson writes for them (the bytes the index
  // stores); always set by Searcher::Ask.
  std::string fixes_json;
  std::string url;
  std::string state;          // "open" or "closed"
  std::string answer_source;  // "comment", "pr" or "" (no answer)
  std::vector<graph::Flag> flags;
};

// A best hit scoring below this counts as "no issue fits well".
inline constexpr double kWeakHitScore = 0.45;
// Longest query accepted (bytes); longer text gets InvalidArgument.
inline constexpr size_t kMaxQueryBytes = size_t{16} * 1024 * 1024;

// One entry of the single ranking of issue and doc hits.
struct RankedRef {
  bool doc = false;  // true: docs[index], false: hits[index]
  size_t index = 0;
  double score = 0;            // the hit's score, [0, 1]
  const char* band = "noise";  // DocBand(score): "hit" > 0.83 >= "ambiguous" >= 0.70 > "noise"
};

struct AskResult {
  std::string query;
  std::vector<AskHit> hits;
  std::vector<DocHit> docs;
  bool fallback = false;  // docs were consulted and are part of the answer
  std::string searched;   // the text searched (signature lines of a pasted log)
  // Issue and doc hits in one order, best first (MergeRanking): a doc that
  // scores above the best issue hit comes before it. docs_first says the
  // first entry is a doc: show the docs before the issues.
  std::vector<RankedRef> ranked;
  bool docs_first = false;
  double min_score = 0;  // the noise floor applied (AskOptions::min_score)
  size_t dropped = 0;    // issue and doc hits dropped below it
  // A degraded answer: the issue index is a stub of shards (shards.h) and
  // these could not be reached ("shard 1 (remote 127.0.0.1:9001): <why>");
  // the hits come from the other shards. JSON: "degraded": true and
  // "missing_shards", present only then.
  std::vector<std::string> missing_shards;
};

// Drops the issue and doc hits of `r` scoring below `min_score` (counted in
// r->dropped) and sets r->min_score; fallback stays only while docs remain.
void ApplyNoiseFloor(AskResult* r, double min_score);

// Orders r.hits and r.docs into r.ranked by score (an issue before a doc of
// the same score; each list keeps its own order) and sets r.docs_first.
void MergeRanking(AskResult* r);

// The `ask --json` document. A hit's fixes come from `fixes` when it holds
// any, else from `fixes_json` (parsed).
nlohmann::json ToJson(const AskResult& r);
// The same document as text: the bytes of ToJson(r).dump() (compact, invalid
// UTF-8 replaced), written without building the tree; `fixes_json` is copied
// as it is.
std::string ToJsonText(const AskResult& r);

// How a Searcher will be used. Both read every issue's resolution prior once
// per index revision, from the table the index stores (one metadata read,
// about 1 MB and a few ms at 1M issues), which lets the title pass skip the
// issues that cannot reach the top and walk a pass's matches in prior order
// (the prior pool: in an index of at least 1,000 issues, only the
// best-resolved matches of a pass that would weigh a large part of the index
// are weighed; docs/cli.md "ask"). Without a current stored table (an index
// written by an older build), kServing (a server, an evaluation: many
// questions) reads the priors from the value stream, a pass over every
// value (about 80 ms at 1M issues), and kOneQuestion (a CLI `ask`) reads
// none: the title pass weighs its matches by Xapian's value source of the
// prior slot, each candidate's prior is read from its document, and every
// match of a pass is weighed, as over shards.
enum class SearcherUse { kServing, kOneQuestion };

class Searcher {
 public:
  virtual ~Searcher() = default;
  // Opens <db_dir>/index-issues read-only (an index directory, or a stub file
  // listing its shards: shards.h), and the doc sources `docs` configures
  // (OpenDocSources; when they cannot be opened ask answers from issues
  // alone): at once for kServing; for kOneQuestion at the first question that
  // searches them (most questions need no doc, Ask; opening costs about
  // 10 ms).
  // NotFound (naming the directory and what to run) when there is no index yet.
  static StatusOr<std::unique_ptr<Searcher>> Open(const std::string& db_dir,
                                                  const DocSourceConfig& docs = {},
                                                  SearcherUse use = SearcherUse::kServing);
  // InvalidArgument for a query with nothing searchable in it (empty, only
  // punctuation); never crashes on any byte string.
  virtual StatusOr<AskResult> Ask(std::string_view text, const AskOptions& options) = 0;
  // Picks up index changes written by another process since Open.
  virtual Status Reopen() = 0;
};

// eval-ask (docs/evaluation.md): asks every query of `set`, a JSON array of
// {"q": TEXT, "expect": [ISSUE REF...], "kind": "paraphrase"...}, and measures
// where the first expected issue ranks. Returns {"queries", "recall_at_1",
// "recall_at_5", "mrr", latency and CPU percentiles, "by_kind", "min_score",
// "expected_score_min", "other_scores_below" (per candidate floor 0.05..0.50,
// the other hits it would drop), "results": one row per query}.
// InvalidArgument naming the entry for a malformed one.
StatusOr<nlohmann::json> EvaluateAsk(Searcher& searcher, const nlohmann::json& set,
                                     const AskOptions& options);

using IndexProgress = std::function<void(std::int64_t issues_written)>;

// How the index is (re)built. The library reads no environment: the cli
// takes `threads` from $FIXGRAPH_INDEX_THREADS.
struct IndexOptions {
  // Threads that build and write the documents of a rebuild; 0 for the
  // machine's hardware threads. At most 8 are used.
  unsigned threads = 0;
  // Optional: called with the issues written so far as each run of issues of
  // a rebuild is written (from the writer threads, one call at a time); the
  // merge of the runs that follows reports nothing.
  IndexProgress on_progress;
};

// Index maintenance. `issues` are the issues whose data or links changed;
// an issue no longer in the store is removed. Creates the index if missing.
// Adds new documents and tombstones the old ones (the index has no termlist
// table, query/issue_index.h); rebuilds instead (as RebuildIssueIndex, with
// `options`) once a tenth of the documents (and at least 64) would be dead,
// and rebuilds an index of another layout.
Status UpdateIssueIndex(const Store& store, const std::string& db_dir,
                        const std::vector<Ref>& issues, const IndexOptions& options = {});
// Rebuilds the whole index from the store (after `link`, or on schema change):
// a new index is written beside the live one on options.threads threads
// and replaces it whole when complete, so readers keep seeing the old index
// until they reopen.
Status RebuildIssueIndex(const Store& store, const std::string& db_dir,
                         const IndexOptions& options = {});

}  // namespace fixgraph::query
