// gen_dump_issues.cc: RepoWriter's issues: issues.json (title, body, state, labels) and each
// issue's comments.json (a conversation, then the comment that explains the outcome). Contract
// in gen_dump_repo.h.

#include "gen_dump_repo.h"

#include <algorithm>
#include <string>

namespace gen_dump {
namespace {

std::string_view IssueCustomState(const IssuePlan& p) {
  if (p.closed == 0) return p.in_progress ? "进行中" : "待办的";
  return p.outcome == Outcome::kWontfix ? "已拒绝" : "已完成";
}

}  // namespace

void RepoWriter::WriteIssues() {
  JsonArrayFile issues(dir_ / "issues.json", stats_);
  IssuePlan plan;
  for (uint64_t n = timeline().issues(); n-- > 0;) {
    planner_.PlanIssue(n, plan);
    TextRng rng(Key(kTagIssueText, n));
    PlanIssueComments(plan, rng);
    const std::string title = IssueTitle(plan);
    issues.Add(IssueJson(plan, title, rng));
    WriteIssueComments(plan, title, rng);
    if (truth_.enabled()) truth_.Add(IssueTruth(plan));
    ++stats_.issues;
  }
  issues.Finish();
}

// Its own stream, so that PRs restating the title can recompute it.
std::string RepoWriter::IssueTitle(const IssuePlan& p) const {
  constexpr int kAttempts = 3;  // templates tried before a long title is cut
  TextRng rng(Key(kTagIssueTitle, p.index));
  const TextCtx ctx{p.topic, p.created, {}, {}, {}};
  std::string title;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    title.clear();
    Expand(p.zh ? rng.Pick(kIssueTitlesZh) : rng.Pick(kIssueTitlesEn), ctx, rng, title);
    if (CodePoints(title) <= kTitleMax) break;
  }
  FitTitle(title, p.zh, ctx, rng);
  return title;
}

void RepoWriter::AppendEnvironment(std::string& out, const Sections& s, const Topic& t) const {
  out += s.environment;
  out += s.hardware;
  out += kHardware[t.hw];
  out += '\n';
  out += s.cann;
  out += kCann[t.cann];
  out += '\n';
  if (t.on_mindspore) {
    out += s.framework_ms;
    out += kMindSpore[t.mindspore];
  } else {
    out += s.framework_torch;
    out += kTorchNpu[t.torch_npu];
  }
  out += '\n';
  out += s.python;
  out += kPythons[t.python];
  out += '\n';
  out += s.os;
  out += kOses[t.os];
}

void RepoWriter::AppendReproduce(std::string& out, const Sections& s, bool zh, const TextCtx& ctx,
                                 TextRng& rng) const {
  out += s.reproduce;
  const Pool steps = zh ? Pool(kReproStepsZh) : Pool(kReproStepsEn);
  const uint64_t count = 2 + rng.Below(2);
  for (uint64_t k = 0; k < count; ++k) {
    // One step from each of count consecutive stretches of the pool keeps the order.
    const uint64_t lo = k * steps.size() / count;
    const uint64_t hi = (k + 1) * steps.size() / count;
    AppendInt(out, static_cast<int64_t>(k + 1));
    out += ". ";
    Expand(steps[lo + rng.Below(hi - lo)], ctx, rng, out);
    out += '\n';
  }
  out += '\n';
  Expand(ctx.topic.on_mindspore ? kReproCodeMindSpore : kReproCodeTorch, ctx, rng, out);
}

// A log block: Python traceback, CANN log lines, then gdb frames ("#0 ...", whose
// numbers are exactly what a linker must not read as issue references).
void RepoWriter::AppendLog(std::string& out, const Sections& s, size_t target, const TextCtx& ctx,
                           TextRng& rng) const {
  out += s.log;
  out += "```\n";
  size_t length = CodePoints(out);
  const auto add_line = [&](std::string_view prefix, std::string_view text) {
    const size_t before = out.size();
    out += prefix;
    Expand(text, ctx, rng, out);
    out += '\n';
    length += CodePoints(std::string_view(out).substr(before));
  };
  size_t lines = 0;
  for (const LogLine& line : kLogLines) {
    if (length >= target) break;
    if (line.optional && rng.Percent(kSkipOptionalLogLinePercent)) continue;
    add_line({}, line.text);
    ++lines;
  }
  for (int64_t frame = 0; lines < kMaxTraceLines && length < target; ++lines, ++frame) {
    std::string label(1, '#');
    AppendInt(label, frame);
    add_line(label, kBacktraceFrame);
  }
  out += "```";
}

void RepoWriter::BuildIssueBody(const IssuePlan& p, TextRng& rng, std::string& out) const {
  out.clear();
  const std::string related =
      p.duplicate_of == kNone ? std::string() : IssueRef(IssueNumber(p.duplicate_of));
  constexpr int64_t kLogBeforeFiling = 2 * kDay;
  constexpr size_t kOpeningSentences = 3;  // the first few set the scene
  const TextCtx ctx{p.topic, p.created - rng.Between(kMinute, kLogBeforeFiling), related, {}, {}};
  const Sections& s = p.zh ? kSectionsZh : kSectionsEn;
  const Pool sentences = p.zh ? Pool(kIssueSentencesZh) : Pool(kIssueSentencesEn);
  const size_t target = rng.Skewed(kBodyMin, kBodyMax - kLongestPiece);
  constexpr size_t kDescriptionTarget = 120;
  out += s.description;
  const size_t opening = rng.Below(kOpeningSentences);
  Expand(sentences[opening], ctx, rng, out);
  FillFrom(out, std::min(target, kDescriptionTarget), sentences, opening + 1, p.zh ? "" : " ", ctx,
           rng);
  if (CodePoints(out) < target) AppendEnvironment(out, s, p.topic);
  if (CodePoints(out) < target) AppendReproduce(out, s, p.zh, ctx, rng);
  if (CodePoints(out) < target) AppendLog(out, s, target, ctx, rng);
  if (CodePoints(out) < target) {
    constexpr uint32_t kRelatedIssuePercent = 30;
    out += s.extra;
    const bool mention = !related.empty() && rng.Percent(kRelatedIssuePercent);
    const std::string_view related_sentence = p.zh ? kRelatedIssueZh : kRelatedIssueEn;
    Expand(mention ? related_sentence : rng.Pick(sentences), ctx, rng, out);
    FillTo(out, target, sentences, p.zh ? "" : " ", ctx, rng);
  }
  TruncateCodePoints(out, kBodyMax);
}

// The comment that explains the outcome, if any, and when it was written.
bool RepoWriter::OutcomeComment(const IssuePlan& p, TextRng& rng, CommentSpec& spec) const {
  const auto maintainer = static_cast<uint32_t>(rng.Below(kMaintainers));
  spec = {p.closed, maintainer, CommentKind::kAnswer, p.zh};
  const bool fix_merged =
      p.fate.fix_pr != kNone && planner_.Timing(p.fate.fix_pr).finished <= kSnapshot;
  switch (p.outcome) {
    case Outcome::kOpen:
      if (p.fate.fix_pr == kNone) return false;
      if (fix_merged) return FixedByComment(p, rng, spec);  // merged, not closed yet
      if (!rng.Percent(kPendingCommentPercent)) return false;
      spec.time = planner_.Timing(p.fate.fix_pr).created + rng.Between(kMinute, kDay);
      spec.kind = CommentKind::kPending;
      return spec.time > p.created && spec.time <= kSnapshot;
    case Outcome::kFixed:
      return FixedByComment(p, rng, spec);
    case Outcome::kAnswered:
      spec.time -= rng.Between(0, 2 * kHour);
      break;
    case Outcome::kDuplicate:
      spec.time -= rng.Between(0, kSecondsAfterMax);
      spec.kind = CommentKind::kDuplicate;
      break;
    case Outcome::kStale:
      spec.user = kBotUser;
      spec.kind = CommentKind::kStale;
      break;
    case Outcome::kWontfix:
      spec.time -= rng.Between(0, 10 * kMinute);
      spec.kind = CommentKind::kWontfix;
      break;
    case Outcome::kVerified:
      spec.time -= rng.Between(1, kSecondsAfterMax);
      spec.kind = CommentKind::kVerify;
      break;
  }
  spec.time = std::max(spec.time, p.created + kMinute);
  return true;
}

// "Fixed by !N" some time after the merge, for some fixed issues.
bool RepoWriter::FixedByComment(const IssuePlan& p, TextRng& rng, CommentSpec& spec) const {
  if (!rng.Percent(kFixedByCommentPercent)) return false;
  const int64_t merged = planner_.Timing(p.fate.fix_pr).finished;
  spec.time = std::min(kSnapshot, merged + rng.Between(kMinute, 3 * kHour));
  spec.time = std::max(spec.time, p.created + kMinute);
  spec.kind = CommentKind::kFixedBy;
  return true;
}

// Fills comments_ with p.comments comments in time order: a conversation after filing
// (a maintainer asks, the author replies, ...), the last one replaced by the outcome
// comment when there is one.
void RepoWriter::PlanIssueComments(const IssuePlan& p, TextRng& rng) {
  constexpr int64_t kFirstResponse = 5 * kMinute;
  constexpr uint32_t kMeTooPercent = 15;
  constexpr uint32_t kOtherLanguagePercent = 20;
  comments_.clear();
  CommentSpec outcome{};
  const bool has_outcome = p.comments > 0 && OutcomeComment(p, rng, outcome);
  const uint32_t generic = p.comments - (has_outcome ? 1 : 0);
  const int64_t start = p.created + kFirstResponse;
  const int64_t end = has_outcome ? outcome.time : (p.closed != 0 ? p.closed : kSnapshot);
  const auto window = static_cast<uint64_t>(std::max<int64_t>(1, end - start));
  for (uint32_t k = 0; k < generic; ++k) {
    const int64_t time = std::min(end, start + static_cast<int64_t>(rng.Below(window)));
    comments_.push_back({time, 0, CommentKind::kAnalysis, p.zh});
  }
  std::sort(comments_.begin(), comments_.end(),
            [](const CommentSpec& a, const CommentSpec& b) { return a.time < b.time; });
  for (uint32_t k = 0; k < generic; ++k) {
    CommentSpec& c = comments_[k];
    c.zh = rng.Percent(kOtherLanguagePercent) ? !p.zh : p.zh;
    c.user = static_cast<uint32_t>(rng.Below(kMaintainers));
    if (k == 0) {
      c.kind = CommentKind::kAsk;
    } else if (rng.Percent(kMeTooPercent)) {
      c.kind = CommentKind::kMeToo;
      c.user = kMaintainers + static_cast<uint32_t>(rng.Below(kHumanUsers - kMaintainers));
    } else if (k % 2 == 1) {
      c.kind = CommentKind::kReply;
      c.user = p.author;
    }
  }
  if (has_outcome) comments_.push_back(outcome);
}

Json RepoWriter::IssueJson(const IssuePlan& p, const std::string& title, TextRng& rng) {
  const bool closed = p.closed != 0;
  int64_t updated = std::max(p.created, p.closed);
  if (!comments_.empty()) updated = std::max(updated, comments_.back().time);
  BuildIssueBody(p, rng, text_);

  Json j;
  j["id"] = IssueId(p.index);
  j["number"] = IssueNumberJson(p.number);
  j["title"] = title;
  j["body"] = text_;
  j["state"] = IssueState(p);
  if (!github()) j["issue_state"] = IssueCustomState(p);
  j["user"] = catalog_.users[p.author];
  j["labels"] = IssueLabels(p);
  j["html_url"] = IssueUrl(p.number);
  j["created_at"] = Time(p.created);
  j["updated_at"] = Time(updated);
  switch (o_.platform) {
    case Platform::kGitCode:
      j["finished_at"] = TimeOrUnset(p.closed);
      j["closed_at"] = nullptr;
      break;
    case Platform::kGitee:
      j["finished_at"] = TimeOrUnset(p.closed);
      break;
    case Platform::kGitHub:
      j["closed_at"] = TimeOrUnset(p.closed);
      j["state_reason"] = !closed ? Json(nullptr)
                          : p.outcome == Outcome::kWontfix || p.outcome == Outcome::kStale ||
                                  p.outcome == Outcome::kDuplicate
                              ? Json("not_planned")
                              : Json("completed");
      break;
  }
  j["comments"] = comments_.size();
  return j;
}

std::string_view RepoWriter::IssueState(const IssuePlan& p) const {
  if (p.closed == 0) {
    return o_.platform == Platform::kGitee && p.in_progress ? "progressing" : "open";
  }
  return o_.platform == Platform::kGitee && p.outcome == Outcome::kWontfix ? "rejected" : "closed";
}

Json RepoWriter::IssueLabels(const IssuePlan& p) const {
  Json labels = Json::array();
  labels.push_back(catalog_.labels[p.kind_label]);
  for (uint32_t k = 0; k < p.topic_labels; ++k) {
    const uint32_t span = kLabelCount - kFirstTopicLabel;
    labels.push_back(catalog_.labels[kFirstTopicLabel + (p.topic_label_pick + k) % span]);
  }
  if (p.outcome == Outcome::kDuplicate) labels.push_back(catalog_.labels[kLabelDuplicate]);
  if (p.outcome == Outcome::kWontfix) labels.push_back(catalog_.labels[kLabelWontfix]);
  if (p.outcome == Outcome::kStale) labels.push_back(catalog_.labels[kLabelStale]);
  return labels;
}

void RepoWriter::WriteIssueComments(const IssuePlan& p, const std::string& title, TextRng& rng) {
  const std::string duplicate_ref =
      p.duplicate_of == kNone ? std::string() : IssueRef(IssueNumber(p.duplicate_of));
  const uint64_t pr_number = p.fate.fix_pr == kNone ? 0 : PrNumber(p.fate.fix_pr);
  const std::string pr_ref = pr_number == 0 ? std::string() : PrRef(pr_number);
  const std::string pr_url = pr_number == 0 ? std::string() : PrUrl(pr_number);

  Json array = Json::array();
  for (uint32_t k = 0; k < comments_.size(); ++k) {
    const CommentSpec& c = comments_[k];
    const TextCtx ctx{p.topic, c.time, duplicate_ref, pr_ref, pr_url};
    BuildComment(c.kind, c.zh, ctx, rng, text_);
    const int64_t id = IssueId(p.index) * kCommentIdsPerItem + k;
    Json j;
    j["id"] = id;
    if (github()) {
      j["html_url"] = IssueUrl(p.number) + "#issuecomment-" + IntString(id);
      j["issue_url"] = "https://api.github.com/repos/" + full_name_ + "/issues/" + p.number;
      j["user"] = catalog_.users[c.user];
      j["created_at"] = Time(c.time);
      j["updated_at"] = Time(c.time);
      j["body"] = text_;
    } else {
      j["body"] = text_;
      j["user"] = catalog_.users[c.user];
      if (o_.platform == Platform::kGitee) j["source"] = nullptr;
      Json target = {{"issue", {{"id", IssueId(p.index)}, {"title", title}, {"number", p.number}}}};
      if (o_.platform == Platform::kGitee) target["pull_request"] = nullptr;
      j["target"] = std::move(target);
      j["created_at"] = Time(c.time);
      j["updated_at"] = Time(c.time);
    }
    array.push_back(std::move(j));
  }
  const fs::path dir = dir_ / "issues" / p.number;
  fs::create_directory(dir);
  WriteJsonFile(dir / "comments.json", array, stats_);
  stats_.comments += comments_.size();
}

// --- pull requests ----------------------------------------------------------------------

}  // namespace gen_dump
