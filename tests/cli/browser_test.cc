// The search page of `fixgraph serve`, end to end in headless Chromium: the
// page's script runs, calls the API and renders hits (resolution, fix links
// with tiers) and an issue's evidence chain and timeline. Skipped when no
// chromium binary is installed (CI installs Debian's chromium).
#include "serve_process.h"
#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace fixgraph {
namespace {

using fixgraph::testing::ChromiumPath;
using fixgraph::testing::ImportDemo;
using fixgraph::testing::ReadFile;
using fixgraph::testing::RunChromium;
using fixgraph::testing::ServeProcess;
using fixgraph::testing::TempDir;

class BrowserDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (ChromiumPath().empty()) return;
    db_ = new TempDir();
    std::string err;
    ASSERT_EQ(ImportDemo(db_->path(), &err), 0) << err;
    server_ = new ServeProcess(db_->path());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete db_;
    server_ = nullptr;
    db_ = nullptr;
  }
  void SetUp() override {
    if (ChromiumPath().empty()) GTEST_SKIP() << "chromium is not installed";
    ASSERT_GT(server_->port(), 0) << server_->log();
  }
  // The DOM after the page's scripts ran (virtual time lets fetches finish).
  std::string Dom(const std::string& query, const std::string& screenshot = "") {
    TempDir profile;
    std::string args =
        "--no-first-run --user-data-dir=" + profile.path() + " --virtual-time-budget=8000 ";
    args +=
        screenshot.empty() ? "--dump-dom" : "--window-size=1200,1400 --screenshot=" + screenshot;
    args += " '" + server_->url() + "/" + query + "'";
    std::string out, err;
    int rc = RunChromium(args, &out, &err);
    EXPECT_EQ(rc, 0) << err;
    return out;
  }
  static TempDir* db_;
  static ServeProcess* server_;
};
TempDir* BrowserDemo::db_ = nullptr;
ServeProcess* BrowserDemo::server_ = nullptr;

TEST_F(BrowserDemo, SymptomSearchRendersHitsWithResolutionAndFixes) {
  // Words of MindSpeed-Ops#69's report, not its exact title.
  std::string dom = Dom("?q=" + std::string("catlass%20AttributeError%20pytest"));
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_EQ(dom.find("role=\"alert\" style=\"display: block"), std::string::npos) << dom;
  EXPECT_NE(dom.find("class=\"card hit\" data-issue=\"gitcode:Ascend/MindSpeed-Ops#69\""),
            std::string::npos)
      << dom;
  EXPECT_NE(dom.find("未编译 CATLASS 时运行 pytest"), std::string::npos);
  // A resolution badge and at least one fix with its tier badge.
  EXPECT_TRUE(std::regex_search(dom, std::regex("class=\"badge res res-[a-z_]+\"")));
  EXPECT_TRUE(std::regex_search(dom, std::regex("class=\"badge tier tier-[ABCD]\"")));
  EXPECT_NE(dom.find("evidence chain and timeline"), std::string::npos);
}

TEST_F(BrowserDemo, IssuePageShowsEvidenceChainAndTimeline) {
  std::string shot = server_->url().empty() ? "" : ::testing::TempDir() + "fixgraph_issue.png";
  std::string dom = Dom("?ref=gitcode%3AAscend%2FMindSpeed-Ops%2369");
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("class=\"card item\" data-ref=\"gitcode:Ascend/MindSpeed-Ops#69\""),
            std::string::npos)
      << dom;
  EXPECT_NE(dom.find("Evidence chain"), std::string::npos);
  EXPECT_NE(dom.find("Timeline"), std::string::npos);
  EXPECT_NE(dom.find("<ol class=\"timeline\">"), std::string::npos);
  EXPECT_NE(dom.find("opened by"), std::string::npos);
  // A screenshot is produced (looked at by hand while developing).
  Dom("?ref=gitcode%3AAscend%2FMindSpeed-Ops%2369", shot);
  EXPECT_GT(ReadFile(shot).size(), 10000u);
}

// The home (no query): example questions taken from the store, each a link
// that searches for it, and the store's counts. The first example, searched,
// finds its own issue.
TEST_F(BrowserDemo, HomeShowsExampleQuestionsAndStoreStats) {
  std::string dom = Dom("");
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_EQ(dom.find("role=\"alert\" style=\"display: block"), std::string::npos) << dom;
  // Examples: links "?q=..." carrying the issue they come from.
  std::regex example(
      "<a href=\"(\\?q=[^\"]+)\" class=\"example\" data-issue=\"([^\"]+)\">([^<]+)</a>");
  std::vector<std::pair<std::string, std::string>> found;  // (href, issue)
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), example);
       it != std::sregex_iterator(); ++it)
    found.emplace_back((*it)[1].str(), (*it)[2].str());
  ASSERT_GE(found.size(), 4u) << dom;
  std::set<std::string> repos;
  for (const auto& [href, issue] : found) repos.insert(issue.substr(0, issue.find('#')));
  EXPECT_GE(repos.size(), 4u);  // spread over the repositories
  // The demo store's counts (data/demo: 18 repositories, 70 issues, 86 PRs).
  EXPECT_NE(dom.find("<li data-stat=\"repositories\"><b>18</b>"), std::string::npos) << dom;
  EXPECT_NE(dom.find("<li data-stat=\"issues\"><b>70</b>"), std::string::npos) << dom;
  EXPECT_NE(dom.find("<li data-stat=\"pulls\"><b>86</b>"), std::string::npos) << dom;
  EXPECT_TRUE(std::regex_search(dom, std::regex("<li data-stat=\"fix_links\"><b>[1-9][0-9]*</b>")));
  EXPECT_NE(dom.find("<li data-stat=\"docs\"><b>"), std::string::npos);
  // Searching the first example finds its issue among the hits.
  const std::string href = std::regex_replace(found.front().first, std::regex("&amp;"), "&");
  std::string hits = Dom(href);
  ASSERT_NE(hits.find("data-ready=\"1\""), std::string::npos);
  EXPECT_NE(hits.find("class=\"card hit\" data-issue=\"" + found.front().second + "\""),
            std::string::npos)
      << found.front().first;
  EXPECT_EQ(hits.find("class=\"example\""), std::string::npos);  // the home is gone once searching
}

TEST_F(BrowserDemo, ApiErrorsAreShownNotSwallowed) {
  std::string dom = Dom("?ref=gitcode%3AAscend%2FMindSpeed-Ops%23424242");
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("<div id=\"error\"[^>]*>([^<]+)</div>"))) << dom;
  EXPECT_NE(m[1].str().find("424242"), std::string::npos) << m[1];
}

}  // namespace
}  // namespace fixgraph
