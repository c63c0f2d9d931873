#include "ask_priors.h"

#include "issue_index.h"

#include <algorithm>
#include <set>

namespace fixgraph::query {

bool PriorTable::LoadDead(const Xapian::Database& db) {
  std::vector<std::uint32_t> dids;
  dead.clear();
  dead_count = 0;
  if (!DecodeDocids(db.get_metadata(kDeadKey), &dids)) return false;
  if (dids.empty()) return true;
  dead.assign(std::max<size_t>(dids.back(), prior.size()) + 1, false);
  for (std::uint32_t d : dids) dead[d] = true;
  dead_count = static_cast<Xapian::doccount>(dids.size());
  return true;
}

bool PriorTable::LoadShared(const Xapian::Database& db) {
  std::vector<std::string> slots;
  if (!DecodePriors(db.get_metadata(kPriorsKey), &slots)) return false;
  prior.assign(std::max<size_t>(slots.size(), 1), static_cast<float>(kDefaultPrior));
  levels.clear();
  at_least.clear();
  max = 0;
  for (size_t d = 1; d < slots.size(); ++d) {
    if (!slots[d].empty()) prior[d] = static_cast<float>(Xapian::sortable_unserialise(slots[d]));
    max = std::max(max, prior[d]);
  }
  return true;
}

void PriorTable::Load(const Xapian::Database& db) {
  prior.assign(static_cast<size_t>(db.get_lastdocid()) + 1, static_cast<float>(kDefaultPrior));
  for (auto it = db.valuestream_begin(kPriorSlot); it != db.valuestream_end(kPriorSlot); ++it)
    if (it.get_docid() < prior.size())
      prior[it.get_docid()] = static_cast<float>(Xapian::sortable_unserialise(*it));
  levels.clear();
  at_least.clear();
  max = 0;
  std::set<float> distinct;
  for (size_t d = 1; d < prior.size(); ++d) {
    max = std::max(max, prior[d]);
    if (distinct.size() <= kMaxLevels) distinct.insert(prior[d]);
  }
  if (distinct.size() > kMaxLevels) return;
  levels.assign(distinct.begin(), distinct.end());
  at_least.resize(levels.size());
  for (size_t d = 1; d < prior.size(); ++d) {
    const size_t top = static_cast<size_t>(
        std::upper_bound(levels.begin(), levels.end(), prior[d]) - levels.begin());
    for (size_t i = 1; i < top; ++i) at_least[i].push_back(static_cast<Xapian::docid>(d));
  }
}

void PriorSource::init(const Xapian::Database& db) {
  (void)db;
  did_ = 0;
  step_ = kTieBreak / static_cast<double>(std::max<size_t>(size_, 1));
  set_maxweight(static_cast<double>(table_.max) + kTieBreak);
}

void PriorSource::Advance(size_t from, double min_wt) {
  did_ = std::max<size_t>(from, 1);
  const std::vector<float>& levels = table_.levels;
  if (levels.empty()) {  // no level lists: scan
    while (did_ < size_ && Weight(did_) < min_wt) ++did_;
    return;
  }
  // A prior below levels[lvl] cannot reach min_wt, even with the largest tie-break.
  size_t lvl = static_cast<size_t>(
      std::lower_bound(levels.begin(), levels.end(), min_wt - kTieBreak,
                       [](float level, double v) { return static_cast<double>(level) < v; }) -
      levels.begin());
  while (did_ < size_ && lvl < levels.size()) {
    if (lvl > 0) {
      const std::vector<Xapian::docid>& list = table_.at_least[lvl];
      auto it = std::lower_bound(list.begin(), list.end(), static_cast<Xapian::docid>(did_));
      if (it == list.end()) break;
      did_ = *it;
    }
    if (Weight(did_) >= min_wt) return;
    // Its prior falls short by the tie-break, and so does every later
    // docid with the same prior: only higher priors remain.
    lvl = std::max(lvl, static_cast<size_t>(
                            std::upper_bound(levels.begin(), levels.end(), table_.prior[did_]) -
                            levels.begin()));
    ++did_;
  }
  did_ = size_;
}

}  // namespace fixgraph::query
