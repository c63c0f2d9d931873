// The issue index (<db_dir>/index-issues, Xapian): one document per issue. Private
// to query/; the public entry points are UpdateIssueIndex/RebuildIssueIndex in
// ask.h.
//
// Document layout:
//   terms    analysed text (analyzer.h) with field weights applied as wdf:
//            title x kTitleWeight > body > answer and fix PRs > comments;
//            the title's terms once more under kTitlePrefix (wdf 1 each), the
//            title field a query can score on its own (ask_query.h);
//            "Q" + issue ref (unique id), "R" + repo ref (filter), both wdf 0;
//            nothing else: every term is one a query (ask_query.h) or an
//            update (the id) reads
//   value 0  prior in [0, 1] from resolution and fix tier (sortable_serialise)
//   value 1  the hit's display fields (EncodeHitFields), so ask reads nothing
//            else (a value, not the document data: glass stores values as
//            written, the data zlib-compressed: a deflate per document at the
//            build and an inflate per hit)
//   data     none
//   metadata "fixgraph:schema" = kIssueIndexSchema;
//            kDeadKey = the dead documents (below), absent when there are none
//
// No termlist table (Xapian::DB_NO_TERMLIST): nothing reads a document's terms
// (ask reads posting lists and the two value slots), and
// writing the termlist was a sixth of the build (zlib compresses every
// termlist entry). Without it Xapian can neither delete nor replace a
// document, so an update never does:
//   - an issue that changed gets a new document (add_document), and its old
//     docid is tombstoned: added to the dead set, kDeadKey, sorted docids
//     written by EncodeDocids, in the same commit as the new documents
//     (atomic: a reader sees both or neither); an issue gone from the store
//     is only tombstoned. The live document of an issue is the one docid of
//     its "Q" id term that is not dead.
//   - readers (ask.cc) load the dead set once per index revision and never
//     return a dead document (a match decider on every candidate pass, only
//     when the set is not empty).
//   - term statistics (term frequencies, document count, average length)
//     count the dead documents too until the next rebuild: inexact, like
//     Lucene's before a merge; ask's own thresholds use the live count.
//   - once an update would bring the dead set to kDeadShare of the documents
//     and at least kDeadFloor, the update rebuilds the index instead (a
//     rebuild has no dead documents).
#pragma once

#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"
#include "fixgraph/query/ask.h"

#include <xapian.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fixgraph::query {

// "5": the hit fields carry the issue's flags (HitFields::flags) and the
// answer is the resolving passage (ask_answer.h); "4": no termlist table, dead documents in
// kDeadKey (above), and the hit's display fields in value slot kHitSlot (EncodeHitFields), not as
// JSON in the document data (nor its "prior": kPriorSlot holds it); "3": no prior tier terms ("2"
// had "P0".."P3", which no query read since the prior became a weight, ask_priors.h PriorSource),
// and no CJK bigram across a Chinese function word (analyzer.h); "2": title terms also under
// kTitlePrefix. An index of another schema is rebuilt by UpdateIssueIndex and refused by
// Searcher::Open.
inline constexpr const char* kIssueIndexSchema = "5";
inline constexpr const char* kDeadKey = "fixgraph:dead";
inline constexpr double kDeadShare = 0.1;
inline constexpr size_t kDeadFloor = 64;
inline constexpr const char* kTitlePrefix = "S";
inline constexpr unsigned kPriorSlot = 0;
inline constexpr unsigned kHitSlot = 1;
inline constexpr unsigned kTitleWeight = 6;
inline constexpr unsigned kBodyWeight = 3;
inline constexpr unsigned kAnswerWeight = 2;
inline constexpr unsigned kCommentWeight = 1;

std::string IssueIndexDir(const std::string& db_dir);

// The shards of the index (index_shards.h, SplitIndexes): every shard holds
// the single index's metadata and, for readers that cannot read value streams
// over the network, the prior of every docid under kPriorsKey
// (EncodePriors); each dead document (kDeadKey) carries kDeadTerm (wdf 0:
// term statistics and document lengths stay those of the single index), so a
// search over the shards leaves them out with AND_NOT (a match decider does
// not run on a remote shard).
inline constexpr const char* kPriorsKey = "fixgraph:priors";
inline constexpr const char* kShardsKey = "fixgraph:shards";  // "N" in every shard
inline constexpr std::string_view kDeadTerm{
    "\x01"
    "dead",
    5};

//
// A single index holds kPriorsKey too: every write of the index (a rebuild,
// an update in place) stores it, so a reader gets every issue's prior from one
// metadata read instead of a pass over the value stream (ask_priors.h,
// PriorTable::LoadStored). A reader uses it only when its last docid is the
// index's: an update written without it (by an older build) adds documents,
// and the stale table is ignored.

// The priors by docid: a ByteWriter record (type byte 'P') of the distinct
// value-slot strings (Str each, after their count), the last docid, and per
// docid from 1 the varint of its string's index + 1 (0: no prior slot).
std::string EncodePriors(const std::vector<std::string>& by_docid);
// False when `text` is not such an encoding; else `by_docid[d]` is docid d's
// prior (`missing` for a docid without the slot; [0] unused), `*last` the last
// docid encoded and, when `held` is given, each prior with how many docids
// hold it (`missing` first; a value may appear twice).
bool DecodePriors(std::string_view text, float missing, std::vector<float>* by_docid,
                  Xapian::docid* last, std::vector<std::pair<float, size_t>>* held = nullptr);
// `stored`, a table of EncodePriors ending at docid `last`, with the prior
// slot strings of the documents added after it appended (`added`: ascending
// docids after `last`, "" for none; the docids between get none): a copy of
// its bytes, for an update in place. "" when `stored` is not such a table or
// `added` is not in order.
std::string AppendPriors(std::string_view stored, Xapian::docid last,
                         const std::vector<std::pair<Xapian::docid, std::string>>& added);
// The prior slot string of every docid of `db` up to its last docid ("" for
// none; [0] unused), read from the value stream of kPriorSlot.
std::vector<std::string> ReadPriorSlots(const Xapian::Database& db);

// What a hit shows of an issue, as stored in value slot kHitSlot: a ByteWriter
// record (engine/byte_codec.h, type byte 'H') of the fields in this order, each
// a string (a varint length and its bytes). Strings are valid UTF-8 (the encoder
// replaces invalid bytes with U+FFFD as JSON output would); `fixes` is the
// JSON array of the shown fixes (graph::ToJson); `url` is stored empty when
// it is WebUrl(issue), and decoded as such; `flags` follows `url`.
struct HitFields {
  std::string issue;  // Ref::ToString
  std::string title;
  std::string state;       // "open" or "closed"
  std::string resolution;  // graph::ResolutionName
  std::string answer;
  std::string answer_source;  // "comment", "pr" or ""
  std::string fixes = "[]";
  std::string url;
  std::string flags;  // the issue's flags (graph::FlagName), comma-separated, "" for none
};
std::string EncodeHitFields(const HitFields& fields);
// False when `value` is not a whole encoding (corrupt).
bool DecodeHitFields(std::string_view value, HitFields* fields);

// A rebuild writes a new index beside the live one and swaps it in: the store's
// issues, in scan order, each joined with its links and comments from two
// store scans running beside the issue scan on threads of their own (the
// three visit issues in the same order, Store::ScanOrderKey; fix PRs are still
// read one by one), are cut into runs of `shard_issues`, each written to a
// shard database of its own (no termlist table, like the index) by one of
// IndexOptions::threads writers (default: the hardware's threads, at most 8;
// the scan and the writers are the indices of one ParallelFor,
// fixgraph/engine/parallel.h), so document building and Xapian's writing
// both run in parallel and every shard's B-trees stay small; the shards are
// compacted in run order into one database whose docids are consecutive in scan
// order (the same documents and docids a single writer would give; no dead
// documents); that
// database replaces <db_dir>/index-issues in one directory exchange. Readers of
// the old index keep reading it until they reopen (its revision is numbered past
// the old one's, so a reopen notices; its files are fsynced before the exchange).
// Work files: <db_dir>/index-issues.rebuild (left by a rebuild that died, removed by the next).
// RebuildIssueIndex (ask.h) uses kShardIssues.
inline constexpr size_t kShardIssues = 2048;
Status RebuildIssueIndexInShards(const Store& store, const std::string& db_dir, size_t shard_issues,
                                 const IndexOptions& options = {});

// The dead set's encoding: empty for no docids, else a ByteWriter record
// (engine/byte_codec.h, type byte 'D') of sorted, distinct docids, each as the
// varint of its distance from the one before (from 0).
std::string EncodeDocids(const std::vector<std::uint32_t>& sorted);
// False (and `out` empty) when `text` is not such an encoding.
bool DecodeDocids(std::string_view text, std::vector<std::uint32_t>* out);

// How much a hit deserves to rank up for its resolution and strongest fix:
// 1.0 fixed with a tier A fix ... 0.1 open with nothing.
double ResolutionPrior(const graph::IssueLinks& links);

// The passage of a PR description that explains the cause and the change
// (ExtractAnswerPassage, ask_answer.h); the title when the body has none, or
// only notes of versions ("- vLLM version: v0.13.0", "- CANN: 8.0.RC3").
std::string ExtractPrAnswer(const std::string& title, const std::string& body);

}  // namespace fixgraph::query
