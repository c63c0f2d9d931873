// The resolution priors of ask's searcher (ask.cc), private to query/: the
// prior of every issue read once per index revision (PriorTable), the Xapian
// weight made of it that lets a title search skip the issues whose prior
// cannot reach the top (PriorSource), and the decider that leaves out dead
// documents (LiveDecider). A table is read-only once loaded: searches on
// several threads share one; a PriorSource or LiveDecider serves one search.
#pragma once

#include <xapian.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fixgraph::query {

// The prior of a document written without a prior slot.
inline constexpr double kDefaultPrior = 0.2;

// The prior slot of every document by docid: from the table the index stores
// (issue_index.h, kPriorsKey: one metadata read, about 1 MB at 1M issues), or
// in one pass over the value stream (a value read per document is a B-tree
// lookup and a block read; about 80 ms at 1M issues). Priors take a few
// distinct values (ResolutionPrior): PriorSource finds the next docid holding
// at least a level by a binary search in the level's list of such docids when
// they are few (at most 1/kSparseShare of the docids), else by a scan of the
// priors, which then meets one within kSparseShare docids on average and
// never reads more than the docid range in a search. More than kMaxLevels
// distinct values (not written by this build): no levels, a scan.
struct PriorTable {
  static constexpr size_t kMaxLevels = 32;
  static constexpr size_t kSparseShare = 16;
  std::vector<float> prior;   // by docid; kDefaultPrior for a docid without the slot
  std::vector<float> levels;  // the distinct priors, ascending (empty: too many)
  // [i] (i >= 1): the docids with prior >= levels[i] when they are few; empty
  // when they are many (PriorSource scans).
  std::vector<std::vector<Xapian::docid>> at_least;
  float max = 0;
  // The dead documents (issue_index.h, kDeadKey) by docid: true for a dead
  // one; empty when there are none (a rebuilt index).
  std::vector<bool> dead;
  Xapian::doccount dead_count = 0;

  bool Dead(Xapian::docid did) const { return did < dead.size() && dead[did]; }
  // The live documents of `db` (its document count includes the dead ones).
  Xapian::doccount Live(const Xapian::Database& db) const {
    const Xapian::doccount all = db.get_doccount();
    return all > dead_count ? all - dead_count : 0;
  }

  // False when the dead set cannot be read.
  bool LoadDead(const Xapian::Database& db);

  // The priors of a sharded index (issue_index.h, kPriorsKey): no level
  // lists (PriorSource does not run on remote shards). False when unreadable.
  bool LoadShared(const Xapian::Database& db);

  // The priors of a single index, from its value stream, with the levels.
  void Load(const Xapian::Database& db);
  // The priors of a single index from the table it stores, with the levels;
  // false, with nothing loaded, when it has none or one that does not end at
  // its last docid (written before an update that did not rewrite it).
  bool LoadStored(const Xapian::Database& db);

 private:
  // levels, at_least and max, from `prior`.
  void BuildLevels();
  // The same, given each prior with how many docids hold it (a value may
  // appear twice; one held by none is left out).
  void SetLevels(std::vector<std::pair<float, size_t>> held);
};

// The resolution prior of every issue as a Xapian weight, read from the
// searcher's PriorTable. Equal priors are told apart by a tie-break far below
// any difference of priors (kTieBreak, smaller for later docids), which keeps
// Xapian's own order among them (docid ascending) and makes every weight
// distinct: once the matcher holds its `wanted` matches, skip_to/next jump
// over every issue whose weight is below the worst of them, so an AND over
// title terms and this source visits only issues that could still enter the
// top. Valid for one search over the database the table was read from (no
// clone(): the query is never shared).
class PriorSource final : public Xapian::PostingSource {
 public:
  explicit PriorSource(const PriorTable& table) : table_(table), size_(table.prior.size()) {}

  void init(const Xapian::Database& db) override;
  Xapian::doccount get_termfreq_min() const override { return 0; }
  // Every document: the AND is driven by its title terms, this source only
  // skips ahead of them.
  Xapian::doccount get_termfreq_est() const override { return Count(); }
  Xapian::doccount get_termfreq_max() const override { return Count(); }
  double get_weight() const override { return Weight(did_); }
  Xapian::docid get_docid() const override { return static_cast<Xapian::docid>(did_); }
  bool at_end() const override { return did_ >= size_; }
  void next(double min_wt) override { Advance(did_ + 1, min_wt); }
  void skip_to(Xapian::docid did, double min_wt) override {
    if (did > did_) Advance(did, min_wt);
  }
  std::string get_description() const override { return "fixgraph::PriorSource"; }

 private:
  static constexpr double kTieBreak = 1e-9;

  Xapian::doccount Count() const {
    return size_ == 0 ? 0 : static_cast<Xapian::doccount>(size_ - 1);
  }
  double Weight(size_t did) const {
    return static_cast<double>(table_.prior[did]) + kTieBreak - step_ * static_cast<double>(did);
  }
  // To the first docid >= `from` whose weight reaches `min_wt` (or the end).
  void Advance(size_t from, double min_wt);

  const PriorTable& table_;
  const size_t size_;
  size_t did_ = 0;
  double step_ = 0;
};

// The documents of a sorted docid list, each weighing nothing: a filter that
// confines a BM25 pass to candidates chosen before (the prior pool of
// ask.cc's BodyCandidates), so the pass reads its terms' posting lists only
// at those documents. Valid for one search (no clone()).
class DocidListSource final : public Xapian::PostingSource {
 public:
  explicit DocidListSource(std::vector<Xapian::docid> sorted) : dids_(std::move(sorted)) {}

  void init(const Xapian::Database& db) override {
    (void)db;
    pos_ = 0;
    started_ = false;
  }
  Xapian::doccount get_termfreq_min() const override { return 0; }
  // Reported as one: the matcher orders an AND's lists by this estimate,
  // and the list must drive the AND it filters (its own estimate, made as if
  // its terms were independent, can be far below the list's length).
  Xapian::doccount get_termfreq_est() const override { return Count() == 0 ? 0 : 1; }
  Xapian::doccount get_termfreq_max() const override { return Count(); }
  Xapian::docid get_docid() const override { return dids_[pos_]; }
  bool at_end() const override { return pos_ >= dids_.size(); }
  void next(double min_wt) override {
    (void)min_wt;
    if (started_) ++pos_;
    started_ = true;
  }
  void skip_to(Xapian::docid did, double min_wt) override {
    (void)min_wt;
    started_ = true;
    pos_ = static_cast<size_t>(
        std::lower_bound(dids_.begin() + static_cast<std::ptrdiff_t>(pos_), dids_.end(), did) -
        dids_.begin());
  }
  std::string get_description() const override { return "fixgraph::DocidListSource"; }

 private:
  Xapian::doccount Count() const { return static_cast<Xapian::doccount>(dids_.size()); }

  std::vector<Xapian::docid> dids_;
  size_t pos_ = 0;
  bool started_ = false;
};

// Keeps the live documents of a candidate pass (issue_index.h: a dead
// document's terms stay in the posting lists until the next rebuild). Used
// only when the index has dead documents.
class LiveDecider final : public Xapian::MatchDecider {
 public:
  explicit LiveDecider(const PriorTable& table) : table_(table) {}
  bool operator()(const Xapian::Document& doc) const override {
    return !table_.Dead(doc.get_docid());
  }

 private:
  const PriorTable& table_;
};

}  // namespace fixgraph::query
