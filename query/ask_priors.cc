#include "ask_priors.h"

#include "issue_index.h"

#include <algorithm>
#include <cstdint>

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
  Xapian::docid last = 0;
  levels.clear();
  at_least.clear();
  max = 0;
  if (!DecodePriors(db.get_metadata(kPriorsKey), static_cast<float>(kDefaultPrior), &prior, &last))
    return false;
  for (size_t d = 1; d < prior.size(); ++d) max = std::max(max, prior[d]);
  return true;
}

void PriorTable::Load(const Xapian::Database& db) {
  prior.assign(static_cast<size_t>(db.get_lastdocid()) + 1, static_cast<float>(kDefaultPrior));
  for (auto it = db.valuestream_begin(kPriorSlot); it != db.valuestream_end(kPriorSlot); ++it)
    if (it.get_docid() < prior.size())
      prior[it.get_docid()] = static_cast<float>(Xapian::sortable_unserialise(*it));
  BuildLevels();
}

bool PriorTable::LoadStored(const Xapian::Database& db) {
  Xapian::docid last = 0;
  std::vector<float> stored;
  std::vector<std::pair<float, size_t>> held;
  if (!DecodePriors(db.get_metadata(kPriorsKey), static_cast<float>(kDefaultPrior), &stored, &last,
                    &held) ||
      last != db.get_lastdocid())
    return false;
  prior = std::move(stored);
  SetLevels(std::move(held));
  return true;
}

void PriorTable::BuildLevels() {
  // The distinct priors and how many docids hold each, in order of first
  // sight: a few values, so a linear search (after the last value seen, which
  // runs of equal priors repeat) beats a set by far at a million docids.
  std::vector<std::pair<float, size_t>> held;
  size_t last = 0;
  for (size_t d = 1; d < prior.size(); ++d) {
    const float v = prior[d];
    if (held.empty() || held[last].first != v) {
      last = static_cast<size_t>(
          std::find_if(held.begin(), held.end(), [v](const auto& h) { return h.first == v; }) -
          held.begin());
      if (last == held.size()) {
        if (held.size() == kMaxLevels) {  // too many: no levels, a scan
          levels.clear();
          at_least.clear();
          max = *std::max_element(prior.begin() + 1, prior.end());
          return;
        }
        held.emplace_back(v, 0);
      }
    }
    ++held[last].second;
  }
  SetLevels(std::move(held));
}

void PriorTable::SetLevels(std::vector<std::pair<float, size_t>> held) {
  levels.clear();
  at_least.clear();
  max = 0;
  held.erase(std::remove_if(held.begin(), held.end(), [](const auto& h) { return h.second == 0; }),
             held.end());
  std::sort(held.begin(), held.end());
  // count[i]: the docids holding at least levels[i].
  std::vector<size_t> count;
  for (const auto& [value, docids] : held) {
    if (levels.empty() || levels.back() != value) {
      levels.push_back(value);
      count.push_back(0);
    }
    count.back() += docids;
  }
  if (levels.size() > kMaxLevels) {
    max = levels.back();
    levels.clear();
    return;
  }
  if (!levels.empty()) max = levels.back();
  count.push_back(0);
  for (size_t i = levels.size(); i-- > 0;) count[i] += count[i + 1];
  // Lists for the sparse levels only (a dense level is scanned, PriorSource).
  at_least.resize(levels.size());
  const size_t sparse = prior.size() / kSparseShare;
  size_t first_listed = levels.size();
  for (size_t i = levels.size(); i-- > 1 && count[i] <= sparse;) {
    at_least[i].reserve(count[i]);
    first_listed = i;
  }
  if (first_listed == levels.size()) return;
  const float lowest_listed = levels[first_listed];
  for (size_t d = 1; d < prior.size(); ++d) {
    if (prior[d] < lowest_listed) continue;
    const size_t top = static_cast<size_t>(
        std::upper_bound(levels.begin(), levels.end(), prior[d]) - levels.begin());
    for (size_t i = first_listed; i < top; ++i)
      at_least[i].push_back(static_cast<Xapian::docid>(d));
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
    if (lvl > 0 && !table_.at_least[lvl].empty()) {
      const std::vector<Xapian::docid>& list = table_.at_least[lvl];
      auto it = std::lower_bound(list.begin(), list.end(), static_cast<Xapian::docid>(did_));
      if (it == list.end()) break;
      did_ = *it;
    } else if (lvl > 0) {  // a dense level: the next docid holding it is near
      const float level = levels[lvl];
      while (did_ < size_ && table_.prior[did_] < level) ++did_;
      if (did_ == size_) break;
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
