// cli/documents: the JSON documents shared by the CLI, serve and mcp. The
// CLI prints exactly these documents; errors are values naming the input.
#include "../../cli/documents.h"

#include "testutil/testutil.h"

#include "fixgraph/cli/cli.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using nlohmann::json;

std::string RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "fixgraph");
  std::ostringstream out, err;
  EXPECT_EQ(Run(args, out, err), 0) << err.str();
  return out.str();
}

class Documents : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new TempDir();
    RunCli({"--db", db_->path(), "import", SourceDir() + "/data/demo"});
  }
  static void TearDownTestSuite() { delete db_; }
  void SetUp() override {
    StoreOptions o;
    o.read_only = true;
    auto s = Store::Open(db_->path() + "/store", o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
  }
  static TempDir* db_;
  std::unique_ptr<Store> store_;
};
TempDir* Documents::db_ = nullptr;

TEST_F(Documents, ShowDocumentIsWhatShowJsonPrints) {
  for (const std::string ref :
       {"gitcode:Ascend/MindSpeed-Ops#69", "gitcode:Ascend/MindSpeed-Ops!166",
        "gitcode:Ascend/MindSpeed-Ops"}) {
    auto doc = ShowDocument(*store_, ref);
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    EXPECT_EQ(doc->dump() + "\n", RunCli({"--db", db_->path(), "show", "--json", ref})) << ref;
  }
  auto issue = ShowDocument(*store_, "gitcode:Ascend/MindSpeed-Ops#69");
  ASSERT_TRUE(issue.ok());
  EXPECT_TRUE((*issue)["links"].is_object());
  EXPECT_FALSE((*issue)["explanation"].empty());
}

TEST_F(Documents, ShowDocumentErrorsNameTheInput) {
  auto bad = ShowDocument(*store_, "nonsense");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("nonsense"), std::string::npos);
  auto missing = ShowDocument(*store_, "gitcode:Ascend/MindSpeed-Ops#424242");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
}

TEST_F(Documents, LinksAndStatsDocumentsAreTheCliOutput) {
  std::string lines;
  RepoRef repo;
  bool set = false;
  ASSERT_TRUE(ParseRepoFilter("gitcode:Ascend/MindSpeed-Ops", "repo", &repo, &set).ok());
  ASSERT_TRUE(set);
  ASSERT_TRUE(ForEachLinksDocument(*store_, &repo, [&](const json& d) {
                lines += d.dump() + "\n";
                return true;
              }).ok());
  EXPECT_EQ(lines, RunCli({"--db", db_->path(), "links", "--json", "--repo",
                           "gitcode:Ascend/MindSpeed-Ops"}));
  auto stats = StatsDocument(*store_);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dump() + "\n", RunCli({"--db", db_->path(), "stats", "--json"}));
  EXPECT_EQ((*stats)["totals"]["repositories"], 18);

  Status s = ParseRepoFilter("gitcode:Ascend/MindSpeed-Ops#69", "repo", &repo, &set);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("repo \"gitcode:Ascend/MindSpeed-Ops#69\""), std::string::npos);
  ASSERT_TRUE(ParseRepoFilter("", "repo", &repo, &set).ok());
  EXPECT_FALSE(set);
}

TEST_F(Documents, DigestTextIsWhatDigestWritesAndNamesBadFields) {
  DigestRequest r;
  r.repos = {"gitcode:Ascend/MindSpeed-Ops"};
  r.until = "2026-09-30";
  for (const std::string format : {"md", "json", "html"}) {
    r.format = format;
    auto text = DigestText(*store_, r);
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_EQ(*text,
              RunCli({"--db", db_->path(), "digest", "--repo", "gitcode:Ascend/MindSpeed-Ops",
                      "--until", "2026-09-30", "--format", format}))
        << format;
  }
  r.format = "pdf";
  auto bad = DigestText(*store_, r);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("format \"pdf\""), std::string::npos);
  r.format = "md";
  r.since = "last week";
  bad = DigestText(*store_, r);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("since \"last week\""), std::string::npos);
  r.since = "";
  r.repos = {"gitcode:Nobody/Nothing"};
  bad = DigestText(*store_, r);
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace fixgraph::cli
