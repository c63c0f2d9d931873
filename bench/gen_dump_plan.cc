// gen_dump_plan.cc: item plans (contract in gen_dump_plan.h).

#include "gen_dump_plan.h"

#include "gen_dump_format.h"

namespace gen_dump {

namespace {

// P(another comment) for a geometric count with mean C: C / (C + 1), in 2^-32 units.
uint64_t MoreCommentThreshold(double mean) {
  constexpr double kScale = 4294967296.0;
  return static_cast<uint64_t>(mean / (mean + 1.0) * kScale);
}

// The first stale sweep at or after t.
int64_t NextStaleSweep(int64_t t) {
  const int64_t first = kTimelineStart + kStaleSweepOffset;
  const int64_t k = t <= first ? 0 : (t - first + kStaleSweepPeriod - 1) / kStaleSweepPeriod;
  return first + k * kStaleSweepPeriod;
}

}  // namespace

uint32_t DrawAuthor(PlanRng& rng) {
  constexpr uint32_t kMaintainerAuthorPercent = 15;
  if (rng.Percent(kMaintainerAuthorPercent)) return static_cast<uint32_t>(rng.Below(kMaintainers));
  return kMaintainers + static_cast<uint32_t>(rng.Below(kHumanUsers - kMaintainers));
}

Planner::Planner(const Options& options, uint64_t repo_index)
    : platform_(options.platform),
      seed_(options.seed),
      repo_index_(repo_index),
      repo_key_(Mix64(repo_index + 1)),
      timeline_(options.issues, options.prs, StreamKey(seed_, repo_key_, kTagSlotJitter, 0)),
      more_comment_threshold_(MoreCommentThreshold(options.comments)) {}

std::string Planner::IssueNumber(uint64_t i) const {
  switch (platform_) {
    case Platform::kGitCode:
      return IntString(static_cast<int64_t>(i + 1));
    case Platform::kGitee:
      return GiteeNumber(i);
    case Platform::kGitHub:
      return IntString(static_cast<int64_t>(timeline_.IssueSlot(i)));
  }
  return {};
}

// Increasing with i (jitter < stride), hence unique.
std::string Planner::GiteeNumber(uint64_t i) const {
  return GiteeStyleNumber(kGiteeNumberBase + repo_index_ * kGiteeRepoShift + i * kGiteeStride +
                          Mix64(repo_key_ ^ i) % kGiteeStride);
}

uint32_t Planner::DrawCommentCount(PlanRng& rng) const {
  uint32_t n = 0;
  while (n < kMaxComments && (rng.Bits() >> 32) < more_comment_threshold_) ++n;
  return n;
}

PrTiming Planner::Timing(uint64_t j) const {
  PlanRng rng(Key(kTagPrTiming, j));
  const int64_t created = timeline_.SlotTime(timeline_.PrSlot(j));
  return {created, created + rng.Span(kPrDuration)};
}

IssueFate Planner::Fate(uint64_t i) const {
  PlanRng rng(Key(kTagIssueFate, i));
  IssueFate fate;
  fate.outcome = static_cast<Outcome>(rng.Weighted(kOutcomeWeights));
  if (fate.outcome == Outcome::kDuplicate && i == 0) fate.outcome = Outcome::kAnswered;
  if (fate.outcome != Outcome::kFixed) {
    fate.close_delay = rng.Span(kCloseWithoutPr);
    return fate;
  }
  fate.close_mode = static_cast<CloseMode>(rng.Weighted(kCloseModeWeights));
  const uint64_t slot = timeline_.IssueSlot(i);
  const uint64_t first_after = timeline_.FirstPrFrom(slot);
  if (fate.close_mode == CloseMode::kFixedBeforeFiled) {
    // A PR opened shortly before the issue; if it merges only after the filing, the
    // merge closes the issue as usual.
    const uint64_t lead = 1 + rng.Below(kMaxLeadPrs);
    if (first_after < lead) return {};  // no earlier PR: stays open
    fate.fix_pr = first_after - lead;
    if (Timing(fate.fix_pr).finished < timeline_.SlotTime(slot)) {
      fate.close_delay = rng.Between(kMinute, kFiledAfterFixMax);
    } else {
      fate.close_mode = CloseMode::kAtMerge;
    }
    return fate;
  }
  const uint64_t lag_slots = std::clamp<uint64_t>(
      static_cast<uint64_t>(rng.Span(kFixLag) / timeline_.slot_seconds()), 1, kMaxLagSlots);
  fate.fix_pr = timeline_.FirstPrFrom(slot + lag_slots);
  if (fate.fix_pr >= timeline_.prs()) return {};  // the fix is not written yet: open
  switch (fate.close_mode) {
    case CloseMode::kSecondsAfter:
      fate.close_delay = rng.Between(1, kSecondsAfterMax);
      break;
    case CloseMode::kWeeksAfter:
      fate.close_delay = rng.Between(kWeeksAfterMin, kWeeksAfterMax);
      break;
    default:
      fate.close_delay = 0;
      break;
  }
  return fate;
}

int64_t Planner::CloseTime(const IssuePlan& p) const {
  int64_t t = 0;
  switch (p.fate.outcome) {
    case Outcome::kOpen:
      return 0;
    case Outcome::kFixed: {
      const int64_t merged = Timing(p.fate.fix_pr).finished;
      if (merged > kSnapshot) return 0;
      t = (p.fate.close_mode == CloseMode::kFixedBeforeFiled ? p.created : merged) +
          p.fate.close_delay;
      break;
    }
    case Outcome::kStale:
      t = NextStaleSweep(p.created + kStaleAfter);
      break;
    default:
      t = p.created + p.fate.close_delay;
      break;
  }
  return t <= kSnapshot ? t : 0;
}

void Planner::PlanIssue(uint64_t i, IssuePlan& p) const {
  p.index = i;
  p.number = IssueNumber(i);
  p.fate = Fate(i);
  p.created = timeline_.SlotTime(timeline_.IssueSlot(i));
  PlanRng rng(Key(kTagIssuePlan, i));
  p.zh = rng.Percent(kChinesePercent);
  p.topic = DrawTopic(rng);
  p.author = DrawAuthor(rng);
  p.comments = DrawCommentCount(rng);
  p.duplicate_of = i == 0 ? kNone : i - 1 - rng.Below(std::min(i, kDuplicateReach));
  p.kind_label = static_cast<uint32_t>(rng.Weighted(kKindLabelWeights));
  p.topic_labels = static_cast<uint32_t>(rng.Below(3));
  p.topic_label_pick = static_cast<uint32_t>(rng.Below(kLabelCount - kFirstTopicLabel));
  constexpr uint32_t kInProgressPercent = 30;
  p.in_progress = rng.Percent(kInProgressPercent);
  p.closed = CloseTime(p);
  p.outcome = p.closed != 0 ? p.fate.outcome : Outcome::kOpen;
}

// The issues whose fate names PR j as their fix, in index order. Recomputes the fates of
// the issues near the PR on the time line: those filed up to kMaxLagSlots before it, and
// those filed just after it when the fix came first.
void Planner::FixesOf(uint64_t j, std::vector<uint64_t>& out) const {
  out.clear();
  if (timeline_.issues() == 0) return;
  const uint64_t prev_slot = j == 0 ? 0 : timeline_.PrSlot(j - 1);
  const uint64_t lo_slot = prev_slot + 1 > kMaxLagSlots ? prev_slot + 1 - kMaxLagSlots : 1;
  // An issue filed after its fix has FirstPrFrom(slot) <= j + kMaxLeadPrs; past the last
  // PR that covers every remaining issue.
  const uint64_t end =
      j + kMaxLeadPrs < timeline_.prs()
          ? std::min(timeline_.issues(),
                     timeline_.IssueNear(timeline_.PrSlot(j + kMaxLeadPrs) + 1) + 1)
          : timeline_.issues();
  for (uint64_t i = timeline_.IssueNear(lo_slot); i < end; ++i) {
    if (Fate(i).fix_pr == j) out.push_back(i);
  }
}

void Planner::PlanPr(uint64_t j, PrPlan& p) const {
  p.index = j;
  p.number = PrNumber(j);
  p.timing = Timing(j);
  FixesOf(j, p.fixes);
  PlanRng rng(Key(kTagPrPlan, j));
  p.zh = rng.Percent(kChinesePercent);
  p.topic = DrawTopic(rng);
  p.author = DrawAuthor(rng);
  p.merger = static_cast<uint32_t>(rng.Below(kMaintainers));
  constexpr uint32_t kCloseRelatedPercent = 80;
  p.close_related = rng.Percent(kCloseRelatedPercent);
  constexpr uint64_t kMaxReviewComments = 4;
  p.review_comments = rng.Percent(kPrCommentsPercent)
                          ? static_cast<uint32_t>(1 + rng.Below(kMaxReviewComments))
                          : 0;
  const bool wants_backport = rng.Percent(kBackportPercent);
  const int64_t backport_lag = rng.Between(kBackportLagMin, kBackportLagMax);
  const auto other_state = static_cast<PrState>(rng.Weighted(kOtherPrStateWeights));
  const bool wants_false_lead = rng.Percent(kFalseLeadPercent);
  const uint64_t lead_back = rng.Below(kFalseLeadReach);

  p.backports.clear();
  p.backport_of = kNone;
  if (wants_backport) {
    const uint64_t original =
        timeline_.FirstPrFrom(timeline_.SlotAt(p.timing.created - backport_lag));
    if (original < j && Timing(original).finished <= p.timing.created) {
      FixesOf(original, p.backports);
      if (!p.backports.empty()) p.backport_of = original;
    }
  }
  p.false_lead = kNone;
  if (!p.fixes.empty()) {
    p.kind = PrKind::kFix;
  } else if (!p.backports.empty()) {
    p.kind = PrKind::kBackport;
  } else if (other_state == PrState::kClosed && wants_false_lead && timeline_.issues() > 0) {
    p.kind = PrKind::kFalseLead;
    const uint64_t near = timeline_.IssueNear(timeline_.PrSlot(j));
    p.false_lead = near > lead_back ? near - lead_back : 0;
  } else {
    p.kind = PrKind::kOther;
  }
  const bool merges = p.kind == PrKind::kFix || p.kind == PrKind::kBackport;
  p.state = merges ? PrState::kMerged : other_state;
  if (p.timing.finished > kSnapshot) p.state = PrState::kOpen;
}

}  // namespace gen_dump
