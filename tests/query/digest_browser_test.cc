// The HTML digest in headless Chromium: the page renders as one self-contained
// file with the case tables, evidence badges and the SVG timeline; a
// screenshot is taken. The page is the demo store's digest rendered
// in-process (query::RenderHtml, the bytes `fixgraph digest --format html`
// writes). Skipped when chromium is not installed (CI installs it).
// FIXGRAPH_DIGEST_SCREENSHOT=PATH keeps a copy of the screenshot.
#include "testutil/demo_store.h"
#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

namespace fixgraph {
namespace {

using fixgraph::testing::ChromiumPath;
using fixgraph::testing::ReadFile;
using fixgraph::testing::RunChromium;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// The demo store's digest with the default rules, as `fixgraph digest`
// builds it at the default display offset (+08:00): the Chinese HTML page
// written to `html`, and the JSON document (--format json) returned.
json WriteDemoDigest(const std::string& html) {
  SetDisplayOffsetMinutes(8 * 60);
  auto db = fixgraph::testing::DemoDb();
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return json();
  StoreOptions read_only;
  read_only.read_only = true;
  auto store = Store::Open(*db + "/store", read_only);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return json();
  auto d = query::BuildDigest(**store, query::DigestOptions());
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) return json();
  WriteFile(html, query::RenderHtml(*d, query::Lang::kZh));
  return query::ToJson(*d);
}

TEST(DigestBrowser, RendersTablesBadgesAndTimeline) {
  if (ChromiumPath().empty()) GTEST_SKIP() << "chromium is not installed";
  TempDir dir;
  std::string html = dir / "digest.html";
  json j = WriteDemoDigest(html);
  ASSERT_TRUE(j.is_object());
  size_t cases = 0;
  for (const json& r : j["repos"]) cases += r["cases"].size();
  ASSERT_GT(cases, 0u);

  std::string page = ReadFile(html);
  // Self-contained: no scripts, no external stylesheets or images.
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);

  std::string flags = "--hide-scrollbars --user-data-dir=" + dir.path() + "/profile ";
  std::string dom, err;
  ASSERT_EQ(RunChromium(flags + "--dump-dom file://" + html, &dom, &err), 0) << err;
  ASSERT_FALSE(dom.empty());
  // The browser parsed the tables: one row per case, one per repository.
  EXPECT_EQ(Count(dom, "<tr data-issue="), cases);
  EXPECT_EQ(Count(dom, "class=\"row\""), cases);  // timeline rows
  EXPECT_NE(dom.find("<svg"), std::string::npos);
  EXPECT_GE(Count(dom, "class=\"badge tA\""), 1u);
  EXPECT_GE(Count(dom, "class=\"badge ev\""), cases / 2);
  EXPECT_NE(dom.find("id=\"disclosure\""), std::string::npos);
  EXPECT_NE(dom.find("id=\"troubleshooting\""), std::string::npos);
  // Likely fixes (suggestions) in their own table, one row per issue.
  EXPECT_EQ(Count(dom, "<tr data-likely="), j["likely_fixes"].size());
  // Every timeline row has an issue-created marker and the fixed ones a merge.
  EXPECT_EQ(Count(dom, "class=\"created\""), cases);
  EXPECT_GE(Count(dom, "class=\"merged\""), 20u);

  std::string png = dir / "digest.png";
  std::string out;
  ASSERT_EQ(RunChromium(flags + "--window-size=1200,2000 --screenshot=" + png + " file://" + html,
                        &out, &err),
            0)
      << err;
  ASSERT_TRUE(std::filesystem::exists(png));
  std::string shot = ReadFile(png);
  ASSERT_GT(shot.size(), 20000u);  // a rendered page, not a blank one
  EXPECT_EQ(shot.substr(1, 3), "PNG");
  if (const char* keep = std::getenv("FIXGRAPH_DIGEST_SCREENSHOT");
      keep != nullptr && *keep != '\0')
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
}

// What the browser laid out, measured by a script added to a copy of the
// page (the page itself has none): per timeline its ticks and per row the
// span bar's rendered width; the chips' labels and names; the links.
json Measure(const std::string& page_path, TempDir& dir) {
  std::string page = ReadFile(page_path);
  const std::string script = R"(<script>
const out = {timelines: [], chips: [], flags: [], prLinks: [], caseLinks: []};
for (const svg of document.querySelectorAll("svg.timeline")) {
  const t = {repo: svg.dataset.repo, ticks: [], rows: []};
  for (const g of svg.querySelectorAll("g.tick"))
    t.ticks.push({label: g.querySelector("text").textContent, x: g.querySelector("line").getBoundingClientRect().x});
  for (const g of svg.querySelectorAll("g.row")) {
    const bar = g.querySelector("rect.span");
    t.rows.push({issue: g.dataset.issue, span: Number(g.dataset.spanS),
                 width: bar ? bar.getBoundingClientRect().width : -1,
                 href: (g.querySelector("a") || {getAttribute: () => ""}).getAttribute("href")});
  }
  out.timelines.push(t);
}
for (const c of document.querySelectorAll("span.badge.ev")) out.chips.push({kind: c.dataset.kind, text: c.textContent, title: c.title});
for (const c of document.querySelectorAll("span.badge.flag")) out.flags.push({flag: c.dataset.flag, text: c.textContent});
for (const a of document.querySelectorAll("a.pr")) {
  const tr = a.closest("tr");
  out.prLinks.push({text: a.textContent, href: a.href, row: tr ? (tr.dataset.issue || tr.dataset.likely || "") : ""});
}
for (const a of document.querySelectorAll("table.trouble a.case")) out.caseLinks.push({text: a.textContent, href: a.href});
const pre = document.createElement("pre"); pre.id = "measure"; pre.textContent = JSON.stringify(out);
document.body.append(pre);
</script>)";
  size_t end = page.rfind("</body>");
  EXPECT_NE(end, std::string::npos);
  page.insert(end, script);
  std::string probe = dir / "probe.html";
  WriteFile(probe, page);
  std::string dom, err;
  EXPECT_EQ(RunChromium("--user-data-dir=" + dir.path() +
                            "/profile2 --window-size=1300,1000 --dump-dom file://" + probe,
                        &dom, &err),
            0)
      << err;
  // (std::regex recurses per character: too deep for a page this long.)
  std::string text;
  const std::string open = "<pre id=\"measure\">";
  size_t a = dom.find(open);
  size_t b = a == std::string::npos ? a : dom.find("</pre>", a);
  if (b != std::string::npos) text = dom.substr(a + open.size(), b - a - open.size());
  // --dump-dom escapes &, < and > in text.
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
    for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + 1))
      text.replace(p, from.size(), to);
  json j = json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << dom.substr(0, 2000);
  return j;
}

// Every row of a table sits on the table's one date axis: ticks with dates
// exist, and two rows' bar widths are in the ratio of their spans. PR
// numbers and troubleshooting cases are links; the Chinese page's chips are
// in Chinese with the internal name kept in data-kind.
TEST(DigestBrowser, TimelineAxisIsSharedAndPrsAndCasesAreLinks) {
  if (ChromiumPath().empty()) GTEST_SKIP() << "chromium is not installed";
  TempDir dir;
  std::string html = dir / "digest.html";
  json digest = WriteDemoDigest(html);
  ASSERT_TRUE(digest.is_object());
  json m = Measure(html, dir);
  ASSERT_TRUE(m.is_object());

  // One timeline per repository table, each with date ticks.
  ASSERT_EQ(m["timelines"].size(), digest["repos"].size());
  const std::regex date_label("^(\\d{4}(-\\d{2}(-\\d{2})?)?|\\d{2}-\\d{2} \\d{2}:00)$");
  size_t compared = 0;
  for (const json& t : m["timelines"]) {
    ASSERT_GE(t["ticks"].size(), 2u) << t.dump();
    double last_x = -1;
    for (const json& tick : t["ticks"]) {
      EXPECT_TRUE(std::regex_match(tick["label"].get<std::string>(), date_label)) << tick.dump();
      EXPECT_GT(tick["x"].get<double>(), last_x);  // left to right
      last_x = tick["x"].get<double>();
    }
    // Any two rows whose bars are wide enough to measure: widths in the
    // ratio of their spans (within 2 px).
    const json& rows = t["rows"];
    for (size_t a = 0; a < rows.size(); ++a)
      for (size_t b = a + 1; b < rows.size(); ++b) {
        double wa = rows[a]["width"], wb = rows[b]["width"];
        double sa = rows[a]["span"], sb = rows[b]["span"];
        if (wa < 20 || wb < 20 || sa == sb) continue;
        EXPECT_NEAR(wa * sb / sa, wb, 2.0)
            << t.value("repo", "") << " " << rows[a].dump() << " vs " << rows[b].dump();
        ++compared;
      }
    for (const json& r : rows)
      EXPECT_EQ(r["href"].get<std::string>().rfind("https://", 0), 0u) << r.dump();
  }
  EXPECT_GE(compared, 3u) << "the demo has tables with rows of different, measurable spans";

  // PR numbers link to their pages: MindSpeed-Ops#69 names !166 (the fix) and !163 (a false lead).
  std::set<std::string> hrefs;
  // (A link outside a case row, in the likely-fix table, names its issue
  // in data-likely; every link is in some row. value() because operator[]
  // on a const object reads past the map when the key is missing.)
  for (const json& a : m["prLinks"]) {
    EXPECT_NE(a.value("row", ""), "") << a.dump();
    if (a.value("row", "") == "gitcode:Ascend/MindSpeed-Ops#69") hrefs.insert(a.value("href", ""));
  }
  EXPECT_TRUE(hrefs.count("https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/166"))
      << m["prLinks"].dump();
  EXPECT_TRUE(hrefs.count("https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/163"))
      << m["prLinks"].dump();
  EXPECT_GE(m["prLinks"].size(), 40u);
  // Every troubleshooting case is a link to its issue.
  size_t trouble_cases = 0;
  for (const json& r : digest["troubleshooting"]) trouble_cases += r["cases"].size();
  ASSERT_GT(trouble_cases, 0u);
  EXPECT_EQ(m["caseLinks"].size(), trouble_cases);
  for (const json& a : m["caseLinks"])
    EXPECT_EQ(a["href"].get<std::string>().rfind("https://", 0), 0u);

  // Chips: a Chinese label, the internal name in data-kind and the tooltip.
  // (JSON.stringify leaves out a missing data-kind: value() on the const row.)
  ASSERT_GT(m["chips"].size(), 20u);
  for (const json& c : m["chips"]) {
    std::string kind = c.value("kind", ""), text = c.value("text", "");
    EXPECT_FALSE(kind.empty());
    EXPECT_NE(text, kind);
    EXPECT_EQ(text.find('_'), std::string::npos) << text;
    EXPECT_EQ(c.value("title", ""), kind);
  }
  for (const json& f : m["flags"])
    EXPECT_EQ(f["text"].get<std::string>().find('_'), std::string::npos) << f.dump();
}

}  // namespace
}  // namespace fixgraph
