// Per-repository counters (store_counts.h): their bytes, what each key
// counts for, the merge operator that adds them, and the batch-side deltas.
#include "store_counts.h"

#include "store_keys.h"

#include <rocksdb/merge_operator.h>
#include <rocksdb/slice.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace fixgraph::store_internal {

namespace {

void AppendU64(std::string* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t ReadU64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

class CountsMergeOperator final : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* out, rocksdb::Logger*) const override {
    if (value.size() % 8 != 0 || (existing && existing->size() % 8 != 0)) return false;
    const std::size_t n = std::max(value.size(), existing ? existing->size() : 0);
    std::string sum;
    sum.reserve(n);
    for (std::size_t at = 0; at < n; at += 8) {
      std::uint64_t a = at < value.size() ? ReadU64(value.data() + at) : 0;
      std::uint64_t b = existing && at < existing->size() ? ReadU64(existing->data() + at) : 0;
      AppendU64(&sum, a + b);  // unsigned: wraps, as two's complement adds
    }
    *out = std::move(sum);
    return true;
  }
  const char* Name() const override { return "fixgraph.Counts"; }
};

}  // namespace

std::string CountsKey(std::string_view repo) {
  std::string k(kCountsPrefix);
  k += repo;
  return k;
}

std::string EncodeCounts(const Counts& c) {
  std::string out;
  out.reserve(8 * c.size());
  for (std::int64_t v : c) AppendU64(&out, static_cast<std::uint64_t>(v));
  return out;
}

Status DecodeCounts(std::string_view value, Counts* out) {
  out->fill(0);
  if (value.size() % 8 != 0)
    return Status::Corruption("store counters: a value of " + std::to_string(value.size()) +
                              " bytes (not a multiple of 8)");
  for (std::size_t i = 0; i < out->size() && 8 * i < value.size(); ++i)
    (*out)[i] = static_cast<std::int64_t>(ReadU64(value.data() + 8 * i));
  return Status::OK();
}

void ToRepoStats(const Counts& c, RepoStats* out) {
  out->issues_open = c[kIssuesOpen];
  out->issues_closed = c[kIssuesClosed];
  out->pulls_open = c[kPullsOpen];
  out->pulls_merged = c[kPullsMerged];
  out->pulls_closed = c[kPullsClosed];
  out->comments = c[kComments];
  out->commits = c[kCommits];
  out->files = c[kFiles];
  out->operate_logs = c[kOperateLogs];
  out->platform_links = c[kPlatformLinks];
}

std::string_view KeyRepo(std::string_view key) {
  if (key.size() < 2 || key[1] != keys::kSep) return {};
  std::string_view rest = key.substr(2);
  return rest.substr(0, rest.find(keys::kSep));
}

int ItemField(std::string_view key) {
  if (key.size() < 2 || key[1] != keys::kSep) return -1;
  switch (key[0]) {
    case keys::kCommentTag:
      return kComments;
    case keys::kCommitTag:
      return kCommits;
    case keys::kFileTag:
      return kFiles;
    case keys::kOplogTag:
      return kOperateLogs;
    case keys::kLinkTag:
      return kPlatformLinks;
    default:
      return -1;
  }
}

int StateField(std::string_view row, std::string_view state) {
  if (row.empty() || row[0] != keys::kStateIndexTag) return -1;
  std::string_view repo = KeyRepo(row);
  // s \0 <repo> \0 <kind> ...: as Store::CountByScan reads it.
  std::size_t at = 3 + repo.size();
  char kind = at < row.size() ? row[at] : '?';
  char s = state.empty() ? '?' : state[0];
  if (kind == 'i') return s == 'c' ? kIssuesClosed : kIssuesOpen;
  if (kind == 'p') return s == 'm' ? kPullsMerged : s == 'c' ? kPullsClosed : kPullsOpen;
  return -1;
}

std::shared_ptr<rocksdb::MergeOperator> NewCountsMergeOperator() {
  return std::make_shared<CountsMergeOperator>();
}

void CountDeltas::Add(std::string_view repo, int field, std::int64_t delta) {
  if (last_ == nullptr || last_->first != repo) {
    auto it = map_.find(repo);
    if (it == map_.end()) it = map_.emplace(std::string(repo), Counts{}).first;
    last_ = &*it;
  }
  last_->second[field] += delta;
}

}  // namespace fixgraph::store_internal
