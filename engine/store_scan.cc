// Store: bulk scans (store.h "Bulk scans"): one pass over the records of a
// repository or of the store, reading around the block cache (ScanMode::kBulk).
// Built on the same record decoding as the point reads.
#include "store_impl.h"
#include "store_keys.h"
#include "store_rows.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph {

using namespace store_internal;

Status Store::ForEachIssue(const RepoRef* repo, const std::function<bool(Issue&)>& fn) const {
  return impl_->ForEachRecord<Issue>(TagPrefix(keys::kIssueTag, repo), fn, ScanMode::kBulk);
}

Status Store::ForEachPull(const RepoRef* repo, const std::function<bool(PullRequest&)>& fn) const {
  return impl_->ForEachRecord<PullRequest>(TagPrefix(keys::kPullTag, repo), fn, ScanMode::kBulk);
}

namespace {
// Records of `T` under `prefix` whose parent kind (the key part after the
// repository: 'i' or 'p') is `parents` when set; the others are not decoded.
template <typename T, typename Scanner>
Status ForEachChild(const Scanner& scan, const std::string& prefix,
                    std::optional<ParentKind> parents, const std::function<bool(T&)>& fn) {
  Status inner;
  char want = parents ? ParentTag(*parents) : '\0';
  Status s = scan(prefix, [&](std::string_view key, std::string_view value) {
    if (want) {
      // tag \0 repo \0 kind \0 ...
      size_t sep = key.find(keys::kSep, 2);
      if (sep == std::string_view::npos || sep + 1 >= key.size() || key[sep + 1] != want)
        return true;
    }
    T rec;
    inner = Decode(value, key, &rec);
    return inner.ok() && fn(rec);
  });
  FG_RETURN_IF_ERROR(s);
  return inner;
}
}  // namespace

Status Store::ForEachComment(const RepoRef* repo, const std::function<bool(Comment&)>& fn,
                             std::optional<ParentKind> parents) const {
  auto scan = [this](const std::string& prefix, const auto& f) {
    return impl_->Scan(impl_->items, prefix, f, ScanMode::kBulk);
  };
  return ForEachChild<Comment>(scan, TagPrefix(keys::kCommentTag, repo), parents, fn);
}

Status Store::ForEachOperateLog(const RepoRef* repo,
                                const std::function<bool(OperateLogEvent&)>& fn,
                                std::optional<ParentKind> parents) const {
  auto scan = [this](const std::string& prefix, const auto& f) {
    return impl_->Scan(impl_->items, prefix, f, ScanMode::kBulk);
  };
  return ForEachChild<OperateLogEvent>(scan, TagPrefix(keys::kOplogTag, repo), parents, fn);
}

Status Store::ForEachFile(const RepoRef* repo, const std::function<bool(FileChange&)>& fn) const {
  return impl_->ForEachRecord<FileChange>(TagPrefix(keys::kFileTag, repo), fn, ScanMode::kBulk);
}

Status Store::ForEachPlatformLink(const RepoRef* repo,
                                  const std::function<bool(PlatformLink&)>& fn) const {
  return impl_->ForEachRecord<PlatformLink>(TagPrefix(keys::kLinkTag, repo), fn, ScanMode::kBulk);
}

namespace {

// Decodes every mention-index row under `prefix` for fn (Impl is Store::Impl).
template <typename Impl>
Status ScanMentions(const Impl& impl, const std::string& prefix,
                    const std::function<bool(MentionRecord&)>& fn) {
  Status inner;
  Status s = impl.Scan(
      impl.index, prefix,
      [&](std::string_view key, std::string_view value) {
        MentionRecord r;
        inner = Decode(value, key, &r);
        return inner.ok() && fn(r);
      },
      ScanMode::kBulk);
  FG_RETURN_IF_ERROR(s);
  return inner;
}

}  // namespace

Status Store::ForEachMention(const std::function<bool(MentionRecord&)>& fn) const {
  // Rows are keyed r \0 target \0 ...; each value is the whole row (record_codec.h).
  return ScanMentions(*impl_, std::string(1, keys::kMentionIndexTag) + keys::kSep, fn);
}

Status Store::ForEachIssueMention(const RepoRef& repo,
                                  const std::function<bool(MentionRecord&)>& fn) const {
  // An issue target's text is "<repo>#<number>": the '#' ends the repository
  // name, so "a/b#" never matches "a/bc#...".
  return ScanMentions(*impl_, keys::Join(keys::kMentionIndexTag, {repo.ToString() + "#"}), fn);
}

Status Store::ForEachMentionIn(const RepoRef& repo,
                               const std::function<bool(MentionRecord&)>& fn) const {
  bool go_on = true;
  auto until_stop = [&](MentionRecord& m) { return go_on = fn(m); };
  FG_RETURN_IF_ERROR(ForEachIssueMention(repo, until_stop));
  if (!go_on) return Status::OK();
  // A PR target's text is "<repo>!<number>" (the '!' ends the name likewise).
  return ScanMentions(*impl_, keys::Join(keys::kMentionIndexTag, {repo.ToString() + "!"}), fn);
}

namespace {

// The repositories named right after `prefix` in the keys of `cf` (keys
// prefix <repo> \0 ...), each once, in key order: one seek per repository.
// (Impl is Store::Impl.)
template <typename Impl>
Status ListRepositoriesAfter(const Impl& impl, rocksdb::ColumnFamilyHandle* cf,
                             const std::string& prefix, std::vector<RepoRef>* out) {
  std::unique_ptr<rocksdb::Iterator> it(impl.db->NewIterator(rocksdb::ReadOptions(), cf));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);) {
    std::string_view rest = it->key().ToStringView().substr(prefix.size());
    size_t end = rest.find(keys::kSep);
    std::string_view text = rest.substr(0, end);
    auto ref = ParseRef(text);
    if (end == std::string_view::npos || !ref.ok() || ref->kind != RefKind::kRepo)
      return Status::Corruption("store key names no repository where one belongs: " +
                                std::string(it->key().ToStringView().substr(0, 120)));
    out->push_back(ref->repo);
    // Past every key of this repository: they all continue with kSep.
    std::string next = prefix;
    next.append(text).push_back(static_cast<char>(keys::kSep + 1));
    it->Seek(next);
  }
  return FromRocks(it->status(), "scan");
}

}  // namespace

Status Store::ListIssueRepositories(std::vector<RepoRef>* out) const {
  return ListRepositoriesAfter(*impl_, impl_->items, TagPrefix(keys::kIssueTag, nullptr), out);
}

Status Store::ListDerivedRepositories(const std::string& kind, std::vector<RepoRef>* out) const {
  return ListRepositoriesAfter(*impl_, impl_->items, keys::Prefix(keys::kDerivedTag, {kind}), out);
}

}  // namespace fixgraph
