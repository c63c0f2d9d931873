// The local KG doc corpus: search over the doc index at <db_dir>/index-docs
// (import: docs_import.cc; layout: docs_layout.h) with calibrated [0,1]
// scores (KG scale: > 0.83 hit, 0.70-0.83 ambiguous, < 0.70 noise).
//
// BM25 brings the candidates (docs_query.h CandidateTerms, docs_match.h
// TopMatches); the score says how much of the question a node answers. The
// question's terms are grouped by position (an identifier and its parts form
// one group), a group weighing the IDF of its whole term (a term the index
// never saw: 0 for a CJK bigram, 0.3 x max IDF for a plain word, 0.1 for a
// quantity, 0.6 for an identifier or code); coverage is the matched weight
// over the total, in the whole node and in its title and headings; evidence
// damps a match on common words only;
//   score = 0.45 + 0.50 * (0.75 * coverage + 0.25 * title coverage) * evidence,
// then adjusted by page and section kind against the question's intent, and
// ranked by a key adding BM25, title and page coverage and a length penalty
// (docs_rank.h Tuning). Synonyms, learned associations and abbreviations of
// a question term count as partial matches. docs/kg.md, "Scores", has it
// all, with the figures behind each constant.

#include "docs_local.h"

#include "analyzer.h"
#include "docs_assoc.h"
#include "docs_fields.h"
#include "docs_layout.h"
#include "docs_node.h"
#include "docs_query.h"
#include "docs_rank.h"
#include "index_shards.h"
#include "lexicon.h"

#include "fixgraph/query/docs.h"

#include <xapian.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fixgraph::query {
namespace {

using docs::AltSet;
using docs::DocNode;
using docs::FeedbackDecider;
using docs::GroupQuery;
using docs::IsQuantity;
using docs::kEvidenceShare;
using docs::kNamedBonus;
using docs::kSlotNameWords;
using docs::kSlotPage;
using docs::kSlotPageKind;
using docs::kSlotSectionKind;
using docs::kSlotTitleTerms;
using docs::MakeSnippet;
using docs::PageScope;
using docs::Prefixed;
using docs::QueryGroup;
using docs::TitleMatches;
using docs::TitleNamed;

// One open doc index and the associations read from it: the search itself.
class DocIndexHandle : public docs::IndexSearch {
 public:
  // `stub`: the stub file the shards of `db` were opened from ("" for an
  // index directory). `debug_mu` guards `options.debug` across handles.
  DocIndexHandle(Xapian::Database db, const LocalDocOptions& options, std::string stub,
                 std::mutex* debug_mu)
      : db_(std::move(db)),
        tune_(docs::ReadTuning(options.tune)),
        debug_(options.debug),
        debug_mu_(debug_mu),
        stub_(std::move(stub)) {
    IndexOpened();
  }

  StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) override {
    for (int attempt = 0;; ++attempt) {
      try {
        if (db_.reopen()) IndexOpened();
        return SearchLocked(text, limit);
      } catch (const Xapian::NetworkError& e) {
        // A shard server went away or timed out: connect again (once), every
        // shard or none (a doc answer over part of the shards is not given).
        if (stub_.empty() || attempt > 0)
          return Status::Unavailable("doc index: " + e.get_description());
        FG_RETURN_IF_ERROR(ReopenShards());
      } catch (const Xapian::Error& e) {
        return Status::IOError("doc index: " + e.get_msg());
      }
    }
  }

  // Opens the shards of stub_ again; Unavailable naming those that are down.
  Status ReopenShards() {
    auto opened = OpenIndex(stub_, "doc index");
    if (!opened.ok()) return opened.status();
    if (!opened->missing.empty()) return MissingShards(stub_, opened->missing);
    db_ = std::move(opened->db);
    IndexOpened();
    return Status::OK();
  }

 public:
  static Status MissingShards(const std::string& stub, const std::vector<std::string>& missing) {
    std::string all;
    for (const std::string& m : missing) all += (all.empty() ? "" : "; ") + m;
    return Status::Unavailable("doc index " + stub + ": shards cannot be reached: " + all);
  }

 private:
  // On (re)opening: the associations now, the scope names and the node
  // lengths when first needed.
  void IndexOpened() {
    assoc_ = docs::ReadAssociations(db_);
    scope_parts_.reset();
    doc_lengths_.clear();
  }

  // What the question asks, weighed against the index: the term groups and
  // their weights, the terms searched, the pages it names and the
  // alternatives of its terms. SearchLocked's first step.
  struct Plan {
    std::vector<QueryGroup> groups;
    docs::Intent intent;
    double n_docs = 1;
    double max_idf = 0;
    std::vector<std::vector<double>> term_idf;  // per group and term; -1: not in the index
    std::vector<double> group_w;
    double total = 0;                         // the groups' weight
    std::vector<std::string> qterms;          // question terms searched
    std::set<std::string> have;               // the same, as a set
    std::map<std::string, double> snippet_w;  // term -> weight, for snippets
    std::set<std::string> named_terms;        // "D" terms of pages the question names
    std::vector<AltSet> alts;
    std::map<std::string, double> alt_credit;  // alternative term -> its best credit
    std::vector<std::string> alt_terms;        // alternatives searched
    std::set<std::string> asked_actions;       // API name words the question asks for
    std::set<std::string> refused;             // words only in what the question refuses
  };

  // One candidate node: what the hit reports and what orders it.
  struct Cand {
    double score;  // calibrated, adjusted: what the hit reports
    double rank;   // the sort key
    double bm25;
    bool named;
    Xapian::Document doc;
    std::vector<double> matched;  // per group: the share matched
    double coverage = 0;
    std::string page;                              // value kSlotPage
    std::string page_kind;                         // value kSlotPageKind
    const std::set<std::string>* holds = nullptr;  // the needed terms it holds
    std::set<std::string> name_words;              // value kSlotNameWords, split
    double own_rank = 0;                           // the rank key before the page's evidence
  };

  // What the candidates hold and are, read in docid order (Facts below).
  struct Facts {
    std::vector<std::set<std::string>> holds;        // per mset rank: the needed terms held
    std::vector<bool> products_of;                   // per mset rank: lists products
    std::vector<std::array<std::string, 5>> values;  // per mset rank: value slots 0-4
    std::vector<double> doc_len;
    std::vector<std::string> scope_of;   // per mset rank: its sub-corpus
    std::set<std::string> named_scopes;  // sub-corpora the question names
  };

  StatusOr<std::vector<DocHit>> SearchLocked(std::string_view text, size_t limit) {
    df_.clear();
    std::vector<DocHit> hits;
    if (limit == 0) return hits;
    Plan plan;
    plan.groups = GroupQuery(text);
    // Searched, but weighed at refused_weight and asking for no name word.
    if (tune_.negation > 0) plan.refused = docs::RefusedTerms(text, plan.groups);
    if (plan.groups.empty()) return hits;
    if (!WeighGroups(text, &plan)) return hits;
    FindNamesAndAlternatives(text, &plan);
    if (plan.qterms.empty() && plan.alt_terms.empty() && plan.named_terms.empty()) return hits;
    const Found found = FindCandidates(plan, limit);
    const std::vector<docs::DocMatch>& matches = found.matches;
    const double avg_len = std::max(1.0, db_.get_avlength());
    Facts facts = ReadFacts(plan, found, avg_len);
    NameScopes(plan, &facts);
    std::vector<Cand> cands;
    const double top_bm25 = matches.empty() ? 1.0 : std::max(1e-9, matches.front().weight);
    for (size_t r = 0; r < matches.size(); ++r)
      cands.push_back(ScoreCandidate(plan, facts, matches[r], r, top_bm25, avg_len));
    AddPageEvidence(plan, &cands);
    std::vector<const Cand*> order = OrderCandidates(plan, &cands);
    PreferAskedSiblings(plan, &order);
    for (const Cand* cp : order) {
      const Cand& c = *cp;
      if (hits.size() >= limit) break;
      nlohmann::json j = nlohmann::json::parse(c.doc.get_data(), nullptr, false);
      if (j.is_discarded()) continue;
      DocNode n = docs::NodeFromJson(j);
      DocHit h;
      h.id = n.id;
      h.title = n.section.empty() ? n.title : n.title + " > " + n.section;
      h.source = "local";
      // Never above the hit before it: the rank key put it there (docs/kg.md).
      h.score = std::min(std::round(c.score * 1000) / 1000, hits.empty() ? 1.0 : hits.back().score);
      h.band = DocBand(h.score);
      h.snippet = MakeSnippet(n.text, plan.snippet_w);
      h.products = n.products;
      h.url = n.url;
      h.page_kind = n.page_kind;
      h.section_kind = n.section_kind;
      hits.push_back(std::move(h));
    }
    docs::MarkAskedProducts(plan.intent, &hits);
    return hits;
  }

  // The groups' IDF weights and the terms searched; false when the question
  // weighs nothing.
  bool WeighGroups(std::string_view text, Plan* p) {
    const std::vector<QueryGroup>& groups = p->groups;
    p->intent = docs::ReadIntent(text);
    p->n_docs = std::max<double>(1, db_.get_doccount());
    p->max_idf = std::log((p->n_docs + 1) / 0.5);
    const double n_docs = p->n_docs, max_idf = p->max_idf;
    auto idf = [&](const std::string& t) {
      Xapian::doccount df = Df(t);
      if (df == 0) return -1.0;
      return std::max(0.0, std::log((n_docs + 1) / (df + 0.5)));
    };
    // Bigrams across a word boundary of the question (信超 of 通信超时) are
    // rare in the corpus, so they would weigh much and match by chance: they
    // are neither weighed nor searched.
    std::set<std::string> seams;
    {
      std::vector<std::string> v = docs::SeamBigrams(
          Analyze(text), [&](const std::string& t) { return static_cast<double>(Df(t)); },
          tune_.seam_ratio);
      seams.insert(v.begin(), v.end());
    }
    p->term_idf.resize(groups.size());
    p->group_w.resize(groups.size());
    double total = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      double w = 0;
      // A lone letter or digit ("x" in "4 x 8", "a") names nothing: it is
      // neither searched for nor weighed.
      if ((groups[g].kind == TermKind::kWord && groups[g].terms[0].size() == 1) ||
          (groups[g].kind == TermKind::kCjk && seams.count(groups[g].terms[0]) > 0)) {
        p->term_idf[g].assign(groups[g].terms.size(), -1.0);
        p->group_w[g] = 0;
        continue;
      }
      for (const std::string& t : groups[g].terms) {
        double f = idf(t);
        p->term_idf[g].push_back(f);
        if (f >= 0) {
          p->qterms.push_back(t);
          p->have.insert(t);
          p->snippet_w[t] = std::max(p->snippet_w[t], f);
        }
      }
      double whole = p->term_idf[g][0];
      if (whole >= 0) {
        w = whole;
        // A plain English word is rare in a small doc corpus by chance
        // ("badly", "fly") as often as by meaning: its weight is capped.
        if (groups[g].kind == TermKind::kWord) w = std::min(w, tune_.word_idf_cap * max_idf);
      } else if (groups[g].kind == TermKind::kCjk) {
        w = 0;
      } else if (IsQuantity(groups[g].terms[0])) {
        w = 0.1 * max_idf;
      } else if (groups[g].kind == TermKind::kWord) {
        w = 0.3 * max_idf;
      } else {
        w = 0.6 * max_idf;
      }
      if (p->refused.count(groups[g].terms[0]) > 0) w *= tune_.refused_weight;
      p->group_w[g] = w;
      total += w;
    }
    p->total = total;
    return total > 0;
  }

  // The pages the question names and the alternatives of its terms (with
  // the debug lines of both).
  void FindNamesAndAlternatives(std::string_view text, Plan* p) {
    const std::vector<QueryGroup>& groups = p->groups;
    // Pages the question names: an identifier of the question that a page
    // defines (its title's name).
    for (const QueryGroup& g : groups) {
      // Identifiers, and words that may be a name run together ("rmsnorm").
      if (g.kind != TermKind::kIdentifier && !(g.kind == TermKind::kWord && g.terms[0].size() >= 6))
        continue;
      std::string d = Prefixed('D', g.terms[0]);
      if (Df(d) > 0 && !docs::NamesANamespace(db_, d)) p->named_terms.insert(d);
    }
    // Alternatives: the lexicon's synonyms and the learned associations.
    p->alts = docs::Alternatives(text, groups, p->term_idf, tune_, assoc_,
                                 [this](const std::string& t) { return Df(t) > 0; });
    // The API name words the question asks for in other words ("恢复默认"
    // -> reset): they choose between sibling API pages (PreferAskedSiblings).
    {
      const Lexicon& actions = Lexicon::ApiActions();
      for (const Lexicon::Match& m : actions.FindSynonyms(SequenceOf(Analyze(text))))
        for (const Lexicon::Seq& member : actions.Group(m.group))
          p->asked_actions.insert(member.begin(), member.end());
    }
    // What each alternative term is worth as a stand-in for a question term.
    for (const AltSet& a : p->alts)
      for (const auto& m : a.members)
        for (const std::string& t : m) p->alt_credit[t] = std::max(p->alt_credit[t], a.credit);
    for (const AltSet& a : p->alts)
      for (const auto& m : a.members)
        for (const std::string& t : m)
          if (!p->have.count(t) && Df(t) > 0) p->alt_terms.push_back(t);
    // LocalDocOptions::debug ($FIXGRAPH_KG_DEBUG in the cli): the question's
    // terms, alternatives, named pages and sub-corpora, and every candidate's
    // parts, to the caller's stream (docs/kg.md).
    if (debug_ != nullptr) {
      for (size_t g = 0; g < groups.size(); ++g)
        DebugLine("group %s w=%.2f\n", groups[g].terms[0].c_str(), p->group_w[g]);
      for (const AltSet& a : p->alts) {
        std::string m;
        for (const auto& mem : a.members) {
          m += " [";
          for (const auto& t : mem) m += t + " ";
          m += "]";
        }
        DebugLine("alt %.1f groups=%zu:%s\n", a.credit, a.groups.size(), m.c_str());
      }
      for (const std::string& d : p->named_terms) DebugLine("named %s\n", d.c_str());
    }
  }

  // The candidates, best first; with the terms each holds when the match
  // read them (`held`, pointing into `spec`).
  struct Found {
    docs::CandidateSpec spec;
    std::vector<docs::DocMatch> matches;
    std::optional<docs::HeldTerms> held;
  };

  // The candidates: BM25 over the question terms, their alternatives, the title
  // field and the named pages (CandidateTerms), term at a time (TopMatches).
  Found FindCandidates(const Plan& p, size_t limit) {
    const docs::SearchTerms terms{p.qterms, p.alt_terms, p.alt_credit, p.named_terms};
    const docs::DocFreq df = [this](const std::string& t) { return Df(t); };
    Found found{docs::CandidateTerms(terms, tune_, p.n_docs, df), {}, std::nullopt};
    const docs::CandidateSpec& spec = found.spec;
    const auto want =
        static_cast<Xapian::doccount>(std::max(static_cast<size_t>(tune_.candidates), limit * 3));
    const bool feedback =
        tune_.feedback_terms > 0 && tune_.feedback_weight > 0 && tune_.feedback_docs >= 1;
    // Over remote shards each shard's matcher does the work (a posting list
    // read here would cross the network whole).
    if (!feedback && stub_.empty()) {
      if (doc_lengths_.empty()) doc_lengths_ = docs::DocLengths(db_);
      found.held.emplace();
      found.matches = docs::TopMatches(db_, spec, doc_lengths_, want, &*found.held);
      return found;
    }
    // Xapian's matcher, the same ranking: over shards, and with relevance
    // feedback, where terms that mark the best documents widen the candidate
    // set (they do not count as covering the question). The first pass asks
    // only for those documents and leaves out the terms in more than
    // feedback_df of the nodes: their long posting lists are most of a
    // match's cost and barely move the best few documents.
    const double common_df = tune_.feedback_df * p.n_docs;
    const FeedbackDecider decider(&p.have);
    std::optional<docs::Feedback> fb;
    if (feedback)
      fb = docs::Feedback{
          docs::TermsQuery(terms, [&](const std::string& t) { return Df(t) <= common_df; }),
          static_cast<Xapian::doccount>(tune_.feedback_docs),
          static_cast<Xapian::termcount>(tune_.feedback_terms), tune_.feedback_weight, &decider};
    found.matches = docs::XapianMatches(db_, spec, want, fb ? &*fb : nullptr);
    return found;
  }

  // Which question terms (and alternatives, in the body and in the title)
  // each candidate holds, read from the posting lists (one skip_to per term
  // and candidate, in docid order) rather than by walking every candidate's
  // whole term list; and its values and length, read the same way.
  // `avg_len`: the index's mean length, a candidate's length when it has none.
  Facts ReadFacts(const Plan& p, const Found& found, double avg_len) {
    const std::vector<docs::DocMatch>& matches = found.matches;
    const std::vector<QueryGroup>& groups = p.groups;
    // Every term a candidate is tested for, sorted.
    std::vector<std::string> needed;
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t k = 0; k < groups[g].terms.size(); ++k) {
        if (p.term_idf[g][k] < 0) continue;
        needed.push_back(groups[g].terms[k]);
        needed.push_back(Prefixed('T', groups[g].terms[k]));
      }
    }
    for (const AltSet& a : p.alts)
      for (const auto& member : a.members)
        for (const std::string& t : member) {
          needed.push_back(t);
          needed.push_back(Prefixed('T', t));
        }
    for (const std::string& d : p.named_terms) needed.push_back(d);
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    std::vector<std::pair<Xapian::docid, size_t>> by_did;
    by_did.reserve(matches.size());
    for (const docs::DocMatch& m : matches) by_did.emplace_back(m.did, by_did.size());
    std::sort(by_did.begin(), by_did.end());
    Facts f;
    f.holds.resize(by_did.size());
    f.products_of.assign(by_did.size(), false);
    auto mark = [&](const std::string& term, bool products) {
      Xapian::PostingIterator it = db_.postlist_begin(term);
      const Xapian::PostingIterator end = db_.postlist_end(term);
      for (const auto& [did, rank] : by_did) {
        it.skip_to(did);
        if (it == end) break;
        if (*it == did) {
          if (products)
            f.products_of[rank] = true;
          else
            f.holds[rank].insert(term);
        }
      }
    };
    // The terms the match read at every candidate are known; the others
    // are looked up.
    std::unordered_set<std::string_view> known;
    if (found.held) {
      for (const auto* terms : {&found.spec.match, &found.spec.extra})
        for (const docs::WeightedTerm& t : *terms) known.insert(t.term);
      for (size_t r = 0; r < found.held->size(); ++r)
        for (const std::string* t : (*found.held)[r]) f.holds[r].insert(*t);
    }
    for (const std::string& t : needed)
      if (known.count(t) == 0 && Df(t) > 0) mark(t, false);
    if (p.intent.cpp && tune_.cpp_api > 0) mark(docs::kCppApiTerm, false);
    if (p.intent.support)
      for (Xapian::TermIterator pt = db_.allterms_begin("P"); pt != db_.allterms_end("P"); ++pt)
        mark(*pt, true);
    // The page, the kinds and the length of every candidate: one stream per
    // value slot and the all-documents posting list, in docid order
    // (Document::get_value seeks the value table on every call).
    f.values.resize(by_did.size());
    f.doc_len.assign(by_did.size(), avg_len);
    for (Xapian::valueno slot :
         {kSlotPage, kSlotPageKind, kSlotSectionKind, kSlotTitleTerms, kSlotNameWords}) {
      Xapian::ValueIterator v = db_.valuestream_begin(slot);
      const Xapian::ValueIterator vend = db_.valuestream_end(slot);
      for (const auto& [did, rank] : by_did) {
        if (v == vend) break;
        v.skip_to(did);
        if (v == vend) break;
        if (v.get_docid() == did) f.values[rank][slot] = *v;
      }
    }
    if (!doc_lengths_.empty()) {
      for (const auto& [did, rank] : by_did)
        if (did < doc_lengths_.size()) f.doc_len[rank] = static_cast<double>(doc_lengths_[did]);
    } else {
      Xapian::PostingIterator it = db_.postlist_begin("");
      const Xapian::PostingIterator end = db_.postlist_end("");
      for (const auto& [did, rank] : by_did) {
        it.skip_to(did);
        if (it == end) break;
        if (*it == did) f.doc_len[rank] = static_cast<double>(it.get_doclength());
      }
    }
    return f;
  }

  // Scopes the question names: the tree's top directories (`vllm-ascend/`);
  // "vllm-ascend 有哪些环境变量" or "with vllm" asks about that product.
  void NameScopes(const Plan& p, Facts* f) {
    f->scope_of.assign(f->values.size(), std::string());
    if (tune_.scope_bonus <= 0) return;
    std::set<std::string> scopes;
    for (size_t r = 0; r < f->values.size(); ++r) {
      f->scope_of[r] = PageScope(f->values[r][kSlotPage]);
      if (!f->scope_of[r].empty()) scopes.insert(f->scope_of[r]);
    }
    if (scopes.size() > 1) {
      if (!scope_parts_) scope_parts_ = docs::ScopePartCounts(db_);
      f->named_scopes = docs::NamedScopes(db_, p.groups, scopes, *scope_parts_, tune_.scope_share);
    }
    if (debug_ != nullptr)
      for (const std::string& sc : f->named_scopes) DebugLine("scope %s\n", sc.c_str());
  }

  // The share of each group a candidate holds, in its body (`m`) and in its
  // title and heading (`mt`): the whole term, else 0.6 x the IDF share of its
  // parts, else the credit of an alternative all of whose terms it holds.
  void MatchGroups(const Plan& p, const std::set<std::string>& present, std::vector<double>* m,
                   std::vector<double>* mt) const {
    const std::vector<QueryGroup>& groups = p.groups;
    auto DocHas = [&present](const std::string& t) { return present.count(t) > 0; };
    m->assign(groups.size(), 0.0);
    mt->assign(groups.size(), 0.0);
    for (size_t g = 0; g < groups.size(); ++g) {
      if (p.group_w[g] <= 0) continue;
      const auto& terms = groups[g].terms;
      const auto& term_idf = p.term_idf[g];
      auto match = [&](const std::string& prefix) {
        if (term_idf[0] >= 0 && DocHas(prefix + terms[0])) return 1.0;
        double parts = 0, parts_got = 0;
        for (size_t k = 1; k < terms.size(); ++k) {
          double f = std::max(0.0, term_idf[k] >= 0 ? term_idf[k] : p.max_idf);
          parts += f;
          if (term_idf[k] >= 0 && DocHas(prefix + terms[k])) parts_got += f;
        }
        return parts > 0 ? 0.6 * parts_got / parts : 0.0;
      };
      (*m)[g] = match("");
      if ((*m)[g] > 0) (*mt)[g] = match("T");
    }
    for (const AltSet& a : p.alts) {
      double best = 0, best_t = 0;
      for (const auto& member : a.members) {
        bool all = !member.empty(), all_t = !member.empty();
        for (const std::string& t : member) {
          if (!DocHas(t)) {
            all = all_t = false;
            break;
          }
          if (all_t && !DocHas(Prefixed('T', t))) all_t = false;
        }
        if (all) best = a.credit;
        if (all_t) best_t = a.credit;
        if (all_t) break;
      }
      for (size_t g : a.groups) {
        (*m)[g] = std::max((*m)[g], best);
        (*mt)[g] = std::max((*mt)[g], best_t);
      }
    }
  }

  // The candidate `match` (rank `r` of the matches): its calibrated score,
  // adjusted by its structure against the question's intent, and its rank
  // key (docs/kg.md, "Ranking").
  Cand ScoreCandidate(const Plan& p, const Facts& f, const docs::DocMatch& match, size_t r,
                      double top_bm25, double avg_len) {
    const std::vector<QueryGroup>& groups = p.groups;
    const docs::Intent& intent = p.intent;
    Xapian::Document doc = db_.get_document(match.did, Xapian::DOC_ASSUME_VALID);
    const std::set<std::string>& present = f.holds[r];
    std::vector<double> m, mt;
    MatchGroups(p, present, &m, &mt);
    double got = 0, got_title = 0, mass = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      got += m[g] * p.group_w[g];
      got_title += mt[g] * p.group_w[g];
      mass += m[g] * p.group_w[g];
    }
    double coverage = got / p.total;
    double title_cov = got_title / p.total;
    double evidence = std::min(1.0, mass / p.max_idf / kEvidenceShare);
    double score = 0.45 + 0.50 * (0.75 * coverage + 0.25 * title_cov) * evidence;
    // Structure: the page's kind and the section's kind against the intent.
    const std::string& page_kind = f.values[r][kSlotPageKind];
    const std::string& sec_kind = f.values[r][kSlotSectionKind];
    const bool definer = page_kind == docs::kPageEnv || page_kind == docs::kPageApi;
    double adj = 0;
    if (page_kind == docs::kPageIndex) adj -= tune_.index_penalty;
    if (page_kind == docs::kPageTutorial && title_cov <= 0) adj -= tune_.tutorial_penalty;
    if (intent.enable && !intent.support) {
      if (definer) adj += tune_.enable_definer;
      if (page_kind == docs::kPageTutorial) adj -= tune_.enable_tutorial;
    }
    if (intent.support) {
      if (sec_kind == docs::kSecConstraints) adj += tune_.support_section;
      if (f.products_of[r]) adj += tune_.support_products;
    }
    if (intent.symptom && (page_kind == docs::kPageTrouble || sec_kind == docs::kSecTrouble))
      adj += tune_.symptom_trouble;
    if (intent.setting && page_kind == docs::kPageEnv) adj += tune_.setting_env;
    if (intent.api && page_kind == docs::kPageApi) adj += tune_.api_page;
    bool named = false;
    for (const std::string& d : p.named_terms)
      if (present.count(d) > 0) named = true;
    score = std::clamp(score + adj, 0.0, 1.0);
    double rank =
        score + tune_.bm25_share * match.weight / top_bm25 + tune_.title_share * title_cov;
    // The sub-corpus the question names orders the pages; it says nothing
    // about how well the node answers (the score).
    if (!f.named_scopes.empty() && f.named_scopes.count(f.scope_of[r]) > 0)
      rank += tune_.scope_bonus;
    // A C++ question: the C++ API pages (a Python API of the same name is another call).
    if (intent.cpp && f.holds[r].count(docs::kCppApiTerm) > 0) rank += tune_.cpp_api;
    if (sec_kind == docs::kSecFunction && !intent.support) rank += tune_.function_section;
    if (sec_kind == docs::kSecFunction && intent.meaning) rank += tune_.meaning_function;
    // The question names the page: the share of the page title's terms
    // that the question holds (or a synonym of), for short titles such as
    // "Supported Models" or "Environment Variables" whose words are common.
    if (tune_.title_named > 0)
      rank += tune_.title_named * TitleNamed(f.values[r][kSlotTitleTerms], p.have, p.alt_credit);
    // The question asks for every word of an API's name, in its own words
    // ("the NPU quantize op" and npu_quantize).
    std::set<std::string> name_words = docs::SplitWords(f.values[r][kSlotNameWords]);
    if (tune_.name_asked > 0 && name_words.size() >= 2 &&
        std::all_of(name_words.begin(), name_words.end(),
                    [&](const std::string& w) { return Asked(p, w); }))
      rank += tune_.name_asked;
    // Long sections (deployment scripts, change logs) hold many words by
    // sheer length.
    double len = f.doc_len[r];
    if (len > avg_len) rank -= tune_.length_penalty * std::log(len / avg_len);
    if (named) {
      score = std::min(1.0, score + kNamedBonus);
      rank += 1.0;
    }
    if (debug_ != nullptr)
      DebugLine("cand %.3f rank %.3f bm25 %.2f cov %.2f tcov %.2f adj %.2f %s %s/%s %s\n", score,
                rank, match.weight, coverage, title_cov, adj, f.values[r][kSlotPage].c_str(),
                page_kind.c_str(), sec_kind.c_str(), f.values[r][kSlotTitleTerms].c_str());
    return Cand{std::min(score, 1.0),
                rank,
                match.weight,
                named,
                doc,
                m,
                coverage,
                f.values[r][kSlotPage],
                page_kind,
                &f.holds[r],
                std::move(name_words)};
  }

  // Page evidence: the question terms matched by the page's best
  // tune_.page_sections candidate sections (a page answering in its
  // description and its parameters; the many sections of a long guide match
  // some question words by chance).
  void AddPageEvidence(const Plan& p, std::vector<Cand>* cands) const {
    if (tune_.page_share <= 0) return;
    const size_t n_groups = p.groups.size();
    std::vector<const Cand*> by_rank;
    for (const Cand& c : *cands) by_rank.push_back(&c);
    std::stable_sort(by_rank.begin(), by_rank.end(),
                     [](const Cand* a, const Cand* b) { return a->rank > b->rank; });
    std::map<std::string, std::pair<int, std::vector<double>>> page_m;  // sections, matched
    for (const Cand* c : by_rank) {
      auto& [sections, pm] = page_m[c->page];
      if (pm.empty()) pm.assign(n_groups, 0.0);
      if (++sections > tune_.page_sections) continue;
      for (size_t g = 0; g < n_groups; ++g) pm[g] = std::max(pm[g], c->matched[g]);
    }
    for (Cand& c : *cands) {
      c.own_rank = c.rank;
      const auto& pm = page_m[c.page].second;
      double got = 0;
      for (size_t g = 0; g < n_groups; ++g) got += pm[g] * p.group_w[g];
      c.rank += tune_.page_share * (got / p.total - c.coverage);
    }
  }

  // The candidates by rank key, one section per page first (the best), then
  // the other sections, so the first hits name different pages. Tutorials
  // the question does not name share one slot: the best of them comes in
  // the first round, the others (near-identical sections of other
  // tutorials) after every other page.
  std::vector<const Cand*> OrderCandidates(const Plan& p, std::vector<Cand>* cands) const {
    std::stable_sort(cands->begin(), cands->end(), [](const Cand& a, const Cand& b) {
      if (std::abs(a.rank - b.rank) > 1e-9) return a.rank > b.rank;
      return a.bm25 > b.bm25;
    });
    // A page takes the place of its best section by the rank key, and is
    // shown by its best section by the key without the page's evidence (which
    // adds to each section what it lacks of the page's coverage; docs/kg.md).
    std::map<std::string, const Cand*> shown;
    for (const Cand& c : *cands) {
      auto [it, fresh] = shown.try_emplace(c.page, &c);
      if (!fresh && tune_.own_section > 0 && c.own_rank > it->second->own_rank + 1e-9)
        it->second = &c;
    }
    std::vector<const Cand*> order;
    std::vector<const Cand*> later;
    std::set<std::string> pages;
    bool tutorial_shown = false;
    for (const Cand& first : *cands) {
      const Cand& c = *shown[first.page];
      if (&c != &first) later.push_back(&first);
      if (!pages.insert(first.page).second) continue;
      bool collapsible = c.page_kind == docs::kPageTutorial && !c.named && c.rank < 1.0 &&
                         !TitleMatches(*c.holds, p.groups, p.term_idf);
      if (collapsible && tutorial_shown) {
        later.push_back(&c);
        continue;
      }
      if (collapsible) tutorial_shown = true;
      order.push_back(&c);
    }
    order.insert(order.end(), later.begin(), later.end());
    return order;
  }

  // Sibling API and variable pages among the first pages (names that differ
  // by a word: set_stream_limit / reset_stream_limit) share most words with
  // any question about either; the word that tells them apart decides
  // (docs_rank.h SiblingAsked): a page whose distinguishing word the
  // question asks for, directly, by a lexicon synonym or by an API action
  // (api_actions.txt), moves above its sibling. A page the question names
  // keeps its place.
  void PreferAskedSiblings(const Plan& p, std::vector<const Cand*>* order) const {
    if (tune_.sibling_pages < 2) return;
    const size_t n = std::min(order->size(), static_cast<size_t>(tune_.sibling_pages));
    auto asked = [&](const std::string& w) { return Asked(p, w); };
    // A page beating a sibling ranked above it takes the place of the
    // highest such sibling; the pages between move down one place.
    for (size_t i = 1; i < n; ++i) {
      const Cand& a = *(*order)[i];
      if (a.name_words.empty()) continue;
      for (size_t j = 0; j < i; ++j) {
        const Cand& b = *(*order)[j];
        // Pages of two products (sub-corpora) are not siblings, whatever their names.
        if (a.page == b.page || b.named || b.name_words.empty() ||
            PageScope(a.page) != PageScope(b.page) ||
            !docs::SiblingAsked(a.name_words, b.name_words, asked))
          continue;
        if (debug_ != nullptr) DebugLine("sibling %s above %s\n", a.page.c_str(), b.page.c_str());
        std::rotate(order->begin() + static_cast<std::ptrdiff_t>(j),
                    order->begin() + static_cast<std::ptrdiff_t>(i),
                    order->begin() + static_cast<std::ptrdiff_t>(i) + 1);
        break;
      }
    }
  }

  // True when the question asks for name word `w`: it holds it, a lexicon
  // synonym of it, or an API action phrase for it (api_actions.txt).
  bool Asked(const Plan& p, const std::string& w) const {
    if (p.refused.count(w) > 0) return false;
    if (p.have.count(w) > 0 || p.asked_actions.count(w) > 0) return true;
    auto it = p.alt_credit.find(w);
    return it != p.alt_credit.end() && it->second >= tune_.synonym_credit - 1e-9;
  }

  // One line of debug output to debug_ (printf format, newline included).
  __attribute__((format(printf, 2, 3))) void DebugLine(const char* format, ...) const {
    std::va_list args;
    va_start(args, format);
    docs::WriteDebugLine(debug_, debug_mu_, format, args);
    va_end(args);
  }

  // A term's frequency in db_, each looked up once per question (SearchLocked
  // clears the cache): the weighing, the alternatives, the title and common
  // term checks and the candidate facts ask for the same terms.
  Xapian::doccount Df(const std::string& term) {
    auto [it, fresh] = df_.try_emplace(term, 0);
    if (fresh) it->second = db_.get_termfreq(term);
    return it->second;
  }

  Xapian::Database db_;
  std::unordered_map<std::string, Xapian::doccount> df_;  // Df's cache, one question's
  docs::AssociationTable assoc_;
  // docs::ScopePartCounts of db_, read when a question first needs it; reset on reopen.
  std::optional<std::map<std::string, int>> scope_parts_;
  // docs::DocLengths of db_ (a local index), read by the first search; cleared on reopen.
  std::vector<Xapian::termcount> doc_lengths_;
  docs::Tuning tune_;
  std::ostream* debug_;   // LocalDocOptions::debug; not owned
  std::mutex* debug_mu_;  // guards *debug_; the source's
  std::string stub_;
};

}  // namespace

namespace docs {

StatusOr<std::unique_ptr<IndexSearch>> OpenIndexSearch(const std::string& dir,
                                                       const LocalDocOptions& options,
                                                       std::mutex* debug_mu) {
  if (IsStubFile(dir)) {  // shards (index_shards.h)
    auto opened = OpenIndex(dir, "doc index");
    if (!opened.ok()) return opened.status();
    if (!opened->missing.empty()) return DocIndexHandle::MissingShards(dir, opened->missing);
    return std::unique_ptr<IndexSearch>(
        new DocIndexHandle(std::move(opened->db), options, dir, debug_mu));
  }
  try {
    return std::unique_ptr<IndexSearch>(
        new DocIndexHandle(Xapian::Database(dir), options, "", debug_mu));
  } catch (const Xapian::Error& e) {
    return Status::IOError(dir + ": " + e.get_msg());
  }
}

}  // namespace docs

}  // namespace fixgraph::query
