#include "ask_query.h"

#include "analyzer.h"
#include "issue_index.h"
#include "lexicon.h"

#include <algorithm>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fixgraph::query {
namespace {

constexpr double kPartWeight = 0.4;

// Matches nothing: stands for a term no issue holds (BuildQuery). Stateless,
// so one instance serves every query; Xapian iterates a clone.
class EmptySource final : public Xapian::PostingSource {
 public:
  void init(const Xapian::Database& db) override { (void)db; }
  Xapian::doccount get_termfreq_min() const override { return 0; }
  Xapian::doccount get_termfreq_est() const override { return 0; }
  Xapian::doccount get_termfreq_max() const override { return 0; }
  Xapian::docid get_docid() const override { return 0; }
  bool at_end() const override { return true; }
  void next(double min_wt) override { (void)min_wt; }
  EmptySource* clone() const override { return new EmptySource; }
  std::string get_description() const override { return "fixgraph::EmptySource"; }
};

struct Unit {
  Xapian::Query q;
  Xapian::Query whole;  // q without the identifier parts
  Xapian::Query title;  // whole, in the title field (kTitlePrefix)
  int rank = 0;         // lower is kept first when cutting to kMaxUnits
  size_t order = 0;
};

std::string InTitle(const std::string& term) {
  std::string t = kTitlePrefix;
  t += term;
  return t;
}

// One member of a synonym group; `title`: in the title field.
Xapian::Query MemberQuery(const Lexicon::Seq& member, bool title) {
  if (member.size() == 1) return Xapian::Query(title ? InTitle(member[0]) : member[0]);
  std::vector<Xapian::Query> parts;
  for (const std::string& t : member) parts.emplace_back(title ? InTitle(t) : t);
  return Xapian::Query(Xapian::Query::OP_AND, parts.begin(), parts.end());
}

// The partial-match fallback of `units`: the units most worth matching (the
// rarest, OP_ELITE_SET), not every posting of every unit.
Xapian::Query PartialOf(const std::vector<Xapian::Query>& units) {
  const size_t elite = EliteSize(units.size());
  if (units.size() <= elite) return Xapian::Query(Xapian::Query::OP_OR, units.begin(), units.end());
  return Xapian::Query(Xapian::Query::OP_ELITE_SET, units.begin(), units.end(),
                       static_cast<Xapian::termcount>(elite));
}

// The units of q with their postings (MatchPostings), rarest first (ties
// in the query's order).
std::vector<std::pair<double, size_t>> UnitsRarestFirst(const BuiltQuery& q,
                                                        const TermFreq& termfreq) {
  std::vector<std::pair<double, size_t>> by_postings;
  by_postings.reserve(q.body_units.size());
  for (size_t i = 0; i < q.body_units.size(); ++i)
    by_postings.emplace_back(MatchPostings(q.body_units[i], termfreq), i);
  std::stable_sort(by_postings.begin(), by_postings.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return by_postings;
}

// The units of q numbered `taken`, in the query's order, joined by `op`.
Xapian::Query UnitsQuery(const BuiltQuery& q, std::vector<size_t> taken, Xapian::Query::op op) {
  std::sort(taken.begin(), taken.end());
  std::vector<Xapian::Query> units;
  units.reserve(taken.size());
  for (size_t i : taken) units.push_back(q.body_units[i]);
  return Xapian::Query(op, units.begin(), units.end());
}

}  // namespace

BuiltQuery BuildQuery(std::string_view text, const CommonPart& common, const CommonPart& absent) {
  static auto* const kEmpty = new EmptySource;  // never freed: queries may outlive any scope
  BuiltQuery out;
  std::vector<Term> terms = Analyze(text);
  // Main terms in order, and the parts of each identifier.
  std::vector<const Term*> mains;
  std::vector<std::vector<std::string>> parts;
  for (const Term& t : terms) {
    if (t.kind == TermKind::kPart) {
      if (!parts.empty()) parts.back().push_back(t.text);
      continue;
    }
    mains.push_back(&t);
    parts.emplace_back();
  }
  Lexicon::Seq seq;
  for (const Term* t : mains) seq.push_back(t->text);
  out.long_query = mains.size() >= kAbsentTestTerms;
  auto leaf = [&, test = absent && out.long_query](const std::string& term) {
    return test && absent(term) ? Xapian::Query(kEmpty) : Xapian::Query(term);
  };
  const Lexicon& lex = Lexicon::Default();
  out.names_hardware = lex.NamesHardware(seq);
  std::vector<Lexicon::Match> matches = lex.FindSynonyms(seq);

  std::vector<Unit> units;
  std::unordered_set<std::string> seen;
  size_t m = 0;
  for (size_t i = 0; i < mains.size();) {
    if (m < matches.size() && matches[m].start == i) {
      const Lexicon::Match& match = matches[m++];
      if (seen.insert("\x01syn" + std::to_string(match.group)).second) {
        std::vector<Xapian::Query> members, in_title;
        for (const Lexicon::Seq& member : lex.Group(match.group)) {
          members.push_back(MemberQuery(member, false));
          in_title.push_back(MemberQuery(member, true));
        }
        Xapian::Query syn(Xapian::Query::OP_SYNONYM, members.begin(), members.end());
        Xapian::Query title(Xapian::Query::OP_SYNONYM, in_title.begin(), in_title.end());
        units.push_back({syn, syn, title, 1, units.size()});
      }
      for (size_t k = i; k < i + match.length; ++k) seen.insert(mains[k]->text);
      i += match.length;
      continue;
    }
    const Term& t = *mains[i];
    if (seen.insert(t.text).second) {
      Xapian::Query q = leaf(t.text);
      Xapian::Query whole = q;
      if (!parts[i].empty()) {
        std::vector<Xapian::Query> ps;
        for (const std::string& p : parts[i])
          if (!common || !common(p)) ps.push_back(leaf(p));
        if (!ps.empty()) {
          Xapian::Query por(Xapian::Query::OP_OR, ps.begin(), ps.end());
          q = Xapian::Query(Xapian::Query::OP_OR, q,
                            Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, por, kPartWeight));
        }
      }
      units.push_back(
          {q, whole, leaf(InTitle(t.text)), t.kind == TermKind::kIdentifier ? 0 : 2, units.size()});
    }
    ++i;
  }
  if (units.size() > kMaxUnits) {
    std::stable_sort(units.begin(), units.end(),
                     [](const Unit& a, const Unit& b) { return a.rank < b.rank; });
    units.resize(kMaxUnits);
    std::sort(units.begin(), units.end(),
              [](const Unit& a, const Unit& b) { return a.order < b.order; });
  }
  out.units = units.size();
  for (const Unit& u : units) out.identifiers += u.rank == 0 ? 1 : 0;
  if (units.empty()) return out;
  std::vector<Xapian::Query> qs, wholes, titles;
  qs.reserve(units.size());
  wholes.reserve(units.size());
  titles.reserve(units.size());
  for (Unit& u : units) {
    qs.push_back(std::move(u.q));
    wholes.push_back(std::move(u.whole));
    titles.push_back(std::move(u.title));
  }
  out.query = Xapian::Query(Xapian::Query::OP_OR, qs.begin(), qs.end());
  out.title = Xapian::Query(Xapian::Query::OP_AND, titles.begin(), titles.end());
  out.title_any = Xapian::Query(Xapian::Query::OP_OR, titles.begin(), titles.end());
  out.title_units = titles;
  out.partial = PartialOf(qs);
  out.wholes = Xapian::Query(Xapian::Query::OP_OR, wholes.begin(), wholes.end());
  out.body_units = std::move(qs);
  if (wholes.size() > 1)
    out.all = Xapian::Query(Xapian::Query::OP_AND, wholes.begin(), wholes.end());
  return out;
}

Xapian::Query RareTitleUnits(const BuiltQuery& q, const TermFreq& termfreq, double max_postings) {
  std::vector<Xapian::Query> rare;
  for (const Xapian::Query& unit : q.title_units) {
    double postings = 0;
    for (auto it = unit.get_unique_terms_begin(); it != unit.get_unique_terms_end(); ++it)
      postings += static_cast<double>(termfreq(*it));
    if (postings <= max_postings) rare.push_back(unit);
  }
  if (rare.empty()) return Xapian::Query();
  return Xapian::Query(Xapian::Query::OP_OR, rare.begin(), rare.end());
}

Xapian::Query RareUnits(const BuiltQuery& q, const TermFreq& termfreq, double max_postings,
                        double budget) {
  std::vector<size_t> taken;
  double sum = 0;
  for (const auto& [postings, i] : UnitsRarestFirst(q, termfreq)) {
    if (postings <= 0) continue;  // a unit no issue holds brings nothing
    if (postings > max_postings) break;
    if (!taken.empty() && sum + postings > budget) break;
    sum += postings;
    taken.push_back(i);
  }
  if (taken.empty() || taken.size() == q.body_units.size()) return Xapian::Query();
  return UnitsQuery(q, std::move(taken), Xapian::Query::OP_OR);
}

Xapian::Query RareIntersection(const BuiltQuery& q, const TermFreq& termfreq, double max_postings,
                               double budget, double issues) {
  std::vector<std::pair<double, size_t>> narrowing;  // units that narrow, rarest first
  for (const auto& [postings, i] : UnitsRarestFirst(q, termfreq))
    if (postings > 0 && postings <= kNarrowingShare * issues) narrowing.emplace_back(postings, i);
  if (narrowing.size() < 2 || narrowing.front().first <= budget ||
      narrowing.front().first > max_postings)
    return Xapian::Query();
  std::vector<size_t> taken;
  double estimate = 0;
  for (const auto& [postings, i] : narrowing) {
    estimate = taken.empty() ? postings : estimate * postings / issues;
    taken.push_back(i);
    if (estimate <= budget || taken.size() >= kIntersectionUnits) break;
  }
  if (taken.size() < 2 || taken.size() == q.body_units.size()) return Xapian::Query();
  return UnitsQuery(q, std::move(taken), Xapian::Query::OP_AND);
}

Xapian::Query Conjunction(const BuiltQuery& q, const TermFreq& termfreq, double issues) {
  const size_t n = q.all.get_num_subqueries();
  std::vector<Xapian::Query> kept;
  kept.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Xapian::Query unit = q.all.get_subquery(i);
    if (EstimatedMatches(unit, termfreq, issues) <= kNarrowingShare * issues)
      kept.push_back(std::move(unit));
  }
  if (kept.size() < 2 || kept.size() == n) return q.all;
  return Xapian::Query(Xapian::Query::OP_AND, kept.begin(), kept.end());
}

bool CommonSingleUnit(const BuiltQuery& q, const TermFreq& termfreq, double max_postings) {
  return q.body_units.size() == 1 && q.identifiers == 0 &&
         MatchPostings(q.body_units.front(), termfreq) > max_postings;
}

double MatchPostings(const Xapian::Query& q, const TermFreq& termfreq) {
  const size_t n = q.get_num_subqueries();
  if (n == 0) {
    double postings = 0;  // a term (or a query without subqueries: none)
    for (auto it = q.get_unique_terms_begin(); it != q.get_unique_terms_end(); ++it)
      postings += static_cast<double>(termfreq(*it));
    return postings;
  }
  const bool all = q.get_type() == Xapian::Query::OP_AND;
  double postings = all ? -1 : 0;
  for (size_t i = 0; i < n; ++i) {
    const double p = MatchPostings(q.get_subquery(i), termfreq);
    if (!all)
      postings += p;
    else if (postings < 0 || p < postings)
      postings = p;
  }
  return std::max(postings, 0.0);
}

double EstimatedMatches(const Xapian::Query& q, const TermFreq& termfreq, double issues) {
  if (issues <= 0) return 0;
  const size_t n = q.get_num_subqueries();
  if (n == 0) {
    double share_out = 1;  // a term (several terms: as an OR of them)
    for (auto it = q.get_unique_terms_begin(); it != q.get_unique_terms_end(); ++it)
      share_out *= 1 - std::min(1.0, static_cast<double>(termfreq(*it)) / issues);
    return issues * (1 - share_out);
  }
  const Xapian::Query::op op = q.get_type();
  const bool all = op == Xapian::Query::OP_AND || op == Xapian::Query::OP_FILTER;
  double share = 1;  // AND: the share matching every part; else the share matching none
  for (size_t i = 0; i < n; ++i) {
    const double part = EstimatedMatches(q.get_subquery(i), termfreq, issues) / issues;
    share *= all ? part : 1 - part;
  }
  return issues * (all ? share : 1 - share);
}

double Relevance(int percent) { return std::clamp(percent / 100.0, 0.0, 1.0); }

}  // namespace fixgraph::query
