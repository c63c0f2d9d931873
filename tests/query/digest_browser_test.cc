// The HTML digest in headless Chromium: the page renders as one self-contained
// file with the case tables, evidence badges and the SVG timeline; a
// screenshot is taken. Skipped when chromium is not installed (CI installs
// it). FIXGRAPH_DIGEST_SCREENSHOT=PATH keeps a copy of the screenshot.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "testutil/testutil.h"

namespace fixgraph {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::ChromiumPath;
using fixgraph::testing::ReadFile;
using fixgraph::testing::RunCommand;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using nlohmann::json;

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST(DigestBrowser, RendersTablesBadgesAndTimeline) {
  std::string chromium = ChromiumPath();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed";
  TempDir dir;
  std::string fg = "FIXGRAPH_TZ=+08:00 " + BinaryPath() + " --db " + dir.path() + "/db ";
  std::string out, err;
  ASSERT_EQ(RunCommand(fg + "import " + SourceDir() + "/data/demo", &out, &err), 0) << err;
  std::string html = dir / "digest.html";
  ASSERT_EQ(RunCommand(fg + "digest --format html -o " + html, &out, &err), 0) << err;
  ASSERT_EQ(RunCommand(fg + "digest --format json", &out, &err), 0) << err;
  json j = json::parse(out);
  size_t cases = 0;
  for (const json& r : j["repos"]) cases += r["cases"].size();
  ASSERT_GT(cases, 0u);

  std::string page = ReadFile(html);
  // Self-contained: no scripts, no external stylesheets or images.
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);

  std::string flags = " --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                      dir.path() + "/profile ";
  std::string dom;
  ASSERT_EQ(RunCommand("timeout 120 " + chromium + flags + "--dump-dom file://" + html + " 2>/dev/null",
                       &dom, &err),
            0)
      << err;
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
  ASSERT_EQ(RunCommand("timeout 120 " + chromium + flags + "--window-size=1200,2000 --screenshot=" +
                           png + " file://" + html + " >/dev/null 2>&1",
                       &out, &err),
            0);
  ASSERT_TRUE(std::filesystem::exists(png));
  std::string shot = ReadFile(png);
  ASSERT_GT(shot.size(), 20000u);  // a rendered page, not a blank one
  EXPECT_EQ(shot.substr(1, 3), "PNG");
  if (const char* keep = std::getenv("FIXGRAPH_DIGEST_SCREENSHOT"); keep != nullptr && *keep != '\0')
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace fixgraph
