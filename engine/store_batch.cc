// Store::Batch: upserts and removals with their index rows, the lookups they
// make (staged, spilled or stored), and the public Batch methods.
#include "store_batch.h"

#include "store_impl.h"
#include "store_keys.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace fixgraph {

using namespace store_internal;

Status Store::Batch::Impl::GetPending(bool raw, std::string_view key, std::string* scratch,
                                      std::string_view* value, bool* found) {
  // Every record key staged went through here first (Upsert), so the filter
  // has it: a key the filter never saw is neither staged nor stored.
  if (!raw && InNewRepo(key) && !FilterTestAndSet(key)) {
    *found = false;  // the store had none and this batch never put it
    return Status::OK();
  }
  CatchUp();
  const auto& pending = raw ? pending_raw : pending_items;
  if (auto it = pending.find(key); it != pending.end()) {
    *value = ops[it->second].value;
    *found = !ops[it->second].del;  // a record this batch removed (Remove)
    return Status::OK();
  }
  if (!bulk_files.empty()) {
    FG_RETURN_IF_ERROR(SpilledGet(raw ? store->raw : store->items, key, scratch, found));
    if (*found) {
      *value = *scratch;
      return Status::OK();
    }
  }
  rocksdb::Status s =
      store->db->Get(rocksdb::ReadOptions(), raw ? store->raw : store->items, key, scratch);
  *found = s.ok();
  *value = *scratch;
  if (s.IsNotFound()) return Status::OK();
  return FromRocks(s, "read");
}

template <typename T>
Status Store::Batch::Impl::Upsert(const T& record, std::string_view raw, const Ref& owner) {
  if (store->read_only) return Status::FailedPrecondition("store is open read-only");
  std::string_view key = rows.Key(record);  // valid until the next Key call
  std::string& value = value_buf;
  codec::Encode(record, &value);
  std::string_view old;
  bool found = false;
  FG_RETURN_IF_ERROR(GetPending(false, key, &get_scratch, &old, &found));
  if (found && old == value) {
    std::string_view old_raw;
    bool raw_found = false;
    FG_RETURN_IF_ERROR(GetPending(true, key, &get_scratch, &old_raw, &raw_found));
    if (raw.empty() || (raw_found && old_raw == raw)) return Status::OK();
    PutRaw(key, raw);
    return Status::OK();
  }
  // Counters: a new record counts one; a replaced one counts again only
  // through its state row (its old row's count goes, the new one's comes).
  if constexpr (std::is_same_v<T, PlatformLink>) {
    if (!(record.issue.repo == record.pull.repo)) {
      shared_links.insert_or_assign(std::string(key), true);  // counted at commit
    } else if (!found) {
      counts.AddItem(key, +1);
    }
  } else if (!found) {
    counts.AddItem(key, +1);
  }
  if (found) {
    T previous;
    FG_RETURN_IF_ERROR(Decode(old, key, &previous));
    rows.Rows(previous, key, [this](std::string_view k, std::string_view v) {
      Stage(store->index, true, k, {});
      counts.AddRow(k, v, -1);
    });
  }
  rows.Rows(record, key, [this](std::string_view k, std::string_view v) {
    Stage(store->index, false, k, v);
    counts.AddRow(k, v, +1);
  });
  if (!raw.empty()) PutRaw(key, raw);
  Stage(store->items, false, key, value, Track::kItem);
  ++changed;
  if ((owner.kind == RefKind::kIssue || owner.kind == RefKind::kPull) &&
      !(last_touched && *last_touched == owner))  // an item's records come together
    Touch(owner);
  return Status::OK();
}

template <typename T>
Status Store::Batch::Impl::Remove(const T& record, const Ref& owner, bool* removed) {
  if (store->read_only) return Status::FailedPrecondition("store is open read-only");
  *removed = false;
  std::string key(rows.Key(record));
  std::string_view old;
  bool found = false;
  FG_RETURN_IF_ERROR(GetPending(false, key, &get_scratch, &old, &found));
  if (!found) return Status::OK();
  T previous;
  FG_RETURN_IF_ERROR(Decode(old, key, &previous));
  rows.Rows(previous, key, [this](std::string_view k, std::string_view v) {
    Stage(store->index, true, k, {});
    counts.AddRow(k, v, -1);
  });
  if constexpr (std::is_same_v<T, PlatformLink>) {
    if (!(record.issue.repo == record.pull.repo))
      shared_links.insert_or_assign(key, false);  // counted at commit
    else
      counts.AddItem(key, -1);
  } else {
    counts.AddItem(key, -1);
  }
  Stage(store->raw, true, key, {}, Track::kRaw);
  Stage(store->items, true, key, {}, Track::kItem);
  ++changed;
  Touch(owner);
  *removed = true;
  return Status::OK();
}

Status Store::Batch::Impl::CommitCounts(CountDeltas::Map* out) const {
  *out = counts.map();
  if (!shared_links.empty()) {
    CountDeltas links;
    std::string scratch;
    for (const auto& [key, put] : shared_links) {
      rocksdb::Status s = store->db->Get(rocksdb::ReadOptions(), store->items, key, &scratch);
      if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "read");
      int delta = (put ? 1 : 0) - (s.ok() ? 1 : 0);
      if (delta != 0) links.AddItem(key, delta);
    }
    for (const auto& [repo, c] : links.map()) {
      Counts& row = (*out)[repo];
      for (std::size_t i = 0; i < row.size(); ++i) row[i] += c[i];
    }
  }
  for (auto it = out->begin(); it != out->end();) {
    bool zero =
        std::all_of(it->second.begin(), it->second.end(), [](std::int64_t v) { return v == 0; });
    it = zero ? out->erase(it) : std::next(it);
  }
  return Status::OK();
}

Status Store::Batch::Impl::MergeCounts(rocksdb::WriteBatch* wb) const {
  if (counts.empty() && shared_links.empty()) return Status::OK();
  CountDeltas::Map rows;
  FG_RETURN_IF_ERROR(CommitCounts(&rows));
  for (const auto& [repo, c] : rows)
    FG_RETURN_IF_ERROR(
        FromRocks(wb->Merge(store->meta, CountsKey(repo), EncodeCounts(c)), "write counters"));
  return Status::OK();
}

void Store::Batch::Impl::Touch(const Ref& item) {
  auto [it, inserted] = touched.insert(item);
  last_touched = &*it;
  if (inserted && record_pending)
    Stage(store->meta, false, keys::PendingKey(keys::kPendingRelink, item.ToString()), {});
}

Store::Batch::Batch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Batch::~Batch() = default;

Status Store::Batch::PutRepository(const Repository& v, std::string_view raw) {
  return impl_->Upsert(v, raw, Ref::Repo(v.ref));
}
Status Store::Batch::PutIssue(const Issue& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.ref());
}
Status Store::Batch::PutPull(const PullRequest& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.ref());
}
Status Store::Batch::PutComment(const Comment& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.parent());
}
Status Store::Batch::PutCommit(const Commit& v, std::string_view raw) {
  return impl_->Upsert(v, raw, Ref::Pull(v.repo, v.pr_number));
}
Status Store::Batch::PutFile(const FileChange& v, std::string_view raw) {
  return impl_->Upsert(v, raw, Ref::Pull(v.repo, v.pr_number));
}
Status Store::Batch::PutOperateLog(const OperateLogEvent& v, std::string_view raw) {
  return impl_->Upsert(v, raw, v.parent());
}
Status Store::Batch::PutPlatformLink(const PlatformLink& v) {
  if (v.issue.kind != RefKind::kIssue || v.pull.kind != RefKind::kPull)
    return Status::InvalidArgument("a platform link joins an issue and a pull request");
  std::int64_t before = impl_->changed;
  FG_RETURN_IF_ERROR(impl_->Upsert(v, "", v.issue));
  if (impl_->changed != before) impl_->Touch(v.pull);  // a new link touches both sides
  return Status::OK();
}
Status Store::Batch::DeletePlatformLink(const PlatformLink& v, bool* removed) {
  if (v.issue.kind != RefKind::kIssue || v.pull.kind != RefKind::kPull)
    return Status::InvalidArgument("a platform link joins an issue and a pull request");
  bool gone = false;
  FG_RETURN_IF_ERROR(impl_->Remove(v, v.issue, &gone));
  if (gone) impl_->Touch(v.pull);
  if (removed) *removed = gone;
  return Status::OK();
}
Status Store::Batch::PutDerived(const std::string& kind, const Ref& item, std::string_view value) {
  if (impl_->store->read_only) return Status::FailedPrecondition("store is open read-only");
  impl_->Stage(impl_->store->items, false, DerivedKey(kind, item), std::string(value));
  return Status::OK();
}
Status Store::Batch::DeleteDerived(const std::string& kind, const Ref& item) {
  impl_->Stage(impl_->store->items, true, DerivedKey(kind, item), {});
  return Status::OK();
}
std::vector<Ref> Store::Batch::TouchedItems() const {
  return std::vector<Ref>(impl_->touched.begin(), impl_->touched.end());
}
Status Store::Batch::MarkReindex(const Ref& issue) {
  impl_->Stage(impl_->store->meta, false, keys::PendingKey(keys::kPendingReindex, issue.ToString()),
               {});
  return Status::OK();
}
void Store::Batch::RecordPending(bool on) { impl_->record_pending = on; }
Status Store::Batch::PutMeta(const std::string& key, const std::string& value) {
  impl_->Stage(impl_->store->meta, false, key, value);
  return Status::OK();
}
Status Store::Batch::DeleteMeta(const std::string& key) {
  impl_->Stage(impl_->store->meta, true, key, {});
  return Status::OK();
}
Status Store::Batch::ExpectNewRepository(const RepoRef& repo) {
  const std::string r = repo.ToString();
  std::string v;
  Status s = impl_->store->Get(impl_->store->items, keys::RepoKey(repo), &v);
  if (s.ok()) return Status::OK();  // a record: no hint
  if (!s.IsNotFound()) return s;
  for (char tag : {keys::kIssueTag, keys::kPullTag, keys::kCommentTag, keys::kCommitTag,
                   keys::kFileTag, keys::kOplogTag}) {
    bool any = false;
    FG_RETURN_IF_ERROR(impl_->store->Scan(impl_->store->items, keys::Prefix(tag, {r}),
                                          [&](std::string_view, std::string_view) {
                                            any = true;
                                            return false;
                                          }));
    if (any) return Status::OK();
  }
  impl_->new_repo = r;
  impl_->put_filter.assign(Impl::kFilterBits / 64, 0);
  return Status::OK();
}
bool Store::Batch::ExpectsNewRepository() const { return !impl_->new_repo.empty(); }
std::int64_t Store::Batch::changed() const { return impl_->changed; }
std::size_t Store::Batch::ApproximateSize() const { return impl_->bytes; }

}  // namespace fixgraph
