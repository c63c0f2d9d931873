// The Xapian queries of the doc search (docs_local.cc): which nodes become
// candidates for the ranking of docs_rank.h, and with what BM25 weight.
// Private to query/.
#pragma once

#include "docs_match.h"
#include "docs_rank.h"

#include <xapian.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fixgraph::query::docs {

// What a question searches with (the doc search's plan of the question).
struct SearchTerms {
  const std::vector<std::string>& question;         // question terms in the index
  const std::vector<std::string>& alternatives;     // synonyms and associations in the index
  const std::map<std::string, double>& alt_credit;  // alternative -> its best credit
  const std::set<std::string>& named;               // "D" terms of pages the question names
};

// Term frequency in the doc index (a cached lookup: the same terms are asked
// for many times).
using DocFreq = std::function<Xapian::doccount(const std::string&)>;

// OR of the question terms `keep` accepts, their alternatives at half weight,
// and the named pages at weight 0 (they join the candidates; the ranking
// puts them first).
Xapian::Query TermsQuery(const SearchTerms& t, const std::function<bool(const std::string&)>& keep);

// The candidate search: every question term and alternative (at half weight)
// that `tune.common_df` of the `n_docs` nodes or fewer hold, the named pages'
// `D` terms at weight 0 (they bring their nodes), and the title field (`T`
// terms held by at most tune.title_df of the nodes) at tune.title_query
// bring candidates; the commoner terms only add weight to them, unless the
// question has no rarer term (then they bring them too). TopMatches
// (docs_match.h) ranks the candidates.
CandidateSpec CandidateTerms(const SearchTerms& t, const Tuning& tune, double n_docs,
                             const DocFreq& df);

// The share of the nodes holding `term` whose page lies in sub-corpus `scope`
// (docs_rank.h PageScope): `vllm` is nearly all in vllm-ascend's pages and
// names that product; `pytorch` is spread over every torch_npu sub-corpus
// and names none. A term no node holds gives 1 (it can name only the
// directory).
double ScopeShare(const Xapian::Database& db, const std::string& term, const std::string& scope);

// True when defined name `d` (a `D` term) is the namespace of other defined
// names of the index, extended by `.` or `-` (`torch_npu.contrib` of
// `torch_npu.contrib.module...`, `c10_npu` of `c10_npu-npustreamguard`): a
// question naming it says where the API lives, not which page it asks for,
// so it names no page.
bool NamesANamespace(const Xapian::Database& db, const std::string& d);

// For each term of the sub-corpus names of the whole index (docs_rank.h
// PageScope of every node's page, analysed: `vllm-ascend` -> vllm, ascend),
// how many sub-corpora hold it: `ascend` is in `vllm-ascend` and
// `ascend-pytorch`, so it names neither, whichever of them the candidates
// come from. One pass over the page value stream.
std::map<std::string, int> ScopePartCounts(const Xapian::Database& db);

// The sub-corpora among `scopes` (the candidates') that the question names:
// a question term (not a CJK bigram, 3+ characters) of a sub-corpus's name
// that no other sub-corpus of the index has in its name (`scope_parts`,
// ScopePartCounts), held by at least `share` of the nodes holding it that lie
// there (ScopeShare).
std::set<std::string> NamedScopes(const Xapian::Database& db, const std::vector<QueryGroup>& groups,
                                  const std::set<std::string>& scopes,
                                  const std::map<std::string, int>& scope_parts, double share);

}  // namespace fixgraph::query::docs
