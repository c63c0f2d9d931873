// `fixgraph ask` and `eval-ask` as commands, on the demo store: the text
// output, the flags reaching the search, a pasted log on stdin, `link`
// rebuilding the index, the messages and exit codes of bad queries and a bad
// query-set file. What ask answers is tested in-process in
// tests/query/ask_test.cc, ask_eval_test.cc and bad_query_test.cc.
#include "cli_run.h"
#include "testutil/testutil.h"

#include "fixgraph/cli/cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::RunCommand;
using fixgraph::testing::RunFixgraph;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using nlohmann::json;

using Result = testing::CliResult;
using testing::RunCliOn;

class AskCli : public testing::DemoStoreCli<AskCli> {
 protected:
  // `ask --json ARGS...`, parsed.
  static json AskJson(std::vector<std::string> args) {
    args.insert(args.begin(), {"ask", "--json"});
    Result r = Run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json::object();
  }
};

TEST_F(AskCli, PlainTextReadsWell) {
  Result r = Run({"ask", "FocalLoss", "Sync", "stream", "error"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("1. gitcode:mindspore/mindspore#477", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("https://gitcode.com/mindspore/mindspore/issues/477"), std::string::npos);
  r = Run({"ask", "--", "-1610252272"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mindsdk-referenceapps#332"), std::string::npos) << r.out;
  // A hit's flags get a line of their own.
  r = Run({"ask", "--no-docs", "--limit", "1", "FlashGen MiniMax-H3 蒸馏训练"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("flags: fix_before_issue"), std::string::npos) << r.out;
}

class AskDocsCli : public testing::DemoStoreCli<AskDocsCli, /*kWithDocs=*/true> {};

// A doc hit in the text output names the products its page supports, as
// `docs search` does: for "does X work on Y" they are the answer.
TEST_F(AskDocsCli, DocHitsShowTheirProducts) {
  Result r = Run({"ask", "HCCL_IF_BASE_PORT 端口范围"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("- HCCL_IF_BASE_PORT: port range used by HCCL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  fixgraph-kg/hccl/if-base-port  [A2, A3, training]\n"), std::string::npos)
      << r.out;
  // A support question naming products reads whether the page lists them.
  r = Run({"ask", "HCCL_IF_BASE_PORT 在 910B 和 310P 上支持吗"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  fixgraph-kg/hccl/if-base-port  [A2, A3, training]  asked: A2 listed, "
                       "inference not listed\n"),
            std::string::npos)
      << r.out;
}

// --repo, --limit, --no-docs and --min-score reach the search.
TEST_F(AskCli, FlagsReachTheSearch) {
  json r = AskJson(
      {"--repo", "gitcode:Ascend/mindsdk-referenceapps", "--limit", "2", "h264_ascend 码率"});
  ASSERT_EQ(r["hits"].size(), 2u);
  for (const json& h : r["hits"])
    EXPECT_EQ(h["issue"].get<std::string>().rfind("gitcode:Ascend/mindsdk-referenceapps#", 0), 0u);

  const std::string q = "Segmentation fault 910B";
  json all = AskJson({"--no-docs", "--limit", "10", "--min-score", "0", q});
  json cut = AskJson({"--no-docs", "--limit", "10", "--min-score", "0.3", q});
  json def = AskJson({"--no-docs", "--limit", "10", q});
  EXPECT_EQ(all["dropped"], 0);
  EXPECT_EQ(all["min_score"], 0.0);
  EXPECT_EQ(cut["min_score"], 0.3);
  EXPECT_EQ(def["min_score"], 0.10);
  ASSERT_GT(cut["dropped"].get<size_t>(), 0u) << all.dump();
  EXPECT_EQ(cut["hits"].size() + cut["dropped"].get<size_t>(), all["hits"].size());
  EXPECT_EQ(def["hits"].size() + def["dropped"].get<size_t>(), all["hits"].size());
  EXPECT_TRUE(all["docs"].empty());
}

// The text says how many weak hits the noise floor dropped; a floor outside
// [0, 1] is a usage error.
TEST_F(AskCli, MinScoreIsReportedAndChecked) {
  json def = AskJson({"--no-docs", "--limit", "10", "Segmentation fault 910B"});
  size_t dropped = def["dropped"].get<size_t>();
  ASSERT_GT(dropped, 0u) << def.dump();  // the demo has hits under the default floor here
  Result r = Run({"ask", "--no-docs", "--limit", "10", "Segmentation fault 910B"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(dropped) + " weaker hit"), std::string::npos) << r.out;
  r = Run({"ask", "--min-score", "1.5", "OOM"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--min-score"), std::string::npos) << r.err;
}

// `ask -` reads a pasted log from stdin (the real binary, fed by the shell).
TEST_F(AskCli, PastedLogOnStdin) {
  const std::string log = fixgraph::testing::PastedDecoderLog();
  TempDir tmp;
  fixgraph::testing::WriteFile(tmp / "log.txt", log);
  std::string out, err;
  ASSERT_EQ(RunFixgraph(db_->path(), "ask --json - < " + (tmp / "log.txt"), &out, &err), 0) << err;
  json r = json::parse(out);
  ASSERT_FALSE(r["hits"].empty());
  EXPECT_EQ(r["hits"][0]["issue"], "gitcode:Ascend/mindsdk-referenceapps#332");
  EXPECT_NE(r["searched"].get<std::string>().find("-1610252272"), std::string::npos);
  EXPECT_EQ(r["searched"].get<std::string>().find("queue depth"), std::string::npos);
}

// `fixgraph link` rebuilds the ask index: with the index deleted, ask fails
// until link has run, then answers.
TEST_F(AskCli, LinkRebuildsTheIndex) {
  std::filesystem::remove_all(db_->path() + "/index-issues");
  Result r = Run({"ask", "FocalLoss"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fixgraph: error: no issue index"), std::string::npos) << r.err;
  r = Run({"link"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = AskJson({"FocalLoss"});
  ASSERT_FALSE(j["hits"].empty());
  EXPECT_EQ(j["hits"][0]["issue"], "gitcode:mindspore/mindspore#477");
}

TEST_F(AskCli, BadQueriesGetMessagesAndExitCodes) {
  // No index yet.
  TempDir empty;
  Result r = RunCliOn(empty.path(), {"ask", "foo"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fixgraph: error: no issue index"), std::string::npos) << r.err;
  r = Run({"ask", "!!! ... ---"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fixgraph: error: nothing to search"), std::string::npos) << r.err;
  r = Run({"ask", "EZ9999", "--repo", "nonsense"});
  EXPECT_EQ(r.code, 2);  // a bad flag value is a usage error
  EXPECT_NE(r.err.find("--repo"), std::string::npos) << r.err;
  r = Run({"ask", "AND AND \"unbalanced", "--json"});
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.err;
  // Invalid UTF-8 on stdin (the real binary, fed by the shell).
  std::string out, err;
  int rc = RunCommand("printf 'abc \\377\\376 EZ9999' | " + fixgraph::testing::BinaryPath() +
                          " --db " + db_->path() + " ask - --json",
                      &out, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_NE(out.find("\"hits\""), std::string::npos);
}

// eval-ask passes its options to the measurement (10 hits, no docs, the
// default floor) and prints the report; a query-set file that is not a
// JSON array is a failure naming the file.
TEST_F(AskCli, EvalAskReportsAndRejectsABadQuerySet) {
  Result r = Run({"eval-ask", "--json", "--queries", SourceDir() + "/tests/data/queries.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = json::parse(r.out);
  EXPECT_GE(report["queries"].get<int>(), 60);
  EXPECT_GE(report["recall_at_5"].get<double>(), 0.9) << r.out;
  EXPECT_EQ(report["min_score"].get<double>(), 0.10);
  EXPECT_EQ(report["results"].size(), report["queries"].get<size_t>());

  TempDir dir;
  fixgraph::testing::WriteFile(dir / "q.json", "{\"q\": 1}");
  r = RunCliOn(dir.path(), {"eval-ask", "--queries", dir / "q.json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("q.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fixgraph::cli
