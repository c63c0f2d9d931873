// The digest as one self-contained HTML page, with an SVG timeline (digest.h).
#include <algorithm>
#include <sstream>

#include "digest_render.h"
#include "digest_text.h"
#include "fixgraph/query/digest.h"

namespace fixgraph::query {
namespace {

namespace dt = digest_text;

bool Zh(Lang l) { return l == Lang::kZh; }

const char* kCss = R"(body{font-family:"Noto Sans CJK SC","WenQuanYi Micro Hei","Noto Sans",sans-serif;margin:24px auto;max-width:1150px;color:#1f2328;line-height:1.5}
h1{font-size:26px;border-bottom:2px solid #d0d7de;padding-bottom:6px}h2{font-size:21px;margin-top:32px;border-bottom:1px solid #d0d7de}
h3{font-size:17px}table{border-collapse:collapse;width:100%;margin:8px 0 18px;font-size:14px}
th,td{border:1px solid #d0d7de;padding:6px 8px;vertical-align:top;text-align:left}th{background:#f6f8fa}
tr:nth-child(even) td{background:#fbfcfd}.num{white-space:nowrap}.role{color:#57606a}
.badge{display:inline-block;border-radius:10px;padding:0 7px;margin:1px 2px;font-size:12px;font-weight:600;color:#fff}
.tA{background:#1a7f37}.tB{background:#0969da}.tC{background:#9a6700}.tD{background:#8c959f}.tn{background:#6e7781}
.ev{background:#eaeef2;color:#24292f;font-weight:400}.flag{background:#cf222e}
.legend span{margin-right:14px}svg text{font-size:11px;fill:#24292f}code{background:#f6f8fa;padding:0 3px})";

std::string Badge(const std::string& tier, Lang lang) {
  std::string cls = tier.empty() ? "tn" : "t" + tier;
  std::string label = tier.empty() ? (Zh(lang) ? "无 PR" : "no PR") : tier + " " + TierWord(tier, lang);
  return "<span class=\"badge " + cls + "\" data-tier=\"" + (tier.empty() ? "none" : tier) + "\">" +
         dt::Html(label) + "</span>";
}

std::string EvidenceBadges(const DigestCase& c) {
  std::string out;
  std::vector<std::string> kinds;
  for (const graph::FixLink& f : c.links.fixes)
    for (const graph::Evidence& e : f.evidence) kinds.push_back(graph::EvidenceKindName(e.kind));
  for (const graph::Evidence& e : c.links.evidence) kinds.push_back(graph::EvidenceKindName(e.kind));
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  for (const std::string& k : kinds) out += "<span class=\"badge ev\">" + dt::Html(k) + "</span>";
  for (graph::Flag f : c.links.flags)
    out += "<span class=\"badge flag\">" + dt::Html(graph::FlagName(f)) + "</span>";
  return out;
}

// Inline code spans of the Markdown-ish text become <code>.
std::string HtmlText(const std::string& s) {
  std::string out;
  bool code = false;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '`') {
      std::string part = dt::Html(s.substr(start, i - start));
      out += part;
      if (i < s.size()) out += code ? "</code>" : "<code>";
      code = !code;
      start = i + 1;
    }
  }
  if (!code) out += "</code>";  // unbalanced: close it
  return out;
}

}  // namespace

std::string RenderTimelineSvg(const Digest& d, Lang lang) {
  std::vector<const DigestCase*> cases = d.Cases();
  const int row_h = 22, label_w = 250, bar_w = 640, right_w = 200, top = 34;
  const int width = label_w + bar_w + right_w;
  const int height = top + row_h * static_cast<int>(cases.size()) + 12;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"" << width
    << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\">";
  o << "<title>" << (Zh(lang) ? "时间线：issue 创建 → PR 合入 → issue 关闭" : "Timeline: issue created → PR merged → issue closed")
    << "</title>";
  // Legend.
  o << "<circle cx=\"10\" cy=\"14\" r=\"5\" fill=\"#0969da\"/><text x=\"20\" y=\"18\">"
    << (Zh(lang) ? "issue 创建" : "issue created") << "</text>";
  o << "<rect x=\"115\" y=\"9\" width=\"10\" height=\"10\" fill=\"#1a7f37\"/><text x=\"130\" y=\"18\">"
    << (Zh(lang) ? "PR 合入" : "PR merged") << "</text>";
  o << "<circle cx=\"215\" cy=\"14\" r=\"5\" fill=\"#cf222e\"/><text x=\"225\" y=\"18\">"
    << (Zh(lang) ? "issue 关闭" : "issue closed") << "</text>";
  o << "<text x=\"320\" y=\"18\">"
    << (Zh(lang) ? "（每行按自身时间跨度缩放）" : "(each row scaled to its own span)") << "</text>";
  // Rows side by side (RenderInOrder), each into its own stream.
  o << RenderInOrder(cases.size(), [&](size_t i, std::string* row) {
    const DigestCase* c = cases[i];
    const int y = top + row_h * static_cast<int>(i);
    std::ostringstream part;
    const graph::IssueLinks& l = c->links;
    std::vector<std::int64_t> merges;
    for (const graph::FixLink& f : l.fixes)
      if (f.merged_at) merges.push_back(*f.merged_at);
    std::vector<std::int64_t> all = merges;
    if (l.created_at) all.push_back(*l.created_at);
    if (l.closed_at) all.push_back(*l.closed_at);
    part << "<g class=\"row\" data-issue=\"" << dt::Html(l.issue.ToString()) << "\">";
    part << "<text x=\"4\" y=\"" << y + 14 << "\">" << dt::Html(IssueLabel(d, l.issue.ToString()))
      << "</text>";
    part << "<line x1=\"" << label_w << "\" y1=\"" << y + 10 << "\" x2=\"" << label_w + bar_w
      << "\" y2=\"" << y + 10 << "\" stroke=\"#d0d7de\"/>";
    if (!all.empty()) {
      std::int64_t lo = *std::min_element(all.begin(), all.end());
      std::int64_t hi = *std::max_element(all.begin(), all.end());
      auto x = [&](std::int64_t t) {
        if (hi == lo) return label_w + bar_w / 2;
        return label_w + static_cast<int>((t - lo) * static_cast<double>(bar_w - 10) / (hi - lo)) + 5;
      };
      for (std::int64_t m : merges)
        part << "<rect class=\"merged\" x=\"" << x(m) - 5 << "\" y=\"" << y + 5
          << "\" width=\"10\" height=\"10\" fill=\"#1a7f37\"/>";
      if (l.created_at)
        part << "<circle class=\"created\" cx=\"" << x(*l.created_at) << "\" cy=\"" << y + 10
          << "\" r=\"5\" fill=\"#0969da\"/>";
      if (l.closed_at)
        part << "<circle class=\"closed\" cx=\"" << x(*l.closed_at) << "\" cy=\"" << y + 10
          << "\" r=\"5\" fill=\"#cf222e\" fill-opacity=\"0.8\"/>";
      std::int64_t span = hi - lo;
      std::string span_text = span >= 86400 ? std::to_string(span / 86400) + (Zh(lang) ? " 天" : " d")
                              : span >= 3600 ? std::to_string(span / 3600) + (Zh(lang) ? " 小时" : " h")
                                             : std::to_string(span / 60) + (Zh(lang) ? " 分钟" : " min");
      part << "<text x=\"" << label_w + bar_w + 8 << "\" y=\"" << y + 14 << "\">"
        << dt::Html(dt::Date(OptTime(lo))) << " +" << span_text << "</text>";
    }
    part << "</g>";
    *row += part.str();
  });
  o << "</svg>";
  return o.str();
}

std::string RenderHtml(const Digest& d, Lang lang) {
  std::vector<const DigestCase*> cases = d.Cases();
  std::ostringstream o;
  std::string title = Zh(lang) ? "开源仓 Issue 分析解答精选（截至 " + d.as_of + "）"
                               : "Resolved issues digest (as of " + d.as_of + ")";
  o << "<!DOCTYPE html>\n<html lang=\"" << (Zh(lang) ? "zh" : "en") << "\"><head><meta charset=\"utf-8\">"
    << "<title>" << dt::Html(title) << "</title><style>" << kCss << "</style></head><body>\n";
  o << "<h1>" << dt::Html(title) << "</h1>\n";
  o << "<p id=\"summary\">"
    << (Zh(lang) ? "收录 " + std::to_string(cases.size()) + " 条，来自 " + std::to_string(d.repos.size()) + " 个仓库；考察 " +
                       std::to_string(d.considered) + " 条，弃收 " + std::to_string(d.excluded.size()) + " 条。"
                 : std::to_string(cases.size()) + " issues from " + std::to_string(d.repos.size()) +
                       " repositories; " + std::to_string(d.considered) + " considered, " +
                       std::to_string(d.excluded.size()) + " excluded.")
    << "</p>\n";
  o << "<h2 id=\"overview\">" << (Zh(lang) ? "总览" : "Overview") << "</h2>\n<table class=\"overview\"><tr><th>"
    << (Zh(lang) ? "仓库" : "Repository") << "</th><th>" << (Zh(lang) ? "定位" : "Role") << "</th><th>"
    << (Zh(lang) ? "收录条数" : "Included") << "</th></tr>\n";
  for (const DigestRepo& r : d.repos)
    o << "<tr><td><a href=\"#" << dt::Html(r.repo.ToString()) << "\">" << dt::Html(r.repo.FullName())
      << "</a></td><td class=\"role\">" << HtmlText(RepoRole(r, lang)) << "</td><td>" << r.cases.size()
      << "</td></tr>\n";
  o << "</table>\n";
  o << "<h2 id=\"timeline\">" << (Zh(lang) ? "时间线" : "Timeline") << "</h2>\n"
    << RenderTimelineSvg(d, lang) << "\n";
  o << RenderInOrder(d.repos.size(), [&](size_t i, std::string* out) {
    const DigestRepo& r = d.repos[i];
    std::ostringstream part;
    part << "<h2 id=\"" << dt::Html(r.repo.ToString()) << "\">" << dt::Html(r.repo.FullName()) << "</h2>\n";
    part << "<p class=\"role\">" << HtmlText(RepoRole(r, lang)) << "</p>\n";
    part << "<table class=\"cases\"><tr><th>" << (Zh(lang) ? "编号" : "No.") << "</th><th>"
      << (Zh(lang) ? "Issue 问题内容" : "Problem") << "</th><th>" << (Zh(lang) ? "解答总结" : "Resolution")
      << "</th><th>" << (Zh(lang) ? "证据" : "Evidence") << "</th></tr>\n";
    for (const DigestCase& c : r.cases)
      part << "<tr data-issue=\"" << dt::Html(c.links.issue.ToString()) << "\"><td class=\"num\"><a href=\""
        << dt::Html(c.url) << "\">#" << dt::Html(c.number) << "</a></td><td>" << HtmlText(c.problem)
        << "</td><td>" << HtmlText(CaseSummary(d, c, lang)) << "</td><td>" << Badge(c.tier, lang)
        << EvidenceBadges(c) << "</td></tr>\n";
    part << "</table>\n";
    *out += part.str();
  });
  if (!d.themes.empty()) {
    o << "<h2 id=\"themes\">" << (Zh(lang) ? "主题归纳" : "Themes") << "</h2>\n";
    o << RenderInOrder(d.themes.size(), [&](size_t i, std::string* out) {
      const DigestTheme& t = d.themes[i];
      *out += "<h3>" + std::to_string(t.id) + ". " + HtmlText(ThemeHeading(d, t, lang)) + "</h3>\n<ul>\n";
      for (const std::string& id : t.issues) *out += "<li>" + HtmlText(ThemeBullet(d, id, lang)) + "</li>\n";
      *out += "</ul>\n";
    });
  }
  if (!d.troubleshooting.empty()) {
    o << "<h2 id=\"troubleshooting\">" << (Zh(lang) ? "排错指引" : "Troubleshooting") << "</h2>\n"
      << "<table class=\"trouble\"><tr><th>" << (Zh(lang) ? "症状" : "Symptom") << "</th><th>"
      << (Zh(lang) ? "第一优先动作" : "First action") << "</th><th>" << (Zh(lang) ? "相关案例" : "Cases")
      << "</th></tr>\n";
    for (const DigestTroubleRow& r : d.troubleshooting) {
      std::string cases_text;
      for (const std::string& c : r.cases) cases_text += (cases_text.empty() ? "" : ", ") + IssueLabel(d, c);
      o << "<tr><td>" << HtmlText(r.symptom) << "</td><td>" << HtmlText(r.action) << "</td><td>"
        << dt::Html(cases_text) << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  if (AnyLikely(d)) {
    o << "<h2 id=\"likely\">" << dt::Html(LikelyHeading(lang)) << "</h2>\n<p>" << dt::Html(LikelyIntro(lang))
      << "</p>\n<table class=\"likely\"><tr><th>Issue</th><th>" << (Zh(lang) ? "可能的修复 PR（概率）" : "Likely fix PRs (probability)")
      << "</th></tr>\n";
    for (const DigestExcluded& e : d.excluded) {
      if (e.suggested.empty()) continue;
      o << "<tr data-likely=\"" << dt::Html(e.issue) << "\"><td>" << dt::Html(IssueLabel(d, e.issue) + " " + e.title)
        << "</td><td>" << Badge("D", lang);
      for (const std::string& f : LikelyFixes(e)) o << "<br>" << dt::Html(f);
      o << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  DisclosureCounts k = CountDisclosure(d);
  o << "<h2 id=\"disclosure\">" << (Zh(lang) ? "考据与口径披露" : "Evidence and disclosure") << "</h2>\n";
  o << "<table class=\"tiers\"><tr><th>" << (Zh(lang) ? "层级" : "Tier") << "</th><th>"
    << (Zh(lang) ? "修复关联数" : "Fix links") << "</th><th>" << (Zh(lang) ? "issue 数（按最强证据）" : "Issues (strongest link)")
    << "</th></tr>\n";
  for (const std::string t : {"A", "B", "C", "D", "none"}) {
    auto a = k.links_by_tier.find(t);
    auto b = k.issues_by_tier.find(t);
    o << "<tr><td>" << Badge(t == "none" ? "" : t, lang) << "</td><td>"
      << (a == k.links_by_tier.end() ? 0 : a->second) << "</td><td>"
      << (b == k.issues_by_tier.end() ? 0 : b->second) << "</td></tr>\n";
  }
  o << "</table>\n<table class=\"evidence\"><tr><th>" << (Zh(lang) ? "证据种类" : "Evidence kind") << "</th><th>"
    << (Zh(lang) ? "次数" : "Count") << "</th></tr>\n";
  for (const auto& [kind, n] : k.links_by_evidence)
    o << "<tr><td><span class=\"badge ev\">" << dt::Html(kind) << "</span></td><td>" << n << "</td></tr>\n";
  o << "</table>\n<ul class=\"traps\">\n";
  for (const auto& [flag, ids] : k.traps) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + IssueLabel(d, id);
    o << "<li>" << dt::Html(TrapWord(flag, lang)) << ": " << ids.size() << " — " << dt::Html(list) << "</li>\n";
  }
  for (const auto& [kind, ids] : k.traceless) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + IssueLabel(d, id);
    o << "<li>" << dt::Html(TrapWord(kind, lang)) << ": " << ids.size() << " — " << dt::Html(list) << "</li>\n";
  }
  o << "</ul>\n<table class=\"excluded\"><tr><th>" << (Zh(lang) ? "弃收" : "Excluded") << "</th><th>"
    << (Zh(lang) ? "原因" : "Reason") << "</th><th>" << (Zh(lang) ? "说明" : "Detail") << "</th></tr>\n";
  o << RenderInOrder(d.excluded.size(), [&](size_t i, std::string* out) {
    const DigestExcluded& e = d.excluded[i];
    *out += "<tr><td>" + dt::Html(IssueLabel(d, e.issue)) + " " + dt::Html(dt::Truncate(e.title, 40)) +
            "</td><td>" + dt::Html(ReasonWord(e.reason, lang)) + "</td><td>" +
            dt::Html(ExcludedDetail(d, e, lang)) + "</td></tr>\n";
  });
  o << "</table>\n<p id=\"candidates\">"
    << (Zh(lang) ? "候选统计：考察 " : "Candidates: ") << d.considered
    << (Zh(lang) ? " 条，收录 " : " considered, ") << cases.size()
    << (Zh(lang) ? " 条，弃收 " : " included, ") << d.excluded.size()
    << (Zh(lang) ? " 条。" : " excluded.") << "</p>\n</body></html>\n";
  return o.str();
}

}  // namespace fixgraph::query
