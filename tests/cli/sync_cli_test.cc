// `fixgraph sync` end to end through the loopback fake API.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_api.h"
#include "testutil/testutil.h"

namespace fixgraph {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::RunCommand;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using nlohmann::json;

std::string Fixgraph(const std::string& db, const std::string& args) {
  return BinaryPath() + " --db " + db + " " + args;
}

TEST(SyncCli, DemoThroughFakeEqualsImport) {
  TempDir dir;
  const std::string demo = SourceDir() + "/data/demo";
  fakeapi::FakeApi api(demo);
  ASSERT_TRUE(api.Start().ok());
  std::string out, err;
  std::string repos;
  for (const char* r : {"gitcode:Ascend/TransformerEngineNPU", "gitcode:Ascend/agent-skills",
                        "gitee:mindspore/mindformers"})
    repos += std::string(" ") + r;
  ASSERT_EQ(RunCommand("FIXGRAPH_HTTP_BACKOFF_MS=5 " +
                           Fixgraph(dir / "synced", "sync" + repos + " --api-base " + api.BaseUrl() +
                                                        " --rate-limit 0 --json --record " +
                                                        (dir / "rec")),
                       &out, &err),
            0)
      << err;
  json summary = json::parse(out);
  EXPECT_EQ(summary["totals"]["repos"], 3);
  EXPECT_GT(summary["totals"]["requests"].get<int>(), 10);
  EXPECT_TRUE(summary["ok"].get<bool>());
  // The same three repositories imported from the recorded dump and from data/demo.
  ASSERT_EQ(RunCommand(Fixgraph(dir / "replayed", "import " + (dir / "rec")), &out, &err), 0) << err;
  std::string a, b, c;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "links --json"), &a, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "replayed", "links --json"), &b, &err), 0) << err;
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a.empty());
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "stats --json"), &a, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "replayed", "stats --json"), &b, &err), 0) << err;
  EXPECT_EQ(json::parse(a)["repositories"], json::parse(b)["repositories"]);
  json stats = json::parse(a);  // not a temporary: the loop outlives the statement
  for (const json& r : stats["repositories"]) {
    std::string name = r["repo"];
    EXPECT_TRUE(name == "gitcode:Ascend/TransformerEngineNPU" || name == "gitcode:Ascend/agent-skills" ||
                name == "gitee:mindspore/mindformers")
        << name;
  }
  // Against a plain import of data/demo, restricted to one repository.
  ASSERT_EQ(RunCommand(Fixgraph(dir / "imported", "import " + demo), &out, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "imported", "links --json --repo gitee:mindspore/mindformers"), &a, &err), 0)
      << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "links --json --repo gitee:mindspore/mindformers"), &c, &err), 0)
      << err;
  EXPECT_EQ(a, c);

  // A second sync changes nothing and fetches no details.
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "sync" + repos + " --api-base " + api.BaseUrl() +
                                                     " --rate-limit 0 --json"),
                       &out, &err),
            0)
      << err;
  summary = json::parse(out);
  EXPECT_EQ(summary["totals"]["changed"], 0);
  EXPECT_EQ(summary["totals"]["detailed"], 0);
  EXPECT_EQ(summary["totals"]["requests"], 9);  // per repository: repo, issues, pulls
}

TEST(SyncCli, TokenNeverPrintedAndErrorsSayWhatToCheck) {
  TempDir dir;
  fakeapi::FakeApi api(SourceDir() + "/data/demo");
  api.RequireToken("the-right-one");
  ASSERT_TRUE(api.Start().ok());
  std::string out, err;
  int rc = RunCommand("GITCODE_TOKEN=zz-very-secret-zz GITEE_TOKEN=zz-very-secret-zz " +
                          Fixgraph(dir / "db", "sync gitcode:Ascend/agent-skills --api-base " +
                                                   api.BaseUrl() + " --rate-limit 0"),
                      &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("401"), std::string::npos) << err;
  EXPECT_NE(err.find("GITCODE_TOKEN"), std::string::npos) << err;
  EXPECT_EQ(err.find("zz-very-secret-zz"), std::string::npos) << err;
  EXPECT_EQ(out.find("zz-very-secret-zz"), std::string::npos) << out;
  rc = RunCommand("GITEE_TOKEN=zz-very-secret-zz " +
                      Fixgraph(dir / "db", "sync gitee:mindspore/mindformers --api-base " +
                                               api.BaseUrl() + " --rate-limit 0 --json"),
                  &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(err.find("zz-very-secret-zz"), std::string::npos) << err;
  EXPECT_EQ(out.find("zz-very-secret-zz"), std::string::npos) << out;
  ASSERT_FALSE(api.Requests().empty());
  EXPECT_EQ(api.Requests().back().access_token, "zz-very-secret-zz");  // it was sent, as Gitee wants
}

TEST(SyncCli, BadUsageExitsTwo) {
  TempDir dir;
  std::string out, err;
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync gitcode:a/b --state maybe"), &out, &err), 2);
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync gitcode:a/b --only comments,bogus"), &out, &err), 2);
  EXPECT_NE(err.find("bogus"), std::string::npos) << err;
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync Ascend/b"), &out, &err), 2);
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync gitcode:a/b --since yesterday"), &out, &err), 2);
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync"), &out, &err), 2);
}

TEST(SyncCli, FakeApiBinaryStarts) {
  std::string out, err;
  EXPECT_EQ(RunCommand(std::string(FIXGRAPH_FAKE_API_BINARY) + " --help", &out, &err), 0);
  EXPECT_NE(out.find("--dump"), std::string::npos);
  EXPECT_EQ(RunCommand(std::string(FIXGRAPH_FAKE_API_BINARY) + " --fault nope --dump x", &out, &err), 2);
}

}  // namespace
}  // namespace fixgraph
