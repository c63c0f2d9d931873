#include "docs_match.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>

namespace fixgraph::query::docs {
namespace {

// BM25Weight's defaults (xapian/weight.h): k1 1, k2 0, k3 1, b 0.5,
// min_normlen 0.5. With k2 0 there is no per-document extra weight.
constexpr double kK1 = 1.0;
constexpr double kK3 = 1.0;
constexpr double kB = 0.5;
constexpr double kMinNormLen = 0.5;

// One term's BM25 weight, computed in the order Xapian computes it, so that
// equal inputs give equal doubles.
class TermWeight {
 public:
  TermWeight(Xapian::doccount n_docs, Xapian::doccount tf, double factor, double len_factor)
      : len_factor_(len_factor) {
    double tw = (static_cast<double>(n_docs) - tf + 0.5) / (tf + 0.5);
    // A term in more than about a third of the nodes keeps a small positive
    // weight rather than a negative one (Xapian's adjustment).
    if (tw < 2) tw = tw * 0.5 + 1;
    weight_ = std::log(tw) * factor;
    const double wqf = 1;  // each leaf of the query holds its term once
    weight_ *= (kK3 + 1) * wqf / (kK3 + wqf);
    weight_ *= (kK1 + 1);
  }

  double Part(Xapian::termcount wdf, Xapian::termcount len) const {
    const double normlen = std::max(len * len_factor_, kMinNormLen);
    const double wdf_d(wdf);
    const double denom = kK1 * (normlen * kB + (1 - kB)) + wdf_d;
    return weight_ * (wdf_d / denom);
  }

  // No node's Part is above it (wdf / denom < 1).
  double Bound() const { return weight_; }

 private:
  double len_factor_;
  double weight_ = 0;
};

bool Better(const DocMatch& a, const DocMatch& b) {
  return a.weight != b.weight ? a.weight > b.weight : a.did < b.did;
}

}  // namespace

Xapian::Query SpecQuery(const CandidateSpec& spec) {
  auto leaves = [](const std::vector<WeightedTerm>& terms) {
    std::vector<Xapian::Query> out;
    out.reserve(terms.size());
    for (const WeightedTerm& t : terms)
      out.emplace_back(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(t.term), t.factor);
    return out;
  };
  const std::vector<Xapian::Query> match = leaves(spec.match);
  if (match.empty()) return Xapian::Query();
  Xapian::Query q(Xapian::Query::OP_OR, match.begin(), match.end());
  const std::vector<Xapian::Query> extra = leaves(spec.extra);
  if (!extra.empty())
    q = Xapian::Query(Xapian::Query::OP_AND_MAYBE, q,
                      Xapian::Query(Xapian::Query::OP_OR, extra.begin(), extra.end()));
  return q;
}

std::vector<Xapian::termcount> DocLengths(const Xapian::Database& db) {
  std::vector<Xapian::termcount> out(static_cast<size_t>(db.get_lastdocid()) + 1, 0);
  const Xapian::PostingIterator end = db.postlist_end("");
  for (Xapian::PostingIterator it = db.postlist_begin(""); it != end; ++it)
    out[*it] = it.get_doclength();
  return out;
}

namespace {

// The weights of one search, term at a time (TopMatches).
class TermAtATime {
 public:
  TermAtATime(const Xapian::Database& db, const std::vector<Xapian::termcount>& lengths,
              size_t want, bool keep_found)
      : db_(db),
        lengths_(lengths),
        want_(want),
        keep_found_(keep_found),
        n_docs_(db.get_doccount()),
        weight_(static_cast<size_t>(db.get_lastdocid()) + 1, 0.0),
        seen_(weight_.size(), 0) {
    const double avg_len = db.get_avlength();
    len_factor_ = avg_len != 0 ? 1 / avg_len : 0;
  }

  // The match terms, each posting list read once, in order.
  void Match(const std::vector<WeightedTerm>& terms) {
    for (const WeightedTerm& t : terms) {
      const Xapian::doccount tf = TermFreq(t);
      if (tf == 0) continue;
      const TermWeight tw(n_docs_, tf, t.factor, len_factor_);
      const Xapian::PostingIterator end = db_.postlist_end(t.term);
      for (Xapian::PostingIterator it = db_.postlist_begin(t.term); it != end; ++it) {
        const Xapian::docid did = *it;
        Add(did, tw.Part(it.get_wdf(), lengths_[did]), t.term);
        if (seen_[did] == 0) {
          seen_[did] = 1;
          open_.push_back(did);
        }
      }
    }
  }

  // The extra terms, read only at the nodes that could still be among the
  // `want` best with all of them: those whose weight so far plus the most
  // the unread extra terms can add reaches the `want`-th best weight so far
  // (the extra terms only add). They are read the heaviest first, so that
  // what the rest can add soon falls below that weight and the nodes far
  // behind are dropped (over the corpus imported ten times, about 5,000
  // nodes match a question and its 20 common terms could add more than the
  // 60th best weighs: read at every node, they were most of the search).
  void Extra(const std::vector<WeightedTerm>& terms) {
    struct Term {
      const std::string* text;
      Xapian::doccount tf;
      TermWeight weight;
    };
    std::vector<Term> extra;
    for (const WeightedTerm& t : terms) {
      const Xapian::doccount tf = TermFreq(t);
      if (tf == 0) continue;
      extra.push_back({&t.term, tf, TermWeight(n_docs_, tf, t.factor, len_factor_)});
      rest_ += extra.back().weight.Bound();
    }
    if (extra.empty()) return;
    std::stable_sort(extra.begin(), extra.end(), [](const Term& a, const Term& b) {
      return a.weight.Bound() > b.weight.Bound();
    });
    // `seen` marks the open nodes from here on; they are kept in docid order.
    Prune();
    std::sort(open_.begin(), open_.end());
    for (const Term& x : extra) {
      ReadAtOpen(*x.text, x.tf, x.weight);
      rest_ -= x.weight.Bound();
      if (rest_ < floor_weight_) Prune();  // else no node can be dropped yet
    }
  }

  // The `want` best open nodes; with `held`, the terms each holds.
  std::vector<DocMatch> Best(HeldTerms* held) {
    std::vector<DocMatch> out;
    out.reserve(open_.size());
    for (Xapian::docid did : open_) out.push_back({did, weight_[did]});
    const size_t keep = std::min(want_, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(keep), out.end(),
                      Better);
    out.resize(keep);
    if (held != nullptr) {
      // Rank + 1 of each node kept (0: not kept), then one pass over found_.
      std::vector<std::uint32_t> rank_of(weight_.size(), 0);
      for (size_t r = 0; r < out.size(); ++r)
        rank_of[out[r].did] = static_cast<std::uint32_t>(r + 1);
      held->assign(out.size(), {});
      for (const auto& [did, term] : found_)
        if (rank_of[did] != 0) (*held)[rank_of[did] - 1].push_back(term);
    }
    return out;
  }

 private:
  Xapian::doccount TermFreq(const WeightedTerm& t) const {
    return t.tf > 0 ? t.tf : db_.get_termfreq(t.term);
  }

  void Add(Xapian::docid did, double part, const std::string& term) {
    weight_[did] += part;
    if (keep_found_) found_.emplace_back(did, &term);
  }

  // Drops the open nodes that cannot reach the `want`-th best weight so far
  // with what the unread terms can add (rest_).
  void Prune() {
    if (open_.size() <= want_) return;
    scratch_.clear();
    for (Xapian::docid did : open_) scratch_.push_back(weight_[did]);
    std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(want_ - 1),
                     scratch_.end(), std::greater<>());
    floor_weight_ = scratch_[want_ - 1];
    // A margin for the rounding of sums in another order.
    const double floor = floor_weight_ - rest_ * (1 + 1e-9) - 1e-9;
    open_.erase(std::remove_if(open_.begin(), open_.end(),
                               [&](Xapian::docid did) {
                                 if (weight_[did] >= floor) return false;
                                 seen_[did] = 0;
                                 return true;
                               }),
                open_.end());
  }

  // One extra term at the open nodes: its list read whole, each posting
  // looked up in seen_, when it is at most kScanRatio times as long as the
  // open nodes are many; else skipping from one open node to the next. Over
  // the corpus imported ten times, with thousands of nodes open, one skip
  // per node cost more than reading every posting.
  void ReadAtOpen(const std::string& term, Xapian::doccount tf, const TermWeight& tw) {
    constexpr double kScanRatio = 4;
    Xapian::PostingIterator it = db_.postlist_begin(term);
    const Xapian::PostingIterator end = db_.postlist_end(term);
    if (tf <= kScanRatio * static_cast<double>(open_.size())) {
      for (; it != end; ++it) {
        const Xapian::docid did = *it;
        if (seen_[did] != 0) Add(did, tw.Part(it.get_wdf(), lengths_[did]), term);
      }
      return;
    }
    for (Xapian::docid did : open_) {
      it.skip_to(did);
      if (it == end) break;
      if (*it == did) Add(did, tw.Part(it.get_wdf(), lengths_[did]), term);
    }
  }

  const Xapian::Database& db_;
  const std::vector<Xapian::termcount>& lengths_;
  const size_t want_;
  const bool keep_found_;
  const Xapian::doccount n_docs_;
  double len_factor_ = 0;
  std::vector<double> weight_;       // by docid
  std::vector<std::uint8_t> seen_;   // by docid: matched, then open
  std::vector<Xapian::docid> open_;  // the nodes that may still be among the best
  double rest_ = 0;                  // the most the unread extra terms can add
  double floor_weight_ = 0;          // the want-th best weight at the last Prune
  std::vector<double> scratch_;
  // With `held`: every (node, term) found.
  std::vector<std::pair<Xapian::docid, const std::string*>> found_;
};

}  // namespace

std::vector<DocMatch> TopMatches(const Xapian::Database& db, const CandidateSpec& spec,
                                 const std::vector<Xapian::termcount>& lengths, size_t want,
                                 HeldTerms* held) {
  if (held != nullptr) held->clear();
  if (db.get_doccount() == 0 || want == 0 || spec.match.empty()) return {};
  if (lengths.size() <= db.get_lastdocid())
    throw Xapian::InvalidArgumentError("doc lengths older than the index");
  TermAtATime search(db, lengths, want, held != nullptr);
  search.Match(spec.match);
  search.Extra(spec.extra);
  return search.Best(held);
}

std::vector<DocMatch> XapianMatches(const Xapian::Database& db, const CandidateSpec& spec,
                                    size_t want, const Feedback* feedback) {
  const Xapian::Query base = SpecQuery(spec);
  Xapian::Enquire enquire(db);
  enquire.set_query(base);
  if (feedback != nullptr) {
    if (!feedback->probe.empty()) enquire.set_query(feedback->probe);
    const Xapian::MSet best = enquire.get_mset(0, feedback->docs);
    enquire.set_query(base);
    if (best.size() > 1) {
      Xapian::RSet rset;
      for (auto it = best.begin(); it != best.end(); ++it) rset.add_document(*it);
      const Xapian::ESet eset = enquire.get_eset(feedback->terms, rset, feedback->decider);
      if (!eset.empty()) {
        std::vector<std::string> fb(eset.begin(), eset.end());
        enquire.set_query(
            Xapian::Query(Xapian::Query::OP_OR, base,
                          Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT,
                                        Xapian::Query(Xapian::Query::OP_OR, fb.begin(), fb.end()),
                                        feedback->weight)));
      }
    }
  }
  const Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(want));
  std::vector<DocMatch> out;
  for (auto it = mset.begin(); it != mset.end(); ++it) out.push_back({*it, it.get_weight()});
  return out;
}

}  // namespace fixgraph::query::docs
