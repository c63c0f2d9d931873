// gen_dump_pulls.cc: RepoWriter's pull requests: pulls.json (title, body with the evidence
// each fixed issue calls for, branches, states) and, per PR, comments.json (review comments),
// commits.json and files.json (merged PRs). Contract in gen_dump_repo.h.

#include "gen_dump_repo.h"

#include <algorithm>
#include <string>

namespace gen_dump {
namespace {

Pool CodeLinesFor(std::string_view file) {
  if (file.ends_with(".py")) return Pool(kPyLines);
  if (file.ends_with(".cpp") || file.ends_with(".cc") || file.ends_with(".h"))
    return Pool(kCppLines);
  return Pool(kTextLines);
}

void AppendDiffLines(std::string& diff, char sign, int64_t count, Pool lines, TextRng& rng) {
  for (int64_t l = 0; l < count; ++l) {
    diff += sign;
    diff += rng.Pick(lines);
    diff += '\n';
  }
}

}  // namespace

void RepoWriter::WritePulls() {
  JsonArrayFile pulls(dir_ / "pulls.json", stats_);
  PrPlan plan;
  PrText text;
  IssuePlan lead;
  for (uint64_t n = timeline().prs(); n-- > 0;) {
    planner_.PlanPr(n, plan);
    const IssuePlan* lead_issue = LeadIssue(plan, lead) ? &lead : nullptr;
    TextRng rng(Key(kTagPrText, n));
    ComposePr(plan, lead_issue, rng, text);
    const fs::path dir = dir_ / "pulls" / IntString(static_cast<int64_t>(plan.number));
    const bool merged = plan.state == PrState::kMerged;
    if (merged || plan.review_comments > 0) fs::create_directory(dir);
    const int64_t last_comment = WritePrComments(plan, dir, rng);
    pulls.Add(PrJson(plan, text, last_comment));
    if (truth_.enabled()) truth_.Add(PrTruth(plan));
    if (merged) {
      WriteCommits(plan, text, dir, rng);
      WriteFiles(plan, lead_issue, dir, rng);
    }
    ++stats_.prs;
  }
  pulls.Finish();
}

// The issue a PR is mostly about: the first it fixes, backports or claims to fix.
bool RepoWriter::LeadIssue(const PrPlan& p, IssuePlan& issue) const {
  uint64_t i = p.false_lead;
  if (!p.fixes.empty())
    i = p.fixes.front();
  else if (!p.backports.empty())
    i = p.backports.front();
  if (i == kNone) return false;
  planner_.PlanIssue(i, issue);
  return true;
}

// "fix #12", "关联 #12", the issue URL, ... or nothing, as the evidence calls for.
void RepoWriter::AppendReference(std::string& out, Evidence evidence, const std::string& number,
                                 bool zh, TextRng& rng) const {
  switch (evidence) {
    case Evidence::kKeyword:
      out += zh ? rng.Pick(kKeywordsZh) : rng.Pick(kKeywordsEn);
      out += " " + IssueRef(number) + "\n";
      break;
    case Evidence::kRef:
      out += zh ? rng.Pick(kRefWordsZh) : rng.Pick(kRefWordsEn);
      out += " " + IssueRef(number) + "\n";
      break;
    case Evidence::kUrl:
      out += zh ? rng.Pick(kUrlLeadsZh) : rng.Pick(kUrlLeadsEn);
      out += IssueUrl(number) + "\n";
      break;
    case Evidence::kKeywordUrl:
      out += zh ? rng.Pick(kKeywordsZh) : rng.Pick(kKeywordsEn);
      out += " " + IssueUrl(number) + "\n";
      break;
    case Evidence::kBranch:
    case Evidence::kSilent:
      break;
  }
}

std::string RepoWriter::ForeignIssueUrl(TextRng& rng) const {
  constexpr int64_t kForeignIssues = 4000;
  std::string url(WebRoot(o_.platform));
  url += rng.Pick(kForeignRepos);
  url += "/issues/";
  url += o_.platform == Platform::kGitee
             ? GiteeStyleNumber(kGiteeNumberBase + rng.Below(kGiteeNumberBase))
             : IntString(rng.Between(1, kForeignIssues));
  return url;
}

// Text that names things without linking an issue of this repository: an issue number
// inside a code block, another repository's issue URL, a PR reference.
void RepoWriter::AppendNoise(std::string& out, const PrPlan& p, bool zh, TextRng& rng) const {
  const uint64_t issues_before = timeline().IssueNear(timeline().PrSlot(p.index));
  if (rng.Percent(kCodeBlockNoisePercent) && issues_before > 0) {
    const std::string ref = IssueRef(IssueNumber(rng.Below(issues_before)));
    out += "\n```bash\n";
    out += rng.Percent(50) ? "# fix " + ref + ": temporary workaround" : "# workaround from " + ref;
    out += ", remove after CANN ";
    out += kCann[p.topic.fixed_cann];
    out += "\nexport ";
    out += kEnvSettings[p.topic.env];
    out += "\n```\n";
  }
  if (rng.Percent(kForeignUrlNoisePercent)) {
    out += zh ? "\n参考上游修复：" : "\nSee the upstream fix: ";
    out += ForeignIssueUrl(rng);
    out += '\n';
  }
  if (rng.Percent(kPrRefNoisePercent) && p.index > 0) {
    out += zh ? "\n依赖 " : "\nDepends on ";
    out += PrRef(PrNumber(rng.Below(p.index)));
    out += zh ? " 先合入。\n" : ".\n";
  }
}

std::string RepoWriter::BranchFor(const std::string& number, TextRng& rng) const {
  if (o_.platform == Platform::kGitee) return rng.Percent(50) ? number : "fix/" + number;
  return (rng.Percent(50) ? "issue-" : "fix/") + number;
}

void RepoWriter::ComposePr(const PrPlan& p, const IssuePlan* lead, TextRng& rng,
                           PrText& text) const {
  const Topic& topic = lead != nullptr ? lead->topic : p.topic;
  constexpr uint32_t kFollowIssueLanguagePercent = 80;
  const bool zh = lead != nullptr && rng.Percent(kFollowIssueLanguagePercent) ? lead->zh : p.zh;
  const TextCtx ctx{topic, p.timing.created, {}, {}, {}};

  // Evidence per fixed issue; a branch can name one issue only.
  std::string refs;
  text.head.clear();
  for (const uint64_t i : p.fixes) {
    auto evidence = static_cast<Evidence>(rng.Weighted(kEvidenceWeights));
    const std::string number = IssueNumber(i);
    if (evidence == Evidence::kBranch) {
      if (p.fixes.size() == 1)
        text.head = BranchFor(number, rng);
      else
        evidence = Evidence::kKeyword;
    }
    AppendReference(refs, evidence, number, zh, rng);
  }
  if (p.kind == PrKind::kBackport) {
    text.head = "cherry-pick-" + IntString(static_cast<int64_t>(PrNumber(p.backport_of)));
    refs += "cherry-pick " + PrRef(PrNumber(p.backport_of)) + "\n";
    for (const uint64_t i : p.backports) {
      AppendReference(refs, Evidence::kRef, IssueNumber(i), zh, rng);
    }
  }
  if (p.kind == PrKind::kFalseLead) {
    constexpr uint32_t kFalseLeadBranchPercent = 30;
    AppendReference(refs, Evidence::kKeyword, lead->number, zh, rng);
    if (rng.Percent(kFalseLeadBranchPercent)) text.head = BranchFor(lead->number, rng);
  }
  if (text.head.empty()) Expand(rng.Pick(kBranchTemplates), ctx, rng, text.head);
  text.base = p.kind == PrKind::kBackport ? std::string(rng.Pick(kReleaseBranches))
                                          : std::string(DefaultBranch());

  ComposePrTitle(p, lead, zh, text.base, ctx, rng, text.title);
  ComposePrBody(p, zh, refs, ctx, rng, text.body);
}

void RepoWriter::ComposePrTitle(const PrPlan& p, const IssuePlan* lead, bool zh,
                                const std::string& base, const TextCtx& ctx, TextRng& rng,
                                std::string& title) const {
  title.clear();
  // A fix written before its issue was filed shares the title verbatim.
  const bool filed_after =
      p.kind == PrKind::kFix && lead->fate.close_mode == CloseMode::kFixedBeforeFiled;
  if (p.kind == PrKind::kBackport) {
    title = "[" + base + "] " + IssueTitle(*lead);
  } else if (lead != nullptr && (filed_after || rng.Percent(kRestateTitlePercent))) {
    if (!filed_after) title = lead->zh ? "修复" : "Fix: ";
    title += IssueTitle(*lead);
  } else if (p.kind == PrKind::kOther) {
    Expand(zh ? rng.Pick(kOtherTitlesZh) : rng.Pick(kOtherTitlesEn), ctx, rng, title);
  } else {
    Expand(zh ? rng.Pick(kFixTitlesZh) : rng.Pick(kFixTitlesEn), ctx, rng, title);
  }
  FitTitle(title, zh, ctx, rng);
}

// Ascend's Chinese PR template, or vllm-ascend's English one.
void RepoWriter::ComposePrBody(const PrPlan& p, bool zh, const std::string& refs,
                               const TextCtx& ctx, TextRng& rng, std::string& body) const {
  body.clear();
  const bool fix_like = p.kind != PrKind::kOther;
  const Pool sentences = fix_like ? (zh ? Pool(kFixSentencesZh) : Pool(kFixSentencesEn))
                                  : (zh ? Pool(kOtherSentencesZh) : Pool(kOtherSentencesEn));
  constexpr size_t kDescriptionMin = 20;
  constexpr size_t kDescriptionMax = 240;
  constexpr uint32_t kTestTablePercent = 30;
  const size_t description = rng.Skewed(kDescriptionMin, kDescriptionMax);
  const std::string_view none = zh ? "无\n" : "N/A\n";
  if (zh) {
    body += "### 关联 Issue\n";
    body += refs.empty() ? none : refs;
    body += "\n### 修改描述\n";
    FillTo(body, CodePoints(body) + description, sentences, "", ctx, rng);
    body += '\n';
    AppendNoise(body, p, zh, rng);
    body += "\n### 自验证\n";
    Expand("- [x] {hw} 验证通过\n- [x] UT 通过\n- [ ] 文档更新\n", ctx, rng, body);
    if (rng.Percent(kTestTablePercent)) {
      body += '\n';
      Expand(kTestTableZh, ctx, rng, body);
    }
  } else {
    body += "### What this PR does / why we need it?\n";
    FillTo(body, CodePoints(body) + description, sentences, " ", ctx, rng);
    body += "\n\n";
    body += refs.empty() ? none : refs;
    AppendNoise(body, p, zh, rng);
    body += "\n### Does this PR introduce _any_ user-facing change?\nNo.\n";
    body += "\n### How was this patch tested?\n";
    Expand("CI passed with new UT; verified on {hw} with CANN {cann}.\n", ctx, rng, body);
    if (rng.Percent(kTestTablePercent)) {
      body += '\n';
      Expand(kTestTableEn, ctx, rng, body);
    }
  }
}

std::string RepoWriter::CommitSha(uint64_t j, uint64_t k) const {
  return HexId(Key(kTagCommitSha, j * kCommitKeysPerPr + k), 40);
}

Json RepoWriter::PrJson(const PrPlan& p, const PrText& text, int64_t last_comment) const {
  const bool merged = p.state == PrState::kMerged;
  const int64_t finished = p.state == PrState::kOpen ? 0 : p.timing.finished;
  const int64_t updated = std::max({p.timing.created, finished, last_comment});

  Json j;
  j["id"] = PrId(p.index);
  j["number"] = p.number;
  if (o_.platform == Platform::kGitCode) j["iid"] = p.number;
  j["title"] = text.title;
  j["body"] = text.body;
  j["state"] = PrStateName(p.state);
  j["user"] = catalog_.users[p.author];
  j["html_url"] = PrUrl(p.number);
  j["created_at"] = Time(p.timing.created);
  j["updated_at"] = Time(updated);
  j["merged_at"] = TimeOrUnset(merged ? finished : 0);
  j["closed_at"] = TimeOrUnset(finished);
  if (github()) {
    j["merge_commit_sha"] = merged ? Json(CommitSha(p.index, kMergeCommitKey)) : Json(nullptr);
  }
  Json head;
  head["label"] = github() ? o_.owner + ":" + text.head : text.head;
  head["ref"] = text.head;
  head["sha"] = CommitSha(p.index, kHeadCommitKey);
  switch (o_.platform) {
    case Platform::kGitCode:
      head["repo"] = {{"full_path", full_name_}};
      break;
    case Platform::kGitee:
      head["repo"] = {{"full_name", full_name_}, {"path", name_}};
      break;
    case Platform::kGitHub:
      head["repo"] = {{"full_name", full_name_}};
      break;
  }
  j["head"] = std::move(head);
  j["base"] = {{"label", github() ? o_.owner + ":" + text.base : text.base}, {"ref", text.base}};
  if (o_.platform == Platform::kGitCode) {
    j["source_branch"] = text.head;
    j["target_branch"] = text.base;
    j["close_related_issue"] = p.kind == PrKind::kFix && p.close_related ? 1 : 0;
    j["merged_by"] = merged ? catalog_.users[p.merger] : Json(nullptr);
  }
  if (github()) j["draft"] = false;
  return j;
}

std::string_view RepoWriter::PrStateName(PrState state) const {
  switch (state) {
    case PrState::kOpen:
      return "open";
    case PrState::kClosed:
      return "closed";
    case PrState::kMerged:
      return github() ? "closed" : "merged";
  }
  return "";
}

// Writes the PR's review comments, if it has any, into dir (which exists then); returns
// the time of the last one (0 if none).
int64_t RepoWriter::WritePrComments(const PrPlan& p, const fs::path& dir, TextRng& rng) {
  if (p.review_comments == 0) return 0;
  constexpr int64_t kOpenReviewWindow = 7 * kDay;
  constexpr uint32_t kMentionIssuePercent = 20;
  const uint64_t count = p.review_comments;
  const int64_t end = p.state == PrState::kOpen
                          ? std::min(kSnapshot, p.timing.created + kOpenReviewWindow)
                          : p.timing.finished;
  const int64_t window = std::max<int64_t>(1, end - p.timing.created);
  const std::string issue_ref =
      p.fixes.empty() ? std::string() : IssueRef(IssueNumber(p.fixes.front()));
  const TextCtx ctx{p.topic, p.timing.created, issue_ref, {}, {}};
  const std::string url = PrUrl(p.number);

  Json array = Json::array();
  int64_t last = 0;
  for (uint64_t k = 0; k < count; ++k) {
    const int64_t time =
        p.timing.created + window * static_cast<int64_t>(k + 1) / static_cast<int64_t>(count + 1);
    last = time;
    const CommentSpec c{time, static_cast<uint32_t>(rng.Below(kMaintainers)), CommentKind::kReview,
                        p.zh};
    BuildComment(c.kind, c.zh, ctx, rng, text_);
    if (k == 0 && !issue_ref.empty() && rng.Percent(kMentionIssuePercent)) {
      text_.insert(0, (p.zh ? "本 PR 修复 " : "This fixes ") + issue_ref + "\n\n");
    }
    const int64_t id = PrId(p.index) * kCommentIdsPerItem + static_cast<int64_t>(k);
    Json j;
    j["id"] = id;
    j["body"] = text_;
    switch (o_.platform) {
      case Platform::kGitCode:
        j["comment_type"] = "pr_comment";
        j["discussion_id"] = HexId(Key(kTagDiscussion, static_cast<uint64_t>(id)), 40);
        j["resolved"] = false;
        break;
      case Platform::kGitee:
        j["html_url"] = url + "#note_" + IntString(id);
        break;
      case Platform::kGitHub:
        j["path"] = kFiles[p.topic.file];
        j["html_url"] = url + "#discussion_r" + IntString(id);
        break;
    }
    j["user"] = catalog_.users[c.user];
    j["created_at"] = Time(time);
    j["updated_at"] = Time(time);
    array.push_back(std::move(j));
  }
  WriteJsonFile(dir / "comments.json", array, stats_);
  stats_.comments += count;
  return last;
}

// 1-3 commits spread from an hour before the PR opened to its merge; the last is the head.
void RepoWriter::WriteCommits(const PrPlan& p, const PrText& text, const fs::path& dir,
                              TextRng& rng) {
  const uint64_t count = 1 + rng.Below(3);
  const int64_t start = p.timing.created - kHour;
  const int64_t span = p.timing.finished - start;
  const std::string& login = catalog_.logins[p.author];
  Json array = Json::array();
  for (uint64_t k = 0; k < count; ++k) {
    const std::string sha = CommitSha(p.index, k + 1 == count ? kHeadCommitKey : k + 1);
    const int64_t when =
        start + span * static_cast<int64_t>(k + 1) / static_cast<int64_t>(count + 1);
    std::string message = k == 0 ? text.title : std::string(rng.Pick(kCommitMessages));
    if (k == 0 && !p.fixes.empty() && rng.Percent(kCommitKeywordPercent)) {
      message += "\n\nfix " + IssueRef(IssueNumber(p.fixes.front()));
    }
    const Json signature = {{"name", catalog_.names[p.author]},
                            {"email", login + "@example.com"},
                            {"date", Time(when)}};
    Json j;
    j["sha"] = sha;
    j["html_url"] = web_url_ + "/commit/" + sha;
    j["commit"] = {{"author", signature}, {"committer", signature}, {"message", message}};
    j["author"] = {{"login", login}};
    array.push_back(std::move(j));
  }
  WriteJsonFile(dir / "commits.json", array, stats_);
}

// 1-4 distinct files; the first is the file the issue names (patch overlap evidence).
void RepoWriter::WriteFiles(const PrPlan& p, const IssuePlan* lead, const fs::path& dir,
                            TextRng& rng) {
  constexpr uint64_t kMaxFiles = 4;
  constexpr uint64_t kFileCount = std::size(kFiles);
  const uint64_t first = lead != nullptr ? lead->topic.file : p.topic.file;
  const uint64_t count = 1 + rng.Below(kMaxFiles);
  const uint64_t step = 1 + rng.Below((kFileCount - 1) / (kMaxFiles - 1));  // keeps them distinct
  Json array = Json::array();
  for (uint64_t k = 0; k < count; ++k) {
    const std::string_view file = kFiles[(first + k * step) % kFileCount];
    const Pool lines = CodeLinesFor(file);
    const int64_t removed = rng.Between(0, 3);
    const int64_t added = rng.Between(1, 6);
    const int64_t at = rng.Between(10, 900);
    std::string diff = "@@ -" + IntString(at) + "," + IntString(removed + 3) + " +" +
                       IntString(at) + "," + IntString(added + 3) + " @@\n";
    AppendDiffLines(diff, '-', removed, lines, rng);
    AppendDiffLines(diff, '+', added, lines, rng);
    const bool is_new = file.starts_with("tests/") && removed == 0;
    Json j;
    j["sha"] = HexId(Key(kTagFileSha, p.index * kMaxFiles + k), 40);
    j["filename"] = file;
    j["status"] = is_new ? "added" : "modified";
    if (github()) {
      j["additions"] = added;
      j["deletions"] = removed;
      j["changes"] = added + removed;
      j["patch"] = diff;
    } else {
      j["additions"] = IntString(added);
      j["deletions"] = IntString(removed);
      j["patch"] = {{"diff", diff},       {"new_path", file},      {"old_path", file},
                    {"new_file", is_new}, {"renamed_file", false}, {"deleted_file", false}};
    }
    array.push_back(std::move(j));
  }
  WriteJsonFile(dir / "files.json", array, stats_);
}

}  // namespace gen_dump
