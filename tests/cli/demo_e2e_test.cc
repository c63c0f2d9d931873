// End to end: the built binary imports data/demo and reports exactly the
// counts of data/demo/MANIFEST.json; a second import changes nothing.
#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace fixgraph {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::RunCommand;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using nlohmann::json;

class DemoE2E : public ::testing::Test {
 protected:
  std::string Fixgraph(const std::string& args) {
    return BinaryPath() + " --db " + db_.path() + " " + args;
  }
  TempDir db_;
};

TEST_F(DemoE2E, ImportGivesManifestCountsAndIsIdempotent) {
  std::string demo = SourceDir() + "/data/demo";
  std::string out, err;
  ASSERT_EQ(RunCommand(Fixgraph("import " + demo), &out, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fixgraph("stats --json"), &out, &err), 0) << err;
  json stats = json::parse(out);
  json manifest = json::parse(testing::ReadFile(demo + "/MANIFEST.json"));
  ASSERT_EQ(stats["repositories"].size(), manifest["repos"].size());
  for (const json& r : stats["repositories"]) {
    std::string name = r["repo"];
    ASSERT_TRUE(manifest["repos"].contains(name)) << name;
    const json& m = manifest["repos"][name];
    EXPECT_EQ(r["issues"]["total"], m["issues"]) << name;
    EXPECT_EQ(r["issues"]["open"], m["issues_open"]) << name;
    EXPECT_EQ(r["issues"]["closed"], m["issues_closed"]) << name;
    EXPECT_EQ(r["pulls"]["total"], m["pulls"]) << name;
    EXPECT_EQ(r["pulls"]["merged"], m["pulls_merged"]) << name;
    EXPECT_EQ(r["pulls"]["open"], m["pulls_open"]) << name;
    EXPECT_EQ(r["pulls"]["closed"], m["pulls_closed"]) << name;
    EXPECT_EQ(r["comments"], m["comments"]) << name;
    EXPECT_EQ(r["commits"], m["commits"]) << name;
    EXPECT_EQ(r["files"], m["files"]) << name;
  }
  ASSERT_EQ(RunCommand(Fixgraph("import --json " + demo), &out, &err), 0) << err;
  EXPECT_EQ(json::parse(out)["totals"]["changed"], 0);
  std::string again;
  ASSERT_EQ(RunCommand(Fixgraph("stats --json"), &again, &err), 0) << err;
  EXPECT_EQ(json::parse(again)["repositories"], stats["repositories"]);
}

TEST_F(DemoE2E, ShowIssueWithCommentsAndMentioningPulls) {
  std::string out, err;
  ASSERT_EQ(RunCommand(Fixgraph("import " + SourceDir() + "/data/demo"), &out, &err), 0) << err;
  // MindSpeed-Ops !166 says 关联 #69; the comments also point at the unmerged !163.
  ASSERT_EQ(RunCommand(Fixgraph("show gitcode:Ascend/MindSpeed-Ops#69 --json"), &out, &err), 0)
      << err;
  json view = json::parse(out);
  EXPECT_EQ(view["issue"]["number"], "69");
  EXPECT_FALSE(view["comments"].empty());
  bool saw_fix = false;
  for (const json& m : view["mentioned_by"])
    // (source_state only when the source is in the store: value() on the const row.)
    if (m["source"] == "gitcode:Ascend/MindSpeed-Ops!166" &&
        m.value("source_state", "") == "merged")
      saw_fix = true;
  EXPECT_TRUE(saw_fix) << view["mentioned_by"].dump(2);
  ASSERT_EQ(RunCommand(Fixgraph("show gitcode:Ascend/TransformerEngineNPU#40"), &out, &err), 0);
  EXPECT_NE(out.find("Comments ("), std::string::npos);
}

TEST_F(DemoE2E, BadDumpFailsWithFileNameAndLeavesStore) {
  TempDir dump;
  std::string repo = dump / "gitcode/Ascend/demo";
  testing::WriteFile(repo + "/issues.json", "[{\"number\": \"1\", \"title\": \"ok\"}]");
  std::string out, err;
  ASSERT_EQ(RunCommand(Fixgraph("import " + dump.path()), &out, &err), 0) << err;
  testing::WriteFile(repo + "/issues.json", "[{\"number\": \"1\", \"title\": \"changed\"}, {]");
  EXPECT_EQ(RunCommand(Fixgraph("import " + dump.path()), &out, &err), 1);
  EXPECT_NE(err.find(repo + "/issues.json: byte"), std::string::npos) << err;
  ASSERT_EQ(RunCommand(Fixgraph("show gitcode:Ascend/demo#1 --json"), &out, &err), 0) << err;
  EXPECT_EQ(json::parse(out)["issue"]["title"], "ok");
  // Unknown platform folder and unreadable path.
  testing::WriteFile(dump / "gitlab/a/b/issues.json", "[]");
  EXPECT_EQ(RunCommand(Fixgraph("import " + dump.path()), &out, &err), 1);
  EXPECT_NE(err.find("unknown platform folder \"gitlab\""), std::string::npos) << err;
}

}  // namespace
}  // namespace fixgraph
