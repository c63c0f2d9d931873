#include "pull_cache.h"

#include "features.h"

#include "fixgraph/engine/parallel.h"

#include <algorithm>
#include <cctype>

namespace fixgraph::graph {
namespace {

// The PR with its title and text features (files come with LoadPullFiles).
std::shared_ptr<PullInfo> MakePullInfo(PullRequest pr) {
  auto info = std::make_shared<PullInfo>();
  info->pr = std::move(pr);
  info->key = info->pr.ref().ToString();
  info->normalized_title = text::StripTitleTags(info->pr.title);
  info->title_tokens = text::Tokens(info->normalized_title);
  info->title_identifiers = text::Identifiers(info->normalized_title, false);
  info->text_tokens = text::TokensOfLines({info->normalized_title, info->pr.body});
  info->branch_keys = BranchKeysOf(info->pr.head_ref);
  info->release_base = IsReleaseBranch(info->pr.base_ref);
  return info;
}

// The PR's changed-file and patch features from its files (ListFiles order).
void SetFileFeatures(const std::vector<FileChange>& files, PullInfo* info) {
  std::vector<std::string_view>
      patches;  // tokenised as the patches joined by newlines, one after each
  patches.reserve(files.size() + 1);
  // The identifiers of every patch, made one sorted set at the end.
  static thread_local text::IdentifierBuffer idents;
  idents.Clear();
  for (const FileChange& f : files) {
    info->files.push_back(text::Lower(f.filename));
    if (!f.previous_filename.empty()) info->files.push_back(text::Lower(f.previous_filename));
    idents.Add(f.patch, /*path_variants=*/false);
    patches.push_back(f.patch);
  }
  patches.emplace_back();
  std::span<const std::string_view> sorted = idents.Sorted();
  info->patch_idents = SortedStrings(sorted);
  info->patch_ident_hashes.reserve(sorted.size());
  for (std::string_view id : sorted) info->patch_ident_hashes.push_back(text::Hash(id));
  info->patch_tokens = text::TokensOfLines(patches);
  for (const std::string& f : info->files)
    info->file_generic.push_back(text::IsGenericFileName(text::Basename(f)));
  for (const std::string& f : info->files) {
    std::string_view v(f);
    info->match_keys.push_back(text::Hash(v));
    for (size_t p = v.find('/'); p != std::string_view::npos; p = v.find('/', p + 1)) {
      info->match_keys.push_back(text::Hash(v.substr(0, p)));   // directory prefix
      info->match_keys.push_back(text::Hash(v.substr(p + 1)));  // path suffix
    }
    std::string_view rest(f);
    while (!rest.empty()) {
      size_t slash = rest.find('/');
      std::string_view part = rest.substr(0, slash);
      info->match_keys.push_back(text::Hash(part));
      size_t dot = part.rfind('.');
      if (dot != std::string_view::npos && dot > 0)
        info->match_keys.push_back(text::Hash(part.substr(0, dot)));
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
  }
  info->tail_keys = TailKeysOf(info->files);
  info->tail_keys_set = true;
  text::Normalize(&info->patch_ident_hashes);
  info->match_keys.insert(info->match_keys.end(), info->patch_ident_hashes.begin(),
                          info->patch_ident_hashes.end());
  text::Normalize(&info->match_keys);
  info->files_loaded = true;
}

Status LoadPullFiles(const Store& store, PullInfo* info) {
  if (info->files_loaded) return Status::OK();
  std::vector<FileChange> files;
  FG_RETURN_IF_ERROR(store.ListFiles(info->pr.ref(), &files));
  SetFileFeatures(files, info);
  return Status::OK();
}

// What a run index keeps of a record: the fields the linker reads (IssueContext,
// PullInfo and the signals read through them: number, title, body, state,
// state detail, author login and name, labels (the ranking compares a PR's
// with the issue's), times, branches, comment id and body), without the API
// identifiers and URLs it never reads. Emptied strings free their heap blocks.
void Forget(std::string* s) { std::string().swap(*s); }
void DropUnread(Issue* is) {
  Forget(&is->platform_id);
  Forget(&is->html_url);
  Forget(&is->author.id);
}
void DropUnread(PullRequest* pr) {
  Forget(&pr->platform_id);
  Forget(&pr->html_url);
  Forget(&pr->author.id);
  Forget(&pr->head_sha);
  Forget(&pr->head_repo);
}
void DropUnread(Comment* c) { Forget(&c->author.id); }

// The number as the store's secondary keys hold it (zero-padded when decimal),
// so that rows of one second sort as the store's scans return them.
std::string PaddedNumber(std::string_view number) {
  constexpr size_t kWidth = 12;
  bool digits =
      !number.empty() && number.size() <= kWidth &&
      std::all_of(number.begin(), number.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits) return std::string(number);
  return std::string(kWidth - number.size(), '0') + std::string(number);
}

}  // namespace

SortedStrings::SortedStrings(std::span<const std::string_view> sorted) {
  size_t chars = 0;
  for (std::string_view v : sorted) chars += v.size();
  chars_.reserve(chars);
  ends_.reserve(sorted.size());
  for (std::string_view v : sorted) {
    chars_.append(v);
    ends_.push_back(static_cast<std::uint32_t>(chars_.size()));
  }
}

SortedStrings::SortedStrings(const std::set<std::string>& set) {
  std::vector<std::string_view> views(set.begin(), set.end());
  *this = SortedStrings(views);
}

size_t SortedStrings::count(std::string_view s) const {
  size_t lo = 0, hi = ends_.size();
  while (lo < hi) {  // the first string not below `s`
    size_t mid = lo + (hi - lo) / 2;
    if ((*this)[mid] < s)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ends_.size() && (*this)[lo] == s ? 1 : 0;
}

const std::vector<Mention>& PullInfo::OwnMentions() const {
  if (!mentions_done_) {
    mentions_ = FindMentions(text::ForMentions(pr.title + "\n" + pr.body), pr.repo);
    mentions_done_ = true;
  }
  return mentions_;
}

// ---- RunIndex

namespace {

// Every PR of the scope (Store::ForEachPull order) with its features (MakePullInfo) and own
// mentions, its body dropped.
StatusOr<std::vector<std::shared_ptr<PullInfo>>> LoadPulls(const Store& store, const RepoRef* repo,
                                                           unsigned threads, size_t batch_items) {
  // PRs and their files stream through batches: each batch's features are
  // computed (in parallel) as soon as it fills, so that neither the PR bodies
  // nor the changed files' patches of the whole run are ever held at once.
  std::vector<std::shared_ptr<PullInfo>> infos;
  std::vector<PullRequest> batch;
  auto flush_pulls = [&] {
    size_t base = infos.size();
    infos.resize(base + batch.size());
    ParallelFor(batch.size(), threads, [&](size_t i, size_t) {
      auto info = MakePullInfo(std::move(batch[i]));
      info->OwnMentions();  // computed now: shared entries are never written later
      info->pr.body.clear();
      info->pr.body.shrink_to_fit();
      infos[base + i] = std::move(info);
    });
    batch.clear();
  };
  FG_RETURN_IF_ERROR(store.ForEachPull(repo, [&](PullRequest& pr) {
    DropUnread(&pr);
    batch.push_back(std::move(pr));
    if (batch.size() >= batch_items) flush_pulls();
    return true;
  }));
  flush_pulls();
  std::vector<PullRequest>().swap(batch);
  return infos;
}

// The file features of the merged PRs among infos (the others are never compared).
Status LoadMergedFiles(const Store& store, const RepoRef* repo, unsigned threads,
                       size_t batch_items, const std::vector<std::shared_ptr<PullInfo>>& infos) {
  constexpr size_t kBatchBytes = size_t{16} << 20;  // patch bytes per batch of files
  // Files of merged PRs (the others are never compared), one scan; the scan
  // gives each PR's files together.
  std::unordered_map<std::string, PullInfo*> merged_info;
  for (const std::shared_ptr<PullInfo>& info : infos)
    if (info->pr.merged()) merged_info.emplace(info->key, info.get());
  struct PendingFiles {
    PullInfo* info;
    std::vector<FileChange> files;  // ListFiles order
  };
  std::vector<PendingFiles> pending;
  size_t pending_bytes = 0;
  auto flush_files = [&] {
    ParallelFor(pending.size(), threads,
                [&](size_t i, size_t) { SetFileFeatures(pending[i].files, pending[i].info); });
    pending.clear();
    pending_bytes = 0;
  };
  bool have_last = false;
  RepoRef last_repo;
  std::int64_t last_number = 0;
  PullInfo* last_info = nullptr;
  FG_RETURN_IF_ERROR(store.ForEachFile(repo, [&](FileChange& f) {
    if (!have_last || f.pr_number != last_number || f.repo != last_repo) {
      if (pending.size() >= batch_items || pending_bytes >= kBatchBytes) flush_files();
      // Taken out of the map: the scan's key order gives each PR's files in one run.
      auto it = merged_info.find(Ref::Pull(f.repo, f.pr_number).ToString());
      last_info = nullptr;
      if (it != merged_info.end()) {
        last_info = it->second;
        merged_info.erase(it);
        pending.push_back({last_info, {}});
      }
      have_last = true;
      last_repo = f.repo;
      last_number = f.pr_number;
    }
    if (last_info) {
      pending_bytes += f.patch.size() + f.filename.size();
      pending.back().files.push_back(std::move(f));
    }
    return true;
  }));
  flush_files();
  // Merged PRs without files: their (empty) file features.
  for (auto& [key, info] : merged_info) pending.push_back({info, {}});
  flush_files();
  return Status::OK();
}

}  // namespace

StatusOr<std::unique_ptr<RunIndex>> RunIndex::Build(const Store& store, const RepoRef* repo,
                                                    unsigned threads, size_t batch_items) {
  batch_items = std::max<size_t>(batch_items, 1);
  auto index = std::make_unique<RunIndex>();
  if (repo) {
    index->all_repos_ = false;
    index->repo_ = *repo;
  }
  FG_RETURN_IF_ERROR(index->LoadIssues(store, repo));
  FG_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<PullInfo>> infos,
                      LoadPulls(store, repo, threads, batch_items));
  FG_RETURN_IF_ERROR(LoadMergedFiles(store, repo, threads, batch_items, infos));
  index->IndexPulls(std::move(infos));
  return index;
}

Status RunIndex::LoadIssues(const Store& store, const RepoRef* repo) {
  // The scans lend each decoded record: what the index keeps is moved in,
  // less the fields no linker reads (DropUnread).
  FG_RETURN_IF_ERROR(store.ForEachIssue(repo, [&](Issue& is) {
    DropUnread(&is);
    Ref ref = is.ref();
    if (is.state == IssueState::kClosed && is.closed_at)
      closed_[is.repo.ToString()].push_back({*is.closed_at, PaddedNumber(is.number), ref, nullptr});
    issue_refs_.push_back(ref);
    issue_map_[ref.ToString()].issue = std::move(is);
    return true;
  }));
  // The issues' comments, operate logs and platform links, one scan each.
  // Consecutive records share their parent: look it up once per run.
  std::string last_key;
  IssueData* last = nullptr;
  auto parent = [&](const Ref& ref) {
    std::string key = ref.ToString();
    if (key != last_key) {
      auto it = issue_map_.find(key);
      last = it == issue_map_.end() ? nullptr : &it->second;
      last_key = std::move(key);
    }
    return last;
  };
  FG_RETURN_IF_ERROR(store.ForEachComment(
      repo,
      [&](Comment& c) {
        if (IssueData* d = parent(c.parent())) {
          DropUnread(&c);
          d->comments.push_back(std::move(c));
        }
        return true;
      },
      ParentKind::kIssue));
  FG_RETURN_IF_ERROR(store.ForEachOperateLog(
      repo,
      [&](OperateLogEvent& e) {
        if (IssueData* d = parent(e.parent())) d->oplog.push_back(std::move(e));
        return true;
      },
      ParentKind::kIssue));
  // Keyed (and so listed) by the issue's repository and number.
  FG_RETURN_IF_ERROR(store.ForEachPlatformLink(repo, [&](PlatformLink& l) {
    if (IssueData* d = parent(Ref::Issue(l.issue.repo, l.issue.number)))
      d->links.push_back(std::move(l));
    return true;
  }));
  auto keep_mention = [&](MentionRecord& m) {
    if (Covers(m.target.repo)) mentions_[m.target.ToString()].push_back(std::move(m));
    return true;
  };
  FG_RETURN_IF_ERROR(repo ? store.ForEachMentionIn(*repo, keep_mention)
                          : store.ForEachMention(keep_mention));
  return Status::OK();
}

void RunIndex::IndexPulls(std::vector<std::shared_ptr<PullInfo>> infos) {
  pulls_.reserve(infos.size());
  for (std::shared_ptr<PullInfo>& info : infos) {
    const PullRequest& pr = info->pr;
    if (pr.merged() && pr.merged_at)
      merged_[pr.repo.ToString()].push_back(
          {*pr.merged_at, PaddedNumber(std::to_string(pr.number)), pr.ref(), info});
    pulls_.emplace(pr.ref().ToString(), std::move(info));
  }
  auto by_key = [](const Timed& a, const Timed& b) {
    if (a.t != b.t) return a.t < b.t;
    return a.padded < b.padded;
  };
  for (auto& [r, rows] : merged_) std::sort(rows.begin(), rows.end(), by_key);
  for (auto& [r, rows] : closed_) std::sort(rows.begin(), rows.end(), by_key);
  for (auto& [r, rows] : merged_) {
    for (size_t i = 0; i < rows.size(); ++i) rows[i].pos = static_cast<std::uint32_t>(i);
    match_postings_[r] = KeyPostings::Of(rows, &PullInfo::match_keys);
    text_postings_[r] = KeyPostings::Of(rows, &PullInfo::text_tokens);
    window_rows_[r] = WindowRows::Of(rows);
  }
}

RunIndex::KeyPostings RunIndex::KeyPostings::Of(const std::vector<Timed>& rows,
                                                text::TokenSet PullInfo::*keys) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> pairs;
  size_t total = 0;
  for (const Timed& row : rows) total += row.info ? ((*row.info).*keys).size() : 0;
  // Sorted by (key, position): placed first by the key's top bits (a
  // counting sort, buckets of about 8 pairs), then each bucket sorted alone.
  int bits = 1;
  while (bits < 24 && (size_t{8} << bits) < total) ++bits;
  const int shift = 64 - bits;
  std::vector<std::uint32_t> bucket((size_t{1} << bits) + 1, 0);
  for (const Timed& row : rows)
    if (row.info)
      for (std::uint64_t k : (*row.info).*keys) ++bucket[(k >> shift) + 1];
  for (size_t b = 1; b < bucket.size(); ++b) bucket[b] += bucket[b - 1];
  pairs.resize(total);
  {
    std::vector<std::uint32_t> next(bucket.begin(), bucket.end() - 1);
    for (const Timed& row : rows)
      if (row.info)
        for (std::uint64_t k : (*row.info).*keys) pairs[next[k >> shift]++] = {k, row.pos};
  }
  for (size_t b = 0; b + 1 < bucket.size(); ++b)
    if (bucket[b + 1] - bucket[b] > 1)
      std::sort(pairs.begin() + bucket[b], pairs.begin() + bucket[b + 1]);
  KeyPostings post;
  size_t distinct = 0;
  for (size_t i = 0; i < pairs.size(); ++i)
    distinct += i == 0 || pairs[i].first != pairs[i - 1].first;
  post.index_.Reserve(distinct);
  post.starts_.reserve(distinct + 1);
  post.rows_.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || pairs[i].first != pairs[i - 1].first) {
      post.starts_.push_back(static_cast<std::uint32_t>(i));
      post.index_.Slot(pairs[i].first) = static_cast<std::uint32_t>(post.starts_.size());
    }
    post.rows_.push_back(pairs[i].second);
  }
  post.starts_.push_back(static_cast<std::uint32_t>(pairs.size()));
  return post;
}

std::span<const std::uint32_t> RunIndex::KeyPostings::Rows(std::uint64_t key, std::uint32_t lo,
                                                           std::uint32_t hi) const {
  std::uint32_t k = index_.Of(key);
  if (k == 0) return {};
  size_t i = k - 1;
  auto begin = rows_.begin() + starts_[i], end = rows_.begin() + starts_[i + 1];
  auto first = std::lower_bound(begin, end, lo);
  auto last = std::lower_bound(first, end, hi);
  return {first, last};
}

RunIndex::WindowRows RunIndex::WindowRows::Of(std::span<const Timed> rows) {
  WindowRows w;
  w.bases_.emplace_back();
  std::unordered_map<std::string, std::uint32_t> base_index{{std::string(), 0}};
  size_t titles = 0;
  for (const Timed& row : rows) titles += row.info ? row.info->title_tokens.size() : 0;
  w.titles_.reserve(titles);
  w.rows_.resize(rows.size());
  w.times_.reserve(rows.size());
  for (const Timed& row : rows) w.times_.push_back(row.t);
  for (size_t i = 0; i < rows.size(); ++i) {
    const PullInfo* info = rows[i].info.get();
    if (!info) continue;
    Row& r = w.rows_[i];
    r.info = info;
    r.text = info->text_tokens.data();
    r.text_n = static_cast<std::uint32_t>(info->text_tokens.size());
    r.has_created = info->pr.created_at.has_value();
    r.created_at = info->pr.created_at.value_or(0);
    r.numeric_bits = info->branch_keys.numeric_bits;
    r.words_bits = info->branch_keys.words_bits;
    r.title_begin = static_cast<std::uint32_t>(w.titles_.size());
    r.title_n = static_cast<std::uint32_t>(info->title_tokens.size());
    w.titles_.insert(w.titles_.end(), info->title_tokens.begin(), info->title_tokens.end());
    auto [base, added] =
        base_index.try_emplace(info->pr.base_ref, static_cast<std::uint32_t>(w.bases_.size()));
    if (added) w.bases_.push_back(info->pr.base_ref);
    r.base = base->second;
    r.release_base = info->release_base;
    r.files_loaded = info->files_loaded;
    if (info->files_loaded) {  // (else the filters stay all ones)
      r.patch_filter = HashFilterOf(info->patch_ident_hashes);
      if (info->tail_keys_set) r.tail_filter = HashFilterOf(info->tail_keys);
    }
  }
  return w;
}

std::uint32_t RunIndex::WindowRows::BaseOf(std::string_view branch) const {
  for (size_t i = 0; i < bases_.size(); ++i)
    if (bases_[i] == branch) return static_cast<std::uint32_t>(i);
  return kNoBase;
}

const RunIndex::WindowRows* RunIndex::WindowRowsOf(const RepoRef& repo) const {
  auto it = window_rows_.find(repo.ToString());
  return it == window_rows_.end() ? nullptr : &it->second;
}

const RunIndex::KeyPostings* RunIndex::MatchKeyPostings(const RepoRef& repo) const {
  auto it = match_postings_.find(repo.ToString());
  return it == match_postings_.end() ? nullptr : &it->second;
}

const RunIndex::KeyPostings* RunIndex::TextPostings(const RepoRef& repo) const {
  auto it = text_postings_.find(repo.ToString());
  return it == text_postings_.end() ? nullptr : &it->second;
}

const std::shared_ptr<PullInfo>* RunIndex::FindPull(const std::string& key) const {
  auto it = pulls_.find(key);
  return it == pulls_.end() ? nullptr : &it->second;
}

const Issue* RunIndex::FindIssue(const std::string& key) const {
  auto it = issue_map_.find(key);
  return it == issue_map_.end() ? nullptr : &it->second.issue;
}

const RunIndex::IssueData* RunIndex::FindIssueData(const std::string& key) const {
  auto it = issue_map_.find(key);
  return it == issue_map_.end() ? nullptr : &it->second;
}

const std::vector<MentionRecord>* RunIndex::FindMentions(const std::string& key) const {
  auto it = mentions_.find(key);
  return it == mentions_.end() ? nullptr : &it->second;
}

void RunIndex::Between(const std::map<std::string, std::vector<Timed>>& index, const RepoRef& repo,
                       UnixSeconds from, UnixSeconds to, TimedRefs* out) {
  auto it = index.find(repo.ToString());
  if (it == index.end()) return;
  const std::vector<Timed>& rows = it->second;
  auto first = std::lower_bound(rows.begin(), rows.end(), from,
                                [](const Timed& r, UnixSeconds t) { return r.t < t; });
  for (auto r = first; r != rows.end() && r->t <= to; ++r) out->emplace_back(r->t, r->ref);
}

void RunIndex::PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                  TimedRefs* out) const {
  Between(merged_, repo, from, to, out);
}

void RunIndex::IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                   TimedRefs* out) const {
  Between(closed_, repo, from, to, out);
}

void RunIndex::MergedPullsBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                  TimedPulls* out) const {
  auto it = merged_.find(repo.ToString());
  if (it == merged_.end()) return;
  const std::vector<Timed>& rows = it->second;
  auto first = std::lower_bound(rows.begin(), rows.end(), from,
                                [](const Timed& r, UnixSeconds t) { return r.t < t; });
  for (auto r = first; r != rows.end() && r->t <= to; ++r) out->emplace_back(r->t, r->info);
}

std::span<const RunIndex::Timed> RunIndex::MergedRows(const RepoRef& repo, UnixSeconds from,
                                                      UnixSeconds to) const {
  auto it = merged_.find(repo.ToString());
  if (it == merged_.end()) return {};
  const std::vector<Timed>& rows = it->second;
  auto first = std::lower_bound(rows.begin(), rows.end(), from,
                                [](const Timed& r, UnixSeconds t) { return r.t < t; });
  auto last = std::upper_bound(first, rows.end(), to,
                               [](UnixSeconds t, const Timed& r) { return t < r.t; });
  return {first, last};
}

// ---- PullCache

PullCache::PullCache(const Store& store, size_t capacity, const RunIndex* run)
    : store_(store), capacity_(capacity), run_(run) {}

StatusOr<std::shared_ptr<PullInfo>> PullCache::Get(const Ref& pull) {
  std::string key = pull.ToString();
  if (run_ && pull.kind == RefKind::kPull && run_->Covers(pull.repo)) {
    const std::shared_ptr<PullInfo>* p = run_->FindPull(key);
    return p ? *p : std::shared_ptr<PullInfo>();
  }
  if (auto it = pulls_.find(key); it != pulls_.end()) return it->second;
  if (pulls_.size() >= capacity_) pulls_.clear();
  auto pr = store_.GetPull(pull);
  if (!pr.ok()) {
    if (!pr.status().IsNotFound()) return pr.status();
    pulls_[key] = nullptr;
    return std::shared_ptr<PullInfo>();
  }
  auto info = MakePullInfo(std::move(pr).value());
  pulls_[key] = info;
  return info;
}

Status PullCache::LoadFiles(PullInfo* info) {
  if (!info->files_loaded && run_ && run_->Covers(info->pr.repo))  // shared: never written
    return Status::FailedPrecondition("files of unmerged " + info->pr.ref().ToString() +
                                      " not loaded");
  return LoadPullFiles(store_, info);
}

std::string PullCache::DefaultBranch(const RepoRef& repo) {
  if (auto it = branches_.find(repo); it != branches_.end()) return it->second;
  auto r = store_.GetRepository(repo);
  std::string branch = r.ok() ? r->default_branch : "";
  branches_[repo] = branch;
  return branch;
}

Status PullCache::ReadIssue(const Ref& issue, Issue* out) {
  if (Covers(issue)) {
    const Issue* is = run_->FindIssue(issue.ToString());
    if (!is) return Status::NotFound("issue " + issue.ToString());
    *out = *is;
    return Status::OK();
  }
  FG_ASSIGN_OR_RETURN(*out, store_.GetIssue(issue));
  return Status::OK();
}

Status PullCache::IssueExists(const Ref& issue) {
  if (Covers(issue))
    return run_->FindIssue(issue.ToString()) ? Status::OK()
                                             : Status::NotFound("issue " + issue.ToString());
  auto is = store_.GetIssue(issue);
  return is.ok() ? Status::OK() : is.status();
}

Status PullCache::MentionsOf(const Ref& target, std::vector<MentionRecord>* out) {
  if (run_ && run_->Covers(target.repo)) {
    if (const std::vector<MentionRecord>* v = run_->FindMentions(target.ToString()))
      out->insert(out->end(), v->begin(), v->end());
    return Status::OK();
  }
  return store_.MentionsOf(target, out);
}

namespace {

// The rows of an IssueRowsView that are not the run index's own.
struct OwnedIssueRows {
  std::vector<Comment> comments;
  std::vector<OperateLogEvent> oplog;
  std::vector<PlatformLink> links;
  std::vector<MentionRecord> mentions;
};

bool ByCreation(const Comment& a, const Comment& b) {
  return a.created_at.value_or(0) < b.created_at.value_or(0);
}

}  // namespace

Status PullCache::IssueRowsOf(const Ref& issue, IssueRowsView* out) {
  *out = IssueRowsView();
  std::shared_ptr<OwnedIssueRows> owned;
  auto own = [&]() -> OwnedIssueRows& {
    if (!owned) owned = std::make_shared<OwnedIssueRows>();
    return *owned;
  };
  std::span<const Comment> comments;
  std::span<const PlatformLink> links;
  if (Covers(issue)) {
    std::string key = issue.ToString();
    if (const RunIndex::IssueData* d = run_->FindIssueData(key)) {
      comments = d->comments;
      out->oplog = d->oplog;
      links = d->links;
    }
    if (const std::vector<MentionRecord>* m = run_->FindMentions(key)) out->mentioned_by = *m;
  } else {
    OwnedIssueRows& o = own();
    FG_RETURN_IF_ERROR(store_.ListComments(issue, &o.comments));
    FG_RETURN_IF_ERROR(store_.ListOperateLog(issue, &o.oplog));
    FG_RETURN_IF_ERROR(store_.ListPlatformLinks(issue, &o.links));
    FG_RETURN_IF_ERROR(MentionsOf(issue, &o.mentions));
    comments = o.comments;
    out->oplog = o.oplog;
    links = o.links;
    out->mentioned_by = o.mentions;
  }
  // Comments usually come in time order already: copy only to re-order.
  if (!std::is_sorted(comments.begin(), comments.end(), ByCreation)) {
    OwnedIssueRows& o = own();
    if (o.comments.empty()) o.comments.assign(comments.begin(), comments.end());
    std::stable_sort(o.comments.begin(), o.comments.end(), ByCreation);
    comments = o.comments;
  }
  out->comments = comments;
  // Links are listed under their issue: copy only when one names another.
  if (std::all_of(links.begin(), links.end(),
                  [&](const PlatformLink& l) { return l.issue == issue; })) {
    out->platform_links = links;
  } else {
    std::vector<PlatformLink> kept;
    for (const PlatformLink& l : links)
      if (l.issue == issue) kept.push_back(l);
    OwnedIssueRows& o = own();
    o.links = std::move(kept);
    out->platform_links = o.links;
  }
  out->owned = std::move(owned);
  return Status::OK();
}

Status PullCache::PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                     TimedRefs* out) {
  if (run_ && run_->Covers(repo)) {
    run_->PullsMergedBetween(repo, from, to, out);
    return Status::OK();
  }
  return store_.PullsMergedBetween(repo, from, to, out);
}

Status PullCache::MergedPullsBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                     TimedPulls* out) {
  if (run_ && run_->Covers(repo)) {
    run_->MergedPullsBetween(repo, from, to, out);
    return Status::OK();
  }
  TimedRefs rows;
  FG_RETURN_IF_ERROR(store_.PullsMergedBetween(repo, from, to, &rows));
  for (const auto& [t, ref] : rows) {
    FG_ASSIGN_OR_RETURN(auto info, Get(ref));
    out->emplace_back(t, std::move(info));
  }
  return Status::OK();
}

Status PullCache::MergedRows(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                             std::vector<RunIndex::Timed>* storage,
                             std::span<const RunIndex::Timed>* rows) {
  if (run_ && run_->Covers(repo)) {
    *rows = run_->MergedRows(repo, from, to);
    return Status::OK();
  }
  TimedRefs refs;
  FG_RETURN_IF_ERROR(store_.PullsMergedBetween(repo, from, to, &refs));
  storage->clear();
  for (const auto& [t, ref] : refs) {
    FG_ASSIGN_OR_RETURN(auto info, Get(ref));
    storage->push_back({t, std::string(), ref, std::move(info)});
  }
  *rows = *storage;
  return Status::OK();
}

Status PullCache::IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                                      TimedRefs* out) {
  if (run_ && run_->Covers(repo)) {
    run_->IssuesClosedBetween(repo, from, to, out);
    return Status::OK();
  }
  return store_.IssuesClosedBetween(repo, from, to, out);
}

}  // namespace fixgraph::graph
