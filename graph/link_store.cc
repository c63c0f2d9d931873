// LinkAll, Relink and reading stored links (see linker.h).
#include "bulk_heap.h"
#include "features.h"
#include "link_codec.h"
#include "linker_internal.h"
#include "rank_pool.h"
#include "text.h"

#include "fixgraph/engine/parallel.h"
#include "fixgraph/graph/linker.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace fixgraph::graph {
namespace {

constexpr std::int64_t kDay = 86400;
constexpr size_t kCacheCapacity = 8192;
// A Relink of at least this many issues first loads every PR and issue into a
// RunIndex (one scan instead of reads per issue).
constexpr size_t kRunIndexMinIssues = 2048;

unsigned LinkThreads(const LinkerOptions& options) {
  size_t threads = options.threads ? options.threads : HardwareThreads();
  return static_cast<unsigned>(std::clamp<size_t>(threads, 1, 8));
}

// The reverse index: PR -> issues linked to it, kept in memory while a run
// writes, loaded from the store on first use.
class ReverseIndex {
 public:
  explicit ReverseIndex(const Store& store) : store_(store) {}

  // The row of `pr`, to be changed: it is written by the next Write.
  StatusOr<std::set<std::string>*> Of(const std::string& pr) {
    auto it = entries_.find(pr);
    if (it != entries_.end()) {
      dirty_.insert(pr);
      return &it->second;
    }
    dirty_.insert(pr);
    std::set<std::string>& set = entries_[pr];
    auto ref = ParseRef(pr);
    if (ref.ok() && ref->kind == RefKind::kPull) {
      auto v = store_.GetDerived(kPullLinksKind, *ref);
      if (v.ok()) {
        FG_RETURN_IF_ERROR(DecodePullLinks(*v, &set).WithContext("pull_links record of " + pr));
      } else if (!v.status().IsNotFound()) {
        return v.status();
      }
    }
    return &set;
  }
  // Starts from nothing for PRs never read (LinkAll over every repository).
  void MarkEmpty(const std::string& pr) {
    entries_.try_emplace(pr);
    dirty_.insert(pr);
  }

  // Stages the rows changed since the last Write. LinkAndStore writes them
  // with the links of each block, so that the store never holds links
  // without the reverse rows that name them (a crash between two writes).
  Status Write(Store::Batch* batch) {
    std::string value;
    for (const std::string& pr : dirty_) {
      const std::set<std::string>& issues = entries_[pr];
      auto ref = ParseRef(pr);
      if (!ref.ok() || ref->kind != RefKind::kPull) continue;  // URL targets have no record
      if (issues.empty()) {
        FG_RETURN_IF_ERROR(batch->DeleteDerived(kPullLinksKind, *ref));
      } else {
        EncodePullLinks(issues, &value);
        FG_RETURN_IF_ERROR(batch->PutDerived(kPullLinksKind, *ref, value));
      }
    }
    dirty_.clear();
    return Status::OK();
  }

 private:
  const Store& store_;
  std::map<std::string, std::set<std::string>> entries_;
  std::set<std::string> dirty_;
};

std::vector<std::string> FixKeys(const IssueLinks& l) {
  std::vector<std::string> out;
  for (const FixLink& f : l.fixes) out.push_back(f.pr);
  return out;
}

using Clock = std::chrono::steady_clock;

// Seconds from *mark to now; *mark becomes now.
double SecondsSince(Clock::time_point* mark) {
  auto now = Clock::now();
  double s = std::chrono::duration<double>(now - *mark).count();
  *mark = now;
  return s;
}

// Links `issues`, writes the results and updates the reverse index in memory
// (the caller writes it: WriteReverse). Links are computed on LinkThreads
// workers (ParallelFor; this thread is one of them, each with a PullCache of
// its own), one block of options.batch_issues at a time; this thread writes
// them in issue order. `run` (may be null) holds the PRs and issues in memory;
// `stats` (not null) gains the counts and the compute and write times.
Status LinkAndStore(Store* store, const std::vector<Ref>& issues, const LinkerOptions& options,
                    const RunIndex* run, ReverseIndex* reverse, bool read_old, LinkStats* stats,
                    BulkHeap* heap = nullptr) {
  auto mark = Clock::now();
  unsigned threads = LinkThreads(options);
  std::vector<std::unique_ptr<LinkWorker>> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.push_back(std::make_unique<LinkWorker>(*store, kCacheCapacity, run));
  size_t block = std::max<size_t>(1, options.batch_issues);
  std::int64_t done = 0;
  for (size_t start = 0; start < issues.size(); start += block) {
    size_t end = std::min(issues.size(), start + block);
    std::vector<std::optional<StatusOr<IssueLinks>>> results(end - start);
    ParallelFor(end - start, threads, [&](size_t k, size_t worker) {
      results[k].emplace(workers[worker]->Link(issues[start + k], options));
    });
    stats->compute_seconds += SecondsSince(&mark);
    auto batch = store->NewBatch();
    std::string value;
    for (size_t i = start; i < end; ++i) {
      const Ref& ref = issues[i];
      if (read_old) {
        auto old = ReadLinks(*store, ref);
        if (old.ok()) {
          for (const std::string& pr : FixKeys(*old)) {
            FG_ASSIGN_OR_RETURN(auto* set, reverse->Of(pr));
            set->erase(ref.ToString());
          }
        } else if (!old.status().IsNotFound() && !old.status().IsCorruption()) {
          return old.status();
        }
      }
      const StatusOr<IssueLinks>& links = *results[i - start];
      if (!links.ok()) {
        if (!links.status().IsNotFound()) return links.status().WithContext(ref.ToString());
        FG_RETURN_IF_ERROR(batch->DeleteDerived(kLinksKind, ref));  // the issue is gone
        FG_RETURN_IF_ERROR(batch->MarkReindex(ref));
      } else {
        EncodeLinks(*links, &value);
        FG_RETURN_IF_ERROR(batch->PutDerived(kLinksKind, ref, value));
        for (const std::string& pr : FixKeys(*links)) {
          FG_ASSIGN_OR_RETURN(auto* set, reverse->Of(pr));
          set->insert(ref.ToString());
        }
        stats->Add(*links);
        // Its ask document carries the links: rewritten later, pending meanwhile.
        FG_RETURN_IF_ERROR(batch->MarkReindex(ref));
      }
      ++done;
    }
    FG_RETURN_IF_ERROR(reverse->Write(batch.get()));
    FG_RETURN_IF_ERROR(store->Write(batch.get()));
    if (options.on_progress) options.on_progress(done, static_cast<std::int64_t>(issues.size()));
    if (heap) heap->Update();
    stats->write_seconds += SecondsSince(&mark);
  }
  return Status::OK();
}

Status AddMentionedIssues(const Store& store, const std::string& text, const RepoRef& repo,
                          std::set<Ref>* issues, std::set<Ref>* pulls) {
  for (const Mention& m : FindMentions(text::ForMentions(text), repo)) {
    if (m.target.kind == RefKind::kIssue) issues->insert(m.target);
    if (m.target.kind == RefKind::kPull) pulls->insert(m.target);
  }
  (void)store;
  return Status::OK();
}

Status AddReverse(const Store& store, const Ref& pull, std::set<Ref>* out) {
  auto v = store.GetDerived(kPullLinksKind, pull);
  if (!v.ok()) return v.status().IsNotFound() ? Status::OK() : v.status();
  std::set<std::string> issues;
  FG_RETURN_IF_ERROR(
      DecodePullLinks(*v, &issues).WithContext("pull_links record of " + pull.ToString()));
  for (const std::string& s : issues) {
    auto r = ParseRef(s);
    if (r.ok() && r->kind == RefKind::kIssue) out->insert(*r);
  }
  return Status::OK();
}

Status AddClosedBetween(const Store& store, const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                        std::set<Ref>* out) {
  std::vector<std::pair<UnixSeconds, Ref>> v;
  FG_RETURN_IF_ERROR(store.IssuesClosedBetween(repo, from, to, &v));
  for (auto& [t, r] : v) out->insert(r);
  return Status::OK();
}

// Links the issues of one repository (or of all when `repo` is null) with a
// run index of that scope; deletes the link records of its issues that are
// gone. `reverse` collects the PR -> issues rows (written by the caller);
// `read_old`: whether the issues' earlier links may still be in it (a run
// over every repository starts every PR's row empty instead).
// `heap` outlives the run index (and, across repositories, keeps what one
// repository's index freed for the next instead of returning it to the
// kernel, which would fault it in afresh).
Status LinkScope(Store* store, const RepoRef* repo, const LinkerOptions& options, bool read_old,
                 ReverseIndex* reverse, LinkStats* stats, BulkHeap* heap) {
  auto mark = Clock::now();
  // Every issue and PR of the scope, with the PR features, read once.
  FG_ASSIGN_OR_RETURN(std::unique_ptr<RunIndex> run,
                      RunIndex::Build(*store, repo, LinkThreads(options)));
  heap->Update();
  const std::vector<Ref>& issues = run->issues();
  // Forget earlier results in scope: stale issue records.
  auto batch = store->NewBatch();
  std::set<Ref> present(issues.begin(), issues.end());
  FG_RETURN_IF_ERROR(
      store->ForEachDerived(kLinksKind, repo, [&](const Ref& item, const std::string&) {
        if (!present.count(item)) batch->DeleteDerived(kLinksKind, item).IgnoreError();
        return true;
      }));
  FG_RETURN_IF_ERROR(store->Write(batch.get()));
  // The suggestion model of this repository: fitted on its explicit pairs
  // when it has enough, kept in the store for Relink and LinkIssue.
  LinkerOptions scoped = options;
  std::map<RepoRef, RankModel> models;
  if (repo && options.suggest && options.suggest_learn && !options.suggest_model) {
    const auto fit_start = std::chrono::steady_clock::now();
    FG_ASSIGN_OR_RETURN(std::optional<RankModel> fitted,
                        FitRepositoryModel(*store, *run, *repo, options.suggest_min_pairs));
    stats->fit_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - fit_start).count();
    auto meta = store->NewBatch();
    if (fitted) {
      FG_RETURN_IF_ERROR(meta->PutMeta(RankModelKey(*repo), fitted->ToJson().dump()));
      models.emplace(*repo, std::move(*fitted));
      scoped.suggest_models = &models;
    } else {
      FG_RETURN_IF_ERROR(meta->DeleteMeta(RankModelKey(*repo)));
    }
    FG_RETURN_IF_ERROR(store->Write(meta.get()));
  }
  stats->load_seconds += SecondsSince(&mark);
  return LinkAndStore(store, issues, scoped, run.get(), reverse, read_old, stats, heap);
}

// The stored suggestion models of the repositories of `issues`.
Status LoadRankModels(const Store& store, const std::vector<Ref>& issues,
                      std::map<RepoRef, RankModel>* out) {
  std::set<RepoRef> repos;
  for (const Ref& r : issues) repos.insert(r.repo);
  for (const RepoRef& repo : repos) {
    auto v = store.GetMeta(RankModelKey(repo));
    if (!v.ok()) {
      if (v.status().IsNotFound()) continue;
      return v.status();
    }
    nlohmann::json j = nlohmann::json::parse(*v, nullptr, false);
    auto m = RankModel::FromJson(j);
    if (!m.ok())
      return Status::Corruption("suggestion model of " + repo.ToString() + ": " +
                                m.status().message());
    out->emplace(repo, std::move(*m));
  }
  return Status::OK();
}

// Writes the reverse index a run collected (its write time into `stats`).
Status WriteReverse(Store* store, ReverseIndex* reverse, LinkStats* stats) {
  auto mark = Clock::now();
  auto batch = store->NewBatch();
  FG_RETURN_IF_ERROR(reverse->Write(batch.get()));
  FG_RETURN_IF_ERROR(store->Write(batch.get()));
  stats->write_seconds += SecondsSince(&mark);
  return Status::OK();
}

}  // namespace

void LinkStats::Add(const IssueLinks& l) {
  ++issues;
  if (!l.fixes.empty()) ++issues_with_fixes;
  fixes += static_cast<std::int64_t>(l.fixes.size());
  for (const FixLink& f : l.fixes) ++by_tier[TierName(f.tier)];
  ++by_resolution[ResolutionName(l.resolution)];
  for (Flag f : l.flags) ++by_flag[FlagName(f)];
}

Status LinkAll(Store* store, const RepoRef* repo, const LinkerOptions& options, LinkStats* stats) {
  auto start = Clock::now();
  LinkStats unused;
  if (!stats) stats = &unused;
  BulkHeap heap;
  ReverseIndex reverse(*store);
  if (repo) {
    FG_RETURN_IF_ERROR(LinkScope(store, repo, options, /*read_old=*/true, &reverse, stats, &heap));
  } else {
    // Every PR's reverse row is rewritten from what this run links.
    FG_RETURN_IF_ERROR(
        store->ForEachDerived(kPullLinksKind, nullptr, [&](const Ref& item, const std::string&) {
          reverse.MarkEmpty(item.ToString());
          return true;
        }));
    // One repository at a time: only its issues and PRs are held in memory
    // (references into other repositories are read from the store, as a
    // `link --repo` run reads them), so a run's memory is that of the
    // largest repository, not of the store.
    std::vector<RepoRef> repos;
    FG_RETURN_IF_ERROR(store->ListIssueRepositories(&repos));
    for (const RepoRef& r : repos)
      FG_RETURN_IF_ERROR(LinkScope(store, &r, options, /*read_old=*/false, &reverse, stats, &heap));
    // Link records of repositories without issues now.
    std::vector<RepoRef> with_links;
    FG_RETURN_IF_ERROR(store->ListDerivedRepositories(kLinksKind, &with_links));
    std::set<RepoRef> linked(repos.begin(), repos.end());
    auto batch = store->NewBatch();
    for (const RepoRef& r : with_links) {
      if (linked.count(r)) continue;
      FG_RETURN_IF_ERROR(
          store->ForEachDerived(kLinksKind, &r, [&](const Ref& item, const std::string&) {
            batch->DeleteDerived(kLinksKind, item).IgnoreError();
            return true;
          }));
    }
    FG_RETURN_IF_ERROR(store->Write(batch.get()));
  }
  FG_RETURN_IF_ERROR(WriteReverse(store, &reverse, stats));
  stats->seconds += SecondsSince(&start);
  return Status::OK();
}

StatusOr<std::vector<Ref>> AffectedIssues(const Store& store, const std::vector<Ref>& touched,
                                          const LinkerOptions& options) {
  std::set<Ref> issues;
  // Merge seconds of the touched merged PRs, per repository: the issues whose
  // implicit window holds one are found below in one pass per repository (a
  // scan per PR read every issue closed within ~7 months of its merge: with
  // thousands of changed PRs, quadratic).
  std::map<RepoRef, std::vector<UnixSeconds>> merges;
  for (const Ref& t : touched) {
    if (t.kind == RefKind::kIssue) {
      issues.insert(t);
      auto is = store.GetIssue(t);
      if (is.ok() && is->state == IssueState::kClosed && is->closed_at) {
        FG_RETURN_IF_ERROR(AddClosedBetween(store, t.repo, *is->closed_at - options.batch_window_s,
                                            *is->closed_at + options.batch_window_s, &issues));
      }
      continue;
    }
    if (t.kind != RefKind::kPull) continue;
    FG_RETURN_IF_ERROR(AddReverse(store, t, &issues));
    std::vector<PlatformLink> links;
    FG_RETURN_IF_ERROR(store.ListPlatformLinks(t, &links));
    for (const PlatformLink& l : links) issues.insert(l.issue);
    std::vector<MentionRecord> named_by;  // issue comments naming the PR
    FG_RETURN_IF_ERROR(store.MentionsOf(t, &named_by));
    for (const MentionRecord& m : named_by)
      if (m.source_item.kind == RefKind::kIssue) issues.insert(m.source_item);
    auto pr = store.GetPull(t);
    if (!pr.ok()) {
      if (!pr.status().IsNotFound()) return pr.status();
      continue;
    }
    std::set<Ref> pulls;
    FG_RETURN_IF_ERROR(
        AddMentionedIssues(store, pr->title + "\n" + pr->body, t.repo, &issues, &pulls));
    std::vector<Comment> comments;
    FG_RETURN_IF_ERROR(store.ListComments(t, &comments));
    for (const Comment& c : comments)
      FG_RETURN_IF_ERROR(AddMentionedIssues(store, c.body, t.repo, &issues, &pulls));
    std::vector<Commit> commits;
    FG_RETURN_IF_ERROR(store.ListCommits(t, &commits));
    for (const Commit& c : commits)
      FG_RETURN_IF_ERROR(AddMentionedIssues(store, c.message, t.repo, &issues, &pulls));
    // Backports: the issues of the PRs it re-applies.
    for (const Ref& p : pulls) FG_RETURN_IF_ERROR(AddReverse(store, p, &issues));
    if (pr->merged() && pr->merged_at) {
      UnixSeconds m = *pr->merged_at;
      FG_RETURN_IF_ERROR(AddClosedBetween(store, t.repo, m - options.close_window_s,
                                          m + options.close_window_s, &issues));
      merges[t.repo].push_back(m);
    }
  }
  // Issues whose implicit window holds a merge m: closed at x in
  // [m - after, m + before + max] and created at c with
  // c - before <= m <= c + max, i.e. some m in
  // [max(x - before - max, c - before), min(x + after, c + max)].
  const UnixSeconds before = options.window_days_before * kDay;
  const UnixSeconds after = options.window_days_after * kDay;
  const UnixSeconds most = options.window_max_days * kDay;
  for (auto& [repo, ms] : merges) {
    std::sort(ms.begin(), ms.end());
    ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
    const auto& sorted = ms;  // clang 14 cannot capture a structured binding
    auto any_in = [&sorted](UnixSeconds lo, UnixSeconds hi) {
      auto it = std::lower_bound(sorted.begin(), sorted.end(), lo);
      return it != sorted.end() && *it <= hi;
    };
    std::vector<std::pair<UnixSeconds, Ref>> closed;
    FG_RETURN_IF_ERROR(
        store.IssuesClosedBetween(repo, ms.front() - after, ms.back() + before + most, &closed));
    for (const auto& [x, ref] : closed) {
      if (issues.count(ref) || !any_in(x - before - most, x + after)) continue;
      auto is = store.GetIssue(ref);
      if (!is.ok() || !is->created_at) continue;
      UnixSeconds c = *is->created_at;
      if (any_in(std::max(x - before - most, c - before), std::min(x + after, c + most)))
        issues.insert(ref);
    }
  }
  std::vector<Ref> out;
  for (const Ref& r : issues) {
    if (r.kind != RefKind::kIssue) continue;
    auto is = store.GetIssue(r);
    if (!is.ok() && !is.status().IsNotFound()) return is.status();
    // A touched issue that is gone is kept too: its record is deleted.
    if (is.ok() || std::find(touched.begin(), touched.end(), r) != touched.end()) out.push_back(r);
  }
  return out;
}

Status Relink(Store* store, const std::vector<Ref>& touched, const LinkerOptions& options,
              LinkStats* stats, std::vector<Ref>* relinked) {
  auto start = Clock::now();
  LinkStats unused;
  if (!stats) stats = &unused;
  FG_ASSIGN_OR_RETURN(std::vector<Ref> issues, AffectedIssues(*store, touched, options));
  std::optional<BulkHeap> heap;  // outlives the run index
  std::unique_ptr<RunIndex> run;
  if (issues.size() >= kRunIndexMinIssues) {
    heap.emplace();
    FG_ASSIGN_OR_RETURN(run, RunIndex::Build(*store, nullptr, LinkThreads(options)));
    heap->Update();
  }
  auto mark = start;
  stats->load_seconds += SecondsSince(&mark);
  ReverseIndex reverse(*store);
  LinkerOptions scoped = options;
  std::map<RepoRef, RankModel> models;
  if (options.suggest && !options.suggest_model && !options.suggest_models) {
    FG_RETURN_IF_ERROR(LoadRankModels(*store, issues, &models));
    if (!models.empty()) scoped.suggest_models = &models;
  }
  FG_RETURN_IF_ERROR(LinkAndStore(store, issues, scoped, run.get(), &reverse, /*read_old=*/true,
                                  stats, heap ? &*heap : nullptr));
  FG_RETURN_IF_ERROR(WriteReverse(store, &reverse, stats));
  if (relinked) *relinked = issues;
  stats->seconds += SecondsSince(&start);
  return Status::OK();
}

std::string RankModelKey(const RepoRef& repo) { return "rank_model:" + repo.ToString(); }

StatusOr<IssueLinks> ReadLinks(const Store& store, const Ref& issue) {
  FG_ASSIGN_OR_RETURN(std::string v, store.GetDerived(kLinksKind, issue));
  IssueLinks out;
  FG_RETURN_IF_ERROR(DecodeLinks(v, &out).WithContext("links record of " + issue.ToString()));
  return out;
}

Status ForEachLinks(const Store& store, const RepoRef* repo,
                    const std::function<bool(const IssueLinks&)>& fn) {
  Status inner;
  IssueLinks links;
  FG_RETURN_IF_ERROR(
      store.ForEachDerived(kLinksKind, repo, [&](const Ref& item, const std::string& v) {
        inner = DecodeLinks(v, &links);
        if (!inner.ok()) {
          inner = inner.WithContext("links record of " + item.ToString());
          return false;
        }
        return fn(links);
      }));
  return inner;
}

}  // namespace fixgraph::graph
