// Measured quality of ask on the demo data: the dev query set
// tests/data/queries.json (paraphrases, the other language, codes, API names,
// pasted logs) must keep honest thresholds (docs/evaluation.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testutil/testutil.h"

namespace fixgraph::query {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::RunCommand;
using fixgraph::testing::SourceDir;

TEST(AskEvalTest, DevQuerySetMeetsThresholds) {
  fixgraph::testing::TempDir db;
  std::string out, err;
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db.path() + " import " + SourceDir() + "/data/demo", &out, &err),
            0)
      << err;
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db.path() + " eval-ask --json --queries " + SourceDir() +
                           "/tests/data/queries.json",
                       &out, &err),
            0)
      << err;
  nlohmann::json r = nlohmann::json::parse(out);
  EXPECT_GE(r["queries"].get<int>(), 60);
  EXPECT_GE(r["recall_at_5"].get<double>(), 0.9) << out;
  EXPECT_GE(r["recall_at_1"].get<double>(), 0.8) << out;
  EXPECT_GE(r["mrr"].get<double>(), 0.85) << out;
  // Every kind of query works, not just the easy ones.
  for (const auto& [kind, v] : r["by_kind"].items())
    EXPECT_GE(v["recall_at_5"].get<double>(), 0.8) << kind;
  // Measured under the default noise floor, with room below the weakest
  // expected hit (docs/evaluation.md, "Noise floor").
  EXPECT_EQ(r["min_score"].get<double>(), 0.10);
  EXPECT_GE(r["expected_score_min"].get<double>(), 1.5 * r["min_score"].get<double>()) << out;
}

TEST(AskEvalTest, BadQuerySetFileIsAClearError) {
  fixgraph::testing::TempDir db;
  fixgraph::testing::WriteFile(db / "q.json", "{\"q\": 1}");
  std::string out, err;
  int rc = RunCommand(BinaryPath() + " --db " + db.path() + " eval-ask --queries " + (db / "q.json"), &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("q.json"), std::string::npos) << err;
}

}  // namespace
}  // namespace fixgraph::query
