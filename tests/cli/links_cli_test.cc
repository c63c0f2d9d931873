// link, links, graph, eval and the linked `show`, driven in-process.
#include "testutil/testutil.h"

#include "fixgraph/cli/cli.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

int RunCli(std::vector<std::string> args, std::string* out, std::string* err = nullptr) {
  args.insert(args.begin(), "fixgraph");
  std::ostringstream o, e;
  int code = Run(args, o, e);
  *out = o.str();
  if (err) *err = e.str();
  return code;
}

class LinksCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string root = dir_ / "dump/gitcode/Ascend/demo";
    WriteFile(root + "/issues.json", R"([
      {"number": "7", "title": "aclnnFoo 报错", "state": "closed",
       "created_at": "2026-01-01T10:00:00+08:00", "finished_at": "2026-01-05T12:00:00+08:00"},
      {"number": "8", "title": "open question", "state": "open", "finished_at": ""}])");
    WriteFile(root + "/pulls.json", R"([
      {"number": 12, "title": "修复 aclnnFoo 报错", "body": "fix #7", "state": "merged",
       "created_at": "2026-01-04T10:00:00+08:00", "merged_at": "2026-01-05T12:00:00+08:00",
       "head": {"ref": "issue-7"}, "base": {"ref": "master"}},
      {"number": 13, "title": "wip", "body": "关联 #7", "state": "closed",
       "created_at": "2026-01-03T10:00:00+08:00", "closed_at": "2026-01-03T11:00:00+08:00"}])");
    db_ = dir_ / "db";
    std::string out, err;
    ASSERT_EQ(RunCli({"--db", db_, "import", dir_ / "dump"}, &out, &err), 0) << err;
    EXPECT_NE(out.find("relinked 2 issues"), std::string::npos) << out;
  }
  TempDir dir_;
  std::string db_;
};

TEST_F(LinksCli, LinksJsonLinesFollowTheContract) {
  std::string out, err;
  ASSERT_EQ(RunCli({"--db", db_, "links", "--json"}, &out, &err), 0) << err;
  std::istringstream lines(out);
  std::string line;
  std::vector<json> rows;
  while (std::getline(lines, line)) rows.push_back(json::parse(line));
  ASSERT_EQ(rows.size(), 2u);
  const json& r = rows[0];
  EXPECT_EQ(r["issue"], "gitcode:Ascend/demo#7");
  EXPECT_EQ(r["state"], "closed");
  EXPECT_EQ(r["resolution"], "fixed");
  ASSERT_EQ(r["fixes"].size(), 1u);
  EXPECT_EQ(r["fixes"][0]["pr"], "gitcode:Ascend/demo!12");
  EXPECT_EQ(r["fixes"][0]["tier"], "A");
  EXPECT_GT(r["fixes"][0]["confidence"].get<double>(), 0.9);
  std::set<std::string> kinds;
  for (const json& e : r["fixes"][0]["evidence"]) kinds.insert(e["kind"]);
  EXPECT_TRUE(kinds.count("close_at_merge"));
  EXPECT_TRUE(kinds.count("closing_keyword"));
  EXPECT_TRUE(kinds.count("branch_name"));
  std::vector<std::string> flags = r["flags"];
  EXPECT_NE(std::find(flags.begin(), flags.end(), "false_lead"), flags.end());  // !13 never merged
  EXPECT_EQ(rows[1]["resolution"], "open");
}

TEST_F(LinksCli, ShowExplainsTheChain) {
  std::string out, err;
  ASSERT_EQ(RunCli({"--db", db_, "show", "gitcode:Ascend/demo#7"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("resolution: fixed"), std::string::npos) << out;
  EXPECT_NE(out.find("!12 (tier A"), std::string::npos) << out;
  ASSERT_EQ(RunCli({"--db", db_, "show", "gitcode:Ascend/demo#7", "--json"}, &out, &err), 0);
  json view = json::parse(out);
  EXPECT_EQ(view["links"]["resolution"], "fixed");
  EXPECT_FALSE(view["explanation"].empty());
}

TEST_F(LinksCli, LinkGraphEval) {
  std::string out, err;
  ASSERT_EQ(RunCli({"--db", db_, "link", "--json"}, &out, &err), 0) << err;
  json stats = json::parse(out);
  EXPECT_EQ(stats["issues"], 2);
  EXPECT_EQ(stats["by_tier"]["A"], 1);
  // Where the time went: reading, computing, writing; together at most the whole.
  double phases = 0;
  for (const char* p : {"load", "compute", "write"}) {
    ASSERT_TRUE(stats["phases"][p].is_number()) << p << ": " << out;
    EXPECT_GT(stats["phases"][p].get<double>(), 0) << p;
    phases += stats["phases"][p].get<double>();
  }
  EXPECT_LE(phases, stats["seconds"].get<double>());

  ASSERT_EQ(RunCli({"--db", db_, "graph", "--dot"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("graph"), std::string::npos);
  EXPECT_NE(out.find("gitcode:Ascend/demo!12"), std::string::npos) << out;

  WriteFile(dir_ / "labels.json", R"({"version": 1, "issues": [
    {"issue": "gitcode:Ascend/demo#7", "resolution": "fixed",
     "fixes": [{"pr": "gitcode:Ascend/demo!12", "tier": "A"}], "flags": ["false_lead"]},
    {"issue": "gitcode:Ascend/demo#8", "resolution": "open", "fixes": [], "flags": []}]})");
  ASSERT_EQ(RunCli({"--db", db_, "eval", "--labels", dir_ / "labels.json", "--json"}, &out, &err),
            0)
      << err;
  json report = json::parse(out);
  EXPECT_DOUBLE_EQ(report["links"]["f1"].get<double>(), 1.0) << report.dump();
  EXPECT_DOUBLE_EQ(report["resolution"]["accuracy"].get<double>(), 1.0) << report.dump();
}

TEST_F(LinksCli, BadRepoFilterAndMissingLabels) {
  std::string out, err;
  EXPECT_EQ(RunCli({"--db", db_, "links", "--repo", "Ascend/demo"}, &out, &err),
            2);  // a usage error
  EXPECT_NE(err.find("--repo: expected a repository such as gitcode:Ascend/MindSpeed-Ops, got "
                     "\"Ascend/demo\""),
            std::string::npos)
      << err;
  EXPECT_EQ(RunCli({"--db", db_, "eval", "--labels", dir_ / "nope.json"}, &out, &err), 1);
  EXPECT_NE(err.find("nope.json"), std::string::npos) << err;
}

// A PR that gives the issue only as the reason it skips a test: `show` says
// so, and the issue gets no fix from it (engine/mentions.h, kReason).
TEST(LinksCliReason, AnIssueAPrSkipsATestForIsNotFixedByIt) {
  TempDir dir;
  const std::string root = dir / "dump/gitcode/Ascend/demo";
  WriteFile(root + "/issues.json", R"([
    {"number": "9", "title": "xgrammar 类型不匹配", "state": "closed",
     "created_at": "2026-01-01T10:00:00+08:00", "finished_at": "2026-02-01T12:00:00+08:00"},
    {"number": "10", "title": "a recorded thread without its opening", "state": "open"}])");
  WriteFile(root + "/pulls.json", R"json([
    {"number": 14, "title": "Upgrade the pinned vllm commit",
     "body": "1. keep a test compatible\n2. Skip test_guided_decoding.py due to xgrammar errors\n(https://gitcode.com/Ascend/demo/issues/9)",
     "state": "merged", "created_at": "2026-01-04T10:00:00+08:00",
     "merged_at": "2026-01-05T12:00:00+08:00", "head": {"ref": "upgrade"}, "base": {"ref": "master"}}])json");
  const std::string db = dir / "db";
  std::string out, err;
  ASSERT_EQ(RunCli({"--db", db, "import", dir / "dump"}, &out, &err), 0) << err;
  ASSERT_EQ(RunCli({"--db", db, "show", "gitcode:Ascend/demo#9"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("(named as the reason for a skip, not as fixed)"), std::string::npos) << out;
  // No author recorded: no empty " by ".
  EXPECT_NE(out.find("\nopened 2026-01-01 10:00:00 +08:00; closed"), std::string::npos) << out;
  ASSERT_EQ(RunCli({"--db", db, "show", "gitcode:Ascend/demo#10"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("\nopened (time unknown)\n"), std::string::npos) << out;
  ASSERT_EQ(RunCli({"--db", db, "show", "--json", "gitcode:Ascend/demo#9"}, &out, &err), 0) << err;
  const json view = json::parse(out);
  ASSERT_EQ(view["mentioned_by"].size(), 1u) << out;
  EXPECT_EQ(view["mentioned_by"][0]["keyword"], "reason");
  ASSERT_EQ(RunCli({"--db", db, "links", "--json"}, &out, &err), 0) << err;
  const json row = json::parse(out.substr(0, out.find('\n')));
  EXPECT_TRUE(row["fixes"].empty()) << out;
  EXPECT_NE(row["notes"].dump().find("reason it skips"), std::string::npos) << out;
}

// A fix PR whose description holds only its reference and a template's
// version notes: `ask` prints its title once, as the fix, with no answer
// block repeating it (query/issue_index.h ExtractPrAnswer).
TEST(AskCliAnswer, AFixPrThatSaysNoMoreThanItsTitleIsPrintedOnce) {
  TempDir dir;
  const std::string root = dir / "dump/gitcode/Ascend/demo";
  WriteFile(root + "/issues.json", R"([
    {"number": "9", "title": "xgrammar bitmask type mismatch on NPU", "state": "closed",
     "created_at": "2026-01-01T10:00:00+08:00", "finished_at": "2026-01-05T12:00:00+08:00"}])");
  WriteFile(root + "/pulls.json", R"json([
    {"number": 14, "title": "Cast the xgrammar bitmask before applying it",
     "body": "Fixes #9\n\n- vLLM version: v0.13.0\n- vLLM main:\n",
     "state": "merged", "created_at": "2026-01-04T10:00:00+08:00",
     "merged_at": "2026-01-05T12:00:00+08:00", "head": {"ref": "fix"}, "base": {"ref": "master"}}])json");
  const std::string db = dir / "db";
  std::string out, err;
  ASSERT_EQ(RunCli({"--db", db, "import", dir / "dump"}, &out, &err), 0) << err;
  ASSERT_EQ(RunCli({"--db", db, "ask", "--no-docs", "xgrammar bitmask type mismatch"}, &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("fix: !14 (tier A) Cast the xgrammar bitmask before applying it"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("answer"), std::string::npos) << out;
  EXPECT_EQ(out.find("vLLM version"), std::string::npos) << out;
}

}  // namespace
}  // namespace fixgraph::cli
