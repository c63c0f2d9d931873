// The digest as one self-contained HTML page, with an SVG timeline (digest.h).
#include "digest_render.h"
#include "digest_text.h"

#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace fixgraph::query {
namespace {

namespace dt = digest_text;

bool Zh(Lang l) { return l == Lang::kZh; }

const char* kCss =
    R"(body{font-family:"Noto Sans CJK SC","WenQuanYi Micro Hei","Noto Sans",sans-serif;margin:24px auto;max-width:1150px;color:#1f2328;line-height:1.5}
h1{font-size:26px;border-bottom:2px solid #d0d7de;padding-bottom:6px}h2{font-size:21px;margin-top:32px;border-bottom:1px solid #d0d7de}
h3{font-size:17px}table{border-collapse:collapse;width:100%;margin:8px 0 18px;font-size:14px}
th,td{border:1px solid #d0d7de;padding:6px 8px;vertical-align:top;text-align:left}th{background:#f6f8fa}
tr:nth-child(even) td{background:#fbfcfd}.num{white-space:nowrap}.role{color:#57606a}
.badge{display:inline-block;border-radius:10px;padding:0 7px;margin:1px 2px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
.tA{background:#1a7f37}.tB{background:#0969da}.tC{background:#9a6700}.tD{background:#8c959f}.tn{background:#6e7781}
.ev{background:#eaeef2;color:#24292f;font-weight:400}.flag{background:#cf222e}
.legend span{margin-right:14px}svg text{font-size:11px;fill:#24292f}svg a text{fill:#0969da}code{background:#f6f8fa;padding:0 3px}
.tl{overflow-x:auto;margin:-8px 0 18px}a.pr,a.case{color:#0969da})";

std::string Badge(const std::string& tier, Lang lang) {
  std::string cls = tier.empty() ? "tn" : "t" + tier;
  std::string label =
      tier.empty() ? (Zh(lang) ? "无 PR" : "no PR") : tier + " " + TierWord(tier, lang);
  return "<span class=\"badge " + cls + "\" data-tier=\"" + (tier.empty() ? "none" : tier) + "\">" +
         dt::Html(label) + "</span>";
}

std::string EvidenceBadges(const DigestCase& c, Lang lang) {
  std::string out;
  std::vector<std::string> kinds;
  for (const graph::FixLink& f : c.links.fixes)
    for (const graph::Evidence& e : f.evidence) kinds.emplace_back(graph::EvidenceKindName(e.kind));
  for (const graph::Evidence& e : c.links.evidence)
    kinds.emplace_back(graph::EvidenceKindName(e.kind));
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  // The label in the page's language; the internal name in data-kind and the tooltip.
  for (const std::string& k : kinds)
    out += R"(<span class="badge ev" data-kind=")" + dt::Html(k) + "\" title=\"" + dt::Html(k) +
           "\">" + dt::Html(EvidenceWord(k, lang)) + "</span>";
  for (graph::Flag f : c.links.flags) {
    std::string name = graph::FlagName(f);
    out += R"(<span class="badge flag" data-flag=")" + dt::Html(name) + "\" title=\"" +
           dt::Html(name) + "\">" + dt::Html(FlagWord(name, lang)) + "</span>";
  }
  return out;
}

// `html` (already escaped) with each PR the case names turned into a link
// to its page: "!166" or "gitcode:o/r!12" as the summary writes them.
// Markup is left alone; a token must not continue with a letter or digit.
std::string LinkPrs(const std::string& html, const DigestCase& c) {
  auto mentions = dt::PrMentions(c.pr_urls, c.links.issue.repo);
  for (auto& m : mentions) m.first = dt::Html(m.first);
  return dt::LinkMentions(html, std::move(mentions), '<', '>', /*first_only=*/false,
                          [](const std::string& text, const std::string& url) {
                            return R"(<a class="pr" href=")" + dt::Html(url) + "\">" + text +
                                   "</a>";
                          });
}

// An issue's label linked to its page (plain text when it is not in the digest).
std::string IssueLink(const Digest& d, const std::string& id) {
  const DigestCase* c = d.Find(id);
  std::string label = dt::Html(IssueLabel(d, id));
  if (c == nullptr || c->url.empty()) return label;
  return R"(<a class="case" href=")" + dt::Html(c->url) + "\">" + label + "</a>";
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

namespace {

// Calendar date in the display offset.
struct Civil {
  int y, m, d;
};
Civil CivilOf(std::int64_t t, int offset_minutes) {
  std::string s = FormatDate(t, offset_minutes);  // "YYYY-MM-DD"
  return {std::atoi(s.substr(0, 4).c_str()), std::atoi(s.substr(5, 2).c_str()),
          std::atoi(s.substr(8, 2).c_str())};
}
std::int64_t StartOf(Civil c, int offset_minutes) {
  return DaysFromCivil(c.y, c.m, c.d) * 86400 - static_cast<std::int64_t>(offset_minutes) * 60;
}

struct Tick {
  std::int64_t t;
  std::string label;
};

// Date ticks over [lo, hi] at a round step (hours, days, weeks, months or
// years in the display offset), at most about eight.
std::vector<Tick> Ticks(std::int64_t lo, std::int64_t hi) {
  const int off = DisplayOffsetMinutes();
  const std::int64_t span = std::max<std::int64_t>(hi - lo, 1);
  constexpr std::int64_t kHour = 3600, kDay = 86400;
  std::vector<Tick> out;
  auto two = [](int v) {
    // (Built by appends: GCC 12 warns falsely (-Wrestrict) on "0" + std::string.)
    std::string text = v < 10 ? "0" : "";
    text += std::to_string(v);
    return text;
  };
  // Sub-month steps: multiples of the step from a day start.
  for (std::int64_t step :
       {kHour, 3 * kHour, 6 * kHour, 12 * kHour, kDay, 2 * kDay, 7 * kDay, 14 * kDay}) {
    if (span / step > 8) continue;
    std::int64_t day0 = StartOf(CivilOf(lo, off), off);
    std::int64_t t = day0 + ((lo - day0 + step - 1) / step) * step;
    for (; t <= hi; t += step) {
      Civil c = CivilOf(t, off);
      std::string label = std::to_string(c.y) + "-" + two(c.m) + "-" + two(c.d);
      if (step < kDay)
        label = two(c.m) + "-" + two(c.d) + " " +
                two(static_cast<int>(((t + std::int64_t{off} * 60) % kDay + kDay) % kDay / kHour)) +
                ":00";
      out.push_back({t, label});
    }
    return out;
  }
  // Month steps: first days of months.
  for (int months : {1, 2, 3, 6, 12, 24, 60}) {
    if (span / (std::int64_t{months} * 30 * kDay) > 8) continue;
    Civil c = CivilOf(lo, off);
    int y = c.y, m = c.m;
    // The first month start at or after lo, on a multiple of the step.
    auto advance = [&](int k) {
      m += k;
      while (m > 12) {
        m -= 12;
        ++y;
      }
    };
    if (StartOf({y, m, 1}, off) < lo) advance(1);
    while (((y * 12 + m - 1) % months) != 0) advance(1);
    for (std::int64_t t = StartOf({y, m, 1}, off); t <= hi; t = StartOf({y, m, 1}, off)) {
      out.push_back({t, months >= 12 ? std::to_string(y) : std::to_string(y) + "-" + two(m)});
      advance(months);
    }
    return out;
  }
  return out;
}

std::string SpanText(std::int64_t span, Lang lang) {
  if (span >= 86400) return std::to_string(span / 86400) + (Zh(lang) ? " 天" : " d");
  if (span >= 3600) return std::to_string(span / 3600) + (Zh(lang) ? " 小时" : " h");
  return std::to_string(span / 60) + (Zh(lang) ? " 分钟" : " min");
}

}  // namespace

std::string RenderTimelineSvg(const Digest& d, const DigestRepo& r, Lang lang) {
  const int row_h = 22, label_w = 170, bar_w = 760, right_w = 150, top = 52;
  const int width = label_w + bar_w + right_w;
  const int height = top + row_h * static_cast<int>(r.cases.size()) + 8;
  // The events of a case: creation, merges, close.
  auto events = [](const graph::IssueLinks& l) {
    std::vector<std::int64_t> all;
    for (const graph::FixLink& f : l.fixes)
      if (f.merged_at) all.push_back(*f.merged_at);
    if (l.created_at) all.push_back(*l.created_at);
    if (l.closed_at) all.push_back(*l.closed_at);
    return all;
  };
  // One axis for the whole table.
  std::int64_t lo = 0, hi = 0;
  bool any = false;
  for (const DigestCase& c : r.cases)
    for (std::int64_t t : events(c.links)) {
      lo = any ? std::min(lo, t) : t;
      hi = any ? std::max(hi, t) : t;
      any = true;
    }
  if (hi - lo < 3600) hi = lo + 3600;  // a table of one instant still has an axis
  const double scale = static_cast<double>(bar_w) / static_cast<double>(hi - lo);
  auto x = [&](std::int64_t t) { return label_w + static_cast<double>(t - lo) * scale; };
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return std::string(b);
  };
  std::ostringstream o;
  o << R"(<svg xmlns="http://www.w3.org/2000/svg" class="timeline" data-repo=")"
    << dt::Html(r.repo.ToString()) << "\" data-lo=\"" << lo << "\" data-hi=\"" << hi
    << "\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
    << height << R"(" role="img">)";
  o << "<title>"
    << (Zh(lang)
            ? "时间线：issue 创建 → PR 合入 → issue 关闭（本表共用一条时间轴）"
            : "Timeline: issue created → PR merged → issue closed (one date axis for the table)")
    << "</title>";
  // Legend.
  o << R"(<circle cx="10" cy="10" r="5" fill="#0969da"/><text x="20" y="14">)"
    << (Zh(lang) ? "issue 创建" : "issue created") << "</text>";
  o << R"(<rect x="115" y="5" width="10" height="10" fill="#1a7f37"/><text x="130" y="14">)"
    << (Zh(lang) ? "PR 合入" : "PR merged") << "</text>";
  o << R"(<circle cx="215" cy="10" r="5" fill="#cf222e"/><text x="225" y="14">)"
    << (Zh(lang) ? "issue 关闭" : "issue closed") << "</text>";
  o << R"(<text x="320" y="14">)"
    << (Zh(lang) ? "（各行共用下方日期轴，长度可直接比较）"
                 : "(rows share the date axis: lengths compare)")
    << "</text>";
  // The axis: a line and date ticks with grid lines through the rows.
  const int axis_y = top - 8;
  o << R"(<g class="axis"><line x1=")" << label_w << "\" y1=\"" << axis_y << "\" x2=\""
    << label_w + bar_w << "\" y2=\"" << axis_y << R"(" stroke="#57606a"/>)";
  for (const Tick& t : Ticks(lo, hi)) {
    std::string tx = num(x(t.t));
    o << R"(<g class="tick" data-t=")" << t.t << "\"><line x1=\"" << tx << "\" y1=\"" << axis_y - 4
      << "\" x2=\"" << tx << "\" y2=\"" << height - 4
      << R"(" stroke="#d8dee4" stroke-dasharray="2,3"/><text x=")" << tx << "\" y=\"" << axis_y - 7
      << R"(" text-anchor="middle">)" << dt::Html(t.label) << "</text></g>";
  }
  o << "</g>";
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const DigestCase& c = r.cases[i];
    const graph::IssueLinks& l = c.links;
    const int y = top + row_h * static_cast<int>(i);
    std::vector<std::int64_t> all = events(l);
    std::int64_t rlo = all.empty() ? 0 : *std::min_element(all.begin(), all.end());
    std::int64_t rhi = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
    o << R"(<g class="row" data-issue=")" << dt::Html(l.issue.ToString()) << "\" data-span-s=\""
      << rhi - rlo << "\">";
    o << "<a href=\"" << dt::Html(c.url) << R"("><text x="4" y=")" << y + 14 << "\">"
      << dt::Html(IssueLabel(d, l.issue.ToString())) << "</text></a>";
    o << "<line x1=\"" << label_w << "\" y1=\"" << y + 10 << "\" x2=\"" << label_w + bar_w
      << "\" y2=\"" << y + 10 << R"(" stroke="#eaeef2"/>)";
    if (!all.empty()) {
      // The span bar: from the first event to the last, on the shared scale
      // (at least 2 px so that a span of minutes stays visible).
      double x0 = x(rlo), w = std::max(2.0, x(rhi) - x(rlo));
      o << R"(<rect class="span" x=")" << num(x0) << "\" y=\"" << y + 6 << "\" width=\"" << num(w)
        << R"(" height="8" rx="2" fill="#afb8c1"/>)";
      for (const graph::FixLink& f : l.fixes) {
        if (!f.merged_at) continue;
        std::string pr = dt::ShortPr(f.pr, l.issue.repo);
        auto url = c.pr_urls.find(f.pr);
        bool link = url != c.pr_urls.end() && !url->second.empty();
        if (link) o << "<a href=\"" << dt::Html(url->second) << "\">";
        o << R"(<rect class="merged" x=")" << num(x(*f.merged_at) - 5) << "\" y=\"" << y + 5
          << R"(" width="10" height="10" fill="#1a7f37"><title>)" << dt::Html(pr) << " "
          << dt::Html(dt::DateTime(f.merged_at)) << "</title></rect>";
        if (link) o << "</a>";
      }
      if (l.created_at)
        o << R"(<circle class="created" cx=")" << num(x(*l.created_at)) << "\" cy=\"" << y + 10
          << R"(" r="5" fill="#0969da"><title>)" << dt::Html(dt::DateTime(l.created_at))
          << "</title></circle>";
      if (l.closed_at)
        o << R"(<circle class="closed" cx=")" << num(x(*l.closed_at)) << "\" cy=\"" << y + 10
          << R"(" r="5" fill="#cf222e" fill-opacity="0.8"><title>)"
          << dt::Html(dt::DateTime(l.closed_at)) << "</title></circle>";
      o << "<text x=\"" << label_w + bar_w + 8 << "\" y=\"" << y + 14 << "\">"
        << dt::Html(dt::Date(OptTime(rlo))) << " +" << SpanText(rhi - rlo, lang) << "</text>";
    }
    o << "</g>";
  }
  o << "</svg>";
  return o.str();
}

namespace {

// The HTML disclosure section up to the excluded issues' table rows (the
// caller closes the table): fix links and issues by tier, evidence kinds,
// timeline traps and traceless fixes.
void WriteHtmlDisclosure(const Digest& d, Lang lang, std::ostream& o) {
  DisclosureCounts k = CountDisclosure(d);
  o << "<h2 id=\"disclosure\">" << (Zh(lang) ? "考据与口径披露" : "Evidence and disclosure")
    << "</h2>\n";
  o << "<table class=\"tiers\"><tr><th>" << (Zh(lang) ? "层级" : "Tier") << "</th><th>"
    << (Zh(lang) ? "修复关联数" : "Fix links") << "</th><th>"
    << (Zh(lang) ? "issue 数（按最强证据）" : "Issues (strongest link)") << "</th></tr>\n";
  for (const std::string t : {"A", "B", "C", "D", "none"}) {
    auto a = k.links_by_tier.find(t);
    auto b = k.issues_by_tier.find(t);
    o << "<tr><td>" << Badge(t == "none" ? "" : t, lang) << "</td><td>"
      << (a == k.links_by_tier.end() ? 0 : a->second) << "</td><td>"
      << (b == k.issues_by_tier.end() ? 0 : b->second) << "</td></tr>\n";
  }
  o << "</table>\n<table class=\"evidence\"><tr><th>" << (Zh(lang) ? "证据种类" : "Evidence kind")
    << "</th><th>" << (Zh(lang) ? "次数" : "Count") << "</th></tr>\n";
  for (const auto& [kind, n] : k.links_by_evidence)
    o << R"(<tr><td><span class="badge ev" data-kind=")" << dt::Html(kind) << "\" title=\""
      << dt::Html(kind) << "\">" << dt::Html(EvidenceWord(kind, lang)) << "</span></td><td>" << n
      << "</td></tr>\n";
  o << "</table>\n<ul class=\"traps\">\n";
  for (const auto& [flag, ids] : k.traps) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + IssueLabel(d, id);
    o << "<li>" << dt::Html(TrapWord(flag, lang)) << ": " << ids.size() << " — " << dt::Html(list)
      << "</li>\n";
  }
  for (const auto& [kind, ids] : k.traceless) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + IssueLabel(d, id);
    o << "<li>" << dt::Html(TrapWord(kind, lang)) << ": " << ids.size() << " — " << dt::Html(list)
      << "</li>\n";
  }
  o << "</ul>\n<table class=\"excluded\"><tr><th>" << (Zh(lang) ? "弃收" : "Excluded")
    << "</th><th>" << (Zh(lang) ? "原因" : "Reason") << "</th><th>"
    << (Zh(lang) ? "说明" : "Detail") << "</th></tr>\n";
  o << RenderInOrder(d.excluded.size(), [&](size_t i, std::string* out) {
    const DigestExcluded& e = d.excluded[i];
    *out += "<tr><td>" + dt::Html(IssueLabel(d, e.issue)) + " " +
            dt::Html(dt::Truncate(e.title, 40)) + "</td><td>" +
            dt::Html(ReasonWord(e.reason, lang)) + "</td><td>" +
            dt::Html(ExcludedDetail(d, e, lang)) + "</td></tr>\n";
  });
}

}  // namespace

std::string RenderHtml(const Digest& d, Lang lang) {
  std::vector<const DigestCase*> cases = d.Cases();
  std::ostringstream o;
  std::string title = Zh(lang) ? "开源仓 Issue 分析解答精选（截至 " + d.as_of + "）"
                               : "Resolved issues digest (as of " + d.as_of + ")";
  o << "<!DOCTYPE html>\n<html lang=\"" << (Zh(lang) ? "zh" : "en")
    << R"("><head><meta charset="utf-8">)"
    << "<title>" << dt::Html(title) << "</title><style>" << kCss << "</style></head><body>\n";
  o << "<h1>" << dt::Html(title) << "</h1>\n";
  o << "<p id=\"summary\">"
    << (Zh(lang)
            ? "收录 " + std::to_string(cases.size()) + " 条，来自 " +
                  std::to_string(d.repos.size()) + " 个仓库；考察 " + std::to_string(d.considered) +
                  " 条，弃收 " + std::to_string(d.excluded.size()) + " 条。"
            : std::to_string(cases.size()) + " issues from " + std::to_string(d.repos.size()) +
                  " repositories; " + std::to_string(d.considered) + " considered, " +
                  std::to_string(d.excluded.size()) + " excluded.")
    << "</p>\n";
  o << "<h2 id=\"overview\">" << (Zh(lang) ? "总览" : "Overview")
    << "</h2>\n<table class=\"overview\"><tr><th>" << (Zh(lang) ? "仓库" : "Repository")
    << "</th><th>" << (Zh(lang) ? "定位" : "Role") << "</th><th>"
    << (Zh(lang) ? "收录条数" : "Included") << "</th></tr>\n";
  for (const DigestRepo& r : d.repos)
    o << "<tr><td><a href=\"#" << dt::Html(r.repo.ToString()) << "\">"
      << dt::Html(r.repo.FullName()) << "</a></td><td class=\"role\">"
      << HtmlText(RepoRole(r, lang)) << "</td><td>" << r.cases.size() << "</td></tr>\n";
  o << "</table>\n";
  o << RenderInOrder(d.repos.size(), [&](size_t i, std::string* out) {
    const DigestRepo& r = d.repos[i];
    std::ostringstream part;
    part << "<h2 id=\"" << dt::Html(r.repo.ToString()) << "\">" << dt::Html(r.repo.FullName())
         << "</h2>\n";
    part << "<p class=\"role\">" << HtmlText(RepoRole(r, lang)) << "</p>\n";
    part << "<table class=\"cases\"><tr><th>" << (Zh(lang) ? "编号" : "No.") << "</th><th>"
         << (Zh(lang) ? "Issue 问题内容" : "Problem") << "</th><th>"
         << (Zh(lang) ? "解答总结" : "Resolution") << "</th><th>"
         << (Zh(lang) ? "证据" : "Evidence") << "</th></tr>\n";
    for (const DigestCase& c : r.cases)
      part << "<tr data-issue=\"" << dt::Html(c.links.issue.ToString())
           << R"("><td class="num"><a href=")" << dt::Html(c.url) << "\">#" << dt::Html(c.number)
           << "</a></td><td>" << HtmlText(c.problem) << "</td><td>"
           << LinkPrs(HtmlText(CaseSummary(d, c, lang)), c) << "</td><td>" << Badge(c.tier, lang)
           << EvidenceBadges(c, lang) << "</td></tr>\n";
    part << "</table>\n<div class=\"tl\">" << RenderTimelineSvg(d, r, lang) << "</div>\n";
    *out += part.str();
  });
  if (!d.themes.empty()) {
    o << "<h2 id=\"themes\">" << (Zh(lang) ? "主题归纳" : "Themes") << "</h2>\n";
    o << RenderInOrder(d.themes.size(), [&](size_t i, std::string* out) {
      const DigestTheme& t = d.themes[i];
      *out += "<h3>" + std::to_string(t.id) + ". " + HtmlText(ThemeHeading(d, t, lang)) +
              "</h3>\n<ul>\n";
      for (const std::string& id : t.issues) {
        // The bullet starts with the issue's label: that part links to it.
        std::string bullet = ThemeBullet(d, id, lang), label = IssueLabel(d, id);
        if (bullet.rfind(label, 0) == 0) {
          *out += "<li>" + IssueLink(d, id) + HtmlText(bullet.substr(label.size())) + "</li>\n";
        } else {
          *out += "<li>" + HtmlText(bullet) + "</li>\n";
        }
      }
      *out += "</ul>\n";
    });
  }
  if (!d.troubleshooting.empty()) {
    o << "<h2 id=\"troubleshooting\">" << (Zh(lang) ? "排错指引" : "Troubleshooting") << "</h2>\n"
      << "<table class=\"trouble\"><tr><th>" << (Zh(lang) ? "症状" : "Symptom") << "</th><th>"
      << (Zh(lang) ? "第一优先动作" : "First action") << "</th><th>"
      << (Zh(lang) ? "相关案例" : "Cases") << "</th></tr>\n";
    for (const DigestTroubleRow& r : d.troubleshooting) {
      std::string cases_html;
      for (const std::string& id : r.cases)
        cases_html += (cases_html.empty() ? "" : ", ") + IssueLink(d, id);
      o << "<tr><td>" << HtmlText(r.symptom) << "</td><td>" << HtmlText(r.action)
        << "</td><td class=\"cases\">" << cases_html << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  if (AnyLikely(d)) {
    o << "<h2 id=\"likely\">" << dt::Html(LikelyHeading(lang)) << "</h2>\n<p>"
      << dt::Html(LikelyIntro(lang)) << "</p>\n<table class=\"likely\"><tr><th>Issue</th><th>"
      << (Zh(lang) ? "可能的修复 PR（概率）" : "Likely fix PRs (probability)") << "</th></tr>\n";
    for (const DigestExcluded& e : d.excluded) {
      if (e.suggested.empty()) continue;
      o << "<tr data-likely=\"" << dt::Html(e.issue) << "\"><td>"
        << dt::Html(IssueLabel(d, e.issue) + " " + e.title) << "</td><td>" << Badge("D", lang);
      // "!78469 (0.27) title": the PR links to its page.
      std::vector<std::string> lines = LikelyFixes(e);
      for (size_t k = 0; k < lines.size() && k < e.suggested.size(); ++k) {
        const std::string& pr = e.suggested[k].pr;
        std::string url = pr.rfind("http", 0) == 0 ? pr : "";
        if (auto ref = ParseRef(pr); url.empty() && ref.ok()) url = WebUrl(*ref);
        size_t sp = lines[k].find(' ');
        if (url.empty() || sp == std::string::npos) {
          o << "<br>" << dt::Html(lines[k]);
        } else {
          o << R"(<br><a class="pr" href=")" << dt::Html(url) << "\">"
            << dt::Html(lines[k].substr(0, sp)) << "</a>" << dt::Html(lines[k].substr(sp));
        }
      }
      o << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  WriteHtmlDisclosure(d, lang, o);
  o << "</table>\n<p id=\"candidates\">" << (Zh(lang) ? "候选统计：考察 " : "Candidates: ")
    << d.considered << (Zh(lang) ? " 条，收录 " : " considered, ") << cases.size()
    << (Zh(lang) ? " 条，弃收 " : " included, ") << d.excluded.size()
    << (Zh(lang) ? " 条。" : " excluded.") << "</p>\n</body></html>\n";
  return o.str();
}

}  // namespace fixgraph::query
