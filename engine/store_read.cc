// Store: point reads and small listings (one item's records, time windows,
// mentions of one target, counts, derived and meta values, pending work).
#include "store_counts.h"
#include "store_impl.h"
#include "store_keys.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/db.h>

#include <map>
#include <string>
#include <vector>

namespace fixgraph {

using namespace store_internal;

StatusOr<Repository> Store::GetRepository(const RepoRef& repo) const {
  return impl_->GetRecord<Repository>(keys::RepoKey(repo), "repository " + repo.ToString());
}

StatusOr<Issue> Store::GetIssue(const Ref& ref) const {
  return impl_->GetRecord<Issue>(keys::ItemKey(ref), "issue " + ref.ToString());
}

StatusOr<PullRequest> Store::GetPull(const Ref& ref) const {
  return impl_->GetRecord<PullRequest>(keys::ItemKey(ref), "pull request " + ref.ToString());
}

StatusOr<std::string> Store::GetRaw(const Ref& item) const {
  std::string v;
  Status s = impl_->Get(impl_->raw, keys::ItemKey(item), &v);
  if (s.IsNotFound()) return Status::NotFound("no raw payload for " + item.ToString());
  FG_RETURN_IF_ERROR(s);
  return v;
}

Status Store::ListRepositories(std::vector<Repository>* out) const {
  return impl_->ScanRecords(TagPrefix(keys::kRepoTag, nullptr), out);
}

namespace {
std::string ParentPrefix(char tag, const Ref& parent) {
  char kind = parent.kind == RefKind::kIssue ? 'i' : 'p';
  return keys::Prefix(tag,
                      {parent.repo.ToString(), std::string(1, kind), keys::Num(parent.number)});
}
}  // namespace

Status Store::ListComments(const Ref& parent, std::vector<Comment>* out) const {
  return impl_->ScanRecords(ParentPrefix(keys::kCommentTag, parent), out);
}

Status Store::ListCommits(const Ref& pull, std::vector<Commit>* out) const {
  return impl_->ScanRecords(
      keys::Prefix(keys::kCommitTag, {pull.repo.ToString(), keys::Num(pull.number)}), out);
}

Status Store::ListFiles(const Ref& pull, std::vector<FileChange>* out) const {
  return impl_->ScanRecords(
      keys::Prefix(keys::kFileTag, {pull.repo.ToString(), keys::Num(pull.number)}), out);
}

Status Store::ListOperateLog(const Ref& item, std::vector<OperateLogEvent>* out) const {
  return impl_->ScanRecords(ParentPrefix(keys::kOplogTag, item), out);
}

Status Store::ListPlatformLinks(const Ref& item, std::vector<PlatformLink>* out) const {
  if (item.kind == RefKind::kIssue)
    return impl_->ScanRecords(
        keys::Prefix(keys::kLinkTag, {item.repo.ToString(), keys::Num(item.number)}), out);
  Status inner;
  Status s = impl_->Scan(impl_->index, keys::Prefix(keys::kLinkIndexTag, {item.ToString()}),
                         [&](std::string_view key, std::string_view value) {
                           PlatformLink link;
                           inner = Decode(value, key, &link);
                           if (inner.ok()) out->push_back(std::move(link));
                           return inner.ok();
                         });
  FG_RETURN_IF_ERROR(s);
  return inner;
}

Status Store::IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                  std::vector<std::pair<UnixSeconds, Ref>>* out) const {
  return impl_->ScanTime(keys::kClosedIndexTag, repo, RefKind::kIssue, from, to, out);
}

Status Store::PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                 std::vector<std::pair<UnixSeconds, Ref>>* out) const {
  return impl_->ScanTime(keys::kMergedIndexTag, repo, RefKind::kPull, from, to, out);
}

Status Store::MentionsOf(const Ref& target, std::vector<MentionRecord>* out) const {
  Status inner;
  Status s = impl_->Scan(impl_->index, keys::Prefix(keys::kMentionIndexTag, {target.ToString()}),
                         [&](std::string_view key, std::string_view value) {
                           MentionRecord r;
                           inner = Decode(value, key, &r);
                           if (!inner.ok()) return false;
                           out->push_back(std::move(r));
                           return true;
                         });
  FG_RETURN_IF_ERROR(s);
  return inner;
}

StatusOr<RepoStats> Store::Stats(const RepoRef& repo) const {
  if (!impl_->counters) return CountByScan(repo);
  RepoStats st;
  st.repo = repo;
  std::string value;
  Status s = impl_->Get(impl_->meta, CountsKey(repo.ToString()), &value);
  if (s.IsNotFound()) return st;
  FG_RETURN_IF_ERROR(s);
  Counts c;
  FG_RETURN_IF_ERROR(DecodeCounts(value, &c).WithContext("counters of " + repo.ToString()));
  ToRepoStats(c, &st);
  return st;
}

StatusOr<RepoStats> Store::CountByScan(const RepoRef& repo) const {
  RepoStats st;
  st.repo = repo;
  std::string r = repo.ToString();
  FG_RETURN_IF_ERROR(impl_->Scan(
      impl_->index, keys::Prefix(keys::kStateIndexTag, {r}),
      [&](std::string_view key, std::string_view value) {
        std::string_view rest = key.substr(3 + r.size());
        char kind = rest.empty() ? '?' : rest[0];
        char state = value.empty() ? '?' : value[0];
        if (kind == 'i') {
          (state == 'c' ? st.issues_closed : st.issues_open)++;
        } else if (kind == 'p') {
          (state == 'm' ? st.pulls_merged : state == 'c' ? st.pulls_closed : st.pulls_open)++;
        }
        return true;
      }));
  auto count = [&](char tag, std::int64_t* n) {
    return impl_->Scan(impl_->items, keys::Prefix(tag, {r}),
                       [&](std::string_view, std::string_view) {
                         ++*n;
                         return true;
                       });
  };
  FG_RETURN_IF_ERROR(count(keys::kCommentTag, &st.comments));
  FG_RETURN_IF_ERROR(count(keys::kCommitTag, &st.commits));
  FG_RETURN_IF_ERROR(count(keys::kFileTag, &st.files));
  FG_RETURN_IF_ERROR(count(keys::kOplogTag, &st.operate_logs));
  FG_RETURN_IF_ERROR(count(keys::kLinkTag, &st.platform_links));
  return st;
}

StatusOr<std::string> Store::GetDerived(const std::string& kind, const Ref& item) const {
  std::string v;
  Status s = impl_->Get(impl_->items, DerivedKey(kind, item), &v);
  if (s.IsNotFound()) return Status::NotFound("no " + kind + " record for " + item.ToString());
  FG_RETURN_IF_ERROR(s);
  return v;
}

Status Store::ForEachDerived(const std::string& kind, const RepoRef* repo,
                             const std::function<bool(const Ref&, const std::string&)>& fn) const {
  std::string prefix = repo ? keys::Prefix(keys::kDerivedTag, {kind, repo->ToString()})
                            : keys::Prefix(keys::kDerivedTag, {kind});
  Status inner;
  Status s = impl_->Scan(impl_->items, prefix, [&](std::string_view key, std::string_view value) {
    // X \0 kind \0 repo \0 tag \0 num
    std::string_view rest = key.substr(3 + kind.size());
    size_t a = rest.find('\0');
    if (a == std::string_view::npos || a + 3 > rest.size()) return true;
    auto r = ParseRef(rest.substr(0, a));
    if (!r.ok()) {
      inner = r.status();
      return false;
    }
    char tag = rest[a + 1];
    std::string num = keys::Unpad(rest.substr(a + 3));
    Ref item = tag == 'i'   ? Ref::Issue(r->repo, num)
               : tag == 'p' ? Ref{RefKind::kPull, r->repo, num}
                            : Ref::Repo(r->repo);
    return fn(item, std::string(value));
  });
  FG_RETURN_IF_ERROR(s);
  return inner;
}

StatusOr<std::string> Store::GetMeta(const std::string& key) const {
  std::string v;
  Status s = impl_->Get(impl_->meta, key, &v);
  if (s.IsNotFound()) return Status::NotFound("no meta key " + key);
  FG_RETURN_IF_ERROR(s);
  return v;
}

Status Store::ListMeta(const std::string& prefix, std::map<std::string, std::string>* out) const {
  return impl_->Scan(impl_->meta, prefix, [&](std::string_view k, std::string_view v) {
    (*out)[std::string(k)] = std::string(v);
    return true;
  });
}

Status Store::ListPending(PendingWork* out) const {
  *out = PendingWork();
  Status inner;
  FG_RETURN_IF_ERROR(impl_->Scan(
      impl_->meta, std::string(keys::kPendingPrefix), [&](std::string_view k, std::string_view) {
        std::string_view rest = k.substr(keys::kPendingPrefix.size());
        size_t sep = rest.find(keys::kSep);
        if (sep == std::string_view::npos) return true;
        std::string_view kind = rest.substr(0, sep), what = rest.substr(sep + 1);
        if (kind == keys::kPendingLinkRun) {
          out->link_runs.emplace_back(what);
          return true;
        }
        auto ref = ParseRef(what);
        if (!ref.ok()) {
          inner = Status::Corruption("pending entry '" + std::string(what) +
                                     "': " + ref.status().message());
          return false;
        }
        if (kind == keys::kPendingRelink)
          out->relink.push_back(*ref);
        else if (kind == keys::kPendingReindex)
          out->reindex.push_back(*ref);
        return true;
      }));
  return inner;
}

std::uint64_t Store::BlockCacheBytes() const {
  std::uint64_t bytes = 0;
  if (!impl_->db->GetIntProperty(rocksdb::DB::Properties::kBlockCacheUsage, &bytes)) return 0;
  return bytes;
}

std::string Store::ScanOrderKey(const Ref& item) {
  std::string key = item.repo.ToString();
  key += keys::kSep;
  key += keys::Num(item.number);
  return key;
}

}  // namespace fixgraph
