// Linker: scoring, backports, pruning, resolution and flags; LinkIssue (see
// linker.h). Evidence collection is in collect.cc.
#include "fixgraph/graph/linker.h"

#include "linker_impl.h"
#include "linker_internal.h"
#include "resolve.h"
#include "signals.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace fixgraph::graph {

std::string When(const OptTime& t) {
  return t ? FormatWithOffset(*t, DisplayOffsetMinutes()) : std::string("(unknown time)");
}

const char* SourcePhrase(MentionSource s) {
  switch (s) {
    case MentionSource::kPullTitle:
      return "title";
    case MentionSource::kPullBody:
      return "description";
    case MentionSource::kPullComment:
      return "a comment";
    case MentionSource::kCommitMessage:
      return "a commit message";
    case MentionSource::kIssueText:
      return "issue text";
    case MentionSource::kIssueComment:
      return "an issue comment";
    case MentionSource::kBranchName:
      return "branch name";
  }
  return "text";
}

std::string Excerpt(std::string_view s, size_t max_bytes) {
  std::string out;
  for (char c : s) out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
  if (out.size() <= max_bytes) return out;
  return std::string(Utf8Prefix(out, max_bytes)) + "...";
}

double Weight(const Candidate& c, const Evidence& e, size_t close_competitors, int strong_s) {
  switch (e.kind) {
    case EvidenceKind::kCloseAtMerge:
      return (std::llabs(e.delta_s.value_or(99)) <= strong_s && close_competitors <= 1) ? 0.9 : 0.6;
    case EvidenceKind::kClosingKeyword:
    case EvidenceKind::kPlatformLink:
      return 0.8;
    case EvidenceKind::kExplicitUrl:
      return 0.7;
    case EvidenceKind::kExplicitRef:
      return 0.55;
    case EvidenceKind::kBranchName:
    case EvidenceKind::kCommentRef:
      return 0.6;
    case EvidenceKind::kTitleMatch:
      return c.text.strong ? 0.45 : 0.2;
    case EvidenceKind::kPatchOverlap:
      return std::min(0.5, 0.2 * c.patch.score);
    case EvidenceKind::kVerifyCommentClose:
      return 0.5;
  }
  return 0;
}

double Clamp(double v, Tier t) {
  static constexpr double kLo[] = {0.9, 0.7, 0.4, 0.1};
  static constexpr double kHi[] = {0.99, 0.89, 0.69, 0.39};
  int i = static_cast<int>(t);
  return std::min(kHi[i], std::max(kLo[i], v));
}

void Linker::Reset() {
  cands_.clear();
  df_.clear();
  weights_.Reset(0);  // no token counted: every weight 1, as a fresh TokenWeights
  notes_.clear();
  duplicate_of_.reset();
  batch_close_ = false;
  close_competitors_ = 0;
  ranked_ = false;
  order_.clear();
  probs_.clear();
}

void Linker::Release() {
  cands_.clear();
  ctx_.comments = {};
  ctx_.oplog = {};
  ctx_.platform_links = {};
  ctx_.mentioned_by = {};
  ctx_.rows_owned.reset();
  win_.storage.clear();
  pool_.entries.clear();
}

StatusOr<IssueLinks> Linker::Link(const Ref& ref) {
  Reset();
  auto linked = [&]() -> StatusOr<IssueLinks> {
    FG_RETURN_IF_ERROR(LoadIssueContext(cache_, ref, &ctx_));
    FG_RETURN_IF_ERROR(CollectMentions());
    FG_RETURN_IF_ERROR(CollectPlatformLinks());
    FG_RETURN_IF_ERROR(CollectComments());
    FG_RETURN_IF_ERROR(CollectCloseAtMerge());
    FG_RETURN_IF_ERROR(CollectWindow());
    FG_RETURN_IF_ERROR(Enrich());
    Score();
    FG_RETURN_IF_ERROR(CollectBackports());
    FG_RETURN_IF_ERROR(KeepOriginalsFixes());
    Prune();
    FG_RETURN_IF_ERROR(ConfirmImplicit());
    return Finish();
  }();
  Release();
  return linked;
}

bool Linker::AboutOtherIssue(const PullInfo& info) const {
  bool other = false;
  for (const Mention& m : info.OwnMentions()) {
    // A PR that names an issue as the reason for a skip is not about it.
    if (m.target.kind != RefKind::kIssue || m.keyword == MentionKeyword::kReason) continue;
    if (m.target == ctx_.issue.ref() || (duplicate_of_ && m.target == *duplicate_of_)) return false;
    if (m.target.repo == ctx_.issue.repo) other = true;
  }
  return other;
}

void Linker::Score() {
  const Issue& is = ctx_.issue;
  for (auto& [key, c] : cands_) {
    if (c.info && !c.info->pr.merged()) continue;        // never a fix
    if (c.info && IsRevert(c.info->pr.title)) continue;  // undoes a change, fixes nothing
    bool expl = c.Explicit();
    bool timing = c.Has(EvidenceKind::kCloseAtMerge);
    bool implicit_ev = c.text.strong || c.patch.score >= kPatchWeak;
    if (!c.info) {
      if (!expl) continue;
      c.tier = Tier::kB;
    } else if ((timing && expl) ||
               (timing && std::llabs(c.close_delta.value_or(99)) <= options_->strong_close_s &&
                close_competitors_ <= 1)) {
      c.tier = Tier::kA;
    } else if (expl) {
      c.tier = Tier::kB;
    } else if (timing && (close_competitors_ <= 1 || implicit_ev)) {
      c.tier = Tier::kC;
    } else if (timing) {
      c.tier = Tier::kD;
    } else {
      // Implicit only: title and patch in the window.
      if (!c.in_window) continue;
      const PullRequest& pr = c.info->pr;
      bool before_issue = is.created_at && pr.merged_at && *pr.merged_at < *is.created_at;
      if (before_issue && !Restates(c.text)) continue;
      if (AboutOtherIssue(*c.info)) continue;
      c.implicit_only = true;
      bool merged_while_open = is.created_at && is.closed_at && pr.merged_at &&
                               *pr.merged_at >= *is.created_at && *pr.merged_at <= *is.closed_at;
      bool opened_after = is.created_at && pr.created_at && *pr.created_at >= *is.created_at &&
                          *pr.created_at - *is.created_at <= kDay;
      if (c.text.strong || c.patch.score >= kPatchStrong ||
          (c.patch.score >= kPatchWeak && c.text.moderate)) {
        c.tier = Tier::kC;
      } else if (c.patch.score >= kPatchWeak) {
        c.tier = Tier::kD;
      } else if (c.text.moderate && opened_after) {
        c.tier = Tier::kD;
        c.Add(EvidenceKind::kTitleMatch,
              Short(c.ref) + " was opened " +
                  std::to_string((*pr.created_at - *is.created_at) / 60) +
                  " min after the issue and its title shares the issue's words");
      } else if (c.text.described && merged_while_open) {
        c.tier = Tier::kD;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f%%", 100 * c.text.pr_in_issue);
        c.Add(EvidenceKind::kTitleMatch,
              Short(c.ref) + " merged while the issue was open and " + buf +
                  " of its title and description words are in the issue");
      } else {
        continue;
      }
    }
    c.keep = true;
    double miss = 1;
    for (const Evidence& e : c.evidence)
      miss *= 1 - Weight(c, e, close_competitors_, options_->strong_close_s);
    c.confidence = Clamp(1 - miss, c.tier);
  }
}

bool Linker::IsBackportOf(const PullInfo& p, const PullInfo& f) const {
  if (!p.pr.merged() || p.pr.base_ref == f.pr.base_ref) return false;
  if (p.pr.number == f.pr.number && p.pr.repo == f.pr.repo) return false;  // the same PR
  const std::string& def = ctx_.default_branch;
  return p.release_base /* IsReleaseBranch(base_ref) */ || (!def.empty() && p.pr.base_ref != def);
}

Status Linker::AddBackport(const Ref& ref, const Candidate& fix) {
  FG_ASSIGN_OR_RETURN(Candidate * c, Cand(ref));
  if (!c->merged() || !c->backport_of.empty()) return Status::OK();
  FG_RETURN_IF_ERROR(cache_->LoadFiles(c->info.get()));
  if (!c->compared) {
    c->text = CompareText(ctx_, *c->info, &weights_);
    c->patch = ComparePatch(ctx_, *c->info, df_);
    c->compared = true;
  }
  c->backport_of = fix.key;
  bool own_explicit = c->keep && c->Explicit();
  std::vector<std::string> same;
  for (const std::string& f : c->info->files)
    if (std::find(fix.info->files.begin(), fix.info->files.end(), f) != fix.info->files.end())
      same.emplace_back(text::Basename(f));
  if (!c->Has(EvidenceKind::kPatchOverlap) && (c->patch.score >= kPatchWeak || !same.empty())) {
    std::string detail =
        Short(ref) + " re-applies " + Short(fix.ref) + " to " + c->info->pr.base_ref;
    if (!same.empty()) detail += " (same files: " + Excerpt(same.front(), 80) + ")";
    c->Add(EvidenceKind::kPatchOverlap, detail);
  }
  if (!own_explicit) c->tier = std::max(fix.tier, Tier::kC);
  c->keep = true;
  double miss = 1;
  for (const Evidence& e : c->evidence)
    miss *= 1 - Weight(*c, e, close_competitors_, options_->strong_close_s);
  c->confidence = Clamp(1 - miss, c->tier);
  return Status::OK();
}

Status Linker::CollectBackports() {
  std::vector<std::string> fixes;
  for (auto& [key, c] : cands_)
    if (c.keep && c.merged() && !IsReleaseBranch(c.info->pr.base_ref)) fixes.push_back(key);
  for (const std::string& key : fixes) {
    Candidate fix = cands_.at(key);  // copy: Cand() may rehash the map
    std::vector<MentionRecord> refs;
    FG_RETURN_IF_ERROR(cache_->MentionsOf(fix.ref, &refs));
    std::vector<Ref> found;
    for (const MentionRecord& m : refs) {
      if (m.source_item.kind != RefKind::kPull) continue;
      FG_ASSIGN_OR_RETURN(auto info, cache_->Get(m.source_item));
      if (info && IsBackportOf(*info, *fix.info)) found.push_back(m.source_item);
    }
    // Same title into a release branch, without a reference.
    std::vector<RunIndex::Timed> storage;
    std::span<const RunIndex::Timed> near;
    UnixSeconds m = *fix.info->pr.merged_at;
    FG_RETURN_IF_ERROR(
        cache_->MergedRows(fix.ref.repo, m - 7 * kDay, m + 30 * kDay, &storage, &near));
    if (near.size() <= options_->max_window_candidates) {
      for (const RunIndex::Timed& row : near) {
        const std::shared_ptr<PullInfo>& info = row.info;
        if (info && IsBackportOf(*info, *fix.info) &&
            text::Dice(info->title_tokens, fix.info->title_tokens) >= 0.8)
          found.push_back(info->pr.ref());
      }
    }
    for (const Ref& ref : found) FG_RETURN_IF_ERROR(AddBackport(ref, fix));
  }
  // Then a release-branch PR that names the issue itself, merged after a
  // main-line fix that names it too (both say they fix it), when nothing
  // above made it a backport already.
  for (const std::string& key : fixes) {
    const Candidate& fix = cands_.at(key);
    if (!fix.Explicit() || !fix.backport_of.empty()) continue;
    std::vector<Ref> found;
    for (const auto& [other_key, o] : cands_)
      if (o.keep && o.merged() && o.Explicit() && o.backport_of.empty() &&
          *o.info->pr.merged_at >= *fix.info->pr.merged_at && IsBackportOf(*o.info, *fix.info))
        found.push_back(o.ref);
    Candidate copy = fix;  // Cand() may rehash the map
    for (const Ref& ref : found) FG_RETURN_IF_ERROR(AddBackport(ref, copy));
  }
  return Status::OK();
}

Status Linker::KeepOriginalsFixes() {
  if (!duplicate_of_ || nested_) return Status::OK();
  bool any = false;
  for (auto& [key, c] : cands_) any = any || (c.keep && !c.Explicit());
  if (!any) return Status::OK();
  Linker original(*store_, *options_, cache_);
  original.nested_ = true;
  auto links = original.Link(*duplicate_of_);
  std::set<std::string> fixes;
  if (links.ok()) {
    for (const FixLink& f : links->fixes) fixes.insert(f.pr);
  } else if (!links.status().IsNotFound()) {
    return links.status();
  }
  for (auto& [key, c] : cands_)
    if (c.keep && !c.Explicit() && !fixes.count(key)) c.keep = false;
  return Status::OK();
}

void Linker::Prune() {
  bool explicit_fix = false, timed_explicit = false;
  for (auto& [key, c] : cands_) {
    if (c.keep && c.backport_of.empty() && c.tier <= Tier::kB) explicit_fix = true;
    if (c.keep && c.Explicit() && c.Has(EvidenceKind::kCloseAtMerge)) timed_explicit = true;
  }
  // A merge that names the issue explains its close: another merge in the
  // same seconds with nothing but that timing is a coincidence.
  if (timed_explicit) {
    for (auto& [key, c] : cands_)
      if (c.keep && c.backport_of.empty() && c.evidence.size() == 1 &&
          c.Has(EvidenceKind::kCloseAtMerge))
        c.keep = false;
  }
  std::vector<Candidate*> implicit;
  for (auto& [key, c] : cands_) {
    if (!c.keep || !c.implicit_only || !c.backport_of.empty()) continue;
    if (explicit_fix) {
      c.keep = false;
    } else {
      implicit.push_back(&c);
    }
  }
  // At most four implicit links, best first.
  std::stable_sort(implicit.begin(), implicit.end(), [](const Candidate* a, const Candidate* b) {
    if (a->tier != b->tier) return a->tier < b->tier;
    return a->patch.score + (a->text.strong ? 2 : 0) > b->patch.score + (b->text.strong ? 2 : 0);
  });
  for (size_t i = 4; i < implicit.size(); ++i) implicit[i]->keep = false;
  DropOrphanBackports();
}

void Linker::DropOrphanBackports() {
  for (auto& [key, c] : cands_) {
    if (!c.keep || c.backport_of.empty()) continue;
    auto it = cands_.find(c.backport_of);
    if (it != cands_.end() && !it->second.keep && !c.Explicit()) c.keep = false;
  }
}

StatusOr<IssueLinks> Linker::Finish() {
  const Issue& is = ctx_.issue;
  IssueLinks out;
  out.issue = is.ref();
  out.state = is.state;
  out.created_at = is.created_at;
  out.closed_at = is.state == IssueState::kClosed ? is.closed_at : std::nullopt;
  for (auto& [key, c] : cands_) {
    if (c.info && !c.info->pr.merged()) {
      bool closed_pr = c.info->pr.state == PullState::kClosed;
      if (c.referenced && (is.state == IssueState::kClosed || closed_pr))
        out.false_leads.push_back(key);
      continue;
    }
    if (!c.keep) continue;
    FixLink f;
    f.pr = key;
    f.tier = c.tier;
    f.confidence = c.confidence;
    f.evidence = std::move(c.evidence);  // the candidates are not read after this loop
    f.in_store = c.info != nullptr;
    f.backport_of = std::move(c.backport_of);
    f.mirror_host = c.mirror;
    if (c.info) {
      const PullRequest& pr = c.info->pr;
      f.merged_at = pr.merged_at;
      f.created_at = pr.created_at;
      f.state = PullStateName(pr.merged() ? PullState::kMerged : pr.state);
      f.base_ref = pr.base_ref;
      f.title = pr.title;
    } else {
      f.state = "unknown";
    }
    out.fixes.push_back(std::move(f));
  }
  std::sort(out.fixes.begin(), out.fixes.end(), [](const FixLink& a, const FixLink& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    if (a.backport_of.empty() != b.backport_of.empty()) return a.backport_of.empty();
    if (a.merged_at.has_value() != b.merged_at.has_value()) return a.merged_at.has_value();
    if (a.merged_at != b.merged_at) return *a.merged_at < *b.merged_at;
    return a.pr < b.pr;
  });
  std::sort(out.false_leads.begin(), out.false_leads.end());
  if (auto e = VerifyCommentClose(ctx_, options_->verify_window_s)) out.evidence.push_back(*e);
  out.notes = std::move(notes_);

  ResolveFacts facts;
  facts.batch_close = batch_close_;
  facts.duplicate_of = duplicate_of_;
  for (const std::string& l : ctx_.labels)
    if (signals::IsDuplicateLabel(l)) facts.duplicate_label = true;
  facts.participant_change = [this] { return ParticipantChange(); };
  Resolve(ctx_, facts, &out);
  out.duplicate_of = duplicate_of_;
  if (out.resolution != Resolution::kDuplicate) out.duplicate_of.reset();
  ComputeFlags(ctx_, *options_, &out);
  // A closed issue left without a trusted link gets the ranking's
  // suggestions (PRs already linked at tier D are not repeated).
  bool trusted =
      std::any_of(out.fixes.begin(), out.fixes.end(), [](const FixLink& f) { return f.Trusted(); });
  bool eligible = is.state == IssueState::kClosed && !trusted &&
                  (out.resolution == Resolution::kFixed || out.resolution == Resolution::kUnknown);
  if (eligible && options_->suggest && !nested_) {
    FG_RETURN_IF_ERROR(Rank());
    out.suggested = Suggestions();
    std::erase_if(out.suggested, [&](const FixLink& s) { return out.FindFix(s.pr) != nullptr; });
  }
  return out;
}

Status Linker::Rank() {
  if (ranked_) return Status::OK();
  ranked_ = true;
  RankPoolOptions po;
  FG_RETURN_IF_ERROR(BuildRankPool(ctx_, cache_, po, &pool_));
  const RankModel* model = options_->suggest_model;
  if (!model && options_->suggest_models) {
    auto it = options_->suggest_models->find(ctx_.issue.repo);
    if (it != options_->suggest_models->end()) model = &it->second;
  }
  if (!model) model = &BuiltinRankModel();
  std::vector<double> scores(pool_.entries.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = model->Score(pool_.entries[i].x);
  probs_ = model->Probabilities(scores);
  order_.resize(scores.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  // Ties: the later merge first (pool entries are in merge order).
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
    return scores[a] != scores[b] ? scores[a] > scores[b] : a > b;
  });
  return Status::OK();
}

Status Linker::ConfirmImplicit() {
  const Issue& is = ctx_.issue;
  if (!options_->suggest || nested_ || is.state != IssueState::kClosed) return Status::OK();
  std::vector<Candidate*> implicit;
  for (auto& [key, c] : cands_) {
    if (!c.keep || c.tier > Tier::kC || !c.backport_of.empty()) continue;
    if (!c.implicit_only || !c.info || c.info->pr.repo != is.repo)
      return Status::OK();  // explained otherwise
    implicit.push_back(&c);
  }
  if (implicit.empty()) return Status::OK();
  FG_RETURN_IF_ERROR(Rank());
  if (order_.empty()) return Status::OK();
  const PoolEntry& top = pool_.entries[order_.front()];
  // Only a confident ranking overrules the match: another PR at least even
  // odds, and the matched PR itself unlikely.
  if (probs_[order_.front()] < 0.5) return Status::OK();
  for (Candidate* c : implicit) {
    if (c->key == top.info->key) return Status::OK();
    for (size_t i = 0; i < pool_.entries.size(); ++i)
      if (pool_.entries[i].info->key == c->key && probs_[i] >= 0.1) return Status::OK();
  }
  for (Candidate* c : implicit) {
    c->keep = false;
    notes_.push_back(Short(c->ref) +
                     "'s title/patch match is not confirmed: the ranking of the PRs merged around "
                     "the issue puts " +
                     Short(top.info->pr.ref()) + " first");
  }
  DropOrphanBackports();
  return Status::OK();
}

namespace {

std::string Duration(double seconds) {
  double s = std::abs(seconds);
  char buf[48];
  if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  } else if (s < 2 * 86400) {
    std::snprintf(buf, sizeof buf, "%.0f h", s / 3600);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
  }
  return buf;
}

}  // namespace

std::vector<FixLink> Linker::Suggestions() {
  std::vector<FixLink> out;
  const size_t pool = pool_.pool_size;
  for (size_t r = 0; r < order_.size() && out.size() < options_->suggest_max; ++r) {
    const PoolEntry& e = pool_.entries[order_[r]];
    double p = probs_[order_[r]];
    if (p < options_->suggest_min_confidence) break;
    const PullRequest& pr = e.info->pr;
    FixLink f;
    f.pr = e.info->key;
    f.tier = Tier::kD;
    f.confidence = p;
    f.in_store = true;
    f.merged_at = pr.merged_at;
    f.created_at = pr.created_at;
    f.state = PullStateName(PullState::kMerged);
    f.base_ref = pr.base_ref;
    f.title = pr.title;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "ranked %zu of %zu PRs merged around the issue (probability %.2f); text score "
                  "%.0f%% of the best",
                  r + 1, pool, p, 100 * e.x[static_cast<size_t>(RankFeature::kText)]);
    std::string detail = buf;
    if (e.lag_known)
      detail += e.lag_s >= 0 ? "; merged " + Duration(e.lag_s) + " before the close"
                             : "; merged " + Duration(e.lag_s) + " after the close";
    if (!e.label.empty()) detail += "; shares the issue's label " + e.label;
    if (e.version == pr.base_ref) {
      detail += "; merged into " + pr.base_ref + ", a branch linked to the issue";
    } else if (!e.version.empty()) {
      detail += "; merged into " + pr.base_ref + ", the release line of " + e.version +
                ", which the issue names";
    }
    f.evidence.push_back({EvidenceKind::kTitleMatch, std::move(detail), std::nullopt});
    if (!e.patch.matched.empty()) {
      std::string what;
      for (size_t i = 0; i < e.patch.matched.size() && i < 3; ++i)
        what += (i ? ", " : "") + e.patch.matched[i];
      f.evidence.push_back(
          {EvidenceKind::kPatchOverlap,
           Short(pr.ref()) + " changes what the issue names: " + Excerpt(what, 200), std::nullopt});
    }
    out.push_back(std::move(f));
  }
  return out;
}

bool Linker::ParticipantChange() {
  const Issue& is = ctx_.issue;
  if (!is.created_at || !is.closed_at) return false;
  std::vector<RunIndex::Timed> storage;
  std::span<const RunIndex::Timed> merged;
  if (!cache_->MergedRows(is.repo, *is.created_at, *is.closed_at, &storage, &merged).ok())
    return false;
  if (merged.size() > options_->max_window_candidates)
    merged = merged.first(options_->max_window_candidates);
  for (const RunIndex::Timed& row : merged)
    if (row.info && std::binary_search(ctx_.participants.begin(), ctx_.participants.end(),
                                       row.info->pr.author.login))
      return true;
  return false;
}

LinkWorker::LinkWorker(const Store& store, size_t cache_capacity, const RunIndex* run)
    : store_(&store), cache_(store, cache_capacity, run) {}

LinkWorker::~LinkWorker() = default;

StatusOr<IssueLinks> LinkWorker::Link(const Ref& issue, const LinkerOptions& options) {
  if (issue.kind != RefKind::kIssue)
    return Status::InvalidArgument("not an issue reference: " + issue.ToString());
  if (!linker_) {
    linker_ = std::make_unique<Linker>(*store_, options, &cache_);
  } else {
    linker_->Rebind(*store_, options, &cache_);  // the options may differ from the last call's
  }
  return linker_->Link(issue);
}

StatusOr<IssueLinks> LinkIssue(const Store& store, const Ref& issue, const LinkerOptions& options) {
  LinkWorker worker(store, 4096);
  return worker.Link(issue, options);
}

}  // namespace fixgraph::graph
