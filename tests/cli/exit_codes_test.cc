// The exit-status table of docs/cli.md ("Exit status"): 2 for usage (an
// unknown flag, a bad flag value, a missing argument), 1 for a failure (an
// unknown --repo among them, named with what the store holds), 3 for a
// partial sync (sync_cli_test.cc); and --json on every command that prints.
#include "cli_run.h"
#include "testutil/testutil.h"

#include "fixgraph/cli/cli.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::SourceDir;
using nlohmann::json;

using Result = testing::CliResult;

class ExitCodes : public testing::DemoStoreCli<ExitCodes, /*kWithDocs=*/true> {
 protected:
  // Expects a usage error (exit 2) whose message holds `says`, and nothing on stdout.
  static void ExpectUsage(const std::vector<std::string>& args, const std::string& says) {
    Result r = Run(args);
    std::string cmd;
    for (const std::string& a : args) cmd += a + " ";
    EXPECT_EQ(r.code, 2) << cmd << r.err;
    EXPECT_NE(r.err.find("fixgraph: usage error: "), std::string::npos) << cmd << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << cmd << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
};

TEST_F(ExitCodes, UnknownFlagIsNamedEvenWhenAnArgumentIsMissing) {
  // CLI11 alone says "TEXT is required" here.
  ExpectUsage({"ask", "--foo"}, "ask: unknown flag --foo");
  ExpectUsage({"ask", "--foo", "EZ9999"}, "ask: unknown flag --foo");
  ExpectUsage({"docs", "import", "--bogus"}, "docs import: unknown flag --bogus");
  ExpectUsage({"show", "-x", "gitcode:Ascend/FlashGen#13"}, "show: unknown flag -x");
  ExpectUsage({"links", "--json=1", "--nope=2"}, "links: unknown flag --nope");
  Result r = Run({"ask", "--foo"});
  EXPECT_EQ(r.err.find("TEXT is required"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fixgraph ask --help"), std::string::npos) << r.err;
}

TEST_F(ExitCodes, WhatLooksLikeAFlagButIsNotOneStillWorks) {
  // A negative error code, text after --, a flag value starting with '-',
  // flags of the top level after the command.
  EXPECT_EQ(Run({"ask", "-1610252272"}).code, 0);
  EXPECT_EQ(Run({"ask", "--", "--foo"}).code, 0);
  EXPECT_EQ(Run({"ask", "--limit=2", "EZ9999"}).code, 0);
  EXPECT_EQ(Run({"digest", "--format", "json", "-o", "-"}).code, 0);
  std::ostringstream out, err;
  EXPECT_EQ(fixgraph::cli::Run({"fixgraph", "stats", "--db", db_->path(), "--json"}, out, err), 0)
      << err.str();
}

TEST_F(ExitCodes, TopLevelFlagsBeforeTheCommandLeaveItsFlagsAlone) {
  // The word after a top-level flag is the command, not the flag's value:
  // the command's own flags are then found (they were "unknown flag").
  Result r = Run({"--quiet", "stats", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(json::accept(r.out)) << r.out;
  r = Run({"--quiet", "ask", "--limit", "1", "EZ9999"});
  EXPECT_EQ(r.code, 0) << r.err;
  ExpectUsage({"--quiet", "ask", "--foo", "EZ9999"}, "ask: unknown flag --foo");
  ExpectUsage({"--progress", "stats", "--nope"}, "stats: unknown flag --nope");
}

TEST_F(ExitCodes, MissingArgumentsNameTheCommand) {
  ExpectUsage({"ask"}, "ask: TEXT is required");
  ExpectUsage({"docs", "import"}, "docs import: PATH is required");
  ExpectUsage({"digest", "-o"}, "--output");
}

TEST_F(ExitCodes, BadFlagValuesAreUsageErrors) {
  ExpectUsage({"digest", "--format", "pdf"}, "--format: expected md, json or html, got \"pdf\"");
  ExpectUsage({"digest", "--lang", "fr"}, "--lang: expected zh or en, got \"fr\"");
  ExpectUsage({"digest", "--min-tier", "E"}, "--min-tier: expected A, B, C or D, got \"E\"");
  ExpectUsage({"digest", "--since", "yesterday"}, "--since \"yesterday\"");
  ExpectUsage({"digest", "--org", "gitcode:"}, "--org \"gitcode:\": expected an owner");
  ExpectUsage({"digest", "--json", "--format", "html"}, "--json");
  ExpectUsage({"sync", "--state", "weird", "gitcode:a/b"},
              "--state: expected all, open or closed, got \"weird\"");
  ExpectUsage({"import", "--time-offset", "+8h", SourceDir() + "/data/demo"}, "--time-offset");
  ExpectUsage({"ask", "--limit", "0", "x"}, "--limit: expected a whole number from 1 to 100");
  ExpectUsage({"graph", "--json", "--dot"}, "--json or --dot");
  for (const char* cmd : {"ask", "links", "link", "graph", "digest"}) {
    std::vector<std::string> args{cmd, "--repo", "Ascend/FlashGen"};
    if (std::string(cmd) == "ask") args.push_back("EZ9999");
    ExpectUsage(args,
                "--repo: expected a repository such as gitcode:Ascend/MindSpeed-Ops, got "
                "\"Ascend/FlashGen\"");
  }
}

TEST_F(ExitCodes, AnUnknownRepositoryFailsTheSameWayEverywhere) {
  for (const char* cmd : {"ask", "links", "graph", "digest", "link"}) {
    std::vector<std::string> args{cmd, "--repo", "gitcode:Ascend/NoSuchRepo"};
    if (std::string(cmd) == "ask") args.push_back("EZ9999");
    Result r = Run(args);
    EXPECT_EQ(r.code, 1) << cmd << r.err;
    EXPECT_NE(r.err.find("fixgraph: error: repository gitcode:Ascend/NoSuchRepo is not in the "
                         "store; it holds 18 "
                         "repositories: "),
              std::string::npos)
        << cmd << r.err;
    EXPECT_NE(r.err.find("gitcode:Ascend/FlashGen"), std::string::npos) << cmd << r.err;
    EXPECT_EQ(r.err.find("run `fixgraph link`"), std::string::npos) << cmd << r.err;
  }
  // A repository the store holds is answered.
  Result r = Run({"links", "--repo", "gitcode:Ascend/FlashGen"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gitcode:Ascend/FlashGen#13"), std::string::npos) << r.out;
}

TEST_F(ExitCodes, FailuresExitOne) {
  Result r = Run({"show", "gitcode:Ascend/FlashGen#99999"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fixgraph: error: "), std::string::npos) << r.err;
  r = Run({"eval", "--labels", db_->path() + "/missing.json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
}

TEST_F(ExitCodes, EveryCommandThatPrintsHasJson) {
  struct Case {
    std::vector<std::string> args;
    const char* key;  // a field the document must have
  };
  std::vector<Case> cases = {
      {{"graph", "--json"}, "clusters"},
      {{"graph", "--json", "--repo", "gitcode:Ascend/FlashGen"}, "nodes"},
      {{"docs", "import", "--json", SourceDir() + "/data/kg"}, "nodes"},
      {{"docs", "eval", "--json", SourceDir() + "/tests/data/kg-questions.json"}, "splits"},
      {{"docs", "search", "--json", "HCCL"}, "docs"},
      {{"digest", "--json"}, "disclosure"},
      {{"stats", "--json"}, "repositories"},
      {{"ask", "--json", "EZ9999"}, "hits"},
      {{"show", "--json", "gitcode:Ascend/FlashGen#13"}, "kind"},
      {{"eval", "--json", "--labels", SourceDir() + "/tests/data/demo-labels.json"}, "links"},
  };
  for (const Case& c : cases) {
    Result r = Run(c.args);
    ASSERT_EQ(r.code, 0) << c.args[0] << " " << r.err;
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << c.args[0] << ": " << r.out.substr(0, 200);
    EXPECT_TRUE(doc.contains(c.key)) << c.args[0] << ": " << r.out.substr(0, 200);
  }
  json graph = json::parse(Run({"graph", "--json", "--repo", "gitcode:Ascend/FlashGen"}).out);
  bool found = false;
  for (const json& cluster : graph["clusters"])
    for (const json& id : cluster) found = found || id == "gitcode:Ascend/FlashGen#13";
  EXPECT_TRUE(found) << graph.dump();
  json docs = json::parse(Run({"docs", "import", "--json", SourceDir() + "/data/kg"}).out);
  EXPECT_GT(docs["nodes"].get<int>(), 0);
  EXPECT_GT(docs["replaced"].get<int>(), 0);  // imported once by SetUpTestSuite
  // Every subcommand offers --json except the two servers, which speak JSON themselves.
  for (const char* cmd : {"import", "sync", "show", "stats", "link", "links", "graph", "eval",
                          "eval-suggest", "ask", "eval-ask", "index-ask", "digest"}) {
    Result h = Run({cmd, "--help"});
    EXPECT_NE(h.out.find("--json"), std::string::npos) << cmd;
  }
  for (const char* sub : {"import", "search", "eval"}) {
    Result h = Run({"docs", sub, "--help"});
    EXPECT_NE(h.out.find("--json"), std::string::npos) << "docs " << sub;
  }
}

}  // namespace
}  // namespace fixgraph::cli
