// The candidate match of the doc search (docs_local.cc), term at a time.
// Private to query/.
//
// The candidates are the nodes with the best BM25 weights (Xapian's
// BM25Weight, default parameters) for a weighted OR of terms, some of which
// only add weight to nodes the others match (CandidateTerms, docs_query.h).
// Enquire::get_mset ranks the same nodes, but walks the OR's posting lists
// together, document at a time: over the corpus imported ten times that was
// about 60% of a question's time for some 8,000 postings of its rarer terms
// (docs/benchmarks.md, "The doc candidates, term at a time"). Here each rarer
// term's postings are read once, in order, into a weight per node; the common
// terms (long lists) are then read only at the nodes that can still be among
// the best, as Xapian's AND_MAYBE does.
//
// Thread safety: pure functions over a Database the caller does not share.
#pragma once

#include <xapian.h>

#include <string>
#include <vector>

namespace fixgraph::query::docs {

// A term of the candidate query and its weight factor (OP_SCALE_WEIGHT):
// 1 for a question term, 0.5 for an alternative, the title weight for a `T`
// term, 0 for a named page's `D` term (it brings its nodes, weighing nothing).
struct WeightedTerm {
  std::string term;
  double factor = 1;
  Xapian::doccount tf = 0;  // the nodes holding it, when known (0: TopMatches reads it)
};

// What CandidateTerms (docs_query.h) searches for: a node holding a `match` term is a
// candidate; the `extra` terms only add weight to candidates.
struct CandidateSpec {
  std::vector<WeightedTerm> match;
  std::vector<WeightedTerm> extra;
};

// The same search as a Xapian query: OR of the match terms, AND_MAYBE the
// extra terms (each a leaf scaled by its factor). Empty when nothing matches.
Xapian::Query SpecQuery(const CandidateSpec& spec);

struct DocMatch {
  Xapian::docid did = 0;
  double weight = 0;
};

// Every node's length (its number of terms), by docid: TopMatches's, read once
// per opened index (Xapian reads a node's length with a lookup each time;
// for every posting of a search that was most of its cost). 4 bytes a node.
std::vector<Xapian::termcount> DocLengths(const Xapian::Database& db);

// The `want` nodes of `db` with the highest weight for `spec`, highest first,
// equal weights in docid order: the ranking Enquire::get_mset(0, want) gives
// for SpecQuery(spec) with BM25Weight() (weights equal to rounding: sums in
// another order). A term listed twice counts twice, as in the query.
// `lengths`: DocLengths(db) of this revision of `db`. For a local index:
// over remote shards each posting list would be fetched whole. Xapian errors
// propagate (the caller catches them with the rest of its search);
// InvalidArgumentError when `lengths` is shorter than the index.
// `held` (optional): per node returned, in the same order, the terms of
// `spec` it holds (pointers into `spec`, a term listed twice twice): every
// posting was read or skipped to for those nodes, so the caller need not
// look them up again.
using HeldTerms = std::vector<std::vector<const std::string*>>;
std::vector<DocMatch> TopMatches(const Xapian::Database& db, const CandidateSpec& spec,
                                 const std::vector<Xapian::termcount>& lengths, size_t want,
                                 HeldTerms* held = nullptr);

// Relevance feedback (docs_rank.h Tuning, off by default): the best `docs`
// nodes for `probe` (empty: the search itself) are taken as relevant, and
// the `terms` best expansion terms of them that `decider` accepts join the
// search at `weight`.
struct Feedback {
  Xapian::Query probe;
  Xapian::doccount docs = 0;
  Xapian::termcount terms = 0;
  double weight = 0;
  const Xapian::ExpandDecider* decider = nullptr;
};

// The ranking of TopMatches by Xapian's matcher (Enquire::get_mset), with
// relevance feedback when `feedback` is set: over remote shards (each
// shard's matcher reads its own lists) and with feedback. Xapian's pruning
// by weight bounds can leave out a node at the edge of the `want` best that
// TopMatches keeps (docs_match_test.cc); the 340 questions of
// tests/data/kg-questions.json get the same candidates either way.
std::vector<DocMatch> XapianMatches(const Xapian::Database& db, const CandidateSpec& spec,
                                    size_t want, const Feedback* feedback);

}  // namespace fixgraph::query::docs
