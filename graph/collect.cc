// Linker: evidence collection for one issue (mentions, platform links,
// comments, close times, the implicit window). See linker_impl.h.
#include "linker_impl.h"
#include "signals.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace fixgraph::graph {

Status Linker::CollectMentions() {
  const Issue& is = ctx_.issue;
  for (const MentionRecord& m : ctx_.mentioned_by) {
    if (m.source_item.kind != RefKind::kPull) continue;
    std::string who = Short(m.source_item) + "'s " + SourcePhrase(m.source);
    if (m.source == MentionSource::kCommitMessage && !m.source_id.empty())
      who = "commit " + m.source_id.substr(0, 7) + " of " + Short(m.source_item);
    if (m.source == MentionSource::kPullComment)
      who = "comment " + m.source_id + " on " + Short(m.source_item);
    if (m.keyword == MentionKeyword::kReason) {
      // "Skip test_x due to (issue URL)": the PR works around the issue,
      // it does not say it fixes it (engine/mentions.h).
      notes_.push_back(who + " names the issue as the reason it skips or turns off something (" +
                       m.text + "): not taken as a fix");
      continue;
    }
    FG_ASSIGN_OR_RETURN(Candidate * c, Cand(m.source_item));
    c->referenced = true;
    bool pr_text = m.source == MentionSource::kPullTitle || m.source == MentionSource::kPullBody ||
                   m.source == MentionSource::kCommitMessage;
    if (m.form == MentionForm::kUrl) {
      c->Add(EvidenceKind::kExplicitUrl, who + " carries the issue URL" +
                                             (m.mirror_host ? " (on the mirror host)" : "") + ": " +
                                             m.text);
    }
    if (m.keyword == MentionKeyword::kClosing && pr_text) {
      bool into_default = true;
      if (is.repo.platform == Platform::kGitHub && c->info) {
        std::string def = cache_->DefaultBranch(c->info->pr.repo);
        into_default = def.empty() || c->info->pr.base_ref == def;
      }
      if (into_default) {
        c->Add(EvidenceKind::kClosingKeyword, who + " says it closes " + m.text);
      } else {
        c->Add(EvidenceKind::kExplicitRef, who + " names " + m.text +
                                               " with a closing keyword, but targets " +
                                               c->info->pr.base_ref + ", not the default branch");
      }
    } else if (m.form != MentionForm::kUrl) {
      c->Add(EvidenceKind::kExplicitRef, who + " references " + m.text);
    }
  }
  return Status::OK();
}

Status Linker::CollectPlatformLinks() {
  for (const PlatformLink& l : ctx_.platform_links) {
    FG_ASSIGN_OR_RETURN(Candidate * c, Cand(l.pull));
    c->referenced = true;
    c->Add(EvidenceKind::kPlatformLink,
           "the platform links " + Short(l.pull) + " to the issue (" + l.source + ")");
  }
  return Status::OK();
}

StatusOr<std::optional<Ref>> Linker::AsPull(const Ref& target) {
  if (target.kind == RefKind::kPull) return std::optional<Ref>(target);
  if (target.kind != RefKind::kIssue || target.number.empty() ||
      !std::all_of(target.number.begin(), target.number.end(),
                   [](unsigned char ch) { return std::isdigit(ch); }))
    return std::optional<Ref>();
  Status issue = cache_->IssueExists(target);
  if (issue.ok()) return std::optional<Ref>();
  if (!issue.IsNotFound()) return issue;
  Ref pull = Ref::Pull(target.repo, std::strtoll(target.number.c_str(), nullptr, 10));
  FG_ASSIGN_OR_RETURN(auto info, cache_->Get(pull));
  if (!info) return std::optional<Ref>();
  return std::optional<Ref>(pull);
}

Status Linker::CollectComments() {
  const Issue& is = ctx_.issue;
  for (size_t ci = 0; ci < ctx_.comments.size(); ++ci) {
    if (ctx_.BotComment(ci)) continue;
    const Comment& cm = ctx_.comments[ci];
    const std::string body = text::ForMentions(cm.body);
    for (const Mention& m : FindMentions(body, is.repo)) {
      if (m.target == is.ref()) continue;
      if (m.target.kind == RefKind::kIssue &&
          signals::SaysDuplicateOf(body, m.offset, m.text.size())) {
        if (!duplicate_of_) {
          if (cache_->IssueExists(m.target).ok() || m.target.repo != is.repo)
            duplicate_of_ = m.target;
        }
        continue;
      }
      FG_ASSIGN_OR_RETURN(std::optional<Ref> pull, AsPull(m.target));
      if (!pull) continue;
      // The mention's clause, found once for its role and its evidence.
      const text::Clause cl = text::ClauseAt(body, m.offset);
      signals::PullRole role =
          signals::ClassifyPullMention(body, m.offset, m.text.size(), cl.begin, cl.end);
      if (role == signals::PullRole::kIntroduced) {
        notes_.push_back(Short(*pull) + " is named in comment " + cm.id +
                         " as the change that introduced the problem");
        continue;
      }
      FG_ASSIGN_OR_RETURN(auto info, cache_->Get(*pull));
      if (info && !info->pr.merged()) {
        FG_ASSIGN_OR_RETURN(Candidate * c, Cand(*pull));
        c->referenced = true;
        continue;
      }
      if (role == signals::PullRole::kReferenceOnly) continue;
      FG_ASSIGN_OR_RETURN(Candidate * c, Cand(*pull));
      c->referenced = true;
      if (m.mirror_host) c->mirror = true;
      c->Add(EvidenceKind::kCommentRef,
             "comment " + cm.id + " by " + cm.author.login + " (" + When(cm.created_at) + "): \"" +
                 Excerpt(std::string_view(body).substr(cl.begin, cl.end - cl.begin), 160) + "\"");
    }
  }
  return Status::OK();
}

Status Linker::CollectCloseAtMerge() {
  const Issue& is = ctx_.issue;
  if (is.state != IssueState::kClosed || !is.closed_at) return Status::OK();
  UnixSeconds x = *is.closed_at;
  std::vector<std::pair<UnixSeconds, Ref>> closed;
  FG_RETURN_IF_ERROR(cache_->IssuesClosedBetween(is.repo, x - options_->batch_window_s,
                                                 x + options_->batch_window_s, &closed));
  std::vector<std::pair<UnixSeconds, Ref>> merged;
  FG_RETURN_IF_ERROR(cache_->PullsMergedBetween(is.repo, x - options_->close_window_s,
                                                x + options_->close_window_s, &merged));
  if (static_cast<int>(closed.size()) >= options_->batch_close_min) {
    batch_close_ = true;
    // A merge that names the issue is the exception: the platform closes
    // every issue a merged PR names in its merge second, a batch by count.
    std::vector<std::pair<UnixSeconds, Ref>> named;
    for (const auto& row : merged) {
      auto it = cands_.find(row.second.ToString());
      if (it != cands_.end() && it->second.Explicit()) named.push_back(row);
    }
    notes_.push_back("batch close: " + std::to_string(closed.size()) + " issues closed within " +
                     std::to_string(options_->batch_window_s) + " s of " + When(x) +
                     (named.empty() ? "; a merge in that second is not evidence"
                                    : "; only a merge that names the issue is evidence"));
    if (named.empty()) return Status::OK();
    merged = std::move(named);
  }
  close_competitors_ = merged.size();
  for (const auto& [t, ref] : merged) {
    FG_ASSIGN_OR_RETURN(Candidate * c, Cand(ref));
    std::int64_t delta = x - t;
    c->close_delta = delta;
    std::string rel = delta == 0  ? "in the same second"
                      : delta > 0 ? std::to_string(delta) + " s later"
                                  : std::to_string(-delta) + " s earlier";
    std::string detail = Short(ref) + " merged " + When(t) + "; the issue closed " + rel;
    if (merged.size() > 1)
      detail += " (" + std::to_string(merged.size()) + " PRs merged in that window)";
    c->Add(EvidenceKind::kCloseAtMerge, detail, delta);
  }
  return Status::OK();
}

void NearestRows(std::span<const UnixSeconds> times, UnixSeconds close, size_t max,
                 std::vector<std::uint32_t>* merged) {
  merged->clear();
  const size_t n = times.size();
  if (n <= max) {
    merged->resize(n);
    for (size_t i = 0; i < n; ++i) (*merged)[i] = static_cast<std::uint32_t>(i);
    return;
  }
  size_t right = std::lower_bound(times.begin(), times.end(), close) - times.begin();
  size_t left = right;  // rows [left, right) are taken or passed
  merged->reserve(max + 1);
  while (merged->size() < max && (left > 0 || right < n)) {
    bool take_left = left > 0 && (right == n || close - times[left - 1] <= times[right] - close);
    if (take_left) {
      size_t g = left - 1;
      const UnixSeconds t = times[g];
      while (g > 0 && times[g - 1] == t) --g;
      for (size_t i = g; i < left; ++i) merged->push_back(static_cast<std::uint32_t>(i));
      left = g;
    } else {
      size_t e = right;
      const UnixSeconds t = times[right];
      while (e < n && times[e] == t) ++e;
      for (size_t i = right; i < e; ++i) merged->push_back(static_cast<std::uint32_t>(i));
      right = e;
    }
  }
  if (merged->size() > max) merged->resize(max);
}

// Which identifiers of the issue each examined row's PR may touch (shares one
// of the identifier's keys with): what text::Intersects tells per row and
// identifier in MatchIdentifiers, from the run index's postings. `slot` maps
// a row position - lo to its index among the `n_slots` examined rows (-1:
// not examined). Fills ws->hit_start (per slot, offsets into ws->hit_ids,
// n_slots + 1 of them) and ws->hit_ids (each slot's identifiers ascending,
// no repeats).
void Linker::IdentifierHitsBySlot(const std::vector<text::TokenSet>& ident_key_lists,
                                  const RunIndex::KeyPostings& postings,
                                  const std::vector<std::int32_t>& slot, std::uint32_t lo,
                                  std::uint32_t hi, size_t n_slots, WindowScratch* ws) {
  // (slot, identifier) pairs come by ascending identifier, the pairs of one
  // identifier together: placed by slot in that order (a counting sort),
  // each slot's identifiers ascend, repeats side by side.
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& hits = ws->hits;  // (slot, identifier)
  hits.clear();
  for (size_t id = 0; id < ident_key_lists.size(); ++id)
    for (std::uint64_t key : ident_key_lists[id])
      for (std::uint32_t pos : postings.Rows(key, lo, hi))
        if (slot[pos - lo] >= 0)
          hits.emplace_back(static_cast<std::uint32_t>(slot[pos - lo]),
                            static_cast<std::uint32_t>(id));
  std::vector<std::uint32_t>& fill = ws->fill;
  fill.assign(n_slots + 1, 0);
  for (const auto& h : hits) ++fill[h.first + 1];
  for (size_t i = 0; i < n_slots; ++i) fill[i + 1] += fill[i];
  std::vector<std::uint32_t>& placed = ws->placed;
  placed.resize(hits.size());
  std::vector<std::uint32_t>& next = ws->next;
  next.assign(fill.begin(), fill.end() - 1);
  for (const auto& h : hits) placed[next[h.first]++] = h.second;
  std::vector<std::uint32_t>& hit_start = ws->hit_start;
  std::vector<std::uint32_t>& hit_ids = ws->hit_ids;
  hit_start.assign(n_slots + 1, 0);
  hit_ids.clear();
  hit_ids.reserve(hits.size());
  for (size_t i = 0; i < n_slots; ++i) {
    for (std::uint32_t k = fill[i]; k < fill[i + 1]; ++k)
      if (k == fill[i] || placed[k] != placed[k - 1]) hit_ids.push_back(placed[k]);
    hit_start[i + 1] = static_cast<std::uint32_t>(hit_ids.size());
  }
}

// One issue's pass over its window of merged PRs: the rows and how each is
// read, the run index's postings, and what the row comparison reads of the
// issue. Not copyable: wrows may point at local_rows.
struct Linker::WindowPass {
  explicit WindowPass(const IssueContext& ctx)
      : number(IssueNumberKey::Of(ctx.issue.number)), text_bits(ctx.text_tokens) {}
  WindowPass(const WindowPass&) = delete;
  WindowPass& operator=(const WindowPass&) = delete;

  const RunIndex::WindowRows::Row& row_at(std::uint32_t i) const { return wrows->row(wbase + i); }
  // Whether the rows are the run index's (a candidate's PullInfo is then its row's).
  bool by_pointer() const { return wrows != &local_rows; }

  std::span<const RunIndex::Timed> rows;
  // What the loop reads of each row, flat (the run index keeps it; rows read
  // from the store get it in local_rows): row rows[i] is wrows->row(wbase + i),
  // its merge time times[i]. The rows are named by their index in `rows`, so
  // that the wide Timed rows are read only where a PullInfo must be loaded.
  const RunIndex::WindowRows* wrows = nullptr;
  RunIndex::WindowRows local_rows;
  size_t wbase = 0;
  std::span<const UnixSeconds> times;
  // With a run index, the window works from its postings (rows by key)
  // rather than walking every row's key lists; without one (rows read from
  // the store) every row is compared in full. Both give the same answers.
  const RunIndex::KeyPostings* postings = nullptr;
  const RunIndex::KeyPostings* text_postings = nullptr;
  std::uint32_t lo = 0, hi = 0;  // the examined rows' positions span [lo, hi)
  // The issue's side of the row comparison.
  IssueNumberKey number;
  std::uint64_t number_bit = 0;
  bool has_title_words = false;
  std::uint32_t default_base = RunIndex::WindowRows::kNoBase;
  double issue_title = 0;  // IssueTitleWeight, once the titles are weighed
  TokenBits text_bits;     // of ctx_.text_tokens
};

Status Linker::CollectWindow() {
  const Issue& is = ctx_.issue;
  if (is.state != IssueState::kClosed || !is.closed_at || !is.created_at) return Status::OK();
  UnixSeconds from = *is.created_at - options_->window_days_before * kDay;
  UnixSeconds to = std::min(*is.closed_at + options_->window_days_after * kDay,
                            *is.created_at + options_->window_max_days * kDay);
  if (to < from) return Status::OK();
  WindowPass w(ctx_);
  FG_RETURN_IF_ERROR(ReadWindowRows(from, to, &w));
  WindowScratch& ws = win_;
  // The rows examined (NearestRows), as indexes into w.rows.
  NearestRows(w.times, *is.closed_at, options_->max_window_candidates, &ws.merged);
  w.postings = cache_->MatchKeyPostings(is.repo);
  w.text_postings = cache_->TextPostings(is.repo);
  SlotExaminedRows(&w);
  // Which identifiers of the issue each row's PR may touch (IdentifierHitsBySlot).
  ws.hit_start.clear();
  ws.hit_ids.clear();
  if (w.postings && !ws.merged.empty())
    IdentifierHitsBySlot(ctx_.ident_key_lists, *w.postings, ws.slot, w.lo, w.hi, ws.merged.size(),
                         &ws);
  WeighWindowTitles(w);
  w.issue_title = IssueTitleWeight(ctx_, &weights_);
  CoverIssueTitle(w);
  // The rows compared, in window order, with their identifier weights (one
  // flat list) and whether their text match sets a flag. A row's text match
  // and patch score only reach the issue through a candidate: the row becomes
  // one when they are promising or when it already is one; otherwise its only
  // effect is on df_ (the identifiers it touches), taken from the weights. So
  // the reasons (ScorePatch's strings), the patch-words coverage and the
  // titles' identifier conflict are computed only when they can change the
  // answer, and the full comparison only for the rows that become candidates.
  ws.compared.clear();
  ws.id_weights.clear();
  w.number_bit = w.number.value.empty() ? 0 : w.number.bit;
  w.has_title_words = !ctx_.title_tokens.empty();
  w.default_base = ctx_.default_branch.empty() ? RunIndex::WindowRows::kNoBase
                                               : w.wrows->BaseOf(ctx_.default_branch);
  for (size_t slot_i = 0; slot_i < ws.merged.size(); ++slot_i)
    FG_RETURN_IF_ERROR(CompareWindowRow(w, slot_i));
  return PromoteCompared(w);
}

Status Linker::ReadWindowRows(UnixSeconds from, UnixSeconds to, WindowPass* w) {
  const Issue& is = ctx_.issue;
  win_.storage.clear();
  FG_RETURN_IF_ERROR(cache_->MergedRows(is.repo, from, to, &win_.storage, &w->rows));
  w->wrows = cache_->WindowRowsOf(is.repo);
  if (w->wrows && !w->rows.empty()) {
    w->wbase = w->rows.front().pos;
  } else {
    w->local_rows = RunIndex::WindowRows::Of(w->rows);
    w->wrows = &w->local_rows;
  }
  w->times = w->wrows->Times().subspan(w->wbase, w->rows.size());
  return Status::OK();
}

void Linker::SlotExaminedRows(WindowPass* w) {
  const std::vector<std::uint32_t>& merged = win_.merged;
  std::vector<std::int32_t>& slot = win_.slot;  // by position - lo: index in merged, or -1
  slot.clear();
  w->lo = w->hi = 0;
  if ((!w->postings && !w->text_postings) || merged.empty()) return;
  // Postings come with run index rows, a contiguous piece of their
  // repository's rows: rows[i].pos is rows.front().pos + i.
  const std::uint32_t pos0 = w->rows.front().pos;
  std::uint32_t lo = merged.front(), hi = merged.front();
  for (std::uint32_t i : merged) {
    lo = std::min(lo, i);
    hi = std::max(hi, i);
  }
  ++hi;
  slot.assign(hi - lo, -1);
  for (size_t i = 0; i < merged.size(); ++i) slot[merged[i] - lo] = static_cast<std::int32_t>(i);
  w->lo = lo + pos0;
  w->hi = hi + pos0;
}

void Linker::WeighWindowTitles(const WindowPass& w) {
  WindowScratch& ws = win_;
  const std::vector<std::uint32_t>& merged = ws.merged;
  // The title word weights over every window PR's title; each title token
  // keeps its slot, where its weight and issue marks are then read without
  // hashing it again.
  std::vector<std::uint32_t>& title_slots =
      ws.title_slots;  // the window rows' title tokens' slots, row after row
  std::vector<std::uint32_t>& slots_start = ws.slots_start;
  title_slots.clear();
  slots_start.assign(merged.size() + 1, 0);
  size_t n = 0;
  for (std::uint32_t i : merged) n += w.row_at(i).title_n;
  weights_.Reset(n);
  title_slots.resize(n);  // written in place: no capacity check per token
  std::uint32_t* out = title_slots.data();
  size_t at = 0;
  for (size_t i = 0; i < merged.size(); ++i) {
    const RunIndex::WindowRows::Row& row = w.row_at(merged[i]);
    if (row.info) at += weights_.Add(w.wrows->Title(row), out + at);
    slots_start[i + 1] = static_cast<std::uint32_t>(at);
  }
  title_slots.resize(at);
  // Per slot: the issue's marks of its token (ctx_.marks.Of), set from the
  // issue's side: only the issue's own tokens have marks, and they are far
  // fewer than the window titles' tokens.
  std::vector<std::uint8_t>& slot_marks = ws.slot_marks;
  slot_marks.assign(weights_.Slots(), 0);
  for (std::uint64_t tok : ctx_.title_tokens)
    if (std::int64_t s = weights_.SlotOf(tok); s >= 0)
      slot_marks[static_cast<size_t>(s)] |= IssueContext::kTitleMark;
  for (std::uint64_t tok : ctx_.text_tokens)
    if (std::int64_t s = weights_.SlotOf(tok); s >= 0)
      slot_marks[static_cast<size_t>(s)] |= IssueContext::kTextMark;
}

void Linker::CoverIssueTitle(const WindowPass& w) {
  // CompareText's walk over each PR's text tokens, done from the issue's
  // side for the issue title's tokens: every one, ascending, adds its weight
  // to the rows holding it (so each row's sum adds in the same order as the
  // walk). The PR tokens in the issue text are counted by TextVerdictOf, for
  // the few rows where they decide `described`.
  std::vector<double>& covered = win_.covered;  // per merged[] slot
  const std::vector<std::int32_t>& slot = win_.slot;
  covered.clear();
  if (!w.text_postings || win_.merged.empty()) return;
  covered.assign(win_.merged.size(), 0.0);
  for (std::uint64_t tok : ctx_.title_tokens) {
    double wt = weights_.Of(tok);
    for (std::uint32_t pos : w.text_postings->Rows(tok, w.lo, w.hi))
      if (slot[pos - w.lo] >= 0) covered[static_cast<size_t>(slot[pos - w.lo])] += wt;
  }
}

Status Linker::BranchEvidence(const WindowPass& w, const PullInfo& info,
                              const RunIndex::WindowRows::Row& row) {
  const Issue& is = ctx_.issue;
  // A branch named after the issue before the issue existed is a coincidence.
  bool branch_time_ok = !row.has_created || row.created_at + 3600 >= *is.created_at;
  // The key bits first (BranchNamesIssue's own quick "not there").
  if (branch_time_ok && ((w.number.numeric ? row.numeric_bits : row.words_bits) & w.number_bit) &&
      BranchNamesIssue(info.branch_keys, w.number)) {
    Ref ref = info.pr.ref();
    FG_ASSIGN_OR_RETURN(Candidate * c, Cand(ref));
    c->Add(EvidenceKind::kBranchName,
           Short(ref) + "'s head branch '" + info.pr.head_ref + "' names #" + is.number);
  } else if (!ctx_.linked_branches.empty() && !info.pr.head_ref.empty() &&
             std::find(ctx_.linked_branches.begin(), ctx_.linked_branches.end(),
                       info.pr.head_ref) != ctx_.linked_branches.end()) {
    // The platform links the branch to the issue (GitCode related branches).
    Ref ref = info.pr.ref();
    FG_ASSIGN_OR_RETURN(Candidate * c, Cand(ref));
    c->Add(EvidenceKind::kBranchName, Short(ref) + "'s head branch '" + info.pr.head_ref +
                                          "' is linked to #" + is.number + " on the platform");
  }
  return Status::OK();
}

Status Linker::CompareWindowRow(const WindowPass& w, size_t slot_i) {
  const Issue& is = ctx_.issue;
  WindowScratch& ws = win_;
  const std::uint32_t merged_i = ws.merged[slot_i];
  const RunIndex::WindowRows::Row& row = w.row_at(merged_i);
  if (!row.info) return Status::OK();
  const PullInfo& info = *row.info;
  UnixSeconds t = w.times[merged_i];
  FG_RETURN_IF_ERROR(BranchEvidence(w, info, row));
  if (!options_->implicit) return Status::OK();
  // Release-branch PRs come in as backports of a main-line fix.
  if (row.release_base ||
      (!ctx_.default_branch.empty() && row.base != w.default_base && row.base != 0))
    return Status::OK();
  constexpr std::uint8_t kTitleMark = IssueContext::kTitleMark, kTextMark = IssueContext::kTextMark;
  const std::vector<std::uint8_t>& slot_marks = ws.slot_marks;
  std::span<const std::uint32_t> slots(ws.title_slots.data() + ws.slots_start[slot_i],
                                       ws.slots_start[slot_i + 1] - ws.slots_start[slot_i]);
  // The PR title's tokens in the issue title and in the issue text.
  size_t shared_n = 0, in_text = 0;
  for (std::uint32_t s : slots) {
    shared_n += (slot_marks[s] & kTitleMark) != 0;
    in_text += (slot_marks[s] & kTextMark) != 0;
  }
  // Merged before the issue was filed: only an archive-style restatement
  // (cheap check on the titles first).
  if (t < *is.created_at) {
    if (!w.has_title_words) return Status::OK();
    size_t smaller = std::min(ctx_.title_tokens.size(), static_cast<size_t>(row.title_n));
    if (smaller == 0 || shared_n * 10 < smaller * 6) return Status::OK();
  }
  // CompareText's walk over the PR title, in its token order. With no
  // title word shared, `shared` is 0 and so are the dice and containment
  // for any positive PR-title weight (and the weight is positive exactly
  // when the title has tokens): the title's own weight is not summed.
  TitleCounts title;
  title.in_text = in_text;
  if (shared_n > 0) {
    for (std::uint32_t s : slots) {
      double wt = weights_.OfSlot(s);
      title.pr_title += wt;
      if (slot_marks[s] & kTitleMark) title.shared += wt;
    }
  } else {
    title.pr_title = static_cast<double>(row.title_n);
  }
  double row_covered = 0;
  if (!ws.covered.empty()) {
    row_covered = ws.covered[slot_i];
  } else {
    for (std::uint64_t tok : w.wrows->Text(row))
      if (ctx_.marks.Of(tok) & kTitleMark) row_covered += weights_.Of(tok);
  }
  TextVerdict text = TextVerdictOf(ctx_, info, row.title_n, w.wrows->Text(row), title, row_covered,
                                   w.issue_title, &w.text_bits);
  if (t < *is.created_at) {
    TextMatch restated;
    restated.title_dice = text.title_dice;
    restated.containment = text.containment;
    if (!Restates(restated)) return Status::OK();
  }
  std::vector<IdWeight>& id_weights = ws.id_weights;
  size_t ids_begin = id_weights.size();
  if (!w.postings) {
    FG_RETURN_IF_ERROR(cache_->LoadFiles(w.rows[merged_i].info.get()));
    IdentifierWeights(ctx_, info, &id_weights);
  } else {
    // Run index rows: their files are loaded (LoadFiles only reports it
    // when they are not).
    if (!row.files_loaded) FG_RETURN_IF_ERROR(cache_->LoadFiles(w.rows[merged_i].info.get()));
    const std::vector<std::uint32_t>& hit_start = ws.hit_start;
    if (hit_start[slot_i] < hit_start[slot_i + 1])
      IdentifierWeights(ctx_, info,
                        std::span<const std::uint32_t>(ws.hit_ids.data() + hit_start[slot_i],
                                                       hit_start[slot_i + 1] - hit_start[slot_i]),
                        &id_weights, PullFilter{row.patch_filter, row.tail_filter});
  }
  if (id_weights.size() > ids_begin) df_.resize(ctx_.identifiers.size());
  for (size_t i = ids_begin; i < id_weights.size(); ++i) ++df_[id_weights[i].id];
  ws.compared.push_back({static_cast<std::uint32_t>(slot_i), static_cast<std::uint32_t>(ids_begin),
                         static_cast<std::uint32_t>(id_weights.size()), text.flagged});
  return Status::OK();
}

Status Linker::PromoteCompared(const WindowPass& w) {
  WindowScratch& ws = win_;
  // Which compared rows' PRs are candidates already: with a run index, a
  // PR's candidate holds the very PullInfo of its row (one per PR), so the
  // pointers tell without comparing keys.
  std::vector<const PullInfo*>& cand_infos = ws.cand_infos;
  cand_infos.clear();
  const bool by_pointer = w.by_pointer();
  if (by_pointer) {
    for (const auto& [key, c] : cands_)
      if (c.info) cand_infos.push_back(c.info.get());
    std::sort(cand_infos.begin(), cand_infos.end());
  }
  const std::vector<std::uint32_t>& hit_start = ws.hit_start;
  for (const WindowScratch::Compared& p : ws.compared) {
    const PullInfo& info = *w.row_at(ws.merged[p.slot]).info;
    bool promising = p.text_flagged ||
                     PatchReachesWeak(ctx_, info,
                                      std::span<const IdWeight>(ws.id_weights.data() + p.ids_begin,
                                                                p.ids_end - p.ids_begin),
                                      df_);
    if (!promising && !(by_pointer ? std::binary_search(cand_infos.begin(), cand_infos.end(), &info)
                                   : cands_.count(info.key) > 0))
      continue;
    FG_ASSIGN_OR_RETURN(Candidate * c, Cand(info.pr.ref()));
    c->in_window = true;
    // The full comparison, as every row got it before: text with the
    // conflict always checked, identifier matches with their reasons.
    c->text = CompareText(ctx_, info, &weights_);
    std::vector<IdMatch>& ids = ws.ids;
    ids.clear();
    if (!w.postings) {
      ids = MatchIdentifiers(ctx_, info);
    } else if (hit_start[p.slot] < hit_start[p.slot + 1]) {
      ids = MatchIdentifiersAmong(
          ctx_, info,
          std::span<const std::uint32_t>(ws.hit_ids.data() + hit_start[p.slot],
                                         hit_start[p.slot + 1] - hit_start[p.slot]));
    }
    c->patch = ScorePatch(ctx_, info, ids, df_);
    c->compared = true;
  }
  return Status::OK();
}

void Linker::OwnMentions(Candidate* c) {
  for (const Mention& m : c->info->OwnMentions()) {
    // A reason for a skip is no reference (CollectMentions notes it).
    if (m.target != ctx_.issue.ref() || m.keyword == MentionKeyword::kReason) continue;
    c->referenced = true;
    std::string who = Short(c->ref) + "'s description";
    if (m.form == MentionForm::kUrl)
      c->Add(EvidenceKind::kExplicitUrl, who + " carries the issue URL: " + m.text);
    if (m.keyword == MentionKeyword::kClosing && ctx_.issue.repo.platform != Platform::kGitHub)
      c->Add(EvidenceKind::kClosingKeyword, who + " says it closes " + m.text);
    else if (m.form != MentionForm::kUrl && !c->Has(EvidenceKind::kClosingKeyword))
      c->Add(EvidenceKind::kExplicitRef, who + " references " + m.text);
  }
}

Status Linker::Enrich() {
  for (auto& [key, c] : cands_) {
    if (c.info) OwnMentions(&c);
    if (!c.merged()) continue;
    if (!c.compared) {
      FG_RETURN_IF_ERROR(cache_->LoadFiles(c.info.get()));
      c.text = CompareText(ctx_, *c.info, &weights_);
      c.patch = ComparePatch(ctx_, *c.info, df_);
      c.compared = true;
    }
    if (c.text.strong) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", std::max(c.text.title_dice, c.text.title_coverage));
      c.Add(EvidenceKind::kTitleMatch, Short(c.ref) + "'s title \"" +
                                           Excerpt(c.info->pr.title, 120) +
                                           "\" restates the issue title (similarity " + buf + ")");
    }
    if (c.patch.score >= kPatchWeak) {
      std::string what;
      for (size_t i = 0; i < c.patch.matched.size() && i < 4; ++i)
        what += (i ? "; " : "") + c.patch.matched[i];
      c.Add(EvidenceKind::kPatchOverlap, Short(c.ref) + " changes what the issue names: " + what);
    }
  }
  return Status::OK();
}

}  // namespace fixgraph::graph
