// From query text to a Xapian query over the issue index. Private to query/.
//
// The text is analysed (analyzer.h) and every term becomes one unit of an OR:
// identifiers match whole or (at a lower weight) by their parts; a run of
// terms that is a member of a synonym group (lexicon.h) becomes OP_SYNONYM
// over all members. The same units, whole, over the title field
// (issue_index.h, kTitlePrefix) form `title` (AND: the issues whose title
// holds every unit, which the searcher visits first), `title_any` (OR, the
// optional weight of the BM25 passes: among the issues that match, those whose
// title holds words rank up, as a per-column BM25 would rank them) and
// `title_units` (for the partial-match pass, RareTitleUnits). Never uses
// Xapian's QueryParser, so no user text can make a syntax error.
#pragma once

#include <xapian.h>

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query {

// Share of a hit's score that is relevance; the rest comes from the prior.
inline constexpr double kRelevanceShare = 0.7;
// At most this many units in one query (a long log is cut to its best terms).
inline constexpr size_t kMaxUnits = 64;
// A query of at least this many terms asks BuildQuery's `absent` about each
// of them, and the searcher skips its title pass when a unit is in no title:
// a pasted log line is forty-odd terms, most in no title, and every pass
// looks each of its terms up again. A shorter query is mostly answered by the
// title pass, whose own lookups the test would only repeat
// (docs/benchmarks.md, "Terms no issue holds").
inline constexpr size_t kAbsentTestTerms = 12;
// The partial-match fallback keeps the rarer half of the units, at least
// kMinFallbackUnits and at most kMaxFallbackUnits of them (EliteSize). A
// pasted log line of 40-64 units would otherwise be matched by 20-32, most of
// them words every such line has: they weigh its own issue down among the
// issues holding more of them, and each is a posting list the pass reads.
// Measured on the synthetic log-line sets at 10k, 100k and 1M
// (docs/benchmarks.md, "The partial match keeps at most 16 units"): recall
// is flat from 14 to 20 units and higher than with no cap; at 10 it drops.
inline constexpr size_t kMinFallbackUnits = 3;
inline constexpr size_t kMaxFallbackUnits = 16;

// How many of `units` units the partial-match fallback keeps (OP_ELITE_SET in
// BuiltQuery::partial; over shards, the searcher picks as many itself).
constexpr size_t EliteSize(size_t units) {
  return std::max(kMinFallbackUnits, std::min(kMaxFallbackUnits, (units + 1) / 2));
}

struct BuiltQuery {
  Xapian::Query query;                     // OR of the units
  Xapian::Query all;                       // AND of the units (empty when there is one unit)
  Xapian::Query title;                     // AND of the units (whole) in the title field
  Xapian::Query title_any;                 // OR of the same
  Xapian::Query partial;                   // `query`, or the OR of its rarest units (OP_ELITE_SET)
  Xapian::Query wholes;                    // OR of the units, identifiers whole (no parts)
  std::vector<Xapian::Query> title_units;  // each unit (whole) in the title field
  std::vector<Xapian::Query> body_units;   // each unit as `query` ORs it
  size_t units = 0;
  size_t identifiers = 0;  // units that are an identifier or code (analyzer.h, kIdentifier)
  bool names_hardware = false;
  // At least kAbsentTestTerms terms: BuildQuery asked `absent` about each,
  // and the searcher skips the title pass when a unit is in no title.
  bool long_query = false;
  bool empty() const { return units == 0; }
};

// True for an identifier part that so many issues hold that searching it is
// not worth its posting list (see BuildQuery).
using CommonPart = std::function<bool(const std::string& part)>;

// `common` (may be empty: every part is searched): an identifier part it
// names is left out of the query. Such a part ("aclnn" of "aclnnConvolution",
// held by most issues of an Ascend repository) adds almost no BM25 weight,
// yet an OR over it walks its whole posting list: most of the cost of an
// identifier query and of the partial-match pass.
//
// `absent` (may be empty): a term it names is held by no issue. Outside a
// synonym group, such a term is matched by an empty posting source instead:
// the same matches, weights and percentages (Xapian counts either as one
// subquery that no document matches), without the posting-list lookup every
// pass would make for it. Not for remote shards (a posting source of ours
// does not run there).
BuiltQuery BuildQuery(std::string_view text, const CommonPart& common = {},
                      const CommonPart& absent = {});

// The number of issues holding a term (the index's term frequency).
using TermFreq = std::function<unsigned(const std::string& term)>;

// The title-field weight of the partial-match pass: the OR of the title units
// (q.title_units) whose title terms together have at most `max_postings`
// postings; an empty query when none has. A unit whose words are in the
// titles of many issues tells them apart little, yet its posting lists are the
// longest the pass reads: weighing it is checked at every candidate, which
// cost about as much as the pass itself.
Xapian::Query RareTitleUnits(const BuiltQuery& q, const TermFreq& termfreq, double max_postings);

// The rarest units of q, OR-ed: taken rarest first (postings estimated from
// term frequencies) while their postings together stay within `budget` (the
// rarest is always taken), none with more than `max_postings` (a common unit)
// or with none (a unit no issue holds brings nothing). An empty query when no
// unit qualifies, or when every unit is taken (the filter would be the query
// itself). The searcher's partial-match pass looks first among the issues
// holding one of them (a boolean filter: the candidates weigh, and Xapian's
// percentage counts, as without it): an OR, or an elite set, over many units
// weighs every issue holding any of them; the issues worth finding hold the
// rarest.
Xapian::Query RareUnits(const BuiltQuery& q, const TermFreq& termfreq, double max_postings,
                        double budget);

// A unit estimated to match more than this share of the issues narrows an AND
// too little to be worth its postings (RareIntersection, Conjunction).
inline constexpr double kNarrowingShare = 0.5;

// When even the rarest unit of q (not common: at most `max_postings`) matches
// more than `budget` postings, the filter RareUnits would give (that unit
// alone) still lets the partial-match pass weigh all its holders: in a store
// of a million issues an error code is held by tens of thousands. Then the
// candidates are the issues holding the rarest units together: the units
// (postings estimated as for RareUnits; each at most kNarrowingShare of `issues`)
// AND-ed rarest first until their intersection, estimated as if they were
// independent, fits the budget; at most kIntersectionUnits of them.
// An empty query when the rarest unit fits the budget alone (or is common),
// when fewer than two units qualify, or when every unit would be taken (the
// conjunctive pass already asked for them all).
constexpr size_t kIntersectionUnits = 3;
Xapian::Query RareIntersection(const BuiltQuery& q, const TermFreq& termfreq, double max_postings,
                               double budget, double issues);

// The conjunctive pass of a large index: q.all without the units estimated
// (EstimatedMatches, a synonym group as the union of its members) to match
// more than kNarrowingShare of `issues`. Such a unit ("npu" and its synonyms
// "device", 卡, "card"; "error" and 报错) leaves out few issues that hold the
// other units and weighs next to nothing in BM25, yet an AND reads its long
// posting lists at every candidate: in a pasted log line of twenty units
// matched by thousands of issues that was most of the pass. q.all itself
// when fewer than two units would remain (the pass would be one unit, or
// none) or when none is left out.
Xapian::Query Conjunction(const BuiltQuery& q, const TermFreq& termfreq, double issues);

// True for a query of one unit of words (not an identifier or code, which
// usually sits in a pasted log that BM25 ranks) whose postings exceed
// `max_postings` ("timeout", "报错"): a BM25 pass over it reads them all, to
// rank issues by how often they say one common word. The searcher looks for
// the issues whose title holds it first, as for a query of several units.
bool CommonSingleUnit(const BuiltQuery& q, const TermFreq& termfreq, double max_postings);

// The postings that matching `q` reads, estimated from term frequencies: an
// AND (a unit or member of several words, or a conjunctive pass) is driven
// by its rarest part; an OR, a synonym or an elite set reads every part's.
// The searcher takes the candidates of a pass estimated above its common
// bound from the best-resolved issues that match (the prior pool, ask.cc).
double MatchPostings(const Xapian::Query& q, const TermFreq& termfreq);

// The issues matching `q` among `issues`, estimated from term frequencies as
// if terms were independent: a term holds its term frequency, an AND the
// product of its parts' shares, an OR (a synonym, an elite set) their union.
// The searcher's unfiltered partial pass takes its candidates from the prior
// pool only when its units, whole, are estimated to match many issues (a
// walk in prior order over few matches scattered through long posting lists
// would read those lists as far as the pass itself).
double EstimatedMatches(const Xapian::Query& q, const TermFreq& termfreq, double issues);

// Relevance in [0, 1] of a BM25 candidate: Xapian's percentage (the share of
// the query matched, scaled by weight) as a fraction.
double Relevance(int percent);

}  // namespace fixgraph::query
