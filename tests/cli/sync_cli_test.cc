// `fixgraph sync` end to end through the loopback fake API.
#include "fake_api.h"
#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

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
                           Fixgraph(dir / "synced",
                                    "sync" + repos + " --api-base " + api.BaseUrl() +
                                        " --rate-limit 0 --json --record " + (dir / "rec")),
                       &out, &err),
            0)
      << err;
  json summary = json::parse(out);
  EXPECT_EQ(summary["totals"]["repos"], 3);
  EXPECT_GT(summary["totals"]["requests"].get<int>(), 10);
  EXPECT_TRUE(summary["ok"].get<bool>());
  // The same three repositories imported from the recorded dump and from data/demo.
  ASSERT_EQ(RunCommand(Fixgraph(dir / "replayed", "import " + (dir / "rec")), &out, &err), 0)
      << err;
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
    EXPECT_TRUE(name == "gitcode:Ascend/TransformerEngineNPU" ||
                name == "gitcode:Ascend/agent-skills" || name == "gitee:mindspore/mindformers")
        << name;
  }
  // Against a plain import of data/demo, restricted to one repository.
  ASSERT_EQ(RunCommand(Fixgraph(dir / "imported", "import " + demo), &out, &err), 0) << err;
  ASSERT_EQ(
      RunCommand(Fixgraph(dir / "imported", "links --json --repo gitee:mindspore/mindformers"), &a,
                 &err),
      0)
      << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "links --json --repo gitee:mindspore/mindformers"),
                       &c, &err),
            0)
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
  EXPECT_EQ(api.Requests().back().access_token,
            "zz-very-secret-zz");  // it was sent, as Gitee wants
}

// $FIXGRAPH_HTTP_BACKOFF_MS reaches the sync through the cli
// (SyncOptions::backoff_ms): one 503 and a first backoff of 5000 ms (jitter
// halves at most) take at least 2.5 s, where the default (1000 ms) would
// take at most about 1 s. Only a lower bound: a loaded machine is slower.
TEST(SyncCli, HttpBackoffFromTheEnvironment) {
  TempDir dir;
  fakeapi::FakeApi api(SourceDir() + "/data/demo");
  fakeapi::FakeFault fault;
  fault.kind = "503";
  fault.count = 1;
  fault.match = "/repos/Ascend/agent-skills/issues";
  api.AddFault(fault);
  ASSERT_TRUE(api.Start().ok());
  std::string out, err;
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(RunCommand("FIXGRAPH_HTTP_BACKOFF_MS=5000 " +
                           Fixgraph(dir / "db", "sync gitcode:Ascend/agent-skills --api-base " +
                                                    api.BaseUrl() + " --rate-limit 0 --json"),
                       &out, &err),
            0)
      << err;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(json::parse(out)["totals"]["retries"], 1) << out;
  EXPECT_GE(secs, 2.5);
}

TEST(SyncCli, BadUsageExitsTwo) {
  TempDir dir;
  std::string out, err;
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync gitcode:a/b --state maybe"), &out, &err), 2);
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync gitcode:a/b --only comments,bogus"), &out, &err),
            2);
  EXPECT_NE(err.find("bogus"), std::string::npos) << err;
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync Ascend/b"), &out, &err), 2);
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync gitcode:a/b --since yesterday"), &out, &err), 2);
  EXPECT_EQ(RunCommand(Fixgraph(dir / "db", "sync"), &out, &err), 2);
}

TEST(SyncCli, FakeApiBinaryStarts) {
  std::string out, err;
  EXPECT_EQ(RunCommand(std::string(FIXGRAPH_FAKE_API_BINARY) + " --help", &out, &err), 0);
  EXPECT_NE(out.find("--dump"), std::string::npos);
  EXPECT_EQ(
      RunCommand(std::string(FIXGRAPH_FAKE_API_BINARY) + " --fault nope --dump x", &out, &err), 2);
}

// libcurl is dlopen'ed by the first request (ingest/http_curl.cc): a command
// that makes none does not map it (glibc's loader trace, LD_DEBUG=libs, on
// stderr), a sync does, and works.
TEST(SyncCli, LibcurlIsLoadedOnlyByARequest) {
  TempDir dir;
  std::string out, err;
  ASSERT_EQ(RunCommand("LD_DEBUG=libs " + BinaryPath() + " --version", &out, &err), 0) << err;
  ASSERT_NE(err.find("libc.so.6"), std::string::npos) << "no loader trace: " << err.substr(0, 400);
  EXPECT_EQ(err.find("libcurl"), std::string::npos);
  fakeapi::FakeApi api(SourceDir() + "/data/demo");
  ASSERT_TRUE(api.Start().ok());
  ASSERT_EQ(RunCommand("LD_DEBUG=libs " +
                           Fixgraph(dir / "db", "sync gitcode:Ascend/agent-skills --api-base " +
                                                    api.BaseUrl() + " --rate-limit 0 --json"),
                       &out, &err),
            0)
      << err;
  EXPECT_NE(err.find("libcurl.so.4"), std::string::npos);
  EXPECT_TRUE(json::parse(out)["ok"].get<bool>()) << out;
}

// Issue 23.
TEST(SyncCli, LeanFirstSyncLinksLikeAFullImport) {
  TempDir dir;
  const std::string demo = SourceDir() + "/data/demo";
  fakeapi::FakeApi api(demo);
  ASSERT_TRUE(api.Start().ok());
  std::string repos;
  for (const char* platform : {"gitcode", "gitee"})
    for (const auto& owner : std::filesystem::directory_iterator(demo + "/" + platform))
      for (const auto& repo : std::filesystem::directory_iterator(owner.path()))
        repos += std::string(" ") + platform + ":" + owner.path().filename().string() + "/" +
                 repo.path().filename().string();
  std::string out, err, a, b;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "sync" + repos + " --api-base " + api.BaseUrl() +
                                                    " --rate-limit 0 --json"),
                       &out, &err),
            0)
      << err;
  json summary = json::parse(out);
  double items =
      summary["totals"]["issues"].get<double>() + summary["totals"]["pulls"].get<double>();
  std::cout << "lean first sync of data/demo: " << summary["totals"]["requests"] << " requests, "
            << summary["totals"]["requests"].get<double>() / items << " per item\n";
  ASSERT_EQ(RunCommand(Fixgraph(dir / "imported", "import " + demo), &out, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "synced", "links --json"), &a, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "imported", "links --json"), &b, &err), 0) << err;
  EXPECT_FALSE(a.empty());
  // JSON Lines, one issue per line, in the same order: the same fixes, tiers,
  // confidences and evidence. A platform link's evidence names the endpoint
  // that reported it, and fewer endpoints report each one: that name aside.
  auto unsourced = [](std::string text) {
    for (const char* source : {"(issue_pull_requests)", "(pull_issues)", "(operate_log)"})
      for (size_t p; (p = text.find(source)) != std::string::npos;)
        text.replace(p, std::string(source).size(), "(platform)");
    return text;
  };
  EXPECT_EQ(unsourced(a), unsourced(b));
  EXPECT_NE(a.find("the platform links"), std::string::npos);
}

TEST(SyncCli, PartialSyncExitsThreeAndNamesWhatWasSkipped) {
  TempDir dir;
  fakeapi::FakeApi api(SourceDir() + "/tests/data/platform-shapes");
  auto f = fakeapi::ParseFakeFault("404:-1:/pulls/4/issues");
  ASSERT_TRUE(f.ok());
  api.AddFault(*f);
  ASSERT_TRUE(api.Start().ok());
  std::string out, err;
  int rc = RunCommand(Fixgraph(dir / "db",
                               "sync gitcode:sytest/paopao gitee:kit101/drone-yml-test "
                               "--api-base " +
                                   api.BaseUrl() + " --rate-limit 0 --json"),
                      &out, &err);
  EXPECT_EQ(rc, 3) << err;
  json summary = json::parse(out);
  EXPECT_EQ(summary["outcome"], "partial");
  EXPECT_FALSE(summary["ok"].get<bool>());
  EXPECT_EQ(summary["totals"]["repos"], 2);
  EXPECT_EQ(summary["totals"]["skipped"], 1);
  ASSERT_EQ(summary["skipped_endpoints"].size(), 1u);
  EXPECT_NE(summary["skipped_endpoints"][0]["url"].get<std::string>().find("/pulls/4/issues"),
            std::string::npos);
  EXPECT_NE(err.find("skipped issues.json of gitcode:sytest/paopao!4"), std::string::npos) << err;
  EXPECT_NE(err.find("404"), std::string::npos) << err;
  // Without --json: the summary says so too.
  rc = RunCommand(Fixgraph(dir / "db2", "sync gitcode:sytest/paopao --api-base " + api.BaseUrl() +
                                            " --rate-limit 0"),
                  &out, &err);
  EXPECT_EQ(rc, 3) << err;
  EXPECT_NE(out.find("partial: 1 detail endpoints skipped"), std::string::npos) << out;
}

TEST(SyncCli, UnreachableServerFailsFastAndLeavesNoTrace) {
  TempDir dir;
  int port = 0;
  {
    fakeapi::FakeApi probe(dir.path());
    auto p = probe.Start();
    ASSERT_TRUE(p.ok());
    port = *p;
  }
  std::string out, err;
  auto start = std::chrono::steady_clock::now();
  int rc = RunCommand(Fixgraph(dir / "db",
                               "sync gitcode:Ascend/a gitcode:Ascend/b --api-base "
                               "http://127.0.0.1:" +
                                   std::to_string(port) + "/api/v5 --rate-limit 0 --json"),
                      &out, &err);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(rc, 1);
  EXPECT_LT(secs, 5.0);
  EXPECT_NE(err.find("cannot reach the server"), std::string::npos) << err;
  json summary = json::parse(out);
  EXPECT_EQ(summary["outcome"], "failed");
  EXPECT_EQ(summary["repos"].size(), 1u) << "stops at the first repository";
  ASSERT_EQ(RunCommand(Fixgraph(dir / "db", "stats --json"), &out, &err), 0) << err;
  EXPECT_TRUE(json::parse(out)["repositories"].empty()) << out;
}

// The platform-shapes dump imported: the issue linked to a branch gets the PR
// of that branch as branch evidence; a link to another repository's issue is
// shown by `show`.
TEST(SyncCli, IssueBranchLinksAndCrossRepositoryLinksAreUsed) {
  TempDir dir;
  std::string out, err;
  ASSERT_EQ(
      RunCommand(Fixgraph(dir / "db", "import " + SourceDir() + "/tests/data/platform-shapes"),
                 &out, &err),
      0)
      << err;
  ASSERT_EQ(
      RunCommand(Fixgraph(dir / "db", "links --json --repo gitcode:sytest/paopao"), &out, &err), 0)
      << err;
  bool found = false;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    json j = json::parse(line);
    if (j["issue"] != "gitcode:sytest/paopao#4") continue;
    for (const json& f : j["fixes"]) {
      if (f["pr"] != "gitcode:sytest/paopao!7") continue;
      for (const json& e : f["evidence"])
        if (e["kind"] == "branch_name" && e["detail"].get<std::string>().find(
                                              "linked to #4 on the platform") != std::string::npos)
          found = true;
    }
  }
  EXPECT_TRUE(found) << out;
  ASSERT_EQ(RunCommand(Fixgraph(dir / "db", "show gitcode:sytest/paopao!4"), &out, &err), 0) << err;
  EXPECT_NE(out.find("gitcode:sytest/other#1 <-> gitcode:sytest/paopao!4"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace fixgraph
