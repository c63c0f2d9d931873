#include "resolve.h"

#include "signals.h"
#include "text.h"

#include <algorithm>
#include <optional>

namespace fixgraph::graph {
namespace {

constexpr std::int64_t kDay = 86400;

bool SameRepoFix(const IssueContext& ctx, const FixLink& f) {
  if (!f.in_store) return false;
  auto r = ParseRef(f.pr);
  return r.ok() && r->repo == ctx.issue.repo;
}

// Implicit: only title, patch or verification evidence.
bool Implicit(const FixLink& f) {
  for (const Evidence& e : f.evidence)
    if (e.kind != EvidenceKind::kTitleMatch && e.kind != EvidenceKind::kPatchOverlap &&
        e.kind != EvidenceKind::kVerifyCommentClose)
      return false;
  return true;
}

bool Before(const Comment& c, const IssueContext& ctx) {
  if (ctx.issue.state != IssueState::kClosed || !ctx.issue.closed_at || !c.created_at) return true;
  return *c.created_at <= *ctx.issue.closed_at;
}

bool IsAuthor(const Comment& c, const IssueContext& ctx) {
  return !c.author.login.empty() && c.author.login == ctx.issue.author.login;
}

// Human comments made while the issue was open.
std::vector<const Comment*> HumanComments(const IssueContext& ctx) {
  std::vector<const Comment*> out;
  for (size_t i = 0; i < ctx.comments.size(); ++i)
    if (!ctx.BotComment(i) && Before(ctx.comments[i], ctx)) out.push_back(&ctx.comments[i]);
  return out;
}

Answer MakeAnswer(const Comment& c, const char* kind) {
  Answer a;
  a.comment_id = c.id;
  a.author = c.author.login;
  a.created_at = c.created_at;
  std::string_view k(kind);
  a.text = signals::ExtractAnswer(c.body, 600, k != "self_solved" && k != "decline");
  a.kind = kind;
  return a;
}

// The best explanation: a maintainer's (non-author) substantive comment with
// the most answer cues, or the author's own substantive self-solve.
std::optional<Answer> PickAnswer(const IssueContext& ctx) {
  const Comment* best = nullptr;
  int best_score = -1;
  const Comment* self = nullptr;
  int self_score = -1;
  for (const Comment* c : HumanComments(ctx)) {
    int score = signals::SubstantiveAnswerScore(c->body);  // one visible-length count
    if (score == signals::kNotSubstantive) continue;
    if (IsAuthor(*c, ctx)) {
      if (signals::SelfSolved(c->body) && score >= self_score) {
        self = c;
        self_score = score;
      }
    } else if (score >= best_score) {
      best = c;
      best_score = score;
    }
  }
  if (self && (!best || self_score > best_score)) return MakeAnswer(*self, "self_solved");
  if (best) return MakeAnswer(*best, "maintainer");
  return std::nullopt;
}

// The human comments made while the issue was open, each with what it says
// (signals::CommentCues: one scan of its body for every cue list Resolve asks).
class HumanCues {
 public:
  explicit HumanCues(const IssueContext& ctx) : comments_(HumanComments(ctx)) {
    cues_.reserve(comments_.size());
    for (const Comment* c : comments_) cues_.push_back(signals::CommentCues(c->body));
  }
  size_t size() const { return comments_.size(); }
  const Comment* comment(size_t i) const { return comments_[i]; }
  std::uint8_t cues(size_t i) const { return cues_[i]; }

 private:
  std::vector<const Comment*> comments_;
  std::vector<std::uint8_t> cues_;
};

// The last human comment saying `cue`.
const Comment* LastHuman(const IssueContext& ctx, const HumanCues& human, bool non_author_only,
                         std::uint8_t cue) {
  const Comment* found = nullptr;
  for (size_t i = 0; i < human.size(); ++i) {
    const Comment* c = human.comment(i);
    if (non_author_only && IsAuthor(*c, ctx)) continue;
    if (human.cues(i) & cue) found = c;
  }
  return found;
}

// The best explanation of a fix made elsewhere: among the comments naming a
// vendor fix, a fix or a root cause, the one with the most answer cues.
const Comment* BestFixExplanation(const IssueContext& ctx, const HumanCues& human) {
  const Comment* best = nullptr;
  int best_score = -1;
  for (size_t i = 0; i < human.size(); ++i) {
    const Comment* c = human.comment(i);
    if (!(human.cues(i) &
          (signals::kCueNamesVendorFix | signals::kCueClaimsFix | signals::kCueRootCause)))
      continue;
    int score = signals::AnswerScore(c->body) + (IsAuthor(*c, ctx) ? 0 : 2);
    if (score >= best_score) {
      best = c;
      best_score = score;
    }
  }
  return best;
}

}  // namespace

std::optional<Evidence> VerifyCommentClose(const IssueContext& ctx, int window_s) {
  if (ctx.issue.state != IssueState::kClosed || !ctx.issue.closed_at) return std::nullopt;
  UnixSeconds closed = *ctx.issue.closed_at;
  const Comment* found = nullptr;
  for (size_t i = 0; i < ctx.comments.size(); ++i) {
    const Comment& c = ctx.comments[i];
    if (ctx.BotComment(i) || !c.created_at) continue;
    std::int64_t d = closed - *c.created_at;
    if (d < 0 || d > window_s) continue;
    if (signals::ClaimsVerified(c.body)) found = &c;
  }
  if (!found) return std::nullopt;
  Evidence e;
  e.kind = EvidenceKind::kVerifyCommentClose;
  e.delta_s = closed - *found->created_at;
  e.detail = "closed " + std::to_string(*e.delta_s) + " s after " + found->author.login +
             "'s verification comment " + found->id;
  return e;
}

void Resolve(const IssueContext& ctx, const ResolveFacts& facts, IssueLinks* out) {
  const Issue& is = ctx.issue;
  auto has_label = [&](bool (*pred)(std::string_view)) {
    for (const std::string& l : ctx.labels)
      if (pred(l)) return true;
    return false;
  };
  bool resolved_label = has_label(signals::IsResolvedLabel);
  bool wontfix = has_label(signals::IsWontfixLabel) || signals::IsWontfixLabel(is.state_detail);
  bool stale = has_label(signals::IsStaleLabel) || facts.batch_close;
  for (size_t i = 0; i < ctx.comments.size(); ++i)
    if (ctx.BotComment(i) && signals::SaysStale(ctx.comments[i].body)) stale = true;
  // What the human comments say, scanned only when a branch below asks (open
  // issues, duplicates and issues fixed here by an explicit link never do).
  struct Said {
    explicit Said(const IssueContext& ctx) : human(ctx) {
      decline = LastHuman(ctx, human, true, signals::kCueDeclinesFix);
      fix_claim = LastHuman(ctx, human, true, signals::kCueClaimsFix);
      vendor = LastHuman(ctx, human, false, signals::kCueNamesVendorFix);
      service = LastHuman(ctx, human, true, signals::kCueNamesServiceSide);
      verified = LastHuman(ctx, human, false, signals::kCueClaimsVerified);
      any_fix_word = fix_claim || verified;
    }
    HumanCues human;
    const Comment* decline;
    const Comment* fix_claim;
    const Comment* vendor;
    const Comment* service;
    const Comment* verified;
    bool any_fix_word;
  };
  std::optional<Said> said_storage;
  auto said = [&]() -> const Said& {
    if (!said_storage) said_storage.emplace(ctx);
    return *said_storage;
  };

  bool explicit_here = false, implicit_here = false, weak_here = false, elsewhere = false;
  for (const FixLink& f : out->fixes) {
    bool here = SameRepoFix(ctx, f);
    if (here && f.Trusted() && !Implicit(f)) explicit_here = true;
    if (here && f.Trusted() && Implicit(f)) implicit_here = true;
    if (here && !f.Trusted()) weak_here = true;
    if (!here && f.tier <= Tier::kB) elsewhere = true;
  }

  Resolution r = Resolution::kUnknown;
  std::optional<Answer> answer;
  if (is.state == IssueState::kOpen) {
    r = Resolution::kOpen;
  } else if (facts.duplicate_of || facts.duplicate_label) {
    r = Resolution::kDuplicate;
  } else if (explicit_here) {  // NOLINT(bugprone-branch-clone): ranked rungs
    r = Resolution::kFixed;
  } else if (elsewhere) {
    r = Resolution::kFixedElsewhere;
    if (const Comment* c = BestFixExplanation(ctx, said().human))
      answer = MakeAnswer(*c, said().vendor ? "vendor_fix" : "maintainer");
  } else if (wontfix || said().decline) {
    r = Resolution::kWontfix;
    if (said().decline) answer = MakeAnswer(*said().decline, "decline");
  } else if (stale) {
    r = Resolution::kStale;
    answer = PickAnswer(ctx);
  } else if (implicit_here) {
    r = Resolution::kFixed;
  } else if (weak_here && (said().any_fix_word || resolved_label)) {
    r = Resolution::kFixed;
  } else if (said().vendor && said().any_fix_word) {
    r = Resolution::kFixedElsewhere;
    answer = MakeAnswer(*BestFixExplanation(ctx, said().human), "vendor_fix");
  } else if (said().service) {
    r = Resolution::kFixedElsewhere;
    answer = MakeAnswer(*said().service, "maintainer");
  } else if ((said().fix_claim || resolved_label) && facts.participant_change &&
             facts.participant_change()) {
    r = Resolution::kFixed;
  } else if (auto a = PickAnswer(ctx)) {
    r = Resolution::kAnswered;
    answer = std::move(a);
  } else if (said().fix_claim || !out->evidence.empty()) {
    r = Resolution::kFixedElsewhere;
    if (said().fix_claim) answer = MakeAnswer(*said().fix_claim, "maintainer");
  }
  if (r == Resolution::kFixedElsewhere && !answer) {
    if (said().verified) answer = MakeAnswer(*said().verified, "verification");
  }
  if (r != Resolution::kFixed && r != Resolution::kDuplicate && r != Resolution::kOpen) {
    // Inferred links only stand when the issue was fixed here.
    out->fixes.erase(std::remove_if(out->fixes.begin(), out->fixes.end(),
                                    [&](const FixLink& f) {
                                      return SameRepoFix(ctx, f) && (!f.Trusted() || Implicit(f));
                                    }),
                     out->fixes.end());
  }
  if (r == Resolution::kDuplicate) {
    for (FixLink& f : out->fixes) {
      f.tier = Tier::kD;
      f.confidence = std::min(f.confidence, 0.35);
    }
  }
  out->resolution = r;
  out->answer = std::move(answer);
}

void ComputeFlags(const IssueContext& ctx, const LinkerOptions& options, IssueLinks* out) {
  std::vector<Flag> flags;
  const Issue& is = ctx.issue;
  bool before = false, backport = false, cross = false;
  std::vector<const FixLink*> primary;
  for (const FixLink& f : out->fixes) {
    bool is_backport = !f.backport_of.empty();
    if (is_backport) backport = true;
    auto r = ParseRef(f.pr);
    if (r.ok() && r->repo.platform != is.repo.platform) cross = true;
    if (!f.in_store || is_backport) continue;
    if (f.Trusted() && is.created_at &&
        ((f.created_at && *f.created_at < *is.created_at) ||
         (f.merged_at && *f.merged_at < *is.created_at)))
      before = true;
    if (f.merged_at) primary.push_back(&f);
  }
  for (const FixLink& f : out->fixes)
    if (f.mirror_host) cross = true;
  if (before) flags.push_back(Flag::kFixBeforeIssue);
  if (is.state == IssueState::kClosed && is.closed_at && !primary.empty()) {
    bool any_strong =
        std::any_of(primary.begin(), primary.end(), [](const FixLink* f) { return f->Trusted(); });
    std::optional<UnixSeconds> last;
    for (const FixLink* f : primary) {
      if (any_strong && !f->Trusted()) continue;
      if (*f->merged_at > *is.closed_at) continue;
      if (!last || *f->merged_at > *last) last = *f->merged_at;
    }
    // A fix merged before the issue was filed could not close it earlier
    // than the filing: the lag counts from whichever came later.
    if (last && is.created_at && *is.created_at > *last) last = *is.created_at;
    if (last && *is.closed_at - *last > options.close_lag_days * kDay)
      flags.push_back(Flag::kCloseLag);
  }
  if (!out->false_leads.empty()) flags.push_back(Flag::kFalseLead);
  if (backport) flags.push_back(Flag::kBackport);
  if (cross &&
      (out->resolution == Resolution::kFixedElsewhere || out->resolution == Resolution::kFixed))
    flags.push_back(Flag::kCrossPlatform);
  if (out->resolution == Resolution::kFixedElsewhere && out->fixes.empty())
    flags.push_back(Flag::kTraceless);
  std::sort(flags.begin(), flags.end());
  out->flags = std::move(flags);
}

}  // namespace fixgraph::graph
