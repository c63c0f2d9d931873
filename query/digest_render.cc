// Digest renderers: the case summary sentence and Markdown (digest.h); JSON is in digest_json.cc.
#include "digest_render.h"

#include "digest_text.h"

#include "fixgraph/engine/parallel.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace fixgraph::query {
namespace {

namespace dt = digest_text;

bool Zh(Lang l) { return l == Lang::kZh; }

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// The names a patch_overlap detail lists ("...names: a (in the patch); b (...)").
std::vector<std::string> OverlapNames(const std::string& detail, size_t max) {
  std::vector<std::string> out;
  size_t colon = detail.find("names: ");
  if (colon == std::string::npos) return out;
  std::string rest = detail.substr(colon + 7);
  size_t pos = 0;
  while (pos < rest.size() && out.size() < max) {
    size_t end = rest.find("; ", pos);
    if (end == std::string::npos) end = rest.size();
    std::string item = rest.substr(pos, end - pos);
    size_t paren = item.find(" (");
    if (paren != std::string::npos) item.resize(paren);
    if (!item.empty()) out.push_back("`" + item + "`");
    pos = end + 2;
  }
  return out;
}

// The branch a branch_name detail quotes.
std::string QuotedBranch(const std::string& detail) {
  size_t a = detail.find("branch '");
  if (a != std::string::npos) a += 7;
  size_t b = a == std::string::npos ? a : detail.find('\'', a + 1);
  if (a == std::string::npos || b == std::string::npos) return "";
  return detail.substr(a + 1, b - a - 1);
}

std::string DeltaText(std::int64_t d, Lang lang) {
  if (Zh(lang)) {
    if (d == 0) return "关闭与合入同秒";
    if (d > 0) return "合入后 " + std::to_string(d) + " 秒关闭";
    return "关闭早于合入 " + std::to_string(-d) + " 秒";
  }
  if (d == 0) return "closed in the same second";
  if (d > 0) return "closed " + std::to_string(d) + " s after the merge";
  return "closed " + std::to_string(-d) + " s before the merge";
}

std::string EvidenceText(const graph::Evidence& e, const graph::IssueLinks& l, Lang lang) {
  const std::string num = "#" + l.issue.number;
  switch (e.kind) {
    case graph::EvidenceKind::kCloseAtMerge:
      return DeltaText(e.delta_s.value_or(0), lang);
    case graph::EvidenceKind::kClosingKeyword:
      return Zh(lang) ? "以修复关键字声明关闭 " + num : "says it fixes " + num;
    case graph::EvidenceKind::kExplicitUrl:
      return Zh(lang) ? "正文/评论含本 issue 链接" : "carries the issue URL";
    case graph::EvidenceKind::kExplicitRef:
      return Zh(lang) ? "显式引用 " + num : "explicitly references " + num;
    case graph::EvidenceKind::kPlatformLink:
      return Zh(lang) ? "平台记录了双向关联" : "linked by the platform";
    case graph::EvidenceKind::kBranchName: {
      std::string b = QuotedBranch(e.detail);
      if (Zh(lang)) return b.empty() ? "分支名指向本 issue" : "分支名 `" + b + "` 指向本 issue";
      return b.empty() ? "its branch names the issue" : "branch `" + b + "` names the issue";
    }
    case graph::EvidenceKind::kCommentRef:
      return Zh(lang) ? "issue 评论指向该 PR" : "an issue comment points at it";
    case graph::EvidenceKind::kTitleMatch:
      return Zh(lang) ? "PR 标题复述 issue 标题" : "its title restates the issue";
    case graph::EvidenceKind::kPatchOverlap: {
      // A backport's "same files" overlap is told with the backport itself.
      if (e.detail.find("re-applies") != std::string::npos) return "";
      auto names = OverlapNames(e.detail, 3);
      if (Zh(lang))
        return names.empty() ? "补丁改动了 issue 所述内容" : "补丁涉及 " + Join(names, "、");
      return names.empty() ? "the patch touches what the issue names"
                           : "the patch touches " + Join(names, ", ");
    }
    case graph::EvidenceKind::kVerifyCommentClose: {
      std::int64_t d = e.delta_s.value_or(0);
      return Zh(lang) ? "验证评论后 " + std::to_string(d) + " 秒关闭"
                      : "closed " + std::to_string(d) + " s after a verification comment";
    }
  }
  return "";
}

std::string FixText(const graph::FixLink& f, const graph::IssueLinks& l, Lang lang) {
  std::string pr = dt::ShortPr(f.pr, l.issue.repo);
  std::string s = pr;
  std::string title = dt::Truncate(dt::CleanTitle(f.title), 40);
  if (!title.empty()) s += Zh(lang) ? "「" + title + "」" : " \"" + title + "\"";
  bool merged = f.state == "merged" || f.merged_at.has_value();
  if (merged && f.merged_at) {
    s += Zh(lang) ? " " + dt::Date(f.merged_at) + " 合入" : " merged " + dt::Date(f.merged_at);
    if (!f.base_ref.empty()) s += Zh(lang) ? " " + f.base_ref : " into " + f.base_ref;
  } else if (!merged && f.state == "unknown") {
    s += Zh(lang) ? "（不在本库数据中，状态未知）" : " (not in the store; state unknown)";
  } else if (!merged) {
    s += Zh(lang) ? "（状态 " + f.state + "）" : " (" + f.state + ")";
  }
  std::vector<std::string> ev;
  for (const graph::Evidence& e : f.evidence) {
    std::string t = EvidenceText(e, l, lang);
    if (!t.empty()) ev.push_back(std::move(t));
  }
  std::string tier = graph::TierName(f.tier);
  if (!f.backport_of.empty())
    ev.push_back(Zh(lang) ? "为 " + dt::ShortPr(f.backport_of, l.issue.repo) + " 的 backport"
                          : "backport of " + dt::ShortPr(f.backport_of, l.issue.repo));
  if (Zh(lang)) {
    s += "；" + Join(ev, "、") + "（" + tier + " " + TierWord(tier, lang) + "）";
  } else {
    s += "; " + Join(ev, "; ") + " (" + tier + ", " + TierWord(tier, lang) + ")";
  }
  return s;
}

std::string AnswerWho(const graph::Answer& a, Lang lang) {
  std::string date = dt::Date(a.created_at);
  if (Zh(lang)) {
    if (a.kind == "self_solved") return "用户 " + a.author + " " + date + " 自解";
    if (a.kind == "vendor_fix") return a.author + " " + date + " 说明厂商侧修复";
    if (a.kind == "decline") return a.author + " " + date + " 答复不修";
    if (a.kind == "verification") return a.author + " " + date + " 验证";
    return a.author + " " + date + " 答复";
  }
  if (a.kind == "self_solved") return "the reporter " + a.author + " solved it (" + date + ")";
  if (a.kind == "vendor_fix") return a.author + " reported a vendor-side fix (" + date + ")";
  if (a.kind == "decline") return a.author + " declined (" + date + ")";
  return a.author + " answered (" + date + ")";
}

std::string FlagText(graph::Flag f, const graph::IssueLinks& l, Lang lang) {
  const graph::FixLink* first = nullptr;
  for (const graph::FixLink& x : l.fixes)
    if (x.merged_at && (!first || *x.merged_at < *first->merged_at)) first = &x;
  switch (f) {
    case graph::Flag::kFixBeforeIssue: {
      std::string pr = first ? dt::ShortPr(first->pr, l.issue.repo) : std::string("PR");
      if (Zh(lang))
        return "时序：" + pr + " 创建早于 issue（" +
               dt::Date(first ? first->created_at : OptTime()) + " 对 " + dt::Date(l.created_at) +
               "），先修后补单";
      return "timeline: " + pr + " was opened before the issue (" +
             dt::Date(first ? first->created_at : OptTime()) + " vs " + dt::Date(l.created_at) +
             "), fixed first, filed later";
    }
    case graph::Flag::kCloseLag: {
      std::int64_t days = 0;
      if (first && first->merged_at && l.closed_at)
        days = (*l.closed_at - *first->merged_at) / 86400;
      if (Zh(lang))
        return "关闭滞后：合入 " + std::to_string(days) + " 天后才关闭（关闭时间≠修复时间）";
      return "close lag: closed " + std::to_string(days) +
             " days after the merge (the close time is not the fix time)";
    }
    case graph::Flag::kFalseLead: {
      std::vector<std::string> prs;
      for (const std::string& p : l.false_leads) prs.push_back(dt::ShortPr(p, l.issue.repo));
      std::string list = prs.empty() ? std::string("PR") : Join(prs, Zh(lang) ? "、" : ", ");
      return Zh(lang) ? "假线索：被引用的 " + list + " 从未合入，非修复载体"
                      : "false lead: " + list + " was referenced but never merged";
    }
    case graph::Flag::kBackport:
      return "";  // told with the fix ("backport of !x")
    case graph::Flag::kCrossPlatform:
      return Zh(lang) ? "修复在其他平台/仓库" : "the fix lives on another platform";
    case graph::Flag::kTraceless:
      return Zh(lang) ? "仓内无 PR，修复不留痕" : "no change in the repository (traceless fix)";
  }
  return "";
}

}  // namespace

const char* TierWord(const std::string& tier, Lang lang) {
  if (Zh(lang)) {
    if (tier == "A") return "铁证";
    if (tier == "B") return "显式";
    if (tier == "C") return "隐式";
    if (tier == "D") return "推断";
    return "无";
  }
  if (tier == "A") return "machine-verified";
  if (tier == "B") return "explicit";
  if (tier == "C") return "implicit";
  if (tier == "D") return "inferred";
  return "none";
}

std::string RepoRole(const DigestRepo& r, Lang lang) {
  if (!r.role.empty()) return r.role;
  std::vector<std::string> paths;
  for (const std::string& p : r.top_paths) paths.push_back("`" + p + "`");
  std::vector<std::string> parts;
  if (!paths.empty())
    parts.push_back(Zh(lang) ? "修复多涉及 " + Join(paths, "、")
                             : "fixes mostly change " + Join(paths, ", "));
  if (!r.top_labels.empty())
    parts.push_back(Zh(lang) ? "issue 标签多为 " + Join(r.top_labels, "、")
                             : "issues mostly labelled " + Join(r.top_labels, ", "));
  std::string name = r.repo.FullName();
  if (parts.empty())
    return Zh(lang) ? name + "（仓库未填描述）" : name + " (the repository has no description)";
  return Zh(lang) ? "（仓库未填描述）" + Join(parts, "；")
                  : "(no repository description) " + Join(parts, "; ");
}

namespace {

// Markdown `text` with the first mention of each PR the case links turned
// into a link to its page; code spans are left alone.
std::string MdLinkPrs(const std::string& text, const DigestCase& c) {
  return dt::LinkMentions(
      text, dt::PrMentions(c.pr_urls, c.links.issue.repo), '`', '`', /*first_only=*/true,
      [](const std::string& m, const std::string& url) { return "[" + m + "](" + url + ")"; });
}

}  // namespace

std::string CaseSummary(const Digest& d, const DigestCase& c, Lang lang) {
  (void)d;
  const graph::IssueLinks& l = c.links;
  const std::string sep = Zh(lang) ? "。" : ". ";
  std::vector<std::string> parts;
  if (l.resolution == graph::Resolution::kDuplicate && l.duplicate_of) {
    std::string target = dt::ShortIssue(l.duplicate_of->ToString(), l.issue.repo);
    parts.push_back(Zh(lang)
                        ? "与 " + target + " 重复，修复经 " + target + " 的链路推断"
                        : "duplicate of " + target + "; the fix is inferred through " + target);
  }
  // What was wrong and what the fix changed, in the fix's own words.
  if (!c.note_pr.empty()) {
    std::string pr = dt::ShortPr(c.note_pr, l.issue.repo);
    if (!c.cause.empty())
      parts.push_back(Zh(lang) ? "原因（" + pr + " 说明）：" + c.cause
                               : "Cause (from " + pr + "): " + c.cause);
    if (!c.change.empty())
      parts.push_back(Zh(lang) ? "修改（" + pr + " 说明）：" + c.change
                               : "Change (from " + pr + "): " + c.change);
  }
  if (l.answer && !l.answer->text.empty()) {
    std::string text = dt::Truncate(dt::Squash(l.answer->text), 110);
    parts.push_back(AnswerWho(*l.answer, lang) + (Zh(lang) ? "：" : ": ") + text);
  }
  const size_t max_fixes = 3;
  for (size_t i = 0; i < l.fixes.size() && i < max_fixes; ++i)
    parts.push_back(FixText(l.fixes[i], l, lang));
  if (l.fixes.size() > max_fixes) {
    std::vector<std::string> rest;
    for (size_t i = max_fixes; i < l.fixes.size(); ++i)
      rest.push_back(dt::ShortPr(l.fixes[i].pr, l.issue.repo) + " (" +
                     graph::TierName(l.fixes[i].tier) + ")");
    parts.push_back((Zh(lang) ? "另有 " : "also ") + Join(rest, Zh(lang) ? "、" : ", "));
  }
  for (const graph::Evidence& e : l.evidence) parts.push_back(EvidenceText(e, l, lang));
  if (l.fixes.empty() && (l.resolution == graph::Resolution::kAnswered))
    parts.emplace_back(Zh(lang) ? "无代码改动" : "no code change");
  for (graph::Flag f : l.flags) {
    std::string t = FlagText(f, l, lang);
    if (!t.empty()) parts.push_back(t);
  }
  if (l.closed_at)
    parts.push_back(Zh(lang) ? dt::Date(l.closed_at) + " 关闭" : "closed " + dt::Date(l.closed_at));
  for (std::string& p : parts) p = dt::TrimSentenceEnd(p);
  // A part cut with "…" ends there: no period after it in English ("…. ").
  const std::string ellipsis = "…";
  auto cut = [&](const std::string& p) {
    return p.size() >= ellipsis.size() &&
           p.compare(p.size() - ellipsis.size(), ellipsis.size(), ellipsis) == 0;
  };
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += !Zh(lang) && cut(parts[i - 1]) ? " " : sep;
    s += parts[i];
  }
  if (s.empty()) return s;
  return s + (!Zh(lang) && cut(parts.back()) ? "" : Zh(lang) ? "。" : ".");
}

namespace {

struct Words {
  const char* overview;
  const char* repo_col;
  const char* role_col;
  const char* count_col;
  const char* num_col;
  const char* problem_col;
  const char* summary_col;
  const char* themes;
  const char* trouble;
  const char* symptom_col;
  const char* action_col;
  const char* cases_col;
  const char* disclosure;
};

const Words& W(Lang lang) {
  static const Words zh{"总览",           "仓库",     "定位",          "收录条数", "编号",
                        "Issue 问题内容", "解答总结", "主题归纳",      "排错指引", "症状",
                        "第一优先动作",   "相关案例", "考据与口径披露"};
  static const Words en{"Overview",
                        "Repository",
                        "Role",
                        "Included",
                        "No.",
                        "Problem",
                        "Resolution",
                        "Themes",
                        "Troubleshooting",
                        "Symptom",
                        "First action",
                        "Cases",
                        "Evidence and disclosure"};
  return Zh(lang) ? zh : en;
}

std::string RefList(const Digest& d, const std::vector<std::string>& refs, const std::string& sep) {
  std::vector<std::string> v;
  v.reserve(refs.size());
  for (const std::string& r : refs) v.push_back(IssueLabel(d, r));
  return Join(v, sep);
}

}  // namespace

bool AnyLikely(const Digest& d) {
  return std::any_of(d.excluded.begin(), d.excluded.end(),
                     [](const DigestExcluded& e) { return !e.suggested.empty(); });
}

const char* LikelyHeading(Lang lang) {
  return Zh(lang) ? "可能的修复（未经验证）" : "Likely fixes, not verified";
}

const char* LikelyIntro(Lang lang) {
  return Zh(lang)
             ? "以下 issue 没有可信的修复关联；按排序模型列出最可能的修复 PR "
               "及其概率，仅供核查，不计入上文统计。"
             : "These issues have no trusted fix link; the ranking's most likely fix PRs and their "
               "probabilities are listed for checking, and are not counted above.";
}

std::vector<std::string> LikelyFixes(const DigestExcluded& e) {
  std::vector<std::string> parts;
  auto ref = ParseRef(e.issue);
  for (size_t i = 0; i < e.suggested.size() && i < 3; ++i) {
    const graph::FixLink& f = e.suggested[i];
    char p[16];
    std::snprintf(p, sizeof p, "%.2f", f.confidence);
    std::string pr = ref.ok() ? dt::ShortPr(f.pr, ref->repo) : f.pr;
    parts.push_back(pr + " (" + p + ") " + dt::CleanTitle(f.title));
  }
  return parts;
}

DisclosureCounts CountDisclosure(const Digest& d) {
  DisclosureCounts c;
  for (const DigestCase* k : d.Cases()) {
    const graph::IssueLinks& l = k->links;
    std::string id = l.issue.ToString();
    c.resolutions[graph::ResolutionName(l.resolution)]++;
    c.issues_by_tier[k->tier.empty() ? "none" : k->tier]++;
    for (const graph::FixLink& f : l.fixes) {
      c.links_by_tier[graph::TierName(f.tier)]++;
      for (const graph::Evidence& e : f.evidence)
        c.links_by_evidence[graph::EvidenceKindName(e.kind)]++;
    }
    for (const graph::Evidence& e : l.evidence)
      c.links_by_evidence[graph::EvidenceKindName(e.kind)]++;
    for (graph::Flag f : l.flags) {
      if (f == graph::Flag::kTraceless) {
        std::string kind =
            l.answer && l.answer->kind == "vendor_fix" ? "vendor_fix" : "service_side";
        c.traceless[kind].push_back(id);
      } else {
        c.traps[graph::FlagName(f)].push_back(id);
      }
      if (f == graph::Flag::kCrossPlatform) c.traceless["other_platform"].push_back(id);
    }
  }
  for (const DigestExcluded& e : d.excluded) c.excluded_by_reason[e.reason]++;
  return c;
}

const char* ReasonWord(const std::string& reason, Lang lang) {
  static const std::map<std::string, std::pair<const char*, const char*>> kWords = {
      {"stale", {"过期关闭", "stale"}},
      {"wontfix", {"不修", "won't fix"}},
      {"duplicate", {"重复", "duplicate"}},
      {"no_evidence", {"无证据", "no evidence"}},
      {"open", {"未关闭", "still open"}},
      {"below_min_tier", {"证据层级不足", "below the minimum tier"}},
  };
  auto it = kWords.find(reason);
  if (it == kWords.end()) return reason.c_str();
  return Zh(lang) ? it->second.first : it->second.second;
}

const char* TrapWord(const std::string& flag, Lang lang) {
  static const std::map<std::string, std::pair<const char*, const char*>> kWords = {
      {"fix_before_issue",
       {"先合码后补单（PR 早于 issue）", "fix before issue (PR opened before the issue)"}},
      {"close_lag",
       {"关闭滞后（合入 7 天后才关闭）", "close lag (closed over 7 days after the merge)"}},
      {"false_lead",
       {"假线索（被引用但从未合入的 PR）", "false lead (a referenced PR never merged)"}},
      {"backport",
       {"backport（同一修复再合入发布分支）",
        "backport (the fix merged again into a release branch)"}},
      {"cross_platform", {"跨平台/跨仓修复", "fixed on another platform or repository"}},
      {"vendor_fix", {"厂商侧修复（如 CANN DTS）", "vendor-side fix (e.g. a CANN DTS)"}},
      {"service_side", {"服务端/官网侧修复", "service-side or website fix"}},
      {"other_platform", {"修复落在其他平台", "fix on another platform"}},
  };
  auto it = kWords.find(flag);
  if (it == kWords.end()) return flag.c_str();
  return Zh(lang) ? it->second.first : it->second.second;
}

const char* EvidenceWord(const std::string& kind, Lang lang) {
  static const std::map<std::string, std::pair<const char*, const char*>> kWords = {
      {"close_at_merge", {"合入即关闭", "closed at merge"}},
      {"closing_keyword", {"修复关键字", "closing keyword"}},
      {"explicit_url", {"含 issue 链接", "issue URL"}},
      {"explicit_ref", {"显式引用", "explicit reference"}},
      {"platform_link", {"平台关联", "platform link"}},
      {"branch_name", {"分支名指向", "branch name"}},
      {"comment_ref", {"评论指向", "comment reference"}},
      {"title_match", {"标题复述", "title match"}},
      {"patch_overlap", {"补丁重合", "patch overlap"}},
      {"verify_comment_close", {"验证后关闭", "closed after verification"}},
  };
  auto it = kWords.find(kind);
  if (it == kWords.end()) return kind.c_str();
  return Zh(lang) ? it->second.first : it->second.second;
}

const char* FlagWord(const std::string& flag, Lang lang) {
  static const std::map<std::string, std::pair<const char*, const char*>> kWords = {
      {"fix_before_issue", {"先修后补单", "fix before issue"}},
      {"close_lag", {"关闭滞后", "close lag"}},
      {"false_lead", {"假线索", "false lead"}},
      {"backport", {"回合发布分支", "backport"}},
      {"cross_platform", {"跨平台修复", "cross-platform fix"}},
      {"traceless", {"修复不留痕", "traceless fix"}},
  };
  auto it = kWords.find(flag);
  if (it == kWords.end()) return flag.c_str();
  return Zh(lang) ? it->second.first : it->second.second;
}

std::string ExcludedDetail(const Digest& d, const DigestExcluded& e, Lang lang) {
  if (e.reason == "stale" || e.reason == "wontfix")
    return e.detail;  // the note or answer, as found
  if (e.reason == "duplicate") {
    const std::string prefix = "duplicate of ";
    if (e.detail.rfind(prefix, 0) != 0) return "";
    std::string target = IssueLabel(d, e.detail.substr(prefix.size()));
    return Zh(lang) ? "与 " + target + " 重复" : "duplicate of " + target;
  }
  if (e.reason == "below_min_tier") {
    size_t p = e.detail.find("tier ");
    std::string tier = p == std::string::npos ? "" : e.detail.substr(p + 5, 1);
    return Zh(lang) ? "最强关联为 " + tier + " 层，低于 --min-tier" : e.detail;
  }
  if (e.reason == "open") return "";
  return Zh(lang) ? "未找到修复、答复或验证" : e.detail;
}

std::string ThemeHeading(const Digest& d, const DigestTheme& t, Lang lang) {
  std::vector<std::string> repo_names;
  for (const std::string& r : t.repos) repo_names.push_back(RepoLabel(d, r));
  std::string repos = Join(repo_names, Zh(lang) ? "、" : ", ");
  std::vector<std::string> terms;
  for (const std::string& term : t.terms) terms.push_back("`" + term + "`");
  if (t.via == "repo")
    return Zh(lang) ? repos + "：其余 " + std::to_string(t.issues.size()) + " 条"
                    : repos + ": the other " + std::to_string(t.issues.size()) + " cases";
  if (t.via == "rest")
    return Zh(lang)
               ? "零散案例（" + std::to_string(t.issues.size()) + " 条，各仓仅一条未归入上述主题）"
               : "Other cases (" + std::to_string(t.issues.size()) +
                     ", one per repository outside the themes above)";
  // Shared fix PRs name a graph theme best.
  std::map<std::string, int> shared;
  for (const std::string& id : t.issues) {
    const DigestCase* c = d.Find(id);
    if (!c) continue;
    std::set<std::string> seen;
    for (const graph::FixLink& f : c->links.fixes)
      if (seen.insert(f.pr).second) shared[f.pr]++;
  }
  std::vector<std::string> prs;
  for (const auto& [pr, n] : shared)
    if (n >= 2) prs.push_back(pr.substr(pr.rfind('/') + 1));
  std::string what;
  if (!prs.empty()) {
    what = Zh(lang) ? "共用修复 " + Join(prs, "、") : "shared fix " + Join(prs, ", ");
  }
  if (!terms.empty()) {
    std::string tt = Join(terms, " / ");
    what = what.empty() ? tt : what + (Zh(lang) ? "；" : "; ") + tt;
  }
  if (what.empty()) what = Zh(lang) ? "相互引用的案例" : "cross-referenced cases";
  return what + (Zh(lang) ? "（" + repos + "）" : " (" + repos + ")");
}

std::string ThemeBullet(const Digest& d, const std::string& id, Lang lang) {
  const DigestCase* c = d.Find(id);
  if (!c) return IssueLabel(d, id);
  const graph::IssueLinks& l = c->links;
  std::string s = IssueLabel(d, id) + " " + c->problem;
  std::string tail;
  if (!l.fixes.empty()) {
    const graph::FixLink& f = l.fixes.front();
    tail = dt::ShortPr(f.pr, l.issue.repo) + " (" + graph::TierName(f.tier) + " " +
           TierWord(graph::TierName(f.tier), lang) + ")";
  } else if (l.answer && !l.answer->text.empty()) {
    tail = dt::Truncate(dt::LeadSentences(l.answer->text, 12), 50);
  }
  if (!tail.empty()) s += Zh(lang) ? " —— " + tail : " — " + tail;
  return s;
}

std::string RenderInOrder(size_t n, const std::function<void(size_t, std::string*)>& fn) {
  // Enough chunks to balance uneven items over the cores, few enough that
  // each is worth a task.
  const size_t chunks = std::min<size_t>(n, 64);
  std::vector<std::string> parts(chunks);
  ParallelFor(chunks, HardwareThreads(), [&](size_t c, size_t) {
    for (size_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) fn(i, &parts[c]);
  });
  size_t total = 0;
  for (const std::string& p : parts) total += p.size();
  std::string out;
  out.reserve(total);
  for (const std::string& p : parts) out += p;
  return out;
}

namespace {

// The Markdown disclosure section: link and issue counts by tier, evidence
// kinds, resolutions, timeline traps, traceless fixes, the excluded issues and
// the candidate counts (`included` cases of d.considered).
void WriteMdDisclosure(const Digest& d, Lang lang, size_t included, std::ostream& o) {
  DisclosureCounts k = CountDisclosure(d);
  o << "## " << W(lang).disclosure << "\n\n";
  auto counts = [&](const std::map<std::string, std::int64_t>& m) {
    std::vector<std::string> v;
    v.reserve(m.size());
    for (const auto& [name, n] : m) v.push_back("`" + name + "` " + std::to_string(n));
    return v.empty() ? std::string(Zh(lang) ? "无" : "none") : Join(v, Zh(lang) ? "，" : ", ");
  };
  std::int64_t links = 0;
  for (const auto& [t, n] : k.links_by_tier) links += n;
  if (Zh(lang)) {
    o << "- 关联分层：共 " << links << " 条修复关联，按层级 " << counts(k.links_by_tier)
      << "（A 铁证 = 合入与关闭秒级一致且无竞争，或显式关联经关闭时间印证；B 显式；C 隐式；D "
         "推断，仅展示不作结论）。\n";
    o << "- 按 issue 的最强证据：" << counts(k.issues_by_tier)
      << "（none = 无 PR，以评论答复/验证为准）。\n";
    o << "- 证据种类（每条关联的每项证据计一次）：" << counts(k.links_by_evidence) << "。\n";
    o << "- 解决方式：" << counts(k.resolutions) << "。\n";
  } else {
    o << "- Links by tier: " << links << " fix links; " << counts(k.links_by_tier)
      << " (A machine-verified: closed within seconds of the merge with no competitor, or an "
         "explicit link the close time corroborates; B explicit; C implicit; D inferred, shown "
         "but not trusted).\n";
    o << "- Issues by their strongest link: " << counts(k.issues_by_tier)
      << " (none = no PR; the answer or verification stands).\n";
    o << "- Evidence kinds (each piece of evidence on each link): " << counts(k.links_by_evidence)
      << ".\n";
    o << "- Resolutions: " << counts(k.resolutions) << ".\n";
  }
  o << (Zh(lang) ? "- 时序陷阱：" : "- Timeline traps:");
  if (k.traps.empty()) o << (Zh(lang) ? "无" : " none");
  o << "\n";
  for (const auto& [flag, ids] : k.traps)
    o << "  - " << TrapWord(flag, lang) << (Zh(lang) ? " " : ": ") << ids.size()
      << (Zh(lang) ? " 条：" : " - ") << RefList(d, ids, Zh(lang) ? "、" : ", ") << "\n";
  o << (Zh(lang) ? "- 修复不留痕（按形态）：" : "- Traceless fixes by kind:");
  if (k.traceless.empty()) o << (Zh(lang) ? "无" : " none");
  o << "\n";
  for (const auto& [kind, ids] : k.traceless)
    o << "  - " << TrapWord(kind, lang) << (Zh(lang) ? " " : ": ") << ids.size()
      << (Zh(lang) ? " 条：" : " - ") << RefList(d, ids, Zh(lang) ? "、" : ", ") << "\n";
  o << (Zh(lang) ? "- 诚实弃收：" : "- Excluded:");
  if (d.excluded.empty()) o << (Zh(lang) ? "无" : " none");
  o << "\n";
  o << RenderInOrder(d.excluded.size(), [&](size_t i, std::string* s) {
    const DigestExcluded& e = d.excluded[i];
    *s += "  - " + IssueLabel(d, e.issue) + (Zh(lang) ? "（" : " (") + ReasonWord(e.reason, lang) +
          (Zh(lang) ? "）" : ") ") + dt::Truncate(e.title, 40);
    std::string detail = ExcludedDetail(d, e, lang);
    if (!detail.empty()) *s += (Zh(lang) ? "：" : ": ") + detail;
    *s += "\n";
  });
  if (Zh(lang)) {
    o << "- 候选统计：考察 " << d.considered << " 条，收录 " << included << " 条，弃收 "
      << d.excluded.size() << " 条（" << counts(k.excluded_by_reason) << "）。\n";
  } else {
    o << "- Candidates: " << d.considered << " considered, " << included << " included, "
      << d.excluded.size() << " excluded (" << counts(k.excluded_by_reason) << ").\n";
  }
}

}  // namespace

std::string RenderMarkdown(const Digest& d, Lang lang) {
  const Words& w = W(lang);
  std::ostringstream o;
  std::vector<const DigestCase*> cases = d.Cases();
  if (Zh(lang)) {
    o << "# 开源仓 Issue 分析解答精选（截至 " << d.as_of << "）\n\n";
    o << "本篇收录 " << d.repos.size() << " 个仓库的 " << cases.size()
      << " 条已解决 issue。每条的修复 "
         "PR、合入时间与关联证据均取自仓库数据，证据分层见文末披露。\n\n";
  } else {
    o << "# Resolved issues digest (as of " << d.as_of << ")\n\n";
    o << "This digest covers " << cases.size() << " resolved issues from " << d.repos.size()
      << " repositories. Every fix PR, merge time and piece of evidence comes from the repository "
         "data; the evidence tiers are disclosed at the end.\n\n";
  }
  if (cases.empty()) {
    o << (Zh(lang) ? "所选范围内没有可收录的 issue。\n\n"
                   : "No issue in the selection qualifies.\n\n");
  }
  o << "## " << w.overview << "\n\n";
  o << "| " << w.repo_col << " | " << w.role_col << " | " << w.count_col << " |\n|---|---|---|\n";
  for (const DigestRepo& r : d.repos)
    o << "| " << dt::MdCell(r.repo.FullName()) << " | " << dt::MdCell(RepoRole(r, lang)) << " | "
      << r.cases.size() << " |\n";
  o << "\n";
  // The repository tables, the themes and the exclusions are most of the
  // text: rendered side by side in chunks, then joined in order.
  o << RenderInOrder(d.repos.size(), [&](size_t i, std::string* t) {
    const DigestRepo& r = d.repos[i];
    *t += "## " + r.repo.FullName() + "\n\n";
    *t += RepoRole(r, lang) + "\n\n";
    *t += std::string("| ") + w.num_col + " | " + w.problem_col + " | " + w.summary_col +
          " |\n|---|---|---|\n";
    for (const DigestCase& c : r.cases) {
      *t += "| [#" + c.number + "](" + c.url + ") | ";
      *t += dt::MdCell(c.problem);
      *t += " | ";
      *t += MdLinkPrs(dt::MdCell(CaseSummary(d, c, lang)), c);
      *t += " |\n";
    }
    *t += "\n";
  });
  if (!d.themes.empty()) {
    o << "## " << w.themes << "\n\n";
    // One entry per heading and per bullet, so a large theme is split too.
    constexpr auto kHeading = static_cast<size_t>(-1);
    std::vector<std::pair<size_t, size_t>> entries;  // (theme, issue or kHeading)
    for (size_t k = 0; k < d.themes.size(); ++k) {
      entries.emplace_back(k, kHeading);
      for (size_t j = 0; j < d.themes[k].issues.size(); ++j) entries.emplace_back(k, j);
    }
    o << RenderInOrder(entries.size(), [&](size_t e, std::string* s) {
      const auto [k, j] = entries[e];
      const DigestTheme& t = d.themes[k];
      if (j == kHeading) {
        *s += "### " + std::to_string(t.id) + ". " + ThemeHeading(d, t, lang) + "\n\n";
        if (t.issues.empty()) *s += "\n";
        return;
      }
      *s += "- " + ThemeBullet(d, t.issues[j], lang) + "\n";
      if (j + 1 == t.issues.size()) *s += "\n";
    });
  }
  if (!d.troubleshooting.empty()) {
    o << "## " << w.trouble << "\n\n";
    o << "| " << w.symptom_col << " | " << w.action_col << " | " << w.cases_col
      << " |\n|---|---|---|\n";
    for (const DigestTroubleRow& r : d.troubleshooting)
      o << "| " << dt::MdCell(r.symptom) << " | " << dt::MdCell(r.action) << " | "
        << dt::MdCell(RefList(d, r.cases, Zh(lang) ? "、" : ", ")) << " |\n";
    o << "\n";
  }
  // Likely fixes of excluded issues: suggestions, apart from the trusted tables.
  if (AnyLikely(d)) {
    o << "## " << LikelyHeading(lang) << "\n\n" << LikelyIntro(lang) << "\n\n";
    for (const DigestExcluded& e : d.excluded) {
      if (e.suggested.empty()) continue;
      o << "- " << dt::MdCell(IssueLabel(d, e.issue) + " " + e.title) << ": "
        << dt::MdCell(Join(LikelyFixes(e), "; ")) << "\n";
    }
    o << "\n";
  }
  WriteMdDisclosure(d, lang, cases.size(), o);
  return o.str();
}

}  // namespace fixgraph::query
