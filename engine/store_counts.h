// Per-repository counters behind Store::Stats. Private to engine/.
//
// Contract: the default family holds one value per repository under
// "counts\0<repo>" (store_keys.h): kCountFields signed 64-bit numbers, 8
// little-endian bytes each, in CountField order. Writers never read them:
// they add their changes as RocksDB merge operands (NewCountsMergeOperator
// adds element-wise), in the same WriteBatch or the same ingestion as the
// records they count, so the counters are exactly as durable as the data.
// A missing value counts zero. What is counted is what Store::CountByScan
// counts: state rows ('s' index rows) by kind and state, and items keys with
// tag C, K, F, O and L (store_keys.h), each under the repository of its key.
#pragma once

#include "store_keys.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/merge_operator.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace fixgraph::store_internal {

enum CountField : int {
  kIssuesOpen,
  kIssuesClosed,
  kPullsOpen,
  kPullsMerged,
  kPullsClosed,
  kComments,
  kCommits,
  kFiles,
  kOperateLogs,
  kPlatformLinks,
  kCountFields,
};
using Counts = std::array<std::int64_t, kCountFields>;

// "counts\0<repo>".
inline constexpr std::string_view kCountsPrefix{"counts\0", 7};
std::string CountsKey(std::string_view repo);

// The value bytes of `c`; its inverse. A value whose size is not a multiple
// of 8 is Corruption; fields past its end count zero (fields beyond
// kCountFields are ignored).
std::string EncodeCounts(const Counts& c);
Status DecodeCounts(std::string_view value, Counts* out);
// The RepoStats fields of `c` (repo is left alone).
void ToRepoStats(const Counts& c, RepoStats* out);

// The <repo> part of a key "tag \0 <repo> \0 ...", "" when there is none.
std::string_view KeyRepo(std::string_view key);
// The field an items key counts for, -1 for none (issues and PRs are counted
// by their state rows).
int ItemField(std::string_view key);
// The field a state row "s \0 <repo> \0 <i|p> \0 <num>" with value `state`
// counts for, -1 when `row` is not a state row.
int StateField(std::string_view row, std::string_view state);

// Element-wise addition of count values (two's-complement wrap-around, so a
// negative operand subtracts). Set on the default family.
std::shared_ptr<rocksdb::MergeOperator> NewCountsMergeOperator();

// Count changes not written yet, by repository.
class CountDeltas {
 public:
  using Map = std::map<std::string, Counts, std::less<>>;
  void Add(std::string_view repo, int field, std::int64_t delta);
  // `sign` times the count of the items key `key` (nothing when it counts none).
  void AddItem(std::string_view key, int sign) {
    if (int f = ItemField(key); f >= 0) Add(KeyRepo(key), f, sign);
  }
  // `sign` times the count of the index row `row` with value `value`.
  void AddRow(std::string_view row, std::string_view value, int sign) {
    if (int f = StateField(row, value); f >= 0) Add(KeyRepo(row), f, sign);
  }
  bool empty() const { return map_.empty(); }
  void clear() {
    map_.clear();
    last_ = nullptr;
  }
  const Map& map() const { return map_; }

 private:
  Map map_;
  // The entry added to last (records of one repository come together).
  std::pair<const std::string, Counts>* last_ = nullptr;
};

}  // namespace fixgraph::store_internal
