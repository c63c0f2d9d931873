// gen_dump_plan.h: what happens to each item of one repository, recomputable from its index
// alone. The Timeline places issues and PRs on shared slots; a Planner decides each issue's fate
// (which PR fixes it and how it closes) and each PR's timing, kind and state from the item's
// own plan stream (SplitMix64, keyed by seed, repository, purpose and index). Nothing is stored:
// a PR finds the issues it fixes by recomputing the fates of the issues near it (FixesOf), so
// memory stays flat for any size and PlanPr(j) agrees with Fate(i).fix_pr == j.
#pragma once

#include "gen_dump_options.h"
#include "gen_dump_random.h"
#include "gen_dump_shape.h"
#include "gen_dump_text.h"
#include "gen_dump_vocab.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gen_dump {

// Time line: issues and PRs share slots 1..N (N = issues + PRs), interleaved evenly
// (Bresenham), so creation times increase with the number. On GitHub, where issues and
// PRs share one number space, the slot is also the number.

class Timeline {
 public:
  Timeline(uint64_t issues, uint64_t prs, uint64_t key)
      : issues_(issues),
        prs_(prs),
        total_(issues + prs),
        width_(std::max<int64_t>(
            1, kTimelineSpan / static_cast<int64_t>(std::max<uint64_t>(total_, 1)))),
        key_(key) {}

  uint64_t issues() const { return issues_; }
  uint64_t prs() const { return prs_; }
  int64_t slot_seconds() const { return width_; }

  uint64_t IssueSlot(uint64_t i) const { return i * total_ / issues_ + 1; }
  uint64_t PrSlot(uint64_t j) const { return ((j + 1) * total_ + prs_ - 1) / prs_; }
  // The first PR whose slot is >= slot; prs() when there is none.
  uint64_t FirstPrFrom(uint64_t slot) const { return std::min(prs_, (slot - 1) * prs_ / total_); }
  // The slot whose time span holds t, clamped to the time line.
  uint64_t SlotAt(int64_t t) const {
    if (t <= kTimelineStart) return 1;
    return std::min(total_, static_cast<uint64_t>((t - kTimelineStart) / width_) + 1);
  }
  // An issue index at or before the first issue whose slot is >= slot.
  uint64_t IssueNear(uint64_t slot) const {
    return std::min(issues_, (slot - 1) * issues_ / total_);
  }
  // Strictly increasing in slot.
  int64_t SlotTime(uint64_t slot) const {
    return kTimelineStart + static_cast<int64_t>(slot - 1) * width_ +
           static_cast<int64_t>(Mix64(key_ ^ slot) % static_cast<uint64_t>(width_));
  }

 private:
  uint64_t issues_, prs_, total_;
  int64_t width_;
  uint64_t key_;
};

// No item (an index that is never used).
constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

// What becomes of an issue; cheap, because PRs recompute it for their neighbours.
struct IssueFate {
  Outcome outcome = Outcome::kOpen;
  uint64_t fix_pr = kNone;  // PR index, for kFixed
  CloseMode close_mode = CloseMode::kAtMerge;
  int64_t close_delay = 0;  // after the merge (kFixed) or the filing (others)
};

struct IssuePlan {
  uint64_t index = 0;
  std::string number;
  int64_t created = 0;
  int64_t closed = 0;                // 0: open at the snapshot
  Outcome outcome = Outcome::kOpen;  // kOpen when not closed by the snapshot
  IssueFate fate;
  Topic topic{};
  bool zh = false;
  uint32_t author = 0;
  uint32_t comments = 0;
  uint64_t duplicate_of = kNone;
  uint32_t kind_label = kLabelBug;
  uint32_t topic_labels = 0;  // 0-2 extra labels
  uint32_t topic_label_pick = 0;
  bool in_progress = false;  // open and being worked on ("progressing", "进行中")
};

struct PrTiming {
  int64_t created = 0;
  int64_t finished = 0;  // when it merges or closes, if it does; may be after the snapshot
};

struct PrPlan {
  uint64_t index = 0;
  uint64_t number = 0;
  PrTiming timing;
  PrState state = PrState::kOpen;
  PrKind kind = PrKind::kOther;
  std::vector<uint64_t> fixes;      // issues this PR fixes
  uint64_t backport_of = kNone;     // the PR a backport cherry-picks
  std::vector<uint64_t> backports;  // issues that PR fixed
  uint64_t false_lead = kNone;      // issue a closed-unmerged PR claims to fix
  Topic topic{};
  bool zh = false;
  uint32_t author = 0;
  uint32_t merger = 0;  // maintainer who merges
  uint32_t review_comments = 0;
  bool close_related = false;  // GitCode "close related issues after merge"
};

// A maintainer now and then, otherwise another user.
uint32_t DrawAuthor(PlanRng& rng);

class Planner {
 public:
  Planner(const Options& options, uint64_t repo_index);

  const Timeline& timeline() const { return timeline_; }
  // The seed of item's random stream for purpose tag (a StreamTag).
  uint64_t Key(uint64_t tag, uint64_t item) const { return StreamKey(seed_, repo_key_, tag, item); }

  // The platform's number of issue i ("12", "I4CD5P") and of PR j; both increase with the index.
  std::string IssueNumber(uint64_t i) const;
  uint64_t PrNumber(uint64_t j) const { return github() ? timeline_.PrSlot(j) : j + 1; }

  // When PR j opens and when it would merge or close.
  PrTiming Timing(uint64_t j) const;
  // What becomes of issue i; cheap, because PRs recompute it for their neighbours.
  IssueFate Fate(uint64_t i) const;
  // Fills p for issue i (everything reused is overwritten).
  void PlanIssue(uint64_t i, IssuePlan& p) const;
  // The issues whose fate names PR j as their fix, in index order.
  void FixesOf(uint64_t j, std::vector<uint64_t>& out) const;
  // Fills p for PR j.
  void PlanPr(uint64_t j, PrPlan& p) const;

 private:
  bool github() const { return platform_ == Platform::kGitHub; }
  std::string GiteeNumber(uint64_t i) const;
  uint32_t DrawCommentCount(PlanRng& rng) const;
  int64_t CloseTime(const IssuePlan& p) const;

  Platform platform_;
  uint64_t seed_;
  uint64_t repo_index_;
  uint64_t repo_key_;
  Timeline timeline_;
  uint64_t more_comment_threshold_;
};

}  // namespace gen_dump
