#include "docs_query.h"

#include "docs_layout.h"

namespace fixgraph::query::docs {

Xapian::Query TermsQuery(const SearchTerms& t,
                         const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> q, a;
  for (const std::string& term : t.question)
    if (keep(term)) q.push_back(term);
  for (const std::string& term : t.alternatives)
    if (keep(term)) a.push_back(term);
  Xapian::Query out(Xapian::Query::OP_OR, q.begin(), q.end());
  if (!a.empty())
    out =
        Xapian::Query(Xapian::Query::OP_OR, out,
                      Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT,
                                    Xapian::Query(Xapian::Query::OP_OR, a.begin(), a.end()), 0.5));
  for (const std::string& d : t.named)
    out = Xapian::Query(Xapian::Query::OP_OR, out,
                        Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(d), 0));
  return out;
}

CandidateSpec CandidateTerms(const SearchTerms& t, const Tuning& tune, double n_docs,
                             const DocFreq& df) {
  // Terms held by more than common_df of the nodes: their long posting lists
  // are read only at the nodes a rarer term brings (AND_MAYBE), and a node
  // holding nothing but common words would not be a useful candidate.
  auto is_common = [&](const std::string& term) {
    return tune.common_df > 0 && df(term) > tune.common_df * n_docs;
  };
  CandidateSpec spec;
  std::vector<WeightedTerm> common;
  bool has_rare = false;
  auto add = [&](const std::vector<std::string>& terms, double factor) {
    for (const std::string& term : terms) {
      const bool c = is_common(term);
      (c ? common : spec.match).push_back({term, factor, df(term)});
      has_rare = has_rare || !c;
    }
  };
  add(t.question, 1.0);
  add(t.alternatives, 0.5);
  for (const std::string& d : t.named) spec.match.push_back({d, 0.0, df(d)});
  // The title field as a field of its own: a node whose title or heading
  // holds question terms joins the candidates even when the question's words
  // are common in bodies ("which models can I run" and the page "Supported
  // Models"). A title term held by many titles (`npu`, `torch_npu`) brings
  // no page of its own; its long posting list was most of this part's cost.
  auto title_useful = [&](const std::string& term) {
    Xapian::doccount n = df(Prefixed('T', term));
    return n > 0 && (tune.title_df <= 0 || n <= tune.title_df * n_docs);
  };
  if (tune.title_query > 0) {
    auto add_title = [&](const std::string& term) {
      std::string tt = Prefixed('T', term);
      const Xapian::doccount n = df(tt);
      spec.match.push_back({std::move(tt), tune.title_query, n});
    };
    for (const std::string& term : t.question)
      if (title_useful(term)) add_title(term);
    // A synonym of a question term in a title (a Chinese question and the
    // English page "Environment Variables") counts there too.
    if (tune.title_alt > 0)
      for (const std::string& term : t.alternatives)
        if (t.alt_credit.at(term) >= tune.title_alt && title_useful(term)) add_title(term);
  }
  // Without a rarer term of the question the common ones are the match.
  std::vector<WeightedTerm>& to = has_rare ? spec.extra : spec.match;
  to.insert(to.end(), common.begin(), common.end());
  return spec;
}

double ScopeShare(const Xapian::Database& db, const std::string& term, const std::string& scope) {
  double all = 0, in = 0;
  Xapian::ValueIterator v = db.valuestream_begin(kSlotPage);
  const Xapian::ValueIterator vend = db.valuestream_end(kSlotPage);
  const Xapian::PostingIterator end = db.postlist_end(term);
  for (Xapian::PostingIterator it = db.postlist_begin(term); it != end; ++it) {
    ++all;
    if (v == vend) continue;
    v.skip_to(*it);
    if (v != vend && v.get_docid() == *it && PageScope(*v) == scope) ++in;
  }
  return all > 0 ? in / all : 1.0;
}

bool NamesANamespace(const Xapian::Database& db, const std::string& d) {
  // (A `D` term holds no "::": the analyzer splits C++ names there.)
  for (const char* sep : {".", "-"}) {
    const std::string prefix = d + sep;
    if (db.allterms_begin(prefix) != db.allterms_end(prefix)) return true;
  }
  return false;
}

std::map<std::string, int> ScopePartCounts(const Xapian::Database& db) {
  std::set<std::string> scopes;
  std::string last_page;
  const Xapian::ValueIterator vend = db.valuestream_end(kSlotPage);
  for (Xapian::ValueIterator v = db.valuestream_begin(kSlotPage); v != vend; ++v) {
    const std::string page = *v;
    if (page == last_page) continue;  // a page's nodes are consecutive
    std::string scope = PageScope(page);
    if (!scope.empty()) scopes.insert(std::move(scope));
    last_page = page;
  }
  std::map<std::string, int> counts;
  for (const std::string& scope : scopes) {
    std::set<std::string> terms;
    for (const Term& t : Analyze(scope)) terms.insert(t.text);
    for (const std::string& t : terms) ++counts[t];
  }
  return counts;
}

std::set<std::string> NamedScopes(const Xapian::Database& db, const std::vector<QueryGroup>& groups,
                                  const std::set<std::string>& scopes,
                                  const std::map<std::string, int>& scope_parts, double share) {
  std::map<std::string, std::set<std::string>> scope_terms;  // scope -> its whole name and parts
  for (const std::string& scope : scopes)
    for (const Term& t : Analyze(scope)) scope_terms[scope].insert(t.text);
  std::set<std::string> named;
  for (const QueryGroup& g : groups) {
    if (g.kind == TermKind::kCjk || g.terms[0].size() < 3) continue;
    auto held = scope_parts.find(g.terms[0]);
    if (held == scope_parts.end() || held->second != 1) continue;
    for (const auto& [scope, st] : scope_terms)
      if (st.count(g.terms[0]) > 0 && ScopeShare(db, g.terms[0], scope) >= share)
        named.insert(scope);
  }
  return named;
}

}  // namespace fixgraph::query::docs
