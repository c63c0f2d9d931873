// The digest (query/digest.h), in-process: selection, facts, rendering,
// determinism and the golden files for data/demo (tests/golden/digest/: the
// bytes `fixgraph digest` prints, which renders with the same functions).
// FIXGRAPH_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
// The command's flags, -o and --config: tests/cli/digest_cli_test.cc.
#include "fixgraph/query/digest.h"

#include "../../query/ask_answer.h"
#include "../../query/digest_render.h"
#include "../../query/digest_text.h"
#include "testutil/demo_store.h"
#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/engine/time.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace fixgraph {
namespace {

using fixgraph::testing::ReadFile;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;
namespace dt = query::digest_text;

// The demo store of the test process (testutil/demo_store.h), read only.
class DigestDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SetDisplayOffsetMinutes(8 * 60);  // the CLI's default display offset (+08:00)
    auto db = fixgraph::testing::DemoDb();
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  void SetUp() override { ASSERT_FALSE(db_.empty()); }
  static std::unique_ptr<Store> OpenStore() {
    StoreOptions o;
    o.read_only = true;
    auto s = Store::Open(db_ + "/store", o);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : nullptr;
  }
  static query::Digest Build(const query::DigestOptions& options) {
    auto store = OpenStore();
    auto d = query::BuildDigest(*store, options);
    EXPECT_TRUE(d.ok()) << d.status().message();
    return d.ok() ? std::move(*d) : query::Digest();
  }
  // `fixgraph digest [--format F] [--lang L]`: the whole store, the default
  // rules, rendered as the command renders (cli/documents.cc DigestText).
  static std::string Render(const std::string& format, query::Lang lang = query::Lang::kZh) {
    query::Digest d = Build(query::DigestOptions());
    if (format == "md") return query::RenderMarkdown(d, lang);
    if (format == "html") return query::RenderHtml(d, lang);
    auto text = query::RenderJson(d);
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : std::string();
  }
  static std::string db_;
};
std::string DigestDemo::db_;

void CheckGolden(const std::string& name, const std::string& actual) {
  std::string path = SourceDir() + "/tests/golden/digest/" + name;
  const char* update = std::getenv("FIXGRAPH_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    WriteFile(path, actual);
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing; run with FIXGRAPH_UPDATE_GOLDEN=1 to create it";
  std::string expected = ReadFile(path);
  if (expected == actual) return;
  // Name the first differing line.
  size_t line = 1, i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) {
    if (expected[i] == '\n') ++line;
    ++i;
  }
  FAIL() << name << " differs from the golden file at line " << line
         << " (FIXGRAPH_UPDATE_GOLDEN=1 regenerates it after a deliberate change)";
}

TEST_F(DigestDemo, GoldenMarkdownJsonAndEnglish) {
  CheckGolden("demo.md", Render("md"));
  CheckGolden("demo.json", Render("json"));
  CheckGolden("demo.en.md", Render("md", query::Lang::kEn));
}

// Two digests of the same store (each built from its own opening of it)
// render to the same bytes.
TEST_F(DigestDemo, SameStoreSameBytes) {
  for (const char* fmt : {"md", "json", "html"}) {
    std::string a = Render(fmt), b = Render(fmt);
    EXPECT_EQ(a, b) << fmt;
    EXPECT_GT(a.size(), 1000u) << fmt;
  }
}

// The HTML page lists the likely fixes of excluded issues as the Markdown
// does: their own section, tier D, apart from the trusted tables.
TEST_F(DigestDemo, HtmlShowsLikelyFixesApart) {
  query::Digest d = Build(query::DigestOptions());
  const query::DigestExcluded* with = nullptr;
  for (const query::DigestExcluded& e : d.excluded)
    if (!e.suggested.empty()) with = &e;
  ASSERT_NE(with, nullptr) << "the demo has an excluded issue with suggestions";
  for (query::Lang lang : {query::Lang::kZh, query::Lang::kEn}) {
    std::string html = query::RenderHtml(d, lang);
    size_t section = html.find("<h2 id=\"likely\">");
    ASSERT_NE(section, std::string::npos);
    EXPECT_LT(section, html.find("<h2 id=\"disclosure\">"));
    size_t row = html.find("<tr data-likely=\"" + with->issue + "\"", section);
    ASSERT_NE(row, std::string::npos);
    EXPECT_NE(html.find("data-tier=\"D\"", row), std::string::npos);
    char p[16];
    std::snprintf(p, sizeof p, "(%.2f)", with->suggested.front().confidence);
    EXPECT_NE(html.find(p, row), std::string::npos) << p;
    // The suggested PR links to its page.
    auto ref = ParseRef(with->suggested.front().pr);
    ASSERT_TRUE(ref.ok());
    EXPECT_NE(html.find("<a class=\"pr\" href=\"" + WebUrl(*ref) + "\">", row), std::string::npos);
  }
}

TEST_F(DigestDemo, RenderJsonIsTheTreePrintedWithIndent2) {
  query::Digest d = Build(query::DigestOptions());
  ASSERT_GT(d.repos.size(), 1u);
  auto text = query::RenderJson(d);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, query::ToJson(d).dump(2) + "\n");
  // One repository, and none at all (an empty "repos" array stays inline).
  query::DigestOptions one;
  one.repos = {d.repos.front().repo};
  query::Digest d1 = Build(one);
  EXPECT_EQ(*query::RenderJson(d1), query::ToJson(d1).dump(2) + "\n");
  query::Digest none = d;
  none.repos.clear();
  none.case_index.clear();
  none.themes.clear();
  none.troubleshooting.clear();
  EXPECT_EQ(*query::RenderJson(none), query::ToJson(none).dump(2) + "\n");
  // Written in pieces (one per repository at least), never the whole text at
  // once: the pieces join into the same bytes.
  std::string joined;
  size_t pieces = 0, largest = 0;
  Status s = query::WriteJson(d, [&](std::string_view piece) {
    joined.append(piece);
    ++pieces;
    largest = std::max(largest, piece.size());
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(joined, *text);
  EXPECT_GE(pieces, d.repos.size());
  EXPECT_LT(largest, joined.size() / 2);
  // A sink's error stops the writing and is returned as it is.
  size_t calls = 0;
  s = query::WriteJson(d, [&](std::string_view) {
    return ++calls == 3 ? Status::IOError("disk full") : Status::OK();
  });
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_EQ(calls, 3u);
}

TEST_F(DigestDemo, InvalidUtf8IsReplacedNotAnError) {
  query::Digest d = Build(query::DigestOptions());
  ASSERT_FALSE(d.repos.empty());
  ASSERT_FALSE(d.repos.front().cases.empty());
  d.options.org = "bad\xff";                      // the document's head
  d.repos.front().cases.front().title = "t\xfe";  // a case, written repository by repository
  auto text = query::RenderJson(d);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_NE(text->find("\"bad\xef\xbf\xbd\""), std::string::npos);
  EXPECT_NE(text->find("\"t\xef\xbf\xbd\""), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(*text));
}

TEST_F(DigestDemo, CasesCarryTheLinkerFactsAndTraps) {
  query::Digest d = Build(query::DigestOptions());
  // Every considered issue is either included or excluded, once.
  EXPECT_EQ(d.considered, static_cast<std::int64_t>(d.Cases().size() + d.excluded.size()));
  EXPECT_EQ(d.considered, 70);

  const query::DigestCase* c69 = d.Find("gitcode:Ascend/MindSpeed-Ops#69");
  ASSERT_NE(c69, nullptr);
  std::string zh = query::CaseSummary(d, *c69, query::Lang::kZh);
  EXPECT_NE(zh.find("!166"), std::string::npos) << zh;
  EXPECT_NE(zh.find("2026-09-15"), std::string::npos) << zh;
  EXPECT_NE(zh.find("显式引用 #69"), std::string::npos) << zh;
  EXPECT_NE(zh.find("!163"), std::string::npos) << zh;  // the false lead is named
  EXPECT_EQ(c69->tier, "B");
  EXPECT_FALSE(c69->problem.empty());
  EXPECT_NE(c69->title.find(c69->problem.substr(0, 6)), std::string::npos);

  const query::DigestCase* c31 = d.Find("gitcode:Ascend/TransformerEngineNPU#31");
  ASSERT_NE(c31, nullptr);
  std::string en = query::CaseSummary(d, *c31, query::Lang::kEn);
  EXPECT_NE(en.find("closed in the same second"), std::string::npos) << en;
  EXPECT_NE(en.find("issue-31"), std::string::npos) << en;  // the branch is quoted

  // Answers are quoted, not invented.
  const query::DigestCase* c26 = d.Find("gitcode:Ascend/TransformerEngineNPU#26");
  ASSERT_NE(c26, nullptr);
  EXPECT_NE(query::CaseSummary(d, *c26, query::Lang::kZh).find("reuse-grad-buf-for-mxfp8-param-ag"),
            std::string::npos);

  // Honest exclusion with reasons.
  std::map<std::string, std::string> reasons;
  for (const auto& e : d.excluded) reasons[e.issue] = e.reason;
  EXPECT_EQ(reasons["gitcode:mindspore/hyper-parallel#40"], "stale");
  EXPECT_EQ(reasons["gitcode:Ascend/MindSpeed-Ops#49"], "wontfix");
  EXPECT_EQ(reasons["gitcode:Ascend/mindsdk-referenceapps#337"], "duplicate");
  EXPECT_EQ(reasons["gitcode:Ascend/MindSpeed-Ops#77"], "open");
  EXPECT_EQ(reasons["gitcode:Ascend/infrastructure#16"], "no_evidence");
  // A duplicate whose chain found the fix is kept (the reader needs the fix).
  EXPECT_NE(d.Find("gitcode:Ascend/TransformerEngineNPU#19"), nullptr);

  json j = query::ToJson(d);
  const json& traps = j["disclosure"]["traps"];
  auto has = [](const json& list, const std::string& id) {
    return std::find(list.begin(), list.end(), id) != list.end();
  };
  // (value(): a flag no issue carries has no key, and operator[] on a const
  // object reads past the map when the key is missing.)
  EXPECT_TRUE(
      has(traps.value("fix_before_issue", json::array()), "gitcode:Ascend/MindSpeed-Ops#75"));
  EXPECT_TRUE(has(traps.value("false_lead", json::array()), "gitcode:Ascend/MindSpeed-Ops#69"));
  EXPECT_TRUE(has(traps.value("close_lag", json::array()), "gitcode:mindspore/hyper-parallel#70"));
  EXPECT_TRUE(has(j["disclosure"]["traceless"]["vendor_fix"], "gitcode:mindspore/mindspore#477"));
  EXPECT_EQ(j["disclosure"]["candidates"]["considered"], 70);
  std::int64_t tier_sum = 0;
  for (const auto& [t, n] : j["disclosure"]["links_by_tier"].items())
    tier_sum += n.get<std::int64_t>();
  // The disclosure counts every evidence link of the cases; the JSON view
  // lists the trusted ones (A-C) under "fixes" and leads "suggested" with
  // the tier-D ones (then the ranking's picks, which are not counted).
  std::int64_t fixes = 0, trusted = 0;
  for (const query::DigestRepo& r : d.repos)
    for (const query::DigestCase& c : r.cases)
      fixes += static_cast<std::int64_t>(c.links.fixes.size());
  for (const json& r : j["repos"])
    for (const json& c : r["cases"]) {
      trusted += static_cast<std::int64_t>(c["fixes"].size());
      for (const json& f : c["fixes"]) EXPECT_NE(f["tier"], "D") << c["issue"];
    }
  EXPECT_EQ(tier_sum, fixes);
  EXPECT_EQ(trusted, fixes - j["disclosure"]["links_by_tier"].value("D", 0));
}

TEST_F(DigestDemo, ThemesComeFromTheGraphAndSharedTerms) {
  query::Digest d = Build(query::DigestOptions());
  ASSERT_FALSE(d.themes.empty());
  // Every included issue appears in exactly one theme.
  std::map<std::string, int> seen;
  for (const auto& t : d.themes)
    for (const auto& id : t.issues) seen[id]++;
  EXPECT_EQ(seen.size(), d.Cases().size());
  for (const auto& [id, n] : seen) EXPECT_EQ(n, 1) << id;
  // !166 fixes #68 and #69: one graph theme holds both.
  bool pair = false;
  for (const auto& t : d.themes) {
    bool a = std::count(t.issues.begin(), t.issues.end(), "gitcode:Ascend/MindSpeed-Ops#68");
    bool b = std::count(t.issues.begin(), t.issues.end(), "gitcode:Ascend/MindSpeed-Ops#69");
    if (a && b) pair = t.via == "graph";
  }
  EXPECT_TRUE(pair);
  // At least one theme is held together by shared salient terms.
  bool by_terms = false;
  for (const auto& t : d.themes) by_terms = by_terms || (t.via == "terms" && !t.terms.empty());
  EXPECT_TRUE(by_terms);
}

TEST_F(DigestDemo, TroubleshootingIsExtractive) {
  query::Digest d = Build(query::DigestOptions());
  ASSERT_FALSE(d.troubleshooting.empty());
  EXPECT_LE(d.troubleshooting.size(), 20u);
  for (const auto& row : d.troubleshooting) {
    ASSERT_FALSE(row.cases.empty());
    const query::DigestCase* c = d.Find(row.cases.front());
    ASSERT_NE(c, nullptr);
    std::string source =
        row.source == "answer" ? c->links.answer->text : c->links.fixes.front().title;
    // The action (without a trailing ellipsis) is a piece of its source.
    std::string action = row.action;
    const std::string ell = "…";
    if (action.size() > ell.size() &&
        action.compare(action.size() - ell.size(), ell.size(), ell) == 0)
      action.resize(action.size() - ell.size());
    if (!action.empty() && action.back() == '`') action.pop_back();
    // LeadSentences joins sentences with "；": each piece comes from the source.
    auto no_ticks = [](std::string x) {
      x.erase(std::remove(x.begin(), x.end(), '`'), x.end());
      return x;
    };
    std::string piece = no_ticks(action.substr(0, action.find("；")));
    source = no_ticks(source);
    std::string head = dt::Truncate(piece, 8);
    if (head.size() > ell.size() && head.compare(head.size() - ell.size(), ell.size(), ell) == 0)
      head.resize(head.size() - ell.size());
    EXPECT_NE(dt::Squash(source).find(head), std::string::npos) << row.action << " / " << source;
  }
}

TEST_F(DigestDemo, SelectionFiltersAndMinTier) {
  query::DigestOptions o;
  o.repos = {RepoRef{Platform::kGitCode, "Ascend", "MindSpeed-Ops"}};
  query::Digest one = Build(o);
  ASSERT_EQ(one.repos.size(), 1u);
  EXPECT_EQ(one.considered, 6);

  query::DigestOptions org;
  org.org = "mindspore";
  for (const auto& r : Build(org).repos) EXPECT_EQ(r.repo.owner, "mindspore");

  query::DigestOptions strict;
  strict.rules.min_tier = "A";
  query::Digest a = Build(strict);
  EXPECT_EQ(a.Find("gitcode:Ascend/MindSpeed-Ops#69"), nullptr);  // tier B only
  EXPECT_NE(a.Find("gitcode:Ascend/TransformerEngineNPU#31"), nullptr);
  bool below = false;
  for (const auto& e : a.excluded)
    below = below || (e.issue == "gitcode:Ascend/MindSpeed-Ops#69" && e.reason == "below_min_tier");
  EXPECT_TRUE(below);

  query::DigestOptions window;
  window.since = **ParseTimestamp("2026-09-01");
  window.until = **ParseTimestamp("2026-09-30");
  query::Digest w = Build(window);
  EXPECT_EQ(w.as_of, "2026-09-30");
  for (const auto* c : w.Cases()) {
    ASSERT_TRUE(c->links.closed_at.has_value());
    EXPECT_GE(*c->links.closed_at, *window.since);
    EXPECT_LE(*c->links.closed_at, *window.until);
  }
  EXPECT_LT(w.considered, 70);

  query::DigestOptions missing;
  missing.repos = {RepoRef{Platform::kGitCode, "nobody", "nothing"}};
  auto store = OpenStore();
  EXPECT_FALSE(query::BuildDigest(*store, missing).ok());
}

// A rules file that only keeps fixed issues (what `digest --config` reads):
// the digest then holds fixed issues and the duplicates whose chain found
// the fix, and nothing else.
TEST_F(DigestDemo, RulesThatOnlyKeepFixedIssues) {
  auto rules = query::ParseDigestRules("{\"include_resolutions\": [\"fixed\"]}", "fixed.json");
  ASSERT_TRUE(rules.ok()) << rules.status().ToString();
  query::DigestOptions o;
  o.rules = *rules;
  query::Digest d = Build(o);
  json j = query::ToJson(d);
  size_t cases = 0;
  for (const json& r : j["repos"])
    for (const json& c : r["cases"]) {
      ++cases;
      EXPECT_TRUE(c["resolution"] == "fixed" || c["resolution"] == "duplicate") << c["issue"];
    }
  EXPECT_GT(cases, 0u);
  // The default rules keep more than that.
  EXPECT_LT(d.Cases().size(), Build(query::DigestOptions()).Cases().size());
}

TEST(DigestRules, ShippedFileEqualsCompiledDefaults) {
  std::string text = ReadFile(SourceDir() + "/data/digest/rules.json");
  auto r = query::ParseDigestRules(text, "data/digest/rules.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  query::DigestRules d = query::DefaultDigestRules();
  EXPECT_EQ(r->include_resolutions, d.include_resolutions);
  EXPECT_EQ(r->include_duplicates_with_fixes, d.include_duplicates_with_fixes);
  EXPECT_EQ(r->min_tier, d.min_tier);
  EXPECT_EQ(r->troubleshooting_max, d.troubleshooting_max);
  EXPECT_EQ(r->term_min_issues, d.term_min_issues);
  EXPECT_DOUBLE_EQ(r->term_max_share, d.term_max_share);
  EXPECT_EQ(r->problem_max_chars, d.problem_max_chars);
  EXPECT_EQ(r->action_max_chars, d.action_max_chars);
  EXPECT_EQ(r->stop_terms, d.stop_terms);
}

TEST(DigestRules, BadFieldsAreNamed) {
  auto a = query::ParseDigestRules("{\"include_resolutions\": [\"fixed\", \"maybe\"]}", "x.json");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("maybe"), std::string::npos);
  auto b = query::ParseDigestRules("{\"colour\": 1}", "x.json");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("colour"), std::string::npos);
  EXPECT_FALSE(query::ParseDigestRules("[1]", "x.json").ok());
  EXPECT_FALSE(query::ParseDigestRules("{\"term_min_issues\": 1}", "x.json").ok());
}

// Issue 21: an invalid rules file names the place (before: "not a JSON
// object" for 1e400 or a syntax error alike); a BOM is accepted.
TEST(DigestRules, InvalidJsonNamesThePlace) {
  auto a = query::ParseDigestRules("{\"since_days\": 1e400}", "x.json");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("x.json: not valid JSON:"), std::string::npos)
      << a.status().message();
  EXPECT_NE(a.status().message().find("number overflow"), std::string::npos)
      << a.status().message();
  auto b = query::ParseDigestRules("{\"a\": [1,,]}", "x.json");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("line 1, column"), std::string::npos) << b.status().message();
  EXPECT_TRUE(query::ParseDigestRules("\xEF\xBB\xBF{}", "x.json").ok());
}

TEST(DigestText, SentencesTermsAndTruncation) {
  EXPECT_EQ(dt::FirstSentence("## 环境\n\n```\ncode. here\n```\n执行 pytest 后用例失败。随后又……"),
            "执行 pytest 后用例失败");
  EXPECT_EQ(dt::FirstSentence("Hello world. More text"), "Hello world");
  EXPECT_EQ(dt::CleanTitle("[Bug] serve 拉起失败。"), "serve 拉起失败");
  EXPECT_EQ(dt::CleanTitle("【需求】补充说明"), "补充说明");
  std::string t = dt::Truncate("一二三四五六七八九十", 4);
  EXPECT_EQ(t, "一二三四…");
  EXPECT_EQ(dt::Truncate("short", 10), "short");
  auto terms = dt::SalientTerms(
      "aclrtMemsetAsync is slow on 910B; see https://x.com/a_b_c and fp8_param_gather, MXFP8, v2 "
      "the");
  // "910B" starts with a digit (model numbers, versions): not a topic term.
  std::vector<std::string> want = {"aclrtmemsetasync", "fp8_param_gather", "mxfp8"};
  EXPECT_EQ(terms, want);
  // Trailing '.'/'-' are cut; duplicates and case fold to one term; a word
  // with digits needs two letters ("fp16" yes, "v2" and "h264" no).
  EXPECT_EQ(dt::SalientTerms("use FP16. then fp16 and ERR_CODE- or v2 h264 bf16-"),
            (std::vector<std::string>{"bf16", "err_code", "fp16"}));
  EXPECT_EQ(dt::Squash("  a \t\n b\r\n\n c  "), "a b c");
  EXPECT_EQ(dt::Squash(" \n "), "");
  EXPECT_EQ(dt::MdCell("a|b\nc"), "a\\|b c");
  EXPECT_EQ(dt::Html("<a href=\"x\">&"), "&lt;a href=&quot;x&quot;&gt;&amp;");
}

// A stripped "[Bug]" tag leaves no ": " behind; a title that is only a tag stays.
TEST(DigestText, LinkMentionsLinksWholeMentionsOutsideSpans) {
  auto link = [](const std::string& m, const std::string& url) {
    return "[" + m + "](" + url + ")";
  };
  std::vector<std::pair<std::string, std::string>> prs = {{"!12", "u12"}, {"!123", "u123"}};
  // The longest mention wins; "!12" inside "!1234" or "x!12" is not one; code spans stay.
  EXPECT_EQ(dt::LinkMentions("!123 and !12, `!12` x!12 !1234 !12", prs, '`', '`', false, link),
            "[!123](u123) and [!12](u12), `!12` x!12 !1234 [!12](u12)");
  EXPECT_EQ(dt::LinkMentions("!12 then !12", prs, '`', '`', true, link), "[!12](u12) then !12");
  EXPECT_EQ(dt::LinkMentions("<a title=\"!12\">!12</a>", prs, '<', '>', false, link),
            "<a title=\"!12\">[!12](u12)</a>");
  EXPECT_EQ(dt::LinkMentions("unclosed `!12", prs, '`', '`', false, link), "unclosed `!12");
  RepoRef repo = ParseRef("gitcode:o/r#1")->repo;
  auto mentions = dt::PrMentions(
      {{"gitcode:o/r!5", "u5"}, {"gitcode:o/q!6", "u6"}, {"gitcode:o/r!7", ""}}, repo);
  EXPECT_EQ(mentions, (std::vector<std::pair<std::string, std::string>>{{"gitcode:o/q!6", "u6"},
                                                                        {"!5", "u5"}}));
}

TEST(DigestText, CleanTitleDropsWhatTheTagLeaves) {
  EXPECT_EQ(dt::CleanTitle("[Bug]: ZeRO-3 hangs"), "ZeRO-3 hangs");
  EXPECT_EQ(dt::CleanTitle("[BUG]：NPU 上报错"), "NPU 上报错");
  EXPECT_EQ(dt::CleanTitle("【需求】：补充说明"), "补充说明");
  EXPECT_EQ(dt::CleanTitle("[CI] - fix the nightly job"), "fix the nightly job");
  EXPECT_EQ(dt::CleanTitle("[Bug] --build-arg breaks"), "--build-arg breaks");  // an option is kept
  EXPECT_EQ(dt::CleanTitle("[Bug]"), "[Bug]");
}

// A cut never falls inside an inline code span (a command) or a URL.
TEST(DigestText, TruncateKeepsCommandsAndUrlsWhole) {
  std::string cmd = "先执行 `MINDSPEED_BUILD_CATLASS=1 bash build.sh` 再运行测试";
  std::string t = dt::Truncate(cmd, 12);  // the cut falls inside the span
  EXPECT_EQ(t, "先执行 `MINDSPEED_BUILD_CATLASS=1 bash build.sh`…");
  // A span too long to finish is dropped whole.
  std::string long_cmd = "运行 `" + std::string(80, 'x') + "` 即可";
  EXPECT_EQ(dt::Truncate(long_cmd, 10), "运行…");
  std::string url = "见 https://gitcode.com/Ascend/X/issues/12 的说明";
  EXPECT_EQ(dt::Truncate(url, 10), "见 https://gitcode.com/Ascend/X/issues/12…");
  EXPECT_EQ(dt::Truncate("一二三四五六七八九十", 4), "一二三四…");
}

// The cause and the change come from the description's own sections, or its
// first substantive paragraph; templates, checklists and references are skipped.
TEST(DigestText, PrNoteIsExtractedFromTheDescription) {
  dt::PrNote k8s = dt::ExtractPrNote(
      "<!-- Thanks for sending a pull request! Please fill in the template. -->\n"
      "#### What type of PR is this?\n/kind bug\n\n"
      "#### What this PR does / why we need it:\n"
      "The scheduler dropped pods whose node was cordoned. Requeue them instead.\n\n"
      "#### Which issue(s) this PR fixes:\nFixes #4521\n\n"
      "#### Special notes for your reviewer:\nNone\n",
      "Requeue pods of cordoned nodes", 150);
  EXPECT_EQ(k8s.cause, "");
  EXPECT_EQ(k8s.change, "The scheduler dropped pods whose node was cordoned. Requeue them instead");

  dt::PrNote zh = dt::ExtractPrNote(
      "### 关联 Issue\n关联 #68 https://gitcode.com/Ascend/X/issues/68\n\n"
      "### 修改原因\n上游脚本只支持 `--enable-llvm`，传 `-v` 即报 Unknown option。\n\n"
      "### 修改内容\n1. README.md：构建命令改为 `./build.sh --enable-llvm`\n2. 补充说明\n\n"
      "### 自测\n- [x] 910B4 构建通过\n",
      "修复构建命令", 150);
  EXPECT_EQ(zh.cause, "上游脚本只支持 `--enable-llvm`，传 `-v` 即报 Unknown option");
  EXPECT_EQ(zh.change, "1. README.md：构建命令改为 `./build.sh --enable-llvm`；2. 补充说明");

  // No headings: the first paragraph that is not a reference, a restated
  // title or a sign-off.
  dt::PrNote plain = dt::ExtractPrNote(
      "* Remove deprecated `torch._six` imports\n\nCloses #2845.\n\n"
      "As the extensions share the build folder, building them in parallel can\ncause failures.\n\n"
      "Signed-off-by: A <a@b.c>\n",
      "Remove deprecated `torch._six` imports", 150);
  EXPECT_EQ(
      plain.change,
      "As the extensions share the build folder, building them in parallel can cause failures");

  // Code blocks and inline labels: "**Root Cause**：" opens a cause.
  dt::PrNote labels = dt::ExtractPrNote(
      "关联 issue：https://gitcode.com/o/r/issues/18\n\n**Root "
      "Cause**：初始化时显存反复申请释放。\n\n"
      "**Fix Solution**：改在 CPU 侧创建参数。\n\n```\nlog line\n```\n",
      "修复 OOM", 150);
  EXPECT_EQ(labels.cause, "初始化时显存反复申请释放");
  EXPECT_EQ(labels.change, "改在 CPU 侧创建参数");

  // Nothing but a reference and a checklist: no note.
  dt::PrNote none =
      dt::ExtractPrNote("Fixes #12\n\n- [x] tests\n---------\nCo-authored-by: x", "t", 150);
  EXPECT_EQ(none.cause, "");
  EXPECT_EQ(none.change, "");

  // vllm-ascend's PR templates: a version footer says nothing (PR 6151), and
  // a sentence ending with a colon before a link is no heading, nor is the
  // comma after the link a start (PR 476).
  dt::PrNote footer = dt::ExtractPrNote(
      "### What this PR does / why we need it?\nFix https://github.com/o/r/issues/5524\n\n"
      "- vLLM version: v0.13.0\n- vLLM main:\nhttps://github.com/o/vllm/commit/d682094\n",
      "Fix structured outputs errors", 150);
  EXPECT_EQ(footer.change, "");
  dt::PrNote lead = dt::ExtractPrNote(
      "### What this PR does / why we need it?\nvLLM bumps numpy version to 2.x:\n"
      "https://github.com/o/vllm/commit/8427f70\n, this will cause a conflict when installing.\n",
      "Set numpy < 2.0.0", 150);
  EXPECT_EQ(lead.change,
            "vLLM bumps numpy version to 2.x: this will cause a conflict when installing");
  // A template's long heading written as a line with a colon is still one.
  for (const char* heading :
       {"What this PR does / why we need it:", "**What this PR does / why we need it**:"}) {
    dt::PrNote templ = dt::ExtractPrNote(std::string(heading) +
                                             "\nRequeue pods of cordoned nodes.\n\n"
                                             "Which issue(s) this PR fixes:\nFixes #4521\n",
                                         "Requeue", 150);
    EXPECT_EQ(templ.change, "Requeue pods of cordoned nodes") << heading;
  }
}

TEST(DigestText, VersionNotes) {
  for (const char* line : {"- vLLM version: v0.13.0", "- vLLM main:", "CANN 版本：8.0.RC3",
                           "* torch_npu: 2.1.0.post8", "commit: d68209402dda"})
    EXPECT_TRUE(query::IsVersionNote(line)) << line;
  for (const char* line :
       {"vLLM bumps numpy version to 2.x:", "- Set numpy < 2.0.0", "- 版本: 升级到 8.0.RC3",
        "Root cause: a stale cache", "Root cause:", "no colon 1.2"})
    EXPECT_FALSE(query::IsVersionNote(line)) << line;
}

// A repository without a description still gets a true role line: the
// directories its fixes change and its issues' labels, else its name.
TEST(DigestRole, FallsBackToPathsLabelsOrName) {
  TempDir dir;
  std::string root = dir / "dump/github/acme/engine";
  WriteFile(root + "/repo.json", R"({"full_name": "acme/engine", "description": ""})");
  WriteFile(root + "/issues.json", R"([
    {"number": 1, "title": "[Bug]: crash in zero stage 3", "state": "closed", "labels": [{"name": "bug"}, {"name": "training"}],
     "created_at": "2026-01-01T00:00:00Z", "closed_at": "2026-01-03T00:00:05Z"},
    {"number": 2, "title": "hang in zero offload", "state": "closed", "labels": [{"name": "training"}],
     "created_at": "2026-01-02T00:00:00Z", "closed_at": "2026-01-04T00:00:05Z"}])");
  WriteFile(root + "/pulls.json", R"([
    {"number": 10, "title": "fix crash", "body": "Fixes #1\n\nThe partition map was rebuilt after the optimizer step; keep it.", "state": "closed",
     "created_at": "2026-01-02T00:00:00Z", "merged_at": "2026-01-03T00:00:00Z", "html_url": "https://example.org/pr/10",
     "head": {"ref": "a"}, "base": {"ref": "main"}},
    {"number": 11, "title": "fix hang", "body": "Fixes #2", "state": "closed",
     "created_at": "2026-01-03T00:00:00Z", "merged_at": "2026-01-04T00:00:00Z",
     "head": {"ref": "b"}, "base": {"ref": "main"}}])");
  WriteFile(root + "/pulls/10/files.json",
            R"([{"filename": "engine/runtime/zero/stage3.py", "status": "modified"}])");
  WriteFile(root + "/pulls/11/files.json",
            R"([{"filename": "engine/runtime/zero/offload.py", "status": "modified"}])");
  SetDisplayOffsetMinutes(8 * 60);  // the CLI's default display offset (+08:00)
  Status imported = fixgraph::testing::ImportAndRefresh(dir / "db", dir / "dump");
  ASSERT_TRUE(imported.ok()) << imported.ToString();
  query::Digest d;
  {
    StoreOptions read_only;
    read_only.read_only = true;
    auto store = Store::Open(dir / "db/store", read_only);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto built = query::BuildDigest(**store, query::DigestOptions());
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    d = std::move(*built);
  }
  json j = query::ToJson(d);
  ASSERT_EQ(j["repos"].size(), 1u) << j.dump();
  const json& r = j["repos"][0];
  EXPECT_EQ(r["role"], "");
  EXPECT_EQ(r["role_text"]["zh"],
            "（仓库未填描述）修复多涉及 `engine/runtime`；issue 标签多为 training");
  EXPECT_EQ(r["role_text"]["en"],
            "(no repository description) fixes mostly change `engine/runtime`; issues mostly "
            "labelled training");
  ASSERT_EQ(r["cases"].size(), 2u);
  const json& c1 = r["cases"][0];
  EXPECT_EQ(c1["problem"], "crash in zero stage 3");              // no ": " left by the tag
  EXPECT_EQ(c1["fixes"][0]["url"], "https://example.org/pr/10");  // html_url when stored
  EXPECT_EQ(c1["fix_note"]["change"],
            "The partition map was rebuilt after the optimizer step; keep it");
  EXPECT_NE(c1["summary"]["en"].get<std::string>().find("Change (from !10): The partition map"),
            std::string::npos)
      << c1["summary"];
  const json& c2 = r["cases"][1];
  EXPECT_EQ(c2["fixes"][0]["url"],
            "https://github.com/acme/engine/pull/11");  // built from the reference
  EXPECT_TRUE(c2["fix_note"].is_null());                // "Fixes #2" says nothing
  // The Markdown overview's role column is never empty.
  std::string out = query::RenderMarkdown(d, query::Lang::kZh);
  EXPECT_NE(out.find("| acme/engine | （仓库未填描述）修复多涉及 `engine/runtime`"),
            std::string::npos)
      << out;

  // Nothing to go by: the name, marked.
  query::DigestRepo bare;
  bare.repo = RepoRef{Platform::kGitHub, "acme", "engine"};
  EXPECT_EQ(query::RepoRole(bare, query::Lang::kZh), "acme/engine（仓库未填描述）");
  bare.role = "An engine";
  EXPECT_EQ(query::RepoRole(bare, query::Lang::kEn), "An engine");
}

TEST(DigestRender, RenderInOrderKeepsIndexOrderAcrossChunks) {
  for (size_t n : {0, 1, 63, 64, 65, 1000}) {
    std::string want;
    for (size_t i = 0; i < n; ++i) want += std::to_string(i) + ",";
    EXPECT_EQ(query::RenderInOrder(
                  n, [](size_t i, std::string* out) { *out += std::to_string(i) + ","; }),
              want)
        << n;
  }
}

}  // namespace
}  // namespace fixgraph
